import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld

from sklearn_privacy.dp import GaussianAccountant, clip_rows, dp_norm_quantile, gaussian_dp_mu
from sklearn_privacy.gaussian._private_fit import private_mean_covariance


def _pld_epsilon(spends, delta):
    total = None
    for sens, sigma, count in spends:
        d = pld.from_gaussian_mechanism(
            standard_deviation=sigma, sensitivity=sens, value_discretization_interval=1e-4
        )
        if count > 1:
            d = d.self_compose(count)
        total = d if total is None else total.compose(d)
    return total.get_epsilon_for_delta(delta)


@pytest.mark.parametrize(
    "spends, delta",
    [
        ([(1.0, 2.0, 1), (1.0, 0.8, 1)], 1e-5),
        ([(3.0, 10.0, 10), (0.02, 0.05, 1), (1.0, 1.0, 3)], 1e-7),
        ([(1.0, 5.0, 1)] * 6, 1e-3),
    ],
)
def test_gdp_composition_matches_dp_accounting_pld(spends, delta):
    acc = GaussianAccountant()
    for i, (sens, sigma, count) in enumerate(spends):
        acc.spend(f"m{i}", sensitivity=sens, sigma=sigma, count=count)
    ours, theirs = acc.epsilon(delta), _pld_epsilon(spends, delta)
    # the PLD accountant is pessimistic by its discretisation: ours is at most theirs, and close
    assert ours <= theirs * (1 + 1e-9)
    assert ours == pytest.approx(theirs, rel=2e-3)
    assert acc.delta(ours) == pytest.approx(delta, rel=1e-9)


def test_basic_composition_is_looser_than_exact():
    acc = GaussianAccountant()
    for _ in range(10):
        acc.spend("m", sensitivity=1.0, sigma=4.0)
    single = GaussianAccountant([acc.spends[0]]).epsilon(1e-6)
    assert acc.epsilon(1e-5) < 10 * single


def test_accountant_edge_cases_and_errors():
    acc = GaussianAccountant()
    assert acc.mu == 0 and acc.epsilon(1e-5) == 0.0 and "nothing spent" in repr(acc)
    acc.spend("zero", sensitivity=0.0, sigma=1.0)
    assert acc.epsilon(1e-5) == 0.0
    acc.spend("huge", sensitivity=1e7, sigma=1.0)
    assert acc.epsilon(1e-5) == np.inf
    for kwargs, match in [
        ({"sensitivity": -1.0, "sigma": 1.0}, "sensitivity"),
        ({"sensitivity": np.inf, "sigma": 1.0}, "sensitivity"),
        ({"sensitivity": 1.0, "sigma": 0.0}, "sigma"),
        ({"sensitivity": 1.0, "sigma": 1.0, "count": 0}, "count"),
    ]:
        with pytest.raises(ValueError, match=match):
            acc.spend("bad", **kwargs)


def test_norm_quantile_is_close_at_any_scale():
    X = np.random.default_rng(0).normal(size=(20000, 3))
    truth = np.quantile(np.linalg.norm(X, axis=1), 0.9)
    # scales far outside the old 1e-30..1e30 grid included
    for scale in (1.0, 1e-6, 1e6, 1e35, 1e-60, 1e140):
        r = dp_norm_quantile(scale * X, 0.9, epsilon=5.0, delta=1e-6, random_state=0)
        assert truth / 1.3 < r / scale < truth * 1.3
    # a power-of-two scale moves every norm by whole bins: the same radius, scaled
    r = dp_norm_quantile(X, 0.9, epsilon=5.0, delta=1e-6, random_state=0)
    r_scaled = dp_norm_quantile(2.0**-300 * X, 0.9, epsilon=5.0, delta=1e-6, random_state=0)
    assert r_scaled == pytest.approx(r * 2.0**-300, rel=1e-12)
    with pytest.raises(ValueError, match="too few"):
        dp_norm_quantile(X[:20], 0.9, epsilon=0.1, delta=1e-6, random_state=0)


def test_private_mean_and_covariance_converge_and_spend_their_budget():
    rng = np.random.default_rng(0)
    cov = np.array([[4.0, 1.0], [1.0, 1.0]])
    X = rng.multivariate_normal([10.0, -5.0], cov, size=200000)
    acc = GaussianAccountant()
    mu = gaussian_dp_mu(1.0, 1e-6)
    mean, est, radius = private_mean_covariance(X, mu, rng=rng, accountant=acc)
    np.testing.assert_allclose(mean, [10.0, -5.0], atol=0.05)
    # clipping the rows beyond the private radius (a power of two) shrinks it a little
    np.testing.assert_allclose(est, cov, rtol=0.08, atol=0.05)
    assert acc.mu == pytest.approx(mu, rel=1e-12)
    assert [e.count for e in acc.spends] == [1] * 8
    # one histogram, plus the rounding of its two changed bins to the noise grid (2^-20 sd)
    first = acc.spends[0]
    assert first.sensitivity == pytest.approx(np.sqrt(2) + first.sigma * 2**-20 * np.sqrt(2))
    inside = np.mean(np.linalg.norm(X - mean, axis=1) <= radius)
    assert 0.93 < inside <= 1.0  # the radius is a power of two above the 95 % quantile
    # a public radius skips the centred quantile and pays for the count of the people
    # beyond it (distortion_ says when the radius clips too many)
    acc2 = GaussianAccountant()
    private_mean_covariance(X, mu, rng=rng, accountant=acc2, radius=3.0)
    assert [e.name for e in acc2.spends] == [
        "radius of the rows",
        "mean",
        "centre",
        "centre",
        "covariance",
        "people beyond the radius",
    ]
    assert acc2.mu == pytest.approx(mu, rel=1e-12)


def test_clip_rows_keeps_huge_and_tiny_rows_exact():
    out = clip_rows([[1e200, 0.0], [0.0, -1e200], [3e-200, 4e-200]], 1.0)
    np.testing.assert_allclose(out, [[1.0, 0.0], [0.0, -1.0], [3e-200, 4e-200]])
    # centred values beyond float64 are clipped, not refused (nor sent to the centre)
    np.testing.assert_allclose(clip_rows([[1.7e308, 0.0]], 1.0, center=[-1.7e308, 0.0]), [[1, 0]])
