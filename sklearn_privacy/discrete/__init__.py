"""Mechanisms on discrete (categorical) data, and the types of their fitted attributes."""

from sklearn_privacy.discrete._alphabet import CategoricalAlphabet, empirical_joint
from sklearn_privacy.discrete._convex._mapping import ConvexPrivacyMapping
from sklearn_privacy.discrete._convex._solvers import (
    ConvexMappingResult,
    ConvexSolverError,
    leakage_distortion_curve,
    min_achievable_distortion,
    min_average_leakage_mapping,
    min_maximum_leakage_mapping,
)
from sklearn_privacy.discrete._funnel import PrivacyFunnelTransformer
from sklearn_privacy.discrete._greedy import MergePath, greedy_merge, greedy_sweep
from sklearn_privacy.discrete._submodular import IACPath, iac_mdsf
from sklearn_privacy.discrete._submodular_funnel import SubmodularFunnel
from sklearn_privacy.utils._distortion import distortion_matrix

__all__ = [
    "CategoricalAlphabet",
    "ConvexMappingResult",
    "ConvexPrivacyMapping",
    "ConvexSolverError",
    "IACPath",
    "MergePath",
    "PrivacyFunnelTransformer",
    "SubmodularFunnel",
    "distortion_matrix",
    "empirical_joint",
    "greedy_merge",
    "greedy_sweep",
    "iac_mdsf",
    "leakage_distortion_curve",
    "min_achievable_distortion",
    "min_average_leakage_mapping",
    "min_maximum_leakage_mapping",
]
