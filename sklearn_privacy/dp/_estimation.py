"""Differentially private mean and covariance ("Analyze Gauss"), clipping, composition.

Neighbouring relation everywhere: data sets of the same size ``n`` that differ
in one row (replace-one). Rows are first clipped to the L2 ball of radius R, so
a row's contribution to the mean moves by at most ``2 R / n`` and its
contribution to the second-moment matrix by at most ``sqrt(2) R^2 / n`` in
Frobenius norm (attained by two orthogonal rows of norm R); the upper triangle
of a symmetric difference ``x x^T - x' x'^T`` has the same bound.
"""

from numbers import Real

import numpy as np
from sklearn.utils import check_array
from sklearn.utils._param_validation import Interval, validate_params

from sklearn_privacy._base import check_generator
from sklearn_privacy.dp._gaussian_mechanism import gaussian_sigma

_POSITIVE = Interval(Real, 0, None, closed="neither")
_NONNEGATIVE = Interval(Real, 0, None, closed="left")
_OPEN_UNIT = Interval(Real, 0, 1, closed="neither")


@validate_params(
    {"X": ["array-like"], "radius": [_POSITIVE], "center": [None, "array-like"]},
    prefer_skip_nested_validation=True,
)
def clip_rows(X, radius, center=None):
    """Scale each row of ``X - center`` into the L2 ball of radius ``radius``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    radius : float
        Clipping radius R > 0.
    center : array-like of shape (n_features,), default=None
        Centre of the ball (the origin by default). The result is centred: the
        centre is *not* added back.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        Rows with norm at most ``radius``.

    Examples
    --------
    >>> from sklearn_privacy.dp import clip_rows
    >>> clip_rows([[3.0, 4.0], [0.3, 0.4]], 1.0).round(2).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    X = check_array(X, dtype=float)
    if center is not None:
        X = X - np.asarray(center, dtype=float)
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    scale = np.minimum(1.0, radius / np.maximum(norms, np.finfo(float).tiny))
    return X * scale[:, None]


@validate_params(
    {
        "X": ["array-like"],
        "epsilon": [_POSITIVE],
        "delta": [_OPEN_UNIT],
        "radius": [_POSITIVE],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_mean(X, *, epsilon, delta, radius, random_state=None):
    """(epsilon, delta)-DP mean of the rows of ``X`` clipped to radius R.

    Gaussian mechanism with sensitivity ``2 R / n`` (replace-one) and
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
    n = Xc.shape[0]
    sigma = gaussian_sigma(epsilon, delta, 2.0 * radius / n)
    return Xc.mean(axis=0) + check_generator(random_state).normal(0.0, sigma, Xc.shape[1])


@validate_params(
    {
        "X": ["array-like"],
        "epsilon": [_POSITIVE],
        "delta": [_OPEN_UNIT],
        "radius": [_POSITIVE],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_second_moment(X, *, epsilon, delta, radius, random_state=None):
    """(epsilon, delta)-DP second-moment matrix ``(1/n) sum x x^T`` ("Analyze Gauss").

    Dwork, Talwar, Thakurta and Zhang (2014): rows clipped to radius R, then a
    symmetric matrix whose upper triangle is i.i.d. Gaussian is added. The
    sensitivity of the upper triangle is ``sqrt(2) R^2 / n`` (module docstring).
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

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_second_moment
    >>> M = dp_second_moment(np.eye(2), epsilon=1.0, delta=1e-5, radius=1.0, random_state=0)
    >>> M.shape, bool(np.allclose(M, M.T))
    ((2, 2), True)
    """
    Xc = clip_rows(X, radius)
    n, d = Xc.shape
    sigma = gaussian_sigma(epsilon, delta, np.sqrt(2.0) * radius**2 / n)
    noise = np.triu(check_generator(random_state).normal(0.0, sigma, (d, d)))
    noise = noise + np.triu(noise, 1).T
    return Xc.T @ Xc / n + noise


@validate_params(
    {
        "X": ["array-like"],
        "epsilon": [_POSITIVE],
        "delta": [_OPEN_UNIT],
        "radius": [_POSITIVE],
        "mean_fraction": [Interval(Real, 0, 1, closed="neither")],
        "min_eigenvalue": [_NONNEGATIVE],
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
    """(epsilon, delta)-DP mean and covariance of rows clipped to radius R.

    Spends ``mean_fraction`` of (epsilon, delta) on :func:`dp_mean` and the rest
    on :func:`dp_second_moment`; by basic composition the pair is
    (epsilon, delta)-DP. The covariance ``M - mu mu^T`` is projected onto the
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

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_covariance
    >>> X = np.random.default_rng(0).normal(size=(20000, 2))
    >>> mean, cov = dp_covariance(X, epsilon=2.0, delta=1e-5, radius=5.0, random_state=0)
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
    """Basic (sequential) composition: ``(sum epsilon_i, sum delta_i)``.

    Parameters
    ----------
    *budgets : tuple of (float, float)
        The (epsilon, delta) of each mechanism run on the same data.

    Returns
    -------
    (float, float)

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
