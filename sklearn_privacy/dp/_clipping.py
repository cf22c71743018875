"""Clipping rows into an L2 ball, the first step of every Gaussian-mechanism estimate.

:func:`clip_rows` validates; :func:`clip_to_ball` is the same primitive for hot paths.
"""

import numpy as np
from sklearn.utils import check_array

from sklearn_privacy.utils import POSITIVE
from sklearn_privacy.utils._sklearn_compat import validate_params

__all__ = ["clip_rows", "clip_to_ball", "row_norms_safe"]


@validate_params(
    {"X": ["array-like"], "radius": [POSITIVE], "center": [None, "array-like"]},
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

    See Also
    --------
    clip_to_ball : The same without validation, for validated arrays.
    dp_norm_quantile : DP choice of the clipping radius.
    dp_mean : DP mean of clipped rows.
    dp_covariance : DP mean and covariance of clipped rows.

    Examples
    --------
    >>> from sklearn_privacy.dp import clip_rows
    >>> clip_rows([[3.0, 4.0], [0.3, 0.4]], 1.0).round(2).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    X = check_array(X, dtype=float)
    center = None if center is None else np.asarray(center, dtype=float)
    return clip_to_ball(X, float(radius), center)


def _shrink(n_features):
    """Rows are scaled to at most ``R (1 - shrink)``: more than the rounding of a norm."""
    return (4.0 * n_features + 16.0) * np.finfo(float).eps


def clip_to_ball(X, radius, center=None):
    """``X - center`` with every row scaled into the L2 ball of ``radius``: the clipping primitive.

    :func:`clip_rows` without its validation, for callers whose arrays are
    already validated (the releases and fits of the Gaussian mechanisms clip
    on every call, where scikit-learn's parameter validation would cost more
    than the clipping of a hundred rows). No row of the result is longer than
    ``radius``, at any scale: the plain computation (one norm per row, one
    scale) serves the rows whose norm and scale are ordinary floats; rows
    whose centred values overflow, whose norm is not finite or subnormal, or
    whose scale ``R / norm`` falls into the subnormal range are computed in
    units of their largest value.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Rows, as float64 (the array is not changed).
    radius : float
        The radius R > 0 of the ball.
    center : ndarray of shape (n_features,), default=None
        Centre of the ball (the origin by default); the result is centred.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        The centred rows, each scaled to a norm of at most ``radius``.

    See Also
    --------
    clip_rows : The same, validating its arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import clip_to_ball
    >>> X = np.array([[3.0, 4.0], [1e300, 1e300]])
    >>> clip_to_ball(X, 1.0).round(3).tolist()
    [[0.6, 0.8], [0.707, 0.707]]
    """
    Xc, squares = centred_squares(X, center)
    factor, plain = clip_factors(squares, radius, X.shape[1])
    with np.errstate(invalid="ignore", over="ignore"):  # rows not plain are redone below
        out = Xc * factor[:, None]
    if plain.all():
        return out
    rows = np.flatnonzero(~plain)
    out[rows] = _clip_in_units(X[rows], radius, None if center is None else center)
    return out


def clipped_product(X, radius, center, W):
    """``clip_to_ball(X, radius, center) @ W`` without the clipped copy of ``X``.

    The clipping scale of each row multiplies the product's row (``k`` columns
    instead of the ``d`` of ``X``); rows whose norm is not an ordinary float
    are clipped in units of their largest value, as :func:`clip_to_ball` does.
    """
    Xc, squares = centred_squares(X, center)
    factor, plain = clip_factors(squares, radius, X.shape[1])
    if plain.all():
        out = Xc @ W
        out *= factor[:, None]
        return out
    rows = np.flatnonzero(~plain)
    out = np.empty((X.shape[0], W.shape[1]))
    keep = np.flatnonzero(plain)
    out[keep] = (Xc[keep] @ W) * factor[keep, None]
    out[rows] = _clip_in_units(X[rows], radius, center) @ W
    return out


def centred_squares(X, center=None):
    """``X - center`` and the squared norm of each of its rows (inf where they overflow)."""
    with np.errstate(over="ignore", invalid="ignore"):
        Xc = X if center is None else X - center
        return Xc, np.einsum("ij,ij->i", Xc, Xc)


def clip_factors(squares, radius, n_features):
    """Per-row scale ``min(1, R / ||x||)`` of :func:`clip_to_ball`, and where it holds.

    ``plain`` marks the rows whose squared norm and scale are ordinary floats;
    the others (overflow, subnormal) must be clipped with :func:`clip_to_ball`
    in units of their largest value, and their ``factor`` is meaningless.
    """
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        scale = radius * (1.0 - _shrink(n_features)) / np.sqrt(squares)
        plain = np.isfinite(squares) & (squares > 1e-280) & (scale > 1e-290)
    return np.minimum(scale, 1.0), plain


def _clip_in_units(X, radius, center):
    """:func:`clip_to_ball` of a few rows, computed as ``u t`` with ``|u| <= 2``.

    ``t`` is the largest absolute value of the row and of the centre, so that
    ``u = x / t - c / t`` is finite at any scale; the clipped row is
    ``u min(t, R / ||u||)``, whose norm is at most R. A last pass takes
    rounding in the subnormal range into account.
    """
    peak = np.max(np.abs(X), axis=1) if X.shape[1] else np.zeros(X.shape[0])
    if center is not None and X.shape[1]:
        peak = np.maximum(peak, np.max(np.abs(center)))
    t = np.where(peak > 0, peak, 1.0)[:, None]
    u = X / t if center is None else X / t - center / t
    size = np.sqrt(np.einsum("ij,ij->i", u, u))
    with np.errstate(divide="ignore"):
        keep = np.minimum(t[:, 0], radius * (1.0 - _shrink(X.shape[1])) / size)
    out = u * np.where(size > 0, keep, 0.0)[:, None]
    for _ in range(8):
        long = row_norms_safe(out) > radius
        if not long.any():
            return out
        out[long] = np.nextafter(out[long], 0.0)
    out[row_norms_safe(out) > radius] = 0.0
    return out


def row_norms_safe(X):
    """Euclidean norms of the rows of ``X`` without overflow or underflow of the squares.

    One pass of ``sqrt(sum x^2)``; the rows whose sum of squares overflowed or
    came near the subnormal range are recomputed after dividing by their
    largest absolute entry, so rows of size 1e200 or 1e-200 keep their exact norm.
    """
    X = np.asarray(X, dtype=float)
    with np.errstate(over="ignore"):
        squares = np.einsum("ij,ij->i", X, X)
    return norms_from_squares(X, squares)


def norms_from_squares(X, squares):
    """:func:`row_norms_safe` of ``X`` given its rows' squared norms (one pass saved)."""
    norms = np.sqrt(squares)
    redo = np.flatnonzero(~np.isfinite(squares) | (squares < 1e-280))
    if redo.size:
        rows = X[redo]
        peak = np.max(np.abs(rows), axis=1) if X.shape[1] else np.zeros(redo.size)
        safe = np.where(peak > 0, peak, 1.0)[:, None]
        with np.errstate(over="ignore", invalid="ignore"):
            norms[redo] = peak * np.sqrt(np.einsum("ij,ij->i", rows / safe, rows / safe))
    return norms
