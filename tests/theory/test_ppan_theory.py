import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import minimize

from sklearn_privacy.datasets import symmetric_pair_pmf
from sklearn_privacy.information import gaussian_mutual_information, mutual_information
from sklearn_privacy.theory import (
    ppan_scalar_full_data,
    ppan_scalar_useful_data,
    ppan_vector_useful_data,
    symmetric_pair_full_data,
    symmetric_pair_useful_data,
)


def _leak_and_distortion(coef_x, coef_y, noise_var, rho, var_y=1.0):
    """I(X; Z) and E(Y - Z)^2 for Z = a X + b Y + U, X ~ N(0, 1)."""
    sy = np.sqrt(var_y)
    cov_xy = np.array([[1.0, rho * sy], [rho * sy, var_y]])
    w = np.array([coef_x, coef_y])
    var_z = w @ cov_xy @ w + noise_var
    cov_xz = w @ cov_xy[:, 0]
    cov_yz = w @ cov_xy[:, 1]
    cov = np.array([[1.0, cov_xz], [cov_xz, var_z]])
    dist = var_y - 2 * cov_yz + var_z
    return gaussian_mutual_information(cov, [0], [1]), dist


@pytest.mark.parametrize(
    "rho, delta, var_y", [(0.8, 0.5, 1.0), (-0.6, 0.3, 2.0), (0.95, 0.05, 1.0)]
)
def test_prop1_attained_and_optimal(rho, delta, var_y):
    closed = ppan_scalar_useful_data(rho, delta, var_y)
    a = 1 - delta / var_y
    leak, dist = _leak_and_distortion(0.0, a, delta * a, rho, var_y)
    assert leak == pytest.approx(closed, rel=1e-10)
    assert dist == pytest.approx(delta, rel=1e-10)

    # numerical optimum over Z = b Y + U with E(Y - Z)^2 <= delta
    def obj(p):
        return _leak_and_distortion(0.0, p[0], p[1] ** 2 + 1e-12, rho, var_y)[0]

    cons = {
        "type": "ineq",
        "fun": lambda p: delta - _leak_and_distortion(0, p[0], p[1] ** 2, rho, var_y)[1],
    }
    best = min(
        minimize(obj, x0, constraints=[cons], method="SLSQP", options={"ftol": 1e-12}).fun
        for x0 in ([0.5, 0.5], [0.9, 0.1], [0.2, 1.0])
    )
    assert best >= closed - 1e-6
    assert best == pytest.approx(closed, abs=1e-5)


def test_prop1_zero_beyond_variance():
    assert ppan_scalar_useful_data(0.7, 1.5) == pytest.approx(0.0)


@pytest.mark.parametrize("seed", range(3))
def test_prop2_water_filling_matches_convex_program(seed):
    rng = np.random.default_rng(seed)
    rhos = rng.uniform(0.1, 0.95, size=4)
    for delta in [0.3, 1.5, 3.0]:
        leak, d = ppan_vector_useful_data(rhos, delta)
        assert d.sum() == pytest.approx(min(delta, rhos.size))
        obj = lambda x: np.sum(-0.5 * np.log(1 - rhos**2 + rhos**2 * x))  # noqa: E731
        res = minimize(
            obj,
            np.full(4, delta / 4),
            method="SLSQP",
            bounds=[(0, 1)] * 4,
            constraints=[{"type": "eq", "fun": lambda x, t=delta: x.sum() - t}],
            options={"ftol": 1e-14},
        )
        assert leak == pytest.approx(res.fun, abs=1e-7)
        # the release Z'_i = (1 - d_i) Y'_i + U_i attains it: build the covariance
        cov = np.eye(12)
        for i, (r, di) in enumerate(zip(rhos, d)):
            x, y, z = i, 4 + i, 8 + i
            cov[x, y] = cov[y, x] = r
            cov[x, z] = cov[z, x] = (1 - di) * r
            cov[y, z] = cov[z, y] = 1 - di
            cov[z, z] = (1 - di) ** 2 + di * (1 - di) + 1e-15
        kept = [8 + i for i in range(4) if d[i] < 1]
        mi = gaussian_mutual_information(cov, list(range(4)), kept) if kept else 0.0
        assert mi == pytest.approx(leak, abs=1e-9)


@pytest.mark.parametrize("rho, delta", [(0.8, 0.2), (0.5, 0.1), (0.9, 0.6), (0.3, 0.2)])
def test_prop3_attained_and_optimal(rho, delta):
    closed = ppan_scalar_full_data(rho, delta)
    if delta < rho**2:
        k = np.sqrt(delta * (1 - delta) / (1 - rho**2))
        leak, dist = _leak_and_distortion(-k, (1 - delta) + rho * k, 0.0, rho)
        assert leak == pytest.approx(closed, rel=1e-9)
        assert dist == pytest.approx(delta, rel=1e-9)
    else:
        assert closed == 0.0

    # no jointly Gaussian Z = a X + b Y + U does better
    def obj(p):
        return _leak_and_distortion(p[0], p[1], p[2] ** 2, rho)[0]

    cons = {
        "type": "ineq",
        "fun": lambda p: delta - _leak_and_distortion(p[0], p[1], p[2] ** 2, rho)[1],
    }
    best = min(
        minimize(obj, x0, constraints=[cons], method="SLSQP", options={"ftol": 1e-13}).fun
        for x0 in ([0.0, 0.8, 0.1], [-0.3, 1.0, 0.0], [-0.1, 0.5, 0.3])
    )
    assert best >= closed - 1e-6
    assert best == pytest.approx(closed, abs=1e-4)


def _symmetric_pair_oracle(m, p, delta, full):
    """Brute force of ppan problem (1) as a convex program in P(Z | W)."""
    P = symmetric_pair_pmf(m, p)  # P[x, y]
    px = P.sum(axis=1)
    if full:
        W = cp.Variable((m * m, m), nonneg=True)  # rows: (x, y)
        rows = [sum(P[x, y] * W[x * m + y, :] for y in range(m)) for x in range(m)]
        err = sum(P[x, y] * (1 - W[x * m + y, y]) for x in range(m) for y in range(m))
    else:
        W = cp.Variable((m, m), nonneg=True)  # rows: y
        rows = [P[x, :] @ W for x in range(m)]
        err = sum(P[:, y].sum() * (1 - W[y, y]) for y in range(m))
    pxz = cp.vstack(rows)
    pz = cp.sum(pxz, axis=0)
    mi = cp.sum(cp.rel_entr(pxz, cp.vstack([px[x] * pz for x in range(m)])))
    prob = cp.Problem(cp.Minimize(mi), [cp.sum(W, axis=1) == 1, err <= delta])
    prob.solve(solver=cp.CLARABEL)
    return prob.value


@pytest.mark.parametrize("p, delta", [(0.4, 0.1), (0.2, 0.3), (0.4, 0.5)])
def test_symmetric_pair_curves_match_brute_force(p, delta):
    m = 3
    full = symmetric_pair_full_data(m, p, delta)
    useful = symmetric_pair_useful_data(m, p, delta)
    assert full == pytest.approx(_symmetric_pair_oracle(m, p, delta, True), abs=1e-5)
    assert useful == pytest.approx(_symmetric_pair_oracle(m, p, delta, False), abs=1e-5)
    assert full <= useful + 1e-12


def test_symmetric_pair_mi_at_zero_distortion():
    m, p = 10, 0.4
    mi = mutual_information(symmetric_pair_pmf(m, p))
    assert symmetric_pair_full_data(m, p, 0.0) == pytest.approx(mi)
    assert symmetric_pair_useful_data(m, p, 0.0) == pytest.approx(mi)
    assert symmetric_pair_useful_data(m, p, 0.95) == 0.0


def test_negative_distortion_limits_are_rejected():
    with pytest.raises(ValueError, match="delta"):
        ppan_scalar_useful_data(0.5, [0.1, -0.2])
    with pytest.raises(ValueError, match="delta"):
        ppan_scalar_full_data(0.5, [-0.1])


def test_vectorised_curves_match_scalar_calls():
    deltas = np.array([0.0, 0.1, 0.5, 2.0])
    for fn in (ppan_scalar_useful_data, ppan_scalar_full_data):
        values = fn(0.8, deltas)
        assert values.shape == deltas.shape
        np.testing.assert_allclose(values, [fn(0.8, float(d)) for d in deltas], rtol=1e-15)
    assert ppan_scalar_full_data(1.0, 0.0) == np.inf
