"""Leakage estimates, the empirical attack, and scorers for model selection."""

# The estimate and its details are computed by the sample estimates (re-exported here).
from sklearn_privacy.estimation import LeakageEstimate
from sklearn_privacy.metrics._inference_threat import inference_threat_bound, map_cost_gain
from sklearn_privacy.metrics._leakage import (
    adversary_accuracy_score,
    is_discrete_release,
    leakage_score,
)
from sklearn_privacy.metrics._scorers import (
    exact_leakage_score,
    find_mechanism,
    is_privacy_scorer,
    make_adversary_scorer,
    make_distortion_scorer,
    make_leakage_scorer,
)

__all__ = [
    "LeakageEstimate",
    "adversary_accuracy_score",
    "exact_leakage_score",
    "find_mechanism",
    "inference_threat_bound",
    "is_discrete_release",
    "is_privacy_scorer",
    "leakage_score",
    "make_adversary_scorer",
    "make_distortion_scorer",
    "make_leakage_scorer",
    "map_cost_gain",
]
