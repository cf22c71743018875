"""Trade-off sweeps and Pareto fronts."""

from sklearn_privacy.model_selection._tradeoff import pareto_front, tradeoff_curve

__all__ = ["pareto_front", "tradeoff_curve"]
