import numpy as np
import pytest
from dp_accounting.gaussian_mechanism import get_epsilon_gaussian, get_sigma_gaussian
from scipy import integrate, stats

from sklearn_privacy.dp import (
    approximate_gaussian_epsilon,
    classical_gaussian_sigma,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_max_sensitivity,
    gaussian_sigma,
)

EPSILONS = [0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0]
DELTAS = [1e-2, 1e-5, 1e-9, 1e-14]


def pld_log_delta(epsilon, mean, std):
    """log delta(epsilon) = log E[(1 - exp(epsilon - L))_+] for L ~ N(mean, std^2).

    Integrated with scipy.quad after factoring out the density at epsilon, so
    that tails of 1e-300 keep their relative precision.
    """
    z0 = (epsilon - mean) / std

    def scaled(u):
        # phi(epsilon + u) / phi(epsilon), with L measured in units of std.
        log_ratio = -(u * u + 2 * u * z0 * std) / (2 * std * std)
        return -np.expm1(-u) * np.exp(log_ratio)

    width = max(50.0 * std, 50.0)
    cut = min(width, max(1.0, 40.0 * std * std / max(abs(z0 * std), 1e-300) if z0 > 0 else width))
    val, _ = integrate.quad(scaled, 0.0, cut, epsabs=0.0, epsrel=1e-13, limit=500)
    if cut < width:
        tail, _ = integrate.quad(scaled, cut, width, epsabs=0.0, epsrel=1e-13, limit=500)
        val += tail
    return stats.norm.logpdf(z0) - np.log(std) + np.log(val)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("delta", DELTAS)
def test_gaussian_sigma_matches_dp_accounting(epsilon, delta):
    sigma = gaussian_sigma(epsilon, delta)
    assert sigma == pytest.approx(get_sigma_gaussian(epsilon, delta, tol=1e-15), rel=1e-9)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("delta", DELTAS)
def test_gaussian_sigma_matches_direct_pld_integration(epsilon, delta):
    sensitivity = 2.5
    sigma = gaussian_sigma(epsilon, delta, sensitivity)
    mu = sensitivity / sigma
    # privacy loss of N(0, s^2) vs N(Delta, s^2) is N(mu^2 / 2, mu^2)
    log_delta = pld_log_delta(epsilon, mu**2 / 2, mu)
    assert log_delta == pytest.approx(np.log(delta), rel=1e-8, abs=1e-8)
    assert gaussian_delta(epsilon, sigma, sensitivity) == pytest.approx(delta, rel=1e-9)


@pytest.mark.parametrize("sigma", [0.05, 0.3, 1.0, 4.0, 50.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-7, 1e-12])
def test_gaussian_epsilon_inverts_delta_and_matches_dp_accounting(sigma, delta):
    eps = gaussian_epsilon(sigma, delta)
    assert eps == pytest.approx(get_epsilon_gaussian(sigma, delta, tol=1e-15), rel=1e-9, abs=1e-12)
    if eps > 0:
        assert gaussian_delta(eps, sigma) == pytest.approx(delta, rel=1e-9)
        assert gaussian_sigma(eps, delta) == pytest.approx(sigma, rel=1e-9)


def test_gaussian_epsilon_zero_when_noise_is_huge():
    assert gaussian_epsilon(1e4, 0.5) == 0.0


def test_gaussian_delta_known_value_and_monotone():
    # epsilon = 0: delta = 2 Phi(mu / 2) - 1 (total variation)
    assert gaussian_delta(0.0, 1.0) == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-12)
    d = [gaussian_delta(e, 1.0) for e in [0.0, 0.5, 1.0, 2.0, 4.0]]
    assert np.all(np.diff(d) < 0)


def test_max_sensitivity_is_inverse_sigma():
    assert gaussian_max_sensitivity(2.0, 1e-6) * gaussian_sigma(2.0, 1e-6) == pytest.approx(1.0)


@pytest.mark.parametrize("epsilon", [0.05, 0.3, 0.9])
@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_classical_bound_is_valid_and_looser(epsilon, delta):
    sigma = classical_gaussian_sigma(epsilon, delta)
    assert sigma >= gaussian_sigma(epsilon, delta)
    assert gaussian_delta(epsilon, sigma) <= delta


@pytest.mark.parametrize("sigma", [0.2, 1.0, 5.0])
@pytest.mark.parametrize("delta", [1e-4, 1e-6])
def test_approximate_epsilon_is_sufficient(sigma, delta):
    # thesis Thm. 5.4.1: a sufficient condition, so never below the exact epsilon
    eps = approximate_gaussian_epsilon(sigma, delta)
    assert eps >= gaussian_epsilon(sigma, delta)
    assert gaussian_delta(eps, sigma) <= delta * (1 + 1e-12)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: gaussian_sigma(0.0, 1e-5), "epsilon"),
        (lambda: gaussian_sigma(-1.0, 1e-5), "epsilon"),
        (lambda: gaussian_sigma(1.0, 0.0), "delta"),
        (lambda: gaussian_sigma(1.0, 1.0), "delta"),
        (lambda: gaussian_sigma(1.0, 1e-5, sensitivity=0.0), "sensitivity"),
        (lambda: gaussian_epsilon(0.0, 1e-5), "sigma"),
        (lambda: gaussian_delta(-0.1, 1.0), "epsilon"),
        (lambda: classical_gaussian_sigma(1.5, 1e-5), "epsilon"),
    ],
)
def test_out_of_range_parameters_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()
