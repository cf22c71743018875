"""From the statistics of many fits on two neighbouring data sets to lower bounds on epsilon and mu.

Why half the trials choose the test and the other half bound it: "Audits" in ``docs/design.md``.
"""

from dataclasses import dataclass

import numpy as np
from scipy.stats import beta, norm

from sklearn_privacy.dp import gaussian_dp_epsilon_from_mu
from sklearn_privacy.utils import check_generator

__all__ = [
    "AuditBounds",
    "audit_power",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "dp_tradeoff",
    "epsilon_from_rates",
    "gdp_tradeoff",
    "mu_from_rates",
    "roc_points",
    "select_and_bound",
    "trials_to_refute",
]

# Candidate thresholds tried on the choosing half (quantiles of its pooled statistics): more
# only refines a choice that the evaluation half then measures with its own error.
_N_THRESHOLDS = 512
# Points of the empirical trade-off curve kept for the picture.
_N_ROC_POINTS = 200
# Ridge of the pooled covariance of a vector statistic, relative to its mean variance.
_RIDGE = 1e-6


def clopper_pearson_upper(k, n, alpha):
    """One-sided ``1 - alpha`` Clopper-Pearson upper bound on a rate seen ``k`` times in ``n``."""
    k = np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):
        upper = beta.ppf(1.0 - alpha, k + 1.0, np.maximum(n - k, 1e-300))
    return np.where(k >= n, 1.0, upper)


def clopper_pearson_lower(k, n, alpha):
    """One-sided ``1 - alpha`` Clopper-Pearson lower bound on a rate seen ``k`` times in ``n``."""
    k = np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):
        lower = beta.ppf(alpha, np.maximum(k, 1e-300), n - k + 1.0)
    return np.where(k <= 0, 0.0, lower)


def epsilon_from_rates(fpr, fnr, delta):
    r"""Largest epsilon that the rates of one test refute at ``delta``, at least 0.

    An (epsilon, delta)-DP mechanism lets no test have
    :math:`\text{FPR} + e^\epsilon \text{FNR} < 1 - \delta` nor the same with the
    rates swapped (Kairouz et al. 2015), so with upper bounds on the rates
    :math:`\epsilon \ge \log((1 - \delta - \text{FNR}) / \text{FPR})` and symmetrically.
    """
    fpr, fnr = np.asarray(fpr, float), np.asarray(fnr, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        one = np.log(1.0 - delta - fnr) - np.log(fpr)
        other = np.log(1.0 - delta - fpr) - np.log(fnr)
    return np.maximum(np.nan_to_num(np.maximum(one, other), nan=0.0, neginf=0.0), 0.0)


def mu_from_rates(fpr, fnr):
    r"""Largest :math:`\mu` that the rates of one test refute as :math:`\mu`-GDP, at least 0.

    A :math:`\mu`-GDP mechanism lets no test have
    :math:`\text{FNR} < \Phi(\Phi^{-1}(1 - \text{FPR}) - \mu)` (Dong, Roth and
    Su 2022, the trade-off curve :math:`G_\mu`, symmetric in the two rates):
    :math:`\mu \ge \Phi^{-1}(1 - \text{FPR}) - \Phi^{-1}(\text{FNR})`.
    """
    return np.maximum(norm.isf(np.asarray(fpr, float)) - norm.ppf(np.asarray(fnr, float)), 0.0)


def _rates(scores, neighbour_scores, thresholds):
    """Counts of ``score > t`` under D (false positives) and ``score <= t`` under D'."""
    s0, s1 = np.sort(scores), np.sort(neighbour_scores)
    false_pos = s0.size - np.searchsorted(s0, thresholds, side="right")
    false_neg = np.searchsorted(s1, thresholds, side="right")
    return false_pos, false_neg


def _bounds_at(scores, neighbour_scores, thresholds, delta, alpha):
    """Lower bounds on epsilon and mu of each threshold, each rate bounded at ``alpha``."""
    false_pos, false_neg = _rates(scores, neighbour_scores, thresholds)
    fpr = clopper_pearson_upper(false_pos, scores.size, alpha)
    fnr = clopper_pearson_upper(false_neg, neighbour_scores.size, alpha)
    return epsilon_from_rates(fpr, fnr, delta), mu_from_rates(fpr, fnr)


def _fisher_direction(features, neighbour_features):
    """Fisher's discriminant of two samples of vectors: the direction that separates them.

    Computed on coordinates standardised by their pooled spread, so that the ridge is
    relative to each coordinate's own scale: a coordinate that never varies within a sample
    but differs between them (a pipeline step's fitted mean, beside a noisy release many
    orders of magnitude wider) separates them alone instead of drowning in the ridge.
    """
    centred = np.vstack(
        [features - features.mean(axis=0), neighbour_features - neighbour_features.mean(axis=0)]
    )
    pooled = centred.T @ centred / max(centred.shape[0] - 2, 1)
    gap = neighbour_features.mean(axis=0) - features.mean(axis=0)
    spread = np.sqrt(np.diag(pooled))
    # (at least 1e-150: the products of two spreads stay normal numbers)
    floor = max(1e-12 * max(float(spread.max()), float(np.abs(gap).max())), 1e-150)
    spread = np.maximum(spread, floor)
    standard = pooled / np.outer(spread, spread)
    ridge = _RIDGE * max(np.trace(standard) / standard.shape[0], 1e-300)
    weights = np.linalg.solve(standard + ridge * np.eye(standard.shape[0]), gap / spread)
    return weights / spread


def _as_scores(features, neighbour_features, direction):
    if direction is None:
        return features[:, 0], neighbour_features[:, 0]
    return features @ direction, neighbour_features @ direction


@dataclass(frozen=True)
class AuditBounds:
    """What :func:`select_and_bound` finds: the bounds, the audit's reach, the evaluation half.

    Attributes
    ----------
    epsilon_lower, mu_lower : float
        Lower bounds on epsilon (at ``delta``) and on the Gaussian-DP mu.
    epsilon_gdp : float
        The epsilon at ``delta`` that ``mu_lower`` implies for a Gaussian trade-off.
    epsilon_max, mu_max : float
        The largest bounds these trials could certify (:func:`audit_power`).
    threshold, mu_threshold : float
        The chosen tests' thresholds on the score.
    scores, neighbour_scores : ndarray
        The evaluation half's scores (oriented so that D' scores higher).
    """

    epsilon_lower: float
    mu_lower: float
    epsilon_gdp: float
    epsilon_max: float
    mu_max: float
    threshold: float
    mu_threshold: float
    scores: np.ndarray
    neighbour_scores: np.ndarray


def audit_power(n_evaluation, n_evaluation_prime, delta, confidence):
    """The largest epsilon and mu that evaluation halves of these sizes can certify.

    The best a test can show is no error at all on the evaluation half: each
    rate is then bounded by the Clopper-Pearson bound on 0 events, about
    ``3.7 / n`` at 95 % confidence, and the bounds cannot exceed
    :func:`epsilon_from_rates` and :func:`mu_from_rates` of these.

    Returns
    -------
    epsilon_max, mu_max : float
    """
    alpha = (1.0 - confidence) / 2.0
    fpr = clopper_pearson_upper(0, n_evaluation, alpha)
    fnr = clopper_pearson_upper(0, n_evaluation_prime, alpha)
    return float(epsilon_from_rates(fpr, fnr, delta)), float(mu_from_rates(fpr, fnr))


def _refutes(n_trials, probability, *, epsilon, mu, delta, confidence):
    """Whether an event of ``probability`` on D' only refutes the claim at the expected counts."""
    n_eval = n_trials - n_trials // 2
    alpha = (1.0 - confidence) / 2.0
    fpr = clopper_pearson_upper(0, n_eval, alpha)
    fnr = clopper_pearson_upper(np.round((1.0 - probability) * n_eval), n_eval, alpha)
    over_eps = epsilon_from_rates(fpr, fnr, delta) > epsilon
    over_mu = np.isfinite(mu) and mu_from_rates(fpr, fnr) > mu
    return bool(over_eps or over_mu)


def trials_to_refute(probability, *, epsilon, mu, delta, confidence, max_trials=10**12):
    """Trials on each of D and D' that refute a claim by an event of ``probability``.

    The event (a release that gives D' away: the rows published as they are,
    a repeated noise) happens in a fraction ``probability`` of the fits on D'
    and never on D. At the expected counts on the evaluation half (no false
    positive; ``(1 - probability) n`` false negatives) the bounds exceed the
    claim from this number of trials on: an audit of that size refutes it
    about half the time, if its test isolates the event.

    Returns
    -------
    int or float
        The number of trials, or ``inf`` beyond ``max_trials`` (or when the
        claim is not finite), nan without a claim.
    """
    if not (np.isfinite(epsilon) or np.isfinite(mu)):
        return float("nan") if np.isnan(epsilon) and np.isnan(mu) else float("inf")
    claim = {"epsilon": epsilon, "mu": mu, "delta": delta, "confidence": confidence}
    high = 4
    while not _refutes(high, probability, **claim):
        if high > max_trials:
            return float("inf")
        high *= 2
    low = high // 2
    while high - low > 1:  # the first count that refutes (monotone up to rounding)
        middle = (low + high) // 2
        low, high = (low, middle) if _refutes(middle, probability, **claim) else (middle, high)
    return int(high)


def _exact_scores(choose, choose_prime, evaluate, evaluate_prime):
    """Scores of values repeated bit for bit: how much more often the choosing half saw them on D'.

    A value scores ``log((n' + 1/2) / (n + 1/2))``, its counts on D' and on D
    in the choosing half; a trial of the choosing half is left out of its own
    counts, so that a value seen once (every value, under continuous noise)
    scores 0 there as on the evaluation half, and the test chosen is one that
    holds beyond the trials it was chosen on. A release that repeats (the rows
    published as they are, replayed noise) scores on the side where it repeated.
    """
    samples = (choose, choose_prime, evaluate, evaluate_prime)
    _, inverse = np.unique(np.vstack(samples), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    parts = np.split(inverse, np.cumsum([len(sample) for sample in samples])[:-1])
    counts = np.bincount(parts[0], minlength=inverse.max() + 1) + 0.5
    counts_prime = np.bincount(parts[1], minlength=inverse.max() + 1) + 0.5
    return (
        np.log(counts_prime[parts[0]] / (counts[parts[0]] - 1.0)),
        np.log((counts_prime[parts[1]] - 1.0) / counts[parts[1]]),
        np.log(counts_prime[parts[2]] / counts[parts[2]]),
        np.log(counts_prime[parts[3]] / counts[parts[3]]),
    )


def select_and_bound(features, neighbour_features, *, delta, confidence, random_state, exact=False):
    """Choose a test on half of the trials, bound its rates on the other half.

    Parameters
    ----------
    features, neighbour_features : ndarray of shape (n_trials, n_statistics)
        The statistic of each fit on D and on D'.
    delta : float
    confidence : float
    random_state : None, int or Generator
        Which trials fall in which half.
    exact : bool, default=False
        Compare the statistics bit for bit (:func:`_exact_scores`) instead of
        projecting them on Fisher's discriminant: the test of exact or repeated
        releases, events of probability 0 under continuous noise.

    Returns
    -------
    AuditBounds
    """
    rng = check_generator(random_state)
    halves = []
    for sample in (features, neighbour_features):
        order = rng.permutation(sample.shape[0])
        cut = sample.shape[0] // 2
        halves.append((sample[order[:cut]], sample[order[cut:]]))
    (choose0, eval0), (choose1, eval1) = halves
    if exact:
        c0, c1, e0, e1 = _exact_scores(choose0, choose1, eval0, eval1)
    else:
        direction = _fisher_direction(choose0, choose1) if features.shape[1] > 1 else None
        c0, c1 = _as_scores(choose0, choose1, direction)
        e0, e1 = _as_scores(eval0, eval1, direction)
    # Orientation: D' should score higher; a user statistic may score it lower.
    if np.mean(c1) < np.mean(c0):
        c0, c1, e0, e1 = -c0, -c1, -e0, -e1
    pooled = np.concatenate([c0, c1])
    thresholds = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, _N_THRESHOLDS)))
    # Each bound bounds two rates: at confidence 1 - a, each rate at 1 - a / 2 (Bonferroni).
    alpha = (1.0 - confidence) / 2.0
    eps_choose, mu_choose = _bounds_at(c0, c1, thresholds, delta, alpha)
    t_eps = thresholds[np.argmax(eps_choose + 1e-9 * mu_choose)]
    t_mu = thresholds[np.argmax(mu_choose)]
    eps_lower = float(_bounds_at(e0, e1, np.array([t_eps]), delta, alpha)[0][0])
    mu_lower = float(_bounds_at(e0, e1, np.array([t_mu]), delta, alpha)[1][0])
    epsilon_max, mu_max = audit_power(e0.size, e1.size, delta, confidence)
    return AuditBounds(
        epsilon_lower=eps_lower,
        mu_lower=mu_lower,
        epsilon_gdp=gaussian_dp_epsilon_from_mu(mu_lower, delta) if mu_lower > 0 else 0.0,
        epsilon_max=epsilon_max,
        mu_max=mu_max,
        threshold=float(t_eps),
        mu_threshold=float(t_mu),
        scores=e0,
        neighbour_scores=e1,
    )


def roc_points(scores, neighbour_scores, confidence):
    """Empirical false and true positive rates over thresholds, with pointwise intervals.

    Returns
    -------
    dict of ndarray
        ``fpr``, ``tpr`` and their Clopper-Pearson intervals ``fpr_low``,
        ``fpr_high``, ``tpr_low``, ``tpr_high`` (each two-sided at ``confidence``).
    """
    pooled = np.concatenate([scores, neighbour_scores])
    thresholds = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, _N_ROC_POINTS)))
    thresholds = np.concatenate([[-np.inf], thresholds])
    false_pos, false_neg = _rates(scores, neighbour_scores, thresholds)
    true_pos = neighbour_scores.size - false_neg
    alpha = (1.0 - confidence) / 2.0
    n0, n1 = scores.size, neighbour_scores.size
    return {
        "fpr": false_pos / n0,
        "tpr": true_pos / n1,
        "fpr_low": clopper_pearson_lower(false_pos, n0, alpha),
        "fpr_high": clopper_pearson_upper(false_pos, n0, alpha),
        "tpr_low": clopper_pearson_lower(true_pos, n1, alpha),
        "tpr_high": clopper_pearson_upper(true_pos, n1, alpha),
    }


def dp_tradeoff(fpr, epsilon, delta):
    r"""Largest true positive rate an (epsilon, delta)-DP mechanism allows at ``fpr``.

    :math:`\min(e^\epsilon \text{FPR} + \delta,\ 1 - e^{-\epsilon}(1 - \delta - \text{FPR}))`,
    clipped to [0, 1].
    """
    fpr = np.asarray(fpr, float)
    if not np.isfinite(epsilon):
        return np.ones_like(fpr)
    first = np.exp(epsilon) * fpr + delta
    second = 1.0 + np.exp(-epsilon) * (fpr - 1.0 + delta)
    return np.clip(np.minimum(first, second), 0.0, 1.0)


def gdp_tradeoff(fpr, mu):
    r"""Largest true positive rate a :math:`\mu`-GDP mechanism allows.

    :math:`\Phi(\Phi^{-1}(\text{FPR}) + \mu)`.
    """
    return norm.cdf(norm.ppf(np.asarray(fpr, float)) + mu)
