"""The sample estimates of ``I(S; T)`` behind ``metrics.leakage_score`` and PPAN's estimate."""

import numpy as np
import pytest

from sklearn_privacy.estimation._sample_estimators import (
    check_pair,
    estimate_leakage,
    is_discrete,
)
from sklearn_privacy.metrics import LeakageEstimate, leakage_score


def test_plugin_of_a_release_equal_to_s_is_the_entropy_of_s():
    s = np.array([0, 0, 1, 1, 1, 2])
    p = np.array([2, 3, 1]) / 6
    estimate = estimate_leakage(s, s.reshape(-1, 1), estimator="plugin")
    assert isinstance(estimate, LeakageEstimate)
    assert estimate.value == pytest.approx(-np.sum(p * np.log(p)), abs=1e-12)
    assert estimate.entropy == pytest.approx(-np.sum(p * np.log(p)), abs=1e-12)
    assert (estimate.estimator, estimate.folds) == ("plugin", "")


def test_a_continuous_s_reads_the_gaussian_model_by_name():
    """``gaussian`` on a continuous S: ``-log(1 - r^2) / 2`` of the sample correlation."""
    rng = np.random.default_rng(0)
    s = rng.normal(size=500)
    t = 0.8 * s + 0.6 * rng.normal(size=500)
    r = np.corrcoef(s, t)[0, 1]
    estimate = estimate_leakage(s, t.reshape(-1, 1), estimator="gaussian")
    assert estimate.estimator == "gaussian" and estimate.entropy == np.inf
    assert estimate.value == pytest.approx(-0.5 * np.log(1 - r**2), rel=1e-9)


def test_it_is_the_scorer_facing_estimate():
    """``metrics.leakage_score`` only validates and calls it (PPAN calls it directly)."""
    rng = np.random.default_rng(1)
    s = rng.integers(0, 2, 200)
    release = np.c_[s + rng.normal(size=200), rng.normal(size=200)]
    direct = estimate_leakage(s, release)
    assert leakage_score(s, release) == direct.value
    assert leakage_score(s, release, return_details=True).estimates == direct.estimates


@pytest.mark.parametrize(
    "sensitive, release, match",
    [
        ([0, 1, 0], [[0], [1]], "sensitive has 3 rows but the release has 2"),
        ([0], [[0]], "sensitive needs at least 2 samples"),
        ([0, 1], [[0]], "release needs at least 2 samples"),
        ([0.0, np.nan], [[0], [1]], r"sensitive contains NaN or infinite values \(in row 1\)"),
        ([0, 1], [[np.inf], [1.0]], "release contains missing"),
        ([0, 1], np.array([[None], ["a"]], dtype=object), "release contains missing values"),
    ],
)
def test_check_pair_refuses(sensitive, release, match):
    with pytest.raises(ValueError, match=match):
        check_pair(sensitive, release)


def test_check_pair_allows_a_constant_s():
    """A single value of S is a leakage of 0, not an error."""
    s, release = check_pair([1, 1, 1], [0.5, 0.1, 0.2])
    assert s.shape == release.shape == (3, 1)
    assert estimate_leakage(s, release).value == 0.0


@pytest.mark.parametrize(
    "release, expected",
    [
        (np.eye(3), True),  # integers
        (np.array([["a"], ["b"]]), True),  # not numbers
        (np.arange(100) % 3 + 0.5, True),  # 3 distinct rows of 100: at most n / 10
        (np.arange(100) % 11 + 0.5, False),  # 11 distinct rows of 100
        (np.array([0.5, np.nan]), False),
    ],
)
def test_is_discrete(release, expected):
    assert is_discrete(release) is expected
