"""Sample estimates of the leakage ``I(S; T)`` from paired rows of S and a release.

:func:`estimate_leakage` is what :func:`sklearn_privacy.metrics.leakage_score` and PPAN call.
"""

import time
import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from threadpoolctl import threadpool_limits

from sklearn_privacy.estimation._draw import MAX_SAMPLES, draw_rows
from sklearn_privacy.estimation._heldout import (
    HELDOUT_ADVERSARIES,
    heldout_estimate,
    heldout_folds,
)
from sklearn_privacy.estimation._knn import knn_mutual_information, ksg_mutual_information
from sklearn_privacy.estimation._network import one_torch_thread
from sklearn_privacy.estimation._panel import (
    LeakageEstimate,
    _null_corrected,
    knn_permutations,
    panel_estimate,
)
from sklearn_privacy.estimation._release import HUGE, is_symbolic, missing_cells, read_release
from sklearn_privacy.information import (
    encode_symbols,
    entropy,
    entropy_from_samples,
    gaussian_mutual_information,
    mutual_information_from_samples,
)
from sklearn_privacy.utils import as_2d, is_continuous, user_stacklevel
from sklearn_privacy.utils._routing import without_metadata_routing
from sklearn_privacy.utils._validation import check_sensitive

__all__ = ["ESTIMATORS", "check_pair", "estimate_leakage", "is_discrete"]

# Quantile bins of a continuous S whose held-out bounds the panel reads (the largest counts).
S_BINS = (2, 4, 8)

# The most cells of a sparse release read as a dense array (800 MB of float64).
MAX_SPARSE_CELLS = 10**8

# The estimators of leakage_score.
ESTIMATORS = {"auto", "plugin", "miller_madow", "gaussian", "knn", *HELDOUT_ADVERSARIES}


def check_pair(sensitive, release, *, allow_missing=False):
    """S and the release as 2-D arrays of the same length, each with at least 2 rows.

    S is checked by :func:`~sklearn_privacy.utils.check_sensitive` (a single
    value allowed: its leakage is 0); the release may hold missing (None, NaN,
    pd.NA) or infinite values only with ``allow_missing=True`` (the leakage
    estimates read them as values), else they are refused, naming the first
    column that holds one.

    Parameters
    ----------
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive)
        The sensitive attribute.
    release : array-like of shape (n_samples,) or (n_samples, n_features)
        The release of the same rows.
    allow_missing : bool, default=False
        Whether missing and infinite values of the release are values.

    Returns
    -------
    sensitive : ndarray of shape (n_samples, n_sensitive)
        S as a 2-D array.
    release : ndarray of shape (n_samples, n_features)
        The release as a 2-D array.

    See Also
    --------
    estimate_leakage : Checks its pair with this.

    Examples
    --------
    >>> from sklearn_privacy.estimation import check_pair
    >>> s, t = check_pair([0, 1, 1], [0.5, 1.5, 2.5])
    >>> s.shape, t.shape
    ((3, 1), (3, 1))
    """
    sensitive = check_sensitive(sensitive, min_values=1)
    if sp.issparse(release):
        release = _densified(release)
    release = as_2d(release, "release")
    for name, values in (("sensitive", sensitive), ("release", release)):
        if values.shape[0] < 2:
            raise ValueError(f"{name} needs at least 2 samples, got {values.shape[0]}.")
    if not allow_missing:
        missing = missing_cells(release)
        if missing.any():
            row, column = np.argwhere(missing)[0]
            raise ValueError(
                f"release contains missing values (None, NaN or pd.NA) or infinite values "
                f"(in column {column}, row {row})."
            )
    if sensitive.shape[0] != release.shape[0]:
        raise ValueError(
            f"sensitive has {sensitive.shape[0]} rows but the release has {release.shape[0]}."
        )
    return sensitive, release


def _densified(release):
    """A sparse release as a dense array, for the members that read columns and rows.

    Refused above :data:`MAX_SPARSE_CELLS` cells (8 bytes each), naming the size.
    """
    n, d = release.shape
    if n * d > MAX_SPARSE_CELLS:
        raise ValueError(
            f"The sparse release has {n} x {d} = {n * d} cells, more than the "
            f"{MAX_SPARSE_CELLS} that the leakage estimate reads densely (its kNN, "
            "table and network members read whole rows): estimate it on a sample of the "
            "rows, or on a reduced release (e.g. TruncatedSVD)."
        )
    return release.toarray()


def is_discrete(release):
    """Whether a release is read as symbols: the rule of ``metrics.is_discrete_release``.

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
    sklearn_privacy.metrics.is_discrete_release : The validated, documented rule.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.estimation import is_discrete
    >>> is_discrete(np.eye(3)), is_discrete(np.linspace(0, 1, 50) ** 2)
    (True, False)
    """
    release = as_2d(release, "release")
    if release.size == 0:
        return False
    # "+ 0.0" turns -0.0 into 0.0, which np.unique(axis=0) would tell apart.
    return is_symbolic(release, lambda: np.unique(release + 0.0, axis=0).shape[0])


@without_metadata_routing
def estimate_leakage(
    sensitive,
    release,
    *,
    estimator="auto",
    n_neighbors=5,
    n_splits=5,
    adversaries=None,
    n_jobs=None,
    verbose=0,
    verbose_prefix="[leakage]",
    attribute=False,
    max_samples=MAX_SAMPLES,
):
    """The :class:`LeakageEstimate` of ``I(S; release)`` by one estimator (the panel for "auto").

    The work of :func:`sklearn_privacy.metrics.leakage_score` (which
    documents the estimators), on unvalidated parameters.

    Parameters
    ----------
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive)
        The sensitive attribute.
    release : array-like of shape (n_samples, n_features)
        The release of the same rows.
    estimator : str, default="auto"
        One of :data:`ESTIMATORS`.
    n_neighbors : int, default=5
        Neighbours of the kNN estimate, at least 1.
    n_splits : int, default=5
        Folds of the held-out bounds, at least 2.
    adversaries : dict of str to classifier, default=None
        The user's classifiers, added to the panel of ``"auto"``.
    n_jobs : int, default=None
        Threads for the panel's members (joblib's meaning; None: 1).
    verbose : int, default=0
        Print a line per member of the panel with its time.
    verbose_prefix : str, default="[leakage]"
        The start of each printed line (a scorer names its call there).
    attribute : bool, default=False
        Break the panel's leakage down by release column.
    max_samples : int or None, default=50000
        Above this many rows, read a seeded draw of this many (:func:`draw_rows`).

    Returns
    -------
    LeakageEstimate
        The estimate and its panel.

    Raises
    ------
    ValueError
        On a bad pair (see :func:`check_pair`), an estimator that reads
        numbers given a release of strings or objects, or an estimator for a
        discrete S given a continuous one.

    See Also
    --------
    sklearn_privacy.metrics.leakage_score : The validated, documented face of this function.

    Examples
    --------
    >>> from sklearn_privacy.estimation import estimate_leakage
    >>> s = [0, 1] * 20
    >>> estimate_leakage(s, [[v] for v in s], estimator="plugin").estimator
    'plugin'
    """
    options = {
        "n_neighbors": n_neighbors,
        "n_splits": n_splits,
        "adversaries": dict(adversaries or {}),
        "n_jobs": n_jobs,
        "verbose": verbose,
        "verbose_prefix": verbose_prefix,
        "attribute": attribute,
    }
    sensitive, release, drawn = draw_rows(sensitive, release, max_samples, is_discrete)
    estimate = _estimate_rows(sensitive, release, estimator, options)
    if not drawn:
        return estimate
    if verbose:
        print(f"{verbose_prefix} {drawn}")
    return replace(estimate, folds="; ".join(filter(None, (estimate.folds, drawn))))


def _estimate_rows(sensitive, release, estimator, options):
    """:func:`estimate_leakage` on the rows it reads."""
    names = list(release.columns) if hasattr(release, "columns") else None
    # the user's adversaries read the release as given: a DataFrame (a ColumnTransformer by
    # names), a sparse matrix; the stored entries of each row of a sparse one are read too
    given = release if hasattr(release, "iloc") and release.ndim == 2 else None
    nonzero = None
    if sp.issparse(release):
        given, nonzero = release, release.getnnz(axis=1)
    sensitive, release = check_pair(sensitive, release, allow_missing=True)
    if release.shape[1] == 0:
        return _empty_release(sensitive, estimator)
    # S is continuous by the release's rule: floats, not all integers, more than n / 10 values
    continuous_s = not is_discrete(sensitive)
    if estimator in ("knn", "gaussian") and release.dtype.kind not in "biufc":
        raise ValueError(
            f"estimator={estimator!r} reads the release as numbers, but it holds "
            f"{release.dtype.kind == 'U' and 'strings' or 'objects'}: use "
            "estimator='auto' or 'plugin', which read the release's symbols."
        )
    if continuous_s and estimator in ("knn", *HELDOUT_ADVERSARIES):
        raise ValueError(
            f"estimator={estimator!r} needs a discrete sensitive attribute, but S holds "
            f"{np.unique(sensitive, axis=0).shape[0]} distinct non-integer floats in "
            f"{sensitive.shape[0]} rows. Bin S first (numpy.digitize, pandas.cut, "
            "KBinsDiscretizer), or use estimator='auto' (held-out bounds on quantile bins "
            "of S beside a kNN estimate) or 'gaussian' for a continuous S."
        )
    # The held-out adversaries are small models: extra BLAS, OpenMP or torch threads only
    # spin (gradient boosting on 2000 x 100 took 127 s instead of 0.7 s beside one busy
    # core); the panel runs its members side by side on n_jobs threads instead.
    with threadpool_limits(1), one_torch_thread():
        view = read_release(release, names, given=given, nonzero=nonzero)
        if estimator == "auto" and continuous_s:
            return _continuous_panel(sensitive, view, options)
        return _estimate(sensitive, view, estimator, continuous_s, options)


def _empty_release(sensitive, estimator):
    """The estimate of a release of 0 columns: a constant, so ``I(S; T) = 0``."""
    continuous = not is_discrete(sensitive)
    why = "a release of 0 columns is constant: I(S; T) = 0"
    return LeakageEstimate(
        value=0.0,
        estimator=estimator,
        estimates={estimator: 0.0},
        spreads={estimator: 0.0},
        entropy=_entropy_bound(sensitive, continuous),
        left_out={"every member": why},
    )


def _estimate(sensitive, view, estimator, continuous_s, options):
    """The :class:`LeakageEstimate` of one estimator (the panel for ``"auto"``)."""
    if estimator == "auto":
        codes, _ = encode_symbols(sensitive, name="sensitive")
        return panel_estimate(codes, view, entropy_from_samples(codes), **options)
    release = view.values
    spread, folds = float("nan"), ""
    if estimator in ("plugin", "miller_madow"):
        value = mutual_information_from_samples(sensitive, view.rows, method=estimator)
    elif estimator == "gaussian":
        if view.discrete:
            warnings.warn(
                "The release looks discrete (non-float, integer values or at most "
                "n_samples / 10 distinct rows); the Gaussian estimate sees only the linear "
                "dependence on S and can under-estimate its leakage. Use "
                "estimator='plugin' for a discrete release.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        finite = not missing_cells(release).any() and np.max(np.abs(release)) <= HUGE
        value = _gaussian_estimate(sensitive, release if finite else view.coded)
    elif estimator == "knn":
        codes, _ = encode_symbols(sensitive, name="sensitive")
        value = knn_mutual_information(
            codes, view.for_neighbours, options["n_neighbors"], rows=view.rows
        )
    else:
        codes, _ = encode_symbols(sensitive, name="sensitive")
        fold_list, folds = heldout_folds(codes, options["n_splits"])
        value, spread = heldout_estimate(
            estimator, codes, view, fold_list, entropy_from_samples(codes)
        )
    h_s = _entropy_bound(sensitive, continuous_s)
    return LeakageEstimate(
        value=float(min(max(value, 0.0), h_s)),
        estimator=estimator,
        estimates={estimator: float(value)},
        spreads={estimator: spread},
        entropy=h_s,
        folds=folds,
    )


def _quantile_bins(values, n_bins):
    """Codes of ``n_bins`` quantile bins of one column (ties kept in one bin)."""
    edges = np.quantile(values, np.linspace(0, 1, n_bins + 1)[1:-1])
    return np.unique(np.searchsorted(edges, values, side="right"), return_inverse=True)[1]


def _continuous_panel(sensitive, view, options):
    """The panel for a continuous S: held-out bounds on quantile bins of S, and the KSG kNN.

    ``I(f(S); T) <= I(S; T)`` for any function ``f`` of S, so each held-out
    bound on the codes of :data:`S_BINS` quantile bins of a column of S is a
    lower bound on the leakage; beside them, the continuous-continuous kNN
    estimate of Kraskov et al. minus its permutation null. The largest counts.
    """
    n = sensitive.shape[0]
    values = np.asarray(sensitive, dtype=float)
    estimates, spreads, best = {}, {}, None
    for column in range(values.shape[1]):
        where = f" of S[{column}]" if values.shape[1] > 1 else " of S"
        for n_bins in S_BINS:
            if n < 10 * n_bins * options["n_splits"] and n_bins > S_BINS[0]:
                continue  # too few rows a bin for a held-out bound per fold
            codes = _quantile_bins(values[:, column], n_bins)
            panel = panel_estimate(
                codes,
                view,
                entropy_from_samples(codes),
                label=f" ({n_bins} bins{where})",
                corrected=False,
                **options,
            )
            estimates.update(panel.estimates)
            spreads.update(panel.spreads)
            if best is None or panel.value > best.value:
                best = panel
    if view.values.dtype.kind in "biufc":
        start = time.perf_counter()
        order, columns = np.arange(n), view.for_neighbours
        estimates["knn"], spreads["knn"] = _null_corrected(
            lambda rows: ksg_mutual_information(values[rows], columns, options["n_neighbors"]),
            order,
            knn_permutations(n),
        )
        if options["verbose"]:
            print(
                f"{options['verbose_prefix']} knn (continuous S): {estimates['knn']:.4f} nats in "
                f"{time.perf_counter() - start:.2f} s"
            )
    winner = max(estimates, key=estimates.get)
    return LeakageEstimate(
        value=float(max(estimates[winner], 0.0)),
        estimator=winner,
        estimates=estimates,
        spreads=spreads,
        entropy=float("inf"),
        folds=best.folds,
        columns=best.columns,
        columns_by=best.columns_by,
        left_out=best.left_out,
    )


def _entropy_bound(sensitive, continuous):
    """``H(S)`` of the sample (plug-in), the most any release can reveal of a discrete S.

    Every estimate of a discrete S is clipped to it (a kNN estimate on tied
    columns, a bias correction, can otherwise exceed it); a continuous S has
    no such bound (``inf``).
    """
    if continuous:
        return float("inf")
    return entropy_from_samples(sensitive)


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
