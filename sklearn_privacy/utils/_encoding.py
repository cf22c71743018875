"""The encodings of a sensitive (or relevance) variable used across the library.

Integer codes of its joint symbols (:func:`encode_sensitive`), or a float matrix for Gaussian
models: read off the rows or declared (:func:`declared_design_matrix`, for a private fit).
"""

import numpy as np

from sklearn_privacy.utils._symbols import RowIndex, encode_rows
from sklearn_privacy.utils._validation import as_2d, is_continuous

__all__ = [
    "declared_design_matrix",
    "encode_sensitive",
    "sensitive_design_matrix",
]


def encode_sensitive(values, name="sensitive"):
    """Integer codes of the joint symbols of a discrete variable.

    Parameters
    ----------
    values : array-like of shape (n_samples,) or (n_samples, n_columns)
    name : str, default="sensitive"
        Name in error messages.

    Returns
    -------
    codes : ndarray of shape (n_samples,)
    symbols : ndarray
        The distinct values (or rows), in the order of the codes.

    See Also
    --------
    sensitive_design_matrix : Float matrix of S for Gaussian models.
    sklearn_privacy.information.encode_symbols : Codes of any discrete variable.

    Examples
    --------
    >>> from sklearn_privacy.utils import encode_sensitive
    >>> encode_sensitive([["f", 1], ["m", 0], ["f", 1]])[0].tolist()
    [0, 1, 0]
    """
    return encode_rows(as_2d(values, name), name=name)


def sensitive_design_matrix(values, name="sensitive"):
    """Float matrix of a variable for Gaussian models.

    A continuous variable (see :func:`is_continuous`) is kept as it is; a
    discrete one is one-hot encoded over its joint symbols, the first symbol
    dropped.

    Parameters
    ----------
    values : array-like of shape (n_samples,) or (n_samples, n_columns)
    name : str, default="sensitive"
        Name in error messages.

    Returns
    -------
    ndarray of shape (n_samples, n_columns_out)

    See Also
    --------
    encode_sensitive : Integer codes of a discrete variable.
    is_continuous : Whether a variable is read as continuous.

    Examples
    --------
    >>> from sklearn_privacy.utils import sensitive_design_matrix
    >>> sensitive_design_matrix(["a", "b", "c", "a"]).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    """
    arr = as_2d(values, name)
    if is_continuous(arr):
        out = arr.astype(float)
        if not np.all(np.isfinite(out)):
            raise ValueError(f"{name} contains NaN or infinite values.")
        return out
    codes, symbols = encode_sensitive(arr, name)
    if len(symbols) < 2:
        raise ValueError(f"{name} takes a single value.")
    return (codes[:, None] == np.arange(1, len(symbols))[None, :]).astype(float)


def declared_design_matrix(values, classes, name="sensitive", parameter="classes"):
    """Float matrix of a variable whose encoding is declared, for a private fit.

    Nothing about the encoding is read off the values, and no value raises:
    each row is mapped to a row of the matrix the way DP libraries map values
    outside a declared domain.

    Parameters
    ----------
    values : array-like of shape (n_samples,) or (n_samples, n_columns)
    classes : "continuous" or array-like of shape (n_classes,)
        ``"continuous"``: the values as numbers (NaN counts as 0 and
        infinities as the largest float; a private fit clips them with their
        row); a column whose dtype is not numeric (object, string,
        categorical) is refused, whatever its cells hold. An array of
        classes (``n_classes >= 2``, one column): one-hot over them with the
        first class dropped; a value outside the classes (NaN, ``pd.NA``, a
        stray label or a list included) counts as the first class.
    name : str, default="sensitive"
        Name of the variable in error messages.
    parameter : str, default="classes"
        Name of the parameter that declared ``classes``, in error messages.

    Returns
    -------
    ndarray of shape (n_samples, n_columns) or (n_samples, n_classes - 1)

    See Also
    --------
    sensitive_design_matrix : The same matrix with the encoding read off the values.

    Examples
    --------
    >>> from sklearn_privacy.utils import declared_design_matrix
    >>> declared_design_matrix(["b", "c", "z"], ["a", "b", "c"]).tolist()
    [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    >>> declared_design_matrix([0.5, float("nan")], "continuous").tolist()
    [[0.5], [0.0]]
    """
    arr = as_2d(values, name)
    if isinstance(classes, str):
        # Decided by the dtype, never by a cell: one label among numbers (or a pd.NA
        # in an object column) must not choose between a fit and an exception.
        if arr.dtype.kind not in "biuf":
            raise ValueError(
                f"{parameter}={classes!r} reads {name} as numbers, but its dtype is "
                f"{arr.dtype} (not numeric): give it as numbers (e.g. "
                f"pandas.to_numeric(..., errors='coerce'); NaN counts as 0), or declare its "
                f"classes, {parameter}=[...]."
            )
        big = np.finfo(float).max
        return np.nan_to_num(arr.astype(float), nan=0.0, posinf=big, neginf=-big)
    if arr.shape[1] != 1:
        raise ValueError(
            f"{parameter} declares the classes of one column, but {name} has "
            f"{arr.shape[1]} columns."
        )
    # Values outside the declared classes (NaN included) get -1: the first class's row of zeros.
    codes = RowIndex(declared_classes(classes, parameter)).codes(arr[:, 0], unknown=-1)
    n_classes = len(classes)
    return (codes[:, None] == np.arange(1, n_classes)[None, :]).astype(float)


def declared_classes(classes, parameter="classes"):
    """``classes`` as a 1-D array of at least two distinct values, or a clear error."""
    arr = np.asarray(classes, dtype=object)
    if arr.ndim != 1 or arr.size < 2 or len(set(arr.tolist())) != arr.size:
        raise ValueError(f"{parameter} must list at least two distinct classes, got {classes!r}.")
    return arr
