"""The scikit-learn private names the library uses, imported in one place (see design.md)."""

from sklearn.base import _fit_context
from sklearn.utils import _safe_indexing
from sklearn.utils._optional_dependencies import check_matplotlib_support
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    StrOptions,
    validate_params,
)
from sklearn.utils.metadata_routing import _routing_enabled
from sklearn.utils.validation import (
    _check_feature_names_in,
    _check_sample_weight,
    _is_arraylike_not_scalar,
    _num_samples,
)

__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "StrOptions",
    "_check_feature_names_in",
    "_check_sample_weight",
    "_fit_context",
    "_is_arraylike_not_scalar",
    "_num_samples",
    "_routing_enabled",
    "_safe_indexing",
    "check_matplotlib_support",
    "validate_params",
]
