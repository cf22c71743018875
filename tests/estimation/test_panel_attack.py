"""The panel under attack (issue 47): interactions at any width, atoms, missing values, row
counts, the user's adversaries checked and handed the release as given, edges, importances."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

import sklearn_privacy.estimation._network as network
import sklearn_privacy.estimation._panel as panel
from sklearn_privacy.estimation._heldout import FLOOR, heldout_folds
from sklearn_privacy.estimation._network import PairProducts
from sklearn_privacy.estimation._panel import panel_members
from sklearn_privacy.estimation._release import read_release
from sklearn_privacy.information import entropy_from_samples
from sklearn_privacy.metrics import leakage_score


def _oracle_bound(model, features, s, n_classes=2):
    """H(S) minus the cross-entropy of ``model`` fitted fold by fold, by hand (the oracle)."""
    folds, _ = heldout_folds(s, 5)
    proba = np.empty((s.size, n_classes))
    take = (lambda v, r: v.iloc[r]) if hasattr(features, "iloc") else (lambda v, r: v[r])
    for train, test in folds:
        fitted = clone(model).fit(take(features, train), s[train])
        proba[test] = fitted.predict_proba(take(features, test))
    proba = (1 - FLOOR) * proba + FLOOR / n_classes
    return entropy_from_samples(s) + np.mean(np.log(proba[np.arange(s.size), s]))


def test_missing_and_infinite_values_are_read_as_values():
    # NaN exactly where S = 1: S is a function of the release, I(S; T) = H(S)
    rng = np.random.default_rng(0)
    n = 300
    s = rng.integers(0, 2, n)
    t = rng.normal(size=(n, 2))
    t[s == 1, 0] = np.nan
    estimate = leakage_score(s, t, return_details=True)
    assert estimate.value >= 0.95 * estimate.entropy
    assert next(iter(estimate.columns)) in ("0 [values]", "[missing per row]")
    # +inf and -inf are two more values: +inf where S = 1, -inf where S = 0, on half the rows
    t = rng.normal(size=(n, 2))
    half = rng.random(n) < 0.5
    t[half, 1] = np.where(s[half] == 1, np.inf, -np.inf)
    truth = half.mean() * estimate.entropy  # S is told on those rows, nothing on the others
    assert 0.9 * truth <= leakage_score(s, t) <= truth + 0.03
    # an object column's None is a value like its strings
    words = np.where(s == 1, None, rng.choice(["a", "b"], n)).astype(object)
    assert leakage_score(s, words.reshape(-1, 1)) >= 0.95 * estimate.entropy


def test_the_view_reads_a_number_column_with_its_values_and_the_row_counts():
    n = 100
    x = np.arange(n) * 0.01 + 0.005  # distinct numbers, then missing, infinite and repeated
    x[1::10], x[4::10], x[2::10], x[3::10] = np.nan, np.inf, 1.5, 1.5
    values = np.c_[x, np.arange(n) + 0.5]
    view = read_release(values, nonzero=np.arange(n) % 7)
    assert view.names == ["0", "1", "0 [values]", "[missing per row]", "[nonzero per row]"]
    # the number with its missing cells at the median of the others; its values as categories:
    # 0 for a value seen once, then 1.5, inf and nan in sorted order
    missing = ~np.isfinite(x)
    np.testing.assert_array_equal(view.coded[:, 0], np.where(missing, np.median(x[~missing]), x))
    expected = np.select([x == 1.5, np.isinf(x), np.isnan(x)], [1, 2, 3], 0)
    np.testing.assert_array_equal(view.coded[:, 2], expected)
    np.testing.assert_array_equal(view.coded[:, 3], missing)
    np.testing.assert_array_equal(view.coded[:, 4], np.arange(n) % 7)
    assert view.one_hot.tolist() == [2] and view.numbers.tolist() == [0, 1, 3, 4]
    assert np.all(np.isfinite(view.coded)) and view.given is values


def test_atoms_inside_a_continuous_column_are_read_as_categories():
    # x = S exactly on a 30 % subgroup, N(0, 1) elsewhere: the atoms 0 and 1 tell S there,
    # the rest nothing, so I(S; T) = 0.3 H(S) (about 0.21 nats)
    rng = np.random.default_rng(1)
    n = 600
    s = rng.integers(0, 2, n)
    x = rng.normal(size=n)
    group = rng.random(n) < 0.3
    x[group] = s[group]
    truth = group.mean() * entropy_from_samples(s)
    values = read_release(x.reshape(-1, 1)).coded[:, 1]
    # oracle: the codes of the repeated values (0.0 and 1.0) in order, 0 for the others
    np.testing.assert_array_equal(values, np.where(group, 1 + s, 0))
    estimate = leakage_score(s, np.c_[x, rng.normal(size=n)], return_details=True)
    assert 0.75 * truth <= estimate.value <= truth + 0.04
    assert next(iter(estimate.columns)) == "0 [values]"


def test_a_sparse_releases_count_of_stored_entries_is_read():
    # S sets how many entries of a row are stored (5 % against 15 % of 20 columns); the
    # oracle: a logistic regression on that count alone, cross-fitted on the same folds
    rng = np.random.default_rng(2)
    n = 500
    s = rng.integers(0, 2, n)
    mask = rng.random((n, 20)) < np.where(s == 1, 0.15, 0.05)[:, None]
    release = sp.csr_matrix(mask * rng.uniform(0.5, 1.0, (n, 20)))
    count = release.getnnz(axis=1).reshape(-1, 1).astype(float)
    oracle = _oracle_bound(LogisticRegression(), count, s)
    estimate = leakage_score(s, release, return_details=True)
    assert oracle > 0.15
    assert estimate.value >= 0.9 * oracle
    assert estimate.columns and "[nonzero per row]" in estimate.columns


def test_the_triples_are_screened_by_their_correlation_with_s():
    # oracle: each triple's product correlated with each indicator of S, in a loop
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 6))
    s = (X[:, 0] * X[:, 2] * X[:, 5] + 0.5 * X[:, 1] + rng.normal(size=300) > 0).astype(int)
    s[::9] = 2
    Z = (X - X.mean(0)) / X.std(0)
    scores = {}
    for i in range(6):
        for j in range(i + 1, 6):
            for k in range(j + 1, 6):
                product = Z[:, i] * Z[:, j] * Z[:, k]
                scores[i, j, k] = sum(np.corrcoef(product, s == v)[0, 1] ** 2 for v in range(3))
    expected = sorted(scores, key=scores.get, reverse=True)[:3]
    fitted = PairProducts(n_pairs=2, n_triples=3).fit(X, s)
    assert [tuple(triple) for triple in fitted.triples_] == expected
    assert expected[0] == (0, 2, 5)
    features = fitted.transform(X)
    assert features.shape == (300, 5)
    np.testing.assert_allclose(features[:, 2], np.prod(Z[:, [0, 2, 5]], 1))
    # too many columns: no triples
    assert PairProducts(max_triple_columns=5).fit(X, s).triples_.shape == (0, 3)


def test_the_pairs_screened_in_blocks_are_the_pairs_screened_at_once(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 40))
    s = (X[:, 3] * X[:, 31] + 0.3 * X[:, 7] * X[:, 8] + rng.normal(size=300) > 0).astype(int)
    whole = PairProducts(n_pairs=6).fit(X, s).pairs_
    monkeypatch.setattr(network, "BLOCK_CELLS", 100)  # blocks of 2 columns
    blocked = PairProducts(n_pairs=6).fit(X, s).pairs_
    np.testing.assert_array_equal(blocked, whole)
    assert tuple(whole[0]) == (3, 31)


def test_a_pair_among_500_columns_is_screened_and_the_pairs_member_stays_in():
    # S = a XOR b among 500 columns (the pairs member was left out above 200 columns)
    rng = np.random.default_rng(5)
    n = 1000
    a, b = rng.integers(0, 2, (2, n))
    X = np.c_[rng.normal(size=(n, 200)), a, rng.normal(size=(n, 100)), b, rng.normal(size=(n, 198))]
    assert tuple(PairProducts(n_pairs=1).fit(X, a ^ b).pairs_[0]) == (200, 301)
    names, left_out = panel_members(2, read_release(X[:50]))
    assert "pairs" in names and "pairs" not in left_out


def test_a_product_of_three_columns_is_read():
    # S = sign(z1 z2 z3) among 12 N(0,1): S is a function of the release, I(S; T) = H(S);
    # no pair of columns tells anything (0.0 before the triples)
    rng = np.random.default_rng(6)
    z = rng.normal(size=(800, 12))
    s = (z[:, 1] * z[:, 4] * z[:, 9] > 0).astype(int)
    assert leakage_score(s, z, estimator="pairs") >= 0.3


class _Unnormalised(LogisticRegression):
    """Probabilities that sum to 0.5: a bound of H(S) + log 0.5 on any release, were it trusted."""

    def predict_proba(self, X):
        return 0.5 * super().predict_proba(X)


class _Counting(LogisticRegression):
    """Counts the rows it is fitted on and its predict_proba calls (class attributes)."""

    fitted_rows = []
    predictions = 0

    def fit(self, X, y):
        type(self).fitted_rows.append(len(y))
        return super().fit(X, y)

    def predict_proba(self, X):
        type(self).predictions += 1
        return super().predict_proba(X)


def test_a_users_adversary_whose_probabilities_are_not_a_distribution_is_named():
    rng = np.random.default_rng(7)
    s = rng.integers(0, 2, 1000)
    t = rng.normal(size=(1000, 2))
    with pytest.raises(ValueError, match=r"adversaries\['half'\]: predict_proba .* sums to 0.5"):
        leakage_score(s, t, adversaries={"half": _Unnormalised()})
    # tried on a slice of 200 rows first: an adversary that fails does so before the folds
    _Counting.fitted_rows = []
    leakage_score(s, t, adversaries={"count": _Counting()}, estimator="auto")
    assert _Counting.fitted_rows[0] == 200 and _Counting.fitted_rows[1:] == [800] * 5

    class Broken(LogisticRegression):
        def fit(self, X, y):
            raise RuntimeError("no")

    with pytest.raises(ValueError, match=r"adversaries\['broken'\] failed on a slice of 200"):
        leakage_score(s, t, adversaries={"broken": Broken()})


def test_a_users_adversary_reads_a_dataframe_as_given():
    # a ColumnTransformer by names works, and reads what the oracle reads fold by fold
    rng = np.random.default_rng(8)
    n = 300
    s = rng.integers(0, 2, n)
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": s + rng.normal(size=n)})
    mine = make_pipeline(make_column_transformer(("passthrough", ["b"])), LogisticRegression())
    estimate = leakage_score(s, frame, adversaries={"mine": mine}, return_details=True)
    assert estimate.estimates["mine"] == pytest.approx(_oracle_bound(mine, frame, s), abs=1e-9)


def test_huge_finite_values_and_empty_releases_are_answered():
    rng = np.random.default_rng(9)
    n = 400
    s = rng.integers(0, 2, n)
    t = np.c_[s + 0.1 * rng.normal(size=n), rng.normal(size=n)]
    t[0, 0] = 1.7e308
    assert leakage_score(s, t) >= 0.6
    assert leakage_score(s, t * 0 + 1.7e308) == 0.0  # a constant, however large
    empty = leakage_score(s, np.zeros((n, 0)), return_details=True)
    assert empty.value == 0.0 and "0 columns" in empty.left_out["every member"]
    assert leakage_score(s, sp.csr_matrix((n, 0))) == 0.0


def test_importances_grow_with_the_columns_that_matter(monkeypatch):
    # one leaking column among 64: a group test makes about 2 log2(64) + 1 = 13 predictions a
    # fold where shuffling each column alone makes 64; both find the leaking column
    rng = np.random.default_rng(10)
    n = 500
    s = rng.integers(0, 2, n)
    t = rng.normal(size=(n, 64))
    t[:, 37] += 2 * s
    h_s = entropy_from_samples(s)
    fits = []
    for train, test in heldout_folds(s, 5)[0]:
        fitted = _Counting().fit(t[train], s[train])
        proba = (1 - FLOOR) * fitted.predict_proba(t[test]) + FLOOR / 2
        fits.append((fitted, test, np.log(proba[np.arange(test.size), s[test]])))
    bound = h_s + sum(log_q.sum() for _, _, log_q in fits) / n
    names = [str(j) for j in range(64)]
    found = {}
    for single in (16, 64):
        monkeypatch.setattr(panel, "IMPORTANCE_SINGLE_COLUMNS", single)
        _Counting.predictions = 0
        found[single] = (panel.column_importance(fits, names, s, h_s, t), _Counting.predictions)
    (grouped, calls), (alone, all_calls) = found[16], found[64]
    assert all_calls == 5 * 64 and calls <= 5 * 20  # 13 blocks on the way to column 37
    assert next(iter(grouped)) == next(iter(alone)) == "37"
    assert grouped["37"] == pytest.approx(alone["37"], abs=0.05)
    assert grouped["37"] >= 0.8 * bound
    assert sum(value != 0 for value in grouped.values()) <= 13
