import numpy as np
import pytest
from scipy.linalg import fractional_matrix_power
from scipy.stats import multivariate_normal

from sklearn_privacy.information import (
    gaussian_channel_rate,
    gaussian_entropy,
    gaussian_mutual_information,
    gaussian_mutual_information_from_correlation,
)


@pytest.mark.parametrize("rho", [0.0, 0.3, -0.7, 0.99])
def test_bivariate_closed_form(rho):
    cov = np.array([[2.0, rho * np.sqrt(6)], [rho * np.sqrt(6), 3.0]])
    assert gaussian_mutual_information(cov, [0], [1]) == pytest.approx(
        0.5 * np.log(1 / (1 - rho**2)), abs=1e-12
    )


def test_entropy_matches_scipy():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 4))
    cov = a @ a.T + np.eye(4)
    assert gaussian_entropy(cov) == pytest.approx(multivariate_normal(cov=cov).entropy(), abs=1e-12)


def test_mutual_information_is_entropy_difference():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(5, 5))
    cov = a @ a.T + 0.5 * np.eye(5)
    A, B = [0, 2], [1, 3, 4]
    expected = (
        gaussian_entropy(cov[np.ix_(A, A)])
        + gaussian_entropy(cov[np.ix_(B, B)])
        - gaussian_entropy(cov)
    )
    assert gaussian_mutual_information(cov, A, B) == pytest.approx(expected, abs=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="singular"):
        gaussian_mutual_information(np.ones((2, 2)), [0], [1])
    with pytest.raises(ValueError, match="disjoint"):
        gaussian_mutual_information(np.eye(2), [0], [0])
    with pytest.raises(ValueError, match="symmetric"):
        gaussian_entropy([[1.0, 0.5], [0.0, 1.0]])
    with pytest.raises(ValueError, match="square"):
        gaussian_entropy(np.ones(3))


@pytest.mark.parametrize("seed", range(4))
def test_channel_rate_is_the_mutual_information_of_parallel_channels(seed):
    # T_i = X_i + Z_i, independent components: I(X; T) from the joint covariance.
    rng = np.random.default_rng(seed)
    signal = rng.gamma(1.0, 2.0, size=4)
    noise = rng.gamma(1.0, 1.0, size=4)
    cov = np.block([[np.diag(signal), np.diag(signal)], [np.diag(signal), np.diag(signal + noise)]])
    expected = gaussian_mutual_information(cov, range(4), range(4, 8))
    assert gaussian_channel_rate(signal / noise) == pytest.approx(expected, abs=1e-12)


def test_channel_rate_closed_form_axes_and_limits():
    snr = np.array([[0.0, 1.0, 3.0], [np.e**2 - 1, 0.0, 0.0]])
    assert gaussian_channel_rate(snr) == pytest.approx(0.5 * np.log(2 * 4) + 1.0, abs=1e-15)
    np.testing.assert_allclose(gaussian_channel_rate(snr, axis=-1), [0.5 * np.log(8), 1.0])
    np.testing.assert_allclose(gaussian_channel_rate(snr, axis=()), 0.5 * np.log1p(snr))
    assert isinstance(gaussian_channel_rate(2.0), float)
    assert gaussian_channel_rate(1e-300) == pytest.approx(0.5e-300, rel=1e-15)
    assert gaussian_channel_rate([np.inf, 1.0]) == np.inf
    with pytest.raises(ValueError, match="snr"):
        gaussian_channel_rate([1.0, -0.1])
    with pytest.raises(ValueError, match="snr"):
        gaussian_channel_rate(np.nan)


@pytest.mark.parametrize("seed", range(4))
def test_correlation_form_matches_covariance_form(seed):
    # Canonical correlations (singular values of the whitened cross-covariance)
    # of random Gaussian vectors: their informations add up to I(A; B).
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(5, 5))
    cov = m @ m.T + 0.3 * np.eye(5)
    A, B = [0, 1], [2, 3, 4]
    left = fractional_matrix_power(cov[np.ix_(A, A)], -0.5)
    right = fractional_matrix_power(cov[np.ix_(B, B)], -0.5)
    whitened = left @ cov[np.ix_(A, B)] @ right
    rho = np.linalg.svd(whitened, compute_uv=False)
    assert gaussian_mutual_information_from_correlation(rho) == pytest.approx(
        gaussian_mutual_information(cov, A, B), abs=1e-10
    )


def test_correlation_form_closed_form_axes_and_limits():
    rho = np.array([0.0, -0.6, 0.6, 1e-9])
    values = gaussian_mutual_information_from_correlation(rho, axis=())
    np.testing.assert_allclose(values[:3], [0.0, -0.5 * np.log(0.64), -0.5 * np.log(0.64)])
    assert values[3] == pytest.approx(0.5e-18, rel=1e-12)
    assert gaussian_mutual_information_from_correlation(rho) == pytest.approx(values.sum())
    assert gaussian_mutual_information_from_correlation(-1.0) == np.inf
    with pytest.raises(ValueError, match="rho"):
        gaussian_mutual_information_from_correlation(1.01)
    with pytest.raises(ValueError, match="rho"):
        gaussian_mutual_information_from_correlation([0.1, np.nan])
