"""Generic helpers for dask collections: count distinct rows, reduce partitions, map row blocks.

They know no mechanism, and import dask only when given a dask collection.
"""

import functools

import numpy as np

__all__ = [
    "aligned_partitions",
    "count_distinct_rows",
    "head_rows",
    "is_dask_collection",
    "map_row_blocks",
    "n_row_blocks",
    "reduce_partitions",
    "take_rows_lazily",
]

# Partial results combined per task of the tree reduction.
_FAN_IN = 8

# Partitions computed at a time where only some of their rows are kept (take_rows_lazily).
_PARTITIONS_AT_ONCE = 8


def is_dask_collection(X):
    """Whether ``X`` is a dask DataFrame, Series or Array (without importing dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "__dask_graph__")


def count_distinct_rows(X):
    """The distinct rows of a dask DataFrame and how often each occurs, computed by dask.

    Each partition is counted on its own (integer codes of its columns, one
    ``bincount`` or ``unique`` of the combined code) and the small tables of
    counts are added in a tree: no shuffle, and only distinct rows travel.

    Parameters
    ----------
    X : dask.dataframe.DataFrame

    Returns
    -------
    rows : pandas.DataFrame
        One row per distinct combination of values (missing values kept as
        their own group, so that the mechanism's own check names them).
    counts : ndarray of shape (n_rows,)
    """
    columns = list(X.columns)
    counts = reduce_partitions(list(X.to_delayed()), _partition_counts, _add_counts, columns)
    if counts is None:
        raise ValueError("X has no rows: there is nothing to fit.")
    rows = counts.index.to_frame(index=False)
    rows.columns = columns
    return rows, counts.to_numpy(dtype=float)


def _column_codes(column):
    """Integer codes of a pandas column (missing values a code of their own) and the values."""
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy().astype(np.int64)
        values = column.cat.categories
        if (codes < 0).any():
            codes[codes < 0] = len(values)
            values = values.astype(object).append(pd.Index([np.nan], dtype=object))
        return codes, values
    codes, values = pd.factorize(column, use_na_sentinel=False)
    return codes.astype(np.int64), values


def _partition_counts(part, columns):
    """Counts of the distinct rows of one pandas partition, as a Series indexed by the rows."""
    import pandas as pd

    if not len(part):
        return None
    codes, values = zip(*(_column_codes(part[c]) for c in columns))
    dims = [max(len(v), 1) for v in values]
    if np.prod(np.asarray(dims, dtype=float)) > 2.0**62:
        return part.groupby(columns, dropna=False, observed=True, sort=False).size()
    key = np.ravel_multi_index(codes, dims)
    if np.prod(dims) <= max(4 * key.size, 2**20):
        counts = np.bincount(key)
        keys = np.flatnonzero(counts)
        counts = counts[keys]
    else:
        keys, counts = np.unique(key, return_counts=True)
    index = np.unravel_index(keys, dims)
    rows = pd.MultiIndex.from_arrays(
        [pd.Index(v).take(i) for v, i in zip(values, index)], names=columns
    )
    return pd.Series(counts, index=rows)


def _add_counts(a, b):
    import pandas as pd

    if a is None or b is None:
        return a if b is None else b
    both = pd.concat([a, b])
    return both.groupby(level=list(range(both.index.nlevels)), dropna=False, sort=False).sum()


def n_row_blocks(X):
    """Number of blocks of rows of a dask DataFrame (partitions) or 2-D Array (row chunks)."""
    return X.npartitions if hasattr(X, "map_partitions") else X.numblocks[0]


def map_row_blocks(X, func, seeds, names, dtype=float):
    """Lazy ``func(part, seed)`` over the blocks of rows of ``X``, each with its own seed.

    Parameters
    ----------
    X : dask DataFrame or 2-D dask Array
        Its blocks of rows (all columns; an Array is rechunked to one block of
        columns) are the parts.
    func : callable
        ``func(part, seed)`` returns the rows of one part as a 2-D ndarray
        with ``len(names)`` columns; ``part`` is a pandas DataFrame or an
        ndarray, never an empty DataFrame (an empty partition yields an empty
        frame without calling ``func``).
    seeds : ndarray of shape (n_row_blocks(X), k)
        Row ``i`` goes to block ``i``. The seeds travel as data bound to their
        block (not as a block number read at compute time), so that no
        optimisation of the graph (a slice, a selection of partitions) can pair
        a block with another's seed.
    names : list of str
        Column names of the result (a DataFrame ``X``) or its number of columns.
    dtype : dtype, default=float
        dtype of the columns of a DataFrame result (its metadata).

    Returns
    -------
    dask DataFrame (with the divisions of ``X``) or dask Array (with its row chunks)
    """
    import pandas as pd

    if not hasattr(X, "map_partitions"):
        import dask.array as da

        if X.numblocks[1] != 1:
            X = X.rechunk({1: -1})
        return da.blockwise(
            func,
            "ij",
            X,
            "ij",
            da.from_array(seeds, chunks=(1, seeds.shape[1])),
            "ik",
            concatenate=True,
            align_arrays=False,
            adjust_chunks={"j": len(names)},
            dtype=float,
            meta=np.empty((0, 0)),
        )

    import dask
    import dask.dataframe as dd

    def partition(part, seed):
        if len(part) == 0:
            return pd.DataFrame({name: pd.Series(dtype=float) for name in names})
        return pd.DataFrame(func(part, seed), columns=names, index=part.index)

    meta = pd.DataFrame({name: pd.Series(dtype=dtype) for name in names})
    parts = [
        dask.delayed(partition, pure=False)(part, seed) for part, seed in zip(X.to_delayed(), seeds)
    ]
    return dd.from_delayed(parts, meta=meta, divisions=X.divisions, verify_meta=False)


def head_rows(X, n=2):
    """The first ``n`` rows of a dask DataFrame or Array, in memory (searching all partitions)."""
    if hasattr(X, "map_partitions"):
        return X.head(n, npartitions=-1, compute=True)
    return X[:n].compute()


def take_rows_lazily(X, positions):
    """The rows at sorted ``positions`` of a dask DataFrame, Series or Array, in memory.

    One pass: a few partitions computed at a time (``_PARTITIONS_AT_ONCE``), each cut to
    its drawn rows at once, so that memory holds the drawn rows, not the
    collection. An Array of known chunks is indexed by dask itself.
    """
    import dask

    frame = hasattr(X, "map_partitions")
    if not frame:
        if not any(np.isnan(c) for c in X.chunks[0]):
            return X[positions].compute()
        if X.ndim == 2 and X.numblocks[1] != 1:
            X = X.rechunk({1: -1})
    parts = list(X.to_delayed()) if frame else list(X.to_delayed().ravel())
    kept, offset = [], 0
    for start in range(0, len(parts), _PARTITIONS_AT_ONCE):
        for part in dask.compute(*parts[start : start + _PARTITIONS_AT_ONCE]):
            size = len(part)
            mine = positions[(positions >= offset) & (positions < offset + size)] - offset
            kept.append(part.iloc[mine] if frame else part[mine])
            offset += size
    if frame:
        import pandas as pd

        return pd.concat(kept)
    return np.concatenate(kept)


def _partition_lengths(X):
    if hasattr(X, "map_partitions"):
        return tuple(int(n) for n in X.map_partitions(len).compute())
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    return tuple(int(c) for c in X.chunks[0])


def aligned_partitions(X, others, names):
    """Delayed partitions of ``X`` and of each of ``others``, cut to the same rows.

    Parameters
    ----------
    X : dask DataFrame or 2-D dask Array
        Its partitions (blocks of rows, all columns) set the cut.
    others : list
        Per-row variables: None, an in-memory array-like (cut to the
        partitions' lengths), a dask Array (rechunked to them) or a dask
        Series/DataFrame (with a DataFrame ``X``: the same number of
        partitions, row counts checked when computed).
    names : list of str
        Names of ``others`` in error messages.

    Returns
    -------
    list of tuple
        One tuple ``(X part, other parts...)`` per partition; the parts are
        ``dask.delayed`` objects, in-memory slices or None.
    """
    frame = hasattr(X, "map_partitions")
    if not frame and X.ndim == 2 and X.numblocks[1] != 1:
        X = X.rechunk({1: -1})
    x_parts = list(X.to_delayed()) if frame else list(X.to_delayed().ravel())
    columns, lengths = [x_parts], None
    for other, name in zip(others, names):
        if other is None:
            columns.append([None] * len(x_parts))
            continue
        if is_dask_collection(other) and hasattr(other, "map_partitions"):
            if frame:
                if other.npartitions != X.npartitions:
                    raise ValueError(
                        f"{name} has {other.npartitions} partitions but X has "
                        f"{X.npartitions}: give {name} with the partitions of X (a column "
                        "of the same dask DataFrame), or in memory."
                    )
                columns.append(list(other.to_delayed()))
                continue
            other = other.to_dask_array(lengths=True)
        if lengths is None:
            lengths = _partition_lengths(X)
        n_rows = sum(lengths)
        if is_dask_collection(other):
            if other.shape[0] != n_rows:
                raise ValueError(f"{name} has {other.shape[0]} rows but X has {n_rows}.")
            chunks = {0: lengths, **{axis: -1 for axis in range(1, other.ndim)}}
            columns.append(list(other.rechunk(chunks).to_delayed().ravel()))
            continue
        values = other.to_numpy() if hasattr(other, "to_numpy") else np.asarray(other)
        if values.shape[0] != n_rows:
            raise ValueError(f"{name} has {values.shape[0]} rows but X has {n_rows}.")
        edges = np.cumsum((0, *lengths))
        columns.append([values[a:b] for a, b in zip(edges[:-1], edges[1:])])
    return list(zip(*columns))


def reduce_partitions(parts, func, combine, *args):
    """``combine`` of ``func(part, *args)`` over every part, computed by dask as a tree.

    Only the small per-partition results travel; ``combine(a, b)`` must be
    associative (the order of the tree is fixed, so results are reproducible).
    """
    import dask

    level = [dask.delayed(func, pure=True)(part, *args) for part in parts]
    while len(level) > 1:
        level = [
            dask.delayed(_combine_all, pure=True)(combine, *level[i : i + _FAN_IN])
            for i in range(0, len(level), _FAN_IN)
        ]
    return dask.compute(level[0])[0]


def _combine_all(combine, *values):
    return functools.reduce(combine, values)
