"""Checks of covariance-like matrices."""

import numpy as np

__all__ = ["check_psd_matrix"]


def check_psd_matrix(matrix, name, *, positive_definite=False, rtol=1e-10):
    """Validate a symmetric positive semi-definite (or definite) matrix.

    Parameters
    ----------
    matrix : array-like of shape (d, d), or a scalar (read as a 1 x 1 matrix)
        The matrix to check.
    name : str
        Its name in error messages (e.g. ``"cov"``).
    positive_definite : bool, default=False
        Also reject a singular matrix.
    rtol : float, default=1e-10
        Eigenvalues within ``rtol`` times the largest absolute eigenvalue of
        zero count as zero.

    Returns
    -------
    ndarray of shape (d, d)
        The symmetrised matrix :math:`(M + M^T) / 2`, as floats.

    Raises
    ------
    ValueError
        Naming ``name`` and what is wrong: the shape, NaN or infinite entries,
        asymmetry, a negative eigenvalue (not positive semi-definite), or a
        zero one when ``positive_definite``.

    See Also
    --------
    sklearn_privacy.gaussian.l2_compression : Validates its covariance with this check.

    Examples
    --------
    >>> from sklearn_privacy.utils import check_psd_matrix
    >>> check_psd_matrix([[2.0, 1.0], [1.0, 2.0]], "cov")
    array([[2., 1.],
           [1., 2.]])
    >>> check_psd_matrix([[1.0, 2.0], [2.0, 1.0]], "cov")
    Traceback (most recent call last):
        ...
    ValueError: cov is not positive semi-definite (smallest eigenvalue -1).
    """
    m = np.asarray(matrix, dtype=float)
    if m.ndim == 0:
        m = m.reshape(1, 1)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"{name} must be a square 2-D matrix, got shape {m.shape}.")
    if not np.all(np.isfinite(m)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    scale = max(1.0, float(np.abs(m).max()))
    if not np.allclose(m, m.T, rtol=1e-8, atol=1e-10 * scale):
        raise ValueError(f"{name} must be symmetric.")
    m = 0.5 * (m + m.T)
    eig = np.linalg.eigvalsh(m)
    tol = rtol * max(float(np.abs(eig).max()), np.finfo(float).tiny)
    if eig.min() < -tol:
        raise ValueError(
            f"{name} is not positive semi-definite (smallest eigenvalue {eig.min():.3g})."
        )
    if positive_definite and eig.min() <= tol:
        raise ValueError(
            f"{name} is singular or too ill-conditioned for float64 (smallest eigenvalue "
            f"{eig.min():.3g}, largest {eig.max():.3g}); it must be positive definite. Drop "
            "constant or collinear columns, or add a small ridge."
        )
    return m
