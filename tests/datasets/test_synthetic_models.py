"""The PPAN paper's synthetic models: exact distributions and samplers."""

import numpy as np
import pytest
from scipy import stats
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_privacy.datasets import (
    gaussian_model_covariance,
    make_gaussian_model,
    make_symmetric_pair,
    symmetric_pair_pmf,
)
from sklearn_privacy.information import (
    contingency_pmf,
    entropy,
    gaussian_mutual_information,
    mutual_information,
)

RHO = [0.47, 0.24, 0.85, 0.07, 0.66]


@pytest.mark.parametrize("m, p", [(10, 0.4), (2, 0.1), (3, 0.0), (4, 1.0), (7, 6 / 7)])
def test_symmetric_pair_pmf_matches_brute_force(m, p):
    pmf = symmetric_pair_pmf(m=m, p=p)
    for x in range(m):
        for y in range(m):
            assert pmf[x, y] == pytest.approx((1 - p) / m if x == y else p / (m * (m - 1)))
    assert pmf.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(pmf.sum(axis=0), 1 / m)
    np.testing.assert_allclose(pmf.sum(axis=1), 1 / m)
    # Mutual information r_m(p) = log m - p log(m - 1) - h2(p) (paper, after eq. 7).
    h2 = entropy([p, 1 - p])
    closed_form = np.log(m) - p * np.log(m - 1) - h2
    assert mutual_information(pmf) == pytest.approx(closed_form, abs=1e-12)


def test_symmetric_pair_sampler_converges():
    n, m, p = 200_000, 10, 0.4
    s, u = make_symmetric_pair(n, m=m, p=p, random_state=0)
    assert s.shape == u.shape == (n,) and s.dtype == u.dtype == np.int64
    assert s.min() == 0 and s.max() == m - 1
    counts = np.zeros((m, m))
    np.add.at(counts, (s, u), 1)
    expected = symmetric_pair_pmf(m, p) * n
    # Goodness of fit of the 100 cells, and each cell within 5 standard errors.
    assert stats.chisquare(counts.ravel(), expected.ravel()).pvalue > 1e-3
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected))
    assert np.mean(s != u) == pytest.approx(p, abs=5 * np.sqrt(p * (1 - p) / n))
    empirical = contingency_pmf(s, u)
    assert mutual_information(empirical) == pytest.approx(
        mutual_information(symmetric_pair_pmf(m, p)), abs=5e-3
    )


def test_symmetric_pair_sampler_random_state():
    a = make_symmetric_pair(50, random_state=3)
    b = make_symmetric_pair(50, random_state=np.random.RandomState(3))
    c = make_symmetric_pair(50, random_state=4)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    s, u = make_symmetric_pair(1000, m=5, p=0.0, random_state=0)
    np.testing.assert_array_equal(s, u)
    s, u = make_symmetric_pair(1000, m=5, p=1.0, random_state=0)
    assert np.all(s != u)


@pytest.mark.parametrize(
    "kwargs, name",
    [({"m": 1}, "'m'"), ({"p": 1.5}, "'p'"), ({"n_samples": 0}, "'n_samples'"),
     ({"random_state": "x"}, "'random_state'")],
)  # fmt: skip
def test_symmetric_pair_invalid_parameters(kwargs, name):
    params = {"n_samples": 10} | kwargs
    with pytest.raises(InvalidParameterError, match=name):
        make_symmetric_pair(**params)


def test_gaussian_model_covariances():
    scalar = gaussian_model_covariance("scalar")
    np.testing.assert_array_equal(scalar, [[1.0, 0.85], [0.85, 1.0]])
    vector = gaussian_model_covariance("vector")
    assert vector.shape == (10, 10)
    for i in range(10):
        for j in range(10):
            if i == j:
                expected = 1.0
            elif abs(i - j) == 5:
                expected = RHO[min(i, j)]
            else:
                expected = 0.0
            assert vector[i, j] == expected
    rd = gaussian_model_covariance("rate_distortion")
    variances = [0.47, 0.24, 0.85, 0.07, 0.66]
    np.testing.assert_array_equal(rd[:5, :5], np.diag(variances))
    np.testing.assert_array_equal(rd[:5, 5:], np.diag(variances))
    np.testing.assert_array_equal(rd[5:, 5:], np.diag(variances))
    assert np.linalg.matrix_rank(rd) == 5
    for cov in (scalar, vector, rd):
        np.testing.assert_array_equal(cov, cov.T)
        assert np.linalg.eigvalsh(cov).min() > -1e-12
    # I(X; Y) in closed form: sum of -0.5 log(1 - rho_i^2).
    closed = sum(-0.5 * np.log(1 - r**2) for r in RHO)
    assert gaussian_mutual_information(vector, range(5), range(5, 10)) == pytest.approx(closed)
    assert gaussian_mutual_information(scalar, [0], [1]) == pytest.approx(
        -0.5 * np.log(1 - 0.85**2)
    )


@pytest.mark.parametrize("model, d", [("scalar", 1), ("vector", 5), ("rate_distortion", 5)])
def test_gaussian_sampler_converges(model, d):
    n = 100_000
    s, u = make_gaussian_model(n, model=model, random_state=0)
    assert s.shape == u.shape == (n, d)
    joint = np.hstack([s, u])
    cov = gaussian_model_covariance(model)
    empirical = joint.T @ joint / n  # zero mean is known
    # Standard error of a second moment of a Gaussian: sqrt((S_ii S_jj + S_ij^2) / n).
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / n)
    assert np.all(np.abs(empirical - cov) < 5 * se)
    assert np.all(np.abs(joint.mean(axis=0)) < 5 * np.sqrt(np.diag(cov) / n))
    if model == "rate_distortion":
        np.testing.assert_array_equal(s, u)


def test_gaussian_sampler_random_state_and_validation():
    a = make_gaussian_model(20, random_state=1)
    b = make_gaussian_model(20, random_state=1)
    np.testing.assert_array_equal(a[1], b[1])
    with pytest.raises(InvalidParameterError, match="'model'"):
        make_gaussian_model(20, model="matrix")
    with pytest.raises(InvalidParameterError, match="'model'"):
        gaussian_model_covariance("matrix")
