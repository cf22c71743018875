"""The rows a leakage estimate reads: every row, or a seeded draw of ``max_samples`` of them.

A dask release is computed on the drawn rows only, partition by partition.
"""

import numpy as np
from sklearn.utils import resample

from sklearn_privacy.information import encode_symbols
from sklearn_privacy.utils._dask import is_dask_collection, take_rows_lazily
from sklearn_privacy.utils._sklearn_compat import _num_samples, _safe_indexing
from sklearn_privacy.utils._validation import check_sensitive

__all__ = ["MAX_SAMPLES", "draw_rows"]

# The rows a leakage estimate reads by default: above, a seeded draw of this many. The learned
# members fit on at most 2000 rows a fold; the kNN estimate's cost grows faster than the rows
# (200 000 x 5 took 38 s of CPU, about 6 s at this size).
MAX_SAMPLES = 50_000


def draw_rows(sensitive, release, max_samples, discrete):
    """``(sensitive, release, note)``: the rows to read and a note of the draw ("" if none).

    Above ``max_samples`` rows (``None``: never), a draw of that many without
    replacement, seeded (the same rows give the same draw), stratified on S
    where ``discrete(S)`` (each value keeps its share, to a row), in the rows'
    order. A dask S is computed whole (one column); a dask release only on the
    drawn rows, or whole where nothing is drawn.
    """
    if is_dask_collection(sensitive):
        sensitive = sensitive.compute()
    n = len(sensitive)
    if max_samples is None or n <= max_samples:
        return sensitive, release.compute() if is_dask_collection(release) else release, ""
    checked = check_sensitive(sensitive, min_values=1)
    codes = encode_symbols(checked, name="sensitive")[0] if discrete(checked) else None
    drawn = np.sort(
        resample(np.arange(n), replace=False, n_samples=max_samples, stratify=codes, random_state=0)
    )
    if is_dask_collection(release):
        release = take_rows_lazily(release, drawn)
    elif release is not None and _num_samples(release) == n:  # else check_pair says why
        release = _safe_indexing(release, drawn)
    how = "stratified on S" if codes is not None else "S continuous"
    note = f"read on {max_samples} of {n} rows (a seeded draw, {how}; max_samples)"
    return _safe_indexing(sensitive, drawn), release, note
