import numpy as np
import pytest
from scipy.optimize import minimize

from sklearn_privacy.theory import (
    gaussian_rate_distortion,
    gaussian_rate_distortion_beta,
    reverse_water_filling,
)


def _rd_by_optimisation(s, D):
    # min sum 0.5 log(s_i / D_i) s.t. sum D_i = D, 0 < D_i <= s_i (convex)
    x0 = s * D / s.sum()
    res = minimize(
        lambda d: 0.5 * np.sum(np.log(s / d)),
        x0,
        jac=lambda d: -0.5 / d,
        method="SLSQP",
        bounds=[(1e-12, si) for si in s],
        constraints=[
            {"type": "eq", "fun": lambda d: d.sum() - D, "jac": lambda d: np.ones_like(d)}
        ],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return res.fun


@pytest.mark.parametrize("seed", range(4))
def test_rate_distortion_matches_numerical_optimisation(seed):
    rng = np.random.default_rng(seed)
    s = rng.gamma(1.0, 2.0, size=5)
    for frac in [0.05, 0.3, 0.7]:
        D = frac * s.sum()
        assert gaussian_rate_distortion(s, D) == pytest.approx(_rd_by_optimisation(s, D), abs=1e-6)


def test_water_filling_structure():
    s = np.array([4.0, 1.0, 0.25])
    theta, d = reverse_water_filling(s, 1.25)
    assert theta == pytest.approx(0.5)
    assert d.sum() == pytest.approx(1.25)
    theta, d = reverse_water_filling(s, 10.0)
    assert theta == np.inf
    np.testing.assert_allclose(d, s)
    assert gaussian_rate_distortion(s, 10.0) == 0.0
    assert gaussian_rate_distortion(s, [0.75, 5.25]).shape == (2,)


def test_beta_parametrisation_traces_the_same_curve():
    rng = np.random.default_rng(3)
    s = rng.gamma(1.0, 2.0, size=6)
    for beta in [0.3, 1.0, 3.0, 30.0]:
        rate, dist = gaussian_rate_distortion_beta(s, beta)
        assert rate == pytest.approx(gaussian_rate_distortion(s, dist), abs=1e-12)
        theta, _ = reverse_water_filling(s, dist)
        if dist < s.sum():
            assert theta == pytest.approx(1 / beta)


@pytest.mark.parametrize(
    "eig, match",
    [([1.0, -0.5], ">= 0"), ([np.nan], "NaN"), ([], "non-empty")],
)
def test_invalid_eigenvalues(eig, match):
    with pytest.raises(ValueError, match=match):
        reverse_water_filling(eig, 0.1)
