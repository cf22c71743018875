"""Closed-form optimal linear-Gaussian compressions (pure functions)."""

import numpy as np
from scipy.linalg import eigh

from sklearn_privacy.information import gaussian_channel_rate
from sklearn_privacy.utils import POSITIVE, POSITIVE_INTEGER, check_psd_matrix
from sklearn_privacy.utils._sklearn_compat import validate_params


@validate_params(
    {
        "cov": ["array-like"],
        "beta": [POSITIVE],
        "n_components": [None, POSITIVE_INTEGER],
    },
    prefer_skip_nested_validation=True,
)
def l2_compression(cov, beta, n_components=None):
    r"""Optimal :math:`T = AX + \xi` for Gaussian :math:`X` under squared error (thesis Thm. 3.2.1).

    Here :math:`X \sim N(0, \Sigma)`, :math:`\Sigma` the covariance ``cov``. In its
    eigenbasis :math:`(s_i, v_i)` (:math:`s_i` are variances; thesis "sigma" is a
    variance), component :math:`i` is kept iff :math:`\beta s_i > 1` and then
    :math:`a_i = (\beta s_i - 1) / (\beta s_i)`, noise variance
    :math:`\lambda_i = (\beta s_i - 1) / (\beta^2 s_i)`. ``n_components`` prunes
    further to the largest ones (sec. 3.3).

    Parameters
    ----------
    cov : array-like of shape (d, d)
        Positive semi-definite covariance (zero eigenvalues are simply pruned).
    beta : float
        Lagrange multiplier (> 0); the water level is :math:`1 / \beta`.
    n_components : int, default=None
        Keep at most this many components.

    Returns
    -------
    dict
        ``components`` (k, d) orthonormal rows :math:`v_i`; ``variances`` (k,)
        :math:`s_i`; ``scale`` (k,) :math:`a_i`; ``noise_variance`` (k,)
        :math:`\lambda_i`; ``eigenvalues`` (d,) all :math:`s_i` in decreasing order;
        ``rate`` :math:`I(X;T)` in nats; ``distortion``
        :math:`\mathbb{E} \lVert X - T \rVert^2` (:math:`T` in the original space).

    See Also
    --------
    gaussian_information_bottleneck : Compression that keeps a relevance variable.
    L2CompressionDP : Estimator that fits this solution with a DP guarantee.
    sklearn_privacy.theory.gaussian_rate_distortion_beta : Its rate and distortion.

    Examples
    --------
    >>> from sklearn_privacy.gaussian import l2_compression
    >>> sol = l2_compression([[4.0, 0.0], [0.0, 0.25]], beta=2.0)
    >>> sol["scale"].tolist(), sol["noise_variance"].tolist()
    ([0.875], [0.4375])
    >>> sol["distortion"]
    0.75
    """
    cov = check_psd_matrix(cov, "cov")
    s, v = _descending_eigh(cov)
    return _l2_solution(s, v, beta, beta * s - 1.0, n_components)


def _descending_eigh(cov):
    s, v = np.linalg.eigh(cov)
    order = np.argsort(s)[::-1]
    return np.clip(s[order], 0.0, None), v[:, order]


def _l2_solution(s, v, beta, excess, n_components):
    """Thm. 3.2.1 from ``excess = beta s - 1`` per component (descending ``s``).

    The caller computes ``excess`` without cancellation where it can (for
    ``beta = 1 / s_max + g``: ``s g + (s / s_max - 1)``, exactly ``s_max g``
    for the first component), so that a tiny ``g`` is not rounded away.
    """
    bs = 1.0 + excess
    with np.errstate(divide="ignore", invalid="ignore"):  # s = 0: excess -1, bs 0
        scale_all = excess / bs
        noise_all = excess / (beta * bs)
    # a component whose shrinkage or noise underflows to zero cannot be released
    keep = (excess > 0.0) & (scale_all > 0.0) & (noise_all > 0.0)
    if n_components is not None:
        keep &= np.arange(s.size) < n_components
    sk, ek, scale, noise = s[keep], excess[keep], scale_all[keep], noise_all[keep]
    # the signal-to-noise ratio of component i is a_i^2 s_i / lambda_i = beta s_i - 1
    rate = gaussian_channel_rate(ek)
    distortion = float(keep.sum() / beta + s[~keep].sum())
    return {
        "components": v[:, keep].T.copy(),
        "variances": sk,
        "scale": scale,
        "noise_variance": noise,
        "eigenvalues": s,
        "rate": rate,
        "distortion": distortion,
    }


_LAMBDA_FLOOR = 1e-12


class _BetaAtOrBelowCritical(ValueError):
    """The bottleneck's refusal, with its eigenvalues and critical values (for a caller)."""

    def __init__(self, message, *, eigenvalues, critical_betas):
        super().__init__(message)
        self.eigenvalues = eigenvalues
        self.critical_betas = critical_betas
        self.critical = float(critical_betas.min())


def _critical(lam):
    with np.errstate(divide="ignore"):
        return 1.0 / (1.0 - lam)


def _relevance_eigen(cov_x, cov_xy, cov_y, name_y):
    cov_x = check_psd_matrix(cov_x, "cov_x", positive_definite=True)
    cov_y = check_psd_matrix(cov_y, name_y, positive_definite=True)
    cov_xy = np.atleast_2d(np.asarray(cov_xy, dtype=float))
    if cov_xy.shape != (cov_x.shape[0], cov_y.shape[0]):
        raise ValueError(
            f"cov_xy must have shape ({cov_x.shape[0]}, {cov_y.shape[0]}), got {cov_xy.shape}."
        )
    cond = cov_x - cov_xy @ np.linalg.solve(cov_y, cov_xy.T)
    cond = 0.5 * (cond + cond.T)
    # Sigma_{x|y} v = lambda Sigma_x v: v are the left eigenvectors of
    # Sigma_{x|y} Sigma_x^{-1} (Chechik et al. 2005), normalised so v^T Sigma_x v = 1.
    lam, vecs = eigh(cond, cov_x)
    lam = np.clip(lam, 0.0, 1.0)
    # directions uncorrelated with Y up to rounding: exactly 1, critical value inf
    lam[lam > 1.0 - 1e-10] = 1.0
    return lam, vecs.T, cov_x, cov_y, cov_xy, cond


@validate_params(
    {
        "cov_x": ["array-like"],
        "cov_xy": ["array-like"],
        "cov_y": ["array-like"],
        "beta": [POSITIVE],
    },
    prefer_skip_nested_validation=True,
)
def gaussian_information_bottleneck(cov_x, cov_xy, cov_y, beta):
    r"""Gaussian information bottleneck (Chechik et al. 2005, Thm. 3.1; thesis Thm. 4.1.1).

    Minimises :math:`I(X;T) - \beta\, I(T;Y)` over :math:`T = A X + \xi`,
    :math:`\xi \sim N(0, I)`. With :math:`\lambda_i` the eigenvalues of
    :math:`\Sigma_{x|y} \Sigma_x^{-1}` (ascending) and :math:`v_i` its left
    eigenvectors, row :math:`i` of :math:`A` is :math:`\alpha_i v_i` with

    .. math::

        \alpha_i = \sqrt{\frac{\beta (1 - \lambda_i) - 1}{\lambda_i v_i^T \Sigma_x v_i}}

    when :math:`\beta > 1 / (1 - \lambda_i)` (the critical value), else 0.

    Parameters
    ----------
    cov_x : array-like of shape (d, d)
        Positive definite covariance of X.
    cov_xy : array-like of shape (d, d_y)
        Cross-covariance.
    cov_y : array-like of shape (d_y, d_y)
        Positive definite covariance of Y.
    beta : float
        Trade-off; must exceed the smallest critical value.

    Returns
    -------
    dict
        ``components`` (k, d) the nonzero rows of :math:`A`; ``eigenvalues`` (d,)
        ascending :math:`\lambda_i`; ``critical_betas`` (d,) :math:`1 / (1 - \lambda_i)`;
        ``directions`` (d, d) rows :math:`v_i` with :math:`v_i^T \Sigma_x v_i = 1`.

    See Also
    --------
    gaussian_privacy_funnel : The funnel, which hides S instead of keeping Y.
    l2_compression : Optimal compression under squared error.
    sklearn_privacy.gaussian.GaussianIBTransformer : Estimator that fits this solution to data.

    Examples
    --------
    >>> from sklearn_privacy.gaussian import gaussian_information_bottleneck
    >>> sol = gaussian_information_bottleneck([[1.0]], [[0.5]], [[1.0]],
    ...                                       beta=8.0)
    >>> (sol["critical_betas"].round(4).tolist(),
    ...  sol["components"].round(4).tolist())
    ([4.0], [[1.1547]])
    """
    lam, vecs, *_ = _relevance_eigen(cov_x, cov_xy, cov_y, "cov_y")
    critical = _critical(lam)
    if beta <= critical.min():
        raise _BetaAtOrBelowCritical(
            f"beta={beta!r} is at or below the smallest critical value "
            f"{critical.min():.6g} = 1 / (1 - lambda_min): the bottleneck releases nothing. "
            "Choose a larger beta.",
            eigenvalues=lam,
            critical_betas=critical,
        )
    keep = beta > critical
    # thesis eq. 4.10 with v^T Sigma_x v = 1. lambda = 0 (Y determines a direction) asks
    # for an unbounded alpha; it is floored at _LAMBDA_FLOOR, a release with noise 1e-6 of the
    # signal there, so that the covariances of T stay finite.
    lam_k = np.maximum(lam[keep], _LAMBDA_FLOOR)
    alpha = np.sqrt((beta * (1.0 - lam_k) - 1.0) / lam_k)
    return {
        "components": alpha[:, None] * vecs[keep],
        "eigenvalues": lam,
        "critical_betas": critical,
        "directions": vecs,
    }


@validate_params(
    {
        "cov_x": ["array-like"],
        "cov_xs": ["array-like"],
        "cov_s": ["array-like"],
        "disclosure": [POSITIVE],
    },
    prefer_skip_nested_validation=True,
)
def gaussian_privacy_funnel(cov_x, cov_xs, cov_s, disclosure):
    r"""Gaussian privacy funnel: least leakage :math:`I(S;T)` at a given disclosure :math:`I(X;T)`.

    Minimises :math:`I(S;T)` subject to :math:`I(X;T) \ge \text{disclosure}` over
    :math:`T = A X + N(0, I)`. privacy-funnel-makhdoumi2014 Thm. 2 reduces
    :math:`A` to rows :math:`m_i v_i` along the left eigenvectors of
    :math:`\Sigma_{x|s} \Sigma_x^{-1}` (eigenvalues :math:`\lambda_i \in [0, 1]`).
    With SNR :math:`u_i = m_i^2` (:math:`v^T \Sigma_x v = 1`) and rate
    :math:`r_i = \frac{1}{2} \log(1 + u_i)`, a component leaks
    :math:`r_i - \frac{1}{2} \log(\lambda_i e^{2 r_i} + 1 - \lambda_i)`, concave in
    :math:`r_i` and decreasing in :math:`\lambda_i`: the whole disclosure goes to
    the direction with the largest :math:`\lambda_i` (spread evenly over the
    directions with :math:`\lambda_i = 1`, which leak nothing). The Lagrangian
    form (5) of the paper, :math:`I(S;T) - \beta\, I(X;T)`, is unbounded below
    for Gaussians (its stationary point is a per-component maximum), hence the
    constrained form here.

    Parameters
    ----------
    cov_x : array-like of shape (d, d)
    cov_xs : array-like of shape (d, d_s)
    cov_s : array-like of shape (d_s, d_s)
    disclosure : float
        Required :math:`I(X;T)` in nats.

    Returns
    -------
    dict
        ``components`` (k, d); ``eigenvalues`` (d,) ascending :math:`\lambda_i`;
        ``leakage`` :math:`I(S;T)` in nats; ``disclosure``.

    See Also
    --------
    gaussian_information_bottleneck : The bottleneck, which keeps Y instead of hiding S.
    sklearn_privacy.gaussian.GaussianIBTransformer : Estimator that fits this solution to data.

    Examples
    --------
    >>> from sklearn_privacy.gaussian import gaussian_privacy_funnel
    >>> sol = gaussian_privacy_funnel([[1.0, 0.0], [0.0, 1.0]], [[0.8], [0.0]],
    ...                               [[1.0]], 1.0)
    >>> round(sol["leakage"], 12)
    0.0
    """
    lam, vecs, *_ = _relevance_eigen(cov_x, cov_xs, cov_s, "cov_s")
    best = lam >= lam.max() - 1e-9
    if lam.max() < 1.0 - 1e-9:
        best = np.zeros_like(best)
        best[np.argmax(lam)] = True
    m = int(best.sum())
    u = np.expm1(2.0 * disclosure / m)
    lam_b = np.minimum(lam[best], 1.0)
    # I(S;T) = I(X;T) - I(X;T | S): given S, the signal variance shrinks by lambda
    leakage = gaussian_channel_rate(np.full(m, u)) - gaussian_channel_rate(lam_b * u)
    return {
        "components": np.sqrt(u) * vecs[best],
        "eigenvalues": lam,
        "critical_betas": _critical(lam),
        "leakage": max(leakage, 0.0),
        "disclosure": float(disclosure),
    }
