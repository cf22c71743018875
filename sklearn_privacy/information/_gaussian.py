"""Entropy and mutual information of jointly Gaussian variables."""

import numpy as np


def _check_covariance(cov, name="cov"):
    cov = np.asarray(cov, dtype=float)
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"{name} must be a square 2-D array, got shape {cov.shape}.")
    if not np.all(np.isfinite(cov)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(cov).max())):
        raise ValueError(f"{name} must be symmetric.")
    return cov


def _logdet(cov, name):
    sign, logdet = np.linalg.slogdet(cov)
    if sign <= 0 or not np.isfinite(logdet):
        raise ValueError(
            f"{name} is singular or not positive definite; a Gaussian entropy needs a "
            "positive definite covariance."
        )
    return logdet


def gaussian_entropy(cov):
    """Differential entropy of ``N(mu, cov)`` in nats: ``0.5 log det(2 pi e cov)``.

    Examples
    --------
    >>> from sklearn_privacy.information import gaussian_entropy
    >>> round(gaussian_entropy([[1.0]]), 6)
    1.418939
    """
    cov = _check_covariance(cov)
    d = cov.shape[0]
    return float(0.5 * (d * np.log(2 * np.pi * np.e) + _logdet(cov, "cov")))


def gaussian_mutual_information(cov, a, b):
    """Mutual information ``I(A; B)`` of jointly Gaussian variables, in nats.

    Parameters
    ----------
    cov : array-like of shape (d, d)
        Covariance of the joint vector.
    a, b : sequence of int
        Disjoint index sets of the two variables inside ``cov``.

    Returns
    -------
    float
        ``0.5 * (log det cov_aa + log det cov_bb - log det cov_ab,ab)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.information import gaussian_mutual_information
    >>> rho = 0.6
    >>> mi = gaussian_mutual_information([[1, rho], [rho, 1]], [0], [1])
    >>> bool(np.isclose(mi, 0.5 * np.log(1 / (1 - rho**2))))
    True
    """
    cov = _check_covariance(cov)
    a = np.atleast_1d(np.asarray(a, dtype=int))
    b = np.atleast_1d(np.asarray(b, dtype=int))
    if a.size == 0 or b.size == 0:
        raise ValueError("a and b must each name at least one index.")
    if np.intersect1d(a, b).size:
        raise ValueError("a and b must be disjoint index sets.")
    ab = np.concatenate([a, b])
    if ab.min() < 0 or ab.max() >= cov.shape[0]:
        raise ValueError(f"indices must lie in [0, {cov.shape[0]}).")
    value = 0.5 * (
        _logdet(cov[np.ix_(a, a)], "cov[a, a]")
        + _logdet(cov[np.ix_(b, b)], "cov[b, b]")
        - _logdet(cov[np.ix_(ab, ab)], "cov[a+b, a+b]")
    )
    return float(max(value, 0.0))
