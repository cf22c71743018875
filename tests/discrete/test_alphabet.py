"""Tests of the shared alphabet encoding."""

import numpy as np
import pandas as pd
import pytest

from sklearn_privacy.discrete._alphabet import CategoricalAlphabet, empirical_joint
from sklearn_privacy.information import contingency_pmf


def test_alphabet_joint_symbols_roundtrip():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 200), rng.choice(["u", "v"], 200)]).astype(object)
    X[:, 0] = X[:, 0].astype(int)
    alphabet = CategoricalAlphabet()
    codes = alphabet.fit_encode(X)
    assert alphabet.n_symbols_ == len({tuple(r) for r in X.tolist()})
    np.testing.assert_array_equal(alphabet.decode(codes), X)
    np.testing.assert_array_equal(alphabet.encode(X), codes)
    np.testing.assert_array_equal(alphabet.counts_, np.bincount(codes))


def test_alphabet_numeric_and_dataframe():
    df = pd.DataFrame({"a": [1.0, 2.0, 1.0, 3.0], "b": [5, 5, 6, 6]})
    alphabet = CategoricalAlphabet()
    codes = alphabet.fit_encode(df)
    assert alphabet.n_symbols_ == 4
    np.testing.assert_array_equal(alphabet.decode(codes), df.to_numpy())


def test_alphabet_large_radix_fallback():
    # 7 columns of 500 categories: the mixed-radix key could overflow int64.
    X = np.repeat(np.arange(500)[:, None], 7, axis=1)  # 7 columns of 500 categories
    X = np.vstack([X, X])
    alphabet = CategoricalAlphabet(max_categories=None)
    codes = alphabet.fit_encode(X)
    assert alphabet._symbol_keys is None
    assert alphabet.n_symbols_ == 500
    np.testing.assert_array_equal(alphabet.encode(X), codes)
    with pytest.raises(ValueError, match="not seen at fit"):
        alphabet.encode([[0, 1, 1, 1, 1, 1, 1]])


def test_alphabet_too_many_categories_names_column():
    X = np.column_stack([np.arange(300) * 0.37, np.zeros(300)])
    with pytest.raises(ValueError, match=r"column 'chol' of X has 300 distinct values.*continuous"):
        CategoricalAlphabet(feature_names=["chol", "sex"]).fit(X)


def test_alphabet_unknown_error_and_nearest():
    X = np.array([[0, 0], [0, 1], [1, 1], [1, 1], [2, 2]])
    alphabet = CategoricalAlphabet().fit(X)
    with pytest.raises(ValueError, match=r"unseen value\(s\) in column 1"):
        alphabet.encode([[0, 5]])
    with pytest.raises(ValueError, match="not this combination"):
        alphabet.encode([[2, 0]])
    near = CategoricalAlphabet(handle_unknown="nearest").fit(X)
    # [2, 0]: agrees on one column with [0,0] (count 1) and [2,2] (count 1) -> first: [0,0].
    # [9, 1]: agrees with [0,1] (count 1) and [1,1] (count 2) -> most frequent [1,1].
    # [9, 9]: agrees with nothing -> most frequent symbol [1,1].
    codes = near.encode([[2, 0], [9, 1], [9, 9], [0, 1]])
    np.testing.assert_array_equal(near.decode(codes), [[0, 0], [1, 1], [1, 1], [0, 1]])


def test_alphabet_missing_and_mixed_types():
    with pytest.raises(ValueError, match="missing"):
        CategoricalAlphabet().fit(np.array([["a"], [None]], dtype=object))
    with pytest.raises(TypeError, match="mixes types"):
        CategoricalAlphabet().fit(np.array([["a"], [1]], dtype=object))
    with pytest.raises(ValueError, match="handle_unknown"):
        CategoricalAlphabet(handle_unknown="ignore").fit([[1], [2]])


def test_empirical_joint_matches_contingency_and_smoothing():
    rng = np.random.default_rng(2)
    s = rng.integers(0, 3, 500)
    x = rng.integers(0, 5, 500)
    np.testing.assert_allclose(empirical_joint(s, x, 3, 5), contingency_pmf(s, x), atol=1e-15)
    smoothed = empirical_joint(s, x, 3, 5, smoothing=0.5)
    counts = contingency_pmf(s, x) * 500 + 0.5
    np.testing.assert_allclose(smoothed, counts / counts.sum())
    with pytest.raises(ValueError, match="smoothing"):
        empirical_joint(s, x, 3, 5, smoothing=-1)
