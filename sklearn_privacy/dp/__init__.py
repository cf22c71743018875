"""Differential privacy accounting: analytic Gaussian mechanism, tail bounds, DP estimates."""

from sklearn_privacy.dp._accountant import GaussianAccountant, GaussianSpend
from sklearn_privacy.dp._clipping import clip_rows, clip_to_ball
from sklearn_privacy.dp._estimation import (
    compose_basic,
    dp_covariance,
    dp_mean,
    dp_norm_quantile,
    dp_second_moment,
)
from sklearn_privacy.dp._exponential import (
    gaussian_norm_tail_radius,
    gib_exponential_epsilon,
    l2_exponential_epsilon,
)
from sklearn_privacy.dp._gaussian_mechanism import (
    approximate_gaussian_epsilon,
    classical_gaussian_sigma,
    gaussian_delta,
    gaussian_dp_delta_from_mu,
    gaussian_dp_epsilon_from_mu,
    gaussian_dp_mu,
    gaussian_epsilon,
    gaussian_max_sensitivity,
    gaussian_sigma,
)

__all__ = [
    "GaussianAccountant",
    "GaussianSpend",
    "approximate_gaussian_epsilon",
    "classical_gaussian_sigma",
    "clip_rows",
    "clip_to_ball",
    "compose_basic",
    "dp_covariance",
    "dp_mean",
    "dp_norm_quantile",
    "dp_second_moment",
    "gaussian_delta",
    "gaussian_dp_delta_from_mu",
    "gaussian_dp_epsilon_from_mu",
    "gaussian_dp_mu",
    "gaussian_epsilon",
    "gaussian_max_sensitivity",
    "gaussian_norm_tail_radius",
    "gaussian_sigma",
    "gib_exponential_epsilon",
    "l2_exponential_epsilon",
]
