"""scikit-learn transformers that release data while limiting what it reveals about S.

Every mechanism is one estimator with ``fit``/``transform``; S is given as columns of ``X``
(``sensitive=``) or as routed ``fit(..., sensitive=S)`` metadata. Information is in nats.
"""

from sklearn_privacy.adversarial import PPANTransformer
from sklearn_privacy.discrete import (
    ConvexPrivacyMapping,
    PrivacyFunnelTransformer,
    SubmodularFunnel,
)
from sklearn_privacy.gaussian import GaussianIBTransformer, L2CompressionDP

__version__ = "0.1.0.dev0"

__all__ = [
    "ConvexPrivacyMapping",
    "GaussianIBTransformer",
    "L2CompressionDP",
    "PPANTransformer",
    "PrivacyFunnelTransformer",
    "SubmodularFunnel",
]
