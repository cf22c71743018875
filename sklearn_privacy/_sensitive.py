"""Where S sits in ``X``: the resolution of the sensitive attribute for a mechanism.

:class:`SensitiveColumns` is fitted with a mechanism (split a frame, label a column); the
functions around it check a frame's columns, resolve the parameters that name columns, and
say how S reaches a step when it is missing (routing advice).
"""

from numbers import Integral

import numpy as np
import pandas as pd
from sklearn import get_config
from sklearn.utils.validation import check_array, validate_data

from sklearn_privacy.exceptions import PrivacyLeakWarning
from sklearn_privacy.utils._sklearn_compat import _is_arraylike_not_scalar
from sklearn_privacy.utils._symbols import encode_rows
from sklearn_privacy.utils._validation import (
    check_categorical_values,
    check_category_counts,
    check_sensitive,
    describe_numbers_with_text,
)
from sklearn_privacy.utils._warnings import warn_user

__all__ = [
    "S_COLUMNS",
    "SensitiveColumns",
    "check_frame_columns",
    "check_how_s_came",
    "warn_if_released_column_is_s",
    "check_sensitive_categories",
    "non_numeric_error",
    "routing_advice",
    "s_given_twice",
    "sensitive_labels",
    "sensitive_positions",
    "set_column_roles",
    "validate_columns",
]

# How messages name S when it came as columns of X.
S_COLUMNS = "the sensitive columns of X"


class SensitiveColumns:
    """The columns of ``X`` that hold S, resolved when a mechanism is fitted.

    Parameters
    ----------
    owner : str
        The mechanism's class name, for the messages.
    sensitive : int, str, slice, array-like of int or str, or None
        The mechanism's ``sensitive`` parameter.
    feature_names : ndarray of str or None
        Column names of ``X`` at fit (None for an array).
    n_features : int
        Number of columns of ``X`` at fit.
    numeric : bool
        Whether the released columns are numbers (converted to float64 by :meth:`split`).

    Attributes
    ----------
    columns : ndarray of int
        Positions of the columns of ``X`` holding S (empty when S is not in ``X``).
    release_columns : ndarray of int
        Positions of the released columns.
    """

    def __init__(self, owner, sensitive, feature_names, n_features, *, numeric):
        self.owner = owner
        self.sensitive = sensitive
        self.feature_names = feature_names
        self.numeric = numeric
        positions = sensitive_positions(sensitive, feature_names, n_features, strict=True)
        self.columns = np.asarray(positions, dtype=int)
        self.release_columns = np.setdiff1d(np.arange(n_features), self.columns)
        if self.release_columns.size == 0:
            raise ValueError(
                f"sensitive={sensitive!r} names every column of X (n_features = "
                f"{n_features}): nothing is left to release."
            )

    def labels(self):
        """Names (or positions) of the columns of ``X`` holding S; None when S is not in X."""
        if self.columns.size == 0:
            return None
        names = self.feature_names
        return [int(j) if names is None else str(names[j]) for j in self.columns]

    def split(self, X):
        """Split validated ``X`` into (released columns, S columns or None)."""
        if self.columns.size == 0:
            return X, None
        X_release, S = X[:, self.release_columns], X[:, self.columns]
        if self.numeric:
            try:
                X_release = check_array(X_release, dtype=np.float64, input_name="X")
            except ValueError as exc:
                if "could not convert" not in str(exc):
                    raise
                where = f"the released columns of X (all but sensitive={self.sensitive!r})"
                names = self.feature_names
                names = None if names is None else names[self.release_columns]
                raise non_numeric_error(self.owner, exc, where, X_release, names) from exc
            if S.dtype == object:
                # S may hold numbers or labels; anything else (a dict, a list) raises
                # numpy's TypeError here, as it does for numeric columns. Missing cells
                # (pd.NA raises that TypeError too) are left to the checks of S, which
                # name them.
                try:
                    S[~np.asarray(pd.isna(S), dtype=bool)].astype(np.float64)
                except ValueError:
                    pass
        return X_release, S

    def resolve(self, X_release, S, sensitive):
        """S of the rows of a fitted mechanism: its columns, or ``sensitive``, not both."""
        if S is not None and sensitive is not None:
            raise s_given_twice(self.sensitive)
        if sensitive is not None:
            return check_sensitive(sensitive, n_samples=X_release.shape[0])
        if S is not None:
            return check_sensitive(S, n_samples=X_release.shape[0], name=S_COLUMNS, min_values=1)
        return None


def set_column_roles(mechanism):
    """Fit where S sits in ``X`` for ``mechanism``, after :func:`validate_columns`.

    Sets its ``sensitive_columns_`` and ``release_columns_``, and ``_sensitive_split``, the
    :class:`SensitiveColumns` that splits its ``X`` from then on; returns the latter.
    """
    split = SensitiveColumns(
        type(mechanism).__name__,
        mechanism.sensitive,
        getattr(mechanism, "feature_names_in_", None),
        mechanism.n_features_in_,
        numeric=not mechanism._categorical_input,
    )
    mechanism._sensitive_split = split
    mechanism.sensitive_columns_ = split.columns
    mechanism.release_columns_ = split.release_columns
    return split


def sensitive_labels(mechanism):
    """Names (or positions) of the columns of ``X`` holding S for ``mechanism``; None when
    S is metadata (or where S sits is not fitted yet)."""
    split = mechanism.__dict__.get("_sensitive_split")
    return None if split is None else split.labels()


def check_sensitive_categories(mechanism, S, max_categories, remedies, **kwargs):
    """Refuse an S read as categories whose column looks continuous, naming the columns of
    ``mechanism`` that hold it (for fits that read S off the rows; see
    :func:`~sklearn_privacy.utils._validation.check_category_counts`)."""
    check_category_counts(
        S,
        max_categories,
        reader=type(mechanism).__name__,
        remedies=remedies,
        column_labels=sensitive_labels(mechanism),
        **kwargs,
    )


def s_given_twice(sensitive):
    """The error of S given both as columns of X and as the `sensitive` argument."""
    return ValueError(
        f"S was given twice: as the columns of X named by sensitive={sensitive!r} and as the "
        "`sensitive` argument. Give one."
    )


def check_how_s_came(mechanism, *, as_columns, as_metadata):
    """The rules of how S reaches the fit of ``mechanism`` (in memory or dask): once, and
    when needed (its ``_needs_sensitive``); as columns when its release reads S
    (``_observes_sensitive``). The advice follows whether it requests S as fit metadata.
    """
    owner = type(mechanism).__name__
    if as_columns and as_metadata:
        raise s_given_twice(mechanism.sensitive)
    if as_metadata and mechanism._observes_sensitive():
        raise ValueError(
            "observation='full' reads S at transform time: give S as columns of X with "
            "sensitive=..., not as the `sensitive` argument of fit."
        )
    if not (as_columns or as_metadata) and mechanism._needs_sensitive():
        requested = mechanism._get_metadata_request().fit.requests.get("sensitive") is True
        raise ValueError(
            f"{owner} needs the sensitive attribute S and got none: name its columns of X "
            "with sensitive=[...] (works in any Pipeline or search), or pass "
            "fit(X, y, sensitive=S). "
            + routing_advice(f"{owner}(...).set_fit_request(sensitive=True)", requested)
        )


def warn_if_released_column_is_s(mechanism, X_release, S):
    """Warn when a column that ``mechanism`` releases holds S itself (given as metadata).

    A column of X that equals S up to a relabelling (each value of one stands for one value
    of the other: ``"Male"`` for 1) is released merged with the others, while the user
    meant S to be hidden: S routed as ``fit(..., sensitive=S)`` but left in X.
    """
    s_codes, s_symbols = encode_rows(S, name="sensitive")
    n_s = len(s_symbols)
    names = getattr(mechanism, "feature_names_in_", None)
    X_release = np.asarray(X_release)
    for k, j in enumerate(mechanism.release_columns_):
        x_codes, x_symbols = encode_rows(X_release[:, k], name="X")
        if len(x_symbols) != n_s:
            continue
        if np.unique(x_codes * n_s + s_codes).size == n_s:
            label = repr(str(names[j])) if names is not None else int(j)
            warn_user(
                f"{type(mechanism).__name__}.fit: column {label} of X holds the sensitive "
                "attribute given as `sensitive` (the same values, or a relabelling of "
                "them), and is released with the other columns: S is not hidden. Drop it "
                "from X, or name it with sensitive=[...] instead of passing sensitive=.",
                PrivacyLeakWarning,
            )


def routing_advice(request, requested):
    """How S given as metadata reaches a step inside a Pipeline or a search, for an error.

    scikit-learn passes ``fit(X, y, sensitive=S)`` of a Pipeline, GridSearchCV or
    cross_validate on to a step only when metadata routing is enabled and the step
    requests it; otherwise it says only that the Pipeline does not accept
    ``sensitive``. ``request`` is the call that makes the step request S and
    ``requested`` whether it does; the advice follows the routing state.
    """
    pass_s = (
        "pass S to the search: GridSearchCV(...).fit(X, y, sensitive=S), or "
        "cross_validate(..., params={'sensitive': S})"
    )
    if not get_config().get("enable_metadata_routing", False):
        return (
            "Inside a Pipeline, GridSearchCV or cross_validate, S given as metadata reaches "
            "a step only with scikit-learn's metadata routing on: call "
            f"sklearn.set_config(enable_metadata_routing=True) and {request}, then {pass_s}."
        )
    if not requested:
        return f"Metadata routing is on but S is not requested: call {request}, then {pass_s}."
    return f"Metadata routing is on and S is requested, but none reached it: {pass_s}."


def validate_columns(mechanism, X, *, reset):
    """``X`` validated for ``mechanism`` (``validate_data``), its S columns left as they are.

    Categorical columns keep their values (missing and infinite cells are refused
    naming the column); a numeric mechanism's released columns are converted by
    :meth:`SensitiveColumns.split`, so that an error names the right columns.
    """
    categorical = mechanism._categorical_input
    check_frame_columns(X, numeric=not categorical, sensitive=mechanism.sensitive)
    kwargs = {}
    if categorical:
        # missing and infinite cells are checked below, naming the column (scikit-learn's
        # finiteness check would ask for the truth value of pd.NA)
        kwargs = {"dtype": None, "ensure_all_finite": False}
    elif mechanism.sensitive is not None:
        # S columns may hold labels (strings) even when the released columns are
        # numbers: keep X as it is here and convert the released columns alone
        kwargs = {"dtype": None, "ensure_all_finite": False}
    # Fitting needs two rows (S must vary); a fitted mechanism releases a single row too.
    try:
        X = validate_data(mechanism, X, reset=reset, ensure_min_samples=2 if reset else 1, **kwargs)
    except ValueError as exc:
        if "could not convert" not in str(exc):
            raise
        raise non_numeric_error(type(mechanism).__name__, exc, "the columns of X", X) from exc
    if categorical:
        check_categorical_values(X, feature_names=getattr(mechanism, "feature_names_in_", None))
    return X


def non_numeric_error(owner, exc, where, values=None, feature_names=None):
    """The error of a numeric mechanism (class name ``owner``) given text, with the remedies.

    When a column of ``values`` (the columns that failed, with their
    ``feature_names``; a DataFrame names its own) is numbers with stray
    text (a placeholder such as ``"n/a"``), the error names that column
    and how to make it numeric.
    """
    if values is not None:
        if hasattr(values, "columns") and hasattr(values, "to_numpy"):
            feature_names = [str(c) for c in values.columns]
            values = values.to_numpy(dtype=object)
        try:
            values = np.asarray(values, dtype=object)
        except ValueError:  # ragged rows: validate_data's own message stands
            values = None
        stray = describe_numbers_with_text(values, feature_names=feature_names)
        if stray is not None:
            return ValueError(f"{owner} releases numeric columns, but {stray}.")
    return ValueError(
        f"{owner} releases numeric columns, but {where} hold "
        f"non-numeric values ({exc}). Encode them before the mechanism (for example "
        "OneHotEncoder in a ColumnTransformer), drop them, or release categorical "
        "columns with PrivacyFunnelTransformer, SubmodularFunnel or ConvexPrivacyMapping."
    )


def check_frame_columns(X, *, numeric, sensitive):
    """Clear errors for a DataFrame's duplicate column names and for columns of the wrong kind.

    Duplicate names make a named S or a feature name ambiguous; a numeric
    mechanism cannot release datetime, timedelta or complex columns (it would
    fail deep inside NumPy); S columns may hold anything.
    """
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "dtypes"):
        return
    names = [str(c) for c in columns]
    repeated = sorted({c for c in names if names.count(c) > 1})
    if repeated:
        raise ValueError(
            f"X has duplicate column names {repeated}: every column needs its own name "
            "(rename them, e.g. X.columns = [...])."
        )
    if not numeric:
        return
    s_columns = set(sensitive_positions(sensitive, names, len(names)))
    for j, (name, dtype) in enumerate(zip(names, X.dtypes)):
        kind = getattr(dtype, "kind", "O")
        if j not in s_columns and kind in "mMc":
            what, remedy = {
                "m": ("timedeltas", "convert it to seconds"),
                "M": ("datetimes", "convert it to numbers, e.g. seconds since a date"),
                "c": ("complex numbers", "split it into its real and imaginary parts"),
            }[kind]
            raise ValueError(
                f"column {name!r} of X holds {what}, which this mechanism cannot release as "
                f"numbers: {remedy}, or drop it."
            )


def sensitive_positions(sensitive, names, n_columns, *, strict=False, param="sensitive"):
    """Positions of the columns that ``sensitive`` names: the one column resolver.

    Every parameter that names columns of ``X`` (``sensitive``, GIB's
    ``relevance``) is resolved here, with the same rules and errors.

    Parameters
    ----------
    sensitive : int, str, slice, array-like of int or str, or None
        The columns, as the parameter gives them.
    names : array-like of str or None
        Column names of ``X`` (None for an array).
    n_columns : int
    strict : bool, default=False
        ``True`` (after ``X`` is validated): a name not among ``names``, an
        index out of range, an empty list or a column named twice raise a
        ``ValueError`` naming it. ``False`` (before validation, to know which
        columns to leave alone): those are skipped, and a slice gives nothing.
    param : str, default="sensitive"
        The parameter's name, for the errors.

    Returns
    -------
    list of int
    """
    if sensitive is None:
        return []
    if isinstance(sensitive, slice):
        return np.arange(n_columns)[sensitive].tolist() if strict else []
    items = list(sensitive) if _is_arraylike_not_scalar(sensitive) else [sensitive]
    if strict and not items:
        raise ValueError(f"{param} is empty: give at least one column, or None.")
    names = [] if names is None else [str(n) for n in names]
    out = []
    for item in items:
        if isinstance(item, (str, np.str_)):
            if item in names:
                out.append(names.index(item))
            elif strict and not names:
                raise ValueError(
                    f"{param} names the column {item!r}, but X has no column names; "
                    "pass a DataFrame or give integer indices."
                )
            elif strict:
                raise ValueError(f"{param} column {item!r} is not a column of X.")
        elif isinstance(item, (Integral, np.integer)) and not isinstance(item, bool):
            if -n_columns <= item < n_columns:
                out.append(int(item) % n_columns)
            elif strict:
                raise ValueError(
                    f"{param} column index {item} is out of range for X with {n_columns} columns."
                )
        elif strict:
            raise ValueError(f"{param} must hold column names or integer indices, got {item!r}.")
    if strict and len(set(out)) != len(out):
        raise ValueError(f"{param}={sensitive!r} names a column twice.")
    return out
