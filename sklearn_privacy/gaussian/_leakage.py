"""Gaussian-model leakage of a fitted linear-Gaussian release."""

import numpy as np

from sklearn_privacy.gaussian._privacy import weighted_moments
from sklearn_privacy.information import gaussian_mutual_information


def gaussian_leakage(X, S, components, scale, noise_variance, sample_weight=None):
    """Gaussian-model ``I(S;T)`` for ``T = diag(scale) V X + N(0, diag(noise))``.

    The covariance of ``(S, X)`` is that of the rows (each counted
    ``sample_weight`` times); the mean of X does not matter.
    """
    if components.shape[0] == 0:
        return 0.0
    ds = S.shape[1]
    _, joint = weighted_moments(np.hstack([S, X]), sample_weight)
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
