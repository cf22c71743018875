"""Privacy-preserving adversarial networks (ppan-tripathy2017) on PyTorch through skorch.

torch and skorch are imported when a network is built (at ``fit``), so that
importing this package stays light.
"""

from sklearn_privacy.adversarial._ppan import PPANTransformer

__all__ = ["PPANTransformer"]
