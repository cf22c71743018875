"""Differentially private mean, covariance and norm quantile ("Analyze Gauss"), composition.

Replace-one neighbours everywhere; rows are clipped first (:mod:`sklearn_privacy.dp._clipping`).
"""

from numbers import Real

import numpy as np
from sklearn.utils import check_array

from sklearn_privacy.dp._clipping import clip_rows, row_norms_safe
from sklearn_privacy.dp._gaussian_mechanism import gaussian_dp_mu
from sklearn_privacy.dp._grid_noise import grid_sigma, noisy_on_grid
from sklearn_privacy.dp._radius import (
    BEYOND_LARGEST,
    HISTOGRAM_CHANGES,
    HISTOGRAM_SENSITIVITY,
    LARGEST_RADIUS,
    log2_histogram,
    private_norm_quantile,
    rows_needed,
)
from sklearn_privacy.utils import NONNEGATIVE, OPEN_UNIT, POSITIVE, check_generator
from sklearn_privacy.utils._sklearn_compat import Interval, validate_params

__all__ = [
    "compose_basic",
    "dp_covariance",
    "dp_mean",
    "dp_norm_quantile",
    "dp_second_moment",
]


@validate_params(
    {
        "X": ["array-like"],
        "epsilon": [POSITIVE],
        "delta": [OPEN_UNIT],
        "radius": [POSITIVE],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_mean(X, *, epsilon, delta, radius, random_state=None):
    """(epsilon, delta)-DP mean of the rows of ``X`` clipped to radius R.

    Gaussian mechanism with sensitivity :math:`2 R / n` (replace-one) and
    analytically calibrated noise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    epsilon, delta : float
        Privacy budget spent.
    radius : float
        Clipping radius around the origin.
    random_state : int, RandomState, Generator or None, default=None

    Returns
    -------
    ndarray of shape (n_features,)

    See Also
    --------
    dp_covariance : DP mean and covariance together.
    dp_norm_quantile : DP choice of the clipping radius.
    clip_rows : The clipping applied before the noise.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_mean
    >>> X = np.ones((10000, 2))
    >>> m = dp_mean(X, epsilon=1.0, delta=1e-5, radius=2.0, random_state=0)
    >>> bool(np.allclose(m, 1, atol=0.01))
    True
    """
    Xc = clip_rows(X, radius)
    n, d = Xc.shape
    # noise on a grid (dp._grid_noise): a coordinate of the mean is at most R
    sigma = grid_sigma(2.0 * radius / n, gaussian_dp_mu(epsilon, delta), radius, d)
    return noisy_on_grid(Xc.mean(axis=0), sigma, check_generator(random_state), radius / sigma)


@validate_params(
    {
        "X": ["array-like"],
        "epsilon": [POSITIVE],
        "delta": [OPEN_UNIT],
        "radius": [POSITIVE],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_second_moment(X, *, epsilon, delta, radius, random_state=None):
    r"""(epsilon, delta)-DP second-moment matrix :math:`\frac{1}{n} \sum_i x_i x_i^T`.

    The "Analyze Gauss" mechanism of Dwork, Talwar, Thakurta and Zhang (2014):
    rows clipped to radius :math:`R`, then a symmetric matrix whose upper triangle is
    i.i.d. Gaussian is added. The sensitivity of the upper triangle is
    :math:`\sqrt{2} R^2 / n`, the Frobenius bound of :math:`(x x^T - x' x'^T) / n` (attained
    by two orthogonal rows of norm :math:`R`).
    The result is symmetric but may have negative eigenvalues; see
    :func:`dp_covariance` for the PSD projection.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    epsilon, delta : float
        Privacy budget spent.
    radius : float
        Clipping radius around the origin.
    random_state : int, RandomState, Generator or None, default=None

    Returns
    -------
    ndarray of shape (n_features, n_features)

    See Also
    --------
    dp_covariance : DP mean and centred covariance.
    clip_rows : The clipping applied before the noise.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_second_moment
    >>> M = dp_second_moment(np.eye(2), epsilon=1.0, delta=1e-5, radius=1.0,
    ...                      random_state=0)
    >>> M.shape, bool(np.allclose(M, M.T))
    ((2, 2), True)
    """
    Xc = clip_rows(X, radius)
    n, d = Xc.shape
    # noise on a grid (dp._grid_noise): an entry is at most R^2; the upper triangle is released
    mu, bound = gaussian_dp_mu(epsilon, delta), radius**2
    sigma = grid_sigma(np.sqrt(2.0) * radius**2 / n, mu, bound, d * (d + 1) // 2)
    rng = check_generator(random_state)
    noisy = np.triu(noisy_on_grid(Xc.T @ Xc / n, sigma, rng, bound / sigma))
    return noisy + np.triu(noisy, 1).T


@validate_params(
    {
        "X": ["array-like"],
        "epsilon": [POSITIVE],
        "delta": [OPEN_UNIT],
        "radius": [POSITIVE],
        "mean_fraction": [OPEN_UNIT],
        "min_eigenvalue": [NONNEGATIVE],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_covariance(
    X,
    *,
    epsilon,
    delta,
    radius,
    mean_fraction=0.5,
    min_eigenvalue=0.0,
    random_state=None,
):
    r"""(epsilon, delta)-DP mean and covariance of rows clipped to radius R.

    Spends ``mean_fraction`` of (epsilon, delta) on :func:`dp_mean` and the rest
    on :func:`dp_second_moment`; by basic composition the pair is
    (epsilon, delta)-DP. The covariance :math:`M - \mu \mu^T` is projected onto the
    positive semi-definite cone (eigenvalues clipped at ``min_eigenvalue``),
    which is post-processing.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    epsilon, delta : float
        Total budget.
    radius : float
        Clipping radius around the origin (centre the data roughly with public
        knowledge first, or the clipping removes signal).
    mean_fraction : float, default=0.5
        Share of the budget spent on the mean.
    min_eigenvalue : float, default=0.0
        Floor of the eigenvalues of the returned covariance.
    random_state : int, RandomState, Generator or None, default=None

    Returns
    -------
    mean : ndarray of shape (n_features,)
    cov : ndarray of shape (n_features, n_features)

    See Also
    --------
    dp_mean : DP mean alone.
    dp_second_moment : DP uncentred second moment.
    clip_rows : The clipping applied before the noise.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_covariance
    >>> X = np.random.default_rng(0).normal(size=(20000, 2))
    >>> mean, cov = dp_covariance(X, epsilon=2.0, delta=1e-5, radius=5.0,
    ...                           random_state=0)
    >>> bool(np.allclose(cov, np.eye(2), atol=0.1))
    True
    """
    rng = check_generator(random_state)
    mean = dp_mean(
        X,
        epsilon=mean_fraction * epsilon,
        delta=mean_fraction * delta,
        radius=radius,
        random_state=rng,
    )
    second = dp_second_moment(
        X,
        epsilon=(1 - mean_fraction) * epsilon,
        delta=(1 - mean_fraction) * delta,
        radius=radius,
        random_state=rng,
    )
    cov = second - np.outer(mean, mean)
    w, v = np.linalg.eigh(0.5 * (cov + cov.T))
    cov = (v * np.maximum(w, min_eigenvalue)) @ v.T
    return mean, 0.5 * (cov + cov.T)


def compose_basic(*budgets):
    r"""Basic (sequential) composition: :math:`(\sum_i \epsilon_i, \sum_i \delta_i)`.

    Parameters
    ----------
    *budgets : tuple of (float, float)
        The (epsilon, delta) of each mechanism run on the same data.

    Returns
    -------
    (float, float)

    See Also
    --------
    GaussianAccountant : Exact, tighter composition of Gaussian mechanisms.

    Examples
    --------
    >>> from sklearn_privacy.dp import compose_basic
    >>> compose_basic((1.0, 1e-6), (0.5, 1e-6))
    (1.5, 2e-06)
    """
    eps = 0.0
    delta = 0.0
    for budget in budgets:
        e, d = budget
        if not (np.isfinite(e) or e == np.inf) or e < 0 or not 0 <= d <= 1:
            raise ValueError(
                f"each budget must be (epsilon >= 0, 0 <= delta <= 1), got {budget!r}."
            )
        eps += float(e)
        delta += float(d)
    return eps, min(delta, 1.0)


@validate_params(
    {
        "X": ["array-like"],
        "quantile": [Interval(Real, 0, 1, closed="right")],
        "epsilon": [POSITIVE],
        "delta": [OPEN_UNIT],
        "center": [None, "array-like"],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_norm_quantile(X, quantile=0.95, *, epsilon, delta, center=None, random_state=None):
    r"""(epsilon, delta)-DP radius that holds about ``quantile`` of the rows of ``X``.

    The histogram of the row norms on the powers of two (every float64 scale,
    no range to give) is released by one Gaussian mechanism of sensitivity
    :math:`\sqrt{2}` under replace-one neighbours; bins that do not clear the noise
    of an empty bin are dropped, and the radius is where the remaining counts
    reach ``quantile``, interpolated inside its bin (see
    :mod:`sklearn_privacy.dp._radius`). Use it as a clipping radius that is
    not read from the private rows.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    quantile : float, default=0.95
        Share of the rows the radius should hold, in (0, 1].
    epsilon, delta : float
        Privacy budget spent.
    center : array-like of shape (n_features,), default=None
        Centre of the balls (the origin by default); must not depend on X
        unless it was itself released privately.
    random_state : int, RandomState, Generator or None, default=None

    Returns
    -------
    float
        The quantile of the rows whose bins clear the noise, interpolated
        log-linearly inside its bin (so within a factor 2 of it).

    Raises
    ------
    ValueError
        When no bin clears the noise: too few rows for this budget.

    See Also
    --------
    clip_rows : Clip rows to the radius found here.
    dp_mean : DP mean of rows clipped to a radius.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_norm_quantile
    >>> X = np.random.default_rng(0).normal(size=(10000, 2))
    >>> r = dp_norm_quantile(X, 0.95, epsilon=1.0, delta=1e-6, random_state=0)
    >>> exact = np.quantile(np.linalg.norm(X, axis=1), 0.95)
    >>> round(r, 2), round(float(exact), 2)
    (3.09, 2.45)
    >>> r = dp_norm_quantile(1e-40 * X, 0.95, epsilon=1.0, delta=1e-6,
    ...                      random_state=0)
    >>> round(r * 1e40, 2)  # any scale
    3.04
    """
    X = check_array(X, dtype=float)
    if center is not None:
        X = X - np.asarray(center, dtype=float)
    n = X.shape[0]  # a count is at most n (noise on a grid, dp._grid_noise)
    sigma = grid_sigma(HISTOGRAM_SENSITIVITY, gaussian_dp_mu(epsilon, delta), n, HISTOGRAM_CHANGES)
    radius = private_norm_quantile(
        log2_histogram(row_norms_safe(X)),
        quantile,
        sigma,
        check_generator(random_state),
        interpolate=True,
        bound=n,
    )
    if radius is None:
        raise ValueError(
            f"No bin of the private norm histogram clears its noise: {X.shape[0]} rows are too "
            f"few for epsilon={epsilon!r} (about {rows_needed(sigma):.0f} are needed)."
        )
    if radius > LARGEST_RADIUS:
        raise ValueError(
            f"The private {quantile!r} quantile of the row norms lies beyond {LARGEST_RADIUS:.3g}: "
            + BEYOND_LARGEST
            + "."
        )
    return radius
