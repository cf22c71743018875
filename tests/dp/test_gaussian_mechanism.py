import numpy as np
import pytest
from dp_accounting.gaussian_mechanism import get_epsilon_gaussian, get_sigma_gaussian
from scipy import integrate, stats
from scipy.special import log_ndtr

from sklearn_privacy.dp import (
    approximate_gaussian_epsilon,
    classical_gaussian_sigma,
    gaussian_delta,
    gaussian_dp_delta_from_mu,
    gaussian_dp_epsilon_from_mu,
    gaussian_dp_mu,
    gaussian_epsilon,
    gaussian_max_sensitivity,
    gaussian_sigma,
)
from sklearn_privacy.dp._gaussian_mechanism import _log_delta

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


# --------------------------------------------------------------------------------------
# Wide ranges and extremes (issue 8): correct answers or clear errors everywhere.

WIDE_EPSILONS = [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4]
WIDE_DELTAS = [0.5, 1e-2, 1e-10, 1e-30, 1e-100, 1e-200, 1e-300]


def log_delta_mpmath(epsilon, mu):
    """log delta(epsilon, mu) in mpmath, with enough digits for the cancellation."""
    mp = pytest.importorskip("mpmath")
    # digits lost: delta / Phi(a) ~ mu^2 / epsilon or mu, and exp(epsilon) Phi(b) needs
    # epsilon to the last unit
    log10_eps = np.log10(max(epsilon, 1e-300))
    digits = max(0.0, log10_eps - 2 * np.log10(mu), -np.log10(mu), log10_eps)
    with mp.workdps(60 + int(digits)):
        eps, m = mp.mpf(epsilon), mp.mpf(mu)
        value = mp.ncdf(m / 2 - eps / m) - mp.exp(eps) * mp.ncdf(-m / 2 - eps / m)
        return mp.log(value)


def ulp_sensitivity(epsilon, mu):
    """Relative change of delta(epsilon, mu) when epsilon moves by one float spacing."""
    slope = np.exp(epsilon + log_ndtr(-mu / 2 - epsilon / mu) - _log_delta(epsilon, mu))
    return slope * np.spacing(epsilon)


@pytest.mark.parametrize("epsilon", WIDE_EPSILONS)
@pytest.mark.parametrize("delta", WIDE_DELTAS)
def test_gaussian_sigma_matches_dp_accounting_wide(epsilon, delta):
    # dp_accounting's log-space formula cancels for small mu; from epsilon = 1e-3 it
    # agrees with an mpmath evaluation to 1e-10 down to delta = 1e-300.
    sigma = gaussian_sigma(epsilon, delta)
    assert sigma == pytest.approx(get_sigma_gaussian(epsilon, delta, tol=1e-15), rel=1e-9)


@pytest.mark.parametrize("epsilon", WIDE_EPSILONS[2:])
@pytest.mark.parametrize("delta", WIDE_DELTAS)
def test_gaussian_sigma_matches_direct_pld_integration_wide(epsilon, delta):
    # the quadrature oracle keeps 1e-13 relative precision (and converges) from epsilon = 0.1
    sigma = gaussian_sigma(epsilon, delta, 2.5)
    mu = 2.5 / sigma
    assert pld_log_delta(epsilon, mu**2 / 2, mu) == pytest.approx(np.log(delta), rel=1e-11)
    assert gaussian_delta(epsilon, sigma, 2.5) == pytest.approx(delta, rel=1e-10)


@pytest.mark.parametrize("log10_mu", [-300, -200, -100, -30, -12, -6, -2, 0, 1, 3, 6, 10, 12])
def test_gaussian_delta_matches_mpmath_over_the_whole_range(log10_mu):
    # delta to 1e-12 relative where it is a normal float, log delta to ~1e-15 below.
    # (Above mu ~ 1e13 no float epsilon lands near mu^2 / 2: delta is 1 or underflows.)
    mu = 10.0**log10_mu
    epsilons = [0.0, mu * mu / 2] + [
        max(mu * z + mu * mu / 2, 0.0) for z in (-3.0, -0.5, 0.0, 0.5, 2.0, 8.0, 20.0, 37.0, 60.0)
    ]
    epsilons += [e for e in (1e-300, 1e-12, 1e-3, 1.0, 1e3, 1e6) if e / mu < 1e7]
    for epsilon in epsilons:
        ref = float(log_delta_mpmath(epsilon, mu))
        ours = _log_delta(epsilon, mu)
        if ref == -np.inf:
            assert ours == -np.inf
            continue
        assert ours == pytest.approx(ref, rel=2e-15, abs=1e-12), (epsilon, mu)
        if ref > np.log(1e-300):
            assert gaussian_dp_delta_from_mu(epsilon, mu) == pytest.approx(np.exp(ref), rel=1e-12)


def test_gaussian_epsilon_roundtrip_on_a_log_grid():
    # delta(epsilon(delta)) = delta to 1e-9, or to what one float step of epsilon moves
    # delta where that is coarser (|d log delta / d log epsilon| ~ 1e7 at mu = 1e6, tiny
    # delta); and never above delta: epsilon is rounded up to the next float that holds.
    worst = 0.0
    for k, mu in enumerate(np.geomspace(1e-6, 1e6, 25)):
        sigma = 10.0 ** ((k % 7) * 40 - 120)  # the same mu at many scales
        sensitivity = mu * sigma
        for delta in np.geomspace(1e-300, 1e-1, 31):
            epsilon = gaussian_epsilon(sigma, delta, sensitivity)
            assert np.isfinite(epsilon) and epsilon >= 0
            mu_used = sensitivity / sigma
            if epsilon == 0.0:
                assert gaussian_delta(0.0, sigma, sensitivity) <= delta
                continue
            assert _log_delta(epsilon, mu_used) <= np.log(delta)
            got = gaussian_delta(epsilon, sigma, sensitivity)
            rel = abs(got / delta - 1)
            assert rel <= 1e-9 + ulp_sensitivity(epsilon, mu_used), (mu, delta, epsilon)
            worst = max(worst, rel)
    assert worst < 3e-9


def test_gaussian_epsilon_matches_mpmath_at_extremes():
    # the exact delta of the returned epsilon (mpmath) is the target to 1e-12, or to
    # one float step of epsilon
    for mu in [1e-6, 1e-3, 0.3, 7.0, 300.0, 1e6]:
        for delta in [1e-1, 1e-20, 1e-150, 1e-300]:
            epsilon = gaussian_dp_epsilon_from_mu(mu, delta)
            if epsilon == 0.0:
                continue
            err = abs(np.expm1(float(log_delta_mpmath(epsilon, mu)) - np.log(delta)))
            assert err <= 1e-12 + ulp_sensitivity(epsilon, mu), (mu, delta)


@pytest.mark.filterwarnings("error")
def test_gaussian_delta_extreme_grid_is_finite_and_monotone():
    sigmas = np.geomspace(1e-300, 1e300, 13)
    epsilons = np.r_[0.0, np.geomspace(1e-12, 1e6, 10)]
    d = np.array(
        [[[gaussian_delta(e, s, sens) for e in epsilons] for sens in sigmas] for s in sigmas]
    )
    assert np.all(np.isfinite(d)) and d.min() >= 0.0 and d.max() <= 1.0
    assert np.all(np.diff(d, axis=2) <= 0)  # decreasing in epsilon
    assert np.all(np.diff(d, axis=0) <= 0)  # decreasing in sigma
    assert np.all(np.diff(d, axis=1) >= 0)  # increasing in sensitivity
    # mu = 1e600 gives delta = 1 and mu = 1e-600 gives delta = 0 (below the float range)
    assert d[0, -1, :].tolist() == [1.0] * len(epsilons)
    assert d[-1, 0, :].tolist() == [0.0] * len(epsilons)


@pytest.mark.filterwarnings("error")
def test_gaussian_epsilon_extreme_grid_is_monotone_and_inf_only_without_finite_answer():
    log10 = np.arange(-300, 301, 50)
    deltas = np.r_[np.geomspace(1e-300, 1e-1, 9), 0.5, 0.9, 1 - 1e-8, 1 - 1e-16]
    eps = np.array(
        [[[gaussian_epsilon(10.0**s, d, 10.0**t) for d in deltas] for t in log10] for s in log10]
    )
    assert not np.any(np.isnan(eps)) and eps.min() >= 0.0
    assert np.all(eps[:, :, 1:] <= eps[:, :, :-1])  # decreasing in delta
    assert np.all(eps[1:] <= eps[:-1])  # decreasing in sigma
    assert np.all(eps[:, 1:] >= eps[:, :-1])  # increasing in sensitivity
    # epsilon ~ mu^2 / 2 exceeds the largest float once mu > ~1.9e154: inf exactly there
    log10_mu = log10[None, :] - log10[:, None]
    assert np.all(np.isinf(eps[log10_mu > 154]))
    assert np.all(np.isfinite(eps[log10_mu < 154]))
    assert np.all(eps[log10_mu <= -50] < 1e-40)  # ~ mu * Phi^-1(1 - delta)


@pytest.mark.filterwarnings("error")
def test_gaussian_sigma_grid_is_finite_monotone_and_exact():
    epsilons = np.geomspace(1e-8, 1e4, 25)
    deltas = np.geomspace(1e-300, 0.5, 31)
    sigma = np.array([[gaussian_sigma(e, d) for d in deltas] for e in epsilons])
    assert np.all(np.isfinite(sigma)) and np.all(sigma > 0)
    assert np.all(np.diff(sigma, axis=0) < 0) and np.all(np.diff(sigma, axis=1) < 0)
    for i, epsilon in enumerate(epsilons):
        for j, delta in enumerate(deltas):
            assert gaussian_delta(epsilon, sigma[i, j]) == pytest.approx(delta, rel=1e-10)


@pytest.mark.filterwarnings("error")
def test_gaussian_dp_mu_extreme_grid():
    # epsilon from 1e-300 (mu* is then mu*(0) up to rounding) to 1e6, delta up to 1 - 1e-16
    epsilons = np.r_[0.0, np.geomspace(1e-300, 1e-9, 6), np.geomspace(1e-8, 1e6, 15)]
    deltas = np.r_[np.geomspace(1e-300, 0.5, 13), 0.9, 1 - 1e-8, 1 - 1e-16]
    mu = np.array([[gaussian_dp_mu(e, d) for d in deltas] for e in epsilons])
    assert np.all(np.isfinite(mu)) and np.all(mu > 0)
    # increasing in both, up to the rounding of log delta (|log delta| * 2^-52)
    assert np.all(mu[1:] >= mu[:-1] * (1 - 1e-13))
    assert np.all(mu[:, 1:] > mu[:, :-1])
    for i, epsilon in enumerate(epsilons):
        for j, delta in enumerate(deltas[:13]):
            assert gaussian_dp_delta_from_mu(epsilon, mu[i, j]) == pytest.approx(delta, rel=1e-10)


def test_gaussian_dp_mu_near_delta_one_is_accurate_in_one_minus_delta():
    mp = pytest.importorskip("mpmath")
    for epsilon in [0.0, 1e-6, 1.0, 100.0]:
        for delta in [0.9, 1 - 1e-8, 1 - 1e-16]:
            mu = gaussian_dp_mu(epsilon, delta)
            with mp.workdps(60):
                m, e = mp.mpf(mu), mp.mpf(epsilon)
                one_minus = mp.ncdf(e / m - m / 2) + mp.exp(e) * mp.ncdf(-m / 2 - e / m)
            assert float(one_minus) == pytest.approx(1 - delta, rel=1e-9), (epsilon, delta)


@pytest.mark.filterwarnings("error")
def test_reported_failures_at_extremes():
    # mu = 1e300: no privacy, delta = 1 (raised OverflowError / warned before)
    assert gaussian_delta(5, 1e-300) == 1.0
    assert gaussian_delta(5, 1e-300, 1e300) == 1.0
    # mu = 1e300: epsilon ~ 5e599 is not a float (NaN inside brentq before)
    assert gaussian_epsilon(1e-300, 1e-5) == np.inf
    # ... while mu = 1e154 still has its finite epsilon ~ mu^2 / 2
    assert gaussian_epsilon(1e-154, 1e-5) == pytest.approx(0.5e308, rel=1e-6)
    # mu = 1e-300: delta(0) = mu / sqrt(2 pi), epsilon 0
    assert gaussian_delta(0.0, 1e300) == pytest.approx(1e-300 / np.sqrt(2 * np.pi), rel=1e-14)
    assert gaussian_epsilon(1e300, 1e-300) == 0.0
    assert gaussian_epsilon(1e300, 1e-300, 1e-300) == 0.0
    # tiny epsilon, tiny delta: the old bracket lost 2% of delta
    sigma = gaussian_sigma(1e-8, 1e-300)
    assert float(log_delta_mpmath(1e-8, 1 / sigma)) == pytest.approx(np.log(1e-300), rel=1e-14)
    assert gaussian_sigma(1e4, 0.5) == pytest.approx(1 / np.sqrt(2e4), rel=1e-4)
    assert gaussian_sigma(1e4, 0.5, 1e-300) == pytest.approx(gaussian_sigma(1e4, 0.5) * 1e-300)
    # sigma = 3.6e309 is not a float: a clear error, not inf
    with pytest.raises(ValueError, match="not a positive float"):
        gaussian_sigma(1e-8, 1e-300, sensitivity=1e300)


def test_gaussian_dp_mu_functions_agree_with_the_sigma_functions():
    for epsilon, delta in [(0.1, 1e-3), (1.0, 1e-5), (8.0, 1e-12), (300.0, 1e-100)]:
        mu = gaussian_dp_mu(epsilon, delta)
        assert mu == pytest.approx(1 / gaussian_sigma(epsilon, delta), rel=1e-14)
        assert mu == pytest.approx(gaussian_max_sensitivity(epsilon, delta), rel=1e-15)
        assert gaussian_dp_epsilon_from_mu(mu, delta) == pytest.approx(epsilon, rel=1e-9)
        assert gaussian_dp_delta_from_mu(epsilon, mu) == pytest.approx(delta, rel=1e-10)
        for sigma in [1e-200, 1.0, 1e200]:
            assert gaussian_dp_delta_from_mu(epsilon, mu) == pytest.approx(
                gaussian_delta(epsilon, sigma, mu * sigma), rel=1e-13
            )
            assert gaussian_dp_epsilon_from_mu(mu, delta) == pytest.approx(
                gaussian_epsilon(sigma, delta, mu * sigma), rel=1e-9
            )


def test_gaussian_dp_mu_at_epsilon_zero_is_total_variation():
    from scipy.special import erfinv

    for delta in [1e-300, 1e-5, 0.3, 0.5, 0.99, 1 - 1e-16]:
        mu = gaussian_dp_mu(0.0, delta)
        assert mu == pytest.approx(2 * np.sqrt(2) * erfinv(delta), rel=1e-12)
        # the limit of epsilon -> 0+
        assert gaussian_dp_mu(1e-200, delta) == pytest.approx(mu, rel=1e-12)
        assert gaussian_dp_epsilon_from_mu(mu * (1 - 1e-9), delta) == 0.0


def test_gaussian_dp_mu_limits():
    assert gaussian_dp_delta_from_mu(0.0, 0.0) == 0.0
    assert gaussian_dp_delta_from_mu(3.0, 0.0) == 0.0
    assert gaussian_dp_delta_from_mu(0.0, np.inf) == 1.0
    assert gaussian_dp_delta_from_mu(1e6, np.inf) == 1.0
    assert gaussian_dp_delta_from_mu(np.inf, 2.0) == 0.0
    assert gaussian_dp_epsilon_from_mu(0.0, 1e-5) == 0.0
    assert gaussian_dp_epsilon_from_mu(np.inf, 1e-5) == np.inf
    assert gaussian_dp_epsilon_from_mu(1e300, 1e-5) == np.inf
    # delta -> 1 as mu -> inf, continuously
    d = [gaussian_dp_delta_from_mu(1.0, mu) for mu in [1.0, 10.0, 20.0, 40.0, 1e10, 1e300]]
    assert np.all(np.diff(d) >= 0) and d[-1] == 1.0 and d[2] > 1 - 1e-16


@pytest.mark.parametrize("mu", [0.05, 0.3, 1.0, 3.0])
def test_gaussian_dp_conversions_match_dp_accounting_pld(mu):
    # dp_accounting's privacy-loss distribution is pessimistic (discretised upwards):
    # its delta and epsilon are never below ours, and close to them.
    from dp_accounting.pld import privacy_loss_distribution

    pld = privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=1 / mu, sensitivity=1.0, value_discretization_interval=1e-3
    )
    for epsilon in [0.0, 0.1, 0.5, 1.0, 3.0, 8.0]:
        ours = gaussian_dp_delta_from_mu(epsilon, mu)
        if ours < 1e-20:  # below the tail mass that dp_accounting truncates
            continue
        theirs = pld.get_delta_for_epsilon(epsilon)
        assert ours <= theirs * (1 + 1e-12)  # (theirs rounds at 1e-14 relative)
        assert theirs - ours <= 1e-9 * ours
    for delta in [1e-2, 1e-5, 1e-9, 1e-12]:
        ours = gaussian_dp_epsilon_from_mu(mu, delta)
        theirs = pld.get_epsilon_for_delta(delta)
        assert ours <= theirs + 1e-12
        assert theirs - ours <= 1e-3  # the discretisation interval


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: gaussian_dp_mu(-1.0, 1e-5), "epsilon"),
        (lambda: gaussian_dp_mu(np.inf, 1e-5), "epsilon"),
        (lambda: gaussian_dp_mu(1.0, 0.0), "delta"),
        (lambda: gaussian_dp_mu(1.0, 1.0), "delta"),
        (lambda: gaussian_dp_epsilon_from_mu(-1.0, 1e-5), "mu"),
        (lambda: gaussian_dp_epsilon_from_mu(np.nan, 1e-5), "mu"),
        (lambda: gaussian_dp_epsilon_from_mu(1.0, 1.0), "delta"),
        (lambda: gaussian_dp_delta_from_mu(-0.1, 1.0), "epsilon"),
        (lambda: gaussian_dp_delta_from_mu(1.0, -1.0), "mu"),
        (lambda: gaussian_dp_delta_from_mu(1.0, "a"), "mu"),
        (lambda: gaussian_delta(1.0, np.inf), "sigma"),
        (lambda: gaussian_epsilon(1.0, 1e-5, np.inf), "sensitivity"),
        (lambda: gaussian_sigma(np.inf, 1e-5), "epsilon"),
    ],
)
def test_gaussian_dp_out_of_range_parameters_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.filterwarnings("error")
def test_classical_and_approximate_bounds_at_extremes():
    # approximate epsilon = mu z + mu^2 / 2 (ZeroDivisionError / OverflowError before)
    assert approximate_gaussian_epsilon(1e-300, 1e-5) == np.inf
    assert approximate_gaussian_epsilon(1.0, 1e-5, 1e300) == np.inf
    z = -stats.norm.ppf(1e-5)
    assert approximate_gaussian_epsilon(1e300, 1e-5) == pytest.approx(1e-300 * z, rel=1e-14)
    assert approximate_gaussian_epsilon(1e-200, 1e-5, 1e-300) == pytest.approx(1e-100 * z)
    assert approximate_gaussian_epsilon(1.0, 1e-5) == pytest.approx(z + 0.5, rel=1e-14)
    assert classical_gaussian_sigma(0.5, 1e-300) == pytest.approx(
        np.sqrt(2 * np.log(1.25e300)) / 0.5, rel=1e-14
    )
    with pytest.raises(ValueError, match="exceeds the largest float"):
        classical_gaussian_sigma(1e-300, 1e-5, 1e300)
