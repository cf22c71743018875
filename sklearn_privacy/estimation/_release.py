"""The release read once: one discreteness decision, one deduplication, one column reading.

Every member of the panel reads the same :class:`ReleaseView`.
"""

from dataclasses import dataclass

import numpy as np

from sklearn_privacy.information import encode_symbols

__all__ = ["MAX_DISTINCT_FRACTION", "MAX_ONE_HOT", "ReleaseView", "is_symbolic", "read_release"]

# A release is read with the plug-in estimate when it has at most this many
# distinct rows per sample (each release value seen 10 times on average).
MAX_DISTINCT_FRACTION = 0.1

# A code column of at most this many values is one-hot encoded; a larger one is
# target-encoded (cross-fitted), so that 500 codes are 500 categories, not 32 bins.
MAX_ONE_HOT = 32


@dataclass(frozen=True)
class ReleaseView:
    """A release as the members read it.

    Attributes
    ----------
    values : ndarray of shape (n_samples, n_features)
        The release.
    rows : ndarray of shape (n_samples,)
        Code of each row among the distinct rows.
    n_distinct : int
        Number of distinct rows.
    discrete : bool
        Whether the release is read as symbols (the rule of ``is_discrete``).
    one_hot, target, numbers : ndarray of int
        Columns read as few categories, as many categories (codes with
        repeated values), and as numbers.
    names : list of str
        The columns' names (a DataFrame's, else their positions).
    coded : ndarray of shape (n_samples, n_features)
        What the panel's own members read: each category column as the codes of
        its values in sorted order (the order the encoders sort them in, so they
        make the same features), the number columns as they are. Read once, so
        that no member re-sorts strings in each fold.
    """

    values: np.ndarray
    rows: np.ndarray
    n_distinct: int
    discrete: bool
    one_hot: np.ndarray
    target: np.ndarray
    numbers: np.ndarray
    names: list
    coded: np.ndarray


def _is_code(column):
    """Whether a column holds codes: not floats, or floats that are all integers."""
    if column.dtype.kind not in "fc":
        return True
    return bool(np.all(column == np.round(column)))


def is_symbolic(values, count_distinct):
    """The discreteness rule of a finite 2-D release: not floats, all integers, or few rows.

    ``count_distinct()`` gives the number of distinct rows; it is called only when the
    first two tests fail (a deduplication costs a sort of the rows).
    """
    if values.dtype.kind not in "fc" or np.all(values == np.round(values)):
        return True
    return bool(count_distinct() <= MAX_DISTINCT_FRACTION * values.shape[0])


def read_release(values, names=None):
    """The :class:`ReleaseView` of a checked 2-D release.

    A column is a category column when it holds codes (integers, booleans,
    strings, objects, integer-valued floats) with repeated values, or at most
    :data:`MAX_ONE_HOT` distinct values; with more than that many it is
    target-encoded, else one-hot encoded. The other columns are numbers.
    """
    n, d = values.shape
    one_hot, target, numbers = [], [], []
    column_codes = []
    for j in range(d):
        column = values[:, j]
        codes, column_symbols = encode_symbols(column, name="release")
        column_codes.append(codes)
        n_values = len(column_symbols)
        if n_values <= MAX_ONE_HOT or (column.dtype.kind not in "biufc"):
            (one_hot if n_values <= MAX_ONE_HOT else target).append(j)
        elif _is_code(column) and n_values < n:
            target.append(j)
        else:
            numbers.append(j)
    # The rows coded from the columns' codes (which keep each column's order): the
    # codes of the rows themselves, without sorting each string column again.
    rows, symbols = encode_symbols(np.column_stack(column_codes), name="release")
    n_distinct = len(symbols)
    discrete = is_symbolic(values, lambda: n_distinct)
    as_int = lambda columns: np.array(columns, dtype=int)  # noqa: E731
    numeric = set(numbers)
    coded = np.column_stack(
        [values[:, j] if j in numeric else column_codes[j] for j in range(d)]
    ).astype(float)
    return ReleaseView(
        values=values,
        rows=rows,
        n_distinct=n_distinct,
        discrete=discrete,
        one_hot=as_int(one_hot),
        target=as_int(target),
        numbers=as_int(numbers),
        names=[str(name) for name in (names if names is not None else range(d))],
        coded=coded,
    )
