"""Closed-form optimal trade-off curves and the papers' reference results."""

from sklearn_privacy.theory._gaussian import (
    gaussian_rate_distortion,
    gaussian_rate_distortion_beta,
    reverse_water_filling,
)
from sklearn_privacy.theory._ppan import (
    ppan_scalar_full_data,
    ppan_scalar_useful_data,
    ppan_vector_useful_data,
    symmetric_pair_full_data,
    symmetric_pair_joint,
    symmetric_pair_useful_data,
)

__all__ = [
    "gaussian_rate_distortion",
    "gaussian_rate_distortion_beta",
    "ppan_scalar_full_data",
    "ppan_scalar_useful_data",
    "ppan_vector_useful_data",
    "reverse_water_filling",
    "symmetric_pair_full_data",
    "symmetric_pair_joint",
    "symmetric_pair_useful_data",
]
