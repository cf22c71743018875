"""Turn relevance / sensitive variables into Gaussian-model columns."""

import numpy as np
from sklearn.utils.multiclass import type_of_target

from sklearn_privacy.information import gaussian_mutual_information


def numeric_matrix(values, name="y"):
    """2-D float matrix of a variable: categories one-hot encoded (first level dropped).

    Binary and multiclass targets (and any non-numeric column) become indicator
    columns of all but the first level, so their covariance is not singular;
    continuous columns are kept as they are.
    """
    arr = np.asarray(values)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    cols = []
    for j in range(arr.shape[1]):
        col = arr[:, j]
        kind = type_of_target(col) if col.dtype.kind in "biuf" else "multiclass"
        if kind in ("binary", "multiclass"):
            levels = np.unique(col)
            if levels.size < 2:
                raise ValueError(f"{name} column {j} takes a single value.")
            cols.append((col[:, None] == levels[None, 1:]).astype(float))
        else:
            c = col.astype(float)
            if not np.all(np.isfinite(c)):
                raise ValueError(f"{name} contains NaN or infinite values.")
            cols.append(c[:, None])
    return np.hstack(cols)


def gaussian_leakage(X, S, mean, components, scale, noise_variance):
    """Gaussian-model ``I(S;T)`` for ``T = diag(scale) V (X - mean) + N(0, diag(noise))``."""
    if components.shape[0] == 0:
        return 0.0
    Z = np.hstack([S - S.mean(axis=0), X - mean])
    joint = Z.T @ Z / max(Z.shape[0] - 1, 1)
    ds = S.shape[1]
    A = scale[:, None] * components
    cov_s = joint[:ds, :ds]
    cov_sx = joint[:ds, ds:]
    cov_x = joint[ds:, ds:]
    cov_t = A @ cov_x @ A.T + np.diag(noise_variance)
    cov_st = cov_sx @ A.T
    full = np.block([[cov_s, cov_st], [cov_st.T, cov_t]])
    k = components.shape[0]
    try:
        return gaussian_mutual_information(full, np.arange(ds), ds + np.arange(k))
    except ValueError:
        return float("nan")
