"""The copula kNN estimate of ``I(S; T)`` (Ross 2014) for a discrete S and a continuous release.

Repeated rows (atoms) are counted exactly by the chain rule.
"""

import numpy as np
from scipy.special import digamma
from scipy.stats import rankdata
from sklearn.neighbors import KDTree, NearestNeighbors

from sklearn_privacy.information import encode_symbols, mutual_information_from_samples

__all__ = [
    "ContinuumNeighbours",
    "KnnEstimator",
    "knn_mutual_information",
    "ksg_mutual_information",
]


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


# The nearest rows each row's list holds: enough for the k-th row of the same value of S of
# most rows (thrice k times the number of values of S), at most this many rows a list and
# this many cells in all (rows x list). Rows whose list falls short are counted exactly by
# trees on their value's rows; where the lists would be longer (many values of S), every row is.
_MAX_LIST = 256
_LIST_CELLS = 5 * 10**6  # about 125 MB of lists, ranks and masks


class ContinuumNeighbours:
    """The rows of a continuous release and each one's nearest rows (max-norm), found once.

    The estimate of Ross (2014) needs, for each row, the distance to its
    ``k``-th nearest row of the same value of S and how many rows of any value
    lie closer. Both are read from one list of each row's nearest rows, so that
    one neighbour search serves any labelling of the rows: the estimate and
    each permutation of S in its null. The list is found on the first call
    (its length set by that call's counts of S; a permutation of S over a
    release with atoms changes the continuum's counts, and the lists stay as
    they are); a row whose ``k``-th row of its own value is not in its list
    is counted exactly by trees on its value's rows, whatever the labelling.

    Parameters
    ----------
    release : ndarray of shape (n_samples, n_features)
        The release's rows, distinct (the continuum of :func:`knn_mutual_information`).
    n_neighbors : int
        The ``k`` of the estimate.
    """

    def __init__(self, release, n_neighbors):
        self.points = _copula(release)
        self.n_neighbors = n_neighbors
        self.distances = self.indices = None

    def _lists(self, counts):
        """Each row's nearest rows, leaving it out (empty lists where they would be too long)."""
        n = self.points.shape[0]
        wanted = max(32, 3 * self.n_neighbors * int(np.count_nonzero(counts > 1)))
        length = int(min(n - 1, wanted, max(_LIST_CELLS // n, self.n_neighbors)))
        if wanted > _MAX_LIST or length < 1:
            self.distances, self.indices = np.zeros((n, 0)), np.zeros((n, 0), dtype=np.intp)
            return
        search = NearestNeighbors(n_neighbors=length, metric="chebyshev").fit(self.points)
        self.distances, self.indices = search.kneighbors()

    def mutual_information(self, codes, clip=True):
        """The estimate of Ross (2014) of ``I(S; T)`` for S given as ``codes`` (one per row).

        For a sample ``i`` of class ``s`` with ``N_s`` samples, ``d_i`` is the
        distance to its ``k``-th nearest neighbour of the same class and
        ``m_i`` counts the samples of any class closer than ``d_i`` (``i``
        included); the estimate is ``psi(n) + <psi(k)> - <psi(N_s)> -
        <psi(m_i)>``, clipped at 0 unless ``clip=False``. Classes with a
        single sample are left out. In one dimension this is scikit-learn's
        ``_compute_mi_cd``, the estimator behind
        :func:`~sklearn.feature_selection.mutual_info_classif` (which adds a
        1e-10 jitter first); here ``T`` may have several columns. Each column
        is replaced by its ranks divided by ``n`` (its empirical copula; tied
        values share their mean rank): ``I(S; T)`` is unchanged by a monotone
        map of a column, so the estimate is invariant to any rescaling of a
        column and one outlier moves its column by at most ``1 / n`` (dividing
        by the standard deviation, as before, let one value of 1e7 shrink a
        give-away column to nothing). It assumes distinct rows: a row repeated
        ``k`` times or more has ``d_i = 0`` (see :func:`knn_mutual_information`).
        """
        counts = np.bincount(codes)
        label_counts = counts[codes]
        keep = label_counts > 1
        if keep.sum() < 2:
            raise ValueError("the kNN estimate needs at least one value of S seen twice.")
        if self.distances is None:
            self._lists(counts)
        k = np.minimum(self.n_neighbors, label_counts - 1)
        radius, closer, short = np.zeros(codes.size), np.ones(codes.size, dtype=np.intp), keep
        if self.indices.shape[1]:
            rank = np.cumsum(codes[self.indices] == codes[:, None], axis=1)
            at = np.argmax(rank >= k[:, None], axis=1)
            radius = self.distances[np.arange(codes.size), at]
            # the rows of a kept value closer than the radius, and the row itself
            closer += np.sum((self.distances < radius[:, None]) & keep[self.indices], axis=1)
            short = keep & (rank[:, -1] < k)
        if short.any():
            radius[short], closer[short] = self._exact(codes, keep, k, short)
        value = (
            digamma(keep.sum())
            + np.mean(digamma(k[keep]))
            - np.mean(digamma(label_counts[keep]))
            - np.mean(digamma(closer[keep]))
        )
        return float(max(value, 0.0) if clip else value)

    def _exact(self, codes, keep, k, short):
        """``(radius, closer)`` of the ``short`` rows, by trees on their values' rows."""
        points, wanted, k = self.points[short], codes[short], k[short]
        radius = np.empty(wanted.size)
        for label in np.unique(wanted):  # a loop over the values of S, not over the samples
            at = wanted == label
            dist, _ = KDTree(self.points[codes == label], metric="chebyshev").query(
                points[at], k=int(k[at][0]) + 1
            )
            radius[at] = dist[:, -1]
        tree = KDTree(self.points[keep], metric="chebyshev")
        closer = tree.query_radius(points, np.nextafter(radius, 0), count_only=True)
        return radius, closer


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
    return KnnEstimator(release, n_neighbors, rows)(codes, clip)


class KnnEstimator:
    """:func:`knn_mutual_information` of one release, for any S: the release read once.

    The release's atoms and continuum are found once, and the continuum's
    neighbour search on the first call (:class:`ContinuumNeighbours`), so that
    a permutation null costs little more than the estimate.

    Parameters
    ----------
    release : array-like of shape (n_samples,) or (n_samples, n_features)
        The release.
    n_neighbors : int
        Neighbours of the estimate.
    rows : ndarray of shape (n_samples,), default=None
        The codes of the release's distinct rows where already known.
    """

    def __init__(self, release, n_neighbors, rows=None):
        release = np.asarray(release, dtype=float)
        release = release.reshape(release.shape[0], -1)
        if rows is None:
            rows = encode_symbols(release, name="release")[0]
        self.rows = rows
        self.single = np.bincount(rows)[rows] == 1
        self.atoms = np.where(self.single, -1, rows)
        self.continuum = (
            ContinuumNeighbours(release[self.single], n_neighbors) if self.single.any() else None
        )

    def __call__(self, codes, clip=True):
        """The estimate for S given as ``codes``; ``clip=False`` keeps a negative kNN term."""
        if self.single.all():
            return self.continuum.mutual_information(codes, clip)
        continuum_codes = codes[self.single]
        if continuum_codes.size == 0 or np.bincount(continuum_codes).max() < 2:
            return mutual_information_from_samples(codes, self.rows)
        value = mutual_information_from_samples(codes, self.atoms)
        value += np.mean(self.single) * self.continuum.mutual_information(continuum_codes, clip)
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
