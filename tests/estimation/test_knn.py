"""The kNN estimate of Ross (2014): one neighbour search for the estimate and its null (issue 49).

The oracle is the estimate written from its definition on the whole matrix of max-norm
distances (``scipy.spatial.distance.cdist``), row by row.
"""

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.special import digamma
from sklearn.neighbors import NearestNeighbors

import sklearn_privacy.estimation._knn as knn
from sklearn_privacy.estimation._knn import KnnEstimator, _copula, knn_mutual_information
from sklearn_privacy.metrics import leakage_score


def ross_by_definition(codes, release, k):
    """psi(n) + <psi(k_i)> - <psi(N_s)> - <psi(m_i)>, classes seen once left out."""
    points = _copula(release)
    counts = np.bincount(codes)[codes]
    keep = np.flatnonzero(counts > 1)
    distances = cdist(points[keep], points[keep], metric="chebyshev")
    terms = []
    for a, i in enumerate(keep):
        same = codes[keep] == codes[i]
        same[a] = False
        k_i = min(k, counts[i] - 1)
        radius = np.sort(distances[a, same])[k_i - 1]
        closer = np.count_nonzero(distances[a] < radius)  # the row itself included
        terms.append((k_i, counts[i], closer))
    k_i, n_s, m_i = np.array(terms).T
    return digamma(keep.size) + digamma(k_i).mean() - digamma(n_s).mean() - digamma(m_i).mean()


CASES = {
    "binary, 3 columns": (400, 2, 3, None),
    "five values, 8 columns": (300, 5, 8, None),
    "one value in 20 rows": (400, 2, 2, 0.05),
    "values seen once or twice": (200, 120, 2, None),
    "40 values, 1 column": (500, 40, 1, None),
}


def _case(name, seed):
    n, classes, d, rare = CASES[name]
    rng = np.random.default_rng(seed)
    s = rng.integers(0, classes, n) if rare is None else (rng.random(n) < rare).astype(int)
    s = np.unique(s, return_inverse=True)[1]
    t = 0.5 * s[:, None] + rng.normal(size=(n, d))
    return s, t


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("list_cells", [None, 1, 2000])
def test_the_estimate_is_rosss_definition_whatever_the_lists(name, list_cells, monkeypatch):
    # list_cells: the default lists, lists of k rows (nearly every row counted by trees),
    # and lists of a few rows (some rows from their lists, the others by trees)
    if list_cells is not None:
        monkeypatch.setattr(knn, "_LIST_CELLS", list_cells)
    s, t = _case(name, seed=0)
    estimate = KnnEstimator(t, 3)
    permuted = np.random.default_rng(1).permutation(s)
    for codes in (s, permuted):  # one search for both labellings
        expected = ross_by_definition(codes, t, 3)
        assert estimate(codes, clip=False) == pytest.approx(expected, abs=1e-12)
        assert knn_mutual_information(codes, t, 3, clip=False) == pytest.approx(expected, abs=1e-12)


def test_many_values_of_s_skip_the_lists(monkeypatch):
    # 120 values at k = 3 would want lists of 1080 rows: every row is counted by trees
    s, t = _case("values seen once or twice", seed=2)

    def no_search(self, *args, **kwargs):
        raise AssertionError("the lists were searched")

    monkeypatch.setattr(NearestNeighbors, "kneighbors", no_search)
    assert KnnEstimator(t, 3)(s, clip=False) == pytest.approx(
        ross_by_definition(s, t, 3), abs=1e-12
    )


def test_the_panels_null_searches_the_neighbours_once(monkeypatch):
    calls = []
    search = NearestNeighbors.kneighbors

    def counting(self, *args, **kwargs):
        calls.append(self.n_neighbors)
        return search(self, *args, **kwargs)

    monkeypatch.setattr(NearestNeighbors, "kneighbors", counting)
    rng = np.random.default_rng(3)
    n = 1000
    s = rng.integers(0, 2, n)
    t = np.c_[s + rng.normal(size=n), rng.normal(size=(n, 4))]
    estimate = leakage_score(s, t, return_details=True)
    # the estimate and its 2 permutations (1000 rows) from one list of 32 rows a row
    assert calls == [32]
    assert "knn" in estimate.estimates


def test_atoms_and_continuum_are_read_once_for_every_labelling():
    # rows repeated (atoms) beside distinct rows: the chain rule, the same for any S
    rng = np.random.default_rng(4)
    n = 600
    s = rng.integers(0, 3, n)
    t = np.where(rng.random(n) < 0.3, np.round(s + rng.normal(size=n)), s + rng.normal(size=n))
    estimate = KnnEstimator(t, 4)
    for codes in (s, rng.permutation(s), rng.permutation(s)):
        assert estimate(codes) == knn_mutual_information(codes, t, 4)
