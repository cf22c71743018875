"""The normal scores by one sort and one pass: scikit-learn's and numpy's, to the bit (issue 49)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.preprocessing import QuantileTransformer

from sklearn_privacy.estimation._quantiles import SortedQuantileTransformer, sorted_percentiles


def _columns(rng, n):
    """Gaussian, three codes, a long tail of large values, values tied to one decimal."""
    return np.c_[
        rng.normal(size=n),
        rng.integers(0, 3, n),
        rng.exponential(size=n) * 1e5,
        np.round(rng.normal(size=n), 1),
    ]


@pytest.mark.parametrize("n", [2, 3, 7, 999, 1000, 1001, 2000])
@pytest.mark.parametrize("n_quantiles", [2, 10, 1000])
def test_the_quantiles_and_scores_are_scikit_learns(n, n_quantiles):
    rng = np.random.default_rng(n * n_quantiles)
    X = _columns(rng, n)
    percentiles = np.linspace(0, 1, n_quantiles) * 100
    np.testing.assert_array_equal(
        sorted_percentiles(X, percentiles), np.nanpercentile(X, percentiles, axis=0)
    )
    params = {"n_quantiles": min(n_quantiles, n), "output_distribution": "normal"}
    theirs = QuantileTransformer(**params).fit(X)
    ours = SortedQuantileTransformer(**params).fit(X)
    np.testing.assert_array_equal(ours.quantiles_, theirs.quantiles_)
    new = _columns(rng, 50)
    new = np.r_[new, 10 * new, X[:5]]  # beyond the fitted quantiles, and on them
    np.testing.assert_array_equal(ours.transform(new), theirs.transform(new))
    np.testing.assert_array_equal(ours.inverse_transform(new), theirs.inverse_transform(new))


def test_missing_values_and_subsamples_take_scikit_learns_fit():
    rng = np.random.default_rng(0)
    X = _columns(rng, 300)
    X[::7, 0] = np.nan
    params = {"n_quantiles": 100, "subsample": 200, "random_state": 0}
    for options in ({"n_quantiles": 100}, params):
        ours = SortedQuantileTransformer(**options).fit(X)
        np.testing.assert_array_equal(
            ours.quantiles_, QuantileTransformer(**options).fit(X).quantiles_
        )
    assert clone(SortedQuantileTransformer(n_quantiles=5)).get_params()["n_quantiles"] == 5
