import numpy as np
import pytest
from scipy.optimize import minimize

from sklearn_privacy.gaussian import (
    gaussian_information_bottleneck,
    gaussian_privacy_funnel,
    l2_compression,
)
from sklearn_privacy.information import gaussian_mutual_information
from sklearn_privacy.theory import gaussian_rate_distortion, gaussian_rate_distortion_beta


def _random_cov(rng, d, scale=1.0):
    B = rng.normal(size=(d, d))
    return scale * (B @ B.T / d + 0.1 * np.eye(d))


def _logdet(m):
    sign, val = np.linalg.slogdet(m)
    return val if sign > 0 else np.inf


@pytest.mark.parametrize("seed", range(3))
def test_l2_rate_distortion_on_reverse_water_filling_curve(seed):
    rng = np.random.default_rng(seed)
    cov = _random_cov(rng, 5)
    s = np.linalg.eigvalsh(cov)
    for beta in [1.0 / s.max() * 1.5, 2.0, 10.0, 100.0]:
        sol = l2_compression(cov, beta)
        rate, dist = gaussian_rate_distortion_beta(s, beta)
        assert sol["rate"] == pytest.approx(rate, rel=1e-9, abs=1e-12)
        assert sol["distortion"] == pytest.approx(dist, rel=1e-9)
        assert sol["rate"] == pytest.approx(gaussian_rate_distortion(s, dist), rel=1e-9, abs=1e-12)
        # direct evaluation of thesis eqs. 3.16 and 3.18 with the returned A and Lambda
        V = sol["components"].T
        A = (V * sol["scale"]) @ V.T
        Lam = (V * sol["noise_variance"]) @ V.T
        E = np.eye(5) - A
        assert np.trace(E @ cov @ E.T) + np.trace(Lam) == pytest.approx(dist, rel=1e-9)
        k = V.shape[1]
        if k:
            cov_t = sol["scale"][:, None] * (V.T @ cov @ V) * sol["scale"][None, :]
            rate_direct = 0.5 * (
                _logdet(cov_t + np.diag(sol["noise_variance"]))
                - np.log(sol["noise_variance"]).sum()
            )
            assert rate_direct == pytest.approx(rate, rel=1e-9)


def test_l2_matches_numerical_optimisation_of_lagrangian():
    # thesis eq. 3.19 over a full A and a full Lambda = L L^T
    rng = np.random.default_rng(0)
    cov = _random_cov(rng, 2, scale=3.0)
    beta = 4.0
    d = 2

    def lagrangian(p):
        A = p[:4].reshape(2, 2)
        L = np.array([[p[4], 0.0], [p[5], p[6]]])
        Lam = L @ L.T + 1e-12 * np.eye(2)
        E = np.eye(d) - A
        return 0.5 * (
            _logdet(A @ cov @ A.T + Lam)
            - _logdet(Lam)
            + beta * (np.trace(E @ cov @ E.T) + np.trace(Lam))
        )

    best = min(
        minimize(
            lagrangian,
            x0,
            method="Nelder-Mead",
            options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 40000},
        ).fun
        for x0 in (
            np.array([0.5, 0, 0, 0.5, 0.5, 0, 0.5]),
            np.array([0.9, 0.1, 0.1, 0.8, 0.3, 0.1, 0.2]),
        )
    )
    sol = l2_compression(cov, beta)
    rate, dist = sol["rate"], sol["distortion"]
    assert sol["components"].shape[0] == 2
    assert rate + 0.5 * beta * dist == pytest.approx(best, abs=1e-6)


def test_l2_prunes_and_limits_components():
    cov = np.diag([4.0, 1.0, 0.25, 0.0])
    sol = l2_compression(cov, 2.0)
    assert sol["components"].shape == (2, 4)
    sol = l2_compression(cov, 2.0, n_components=1)
    assert sol["components"].shape == (1, 4)
    assert sol["distortion"] == pytest.approx(0.5 + 1.0 + 0.25)


def test_l2_rejects_non_psd_and_bad_beta():
    with pytest.raises(ValueError, match="positive semi-definite"):
        l2_compression([[1.0, 2.0], [2.0, 1.0]], 1.0)
    with pytest.raises(ValueError, match="symmetric"):
        l2_compression([[1.0, 0.5], [0.0, 1.0]], 1.0)
    with pytest.raises(ValueError, match="beta"):
        l2_compression(np.eye(2), 0.0)


def _gib_lagrangian(A, cov_x, cond, beta):
    # I(X;T) - beta I(T;Y) with unit noise (thesis eq. 4.7 with the sign re-derived)
    k = A.shape[0]
    I = np.eye(k)
    return 0.5 * ((1 - beta) * _logdet(A @ cov_x @ A.T + I) + beta * _logdet(A @ cond @ A.T + I))


@pytest.mark.parametrize("seed", range(3))
def test_gib_matches_closed_form_and_numerical_optimisation(seed):
    rng = np.random.default_rng(seed)
    dx, dy = 3, 2
    joint = _random_cov(rng, dx + dy)
    cov_x, cov_xy, cov_y = joint[:dx, :dx], joint[:dx, dx:], joint[dx:, dx:]
    cond = cov_x - cov_xy @ np.linalg.solve(cov_y, cov_xy.T)
    # independent closed form: eigen-decomposition of the non-symmetric matrix
    # (Sigma_{x|y} Sigma_x^{-1})^T = Sigma_x^{-1} Sigma_{x|y} (both symmetric)
    lam, left = np.linalg.eig(np.linalg.solve(cov_x, cond))
    lam = lam.real
    order = np.argsort(lam)
    lam, left = lam[order], left[:, order].real
    sol0 = gaussian_information_bottleneck(cov_x, cov_xy, cov_y, beta=1e6)
    np.testing.assert_allclose(sol0["eigenvalues"], lam, rtol=1e-9, atol=1e-12)
    beta = 1.5 * (1 / (1 - lam[1]))  # releases at least two components
    sol = gaussian_information_bottleneck(cov_x, cov_xy, cov_y, beta)
    A = sol["components"]
    rows = []
    for i in range(dx):
        if lam[i] < 1 - 1e-9 and beta > 1 / (1 - lam[i]):
            v = left[:, i]
            alpha = np.sqrt((beta * (1 - lam[i]) - 1) / (lam[i] * v @ cov_x @ v))
            rows.append(alpha * v)
    A_ref = np.array(rows)
    np.testing.assert_allclose(A.T @ A, A_ref.T @ A_ref, rtol=1e-8, atol=1e-10)

    # numerical optimisation over a full dx x dx matrix
    def f(p):
        return _gib_lagrangian(p.reshape(dx, dx), cov_x, cond, beta)

    best = min(
        minimize(f, rng.normal(size=dx * dx), method="BFGS", options={"gtol": 1e-10}).fun
        for _ in range(4)
    )
    closed = _gib_lagrangian(A, cov_x, cond, beta)
    assert closed == pytest.approx(best, abs=1e-6)


def test_gib_beta_below_critical_value_names_it():
    with pytest.raises(ValueError, match=r"critical value 4\b"):
        gaussian_information_bottleneck([[1.0]], [[0.5]], [[1.0]], beta=3.0)


def test_gib_singular_covariance_is_reported():
    with pytest.raises(ValueError, match="singular"):
        gaussian_information_bottleneck(np.ones((2, 2)), [[0.5], [0.5]], [[1.0]], beta=10.0)


def test_funnel_optimum_against_numerical_search():
    # S and X both 2-D, so no direction of X is independent of S
    rng = np.random.default_rng(4)
    joint = _random_cov(rng, 4)
    cov_x, cov_xs, cov_s = joint[:2, :2], joint[:2, 2:], joint[2:, 2:]
    R = 0.8
    sol = gaussian_privacy_funnel(cov_x, cov_xs, cov_s, R)
    full = np.block([[cov_s, cov_xs.T], [cov_xs, cov_x]])

    def mi(A):
        k = A.shape[0]
        cov_t = A @ cov_x @ A.T + np.eye(k)
        cov_st = cov_xs.T @ A.T
        big = np.block([[cov_s, cov_st], [cov_st.T, cov_t]])
        return gaussian_mutual_information(big, [0, 1], list(range(2, 2 + k))), 0.5 * _logdet(cov_t)

    A = sol["components"]
    leak, rate = mi(A)
    assert rate == pytest.approx(R, rel=1e-9)
    assert leak == pytest.approx(sol["leakage"], rel=1e-9)
    assert np.all(np.isfinite(full))

    cons = {"type": "ineq", "fun": lambda p: mi(p.reshape(2, 2))[1] - R}
    best = min(
        minimize(
            lambda p: mi(p.reshape(2, 2))[0], rng.normal(size=4), constraints=[cons], method="SLSQP"
        ).fun
        for _ in range(6)
    )
    assert best >= sol["leakage"] - 1e-6


def test_funnel_zero_leakage_when_x_has_an_s_free_direction():
    sol = gaussian_privacy_funnel(np.eye(2), [[0.8], [0.0]], [[1.0]], 2.0)
    assert sol["leakage"] == pytest.approx(0.0, abs=1e-12)


def test_funnel_lagrangian_is_unbounded_below():
    # per component: 0.5 (1 - beta) log(1 + u) - 0.5 log(1 + lambda u) -> -inf
    lam, beta = 0.3, 0.2
    f = lambda u: 0.5 * (1 - beta) * np.log1p(u) - 0.5 * np.log1p(lam * u)  # noqa: E731
    u_star = (1 - beta - lam) / (beta * lam)  # Thm. 2 stationary point
    assert f(u_star) > f(0.0)  # a maximum, not a minimum
    assert f(1e12) < -2.0
