"""The analytic Gaussian mechanism (Balle and Wang 2018) and the classical bound.

Releasing ``f(D) + N(0, sigma^2 I)`` where ``f`` has L2 sensitivity ``Delta`` is
(epsilon, delta)-DP if and only if (dp-compression-kohler2018, Thm. 1.2.2)

    Phi(Delta / (2 sigma) - epsilon sigma / Delta)
        - exp(epsilon) Phi(-Delta / (2 sigma) - epsilon sigma / Delta) <= delta.

Everything here is evaluated in log space, so that large epsilon (tiny delta)
keeps full relative precision.
"""

from numbers import Real

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtri
from sklearn.utils._param_validation import Interval, validate_params

_POSITIVE = Interval(Real, 0, None, closed="neither")
_NONNEGATIVE = Interval(Real, 0, None, closed="left")
_OPEN_UNIT = Interval(Real, 0, 1, closed="neither")


def _log_delta(epsilon, mu):
    """``log delta(epsilon)`` of the Gaussian mechanism with ``mu = Delta / sigma``."""
    a = mu / 2.0 - epsilon / mu
    b = -mu / 2.0 - epsilon / mu
    la = log_ndtr(a)
    lb = epsilon + log_ndtr(b)
    if lb >= la:  # only through rounding: delta is positive for every finite epsilon
        return -np.inf
    return la + np.log(-np.expm1(lb - la))


@validate_params(
    {
        "epsilon": [_NONNEGATIVE],
        "sigma": [_POSITIVE],
        "sensitivity": [_POSITIVE],
    },
    prefer_skip_nested_validation=True,
)
def gaussian_delta(epsilon, sigma, sensitivity=1.0):
    """Smallest delta for which the Gaussian mechanism is (epsilon, delta)-DP.

    Balle and Wang (2018), Thm. 8 (dp-compression-kohler2018, Thm. 1.2.2): exact,
    necessary and sufficient.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, >= 0.
    sigma : float
        Standard deviation of the isotropic Gaussian noise, > 0.
    sensitivity : float, default=1.0
        L2 sensitivity of the released function under the neighbouring relation.

    Returns
    -------
    float
        delta in (0, 1].

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_delta
    >>> round(gaussian_delta(1.0, 1.0), 6)
    0.126937
    """
    return float(np.exp(_log_delta(float(epsilon), sensitivity / sigma)))


@validate_params(
    {"sigma": [_POSITIVE], "delta": [_OPEN_UNIT], "sensitivity": [_POSITIVE]},
    prefer_skip_nested_validation=True,
)
def gaussian_epsilon(sigma, delta, sensitivity=1.0):
    """Smallest epsilon for which the Gaussian mechanism is (epsilon, delta)-DP.

    Inverts :func:`gaussian_delta` in epsilon (delta decreases in epsilon) to
    machine precision.

    Parameters
    ----------
    sigma : float
        Standard deviation of the Gaussian noise, > 0.
    delta : float
        Target delta in (0, 1).
    sensitivity : float, default=1.0
        L2 sensitivity.

    Returns
    -------
    float
        epsilon >= 0 (0 when the noise already gives (0, delta)-DP).

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_epsilon
    >>> round(gaussian_epsilon(1.0, 1e-5), 4)
    4.3772
    """
    mu = sensitivity / sigma
    log_target = np.log(delta)
    if _log_delta(0.0, mu) <= log_target:
        return 0.0
    hi = 1.0
    while _log_delta(hi, mu) > log_target:
        hi *= 2.0
    lo = hi / 2.0 if hi > 1.0 else 0.0
    return float(
        brentq(
            lambda e: _log_delta(e, mu) - log_target,
            lo,
            hi,
            xtol=1e-300,
            rtol=4 * np.finfo(float).eps,
        )
    )


@validate_params(
    {"epsilon": [_POSITIVE], "delta": [_OPEN_UNIT], "sensitivity": [_POSITIVE]},
    prefer_skip_nested_validation=True,
)
def gaussian_sigma(epsilon, delta, sensitivity=1.0):
    """Smallest noise standard deviation that makes the Gaussian mechanism (epsilon, delta)-DP.

    Analytic calibration of Balle and Wang (2018), Alg. 1, solved here by root
    finding on ``log delta`` as a function of ``sigma / sensitivity``.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0 (any size: the classical bound needs epsilon < 1).
    delta : float
        Target delta in (0, 1).
    sensitivity : float, default=1.0
        L2 sensitivity.

    Returns
    -------
    float
        sigma > 0.

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_sigma
    >>> round(gaussian_sigma(1.0, 1e-5), 5)
    3.73063
    """
    log_target = np.log(delta)
    # delta decreases in s = sigma / sensitivity, i.e. increases in mu = 1 / s.
    f = lambda log_s: _log_delta(epsilon, np.exp(-log_s)) - log_target  # noqa: E731
    lo, hi = -1.0, 1.0
    while f(lo) < 0:
        lo -= 2.0
    while f(hi) > 0:
        hi += 2.0
    log_s = brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    return float(sensitivity * np.exp(log_s))


@validate_params(
    {"epsilon": [_POSITIVE], "delta": [_OPEN_UNIT]},
    prefer_skip_nested_validation=True,
)
def gaussian_max_sensitivity(epsilon, delta):
    """Largest L2 sensitivity that unit-variance Gaussian noise covers at (epsilon, delta).

    ``1 / gaussian_sigma(epsilon, delta)``: the mechanisms in
    :mod:`sklearn_privacy.gaussian` whiten their noise to the identity and then
    bound the Mahalanobis sensitivity by this value.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_max_sensitivity
    >>> round(gaussian_max_sensitivity(1.0, 1e-5), 6)
    0.268051
    """
    return 1.0 / gaussian_sigma(epsilon, delta)


@validate_params(
    {"epsilon": [_OPEN_UNIT], "delta": [_OPEN_UNIT], "sensitivity": [_POSITIVE]},
    prefer_skip_nested_validation=True,
)
def classical_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    """Noise of the classical Gaussian mechanism (Dwork and Roth 2014, Thm. 3.22).

    ``sigma = sensitivity * sqrt(2 log(1.25 / delta)) / epsilon``, a sufficient
    condition that holds only for epsilon < 1 (dp-compression-kohler2018,
    Thm. 1.2.1). Kept for comparison: :func:`gaussian_sigma` is never larger.

    Parameters
    ----------
    epsilon : float
        Target epsilon in (0, 1).
    delta : float
        Target delta in (0, 1).
    sensitivity : float, default=1.0
        L2 sensitivity.

    Returns
    -------
    float

    Examples
    --------
    >>> from sklearn_privacy.dp import classical_gaussian_sigma
    >>> round(classical_gaussian_sigma(0.5, 1e-5), 4)
    9.6896
    """
    return float(sensitivity * np.sqrt(2.0 * np.log(1.25 / delta)) / epsilon)


@validate_params(
    {"sigma": [_POSITIVE], "delta": [_OPEN_UNIT], "sensitivity": [_POSITIVE]},
    prefer_skip_nested_validation=True,
)
def approximate_gaussian_epsilon(sigma, delta, sensitivity=1.0):
    """Closed-form sufficient epsilon of dp-compression-kohler2018, Thm. 5.4.1.

    ``epsilon = Phi^-1(1 - delta) sqrt(2 eta) + eta`` with
    ``eta = sensitivity^2 / (2 sigma^2)``. Always >= :func:`gaussian_epsilon`
    (it drops the negative term of the exact condition).

    Parameters
    ----------
    sigma : float
        Noise standard deviation.
    delta : float
        Target delta in (0, 1).
    sensitivity : float, default=1.0
        L2 sensitivity.

    Returns
    -------
    float

    Examples
    --------
    >>> from sklearn_privacy.dp import approximate_gaussian_epsilon
    >>> round(approximate_gaussian_epsilon(1.0, 1e-5), 4)
    4.7649
    """
    eta = sensitivity**2 / (2.0 * sigma**2)
    return float(-ndtri(delta) * np.sqrt(2.0 * eta) + eta)
