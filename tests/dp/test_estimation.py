import numpy as np
import pytest

from sklearn_privacy.dp import (
    clip_rows,
    clip_to_ball,
    compose_basic,
    dp_covariance,
    dp_mean,
    dp_second_moment,
    gaussian_norm_tail_radius,
    gaussian_sigma,
    gib_exponential_epsilon,
    l2_exponential_epsilon,
)


def test_clip_rows_norms_and_direction():
    rng = np.random.default_rng(0)
    X = rng.normal(scale=3, size=(500, 4))
    Xc = clip_rows(X, 2.0)
    norms = np.linalg.norm(Xc, axis=1)
    assert norms.max() <= 2.0 + 1e-12
    small = np.linalg.norm(X, axis=1) <= 2.0
    np.testing.assert_allclose(Xc[small], X[small])
    cos = np.sum(Xc * X, axis=1) / (norms * np.linalg.norm(X, axis=1))
    np.testing.assert_allclose(cos, 1.0)
    center = np.ones(4)
    np.testing.assert_allclose(clip_rows(X, 2.0, center=center), clip_rows(X - center, 2.0))


def test_clip_to_ball_is_clip_rows_without_validation():
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(scale=3, size=(50, 3)), [[1e200, -1e200, 0.0]], [[1e-200, 0, 0]]])
    center = np.array([0.5, -1.0, 2.0])
    for c in (None, center):
        np.testing.assert_array_equal(clip_to_ball(X, 2.0, c), clip_rows(X, 2.0, center=c))
    assert np.all(np.linalg.norm(clip_to_ball(X, 2.0, center), axis=1) <= 2.0)


def test_clip_rows_rejects_nonpositive_radius():
    with pytest.raises(ValueError, match="radius"):
        clip_rows(np.ones((2, 2)), 0.0)


def test_second_moment_sensitivity_bound_by_brute_force():
    # replace-one neighbours inside the ball: the upper triangle of x x^T - x' x'^T
    # never exceeds sqrt(2) R^2 in L2 norm, and orthogonal rows of norm R attain it
    rng = np.random.default_rng(1)
    R, d = 1.5, 3
    iu = np.triu_indices(d)
    worst = 0.0
    for _ in range(4000):
        x, xp = clip_rows(rng.normal(size=(2, d)) * 3, R)
        diff = (np.outer(x, x) - np.outer(xp, xp))[iu]
        worst = max(worst, np.linalg.norm(diff))
    assert worst <= np.sqrt(2) * R**2 + 1e-12
    e = np.eye(d) * R
    assert np.linalg.norm((np.outer(e[0], e[0]) - np.outer(e[1], e[1]))[iu]) == pytest.approx(
        np.sqrt(2) * R**2
    )


def test_dp_mean_noise_scale_matches_calibration():
    X = np.zeros((100, 2))
    draws = np.array(
        [dp_mean(X, epsilon=1.0, delta=1e-5, radius=1.0, random_state=s) for s in range(2000)]
    )
    sigma = gaussian_sigma(1.0, 1e-5, 2.0 / 100)
    assert draws.std() == pytest.approx(sigma, rel=0.05)


def test_dp_second_moment_noise_scale_and_symmetry():
    X = np.zeros((50, 3))
    draws = np.array(
        [
            dp_second_moment(X, epsilon=1.0, delta=1e-5, radius=1.0, random_state=s)
            for s in range(1000)
        ]
    )
    np.testing.assert_allclose(draws, np.transpose(draws, (0, 2, 1)))
    sigma = gaussian_sigma(1.0, 1e-5, np.sqrt(2) / 50)
    assert draws[:, 0, 1].std() == pytest.approx(sigma, rel=0.08)
    assert draws[:, 2, 2].std() == pytest.approx(sigma, rel=0.08)


def test_dp_covariance_is_psd_and_consistent():
    rng = np.random.default_rng(0)
    cov_true = np.array([[2.0, 0.5], [0.5, 1.0]])
    X = rng.multivariate_normal([0.5, -0.5], cov_true, size=50000)
    mean, cov = dp_covariance(X, epsilon=1.0, delta=1e-6, radius=8.0, random_state=0)
    assert np.linalg.eigvalsh(cov).min() >= -1e-12
    np.testing.assert_allclose(mean, [0.5, -0.5], atol=0.05)
    np.testing.assert_allclose(cov, cov_true, atol=0.08)


def test_compose_basic_sums():
    assert compose_basic((1.0, 1e-6), (2.0, 2e-6), (0.5, 0.0)) == pytest.approx((3.5, 3e-6))
    with pytest.raises(ValueError, match="budget"):
        compose_basic((-1.0, 0.0))


@pytest.mark.parametrize("delta", [0.2, 0.05, 0.01])
def test_norm_tail_radius_holds_by_monte_carlo(delta):
    rng = np.random.default_rng(0)
    A = rng.normal(size=(4, 4))
    Q = A @ A.T
    H = gaussian_norm_tail_radius(Q, delta)
    t = rng.multivariate_normal(np.zeros(4), Q, size=200000)
    assert np.mean(np.linalg.norm(t, axis=1) > H) <= delta


def test_norm_tail_radius_scales_without_overflow():
    """radius(c Q) = sqrt(c) radius(Q) (the formula is homogeneous), up to c = 1e300."""
    rng = np.random.default_rng(1)
    A = rng.normal(size=(3, 3))
    Q = A @ A.T
    base = gaussian_norm_tail_radius(Q, 1e-5)
    eig = np.linalg.eigvalsh(Q)
    s = np.log(1e5)
    direct = np.sqrt(eig.sum() + 2 * np.sqrt(np.sum(eig**2) * s) + 2 * eig.max() * s)
    assert base == pytest.approx(direct, rel=1e-12)
    for c in (1e-300, 1e150, 1e300):
        assert gaussian_norm_tail_radius(c * Q, 1e-5) == pytest.approx(np.sqrt(c) * base, rel=1e-9)
    assert gaussian_norm_tail_radius(np.zeros((2, 2)), 1e-5) == 0.0


def test_norm_tail_radius_rejects_non_psd():
    with pytest.raises(ValueError, match="positive semi-definite"):
        gaussian_norm_tail_radius([[1.0, 2.0], [2.0, 1.0]], 0.1)


def test_exponential_bounds_formulas():
    # thesis Cor. 1 and 2 with the re-derived tail radius
    H = gaussian_norm_tail_radius([[0.5]], 1e-5)
    assert l2_exponential_epsilon(2.0, [[0.5]], 1.5, 1e-5) == pytest.approx(2.0 * (1.5 + H) ** 2)
    assert gib_exponential_epsilon(3.0, 0.4, [[0.5]], 2.0, 1e-5) == pytest.approx(
        3.0 * (0.8 + H) ** 2
    )
