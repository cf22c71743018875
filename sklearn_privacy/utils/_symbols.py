"""Joint symbols of categorical rows: one encoder, one lookup, one sampler.

:func:`encode_rows` codes the distinct rows (any dtype), :class:`RowIndex` finds new rows among
fitted records, :class:`CategoricalSampler` draws from rows of probabilities.
"""

import numpy as np
import pandas as pd

__all__ = ["CategoricalSampler", "RowIndex", "encode_rows"]

# Mixed-radix keys of rows fit an int64 while the product of the column sizes does.
_KEY_BITS = 62
# Rows per block when matching rows to their nearest record (memory bound).
_NEAREST_BLOCK = 2048


def _as_table(values, name):
    values = np.asarray(values)
    if values.ndim == 0 or values.ndim > 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got shape {values.shape}.")
    if values.shape[0] == 0:
        raise ValueError(f"{name} is empty.")
    return values


def _column_categories(column, unordered="repr"):
    """Sorted distinct values of a column and each cell's position among them.

    Values that cannot be ordered against each other (mixed types in an object
    column) are ordered by their ``repr``, or raise ``TypeError`` with
    ``unordered="raise"``.
    """
    try:
        if column.dtype.kind == "O":
            return _object_categories(column)
        return np.unique(column, return_inverse=True)
    except TypeError:
        if unordered == "raise":
            raise
        keys = np.array([repr(v) for v in column.tolist()])
        _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
        return column[first], codes


def _object_categories(column):
    """``np.unique(column, return_inverse=True)`` of an object column, by hashing.

    The rows are grouped by a hash table (``pandas.factorize``) and only the
    distinct values sorted: 32 561 strings of Adult's columns are sorted in
    0.06 s a column, hashed in a few ms. A missing value (None, NaN), which
    ``factorize`` drops, sends the column to ``np.unique``.
    """
    codes, distinct = pd.factorize(column)
    if codes.size and codes.min() < 0:
        return np.unique(column, return_inverse=True)
    values, order = np.unique(np.asarray(distinct, dtype=object), return_inverse=True)
    return values, order[codes]


def _row_keys(column_codes, radix):
    """Mixed-radix int64 key of each row of column codes, or None if it could overflow."""
    if np.sum(np.log2(np.maximum(radix, 1))) >= _KEY_BITS:
        return None
    weights = np.cumprod(np.r_[1, radix[::-1][:-1]])[::-1].astype(np.int64)
    return column_codes @ weights


def _lookup_keys(column_codes, radix):
    """One comparable key per row of column codes: the int64 key, or the row's bytes.

    Beyond an int64 key (more than 2^62 combinations) each row is read as one
    opaque value of its bytes: equal rows have equal keys and the keys sort
    (byte-wise, not in the columns' order, which a lookup does not need).
    """
    keys = _row_keys(column_codes, radix)
    if keys is not None:
        return keys
    rows = np.ascontiguousarray(column_codes, dtype=np.int64)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).reshape(-1)


def _code_columns(table, unordered):
    """Categories of each column of a 2-D table, each cell's code, and the column sizes."""
    categories = []
    column_codes = np.empty(table.shape, dtype=np.int64)
    for k in range(table.shape[1]):
        values, codes = _column_categories(table[:, k], unordered)
        categories.append(values)
        column_codes[:, k] = codes.reshape(-1)
    radix = np.array([len(values) for values in categories], dtype=np.int64)
    return categories, column_codes, radix


def _unique_rows(column_codes, radix):
    """Code of each row among the distinct rows (lexicographic), and a first row of each."""
    keys = _row_keys(column_codes, radix)
    rows = column_codes if keys is None else keys
    _, first, codes = np.unique(
        rows, axis=0 if keys is None else None, return_index=True, return_inverse=True
    )
    return codes.reshape(-1).astype(np.int64, copy=False), first


def encode_rows(values, *, name="values", unordered="repr"):
    """Integer code of each row (or element) of ``values`` and the distinct rows.

    A 2-D array is read row by row, so that several categorical columns form
    one joint alphabet; a 2-D array of one column is read as 1-D.

    Parameters
    ----------
    values : array-like of shape (n_samples,) or (n_samples, n_columns)
        Symbols of any dtype; object values that cannot be ordered against
        each other are ordered by their ``repr``.
    name : str, default="values"
        The name used in error messages.
    unordered : {"repr", "raise"}, default="repr"
        Values of one column that cannot be ordered against each other are
        ordered by their ``repr``, or raise the ``TypeError`` of the sort.

    Returns
    -------
    codes : ndarray of int64 of shape (n_samples,)
        Codes in ``range(n_symbols)``.
    symbols : ndarray of shape (n_symbols,) or (n_symbols, n_columns)
        The distinct values (or rows), in lexicographic order of the columns.

    Examples
    --------
    >>> from sklearn_privacy.utils._symbols import encode_rows
    >>> codes, symbols = encode_rows([["b", 2], ["a", 5], ["b", 2]])
    >>> codes.tolist(), symbols.tolist()
    ([1, 0, 1], [['a', '5'], ['b', '2']])
    """
    values = _as_table(values, name)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim == 1:
        symbols, codes = _column_categories(values, unordered)
        return codes.reshape(-1).astype(np.int64), symbols
    _, column_codes, radix = _code_columns(values, unordered)
    codes, first = _unique_rows(column_codes, radix)
    return codes, values[first]


class RowIndex:
    """Code of each row of new data among a fixed list of distinct records.

    Parameters
    ----------
    records : array-like of shape (n_records,) or (n_records, n_columns)
        Distinct records; a row's code is its position in this list.

    Attributes
    ----------
    records : ndarray of shape (n_records, n_columns)
        The records, 2-D.
    record_codes : ndarray of int64 of shape (n_records, n_columns)
        Each record's cells as positions among their column's categories.

    Examples
    --------
    >>> from sklearn_privacy.utils._symbols import RowIndex
    >>> index = RowIndex([[0, 1], [1, 0]])
    >>> index.codes([[1, 0], [0, 1], [1, 0]]).tolist()
    [1, 0, 1]
    >>> index.codes([[1, 1]], unknown=-1).tolist()
    [-1]
    """

    def __init__(self, records):
        records = _as_table(records, "records")
        self.records = records.reshape(records.shape[0], -1)
        self._index(*_code_columns(self.records, "repr"))

    @classmethod
    def fit(cls, values, *, name="values", unordered="repr"):
        """The index of the distinct rows of a 2-D ``values``, and each row's code.

        What :func:`encode_rows` computes, with the index built from the same
        column codes (no second pass over the records).

        Parameters
        ----------
        values : array-like of shape (n_samples, n_columns)
        name : str, default="values"
            The name used in error messages.
        unordered : {"repr", "raise"}, default="repr"
            As in :func:`encode_rows`.

        Returns
        -------
        index : RowIndex
            Its records are the distinct rows, in lexicographic order.
        codes : ndarray of int64 of shape (n_samples,)
        """
        values = _as_table(values, name)
        values = values.reshape(values.shape[0], -1)
        categories, column_codes, radix = _code_columns(values, unordered)
        codes, first = _unique_rows(column_codes, radix)
        index = cls.__new__(cls)
        index.records = values[first]
        index._index(categories, column_codes[first], radix)
        return index, codes

    def _index(self, categories, column_codes, radix):
        """Index the records from their columns' categories and their cells' codes."""
        self._categories, self.record_codes, self._radix = categories, column_codes, radix
        keys = _lookup_keys(column_codes, self._radix)
        self._order = np.argsort(keys, kind="stable")
        self._sorted_keys = keys[self._order]
        if np.any(self._sorted_keys[1:] == self._sorted_keys[:-1]):
            raise ValueError("records must be distinct rows.")

    @property
    def categories(self):
        """The sorted distinct values of each column of the records (a list of arrays)."""
        return self._categories

    def column_codes(self, values):
        """Position of each cell of a 2-D ``values`` among its column's categories.

        Returns
        -------
        codes : ndarray of int64 of shape (n_samples, n_columns)
            0 where the value is not a category of its column.
        known : ndarray of bool of shape (n_samples, n_columns)
            Whether the value is a category of its column.
        """
        codes = np.zeros(values.shape, dtype=np.int64)
        known = np.zeros(values.shape, dtype=bool)
        for k, categories in enumerate(self._categories):
            column = values[:, k]
            if categories.dtype.kind == "O" or column.dtype.kind == "O":
                # Object values may not order against the categories: a hash lookup
                # (both sides object Indexes: pandas would infer a string dtype, 8x slower).
                found = _object_positions(categories, column)
            else:
                try:
                    position = np.searchsorted(categories, column)
                except TypeError:
                    continue  # a type the categories do not compare with: unseen
                position = np.minimum(position, len(categories) - 1)
                found = np.where(categories[position] == column, position, -1)
            known[:, k] = found >= 0
            codes[:, k] = np.maximum(found, 0)
        return codes, known

    def nearest(self, values, counts):
        """Code of the record agreeing with each row of ``values`` on most columns.

        Ties go to the record of larger ``counts`` (its weight at fit), then to
        the first. Unseen values agree with nothing.

        Parameters
        ----------
        values : ndarray of shape (n_samples, n_columns)
        counts : ndarray of shape (n_records,)

        Returns
        -------
        ndarray of int64 of shape (n_samples,)
        """
        column_codes, known = self.column_codes(values)
        n = self.record_codes.shape[0]
        # Tie-break weight in (0, 1): larger for more frequent, then earlier records.
        order = np.lexsort((np.arange(n), -np.asarray(counts, dtype=float)))
        rank = np.empty(n)
        rank[order] = np.arange(n)
        tie = 1.0 - (rank + 1.0) / (n + 1.0)
        out = np.empty(column_codes.shape[0], dtype=np.int64)
        for start in range(0, column_codes.shape[0], _NEAREST_BLOCK):  # memory bound
            block = slice(start, start + _NEAREST_BLOCK)
            agree = (
                (column_codes[block, None, :] == self.record_codes[None, :, :])
                & known[block, None, :]
            ).sum(axis=2)
            out[block] = np.argmax(agree + tie, axis=1)
        return out

    def codes(self, values, *, name="X", unknown="error"):
        """Code of each row of ``values``.

        Parameters
        ----------
        values : array-like of shape (n_samples,) or (n_samples, n_columns)
        name : str, default="X"
            Name of the data in error messages.
        unknown : "error" or -1, default="error"
            A row not among the records raises a ``ValueError`` naming the
            first one, or gets the code -1.

        Returns
        -------
        ndarray of int64 of shape (n_samples,)
        """
        values = _as_table(values, name)
        values = values.reshape(values.shape[0], -1)
        if values.shape[1] != self.records.shape[1]:
            raise ValueError(
                f"{name} has {values.shape[1]} columns, the records have {self.records.shape[1]}."
            )
        column_codes, known = self.column_codes(values)
        keys = _lookup_keys(column_codes, self._radix)
        position = np.minimum(np.searchsorted(self._sorted_keys, keys), self._sorted_keys.size - 1)
        found = np.where(self._sorted_keys[position] == keys, self._order[position], -1)
        found = np.where(known.all(axis=1), found, -1)
        if unknown == "error" and np.any(found < 0):
            first = int(np.flatnonzero(found < 0)[0])
            raise ValueError(
                f"{name} has {int(np.sum(found < 0))} row(s) not seen at fit (first: row "
                f"{first}, {values[first].tolist()!r}): the fitted mechanism has no symbol "
                "for them."
            )
        return found


def _object_positions(categories, column):
    """Position of each object of ``column`` among ``categories``, -1 if absent.

    A cell that cannot be hashed (a list) is no category: it gets -1 as any
    unseen value does, rather than an exception decided by one cell.
    """
    index = pd.Index(categories, dtype=object)
    try:
        return index.get_indexer(pd.Index(column, dtype=object))
    except TypeError:
        hashable = np.fromiter(map(pd.api.types.is_hashable, column), bool, len(column))
        found = np.full(len(column), -1, dtype=np.intp)
        found[hashable] = index.get_indexer(pd.Index(column[hashable], dtype=object))
        return found


class CategoricalSampler:
    """Inverse-CDF draws of one outcome per requested row of a probability table.

    Row ``r``'s cumulative distribution, shifted by ``r``, is increasing
    across rows, so a single :func:`numpy.searchsorted` of ``r + u`` draws
    every sample. An outcome of probability zero is never drawn.

    Parameters
    ----------
    probabilities : array-like of shape (n_rows, n_outcomes)
        Non-negative weights of each row's outcomes (normalised per row); each
        row must have a positive sum.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.utils._symbols import CategoricalSampler
    >>> sampler = CategoricalSampler([[0.0, 1.0], [1.0, 0.0]])
    >>> sampler.draw([0, 1, 0], np.random.default_rng(0)).tolist()
    [1, 0, 1]
    """

    def __init__(self, probabilities):
        P = np.asarray(probabilities, dtype=np.float64)
        if P.ndim != 2 or P.shape[1] == 0:
            raise ValueError(f"probabilities must be 2-D and non-empty, got shape {P.shape}.")
        n_rows, n_outcomes = P.shape
        groups = np.repeat(np.arange(n_rows), n_outcomes)
        self._build(groups, P.ravel(), n_rows, outcomes=np.tile(np.arange(n_outcomes), n_rows))

    @classmethod
    def from_groups(cls, groups, weights, n_groups):
        """Sampler of an outcome of each group, outcome ``i`` in group ``groups[i]``.

        Parameters
        ----------
        groups : array-like of int of shape (n_outcomes,)
            Group of each outcome, in ``range(n_groups)``.
        weights : array-like of shape (n_outcomes,)
            Non-negative weight of each outcome within its group.
        n_groups : int

        Returns
        -------
        CategoricalSampler
            Whose :meth:`draw` takes group numbers and returns outcome indices.
        """
        groups = np.asarray(groups, dtype=np.int64).reshape(-1)
        weights = np.asarray(weights, dtype=np.float64).reshape(-1)
        order = np.argsort(groups, kind="stable")
        sampler = cls.__new__(cls)
        sampler._build(groups[order], weights[order], int(n_groups), outcomes=order)
        return sampler

    def _build(self, groups, weights, n_groups, *, outcomes):
        if not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise ValueError("probabilities must be finite and non-negative.")
        totals = np.bincount(groups, weights=weights, minlength=n_groups)
        if np.any(totals <= 0):
            raise ValueError(
                f"row {int(np.flatnonzero(totals <= 0)[0])} of the probabilities has no mass."
            )
        within = np.cumsum(weights)
        starts = np.searchsorted(groups, np.arange(n_groups))
        before = np.r_[0.0, within][starts]
        cumulative = (within - before[groups]) / totals[groups]
        ends = np.r_[starts[1:], groups.size] - 1
        cumulative[ends] = 1.0
        # The last outcome of positive weight of each group: rounding of r + u never passes it.
        positive = np.flatnonzero(weights > 0)
        self._last = np.zeros(n_groups, dtype=np.int64)
        self._last[groups[positive]] = positive  # increasing, so the last write wins
        self._shifted = groups + cumulative
        self._outcomes = outcomes
        self.n_rows = n_groups

    def draw(self, rows, rng):
        """One outcome for each entry of ``rows``.

        Parameters
        ----------
        rows : array-like of int of shape (n_samples,)
            Which row (group) of the table each sample is drawn from.
        rng : numpy.random.Generator

        Returns
        -------
        ndarray of int64 of shape (n_samples,)
            The outcome (column of the table, or outcome index of
            :meth:`from_groups`) of each sample.
        """
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        position = np.searchsorted(self._shifted, rows + rng.random(rows.size), side="right")
        return self._outcomes[np.minimum(position, self._last[rows])]
