import numpy as np
import pytest
from scipy.stats import multivariate_normal

from sklearn_privacy.information import gaussian_entropy, gaussian_mutual_information


@pytest.mark.parametrize("rho", [0.0, 0.3, -0.7, 0.99])
def test_bivariate_closed_form(rho):
    cov = np.array([[2.0, rho * np.sqrt(6)], [rho * np.sqrt(6), 3.0]])
    assert gaussian_mutual_information(cov, [0], [1]) == pytest.approx(
        0.5 * np.log(1 / (1 - rho**2)), abs=1e-12
    )


def test_entropy_matches_scipy():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 4))
    cov = a @ a.T + np.eye(4)
    assert gaussian_entropy(cov) == pytest.approx(multivariate_normal(cov=cov).entropy(), abs=1e-12)


def test_mutual_information_is_entropy_difference():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(5, 5))
    cov = a @ a.T + 0.5 * np.eye(5)
    A, B = [0, 2], [1, 3, 4]
    expected = (
        gaussian_entropy(cov[np.ix_(A, A)])
        + gaussian_entropy(cov[np.ix_(B, B)])
        - gaussian_entropy(cov)
    )
    assert gaussian_mutual_information(cov, A, B) == pytest.approx(expected, abs=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="singular"):
        gaussian_mutual_information(np.ones((2, 2)), [0], [1])
    with pytest.raises(ValueError, match="disjoint"):
        gaussian_mutual_information(np.eye(2), [0], [0])
    with pytest.raises(ValueError, match="symmetric"):
        gaussian_entropy([[1.0, 0.5], [0.0, 1.0]])
    with pytest.raises(ValueError, match="square"):
        gaussian_entropy(np.ones(3))
