"""The copula kNN estimate of ``I(S; T)`` (Ross 2014) for a discrete S and a continuous release.

Repeated rows (atoms) are counted exactly by the chain rule.
"""

import numpy as np
from scipy.special import digamma
from scipy.stats import rankdata
from sklearn.neighbors import KDTree

from sklearn_privacy.information import encode_symbols, mutual_information_from_samples

__all__ = ["knn_mutual_information", "ksg_mutual_information"]


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


def _ross_mutual_information(codes, release, n_neighbors, clip=True):
    """Ross (2014) kNN estimate of ``I(S; T)``, S discrete, T continuous (max-norm).

    For a sample ``i`` of class ``s`` with ``N_s`` samples, ``d_i`` is the
    distance to its ``k``-th nearest neighbour of the same class and ``m_i``
    counts the samples of any class closer than ``d_i`` (``i`` included); the
    estimate is ``psi(n) + <psi(k)> - <psi(N_s)> - <psi(m_i)>``, clipped at 0
    unless ``clip=False``.
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
    has ``d_i = 0`` (see :func:`knn_mutual_information`).
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
    return float(max(value, 0.0) if clip else value)


def knn_mutual_information(codes, release, n_neighbors, clip=True, rows=None):
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
    ``clip=False`` keeps a negative kNN term (for a permutation null);
    ``rows`` are the codes of the release's distinct rows where already known.

    References
    ----------
    B. C. Ross, "Mutual information between discrete and continuous data
    sets", PLoS ONE 9(2), 2014.
    """
    release = np.asarray(release, dtype=float).reshape(codes.shape[0], -1)
    if rows is None:
        rows = encode_symbols(release, name="release")[0]
    single = np.bincount(rows)[rows] == 1
    if single.all():
        return _ross_mutual_information(codes, release, n_neighbors, clip)
    continuum_codes = codes[single]
    if continuum_codes.size == 0 or np.bincount(continuum_codes).max() < 2:
        return mutual_information_from_samples(codes, rows)
    atoms = np.where(single, -1, rows)
    value = mutual_information_from_samples(codes, atoms)
    value += np.mean(single) * _ross_mutual_information(
        continuum_codes, release[single], n_neighbors, clip
    )
    return float(value)


def ksg_mutual_information(sensitive, release, n_neighbors):
    """The kNN estimate of Kraskov et al. (2004, their first) of ``I(S; T)``, both continuous.

    On the columns' ranks (their empirical copula, as :func:`knn_mutual_information`), in the
    max-norm: ``psi(k) + psi(n) - <psi(n_s + 1) + psi(n_t + 1)>``, with ``n_s`` and ``n_t``
    the rows strictly closer than the ``k``-th neighbour in the joint space, counted in S's
    and T's spaces alone. Not clipped (for a permutation null).

    References
    ----------
    A. Kraskov, H. Stoegbauer, P. Grassberger, "Estimating mutual information", Phys. Rev. E
    69, 066138, 2004.
    """
    s = _copula(np.asarray(sensitive, dtype=float).reshape(len(sensitive), -1))
    t = _copula(np.asarray(release, dtype=float).reshape(len(sensitive), -1))
    joint = np.hstack([s, t])
    n = joint.shape[0]
    k = min(n_neighbors, n - 1)
    radius, _ = KDTree(joint, metric="chebyshev").query(joint, k=k + 1)
    radius = np.nextafter(radius[:, -1], 0)
    n_s = KDTree(s, metric="chebyshev").query_radius(s, radius, count_only=True) - 1
    n_t = KDTree(t, metric="chebyshev").query_radius(t, radius, count_only=True) - 1
    return float(digamma(k) + digamma(n) - np.mean(digamma(n_s + 1) + digamma(n_t + 1)))
