"""Sample estimates of the leakage ``I(S; T)``: the panel of held-out adversaries, kNN, plug-in.

The exact measures on pmfs live in :mod:`sklearn_privacy.information`; the validated, documented
face of these estimates is :func:`sklearn_privacy.metrics.leakage_score`.
"""

from sklearn_privacy.estimation._draw import MAX_SAMPLES
from sklearn_privacy.estimation._panel import LeakageEstimate
from sklearn_privacy.estimation._sample_estimators import (
    ESTIMATORS,
    check_pair,
    estimate_leakage,
    is_discrete,
)

__all__ = [
    "ESTIMATORS",
    "MAX_SAMPLES",
    "LeakageEstimate",
    "check_pair",
    "estimate_leakage",
    "is_discrete",
]
