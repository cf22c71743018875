"""The release read once: one discreteness decision, one deduplication, one column reading.

Every member of the panel reads the same :class:`ReleaseView`. Missing and infinite values,
and values that repeat inside a column of distinct floats (atoms), are read as values: each
such column gets a category column beside its number (why: "The panel reads missing values
and atoms as values" in ``docs/design.md``).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sklearn_privacy.information import encode_symbols

__all__ = [
    "HUGE",
    "MAX_DISTINCT_FRACTION",
    "MAX_ONE_HOT",
    "ReleaseView",
    "is_symbolic",
    "missing_cells",
    "read_release",
    "take_rows",
]

# A release is read with the plug-in estimate when it has at most this many
# distinct rows per sample (each release value seen 10 times on average).
MAX_DISTINCT_FRACTION = 0.1

# A code column of at most this many values is one-hot encoded; a larger one is
# target-encoded (cross-fitted), so that 500 codes are 500 categories, not 32 bins.
MAX_ONE_HOT = 32

# A number column whose largest magnitude exceeds this is read through arcsinh by the members
# (a monotone map changes no information): a mean or a square of 1.7e308 overflows, and a
# division by it leaves subnormal numbers whose quantiles interpolate to inf - inf.
HUGE = 1e100


@dataclass(frozen=True)
class ReleaseView:
    """A release as the members read it.

    Attributes
    ----------
    values : ndarray of shape (n_samples, n_features)
        The release as a checked array (missing values kept).
    rows : ndarray of shape (n_samples,)
        Code of each row among the distinct rows.
    n_distinct : int
        Number of distinct rows.
    discrete : bool
        Whether the release is read as symbols (the rule of ``is_discrete``).
    one_hot, target, numbers : ndarray of int
        Columns of :attr:`coded` read as few categories, as many categories
        (codes with repeated values), and as numbers.
    names : list of str
        The names of the columns of :attr:`coded`: the release's columns (a
        DataFrame's names, else their positions), then the columns read from
        them (``"x [values]"``: the missing, infinite and repeated values of
        the number column ``x`` as categories; ``"[missing per row]"``,
        ``"[nonzero per row]"``).
    coded : ndarray of shape (n_samples, n_coded)
        What the panel's own members read, all finite: each category column as
        the codes of its values in sorted order (the order the encoders sort
        them in, so they make the same features), each number column as it is
        (its missing and infinite cells at the median of the others, through
        arcsinh where its largest magnitude exceeds :data:`HUGE`), then the columns read
        from them. Read once, so that no member re-sorts strings in each fold.
    given : array-like of shape (n_samples, n_features)
        The release as the user gave it (a DataFrame, a sparse matrix or an
        array): what the user's adversaries read.
    given_names : list of str
        The names of the columns of :attr:`given`.
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
    given: object = None
    given_names: list = None
    n_value_columns: int = 0

    @property
    def for_neighbours(self):
        """:attr:`coded` without the category columns of values read from number columns.

        The kNN estimates count repeated rows by the chain rule themselves (``rows``); a
        category column beside a number would count its atoms twice, in another metric.
        """
        if not self.n_value_columns:
            return self.coded
        own = len(self.given_names)
        return np.delete(self.coded, np.s_[own : own + self.n_value_columns], axis=1)


def _is_code(column):
    """Whether a column holds codes: not floats, or floats whose finite values are integers."""
    if column.dtype.kind not in "fc":
        return True
    finite = column[np.isfinite(column)]
    return bool(np.all(finite == np.round(finite)))


def missing_cells(values):
    """A boolean array of the missing (None, NaN, pd.NA) and infinite cells of a 2-D release."""
    if values.dtype.kind in "fc":
        return ~np.isfinite(values)
    if values.dtype.kind == "O":
        missing = np.asarray(pd.isna(values), dtype=bool)
        numbers = np.vectorize(lambda v: isinstance(v, float) and np.isinf(v), otypes=[bool])
        return missing | numbers(values) if values.size else missing
    return np.zeros(values.shape, dtype=bool)


def is_symbolic(values, count_distinct):
    """The discreteness rule of a 2-D release: not floats, finite values all integers, or few
    rows.

    ``count_distinct()`` gives the number of distinct rows; it is called only when the
    first two tests fail (a deduplication costs a sort of the rows). Missing and infinite
    cells are values like any other.
    """
    if values.dtype.kind not in "fc":
        return True
    finite = values[np.isfinite(values)]
    if np.all(finite == np.round(finite)):
        return True
    return bool(count_distinct() <= MAX_DISTINCT_FRACTION * values.shape[0])


def take_rows(values, rows):
    """The rows ``rows`` of an array, a sparse matrix or a DataFrame (by position)."""
    if hasattr(values, "iloc"):
        return values.iloc[rows]
    return values[rows]


def _finite_number(column, missing):
    """A number column with its missing and infinite cells at the median of the others,
    through arcsinh where its largest magnitude exceeds :data:`HUGE` (1.7e308 reads 710)."""
    column = np.asarray(column, dtype=float)
    if missing.any():
        finite = column[~missing]
        column = np.where(missing, np.median(finite) if finite.size else 0.0, column)
    scale = np.max(np.abs(column)) if column.size else 0.0
    return np.arcsinh(column) if scale > HUGE else column


def _values_column(codes, missing):
    """The codes of a number column's values that are categories: its missing and infinite
    values and the values it repeats; 0 for a value seen once. None where it has none.

    In a column of distinct floats a value seen twice or more is an atom: a mechanism can
    put S there (S itself for a subgroup) where a number's ordering blurs it.
    """
    counts = np.bincount(codes)
    category = (counts[codes] > 1) | missing
    if not category.any():
        return None
    return np.unique(np.where(category, codes + 1, 0), return_inverse=True)[1]


def read_release(values, names=None, *, given=None, nonzero=None):
    """The :class:`ReleaseView` of a checked 2-D release.

    A column is a category column when it holds codes (integers, booleans,
    strings, objects, integer-valued floats; a missing value is one more
    value) with repeated values, or at most :data:`MAX_ONE_HOT` distinct
    values; with more than that many it is target-encoded, else one-hot
    encoded. The other columns are numbers; a number column with missing,
    infinite or repeated values gets a category column of those values beside
    it. A release with missing cells gets their count per row as a number
    column; ``nonzero`` (the count of each row's stored entries of a sparse
    release) is another.
    """
    n, d = values.shape
    missing = missing_cells(values)
    one_hot, target, numbers = [], [], []
    column_codes, coded, extra, extra_names = [], [], [], []
    names = [str(name) for name in (names if names is not None else range(d))]
    for j in range(d):
        column = values[:, j]
        codes, column_symbols = encode_symbols(column, name="release")
        column_codes.append(codes)
        n_values = len(column_symbols)
        if n_values <= MAX_ONE_HOT or (column.dtype.kind not in "biufc"):
            (one_hot if n_values <= MAX_ONE_HOT else target).append(j)
            coded.append(codes)
        elif _is_code(column) and n_values < n:
            target.append(j)
            coded.append(codes)
        else:
            numbers.append(j)
            coded.append(_finite_number(column, missing[:, j]))
            categories = _values_column(codes, missing[:, j])
            if categories is not None:
                extra.append(categories)
                extra_names.append(f"{names[j]} [values]")
    for k, categories in enumerate(extra):
        (one_hot if categories.max() < MAX_ONE_HOT else target).append(d + k)
    counts = []
    if missing.any():
        counts.append(("[missing per row]", missing.sum(axis=1)))
    if nonzero is not None:
        counts.append(("[nonzero per row]", np.asarray(nonzero)))
    for k, (name, _) in enumerate(counts):
        numbers.append(d + len(extra) + k)
        extra_names.append(name)
    # The rows coded from the columns' codes (which keep each column's order): the
    # codes of the rows themselves, without sorting each string column again.
    rows, symbols = encode_symbols(np.column_stack(column_codes), name="release")
    n_distinct = len(symbols)
    discrete = is_symbolic(values, lambda: n_distinct)
    as_int = lambda columns: np.array(sorted(columns), dtype=int)  # noqa: E731
    return ReleaseView(
        values=values,
        rows=rows,
        n_distinct=n_distinct,
        discrete=discrete,
        one_hot=as_int(one_hot),
        target=as_int(target),
        numbers=as_int(numbers),
        names=names + extra_names,
        coded=np.column_stack(coded + extra + [count for _, count in counts]).astype(float),
        given=values if given is None else given,
        given_names=names,
        n_value_columns=len(extra),
    )
