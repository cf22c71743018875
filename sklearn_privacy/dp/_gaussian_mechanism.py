"""The analytic Gaussian mechanism (Balle and Wang 2018) and the classical bound.

delta, epsilon, sigma and sensitivity of the Gaussian mechanism from each other, and the
``gaussian_dp_*`` functions in ``mu = Delta / sigma`` (mu-GDP). How delta is computed
without cancellation: "The analytic Gaussian mechanism's numerics" in ``docs/design.md``.
"""

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, erfinv, log_ndtr, ndtri

from sklearn_privacy.utils import NONNEGATIVE, NONNEGATIVE_OR_INF, OPEN_UNIT, POSITIVE
from sklearn_privacy.utils._sklearn_compat import validate_params

__all__ = [
    "approximate_gaussian_epsilon",
    "classical_gaussian_sigma",
    "gaussian_delta",
    "gaussian_dp_delta_from_mu",
    "gaussian_dp_epsilon_from_mu",
    "gaussian_dp_mu",
    "gaussian_epsilon",
    "gaussian_max_sensitivity",
    "gaussian_sigma",
]

_FLOAT_MAX = float(np.finfo(float).max)
_EPS = float(np.finfo(float).eps)
_SQRT2 = math.sqrt(2.0)
_SQRT_HALF_PI = math.sqrt(math.pi / 2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(24)
# 1 - t R(t) = sum_k (-1)^(k+1) (2k-1)!! / t^(2k) (asymptotic): 39 terms give 1e-19 from
# t = 10; below, 1 - t R(t) directly loses at most 4e-14 to cancellation.
_ASYMPTOTIC_FROM = 10.0
_ASYMPTOTIC_POLY = (np.cumprod(2.0 * np.arange(1, 40) - 1.0) * (-1.0) ** np.arange(39))[::-1]
_VELTKAMP = 134217729.0  # 2**27 + 1


def _mills(t):
    """Mills ratio ``R(t) = Phi(-t) / phi(t)`` (t >= 0, inf allowed)."""
    return _SQRT_HALF_PI * erfcx(t / _SQRT2)


def _mills_slope(t):
    """``-R'(t) = 1 - t R(t)`` for an array of t >= 0, to 4e-14 relative or better."""
    out = 1.0 - t * _mills(t)
    big = t >= _ASYMPTOTIC_FROM
    if big.any():
        inv = (1.0 / t[big]) ** 2
        out[big] = inv * np.polyval(_ASYMPTOTIC_POLY, inv)
    return out


def _mills_gap(p, center, half):
    """``R(p) - R(center + half)`` where ``p = center - half >= 0``, without cancellation."""
    r_low, r_high = float(_mills(p)), float(_mills(center + half))
    if r_high <= 0.5 * r_low:
        return r_low - r_high
    # the integral of 1 - t R(t) over [p, center + half]: Gauss-Legendre
    return half * float(_GL_WEIGHTS @ _mills_slope(center + half * _GL_NODES))


def _two_square(a):
    """``a * a`` as ``hi + lo`` exactly (Dekker), for ``0.5 <= a < 1``."""
    hi = a * a
    c = _VELTKAMP * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    return hi, ((a_hi * a_hi - hi) + 2.0 * a_hi * a_lo) + a_lo * a_lo


def _terms(epsilon, mu):
    """``x = epsilon / mu``, ``h = mu / 2`` and ``u = x - h`` to full relative precision.

    Python floats (finite ``epsilon >= 0``, finite ``mu > 0``): they overflow to inf
    and underflow to 0 silently.
    """
    x = epsilon / mu
    h = 0.5 * mu
    if not (0.25 * h <= x <= 4.0 * h and x < _FLOAT_MAX and h > 0.0):
        return x, h, x - h  # no cancellation (or an infinite term)
    # (epsilon - mu^2 / 2) / mu with mu = m 2^e and m^2 in double-double; scaling by
    # powers of two is exact, and epsilon 2^(-2e) is close to m^2 / 2, so representable.
    m, e = math.frexp(mu)
    hi, lo = _two_square(m)
    scaled = math.ldexp(epsilon, -2 * e)
    return x, h, math.ldexp(((scaled - 0.5 * hi) - 0.5 * lo) / m, e)


def _log(value):
    return math.log(value) if value > 0.0 else -math.inf


def _log_add(a, b):
    """``log(exp(a) + exp(b))``."""
    if a < b:
        a, b = b, a
    return a if b == -math.inf else a + math.log1p(math.exp(b - a))


def _log_delta(epsilon, mu):
    """``log delta(epsilon)`` of the Gaussian mechanism with ``mu = Delta / sigma``.

    Exact in ``[0, inf]`` for both arguments: ``mu = 0`` gives ``-inf``
    (identical outputs), ``mu = inf`` gives ``0`` (``delta = 1``).
    """
    epsilon, mu = float(epsilon), float(mu)
    if mu == 0.0:
        return -math.inf
    if mu == math.inf:
        return 0.0
    if epsilon == math.inf:
        return -math.inf
    x, h, u = _terms(epsilon, mu)
    p = abs(u)
    # (the sign of u decides, not x >= h: x may round onto h)
    big, small = (x, h) if u >= 0 else (h, x)
    log_tail = -0.5 * p * p - _LOG_SQRT_2PI + _log(_mills_gap(p, big, small))
    if u < 0:
        log_tail = _log_add(_log(math.erf(p / _SQRT2)), log_tail)
    return min(log_tail, 0.0)


def _log_one_minus_delta(epsilon, mu):
    """``log(1 - delta(epsilon))``, accurate where delta is close to 1.

    ``1 - delta = Phi(-a) + exp(epsilon) Phi(b) = Phi(x - h) + phi(x - h) R(x + h)``:
    a sum of positive terms (finite positive ``mu``, finite ``epsilon``).
    """
    x, h, u = _terms(float(epsilon), float(mu))
    log_tail = -0.5 * u * u - _LOG_SQRT_2PI + _log(float(_mills(x + h)))
    return min(_log_add(float(log_ndtr(u)), log_tail), 0.0)


def _excess(epsilon, mu, delta):
    """A number with the sign of ``delta(epsilon, mu) - delta``, finite, and smooth in both.

    ``log delta(epsilon, mu) - log delta`` for ``delta <= 1/2``; beyond,
    ``log(1 - delta) - log(1 - delta(epsilon, mu))``, where ``1 - delta`` is exact.
    """
    if delta <= 0.5:
        value = _log_delta(epsilon, mu) - math.log(delta)
    elif mu == 0.0 or epsilon == math.inf:
        value = -math.inf
    elif mu == math.inf:
        value = math.inf
    else:
        value = math.log1p(-delta) - _log_one_minus_delta(epsilon, mu)
    return min(max(value, -_FLOAT_MAX), _FLOAT_MAX)


def _mu_of(sigma, sensitivity):
    """``sensitivity / sigma``, overflowing to inf and underflowing to 0 silently."""
    return float(sensitivity) / float(sigma)


def _exp(value):
    """``math.exp`` that overflows to inf instead of raising."""
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def _epsilon_from_mu(mu, delta):
    """Smallest float epsilon >= 0 with ``delta(epsilon, mu) <= delta`` (inf if none)."""
    mu, delta = float(mu), float(delta)
    if mu == 0.0:
        return 0.0
    if mu == math.inf:
        return math.inf

    def f(e):  # decreasing in e
        return _excess(e, mu, delta)

    if f(0.0) <= 0.0:
        return 0.0
    # delta(epsilon) <= Phi(mu / 2 - epsilon / mu): an upper bound, and a finite one
    # unless mu is above ~1.9e154 (then no float epsilon may suffice).
    z = -float(ndtri(delta))
    hi = mu * (z + 0.5 * mu)
    if hi > _FLOAT_MAX:
        hi = _FLOAT_MAX
    elif hi <= 0.0:  # then f(0) <= 0 but for rounding: the root is near 0
        hi = mu * _EPS
    while f(hi) > 0.0:  # only through rounding of the bound
        if hi == _FLOAT_MAX:
            return math.inf
        hi = min(2.0 * hi, _FLOAT_MAX)
    epsilon = brentq(f, 0.0, hi, xtol=5e-324, rtol=4 * _EPS, maxiter=1000)
    # Round to the smallest float that meets delta (Brent stops within 4 ulps).
    for _ in range(64):
        if f(epsilon) > 0.0:
            epsilon = math.nextafter(epsilon, math.inf)
            continue
        below = math.nextafter(epsilon, 0.0)
        if epsilon == 0.0 or f(below) > 0.0:
            break
        epsilon = below
    return float(epsilon)


def _mu_at_zero(delta):
    """``mu`` with ``delta(0, mu) = erf(mu / (2 sqrt 2)) = delta`` (total variation)."""
    if delta <= 0.5:
        return float(2.0 * _SQRT2 * erfinv(delta))
    return float(-2.0 * ndtri(0.5 * (1.0 - delta)))  # 1 - delta is exact here


def _mu_from(epsilon, delta):
    """The largest ``mu`` for which ``delta(epsilon, mu) <= delta`` (finite ``epsilon >= 0``)."""
    epsilon, delta = float(epsilon), float(delta)
    mu_zero = _mu_at_zero(delta)
    if epsilon == 0.0:
        return mu_zero
    # Lower bounds: delta decreases in epsilon, so mu* >= mu*(0); and
    # delta <= Phi(mu / 2 - epsilon / mu), so mu* >= the root of
    # mu^2 / 2 + z mu - epsilon = 0, with Phi(-z) = delta.
    z = -float(ndtri(delta))
    root = math.hypot(z, _SQRT2 * math.sqrt(epsilon))
    mu_low = max(epsilon / (0.5 * (z + root)) if z > 0 else root - z, mu_zero)

    # Solve for s = log(mu / mu_low), near 0, so that mu keeps full relative precision.
    def f(s):  # increasing in s
        return _excess(epsilon, mu_low * _exp(s), delta)

    lo, step = 0.0, 1.0
    while f(lo) > 0.0:  # only through rounding of the bounds
        lo -= step
        step *= 2.0
    hi, step = lo + 0.5, 0.5
    while f(hi) < 0.0:
        lo, hi = hi, hi + step
        step *= 2.0
    s = brentq(f, lo, hi, xtol=1e-17, rtol=4 * _EPS, maxiter=1000)
    return mu_low * _exp(s)


@validate_params(
    {
        "epsilon": [NONNEGATIVE_OR_INF],
        "sigma": [POSITIVE],
        "sensitivity": [POSITIVE],
    },
    prefer_skip_nested_validation=True,
)
def gaussian_delta(epsilon, sigma, sensitivity=1.0):
    r"""Smallest delta for which the Gaussian mechanism is (epsilon, delta)-DP.

    Balle and Wang (2018), Thm. 8 (dp-compression-kohler2018, Thm. 1.2.2): exact,
    necessary and sufficient. Depends on ``sigma`` and ``sensitivity`` only
    through :math:`\mu = \text{sensitivity} / \sigma`: see :func:`gaussian_dp_delta_from_mu`.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, >= 0 (``inf`` gives 0).
    sigma : float
        Standard deviation of the isotropic Gaussian noise, > 0.
    sensitivity : float, default=1.0
        L2 sensitivity of the released function under the neighbouring relation.

    Returns
    -------
    float
        delta in [0, 1]: it tends to 1 as :math:`\text{sensitivity} / \sigma` grows (exactly
        1 once :math:`\text{sensitivity} / \sigma` overflows) and is 0 only where the true
        value is below the smallest float.

    See Also
    --------
    gaussian_epsilon : The inverse, epsilon at a given delta.
    gaussian_sigma : Noise needed for a given (epsilon, delta).

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_delta
    >>> round(gaussian_delta(1.0, 1.0), 6)
    0.126937
    >>> gaussian_delta(5.0, 1e-300)  # mu = 1e300: no privacy at all
    1.0
    """
    return math.exp(_log_delta(epsilon, _mu_of(sigma, sensitivity)))


@validate_params(
    {"sigma": [POSITIVE], "delta": [OPEN_UNIT], "sensitivity": [POSITIVE]},
    prefer_skip_nested_validation=True,
)
def gaussian_epsilon(sigma, delta, sensitivity=1.0):
    r"""Smallest epsilon for which the Gaussian mechanism is (epsilon, delta)-DP.

    Inverts :func:`gaussian_delta` in epsilon (delta decreases in epsilon) by
    Brent's method, and rounds the root to the smallest float epsilon whose
    delta does not exceed ``delta``.

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
        epsilon >= 0 (0 when the noise already gives (0, delta)-DP); ``inf``
        when no float epsilon suffices, which happens once
        :math:`\text{sensitivity} / \sigma` exceeds about 1.9e154 (the exact epsilon, about
        :math:`(\text{sensitivity} / \sigma)^2 / 2`, is then above the largest float).

    See Also
    --------
    gaussian_delta : The inverse, delta at a given epsilon.
    gaussian_sigma : Noise needed for a given (epsilon, delta).
    approximate_gaussian_epsilon : A closed-form upper bound.

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_epsilon
    >>> round(gaussian_epsilon(1.0, 1e-5), 4)
    4.3772
    >>> gaussian_epsilon(1e-300, 1e-5)
    inf
    """
    return _epsilon_from_mu(_mu_of(sigma, sensitivity), delta)


@validate_params(
    {"epsilon": [POSITIVE], "delta": [OPEN_UNIT], "sensitivity": [POSITIVE]},
    prefer_skip_nested_validation=True,
)
def gaussian_sigma(epsilon, delta, sensitivity=1.0):
    r"""Smallest noise standard deviation that makes the Gaussian mechanism (epsilon, delta)-DP.

    Analytic calibration of Balle and Wang (2018), Alg. 1, solved here by root
    finding on :math:`\log \delta` as a function of :math:`\log(\text{sensitivity} / \sigma)`,
    from an analytic bracket: robust for any epsilon > 0 and delta in (0, 1)
    (checked for epsilon from 1e-8 to 1e6 and delta from 1e-300 to 1 - 1e-16).

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

    Raises
    ------
    ValueError
        When sigma is not a positive float (``sensitivity`` near the ends of
        the float range and extreme epsilon, delta).

    See Also
    --------
    gaussian_epsilon : Epsilon of a given noise.
    classical_gaussian_sigma : The classical, larger calibration.
    gaussian_dp_mu : The same calibration as a ``mu``-GDP parameter.

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_sigma
    >>> round(gaussian_sigma(1.0, 1e-5), 5)
    3.73063
    """
    mu = _mu_from(epsilon, delta)
    sigma = float(sensitivity) / mu  # Python floats: inf or 0 rather than a warning
    if not 0.0 < sigma < math.inf:
        raise ValueError(
            f"The noise that makes the Gaussian mechanism (epsilon={epsilon!r}, delta={delta!r})-"
            f"DP at sensitivity={sensitivity!r} is sigma = sensitivity / {mu!r}, which is not "
            "a positive float. Rescale the sensitivity (e.g. change units)."
        )
    return sigma


@validate_params(
    {"epsilon": [POSITIVE], "delta": [OPEN_UNIT]},
    prefer_skip_nested_validation=True,
)
def gaussian_max_sensitivity(epsilon, delta):
    r"""Largest L2 sensitivity that unit-variance Gaussian noise covers at (epsilon, delta).

    ``1 / gaussian_sigma(epsilon, delta)``, i.e. :func:`gaussian_dp_mu`: the
    mechanisms in :mod:`sklearn_privacy.gaussian` whiten their noise to the
    identity and then bound the Mahalanobis sensitivity by this value.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0.
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float

    See Also
    --------
    gaussian_sigma : Noise needed for a given sensitivity.
    gaussian_dp_mu : The same ratio :math:`\text{sensitivity} / \sigma`.

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_max_sensitivity
    >>> round(gaussian_max_sensitivity(1.0, 1e-5), 6)
    0.268051
    """
    return _mu_from(epsilon, delta)


@validate_params(
    {"epsilon": [NONNEGATIVE], "delta": [OPEN_UNIT]},
    prefer_skip_nested_validation=True,
)
def gaussian_dp_mu(epsilon, delta):
    r"""Largest :math:`\mu = \text{sensitivity} / \sigma` keeping the mechanism (epsilon, delta)-DP.

    Equivalently the largest ``mu`` such that ``mu``-Gaussian differential
    privacy (Dong, Roth and Su 2022) implies (epsilon, delta)-DP: the
    (epsilon, delta) curve of ``mu``-GDP is the analytic Gaussian mechanism's.
    ``1 / gaussian_sigma(epsilon, delta)`` for epsilon > 0; at epsilon = 0 it
    is the closed form :math:`2 \sqrt{2}\, \operatorname{erf}^{-1}(\delta)` (delta is then the total
    variation distance).

    Parameters
    ----------
    epsilon : float
        Target epsilon, >= 0 and finite.
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        mu > 0.

    See Also
    --------
    gaussian_dp_epsilon_from_mu : epsilon of ``mu``-GDP at a given delta.
    gaussian_dp_delta_from_mu : delta of ``mu``-GDP at a given epsilon.

    Examples
    --------
    >>> from sklearn_privacy.dp import (
    ...     gaussian_dp_delta_from_mu, gaussian_dp_mu)
    >>> mu = gaussian_dp_mu(1.0, 1e-5)
    >>> round(mu, 6)
    0.268051
    >>> round(gaussian_dp_delta_from_mu(1.0, mu) / 1e-5, 9)
    1.0
    """
    return _mu_from(epsilon, delta)


@validate_params(
    {"mu": [NONNEGATIVE_OR_INF], "delta": [OPEN_UNIT]},
    prefer_skip_nested_validation=True,
)
def gaussian_dp_epsilon_from_mu(mu, delta):
    r"""Smallest epsilon for which ``mu``-Gaussian DP implies (epsilon, delta)-DP.

    The conversion of Dong, Roth and Su (2022; Cor. 2.13 of arXiv:1905.02383), equal to
    :func:`gaussian_epsilon` with :math:`\text{sensitivity} / \sigma = \mu`; it takes ``mu``
    directly, so that compositions (:math:`\mu = \sqrt{\sum_i \mu_i^2}`) need no
    sigma.

    Parameters
    ----------
    mu : float
        GDP parameter, >= 0: ``0`` (identical outputs) gives 0, ``inf`` gives
        ``inf``.
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        epsilon >= 0; ``inf`` when no float epsilon suffices (``mu`` above
        about 1.9e154).

    See Also
    --------
    gaussian_dp_delta_from_mu : the inverse, delta at a given epsilon.

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_dp_epsilon_from_mu
    >>> round(gaussian_dp_epsilon_from_mu(1.0, 1e-5), 4)
    4.3772
    >>> gaussian_dp_epsilon_from_mu(0.0, 1e-5)
    0.0
    """
    return _epsilon_from_mu(mu, delta)


@validate_params(
    {"epsilon": [NONNEGATIVE_OR_INF], "mu": [NONNEGATIVE_OR_INF]},
    prefer_skip_nested_validation=True,
)
def gaussian_dp_delta_from_mu(epsilon, mu):
    r"""Smallest delta for which ``mu``-Gaussian DP implies (epsilon, delta)-DP.

    :math:`\Phi(\mu / 2 - \epsilon / \mu) - e^{\epsilon}\, \Phi(-\mu / 2 - \epsilon / \mu)`
    (Dong, Roth and Su 2022; Cor. 2.13 of arXiv:1905.02383), equal to :func:`gaussian_delta` with
    :math:`\text{sensitivity} / \sigma = \mu`, evaluated without cancellation.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, >= 0 (``inf`` gives 0 for a finite ``mu``).
    mu : float
        GDP parameter, >= 0: ``0`` gives delta 0, ``inf`` gives delta 1.

    Returns
    -------
    float
        delta in [0, 1].

    See Also
    --------
    gaussian_dp_epsilon_from_mu : the inverse, epsilon at a given delta.

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_dp_delta_from_mu
    >>> round(gaussian_dp_delta_from_mu(1.0, 1.0), 6)
    0.126937
    >>> gaussian_dp_delta_from_mu(1.0, float("inf"))
    1.0
    """
    return math.exp(_log_delta(epsilon, mu))


@validate_params(
    {"epsilon": [OPEN_UNIT], "delta": [OPEN_UNIT], "sensitivity": [POSITIVE]},
    prefer_skip_nested_validation=True,
)
def classical_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    r"""Noise of the classical Gaussian mechanism (Dwork and Roth 2014, Thm. 3.22).

    :math:`\sigma = \text{sensitivity} \cdot \sqrt{2 \log(1.25 / \delta)} / \epsilon`, a sufficient
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

    See Also
    --------
    gaussian_sigma : The exact (analytic) noise, never larger than this one.
    approximate_gaussian_epsilon : Closed-form epsilon of a given noise.

    Examples
    --------
    >>> from sklearn_privacy.dp import classical_gaussian_sigma
    >>> round(classical_gaussian_sigma(0.5, 1e-5), 4)
    9.6896
    """
    sigma = float(sensitivity) * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    if not sigma < math.inf:
        raise ValueError(
            f"The classical noise for epsilon={epsilon!r}, delta={delta!r}, "
            f"sensitivity={sensitivity!r} exceeds the largest float. Rescale the sensitivity."
        )
    return sigma


@validate_params(
    {"sigma": [POSITIVE], "delta": [OPEN_UNIT], "sensitivity": [POSITIVE]},
    prefer_skip_nested_validation=True,
)
def approximate_gaussian_epsilon(sigma, delta, sensitivity=1.0):
    r"""Closed-form sufficient epsilon of dp-compression-kohler2018, Thm. 5.4.1.

    :math:`\epsilon = \Phi^{-1}(1 - \delta) \sqrt{2 \eta} + \eta` with
    :math:`\eta = \text{sensitivity}^2 / (2 \sigma^2)`. Always >= :func:`gaussian_epsilon`
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

    See Also
    --------
    gaussian_epsilon : The exact smallest epsilon, never larger than this bound.
    classical_gaussian_sigma : The classical noise calibration.

    Examples
    --------
    >>> from sklearn_privacy.dp import approximate_gaussian_epsilon
    >>> round(approximate_gaussian_epsilon(1.0, 1e-5), 4)
    4.7649
    """
    # with mu = sensitivity / sigma = sqrt(2 eta): mu (Phi^-1(1 - delta) + mu / 2), in
    # Python floats, so that a huge mu gives inf rather than an error
    mu = _mu_of(sigma, sensitivity)
    return mu * (-float(ndtri(delta)) + 0.5 * mu)
