"""Shared helpers: random streams, validation, trade-off knobs, progress bars."""

from sklearn_privacy.utils._knob import TradeoffKnob
from sklearn_privacy.utils._progress import progress
from sklearn_privacy.utils._random import check_generator, check_seed_sequence
from sklearn_privacy.utils._validation import check_categorical_values

__all__ = [
    "TradeoffKnob",
    "check_categorical_values",
    "check_generator",
    "check_seed_sequence",
    "progress",
]
