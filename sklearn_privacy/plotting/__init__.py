"""Trade-off displays (need matplotlib)."""

from sklearn_privacy.plotting._tradeoff_display import TradeoffDisplay

__all__ = ["TradeoffDisplay"]
