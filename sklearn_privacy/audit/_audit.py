"""The audit's entry points: :func:`audit_privacy` (an estimator), :func:`audit_from_statistics`."""

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone

from sklearn_privacy.audit._bounds import roc_points, select_and_bound
from sklearn_privacy.audit._neighbours import (
    Data,
    audit_plan,
    audited_step,
    default_neighbours,
    given_neighbours,
)
from sklearn_privacy.audit._result import AuditResult
from sklearn_privacy.audit._trials import MAX_FAILED, has_ledger, run_trials
from sklearn_privacy.audit._warnings import gather_warnings, run_recorded, say_gathered
from sklearn_privacy.exceptions import PrivacyLeakWarning
from sklearn_privacy.metrics import leakage_score
from sklearn_privacy.utils import check_generator, progress, warn_user
from sklearn_privacy.utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    validate_params,
)

__all__ = ["audit_from_statistics", "audit_privacy"]

_DEFAULT_TRIALS = {"dp": 1000, "leakage": 100}
# Below 0.5 a "lower bound" lies above the truth more often than below it; above 1 - 1e-6 the
# bounds need millions of trials to say anything.
_CONFIDENCE = Interval(Real, 0.5, 1 - 1e-6, closed="both")

_DP_NOTE = (
    "Lower bounds at the stated confidence: a bound above the claim refutes it; a bound "
    "below it does not prove the claim (other neighbours, statistics or more trials may "
    "find more). epsilon_gdp assumes a Gaussian trade-off. epsilon_max and mu_max are the most "
    "these trials could certify: a claim above them cannot be refuted by this audit."
)
_CUSTOM_NOTE = (
    " D' was declared custom: it need not differ from D in one person, so the bounds are about "
    "this pair of data sets and do not test the claim."
)
_OUTSIDE_NOTE = (
    " Steps of the pipeline fitted on the private rows publish outside the ledger "
    "(outside_ledger): the default statistic reads their fitted attributes, which the claim "
    "does not cover."
)
_LEAKAGE_NOTE = (
    "No differential-privacy ledger: the leakage panel's estimate (nats) of S from the "
    "release of the given rows, with an interval over half-samples of the scored rows; an "
    "estimate, not a guarantee."
)


@validate_params(
    {
        "statistics": ["array-like"],
        "neighbour_statistics": ["array-like"],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "claimed_epsilon": [None, Interval(Real, 0, None, closed="left")],
        "claimed_mu": [None, Interval(Real, 0, None, closed="left")],
        "confidence": [_CONFIDENCE],
        "name": [None, str],
        "exact": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def audit_from_statistics(
    statistics,
    neighbour_statistics,
    *,
    delta,
    claimed_epsilon=None,
    claimed_mu=None,
    confidence=0.95,
    name=None,
    exact=False,
    random_state=None,
):
    r"""Lower bounds on epsilon and :math:`\mu` from a statistic of fits on D and on D'.

    The trials of each data set are split at random in two halves. On the
    first, a test "D' when the statistic exceeds t" is chosen (a vector
    statistic is first projected on Fisher's discriminant of that half):
    the threshold and direction with the largest bound. On the second, its
    false positive and false negative rates are bounded above
    (Clopper-Pearson, each at :math:`1 - (1 - \text{confidence}) / 2`), which
    gives the lower bounds. The choice never sees the evaluation half, so
    each bound holds with probability ``confidence`` whatever the mechanism.

    Read more in the :ref:`User Guide <audit>`.

    Parameters
    ----------
    statistics : array-like of shape (n_trials,) or (n_trials, n_values)
        The statistic of each fit on D.
    neighbour_statistics : array-like of shape (n_trials_prime,) or (n_trials_prime, n_values)
        The same of each fit on D'.
    delta : float
        The delta of the claim, in (0, 1).
    claimed_epsilon : float or None, default=None
        The claimed epsilon at ``delta`` (nan in the result when None).
    claimed_mu : float or None, default=None
        The claimed Gaussian-DP :math:`\mu`, if any.
    confidence : float, default=0.95
        Level of the bounds, in [0.5, 1 - 1e-6]: below 0.5 a lower bound would
        lie above the truth more often than below it (a refutation at
        confidence 1e-9 refutes sound mechanisms), and near 1 it needs more
        trials than an audit runs to certify anything.
    name : str or None, default=None
        Name of the mechanism, for the result and its picture.
    exact : bool, default=False
        Compare the statistics bit for bit instead of projecting them: a value
        the choosing half saw scores by how much more often it came from D'
        (the test of exact or repeated releases, events of probability 0
        under continuous noise); ``audit_privacy(statistic="exact")``.
    random_state : int, RandomState instance, Generator or None, default=None
        Which trials fall in which half.

    Returns
    -------
    AuditResult

    See Also
    --------
    audit_privacy : Runs the fits and calls this.

    Examples
    --------
    A Gaussian mechanism of sensitivity 1 and noise 1 is 1-GDP:

    >>> import numpy as np
    >>> from sklearn_privacy.audit import audit_from_statistics
    >>> rng = np.random.default_rng(0)
    >>> result = audit_from_statistics(
    ...     rng.normal(0.0, 1.0, 20000), rng.normal(1.0, 1.0, 20000),
    ...     delta=1e-5, claimed_mu=1.0, random_state=0)
    >>> round(result.mu_lower, 2), result.violated
    (0.94, False)
    """
    features = _as_features(statistics, "statistics")
    neighbour_features = _as_features(neighbour_statistics, "neighbour_statistics")
    if features.shape[1] != neighbour_features.shape[1]:
        raise ValueError(
            f"statistics has {features.shape[1]} values per trial and neighbour_statistics "
            f"{neighbour_features.shape[1]}: give the same statistic of both."
        )
    bounds = select_and_bound(
        features,
        neighbour_features,
        delta=delta,
        confidence=confidence,
        random_state=random_state,
        exact=exact,
    )
    return _dp_result(
        bounds,
        name=name or "mechanism",
        n_trials=int(min(features.shape[0], neighbour_features.shape[0])),
        confidence=confidence,
        epsilon=claimed_epsilon,
        delta=delta,
        mu=claimed_mu,
    )


def _dp_result(bounds, *, name, n_trials, confidence, epsilon, delta, mu, **details):
    """The :class:`AuditResult` of a DP audit: the one place it is assembled."""
    note = _DP_NOTE
    if not details.get("about_claim", True):
        note += _CUSTOM_NOTE
    if details.get("outside_ledger"):
        note += _OUTSIDE_NOTE
    return AuditResult(
        kind="dp",
        estimator_name=name,
        n_trials=int(n_trials),
        confidence=float(confidence),
        epsilon_claimed=float("nan") if epsilon is None else float(epsilon),
        delta=float(delta),
        mu_claimed=float("nan") if mu is None else float(mu),
        epsilon_lower=bounds.epsilon_lower,
        mu_lower=bounds.mu_lower,
        epsilon_gdp=bounds.epsilon_gdp,
        epsilon_max=bounds.epsilon_max,
        mu_max=bounds.mu_max,
        roc=roc_points(bounds.scores, bounds.neighbour_scores, confidence),
        note=note,
        **details,
    )


def _as_features(values, name):
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or values.shape[0] < 4:
        raise ValueError(f"{name} must hold at least 4 trials (a 1-D or 2-D array).")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} holds NaN or infinite values.")
    return values


@validate_params(
    {
        "estimator": [HasMethods(["fit", "transform"])],
        "X": ["array-like"],
        "y": ["array-like", None],
        "sensitive": ["array-like", None],
        "sample_weight": ["array-like", None],
        "neighbour": [StrOptions({"auto", "replace-one", "replace-unit"}), dict],
        "unit_weight": [None, Interval(Real, 0, None, closed="neither")],
        "statistic": [None, callable, StrOptions({"exact"})],
        "n_trials": [None, Interval(Integral, 4, None, closed="left")],
        "confidence": [_CONFIDENCE],
        "n_jobs": [None, Integral],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    },
    prefer_skip_nested_validation=True,
)
def audit_privacy(
    estimator,
    X,
    y=None,
    *,
    sensitive=None,
    sample_weight=None,
    neighbour="auto",
    unit_weight=None,
    statistic=None,
    n_trials=None,
    confidence=0.95,
    n_jobs=None,
    random_state=None,
    verbose=0,
):
    r"""Audit an estimator's privacy claim by fitting it many times on neighbouring data.

    For an estimator that keeps a differential-privacy ledger (it answers
    ``audit_claim()``, the :class:`~sklearn_privacy.base.AuditProtocol`; the
    last step of a pipeline), each trial clones it, fits it on D or on a
    neighbour D', and publishes what a user would: the fitted model and a
    release of the rows where D and D' differ. A statistic of what was
    published gives lower bounds on epsilon (at the ledger's delta) and on
    the Gaussian-DP :math:`\mu`, beside the ledger's claim and the most
    that this many trials could certify (the audit's power). The estimator
    is asked only through the protocol, so a DP estimator written outside
    this package is audited as the library's are; the fitted steps of a
    pipeline before it that keep no ledger are named, warned about, and
    read by the default statistic (what they publish is outside the claim).
    A fit that fails is left out and counted (the audit stops when more than
    1 % of its fits fail).

    For any other mechanism (funnels, convex mappings, PPAN) the audit
    reports the leakage panel's estimate (:func:`~sklearn_privacy.metrics.leakage_score`)
    of S from the release of ``X``, with an interval over half-samples of the
    scored rows, and says so.

    Read more in the :ref:`User Guide <audit>`.

    Parameters
    ----------
    estimator : estimator object
        An unfitted mechanism, or a pipeline ending in one; it is cloned for
        every fit and left untouched. Its noise is drawn as it is set to:
        with ``random_state=None`` fresh OS entropy at every fit, so that the
        audit replays no noise; a seeded estimator is audited as seeded.
    X : array-like of shape (n_samples, n_features)
        D, the data (a DataFrame keeps its column names).
    y : array-like of shape (n_samples,), default=None
        Target passed to ``fit``.
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive), default=None
        S passed to ``fit`` as metadata (and scored by a leakage audit).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights passed to ``fit``.
    neighbour : {"auto", "replace-one", "replace-unit"} or dict, default="auto"
        How D' differs from D (the relation the ledger claims to protect):

        - "replace-one": one row is replaced (with its weight). The default
          canary: the heaviest row is set far out (10 times the largest
          centred row norm) along the direction the release keeps most, on
          one side in D and on the other in D': clipped, it lies at the
          clipping radius, where one row moves the release most.
        - "replace-unit": one unit of weight of a count table moves: the
          unit (``unit_weight``) is taken off the heaviest row to a new row,
          placed as above.
        - "auto": "replace-one" without ``sample_weight``, else "replace-unit".
        - a dict: D' itself, ``{"X": X_prime}`` with optional ``"y"``,
          ``"sensitive"`` and ``"sample_weight"`` (the others copied from
          D), with as many rows as D; the audited rows are those that differ.
          D' is checked to differ from D in one person under its
          ``"relation"`` key: ``"replace-one"`` (one row differs),
          ``"replace-unit"`` (at most one person's weight moves between rows,
          the total weight kept) or ``"auto"`` (the default, as above); any
          other D' is refused, unless ``"relation": "custom"``, whose result
          says that its bounds are about that pair and not about the claim
          (``about_claim`` False, never ``violated``).
    unit_weight : float or None, default=None
        The weight of one person for ``"replace-unit"``; None reads the
        estimator's ``audit_plan`` (1 without one).
    statistic : callable, "exact" or None, default=None
        ``statistic(fitted_estimator, release) -> float or 1-D array``, the
        distinguisher, given the fitted estimator (all its published
        attributes) and its release of the audited rows. A vector is
        projected on Fisher's discriminant learned on the choosing half of
        the trials. None: the estimator's ``audit_statistic`` of the release
        of the audited rows (the release itself without one; the bottleneck's
        read back into the input space, :math:`A^T T`, free of the signs of
        its components), followed by the fitted attributes of the pipeline's
        steps outside the ledger. "exact": the same values compared bit for
        bit, for exact or repeated releases (the rows published as they are,
        replayed noise), events of probability 0 under continuous noise that
        a threshold on a projection may miss.
    n_trials : int or None, default=None
        Fits on each of D and D' (DP audit; ``2 n_trials`` fits in all), or
        half-samples (leakage audit). None: 1000 and 100.
    confidence : float, default=0.95
        Level of the bounds and intervals, in [0.5, 1 - 1e-6]: below 0.5 a
        lower bound would lie above the truth more often than below it (an
        audit at confidence 1e-9 refutes sound mechanisms), and near 1 it
        needs more trials than an audit runs to certify anything.
    n_jobs : int or None, default=None
        Parallel workers (joblib) for the fits or half-samples; ``-1`` all cores.
        Under ``joblib.parallel_config(backend="dask")`` the fits run on a dask
        cluster.
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the audit's own choices (which trials choose the test and which
        bound it; the half-samples), never the estimator's noise: with a seed
        the audit is reproducible up to that noise, whose effect the
        confidence level covers.
    verbose : int, default=0
        ``1`` shows a progress bar (tqdm) of the trials.

    Returns
    -------
    AuditResult
        Its ``violated`` says whether a lower bound exceeds the claim, its
        ``epsilon_max`` and ``mu_max`` what these trials could have refuted at
        all, and its ``trials_needed(p)`` how many trials a release that gives
        D' away in a fraction ``p`` of fits would need.

    See Also
    --------
    audit_from_statistics : The bounds from statistics of fits made elsewhere.
    AuditDisplay : Draws the result beside the trade-off the claim allows.

    Notes
    -----
    A passing audit is a lower bound, not a proof: it refutes a claim when
    some test beats it, and says nothing about tests it did not try. The
    bound at a small delta needs rare events: with :math:`n` evaluation
    trials no false positive rate under about :math:`3.7 / n` can be
    certified, so epsilon bounds saturate near :math:`\log(n / 3.7)`
    (``epsilon_max``); :math:`\mu` is certified from the middle of the
    trade-off and is the sharper check of a Gaussian-DP ledger. A failed fit
    is an observable event too: when failures depend on the data set, the
    bounds over the completed fits do not see it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.audit import audit_privacy
    >>> from sklearn_privacy.gaussian import L2CompressionDP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)) * [3.0, 1.0]
    >>> mech = L2CompressionDP(epsilon=2.0, clip_radius=4.0, fit_data="public")
    >>> result = audit_privacy(mech, X, n_trials=200, random_state=0)
    >>> result.epsilon_claimed, result.violated
    (2.0, False)
    """
    data = Data(X, y, sensitive, sample_weight)
    name = type(audited_step(estimator)).__name__
    if not has_ledger(estimator):
        if statistic is not None or isinstance(neighbour, dict):
            raise ValueError(
                f"{name} keeps no differential-privacy ledger (no audit_claim method), so the "
                "audit measures the leakage of S from its release: statistic and a given D' "
                "(neighbour) apply to DP audits only. Leave them out."
            )
        # the one fit of a leakage audit: its warnings are reported
        fitted, fit_causes = run_recorded(data.fit, clone(estimator))
        return _leakage_audit(
            fitted, data, name, n_trials, confidence, n_jobs, random_state, verbose, fit_causes
        )
    plan = audit_plan(estimator, data)
    if isinstance(neighbour, dict):
        unit = unit_weight or plan.person_weight
        data, other, rows, description, about_claim = given_neighbours(data, neighbour, unit)
    else:
        relation = neighbour
        if relation == "auto":
            relation = "replace-one" if sample_weight is None else "replace-unit"
        data, other, rows, description = default_neighbours(plan, data, relation, unit_weight)
        about_claim = True
    n_trials = n_trials or _DEFAULT_TRIALS["dp"]
    user_statistic = None if statistic in (None, "exact") else statistic
    trials = run_trials(
        estimator, data, other, rows, user_statistic, n_trials, n_jobs, verbose, plan
    )
    _say_what_the_trials_found(trials, name, n_trials)
    epsilon = max(claim.epsilon for claim in trials.claims)
    delta = max(claim.delta for claim in trials.claims)
    mu = np.array([claim.mu for claim in trials.claims], dtype=float)
    bounds = select_and_bound(
        trials.features,
        trials.neighbour_features,
        delta=delta,
        confidence=confidence,
        random_state=random_state,
        exact=statistic == "exact",
    )
    return _dp_result(
        bounds,
        name=name,
        n_trials=n_trials,
        confidence=confidence,
        epsilon=epsilon,
        delta=delta,
        mu=float(mu.max()) if np.isfinite(mu).all() else None,
        neighbour=description,
        about_claim=about_claim,
        outside_ledger=trials.outside_ledger,
        n_failed=trials.n_failed,
        failures=trials.failures,
        warnings=trials.warnings,
    )


def _say_what_the_trials_found(trials, name, n_trials):
    """The fits' warnings once per cause; the failed fits; the steps outside the ledger."""
    say_gathered(trials.warnings, name)
    if sum(trials.n_failed):
        causes = "".join(f"\n- {entry}" for entry in trials.failures)
        warn_user(
            f"audit_privacy: {sum(trials.n_failed)} of the {2 * n_trials} fits of {name} failed "
            f"({trials.n_failed[0]} on D, {trials.n_failed[1]} on D') and were left out of the "
            f"bounds (an audit stops when more than {MAX_FAILED:.0%} fail); a failure that "
            f"depends on the data set is itself a release the bounds do not see:{causes}",
            UserWarning,
            cause=f"audit_privacy of {name}: failed fits",
        )
    if trials.outside_ledger:
        warn_user(
            f"audit_privacy: the pipeline's steps {', '.join(trials.outside_ledger)} were fitted "
            f"on the private rows and keep no ledger: what they publish (their fitted "
            f"attributes) is outside {name}'s claim. The default statistic reads it; fit them on "
            "public data, or make them private too.",
            PrivacyLeakWarning,
            cause=f"audit_privacy of {name}: steps outside the ledger",
        )


def _leakage_audit(
    fitted, data, name, n_trials, confidence, n_jobs, random_state, verbose, fit_causes
):
    """The panel's leakage of S from the release of X, with a half-sample interval.

    Half-samples are drawn without replacement: a row repeated by a bootstrap
    resample reads as a tie or as a memorised row to the panel's estimators
    (kNN atoms, the held-out table), which would inflate the estimate. The
    estimate of a half-sample has about the variance of the full sample's for
    a mean-like estimate (finite-population correction), so the interval is
    the full estimate plus the spread of the half-sample estimates about
    their median.
    """
    S, step = data.sensitive, audited_step(fitted)
    if S is None and step is fitted and hasattr(step, "split_sensitive"):
        S = step.split_sensitive(data.X)[1]  # S named as columns of X
    if S is None:
        raise ValueError(
            f"{name} keeps no differential-privacy ledger, so the audit measures the leakage of "
            "S from its release, and needs S: pass sensitive=..., or name S's columns with "
            "the mechanism's sensitive parameter."
        )
    release, release_causes = run_recorded(fitted.transform, data.X)
    release, S = np.asarray(release), np.asarray(S)
    estimate = leakage_score(S, release, return_details=True)
    n_trials = n_trials or _DEFAULT_TRIALS["leakage"]
    rng = check_generator(random_state)
    n = release.shape[0]
    halves = [rng.choice(n, size=n // 2, replace=False) for _ in range(n_trials)]
    with progress(halves, verbose=verbose, desc="audit half-samples") as batches:
        results = Parallel(n_jobs=n_jobs)(
            delayed(run_recorded)(leakage_score, S[rows], release[rows]) for rows in batches
        )
    values = np.asarray([value for value, _ in results], dtype=float)
    gathered = gather_warnings([{**fit_causes, **release_causes}], 1, "fit")
    gathered += gather_warnings([causes for _, causes in results], n_trials, "half-samples")
    say_gathered(gathered, name)
    spread = np.quantile(values - np.median(values), [(1 - confidence) / 2, (1 + confidence) / 2])
    low, high = np.clip(estimate.value + spread, 0.0, estimate.entropy)
    return AuditResult(
        kind="leakage",
        estimator_name=name,
        n_trials=n_trials,
        confidence=float(confidence),
        leakage=float(estimate.value),
        leakage_interval=(float(low), float(high)),
        leakage_details=estimate,
        neighbour="none: the leakage of S from the release of X",
        note=_LEAKAGE_NOTE,
        warnings=gathered,
    )
