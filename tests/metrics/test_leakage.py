import numpy as np
import pytest
from sklearn.feature_selection._mutual_info import _compute_mi_cd
from sklearn.metrics import mutual_info_score
from sklearn.tree import DecisionTreeClassifier

from sklearn_privacy.metrics import adversary_accuracy_score, is_discrete_release, leakage_score


def test_plugin_matches_mutual_info_score():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 3, 500)
    t = (s + rng.integers(0, 2, 500)) % 4
    assert leakage_score(s, t) == pytest.approx(mutual_info_score(s, t), abs=1e-12)
    independent = rng.integers(0, 3, 500)  # 3 x 3 cells seen: correction (3 + 3 - 9 - 1) / 2n
    assert leakage_score(s, independent, estimator="miller_madow") == pytest.approx(
        mutual_info_score(s, independent) - 4 / 1000, abs=1e-12
    )


@pytest.mark.parametrize("seed", range(3))
def test_knn_matches_sklearn_in_one_dimension(seed):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 3, 400)
    t = s + rng.normal(size=400)
    ours = leakage_score(s, t.reshape(-1, 1), estimator="knn", n_neighbors=3)
    assert ours == pytest.approx(_compute_mi_cd(t, s, n_neighbors=3), abs=1e-12)


def test_knn_and_gaussian_converge_to_the_truth_in_two_dimensions():
    # S uniform on {0, 1}; T = mu_S + N(0, I) in 2-D, mu_0 = -mu_1 = (a, 0).
    rng = np.random.default_rng(0)
    n, a = 4000, 1.0
    s = rng.integers(0, 2, n)
    t = np.c_[np.where(s == 1, a, -a), np.zeros(n)] + rng.normal(size=(n, 2))
    # exact I(S;T) = h(T) - h(T|S) by 1-D quadrature (the second axis carries nothing)
    x = np.linspace(-10, 10, 20001)
    phi = lambda m: np.exp(-((x - m) ** 2) / 2) / np.sqrt(2 * np.pi)  # noqa: E731
    mix = 0.5 * phi(a) + 0.5 * phi(-a)
    truth = -np.trapezoid(mix * np.log(mix), x) - 0.5 * np.log(2 * np.pi * np.e)
    assert leakage_score(s, t, estimator="knn") == pytest.approx(truth, abs=0.03)
    # the Gaussian estimate of a mixture is a close approximation here, not exact
    assert leakage_score(s, t, estimator="gaussian") == pytest.approx(truth, abs=0.05)


def test_gaussian_estimator_is_exact_for_gaussian_pairs():
    rng = np.random.default_rng(1)
    rho = 0.8
    z = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=200000)
    est = leakage_score(z[:, 0], z[:, 1:], estimator="gaussian")
    assert est == pytest.approx(0.5 * np.log(1 / (1 - rho**2)), abs=0.01)


def test_auto_picks_by_release_kind():
    assert is_discrete_release(np.eye(3))
    assert is_discrete_release(np.array([["a"], ["b"]], dtype=object))
    assert not is_discrete_release(np.array([0.5, 1.0]))
    s = np.tile([0, 1], 50)
    assert leakage_score(s, s.astype(float)) == pytest.approx(np.log(2))


def test_adversary_accuracy():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 600)
    assert adversary_accuracy_score(s, s.reshape(-1, 1)) == 1.0
    noise = rng.normal(size=(600, 2))
    acc = adversary_accuracy_score(s, noise)
    assert 0.4 < acc < 0.6
    strong = np.c_[s + 0.3 * rng.normal(size=600), noise]
    assert adversary_accuracy_score(s, strong) > 0.9
    tree = adversary_accuracy_score(s, strong, adversary=DecisionTreeClassifier(max_depth=2))
    assert tree > 0.9


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"sensitive": [0, 1, 0], "release": [[0], [1]]}, "3 rows but the release has 2"),
        ({"sensitive": [0, 1], "release": [[np.nan], [1.0]]}, "NaN"),
        ({"sensitive": [0], "release": [[0]]}, "at least 2 samples"),
    ],
)
def test_leakage_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        leakage_score(**kwargs)


def test_invalid_estimator_name():
    with pytest.raises(ValueError, match="'estimator' parameter"):
        leakage_score([0, 1], [0, 1], estimator="magic")
