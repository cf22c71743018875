"""Estimates of the leakage ``I(S; release)`` from samples, and the empirical attack."""

import warnings
from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import digamma, logsumexp
from scipy.stats import rankdata
from sklearn.base import clone, is_classifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KDTree
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_privacy.exceptions import user_stacklevel
from sklearn_privacy.information import (
    encode_symbols,
    entropy,
    entropy_from_samples,
    gaussian_mutual_information,
    mutual_information_from_samples,
)
from sklearn_privacy.utils import as_2d, is_continuous
from sklearn_privacy.utils._sklearn_compat import HasMethods, Interval, StrOptions, validate_params

__all__ = ["adversary_accuracy_score", "is_discrete_release", "leakage_score"]

_ESTIMATORS = {"auto", "plugin", "miller_madow", "gaussian", "knn"}

# A float release is discrete when it has at most this many distinct rows per sample,
# i.e. when each release value is seen 10 times on average.
_MAX_DISTINCT_FRACTION = 0.1


def _as_2d(values, name):
    values = as_2d(values, name)
    if values.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 samples, got {values.shape[0]}.")
    if values.dtype.kind in "fc" and not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains missing (NaN) or infinite values.")
    if values.dtype.kind == "O" and np.any(pd.isna(values)):
        raise ValueError(f"{name} contains missing values (None, NaN or pd.NA).")
    return values


@validate_params({"release": ["array-like"]}, prefer_skip_nested_validation=True)
def is_discrete_release(release):
    """Whether a release is read as symbols rather than as a continuous variable.

    A release is discrete when any of these holds:

    - its dtype is not float (integers, booleans, strings, objects);
    - all its values are finite integers (codes, one-hot encodings);
    - it takes few distinct rows: at most ``n_samples / 10``, so that each
      release value is seen 10 times on average (a float release with heavily
      repeated values, such as :math:`x + 0.3 S` with :math:`x` from a few levels).

    A release with continuous noise has (almost) as many distinct rows as
    samples and is not discrete. :func:`leakage_score` uses this rule to pick
    its ``"auto"`` estimator, and :func:`default_adversary` to pick its input
    encoding.

    Parameters
    ----------
    release : array-like of shape (n_samples,) or (n_samples, n_features)
        The release.

    Returns
    -------
    bool
        Whether the release is discrete.

    See Also
    --------
    leakage_score : Picks its estimator with this test.
    adversary_accuracy_score : Picks its default adversary with this test.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.metrics import is_discrete_release
    >>> is_discrete_release(np.eye(3))
    True
    >>> rng = np.random.default_rng(0)
    >>> is_discrete_release(rng.normal(size=(100, 2)))
    False
    >>> is_discrete_release(rng.integers(0, 3, 100) + 0.5)
    True
    """
    release = as_2d(release, "release")
    if release.dtype.kind not in "fc":
        return True
    if release.size == 0 or not np.all(np.isfinite(release)):
        return False
    if np.all(release == np.round(release)):
        return True
    # "+ 0.0" turns -0.0 into 0.0, which np.unique(axis=0) would tell apart.
    n_distinct = np.unique(release + 0.0, axis=0).shape[0]
    return bool(n_distinct <= _MAX_DISTINCT_FRACTION * release.shape[0])


def _copula(release):
    """Each column as its ranks over ``n`` (mean ranks for ties), with a fixed tiny jitter.

    Ranks sit on a lattice where a row's left and right neighbours are at
    exactly the same distance; such ties of distances bias the kNN counts
    (0.1 nats on an independent release). A jitter of 1e-6 of a rank,
    drawn from a fixed seed (the estimate stays deterministic), breaks them
    without changing the order of distinct values.
    """
    n = release.shape[0]
    jitter = np.random.default_rng(0).standard_normal(release.shape)
    return (rankdata(release, axis=0) + 1e-6 * jitter) / n


def _ross_mutual_information(codes, release, n_neighbors):
    """Ross (2014) kNN estimate of ``I(S; T)``, S discrete, T continuous (max-norm).

    For a sample ``i`` of class ``s`` with ``N_s`` samples, ``d_i`` is the
    distance to its ``k``-th nearest neighbour of the same class and ``m_i``
    counts the samples of any class closer than ``d_i`` (``i`` included); the
    estimate is ``psi(n) + <psi(k)> - <psi(N_s)> - <psi(m_i)>``, clipped at 0.
    Classes with a single sample are left out. In one dimension this is
    scikit-learn's ``_compute_mi_cd``, the estimator behind
    :func:`~sklearn.feature_selection.mutual_info_classif` (which adds a
    1e-10 jitter first); here ``T`` may have several columns. Each column is
    replaced by its ranks divided by ``n`` (its empirical copula; tied values
    share their mean rank): ``I(S; T)`` is unchanged by a monotone map of a
    column, so the estimate is invariant to any rescaling of a column and one
    outlier moves its column by at most ``1 / n`` (dividing by the standard
    deviation, as before, let one value of 1e7 shrink a give-away column to
    nothing). It assumes distinct rows: a row repeated ``k`` times or more
    has ``d_i = 0`` (see :func:`_knn_mutual_information`).
    """
    release = _copula(release)
    n = release.shape[0]
    radius = np.empty(n)
    k_all = np.empty(n)
    label_counts = np.bincount(codes)[codes]
    for label in np.unique(codes):  # a loop over the values of S, not over the samples
        mask = codes == label
        count = int(mask.sum())
        if count > 1:
            k = min(n_neighbors, count - 1)
            tree = KDTree(release[mask], metric="chebyshev")
            dist, _ = tree.query(release[mask], k=k + 1)
            radius[mask] = np.nextafter(dist[:, -1], 0)
            k_all[mask] = k
    keep = label_counts > 1
    if keep.sum() < 2:
        raise ValueError("the kNN estimate needs at least one value of S seen twice.")
    release, radius = release[keep], radius[keep]
    tree = KDTree(release, metric="chebyshev")
    m_all = tree.query_radius(release, radius, count_only=True)
    value = (
        digamma(keep.sum())
        + np.mean(digamma(k_all[keep]))
        - np.mean(digamma(label_counts[keep]))
        - np.mean(digamma(m_all))
    )
    return float(max(value, 0.0))


def _knn_mutual_information(codes, release, n_neighbors):
    """kNN estimate of ``I(S; T)`` for a release with atoms (repeated rows) and a continuum.

    The kNN estimate of Ross (2014) assumes a continuous release, where no two
    rows coincide. On repeated rows (ties) it breaks down: the ``k``-th
    neighbour of a repeated row is at distance 0, and ``T = x + 0.3 S`` with
    ``x`` on a few levels, which determines ``S``, is estimated at 0. Here the
    rows seen more than once are *atoms* and the rows seen once the
    *continuum*: with ``A`` the atom of a row (one extra symbol, ``o``, for
    all rows of the continuum), a function of ``T``, the chain rule gives
    exactly

        ``I(S; T) = I(S; A) + P(A = o) I(S; T | A = o)``

    as ``T`` is constant given any atom. ``I(S; A)`` is the plug-in estimate
    (exact counting of the atoms, biased upwards as a plug-in estimate is, so
    that it cannot hide leakage), ``I(S; T | A = o)`` the estimate of Ross
    (2014) on the rows of the continuum. Without ties this is the estimate of
    Ross (2014) itself; on a release whose rows all repeat it is the plug-in
    estimate. When the continuum has no value of S seen twice, its rows are
    counted as atoms too (the plug-in estimate of the whole release).

    References
    ----------
    B. C. Ross, "Mutual information between discrete and continuous data
    sets", PLoS ONE 9(2), 2014.
    """
    release = np.asarray(release, dtype=float).reshape(codes.shape[0], -1)
    # "+ 0.0" turns -0.0 into 0.0, which np.unique(axis=0) would tell apart.
    _, rows, row_counts = np.unique(release + 0.0, axis=0, return_inverse=True, return_counts=True)
    rows = rows.reshape(-1)
    single = row_counts[rows] == 1
    if single.all():
        return _ross_mutual_information(codes, release, n_neighbors)
    continuum_codes = codes[single]
    if continuum_codes.size == 0 or np.bincount(continuum_codes).max() < 2:
        return mutual_information_from_samples(codes, rows)
    atoms = np.where(single, -1, rows)
    value = mutual_information_from_samples(codes, atoms)
    value += np.mean(single) * _ross_mutual_information(
        continuum_codes, release[single], n_neighbors
    )
    return float(value)


def _gaussian_estimate(sensitive, release):
    """Gaussian-model ``I(S; T)``: a joint Gaussian for a continuous S, LDA for a discrete one.

    Continuous S: the mutual information of the Gaussian with the samples'
    covariance of (S, T). Discrete S: the release given each value of S is
    Gaussian with that value's mean and a shared covariance (linear
    discriminant analysis), and ``I(S; T) = H(S) - E[-log P(S | T)]`` with the
    model's posterior, averaged over the samples: bounded by ``H(S)`` (the
    joint Gaussian with S one-hot exceeded it, 13.5 nats for ``T = S``). A
    parametric estimate: it sees the class means only, so that it can
    under-estimate, down to zero, the leakage of a release whose classes
    differ otherwise (in spread, or in a nonlinear code).
    """
    t_block = np.asarray(release, dtype=float)
    if is_continuous(sensitive):
        s_block = np.asarray(sensitive, dtype=float)
        cov = np.atleast_2d(np.cov(np.hstack([s_block, t_block]), rowvar=False))
        # A tiny ridge keeps a constant column (a zero component) from making cov singular.
        cov = cov + 1e-12 * np.trace(cov) / cov.shape[0] * np.eye(cov.shape[0])
        d_s = s_block.shape[1]
        return gaussian_mutual_information(
            cov, np.arange(d_s), np.arange(d_s, d_s + t_block.shape[1])
        )
    codes, _ = encode_symbols(sensitive, name="sensitive")
    counts = np.bincount(codes)
    prior = counts / counts.sum()
    means = np.vstack([t_block[codes == c].mean(axis=0) for c in range(counts.size)])
    centred = t_block - means[codes]
    within = centred.T @ centred / max(t_block.shape[0] - counts.size, 1)
    # a ridge relative to the release's own scale: classes that do not vary within
    # (T = S) are told apart with certainty, a constant release not at all
    total = np.trace(np.atleast_2d(np.cov(t_block, rowvar=False))) / t_block.shape[1]
    within = within + (1e-9 * total if total > 0 else 1.0) * np.eye(len(within))
    # log N(t; m_c, W) up to a shared constant, plus the log prior: the log posterior
    solved = np.linalg.solve(within, means.T)  # W^-1 m_c, one column per class
    scores = t_block @ solved - 0.5 * np.sum(means.T * solved, axis=0) + np.log(prior)
    log_posterior = scores - logsumexp(scores, axis=1, keepdims=True)
    h_s = entropy(prior)
    value = h_s + np.mean(log_posterior[np.arange(codes.size), codes])
    return float(min(max(value, 0.0), h_s))


@validate_params(
    {
        "sensitive": ["array-like"],
        "release": ["array-like"],
        "estimator": [StrOptions(_ESTIMATORS)],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def leakage_score(sensitive, release, *, estimator="auto", n_neighbors=3):
    r"""Estimate the leakage :math:`I(S; \text{release})` from paired samples, in nats.

    Parameters
    ----------
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive)
        The sensitive attribute; rows of a 2-D array form one joint symbol.
    release : array-like of shape (n_samples, n_features)
        What the mechanism released for the same rows.
    estimator : {"auto", "plugin", "miller_madow", "gaussian", "knn"}, default="auto"
        - ``"plugin"``: mutual information of the empirical joint pmf, the rows
          of the release taken as symbols (as
          :func:`sklearn.metrics.mutual_info_score`);
        - ``"miller_madow"``: the same with Miller-Madow bias correction,
          clipped at zero;
        - ``"gaussian"``: a Gaussian model. For a discrete S, the release
          given each value of S is Gaussian with that value's mean and a
          shared covariance (linear discriminant analysis) and the estimate
          is :math:`H(S) - \E[-\log P(S \mid T)]` under that model, averaged over the
          samples (so at most :math:`H(S)`); for a continuous S, the mutual
          information of a Gaussian with the sample covariance of
          (S, release). A parametric estimate, exact for Gaussian classes; it
          sees only the class means, so it **can under-estimate the leakage
          of a non-Gaussian release**, down to nearly zero for a release
          that determines S in a nonlinear code. It warns on a release that
          looks discrete (see :func:`is_discrete_release`), where
          ``"plugin"`` is the estimate to use;
        - ``"knn"``: the k-nearest-neighbour estimate of Ross (2014) for
          discrete S and a continuous release of any dimension, on each
          column's ranks (its empirical copula): invariant to any monotone
          map of a column and moved by one outlier by at most one rank.
          Rows seen more than once (ties) are counted exactly, as atoms, by the chain rule
          :math:`I(S; T) = I(S; A) + P(A = o)\, I(S; T \mid A = o)` (:math:`A` the atom of a
          row, :math:`o` for rows seen once): the plug-in estimate on the atoms
          and the kNN estimate on the rows seen once. On a release with no
          ties it is Ross's estimate, on one whose rows all repeat the
          plug-in estimate;
        - ``"auto"``: ``"plugin"`` for a discrete release (see
          :func:`is_discrete_release`: non-float values, integer values, or at
          most ``n_samples / 10`` distinct rows), ``"knn"`` otherwise.
    n_neighbors : int, default=3
        Neighbours of the kNN estimate.

    Returns
    -------
    float
        Estimated :math:`I(S; \text{release})` in nats, non-negative and, for a
        discrete S, at most the plug-in entropy :math:`H(S)` of the sample.

    Raises
    ------
    ValueError
        If S or the release contains missing values (None, NaN, pd.NA) or
        infinite values, or if they differ in length.

    Warns
    -----
    UserWarning
        With ``estimator="gaussian"`` on a discrete-looking release.

    See Also
    --------
    make_leakage_scorer : The same estimate as a cross-validation scorer.
    adversary_accuracy_score : Accuracy of an adversary predicting S.
    sklearn_privacy.information.mutual_information_from_samples : The plug-in estimate for symbols.

    Notes
    -----
    Limits (n = 2000, a fair binary S, :math:`H(S) = 0.693` nats, x uniform on
    [0, 1)). A sample estimate sees the dependence that neighbouring samples
    show; a code that no smooth neighbourhood reveals is invisible to it, as
    it is to the default adversary of :func:`adversary_accuracy_score`
    (accuracy 0.52 on each of these):

    - S in the tenth decimal, :math:`\operatorname{round}(x, 3) + 10^{-10} S`: 0.44 (the rows that
      repeat are counted exactly, the others are not);
    - a high-frequency code,
      :math:`x + 10^{-3} \operatorname{sign}(\sin(2 \cdot 10^4 x))\, (2 S - 1)`: 0.00;
    - S in the lowest mantissa bit of x: 0.00.

    Such releases leak S to whoever knows the code. Use a mechanism whose
    leakage is known by construction (its ``leakage_``), or an adversary
    built for the code, as the complement of these estimates. The plug-in
    estimate is biased upwards on finite samples (about
    :math:`(|S| - 1)(|T| - 1) / (2 n)` nats); Miller-Madow removes most of that bias.

    Examples
    --------
    >>> from sklearn_privacy.metrics import leakage_score
    >>> round(leakage_score([0, 0, 1, 1], [[0], [0], [1], [1]]), 6)
    0.693147
    """
    sensitive = _as_2d(sensitive, "sensitive")
    release = _as_2d(release, "release")
    if sensitive.shape[0] != release.shape[0]:
        raise ValueError(
            f"sensitive has {sensitive.shape[0]} rows but the release has {release.shape[0]}."
        )
    if estimator == "auto":
        estimator = "plugin" if is_discrete_release(release) else "knn"
    if estimator in ("knn", "gaussian") and release.dtype.kind not in "biufc":
        raise ValueError(
            f"estimator={estimator!r} reads the release as numbers, but it holds "
            f"{release.dtype.kind == 'U' and 'strings' or 'objects'}: use estimator='plugin' "
            "(or 'auto'), which counts the release's symbols."
        )
    if estimator in ("plugin", "miller_madow"):
        value = mutual_information_from_samples(sensitive, release, method=estimator)
        return min(value, _entropy_bound(sensitive))
    if estimator == "gaussian":
        if is_discrete_release(release):
            warnings.warn(
                "The release looks discrete (non-float, integer values or at most "
                "n_samples / 10 distinct rows); the Gaussian estimate sees only the linear "
                "dependence on S and can under-estimate its leakage. Use "
                "estimator='plugin' for a discrete release.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        return _gaussian_estimate(sensitive, release)
    codes, _ = encode_symbols(sensitive, name="sensitive")
    return min(_knn_mutual_information(codes, release, n_neighbors), _entropy_bound(sensitive))


def _entropy_bound(sensitive):
    """``H(S)`` of the sample (plug-in), the most any release can reveal of a discrete S.

    Every estimate of a discrete S is clipped to it (a kNN estimate on tied
    columns, a bias correction, can otherwise exceed it); a continuous S has
    no such bound (``inf``).
    """
    if is_continuous(sensitive):
        return float("inf")
    return entropy_from_samples(sensitive)


def default_adversary(discrete):
    """The adversary used when none is given.

    A logistic regression on standardised features; on a discrete release it
    reads the release one-hot encoded, so that it can represent any posterior
    P(S | symbol) of a single released column.
    """
    if discrete:
        return make_pipeline(
            OneHotEncoder(handle_unknown="ignore"), LogisticRegression(C=100.0, max_iter=2000)
        )
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))


@validate_params(
    {
        "sensitive": ["array-like"],
        "release": ["array-like"],
        "adversary": [None, HasMethods(["fit", "predict"])],
        "train_size": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def adversary_accuracy_score(sensitive, release, *, adversary=None, train_size=0.5, random_state=0):
    r"""Accuracy of an adversary that learns to predict S from the release.

    The empirical attack of ppan-tripathy2017 (Fig. 9): the classifier is
    trained on a stratified ``train_size`` share of the rows and scored on the
    rest, so the score measures what a fresh attacker can infer.

    Parameters
    ----------
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive)
        The sensitive attribute; several columns form one joint label.
    release : array-like of shape (n_samples, n_features)
        The release.
    adversary : classifier, default=None
        Any scikit-learn classifier; cloned before fitting. ``None`` uses
        :func:`default_adversary`.
    train_size : float, default=0.5
        Share of the rows the adversary trains on.
    random_state : int, RandomState instance or None, default=0
        Controls the split.

    Returns
    -------
    float
        Accuracy of the adversary on the held-out rows.

    See Also
    --------
    make_adversary_scorer : The same accuracy as a cross-validation scorer.
    leakage_score : Information leakage :math:`I(S; \text{release})`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.metrics import adversary_accuracy_score
    >>> s = np.tile([0, 1], 50)
    >>> adversary_accuracy_score(s, s.reshape(-1, 1))
    1.0
    """
    sensitive = _as_2d(sensitive, "sensitive")
    release = _as_2d(release, "release")
    if sensitive.shape[0] != release.shape[0]:
        raise ValueError(
            f"sensitive has {sensitive.shape[0]} rows but the release has {release.shape[0]}."
        )
    labels, _ = encode_symbols(sensitive, name="sensitive")
    # The default adversary is a small logistic regression: extra BLAS threads only spin
    # (8x the CPU time on a 2-core machine); a user's adversary keeps the user's threads.
    limit = threadpool_limits(1) if adversary is None else nullcontext()
    if adversary is None:
        adversary = default_adversary(is_discrete_release(release))
    elif not is_classifier(adversary):
        raise ValueError(f"adversary must be a classifier, got {adversary!r}.")
    counts = np.bincount(labels)
    stratify = labels if counts[counts > 0].min() >= 2 else None
    r_train, r_test, s_train, s_test = train_test_split(
        release, labels, train_size=train_size, random_state=random_state, stratify=stratify
    )
    if np.unique(s_train).size < 2:
        return float(np.mean(s_test == s_train[0]))
    with limit:
        model = clone(adversary).fit(r_train, s_train)
        return float(np.mean(model.predict(r_test) == s_test))
