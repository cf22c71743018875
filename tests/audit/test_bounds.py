"""The audit's bounds: Clopper-Pearson, the rates-to-epsilon and -mu conversions, their validity.

Oracles: scipy's exact binomial interval (``binomtest``), the closed-form trade-off
curves of (epsilon, delta)-DP and mu-GDP, and a Gaussian mechanism of known mu.
"""

import numpy as np
import pytest
from scipy.stats import binomtest

from sklearn_privacy.audit import audit_from_statistics
from sklearn_privacy.audit._bounds import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    dp_tradeoff,
    epsilon_from_rates,
    gdp_tradeoff,
    mu_from_rates,
    select_and_bound,
)
from sklearn_privacy.dp import gaussian_dp_epsilon_from_mu


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (0, 5000), (17, 5000), (2500, 5000)])
def test_clopper_pearson_matches_scipy_exact_interval(k, n):
    interval = binomtest(k, n).proportion_ci(confidence_level=0.9, method="exact")
    assert clopper_pearson_upper(k, n, 0.05) == pytest.approx(interval.high, rel=1e-9, abs=1e-12)
    assert clopper_pearson_lower(k, n, 0.05) == pytest.approx(interval.low, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("epsilon, delta", [(0.5, 1e-5), (2.0, 0.01), (4.0, 0.0)])
def test_rates_on_the_dp_curve_give_back_epsilon(epsilon, delta):
    fpr = np.array([1e-3, 0.01, 0.02])
    fnr = 1.0 - dp_tradeoff(fpr, epsilon, delta)  # a test on the edge of the region
    assert np.max(epsilon_from_rates(fpr, fnr, delta)) == pytest.approx(epsilon, rel=1e-9)
    assert np.all(epsilon_from_rates(fpr, fnr + 1e-3, delta) < epsilon)


@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
def test_rates_on_the_gdp_curve_give_back_mu(mu):
    fpr = np.array([1e-4, 0.1, 0.5, 0.9])
    fnr = 1.0 - gdp_tradeoff(fpr, mu)
    np.testing.assert_allclose(mu_from_rates(fpr, fnr), mu, rtol=1e-9)
    np.testing.assert_allclose(mu_from_rates(fnr, fpr), mu, rtol=1e-9)  # symmetric


def test_gaussian_mechanism_of_known_mu_is_audited_within_25_percent():
    """20 000 trials of a 1-GDP Gaussian mechanism (statistic N(0, 1) on D, N(1, 1) on D').

    At delta = 0.01 the direct bound reaches 79 % of the true epsilon (2.318); at
    delta = 1e-5 the (epsilon, delta) point lies in tails that 10 000 evaluation
    trials cannot certify (the direct bound is 56 % of the truth), and the epsilon
    that the certified mu (0.94) implies for a Gaussian trade-off reaches 93 % of it.
    Every bound stays below the truth (they are lower bounds).
    """
    rng = np.random.default_rng(20000)
    scores, neighbour_scores = rng.normal(0.0, 1.0, 20000), rng.normal(1.0, 1.0, 20000)
    for delta in (0.01, 1e-5):
        truth = gaussian_dp_epsilon_from_mu(1.0, delta)
        result = audit_from_statistics(
            scores,
            neighbour_scores,
            delta=delta,
            claimed_epsilon=truth,
            claimed_mu=1.0,
            random_state=0,
        )
        assert result.n_trials == 20000 and not result.violated
        assert 0.8 <= result.mu_lower <= 1.0
        assert 0.75 * truth <= result.epsilon_gdp <= truth
        assert result.epsilon_lower <= truth
        if delta == 0.01:
            assert result.epsilon_lower >= 0.75 * truth


def _bounds_of_audits(n_audits, n_trials, *, mu, delta, seed):
    """Bounds of audits of the Gaussian mechanism N(0, 1) against N(mu, 1)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_audits):
        d, d_prime = rng.normal(size=(2, n_trials, 1))
        bounds = select_and_bound(d, d_prime + mu, delta=delta, confidence=0.95, random_state=i)
        out.append((bounds.epsilon_lower, bounds.mu_lower))
    return np.array(out)


@pytest.mark.parametrize("mu", [0.0, 1.0])
def test_bounds_hold_at_their_confidence(mu):
    """A bound above the truth is a false alarm: at 95 % confidence at most 5 % of audits
    raise one (400 audits of 200 trials: at most 30 allowed, which a binomial(400, 0.05)
    exceeds with probability 0.03). mu = 0 is a mechanism that leaks nothing (0-DP)."""
    delta = 0.01
    truth = gaussian_dp_epsilon_from_mu(mu, delta) if mu else 0.0
    bounds = _bounds_of_audits(400, 200, mu=mu, delta=delta, seed=1)
    assert np.sum(bounds[:, 0] > truth) <= 30
    assert np.sum(bounds[:, 1] > mu) <= 30
    if mu:
        assert np.median(bounds[:, 1]) > 0.3  # and the audits do find something


def test_a_vector_statistic_is_projected_on_its_discriminant():
    """Three coordinates, the shift in the second only: as good as the scalar statistic."""
    rng = np.random.default_rng(3)
    d = rng.normal(size=(4000, 3)) * [5.0, 1.0, 0.1]
    d_prime = rng.normal(size=(4000, 3)) * [5.0, 1.0, 0.1] + [0.0, 1.0, 0.0]
    vector = audit_from_statistics(d, d_prime, delta=1e-5, random_state=0)
    scalar = audit_from_statistics(d[:, 1], d_prime[:, 1], delta=1e-5, random_state=0)
    assert vector.mu_lower == pytest.approx(scalar.mu_lower, abs=0.1)
    assert vector.mu_lower > 0.8


def test_a_statistic_that_scores_d_prime_lower_is_turned_around():
    rng = np.random.default_rng(4)
    up = audit_from_statistics(
        rng.normal(size=2000), rng.normal(1.0, size=2000), delta=1e-5, random_state=0
    )
    rng = np.random.default_rng(4)
    down = audit_from_statistics(
        -rng.normal(size=2000), -rng.normal(1.0, size=2000), delta=1e-5, random_state=0
    )
    assert down.mu_lower == pytest.approx(up.mu_lower)


def test_the_roc_is_that_of_the_evaluation_half():
    rng = np.random.default_rng(5)
    result = audit_from_statistics(
        rng.normal(size=2000), rng.normal(2.0, size=2000), delta=1e-5, random_state=0
    )
    roc = result.roc
    assert roc["fpr"][0] == 1.0 and roc["tpr"][0] == 1.0  # threshold -inf
    assert np.all((roc["tpr_low"] <= roc["tpr"]) & (roc["tpr"] <= roc["tpr_high"]))
    # the true curve Phi(Phi^-1(fpr) + 2) passes through the box of (almost) every point
    low, high = gdp_tradeoff(roc["fpr_low"], 2.0), gdp_tradeoff(roc["fpr_high"], 2.0)
    inside = (low <= roc["tpr_high"]) & (high >= roc["tpr_low"])
    assert inside.mean() > 0.95


def test_statistics_are_checked():
    with pytest.raises(ValueError, match="at least 4 trials"):
        audit_from_statistics([0.0, 1.0], [0.0, 1.0], delta=1e-5)
    with pytest.raises(ValueError, match="NaN or infinite"):
        audit_from_statistics([0.0, 1.0, np.nan, 2.0, 3.0], np.ones(5), delta=1e-5)
    with pytest.raises(ValueError, match="same statistic"):
        audit_from_statistics(np.ones((5, 2)), np.ones((5, 3)), delta=1e-5)
