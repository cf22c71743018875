import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy
from sklearn.metrics import mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

from sklearn_privacy.information import (
    binary_entropy,
    conditional_entropy,
    contingency_pmf,
    encode_symbols,
    entropy,
    entropy_from_samples,
    kl_divergence,
    max_information_leakage,
    mutual_information,
    mutual_information_from_samples,
    nats_to_bits,
    posterior_entropies,
)


def _random_joint(rng, shape, zeros=0.3):
    joint = rng.random(shape) * (rng.random(shape) > zeros)
    joint.flat[0] += 0.1
    return joint / joint.sum()


@pytest.mark.parametrize("seed", range(10))
def test_measures_agree_with_scipy_and_sklearn(seed):
    rng = np.random.default_rng(seed)
    joint = _random_joint(rng, (rng.integers(2, 6), rng.integers(2, 7)))
    p_a, p_b = joint.sum(axis=1), joint.sum(axis=0)
    assert entropy(joint) == pytest.approx(scipy_entropy(joint.ravel()), abs=1e-12)
    h_b_given_a = sum(p_a[i] * scipy_entropy(joint[i] / p_a[i]) for i in range(len(p_a)) if p_a[i])
    assert conditional_entropy(joint) == pytest.approx(h_b_given_a, abs=1e-12)
    expected = scipy_entropy(p_a) + scipy_entropy(p_b) - scipy_entropy(joint.ravel())
    assert mutual_information(joint) == pytest.approx(expected, abs=1e-12)
    # I(A;B) = D(P_AB || P_A P_B)
    assert mutual_information(joint) == pytest.approx(
        kl_divergence(joint, np.outer(p_a, p_b)), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(10))
def test_sample_estimates_match_mutual_info_score(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, 300)
    b = (a + rng.integers(0, 3, 300)) % 4
    assert mutual_information_from_samples(a, b) == pytest.approx(
        mutual_info_score(a, b), abs=1e-12
    )
    counts = np.bincount(a)
    assert entropy_from_samples(a) == pytest.approx(scipy_entropy(counts), abs=1e-12)


def test_zero_cells_are_exact():
    joint = np.array([[0.5, 0.0], [0.0, 0.5]])
    assert mutual_information(joint) == pytest.approx(np.log(2), abs=1e-15)
    assert conditional_entropy(joint) == 0.0
    assert entropy([1.0, 0.0, 0.0]) == 0.0
    assert kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(np.log(2))
    assert kl_divergence([0.5, 0.5], [1.0, 0.0]) == np.inf


def test_miller_madow_correction():
    a = np.array([0, 0, 1, 1, 2, 2, 2, 0])
    b = np.array([0, 1, 1, 1, 0, 0, 1, 0])
    n = len(a)
    plugin = mutual_information_from_samples(a, b)
    corrected = mutual_information_from_samples(a, b, method="miller_madow")
    m_ab = np.unique(np.c_[a, b], axis=0).shape[0]
    assert corrected - plugin == pytest.approx((3 + 2 - m_ab - 1) / (2 * n), abs=1e-15)
    h = entropy_from_samples(a, method="miller_madow") - entropy_from_samples(a)
    assert h == pytest.approx(2 / (2 * n))


@pytest.mark.parametrize("seed", range(20))
def test_miller_madow_estimate_is_clipped_at_zero(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, 60)
    b = rng.integers(0, 4, 60)  # independent: the correction is negative
    plugin = mutual_information_from_samples(a, b)
    m_ab = np.unique(np.c_[a, b], axis=0).shape[0]
    correction = (np.unique(a).size + np.unique(b).size - m_ab - 1) / (2 * 60)
    corrected = mutual_information_from_samples(a, b, method="miller_madow")
    assert corrected == pytest.approx(max(plugin + correction, 0.0), abs=1e-15)
    assert corrected >= 0.0


def test_miller_madow_clipping_case():
    # 2 x 2 cells all seen, plug-in below the correction -1 / (2 n)
    a = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    b = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    assert mutual_information_from_samples(a, b) < 1 / 16
    assert mutual_information_from_samples(a, b, method="miller_madow") == 0.0


def test_rows_form_joint_symbols():
    codes, symbols = encode_symbols(np.array([[1, "a"], [2, "b"], [1, "a"]], dtype=object))
    assert codes[0] == codes[2] != codes[1]
    assert len(symbols) == 2
    joint = contingency_pmf(np.c_[[0, 0, 1, 1], [0, 1, 0, 1]], [0, 1, 2, 3])
    assert joint.shape == (4, 4)
    assert mutual_information(joint) == pytest.approx(np.log(4))


def test_max_information_leakage_brute_force():
    rng = np.random.default_rng(0)
    joint = _random_joint(rng, (3, 5))
    h_s = scipy_entropy(joint.sum(axis=1))
    p_u = joint.sum(axis=0)
    expected = max(h_s - scipy_entropy(joint[:, u] / p_u[u]) for u in range(5) if p_u[u] > 0)
    assert max_information_leakage(joint) == pytest.approx(expected, abs=1e-12)
    # an output that reveals S exactly leaks H(S)
    assert max_information_leakage(np.array([[0.25, 0.25], [0.0, 0.5]])) == pytest.approx(
        scipy_entropy([0.5, 0.5])
    )


def test_bits():
    assert nats_to_bits(np.log(2)) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "bad, match",
    [
        ([0.5, 0.6], "sum to 1"),
        ([1.5, -0.5], "negative"),
        ([np.nan, 1.0], "NaN"),
        ([], "empty"),
    ],
)
def test_invalid_pmf(bad, match):
    with pytest.raises(ValueError, match=match):
        entropy(bad)


def test_invalid_joint_and_samples():
    with pytest.raises(ValueError, match="2-D"):
        mutual_information([0.5, 0.5])
    with pytest.raises(ValueError, match="same number of samples"):
        mutual_information_from_samples([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="method"):
        mutual_information_from_samples([0, 1], [0, 1], method="nope")
    with pytest.raises(ValueError, match="same shape"):
        kl_divergence([0.5, 0.5], [1.0])


@pytest.mark.parametrize("p", [0.0, 1e-3, 0.1, 0.5, 0.77, 1.0])
def test_binary_entropy_matches_scipy(p):
    assert binary_entropy(p) == pytest.approx(scipy_entropy([p, 1 - p]), abs=1e-15)
    assert binary_entropy(p) == pytest.approx(entropy([p, 1 - p]), abs=1e-15)


def test_binary_entropy_elementwise_and_exact_at_the_ends():
    p = np.array([[0.0, 0.25], [0.75, 1.0]])
    h = binary_entropy(p)
    assert h.shape == (2, 2)
    assert h[0, 0] == 0.0 and h[1, 1] == 0.0
    assert not np.signbit(h).any()
    assert h[0, 1] == pytest.approx(h[1, 0], abs=1e-15)
    assert isinstance(binary_entropy(0.3), float)


def test_binary_entropy_keeps_relative_precision_for_tiny_p():
    # h(p) = p (1 - log p) - p^2 / 2 + O(p^3): 1 - p would round the second term away.
    p = 1e-12
    expected = p * (1 - np.log(p)) - p**2 / 2
    assert binary_entropy(p) == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("bad", [-0.1, 1.5, np.nan, [0.5, 2.0]])
def test_binary_entropy_rejects_non_probabilities(bad):
    with pytest.raises(ValueError, match="p must hold probabilities"):
        binary_entropy(bad)


@pytest.mark.parametrize("seed", range(5))
def test_posterior_entropies_match_scipy_and_average_to_conditional_entropy(seed):
    rng = np.random.default_rng(seed)
    joint = _random_joint(rng, (4, 6), zeros=0.4)
    joint[:, 2] = 0.0  # an output that never occurs
    joint /= joint.sum()
    p_b = joint.sum(axis=0)
    h = posterior_entropies(joint)
    assert h.shape == (6,)
    for b in range(6):
        expected = scipy_entropy(joint[:, b] / p_b[b]) if p_b[b] > 0 else 0.0
        assert h[b] == pytest.approx(expected, abs=1e-12)
    assert p_b @ h == pytest.approx(conditional_entropy(joint.T), abs=1e-12)
    assert max_information_leakage(joint) == pytest.approx(
        entropy(joint.sum(axis=1)) - h[p_b > 0].min(), abs=1e-12
    )


def test_posterior_entropies_validate_the_joint():
    with pytest.raises(ValueError, match="2-D"):
        posterior_entropies([0.5, 0.5])
    with pytest.raises(ValueError, match="sum to 1"):
        posterior_entropies(np.ones((2, 2)))


def test_contingency_pmf_matches_sklearn_contingency_matrix():
    rng = np.random.default_rng(3)
    a = rng.choice(["x", "y", "z"], 200)
    b = rng.integers(-2, 3, 200)
    counts = contingency_matrix(a, b)
    np.testing.assert_allclose(contingency_pmf(a, b), counts / 200, atol=1e-15)


def test_sample_estimates_of_joint_symbols_match_mutual_info_score():
    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, (400, 2))
    b = np.where(rng.random(400) < 0.7, a[:, 0] + a[:, 1], rng.integers(0, 5, 400)).astype(str)
    labels = a[:, 0] * 3 + a[:, 1]
    assert mutual_information_from_samples(a, b) == pytest.approx(
        mutual_info_score(labels, b), abs=1e-12
    )
    assert mutual_information_from_samples(a, b) == pytest.approx(
        mutual_information(contingency_pmf(a, b)), abs=1e-12
    )
