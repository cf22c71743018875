"""Shared checks for matrices and budgets."""

import numpy as np


def check_psd_matrix(matrix, name, *, positive_definite=False, rtol=1e-10):
    """Validate a symmetric positive semi-definite (or definite) matrix.

    Errors name ``name`` and say what is wrong: shape, NaN, asymmetry, a
    negative eigenvalue (non-PSD), or a zero one when ``positive_definite``.
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
            f"{name} is singular (smallest eigenvalue {eig.min():.3g}); it must be positive "
            "definite. Drop constant or collinear columns, or add a small ridge."
        )
    return m
