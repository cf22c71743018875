"""Normal scores of number columns: the quantile transform, its quantiles found by one sort.

The held-out network and pairs members read each number column by its normal scores, fitted on
every fold's training rows. ``np.nanpercentile`` along an axis runs once per column and
partitions the column at every one of up to 1000 quantiles (0.37 s on 2000 x 100, 3.7 of the
panel's 18 s of CPU at 10 000 x 100); one sort of all columns and numpy's own linear
interpolation give the same quantiles, to the bit.
"""

import numpy as np
from sklearn.preprocessing import QuantileTransformer

__all__ = ["SortedQuantileTransformer", "sorted_percentiles"]


def sorted_percentiles(X, percentiles):
    """``np.nanpercentile(X, percentiles, axis=0)`` of columns without NaN, by one sort.

    numpy's ``"linear"`` method step by step: the virtual index ``(n - 1) q``
    of ``q = percentiles / 100``, its floor and the next index (both the last
    row at or beyond it), and numpy's ``_lerp`` between the sorted values there
    (``a + (b - a) t``, or ``b - (b - a)(1 - t)`` where ``t >= 0.5``).
    """
    ordered = np.sort(X, axis=0)
    n = ordered.shape[0]
    virtual = (n - 1) * np.true_divide(percentiles, 100)
    below = np.floor(virtual)
    above = below + 1
    beyond = virtual >= n - 1
    below[beyond] = above[beyond] = -1
    below, above = below.astype(np.intp), above.astype(np.intp)
    t = (virtual - below)[:, None]
    a, b = ordered[below], ordered[above]
    difference = b - a
    out = a + difference * t
    np.subtract(b, difference * (1 - t), out=out, where=t >= 0.5)
    return out


class SortedQuantileTransformer(QuantileTransformer):
    """:class:`~sklearn.preprocessing.QuantileTransformer` whose quantiles are found by one sort.

    The same fitted quantiles and transform as scikit-learn's on dense
    columns without NaN and without subsampling; scikit-learn's own fit
    otherwise.
    """

    def _dense_fit(self, X, random_state):
        subsampled = self.subsample is not None and self.subsample < X.shape[0]
        if subsampled or self.ignore_implicit_zeros or np.isnan(X).any():
            return super()._dense_fit(X, random_state)
        self.quantiles_ = sorted_percentiles(X, self.references_ * 100)
