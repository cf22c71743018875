"""Gaussian-model leakage of a fitted linear-Gaussian release."""

import numpy as np

from sklearn_privacy.information import gaussian_mutual_information


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
