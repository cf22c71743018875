"""Optimal privacy-utility trade-offs of ppan-tripathy2017 (sec. 3.1.1 and 4)."""

from numbers import Integral

import numpy as np
from scipy.optimize import brentq

from sklearn_privacy.information import (
    binary_entropy,
    gaussian_mutual_information_from_correlation,
)
from sklearn_privacy.utils import CORRELATION, NONNEGATIVE, POSITIVE, UNIT
from sklearn_privacy.utils._sklearn_compat import Interval, validate_params


@validate_params(
    {
        "rho": [CORRELATION],
        "delta": ["array-like", NONNEGATIVE],
        "var_y": [POSITIVE],
    },
    prefer_skip_nested_validation=True,
)
def ppan_scalar_useful_data(rho, delta, var_y=1.0):
    """Prop. 1: release sees Y only; ``min I(X;Z)`` s.t. ``E(Y - Z)^2 <= delta``.

    Parameters
    ----------
    rho : float
        Correlation of X and Y.
    delta : float or array-like
        Distortion limit(s).
    var_y : float, default=1.0
        Variance of Y.

    Returns
    -------
    float or ndarray
        ``max(0, 0.5 log(1 / (1 - rho^2 + rho^2 delta / var_y)))`` in nats.

    See Also
    --------
    ppan_scalar_full_data : The same when the release sees (X, Y).
    ppan_vector_useful_data : The vector case.

    Examples
    --------
    >>> from sklearn_privacy.theory import ppan_scalar_useful_data
    >>> round(ppan_scalar_useful_data(0.8, 0.5), 6)
    0.192831
    """
    d = np.minimum(_check_delta(delta) / var_y, 1.0)
    # I(X;Z) of jointly Gaussian X, Z with corr(X, Z)^2 = rho^2 (1 - delta / var_y)
    return gaussian_mutual_information_from_correlation(rho * np.sqrt(1.0 - d), axis=())


def _check_delta(delta):
    d = np.asarray(delta, dtype=float)
    if not np.all(d >= 0):
        raise ValueError("delta must hold distortion limits >= 0 (NaN is not one).")
    return d


def _component_distortions(rhos, total):
    """Re-derived water-filling of Prop. 2: ``delta_i = clip(t - (rho_i^-2 - 1), 0, 1)``.

    KKT of the convex program ``min sum -0.5 log(1 - rho_i^2 + rho_i^2 delta_i)``
    s.t. ``sum delta_i = total, 0 <= delta_i <= 1``: an interior ``delta_i`` has
    derivative ``-0.5 / (delta_i + rho_i^-2 - 1) = -zeta``, hence
    ``delta_i = t - (rho_i^-2 - 1)`` with ``t = 1 / (2 zeta)``. (The printed
    ``t - rho_i^-2 - 1`` lost its brackets and the lower clip at 0.)
    """
    offsets = 1.0 / rhos**2 - 1.0
    if total >= rhos.size:
        return np.ones_like(rhos)
    if total <= 0:
        return np.zeros_like(rhos)
    f = lambda t: np.sum(np.clip(t - offsets, 0.0, 1.0)) - total  # noqa: E731
    t = brentq(f, offsets.min(), offsets.max() + 1.0, xtol=1e-15, rtol=1e-15)
    return np.clip(t - offsets, 0.0, 1.0)


@validate_params(
    {
        "rhos": ["array-like"],
        "delta": [NONNEGATIVE],
        "c": [POSITIVE],
    },
    prefer_skip_nested_validation=True,
)
def ppan_vector_useful_data(rhos, delta, c=1.0):
    """Prop. 2: vector Gaussians, release sees Y only, ``V_P^T Sigma_Y V_P = c I``.

    Parameters
    ----------
    rhos : array-like of shape (k,)
        Canonical correlations (singular values of the normalised cross-covariance), in (0, 1].
    delta : float
        Total mean-squared-error limit.
    c : float, default=1.0
        Scale of ``V_P^T Sigma_Y V_P``.

    Returns
    -------
    leakage : float
        ``sum_i -0.5 log(1 - rho_i^2 + rho_i^2 delta_i)`` in nats.
    component_distortions : ndarray of shape (k,)
        The water-filled ``delta_i`` (in whitened units, summing to ``min(delta / c, k)``).

    See Also
    --------
    ppan_scalar_useful_data : The scalar case.
    sklearn_privacy.datasets.make_gaussian_model : Samples of the Gaussian models.

    Examples
    --------
    >>> from sklearn_privacy.theory import ppan_vector_useful_data
    >>> leak, d = ppan_vector_useful_data([0.9, 0.5], 0.5)
    >>> round(leak, 6), d.round(6).tolist()
    (0.403438, [0.5, 0.0])
    """
    r = np.abs(np.atleast_1d(np.asarray(rhos, dtype=float)))
    if r.ndim != 1 or r.size == 0 or np.any(r <= 0) or np.any(r > 1):
        raise ValueError("rhos must be a non-empty 1-D array of correlations in (0, 1].")
    d = _component_distortions(r, delta / c)
    leak = gaussian_mutual_information_from_correlation(r * np.sqrt(1.0 - d))
    return max(leak, 0.0), d


@validate_params(
    {"rho": [UNIT], "delta": ["array-like", NONNEGATIVE]},
    prefer_skip_nested_validation=True,
)
def ppan_scalar_full_data(rho, delta):
    """Prop. 3: unit-variance scalars, release sees (X, Y); ``E(Y - Z)^2 <= delta``.

    Parameters
    ----------
    rho : float
        Correlation in [0, 1].
    delta : float or array-like
        Distortion limit(s).

    Returns
    -------
    float or ndarray
        0 when ``delta >= rho^2``, else
        ``-0.5 log(1 - (sqrt(rho^2 (1 - delta)) - sqrt((1 - rho^2) delta))^2)``.

    See Also
    --------
    ppan_scalar_useful_data : The same when the release sees Y only.
    sklearn_privacy.adversarial.PPANTransformer : The adversarial network these optima benchmark.

    Examples
    --------
    >>> from sklearn_privacy.theory import ppan_scalar_full_data
    >>> round(ppan_scalar_full_data(0.8, 0.2), 6)
    0.111572
    """
    d = _check_delta(delta)
    dc = np.minimum(d, 1.0)
    g = np.sqrt(rho**2 * (1 - dc)) - np.sqrt((1 - rho**2) * dc)
    # g is the correlation of X and the optimal Z
    leak = gaussian_mutual_information_from_correlation(np.clip(g, -1.0, 1.0), axis=())
    out = np.where(d >= rho**2, 0.0, leak)
    return float(out) if out.ndim == 0 else out


def _symmetric_pair_mi(m, p):
    """``r_m(p) = log m - p log(m - 1) - h_2(p)``, the MI of the symmetric pair (7)."""
    p = np.asarray(p, dtype=float)
    return np.log(m) - p * np.log(m - 1) - binary_entropy(p)


@validate_params(
    {
        "m": [Interval(Integral, 2, None, closed="left")],
        "p": [UNIT],
        "delta": ["array-like", UNIT],
    },
    prefer_skip_nested_validation=True,
)
def symmetric_pair_full_data(m, p, delta):
    """Eq. 8: optimal leakage when the release sees (X, Y), error probability <= delta.

    Parameters
    ----------
    m : int
        Alphabet size of the symmetric pair, at least 2.
    p : float
        Probability ``P(Y != X)`` that the two attributes differ, in [0, 1].
    delta : float or array-like
        Limit(s) on the error probability ``P(Z != Y)``, in [0, 1].

    Returns
    -------
    float or ndarray
        Least leakage ``I(X; Z)`` in nats: ``r_m(p + delta)`` while
        ``delta <= 1 - 1/m - p``, ``r_m(p - delta)`` while
        ``delta <= p - (1 - 1/m)``, and 0 beyond, with
        ``r_m(q) = log m - q log(m - 1) - h_2(q)``.

    See Also
    --------
    symmetric_pair_useful_data : The same when the release sees Y only.
    sklearn_privacy.datasets.symmetric_pair_pmf : The joint pmf of the pair.

    Examples
    --------
    >>> from sklearn_privacy.theory import symmetric_pair_full_data
    >>> round(symmetric_pair_full_data(10, 0.4, 0.1), 6)
    0.510826
    """
    d = np.asarray(delta, dtype=float)
    top = 1 - 1 / m
    out = np.where(
        d <= top - p,
        _symmetric_pair_mi(m, np.clip(p + d, 0, 1)),
        np.where(d <= p - top, _symmetric_pair_mi(m, np.clip(p - d, 0, 1)), 0.0),
    )
    out = np.maximum(out, 0.0)
    return float(out) if out.ndim == 0 else out


@validate_params(
    {
        "m": [Interval(Integral, 2, None, closed="left")],
        "p": [UNIT],
        "delta": ["array-like", UNIT],
    },
    prefer_skip_nested_validation=True,
)
def symmetric_pair_useful_data(m, p, delta):
    """Eq. 9: optimal leakage when the release sees Y only, error probability <= delta.

    Parameters
    ----------
    m : int
        Alphabet size of the symmetric pair, at least 2.
    p : float
        Probability ``P(Y != X)`` that the two attributes differ, in [0, 1].
    delta : float or array-like
        Limit(s) on the error probability ``P(Z != Y)``, in [0, 1].

    Returns
    -------
    float or ndarray
        Least leakage ``I(X; Z)`` in nats:
        ``r_m(p + delta (1 - p m / (m - 1)))`` while ``delta < 1 - 1/m``, and
        0 beyond, with ``r_m(q) = log m - q log(m - 1) - h_2(q)``.

    See Also
    --------
    symmetric_pair_full_data : The same when the release sees (X, Y).
    sklearn_privacy.datasets.make_symmetric_pair : Samples of the pair.

    Examples
    --------
    >>> from sklearn_privacy.theory import symmetric_pair_useful_data
    >>> round(symmetric_pair_useful_data(10, 0.4, 0.1), 6)
    0.612436
    """
    d = np.asarray(delta, dtype=float)
    q = np.clip(p + d * (1 - p * m / (m - 1)), 0, 1)
    out = np.where(d < 1 - 1 / m, _symmetric_pair_mi(m, q), 0.0)
    out = np.maximum(out, 0.0)
    return float(out) if out.ndim == 0 else out
