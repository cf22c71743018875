"""Shared helpers: random streams for fit-time estimates and releases, validation."""

from sklearn_privacy.utils._random import check_generator, check_seed_sequence
from sklearn_privacy.utils._validation import check_categorical_values

__all__ = ["check_categorical_values", "check_generator", "check_seed_sequence"]
