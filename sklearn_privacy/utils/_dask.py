"""dask collections: fit discrete mechanisms from counts, release partition by partition.

dask is optional (``pip install "sklearn-privacy[dask]"``); nothing here imports
it unless a dask collection is passed.
"""

import numpy as np

__all__ = ["count_distinct_rows", "is_dask_collection", "release_by_partition"]


def is_dask_collection(X):
    """Whether ``X`` is a dask DataFrame, Series or Array (without importing dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "__dask_graph__")


def count_distinct_rows(X):
    """The distinct rows of a dask DataFrame and how often each occurs, computed by dask.

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
    counts = X.groupby(columns, dropna=False, observed=True).size().compute()
    rows = counts.index.to_frame(index=False)
    rows.columns = columns
    return rows, counts.to_numpy(dtype=float)


def release_by_partition(mechanism, X):
    """Lazy release of a dask DataFrame or Array, one partition (block) at a time.

    Each partition draws from its own generator, spawned from the mechanism's
    release stream, so no two partitions share noise and the whole release is
    one fresh draw. A DP mechanism records one release in its accountant.
    """
    import pandas as pd

    if hasattr(mechanism, "_record_release"):
        mechanism._record_release()  # one release of the whole collection
    is_array = not hasattr(X, "map_partitions")
    n_parts = X.numblocks[0] if is_array else X.npartitions
    streams = mechanism._release_rng.spawn(n_parts)
    names = list(mechanism.get_feature_names_out())

    def release(part, number):
        X_release, S = mechanism.split_sensitive(part)
        out = mechanism._release(X_release, S, streams[number])
        return np.asarray(out)

    if is_array:
        if X.numblocks[1] != 1:
            X = X.rechunk({1: -1})

        def block(part, block_info=None):
            return release(part, block_info[0]["chunk-location"][0])

        return X.map_blocks(block, chunks=(X.chunks[0], (len(names),)), dtype=float)

    def partition(part, partition_info=None):
        number = 0 if partition_info is None else partition_info["number"]
        if len(part) == 0:
            return pd.DataFrame({name: pd.Series(dtype=object) for name in names})
        return pd.DataFrame(release(part, number), columns=names, index=part.index)

    sample = np.asarray(
        mechanism._release(*mechanism.split_sensitive(X.head(1)), np.random.default_rng(0))
    )
    meta = pd.DataFrame({name: pd.Series(dtype=sample.dtype) for name in names})
    return X.map_partitions(partition, meta=meta)
