"""Validation shared by the mechanisms: arrays, S, categorical cells."""

import cmath
from numbers import Number, Real

import numpy as np
import pandas as pd

__all__ = ["as_2d", "check_categorical_values", "check_sensitive", "is_continuous"]


def check_categorical_values(X, *, name="X", feature_names=None):
    """Reject missing and infinite cells of categorical data, naming the first such column.

    Missing: ``None``, ``NaN``, ``pd.NA`` and ``NaT`` (what :func:`pandas.isna`
    flags), in any dtype, pandas' nullable ``string``, ``Int64``, ``Float64``,
    ``boolean`` and ``category`` included once converted to an array.
    Infinite: ``+inf`` and ``-inf`` of any real number type, also inside object
    columns (and complex values with an infinite part in complex arrays).
    Neither is a category.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_columns)
    name : str, default="X"
        Name of the data in error messages.
    feature_names : array-like of str, default=None
        Column names used in error messages (``column 0, 1, ...`` otherwise).

    Raises
    ------
    ValueError
        Naming the column, the number of bad cells and the first bad row.

    See Also
    --------
    check_sensitive : Validation of the sensitive attribute.
    sklearn_privacy.discrete.CategoricalAlphabet : Encodes the checked columns.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from sklearn_privacy.utils import check_categorical_values
    >>> X = np.array([["a", 1], [pd.NA, 2]], dtype=object)
    >>> check_categorical_values(X, feature_names=["city", "age"])
    Traceback (most recent call last):
    ...
    ValueError: column 'city' of X contains missing values (1 of them, ...
    """
    for k in range(X.shape[1]):
        if feature_names is not None and k < len(feature_names):
            column_name = f"column {feature_names[k]!r}"
        else:
            column_name = f"column {k}"
        column = X[:, k]
        missing = _missing_mask(column)
        if missing.any():
            raise ValueError(
                f"{column_name} of {name} contains missing values "
                f"({int(missing.sum())} of them, first in row {int(np.argmax(missing))}; "
                "None, NaN, pd.NA or NaT): impute them, or make 'missing' a category "
                "of its own (e.g. the string 'missing')."
            )
        infinite = _infinite_mask(column)
        if infinite.any():
            raise ValueError(
                f"{column_name} of {name} contains infinite values "
                f"({int(infinite.sum())} of them, first in row {int(np.argmax(infinite))}): "
                "a category must be a finite number or a label; replace or clip them."
            )


def _missing_mask(column):
    """Which cells of a 1-D array are missing (None, NaN, pd.NA, NaT)."""
    if column.dtype.kind in "fc":
        return np.isnan(column)
    if column.dtype.kind in "mM":
        return np.isnat(column)
    if column.dtype.kind == "O":
        # pd.isna flags None, float NaN, pd.NA and NaT cell by cell, without ever
        # asking for the truth value of pd.NA (which raises).
        return np.asarray(pd.isna(column), dtype=bool)
    return np.zeros(column.shape, dtype=bool)  # int, bool, str, bytes: never missing


def _is_infinite(value):
    if isinstance(value, Number) and not isinstance(value, (bool, np.bool_)):
        try:
            return cmath.isinf(value)
        except (TypeError, ValueError, ArithmeticError):
            return False
    return False


def _infinite_mask(column):
    """Which cells of a 1-D array (with no missing cell) are +-inf."""
    if column.dtype.kind in "fc":
        return np.isinf(column)  # complex: either part
    if column.dtype.kind != "O":
        return np.zeros(column.shape, dtype=bool)
    try:  # one comparison per cell, in C: flags +-inf of every real number type
        mask = np.asarray((column == np.inf) | (column == -np.inf), dtype=bool)
        if mask.shape == column.shape:
            return mask
    except Exception:  # a cell whose == is not a plain bool (e.g. an array)
        pass
    return np.fromiter((_is_infinite(v) for v in column.tolist()), dtype=bool, count=len(column))


def as_2d(values, name):
    """``values`` (array-like or pandas object) as a 2-D ndarray; a 1-D one becomes a column.

    Parameters
    ----------
    values : array-like, pandas Series or pandas DataFrame
        One-dimensional or two-dimensional values.
    name : str
        Name used in the error message.

    Returns
    -------
    ndarray of shape (n_samples, n_columns)
        The values, with one column when ``values`` is 1-D.

    Raises
    ------
    ValueError
        If ``values`` has more than two dimensions (or none).

    See Also
    --------
    check_sensitive : Validation of S, built on this conversion.

    Examples
    --------
    >>> from sklearn_privacy.utils import as_2d
    >>> as_2d([1, 2, 3], "sensitive")
    array([[1],
           [2],
           [3]])
    >>> as_2d([[[1]]], "sensitive")
    Traceback (most recent call last):
        ...
    ValueError: sensitive must be 1-D or 2-D, got shape (1, 1, 1).
    """
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    try:
        values = np.asarray(values)
    except ValueError:
        # a list holding a list among its cells: one column of objects (a cell's
        # shape must not decide between a fit and an exception)
        values = np.fromiter(values, dtype=object, count=len(values))
    if values.ndim == 1:
        values = values.reshape(-1, 1)
    if values.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got shape {values.shape}.")
    return values


def check_sensitive(sensitive, *, n_samples=None, name="sensitive", min_values=2):
    """Validate S: a 2-D array with no missing values and at least two distinct rows.

    Parameters
    ----------
    sensitive : array-like of shape (n_samples,) or (n_samples, n_sensitive)
    n_samples : int, default=None
        Expected number of rows.
    name : str, default="sensitive"
        Name used in error messages.
    min_values : int, default=2
        Distinct rows required: 2 to fit or score (S must vary), 1 to release
        (a single row has a single value).

    Returns
    -------
    ndarray of shape (n_samples, n_sensitive)

    See Also
    --------
    encode_sensitive : Integer codes of the validated S.
    sensitive_design_matrix : Float matrix of S for Gaussian models.

    Examples
    --------
    >>> from sklearn_privacy.utils import check_sensitive
    >>> check_sensitive(["F", "M", "F"]).shape
    (3, 1)
    >>> check_sensitive([1, 1, 1])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: sensitive takes a single value: there is nothing to protect ...
    >>> check_sensitive([0, 1], n_samples=3)
    Traceback (most recent call last):
        ...
    ValueError: sensitive has 2 rows but X has 3.
    """
    S = as_2d(sensitive, name)
    if n_samples is not None and S.shape[0] != n_samples:
        raise ValueError(f"{name} has {S.shape[0]} rows but X has {n_samples}.")
    if S.dtype.kind == "f":
        bad = ~np.isfinite(S)
        if bad.any():
            raise ValueError(
                f"{name} contains NaN or infinite values ({_where(bad)}): S must be known for "
                "every row. Drop those rows or impute S; for a discrete S, a missing value "
                "can be a category of its own (e.g. the string 'missing')."
            )
    elif S.dtype.kind == "O":
        missing = np.asarray(pd.isna(S), dtype=bool)
        if missing.any():
            raise ValueError(
                f"{name} contains missing values ({_where(missing)}; None, NaN, pd.NA or "
                "NaT): S must be known for every row. Drop those rows or impute S; for a "
                "discrete S, make 'missing' a category of its own (e.g. S.fillna('missing'))."
            )
    if min_values > 1 and (S.shape[0] < 2 or np.all(S == S[:1])):
        raise ValueError(
            f"{name} takes a single value: there is nothing to protect and leakage is zero. "
            "S needs at least two distinct values."
        )
    return S


def describe_numbers_with_text(values, *, columns=None, feature_names=None, name="X"):
    """Name the first column of numbers that holds stray text, with the numeric remedy.

    A column read from a file with a placeholder for missing values (``"n/a"``,
    ``"?"``, ``"-"``) is a column of numbers with a few cells of text: read as
    labels it becomes one category per distinct value, and a numeric mechanism
    cannot convert it. A column counts when more than half of its cells that
    are not missing (see :func:`pandas.isna`) are numbers (real numbers, or
    strings that :func:`pandas.to_numeric` parses) and at least one is not; a
    column of mostly text is a column of labels.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_columns) or None
        The data, an object array (other dtypes hold no text; None: nothing).
    columns : iterable of int, default=None
        The positions to look at (all columns by default).
    feature_names : array-like of str, default=None
        Column names used in the message (positions otherwise).
    name : str, default="X"
        Name of the data in the message.

    Returns
    -------
    str or None
        The description (column, count and first text cell) and how to make the
        column numeric, or None when no column holds numbers with stray text.
    """
    if values is None:
        return None
    values = np.asarray(values)
    if values.dtype != object or values.ndim != 2:
        return None
    for k in range(values.shape[1]) if columns is None else columns:
        column = values[:, k]
        try:
            column.astype(np.float64)
            continue  # all numbers (or numeric strings): no text
        except (TypeError, ValueError):
            pass
        try:
            # each distinct value parsed once (a column of labels has few); missing cells
            # (None, NaN, pd.NA, NaT) get the code -1
            codes, uniques = pd.factorize(column)
            parsed = pd.to_numeric(pd.Series(np.asarray(uniques, dtype=object)), errors="coerce")
        except (TypeError, ValueError):  # unhashable cells, or cells pandas cannot coerce
            continue
        present = codes >= 0
        text = present & np.asarray(pd.isna(parsed), dtype=bool)[np.where(present, codes, 0)]
        n_text, n_present = int(text.sum()), int(present.sum())
        if n_text == 0 or 2 * (n_present - n_text) <= n_present:
            continue
        row = int(np.argmax(text))
        if feature_names is not None and k < len(feature_names):
            label, access = repr(str(feature_names[k])), f"{name}[{str(feature_names[k])!r}]"
        else:
            label, access = str(k), f"{name}[:, {k}]"
        verb = "is" if n_text == 1 else "are"
        return (
            f"column {label} of {name} holds numbers with stray text: {n_text} of its "
            f"{n_present} values {verb} not a number (first {column[row]!r}, in row {row}). "
            "If it is a measurement, turn the text into missing values and impute them "
            f"(e.g. pandas.to_numeric({access}, errors='coerce'), then SimpleImputer) or "
            "drop those rows"
        )
    return None


def _where(mask):
    """How many rows of a 2-D mask hold a bad cell, and the first of them."""
    rows = mask.reshape(mask.shape[0], -1).any(axis=1)
    n, first = int(rows.sum()), int(np.argmax(rows))
    return f"in row {first}" if n == 1 else f"in {n} rows, first row {first}"


def relative_weights(sample_weight, name="sample_weight"):
    """``sample_weight`` times a power of two that brings its largest value near 1, and that factor.

    Weights enter sums of products (``w x x^T``) and sums of squares: scaled so
    that the largest lies in ``[0.5, 1)`` they cannot overflow there, and, as
    a product by a power of two is exact, weights ``w`` and ``w * 2**k`` give
    the same scaled weights bit for bit. The weights must leave more than one
    row: when all the other rows weigh less than float64's resolution beside
    the heaviest, every weighted sum is that row alone (its mean, a covariance
    that only rounding makes nonzero), and no mechanism can learn from it.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,)
        Finite, non-negative weights with a positive sum (as
        ``_check_sample_weight`` leaves them).
    name : str, default="sample_weight"
        Name used in the error message.

    Returns
    -------
    scaled : ndarray of shape (n_samples,)
        ``sample_weight * factor``, its largest value in ``[0.5, 1)``.
    factor : float
        The power of two applied.

    Raises
    ------
    ValueError
        Naming ``name`` and the largest weight, when the other rows vanish beside it.
    """
    w = np.asarray(sample_weight, dtype=np.float64)
    top = float(w.max(initial=0.0))
    if top <= 0.0:
        return w, 1.0
    exponent = -int(np.frexp(top)[1])
    scaled = np.ldexp(w, exponent)  # exact; 2**-exponent itself may overflow (top near 1e308)
    rest = float(scaled.sum() - scaled.max()) / float(scaled.max())
    if w.size > 1 and rest < np.finfo(np.float64).eps:
        raise ValueError(
            f"{name} gives one row the weight {top:.6g}, beside which all the other rows "
            f"together weigh less than float64's resolution ({np.finfo(np.float64).eps:.2g} "
            "of it): every weighted sum is that single row, and nothing can be learnt from "
            "one row. Check the weights: the other rows need a larger share of the total."
        )
    return scaled, float(np.ldexp(1.0, exponent))


# The most distinct numbers a column may take where a mechanism reads numbers as categories
# and has no ``max_categories`` of its own (PPAN's adversary classes, the one-hot of a public
# Gaussian fit): the default of ``max_categories`` of the discrete mechanisms.
MAX_READ_CATEGORIES = 200

# How to turn a measurement into categories, in the errors that refuse one.
BIN_EXAMPLES = "e.g. KBinsDiscretizer(encode='ordinal') or pandas.cut"


def is_continuous(values):
    """Whether a variable is continuous: floats that are not all integers.

    Labels, integers and integer-valued floats are discrete (as
    :func:`sklearn.utils.multiclass.type_of_target` reads them).

    Parameters
    ----------
    values : array-like
        Values of the variable; NaN and infinite float cells are ignored.

    Returns
    -------
    bool
        True when ``values`` is a float (or complex) array with at least one
        finite non-integer value.

    See Also
    --------
    encode_sensitive : Codes of a discrete variable.
    sensitive_design_matrix : How a continuous or discrete S enters Gaussian models.

    Examples
    --------
    >>> from sklearn_privacy.utils import is_continuous
    >>> is_continuous([0.5, 1.0, 2.0])
    True
    >>> is_continuous([0.0, 1.0, 2.0])
    False
    >>> is_continuous(["a", "b"])
    False
    """
    values = np.asarray(values)
    if values.dtype.kind not in "fc":
        return False
    finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
    return bool(np.any(finite != np.round(finite)))


def as_numbers(values):
    """An object array whose cells are all real numbers, as floats; other arrays unchanged.

    A DataFrame column of floats becomes an object column once a string column
    sits beside it in ``X``; read as numbers, it is continuous or discrete as it
    would be on its own.
    """
    values = np.asarray(values)
    if values.dtype == object and values.size:
        if all(isinstance(v, Real) for v in values.ravel()):
            return values.astype(np.float64)
    return values


def check_category_counts(
    values,
    max_categories,
    *,
    reader,
    remedies,
    name="sensitive",
    column_labels=None,
    bound=None,
    numbers_only=False,
):
    """Refuse a variable read as categories whose column looks continuous.

    A column with more than ``max_categories`` distinct values is almost
    surely a measurement (fnlwgt, an income, a score), not a set of
    categories: reading it as one category per value makes the fit slow
    (the joint table of S and X grows with it) and its leakage meaningless.
    The error names the variable and the column, says how many distinct
    values it has (and whether they are floats that are not all integers),
    and gives ``remedies``.

    Parameters
    ----------
    values : array-like of shape (n_samples,) or (n_samples, n_columns)
        The variable (or its distinct rows: only the distinct values of each
        column count).
    max_categories : int or None
        Largest number of distinct values of one column; ``None`` disables the
        check.
    reader : str
        Who reads the variable as categories (a class name), for the message.
    remedies : str
        The end of the message: what to do instead.
    name : str, default="sensitive"
        Name of the variable (the parameter that carries it).
    column_labels : list of str or int, default=None
        Names (or positions) of the columns of ``X`` that hold the variable;
        ``None`` when it came on its own (as metadata).
    bound : str, default=None
        How to name the limit in the message (``max_categories=<value>`` by
        default).
    numbers_only : bool, default=False
        Check only columns that hold numbers (strings declare categories).

    Raises
    ------
    ValueError
        Naming the first column over the limit.
    """
    if max_categories is None:
        return
    values = as_2d(values, name)
    bound = f"max_categories={max_categories}" if bound is None else bound
    for k in range(values.shape[1]):
        column = as_numbers(values[:, k])
        if numbers_only and column.dtype.kind not in "iufb":
            continue
        if column.size <= max_categories:
            continue
        try:
            n_values = pd.unique(column).size
        except TypeError:  # unhashable cells: the encoder's own error names them
            continue
        if n_values <= max_categories:
            continue
        if column_labels is not None:
            who = f"{name} column {column_labels[k]!r}"
        elif values.shape[1] > 1:
            who = f"column {k} of {name}"
        else:
            who = name
        kind = ""
        if is_continuous(column):
            kind = " (floats that are not all integers)"
        elif column.dtype.kind in "iuf":
            kind = " (integers)"
        raise ValueError(
            f"{who} has {n_values} distinct values{kind}, more than {bound}: it looks "
            f"continuous, but {reader} reads it as categories, one per distinct value. "
            f"{remedies}"
        )
