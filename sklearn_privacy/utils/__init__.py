"""Shared helpers: random streams, validation, trade-off knobs, progress bars, warnings."""

from sklearn_privacy.utils._constraints import (
    CORRELATION,
    NONNEGATIVE,
    NONNEGATIVE_INTEGER,
    NONNEGATIVE_OR_INF,
    OPEN_UNIT,
    POSITIVE,
    POSITIVE_INTEGER,
    UNIT,
)
from sklearn_privacy.utils._encoding import (
    declared_design_matrix,
    encode_sensitive,
    sensitive_design_matrix,
)
from sklearn_privacy.utils._knob import TradeoffKnob
from sklearn_privacy.utils._matrices import check_psd_matrix
from sklearn_privacy.utils._progress import progress
from sklearn_privacy.utils._random import check_generator, check_seed_sequence
from sklearn_privacy.utils._validation import (
    as_2d,
    check_categorical_values,
    check_sensitive,
    is_continuous,
)
from sklearn_privacy.utils._warnings import user_stacklevel, warn_user

__all__ = [
    "CORRELATION",
    "NONNEGATIVE",
    "NONNEGATIVE_INTEGER",
    "NONNEGATIVE_OR_INF",
    "OPEN_UNIT",
    "POSITIVE",
    "POSITIVE_INTEGER",
    "TradeoffKnob",
    "UNIT",
    "as_2d",
    "check_categorical_values",
    "check_generator",
    "check_psd_matrix",
    "check_seed_sequence",
    "check_sensitive",
    "declared_design_matrix",
    "encode_sensitive",
    "is_continuous",
    "progress",
    "sensitive_design_matrix",
    "user_stacklevel",
    "warn_user",
]
