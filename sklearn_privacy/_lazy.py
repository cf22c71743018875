"""A mechanism on dask collections: the fit on counted rows and the one lazy release.

:class:`~sklearn_privacy._base.BaseMechanism` calls these; a family specialises them through
the hooks they call (``_start_lazy_release``, ``_split_for_release``, ``_release``,
``_release_generator``), or its own ``_fit_dask``.
"""

import numpy as np

from sklearn_privacy.utils._dask import count_distinct_rows, head_rows, map_row_blocks, n_row_blocks

__all__ = ["dask_fit", "dask_release"]


def dask_fit(mechanism, X, y, sensitive, sample_weight):
    """A dask DataFrame: dask counts the distinct rows, the mechanism is fitted on them."""
    if not mechanism._categorical_input:
        raise ValueError(
            f"{type(mechanism).__name__}.fit takes in-memory data (a dask collection is "
            "accepted by transform): fit on a pandas sample of the rows, or on the "
            "public data."
        )
    if y is not None or sensitive is not None or sample_weight is not None:
        raise ValueError(
            "With a dask DataFrame, give S as columns (sensitive=...) and no y, "
            "sensitive or sample_weight: the rows are counted by dask."
        )
    rows, counts = count_distinct_rows(X)
    return mechanism.fit(rows, sample_weight=counts)


def dask_release(mechanism, X):
    """Lazy release of a dask DataFrame or Array, one partition (block) at a time.

    One lazy release is one release: the seed of every partition's noise is
    drawn when this is called and fixed in the graph, so the collection yields
    the same rows however often and in whatever pieces it is computed (under
    any scheduler), and a mechanism that keeps a ledger records one release
    (its ``_start_lazy_release``). Each partition draws from its own seed
    sequence (independent children of fresh OS entropy, or of the seeded
    release stream), so no two partitions share noise. The graph therefore
    carries the seeds of its noise, next to the private rows it reads: it is
    the private computation, not the release; publish what it computes.
    """
    releaser = mechanism._start_lazy_release()
    # the partitions' seed sequences: children of the release stream's (of fresh OS entropy
    # without a seed), fixed here so that the graph yields the same rows however computed
    parent = mechanism._release_generator().bit_generator.seed_seq
    seeds = np.array([seq.generate_state(4) for seq in parent.spawn(n_row_blocks(X))])
    names = list(releaser.get_feature_names_out())

    def release(part, seed):
        X_release, S = releaser._split_for_release(part)
        return np.asarray(releaser._release(X_release, S, np.random.default_rng(np.ravel(seed))))

    dtype = float
    if hasattr(X, "map_partitions"):
        # the dtype of the release, from the first row of any partition (the first
        # may be empty)
        first = head_rows(X, 1)
        if len(first):
            sample = releaser._release(
                *releaser._split_for_release(first), np.random.default_rng(0)
            )
            dtype = np.asarray(sample).dtype
    return map_row_blocks(X, release, seeds, names, dtype)
