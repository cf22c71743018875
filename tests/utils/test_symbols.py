"""The shared symbol primitives against plain-Python references."""

import numpy as np
import pytest
from scipy import stats

from sklearn_privacy.utils._distortion import distortion_matrix
from sklearn_privacy.utils._symbols import CategoricalSampler, RowIndex, encode_rows


def _reference_codes(rows):
    """Codes by sorting the distinct tuples in Python."""
    keys = [tuple(r) for r in rows]
    distinct = sorted(set(keys))
    position = {k: i for i, k in enumerate(distinct)}
    return np.array([position[k] for k in keys]), distinct


@pytest.mark.parametrize("seed", range(5))
def test_encode_rows_matches_sorted_tuples(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(300, 3))
    codes, symbols = encode_rows(X)
    expected, distinct = _reference_codes(X.tolist())
    np.testing.assert_array_equal(codes, expected)
    assert [tuple(r) for r in symbols.tolist()] == distinct


def test_encode_rows_strings_mixed_and_wide():
    X = np.array([["b", 1], ["a", 2], ["b", 1], ["a", 10]], dtype=object)
    codes, symbols = encode_rows(X)
    assert codes.tolist() == [2, 0, 2, 1]
    assert symbols.tolist() == [["a", 2], ["a", 10], ["b", 1]]
    # Values that do not order against each other are ordered by repr, not refused.
    codes, _ = encode_rows(np.array([1, "x", 1, None], dtype=object))
    assert codes[0] == codes[2] and len(set(codes.tolist())) == 3
    # 40 columns of 10 values overflow an int64 key: the fallback gives the same codes.
    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, size=(200, 40))
    X[100:] = X[:100]
    codes, symbols = encode_rows(X)
    np.testing.assert_array_equal(codes, _reference_codes(X.tolist())[0])
    np.testing.assert_array_equal(codes[100:], codes[:100])


def test_encode_rows_errors():
    with pytest.raises(ValueError, match="S is empty"):
        encode_rows(np.empty((0, 2)), name="S")
    with pytest.raises(ValueError, match="1-D or 2-D"):
        encode_rows(np.zeros((2, 2, 2)))


@pytest.mark.parametrize("wide", [False, True])
def test_row_index_codes_and_unknown(wide):
    rng = np.random.default_rng(1)
    n_columns = 40 if wide else 3
    records = np.unique(rng.integers(0, 10 if wide else 5, size=(50, n_columns)), axis=0)
    rng.shuffle(records)  # a row's code is its position, whatever the order
    index = RowIndex(records)
    take = rng.integers(0, records.shape[0], size=500)
    np.testing.assert_array_equal(index.codes(records[take]), take)
    unseen = records[:2].copy()
    unseen[:, 0] = 99  # an unseen value
    mixed = np.vstack([records[:3], unseen])
    assert index.codes(mixed, unknown=-1).tolist() == [0, 1, 2, -1, -1]
    assert index._sorted_keys.dtype.kind == ("V" if wide else "i")
    with pytest.raises(ValueError, match=r"X has 2 row\(s\) not seen at fit \(first: row 3"):
        index.codes(mixed)
    with pytest.raises(ValueError, match="columns"):
        index.codes(records[:, :2])


def test_row_index_objects_and_unseen_combination():
    records = np.array([["a", 1], ["b", 2]], dtype=object)
    index = RowIndex(records)
    values = np.array([["b", 2], ["a", 1], ["a", 2], ["c", 1]], dtype=object)
    # ["a", 2]: each value seen, not the combination.
    assert index.codes(values, unknown=-1).tolist() == [1, 0, -1, -1]
    with pytest.raises(ValueError, match="distinct"):
        RowIndex([[1, 2], [1, 2]])


def test_sampler_frequencies_match_probabilities():
    rng = np.random.default_rng(2)
    P = rng.dirichlet(np.ones(5), size=4)
    P[1, [0, 4]] = 0.0  # zero-probability outcomes, first and last
    sampler = CategoricalSampler(P)
    rows = np.repeat(np.arange(4), 20000)
    draws = sampler.draw(rows, rng)
    for r in range(4):
        counts = np.bincount(draws[rows == r], minlength=5)
        expected = P[r] / P[r].sum() * 20000
        seen = expected > 0
        assert np.all(counts[~seen] == 0)
        assert stats.chisquare(counts[seen], expected[seen]).pvalue > 1e-4


class _ExtremeUniforms:
    """A generator whose uniforms are the extremes 0 and the largest double below 1."""

    def random(self, size):
        return np.resize([0.0, np.nextafter(1.0, 0.0)], size)


def test_sampler_never_draws_a_zero_probability_outcome_at_the_extremes():
    # Row 3 + (1 - 2**-53) rounds to 4.0: the draw must stay in row 3, on a positive outcome.
    P = np.array([[0.0, 1.0, 0.0]] * 6)
    rows = np.repeat(np.arange(6), 2)
    assert set(CategoricalSampler(P).draw(rows, _ExtremeUniforms()).tolist()) == {1}


def test_sampler_from_groups_matches_the_dense_table():
    groups = np.array([2, 0, 1, 0, 2, 2])
    weights = np.array([1.0, 3.0, 2.0, 1.0, 0.0, 4.0])
    dense = np.zeros((3, 6))
    dense[groups, np.arange(6)] = weights
    rows = np.repeat(np.arange(3), 30000)
    got = CategoricalSampler.from_groups(groups, weights, 3).draw(rows, np.random.default_rng(3))
    assert np.all(groups[got] == rows)  # each draw is an outcome of its group
    for r in range(3):
        freq = np.bincount(got[rows == r], minlength=6) / 30000
        np.testing.assert_allclose(freq, dense[r] / dense[r].sum(), atol=0.015)
    with pytest.raises(ValueError, match="row 1 of the probabilities has no mass"):
        CategoricalSampler([[1.0, 0.0], [0.0, 0.0]])


def test_distortion_sqeuclidean_is_the_summed_squared_distance():
    Y = np.array([[0.0, 1.0], [2.0, -1.0]])
    U = np.array([[1.0, 1.0], [0.0, 0.0], [2.0, 3.0]])
    expected = [[np.sum((y - u) ** 2) for u in U] for y in Y]
    np.testing.assert_allclose(distortion_matrix(Y, U, kind="sqeuclidean"), expected)
    with pytest.raises(TypeError, match="as numbers"):
        distortion_matrix([["a"]], kind="sqeuclidean")


def test_row_index_nearest_against_a_loop():
    rng = np.random.default_rng(3)
    records = np.unique(rng.integers(0, 4, size=(40, 5)), axis=0)
    counts = rng.integers(1, 5, size=len(records)).astype(float)
    index = RowIndex(records)
    values = rng.integers(0, 6, size=(300, 5))  # 4 and 5 are values no record holds
    found = index.nearest(values, counts)
    for row, code in zip(values, found):
        agree = (records == row).sum(axis=1)
        best = np.flatnonzero(agree == agree.max())
        # ties: the heaviest record, then the first
        expected = best[np.argmax(counts[best])]
        assert code == expected
    take = rng.integers(0, len(records), 50)
    np.testing.assert_array_equal(index.nearest(records[take], counts), take)  # seen rows


@pytest.mark.parametrize(
    "column",
    [
        np.random.default_rng(0).choice([" Male", "?", "b", "a"], 500),
        [1, 1.0, 2, True, 0, False, 2.5, -0.0, 0.0, 2],
        [1.0, np.nan, 2.0, np.nan],
        [(1, 2), (0, 1), (1, 2)],
    ],
    ids=["strings", "mixed numbers", "nan", "tuples"],
)
def test_an_object_column_is_coded_as_np_unique_codes_it(column):
    # the oracle: np.unique's sort of every cell; an object column is hashed instead
    cells = np.empty(len(column), dtype=object)
    cells[:] = list(column)  # tuples kept as cells
    values, codes = np.unique(cells, return_inverse=True)
    got_codes, got_values = encode_rows(cells)
    np.testing.assert_array_equal(got_codes, codes)
    assert got_values.tolist() == values.tolist()
