"""Linear-Gaussian mechanisms: Gaussian bottleneck and funnel, L2 compression."""

from sklearn_privacy.gaussian._gib import GaussianIBTransformer
from sklearn_privacy.gaussian._l2 import L2CompressionDP
from sklearn_privacy.gaussian._solvers import (
    gaussian_information_bottleneck,
    gaussian_privacy_funnel,
    l2_compression,
)

__all__ = [
    "GaussianIBTransformer",
    "L2CompressionDP",
    "gaussian_information_bottleneck",
    "gaussian_privacy_funnel",
    "l2_compression",
]
