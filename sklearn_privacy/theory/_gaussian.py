"""Gaussian rate-distortion by reverse water-filling (Cover and Thomas, sec. 10.3.3)."""

import numpy as np

from sklearn_privacy.information import gaussian_channel_rate
from sklearn_privacy.utils import NONNEGATIVE, POSITIVE
from sklearn_privacy.utils._sklearn_compat import validate_params


def _check_eigenvalues(eigenvalues):
    s = np.atleast_1d(np.asarray(eigenvalues, dtype=float))
    if s.ndim != 1 or s.size == 0:
        raise ValueError("eigenvalues must be a non-empty 1-D array.")
    if not np.all(np.isfinite(s)):
        raise ValueError("eigenvalues contains NaN or infinite values.")
    if s.min() < 0:
        raise ValueError(
            f"eigenvalues must be >= 0 (a covariance is positive semi-definite), got {s.min():.3g}."
        )
    return s


@validate_params(
    {"eigenvalues": ["array-like"], "distortion": [NONNEGATIVE]},
    prefer_skip_nested_validation=True,
)
def reverse_water_filling(eigenvalues, distortion):
    r"""Water level and per-component distortions of Gaussian rate-distortion.

    Parameters
    ----------
    eigenvalues : array-like of shape (d,)
        Variances :math:`s_i` of the independent components (eigenvalues of Sigma).
    distortion : float
        Total squared-error distortion :math:`D \ge 0`; above :math:`\sum_i s_i` nothing is sent.

    Returns
    -------
    theta : float
        Water level (``inf`` when :math:`D \ge \sum_i s_i`).
    component_distortions : ndarray of shape (d,)
        :math:`\min(\theta, s_i)`.

    See Also
    --------
    gaussian_rate_distortion : The rate these distortions reach.

    Examples
    --------
    >>> from sklearn_privacy.theory import reverse_water_filling
    >>> theta, d = reverse_water_filling([4.0, 1.0, 0.25], 1.25)
    >>> float(theta), d.tolist()
    (0.5, [0.5, 0.5, 0.25])
    """
    s = _check_eigenvalues(eigenvalues)
    if distortion >= s.sum():
        return np.inf, s.copy()
    order = np.sort(s)
    # Fill from the smallest variance: with k components below the water level,
    # theta = (D - sum of those k) / (d - k).
    csum = np.concatenate([[0.0], np.cumsum(order)])
    d = s.size
    for k in range(d):
        theta = (distortion - csum[k]) / (d - k)
        if theta <= order[k]:
            break
    return float(theta), np.minimum(theta, s)


@validate_params(
    {"eigenvalues": ["array-like"], "distortion": ["array-like", NONNEGATIVE]},
    prefer_skip_nested_validation=True,
)
def gaussian_rate_distortion(eigenvalues, distortion):
    r"""Rate-distortion function :math:`R(D)` of a Gaussian vector, in nats.

    Parameters
    ----------
    eigenvalues : array-like of shape (d,)
        Component variances.
    distortion : float or array-like
        Total squared-error distortion(s).

    Returns
    -------
    float or ndarray
        :math:`\sum_i \frac{1}{2} \log(s_i / \min(\theta, s_i))`.

    See Also
    --------
    reverse_water_filling : The water level behind this rate.
    gaussian_rate_distortion_beta : Rate and distortion at a multiplier ``beta``.
    rate_distortion : Rate-distortion of a discrete source.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.theory import gaussian_rate_distortion
    >>> bool(np.isclose(gaussian_rate_distortion([1.0], 0.25), np.log(2)))
    True
    """
    s = _check_eigenvalues(eigenvalues)
    D = np.asarray(distortion, dtype=float)
    if np.any(D < 0):
        raise ValueError("distortion must be >= 0.")
    out = np.empty(D.shape)
    for idx, value in np.ndenumerate(D):
        _, di = reverse_water_filling(s, float(value))
        # D_i = 0 gives an infinite rate; s_i = 0 (0 / 0, masked) sends nothing
        with np.errstate(divide="ignore", invalid="ignore"):
            snr = np.where(s > 0, s / di, 1.0) - 1.0
        out[idx] = gaussian_channel_rate(snr)
    return float(out) if out.ndim == 0 else out


@validate_params(
    {
        "eigenvalues": ["array-like"],
        "beta": ["array-like", POSITIVE],
    },
    prefer_skip_nested_validation=True,
)
def gaussian_rate_distortion_beta(eigenvalues, beta):
    r"""Rate and distortion reached by L2 compression with multiplier ``beta``.

    dp-compression-kohler2018 Thm. 3.2.1 and sec. 3.4.1: water level :math:`1 / \beta`;
    components with :math:`\beta s_i \le 1` are pruned (distortion :math:`s_i`, rate 0).

    Parameters
    ----------
    eigenvalues : array-like of shape (d,)
    beta : float or array-like of float > 0

    Returns
    -------
    rate : float or ndarray
        :math:`\sum_{\beta s_i > 1} \frac{1}{2} \log(\beta s_i)` in nats.
    distortion : float or ndarray
        :math:`\sum_i \min(1 / \beta, s_i)`.

    See Also
    --------
    gaussian_rate_distortion : Rate at a given distortion.
    sklearn_privacy.gaussian.l2_compression : The compression that reaches this point.

    Examples
    --------
    >>> from sklearn_privacy.theory import gaussian_rate_distortion_beta
    >>> r, d = gaussian_rate_distortion_beta([4.0, 1.0, 0.25], 2.0)
    >>> round(r, 6), d
    (1.386294, 1.25)
    """
    s = _check_eigenvalues(eigenvalues)
    b = np.asarray(beta, dtype=float)
    bs = b[..., None] * s
    # a kept component has signal-to-noise ratio beta s_i - 1 (thesis Thm. 3.2.1)
    rate = gaussian_channel_rate(np.maximum(bs - 1.0, 0.0), axis=-1)
    dist = np.sum(np.minimum(1.0 / b[..., None], s), axis=-1)
    if np.ndim(rate) == 0:
        return float(rate), float(dist)
    return rate, dist
