"""Exponential-mechanism (epsilon, delta) bounds of dp-compression-kohler2018, sec. 5.3 (Cor. 1, 2).

Loose (thesis Fig. 6.1, 6.2) and resting on the marginal of T: the Gaussian mechanisms
report the exact Gaussian-mechanism epsilon and expose these only for comparison.
"""

import numpy as np

from sklearn_privacy.utils import NONNEGATIVE, OPEN_UNIT, POSITIVE, check_psd_matrix
from sklearn_privacy.utils._sklearn_compat import validate_params


@validate_params(
    {"cov": ["array-like"], "delta": [OPEN_UNIT]},
    prefer_skip_nested_validation=True,
)
def gaussian_norm_tail_radius(cov, delta):
    r"""Radius :math:`H` with :math:`P[\lVert t \rVert_2 > H] \le \delta` for a Gaussian :math:`t`.

    Here :math:`t \sim N(0, \text{cov})`: the Hsu-Kakade-Zhang tail bound (thesis fact
    A.1.4, re-derived: the printed eq. 5.4 lost its factors 2 and has a spurious minus sign).

    Parameters
    ----------
    cov : array-like of shape (d, d)
        Positive semi-definite covariance.
    delta : float
        Tail probability in (0, 1).

    Returns
    -------
    float
        :math:`\sqrt{\operatorname{tr} Q + 2 \sqrt{\operatorname{tr}(Q^2)\, s}
        + 2 \lVert Q \rVert_2\, s}` with :math:`s = \log(1 / \delta)`.

    See Also
    --------
    l2_exponential_epsilon : Uses this radius for L2 compression.
    gib_exponential_epsilon : Uses this radius for the information bottleneck.

    Examples
    --------
    >>> from sklearn_privacy.dp import gaussian_norm_tail_radius
    >>> round(gaussian_norm_tail_radius([[1.0]], 0.05), 4)
    3.2331
    """
    q = check_psd_matrix(cov, "cov")
    eig = np.clip(np.linalg.eigvalsh(q), 0.0, None)
    s = np.log(1.0 / delta)
    top = eig.max()
    if top == 0:
        return 0.0
    e = eig / top  # in units of the largest eigenvalue: eig**2 cannot overflow
    return float(np.sqrt(top) * np.sqrt(e.sum() + 2.0 * np.sqrt(np.sum(e**2) * s) + 2.0 * s))


@validate_params(
    {
        "beta": [POSITIVE],
        "release_cov": ["array-like"],
        "radius": [POSITIVE],
        "delta": [OPEN_UNIT],
    },
    prefer_skip_nested_validation=True,
)
def l2_exponential_epsilon(beta, release_cov, radius, delta):
    r"""Exponential-mechanism epsilon of L2 compression (thesis Cor. 1).

    Parameters
    ----------
    beta : float
        Lagrange multiplier of the rate-distortion problem.
    release_cov : array-like of shape (d, d)
        Covariance of the release :math:`T = A X + \xi`: :math:`A \Sigma A^T + \Lambda`.
    radius : float
        Clipping radius R of the inputs.
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        :math:`\beta (R + H(Q, \delta))^2` with :math:`Q` = ``release_cov`` and :math:`H`
        of :func:`gaussian_norm_tail_radius`.

    See Also
    --------
    gib_exponential_epsilon : The same bound for the information bottleneck.
    gaussian_norm_tail_radius : The noise radius the bound uses.
    sklearn_privacy.gaussian.L2CompressionDP : L2 compression with a DP guarantee.

    Examples
    --------
    >>> from sklearn_privacy.dp import l2_exponential_epsilon
    >>> round(l2_exponential_epsilon(2.0, [[0.5]], 1.0, 1e-5), 3)
    48.512
    """
    h = gaussian_norm_tail_radius(release_cov, delta)
    return _square_bound(beta, radius + h)


@validate_params(
    {
        "beta": [POSITIVE],
        "projection_norm": [NONNEGATIVE],
        "q": ["array-like"],
        "radius": [POSITIVE],
        "delta": [OPEN_UNIT],
    },
    prefer_skip_nested_validation=True,
)
def gib_exponential_epsilon(beta, projection_norm, q, radius, delta):
    r"""Exponential-mechanism epsilon of the Gaussian information bottleneck (thesis Cor. 2).

    Parameters
    ----------
    beta : float
        Information-bottleneck trade-off.
    projection_norm : float
        :math:`\lVert \Sigma_{Y|T}^{-1/2} \Sigma_{YX} \Sigma_X^{-1} \rVert_2` (thesis eq. 5.10).
    q : array-like of shape (d_y, d_y)
        :math:`\Sigma_{Y|T}^{-1/2} \Sigma_{YT} \Sigma_T^{-1} \Sigma_{TY} \Sigma_{Y|T}^{-1/2}`
        (thesis eq. A.113, the symmetric form of eq. 5.9).
    radius : float
        Clipping radius R.
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        :math:`\beta (p R + H(q, \delta))^2` with :math:`p` = ``projection_norm`` and
        :math:`H` of :func:`gaussian_norm_tail_radius`.

    See Also
    --------
    l2_exponential_epsilon : The same bound for L2 compression.
    gaussian_norm_tail_radius : The noise radius the bound uses.
    sklearn_privacy.gaussian.GaussianIBTransformer : The bottleneck release.

    Examples
    --------
    >>> from sklearn_privacy.dp import gib_exponential_epsilon
    >>> round(gib_exponential_epsilon(2.0, 1.0, [[0.5]], 1.0, 1e-5), 3)
    48.512
    """
    h = gaussian_norm_tail_radius(q, delta)
    return _square_bound(beta, projection_norm * radius + h)


def _square_bound(beta, radius):
    """``beta * radius**2``, infinite (not an OverflowError) beyond the largest float."""
    with np.errstate(over="ignore"):
        return float(beta * np.float64(radius) ** 2)
