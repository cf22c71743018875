"""Closed-form optimal trade-off curves and the papers' reference results."""

from sklearn_privacy.theory._calmon import (
    counting_query_joint,
    counting_query_zeta,
    information_privacy_guarantees,
    information_privacy_level,
    laplace_counting_query_leakage,
    max_entropy_noise,
    maximum_leakage_from_zeta,
    rate_distortion,
    zeta_distribution,
)
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
    symmetric_pair_useful_data,
)

__all__ = [
    "counting_query_joint",
    "counting_query_zeta",
    "gaussian_rate_distortion",
    "gaussian_rate_distortion_beta",
    "information_privacy_guarantees",
    "information_privacy_level",
    "laplace_counting_query_leakage",
    "max_entropy_noise",
    "maximum_leakage_from_zeta",
    "ppan_scalar_full_data",
    "ppan_scalar_useful_data",
    "ppan_vector_useful_data",
    "rate_distortion",
    "reverse_water_filling",
    "symmetric_pair_full_data",
    "symmetric_pair_useful_data",
    "zeta_distribution",
]
