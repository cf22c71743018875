"""Tests of the calmon2012 reference results against independent computations."""

import numpy as np
import pytest
from scipy.special import comb

from sklearn_privacy.discrete import min_average_leakage_mapping, min_maximum_leakage_mapping
from sklearn_privacy.information import entropy, max_information_leakage, mutual_information
from sklearn_privacy.theory import (
    counting_query_joint,
    counting_query_zeta,
    information_privacy_guarantees,
    information_privacy_level,
    laplace_counting_query_leakage,
    max_entropy_noise,
    maximum_leakage_from_zeta,
    rate_distortion,
    zeta_distribution,
)


def test_counting_query_example_2_conditional_entropy():
    n = 5
    joint = counting_query_joint(n, 0.3)
    assert joint.sum() == pytest.approx(1.0)
    p_y = joint.sum(axis=0)
    np.testing.assert_allclose(p_y, [comb(n, y) * 0.3**y * 0.7 ** (n - y) for y in range(6)])
    # H(S | Y=y) = log C(n, y) (Example 2), whatever p.
    for y in range(n + 1):
        assert entropy(joint[:, y] / p_y[y]) == pytest.approx(np.log(comb(n, y)), abs=1e-12)
    np.testing.assert_allclose(zeta_distribution(joint), counting_query_zeta(n), atol=1e-12)


def test_corollary_1_thm1_equals_rate_distortion():
    # Y = f(S): min I(S; U) (Thm. 1, conic) = R(D) of Y (Blahut-Arimoto).
    joint = counting_query_joint(4, 0.4)
    p_y = joint.sum(axis=0)
    D = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :]).astype(float)
    for budget in (0.3, 1.0):
        conic = min_average_leakage_mapping(joint, D, budget)
        rate, _ = rate_distortion(p_y, D, budget)
        assert conic["average_leakage"] == pytest.approx(rate, abs=2e-6)


def test_rate_distortion_binary_closed_form():
    for budget in (0.05, 0.2, 0.4):
        rate, _ = rate_distortion([0.5, 0.5], 1 - np.eye(2), budget)
        assert rate == pytest.approx(np.log(2) - entropy([budget, 1 - budget]), abs=1e-8)


def test_max_entropy_noise_is_the_maximum():
    z = np.arange(-3, 4)
    d = z.astype(float) ** 2
    pmf, h = max_entropy_noise(z, d, 1.0)
    assert pmf @ d == pytest.approx(1.0, abs=1e-9)
    # Any other pmf meeting the budget has smaller entropy (Gibbs).
    rng = np.random.default_rng(0)
    for _ in range(200):
        q = rng.dirichlet(np.ones(z.size))
        if q @ d <= 1.0:
            assert entropy(q) <= h + 1e-12


def test_corollary_2_identity_and_optimum():
    joint = counting_query_joint(3, 0.5)
    rng = np.random.default_rng(1)
    mapping = rng.dirichlet(np.ones(4), 4)
    assert maximum_leakage_from_zeta(joint, mapping) == pytest.approx(
        max_information_leakage(joint @ mapping), abs=1e-12
    )
    # The optimal mapping's posteriors P(Y|U=u) of the binding outputs are nearest zeta.
    D = 1 - np.eye(4)
    result = min_maximum_leakage_mapping(joint, D, 0.3)
    assert maximum_leakage_from_zeta(joint, result["mapping"]) == pytest.approx(
        result["maximum_leakage"], abs=1e-9
    )


def test_thm4_laplace_is_dp_yet_leaks_more_than_3_bits():
    n, k, eps = 300, 20, 1.0
    out = laplace_counting_query_leakage(n, k, eps)
    assert out["leakage_bits"] > 3.0
    assert out["leakage_bits"] >= out["paper_lower_bound_bits"]
    assert out["leakage"] <= out["max_leakage"]
    # eps-DP: the Laplace density ratio between neighbouring counts is at most e^eps.
    u = np.linspace(-50, 350, 4001)
    for y in (0, 7, 150):
        ratio = np.exp(-np.abs(u - y) * eps) / np.exp(-np.abs(u - y - 1) * eps)
        assert ratio.max() <= np.exp(eps) + 1e-12
    # Independent check: I(Y; U) of a fine discretisation of U.
    atoms = np.arange(0, n + 1, k)
    edges = np.linspace(-60, n + 60, 200_001)
    cdf = 0.5 + 0.5 * np.sign(edges[None, :] - atoms[:, None]) * (
        1 - np.exp(-np.abs(edges[None, :] - atoms[:, None]) * eps)
    )
    cells = np.diff(cdf, axis=1) / atoms.size
    cells[:, 0] += cdf[:, 0] / atoms.size
    cells[:, -1] += (1 - cdf[:, -1]) / atoms.size
    assert mutual_information(cells / cells.sum()) == pytest.approx(out["leakage"], abs=1e-4)


def test_thm4_leakage_grows_with_n():
    values = [laplace_counting_query_leakage(n, 10, 1.0)["leakage"] for n in (20, 80, 320)]
    assert values[0] < values[1] < values[2]


def test_information_privacy_thm3():
    rng = np.random.default_rng(0)
    for _ in range(20):
        p_s = rng.dirichlet(np.ones(3))
        mapping = rng.dirichlet(np.ones(4) * 5, 3)  # P(U | S)
        joint = p_s[:, None] * mapping
        eps = information_privacy_level(joint)
        bounds = information_privacy_guarantees(eps)
        ratio = np.log(mapping[:, None, :] / mapping[None, :, :])
        assert ratio.max() <= bounds["dp_epsilon"] + 1e-12
        assert mutual_information(joint) <= bounds["average_leakage"] + 1e-12
    assert information_privacy_level(np.array([[0.5, 0.0], [0.0, 0.5]])) == np.inf


def test_counting_query_zeta_is_binomial():
    for n in (1, 4, 9):
        expected = [comb(n, y) / 2**n for y in range(n + 1)]
        np.testing.assert_allclose(counting_query_zeta(n), expected, rtol=1e-13)


def test_rate_distortion_meets_the_budget_and_checks_p_y():
    p_y = counting_query_joint(4, 0.4).sum(axis=0)
    D = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :]).astype(float)
    rate, Q = rate_distortion(p_y, D, 0.3)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0)
    assert p_y @ (Q * D).sum(axis=1) == pytest.approx(0.3, abs=1e-9)
    assert rate == pytest.approx(mutual_information(p_y[:, None] * Q), abs=1e-15)
    with pytest.raises(ValueError, match="p_y"):
        rate_distortion([0.5, 0.6], 1 - np.eye(2), 0.1)
    with pytest.raises(ValueError, match="shape"):
        rate_distortion([0.5, 0.5], np.ones((3, 2)), 0.1)


def test_max_entropy_noise_at_the_least_distortion():
    # D = min d(z): the only feasible noise is the point mass at the minimiser.
    pmf, h = max_entropy_noise([-1, 0, 1], np.array([1.0, 0.0, 1.0]), 0.0)
    np.testing.assert_allclose(pmf, [0.0, 1.0, 0.0], atol=1e-12)
    assert h == pytest.approx(0.0, abs=1e-10)
