"""The statistics a Gaussian mechanism is fitted from, in memory or computed by dask.

:class:`ArrayFitRows` computes them from arrays (its docstring lists them); :class:`DaskFitRows`
from a dask collection, partition by partition, never holding more than one per worker.
"""

import numpy as np
from scipy import sparse

from sklearn_privacy.dp import clip_to_ball
from sklearn_privacy.dp.kernels import N_BINS, bin_edges, log2_bins, log2_histogram, row_norms_safe
from sklearn_privacy.gaussian._private_fit import RowStatistics
from sklearn_privacy.gaussian._rows import ClippedSecondMoment
from sklearn_privacy.gaussian._weights import resolve_weights
from sklearn_privacy.information import encode_symbols, gaussian_mutual_information
from sklearn_privacy.utils import is_continuous
from sklearn_privacy.utils._dask import reduce_partitions
from sklearn_privacy.utils._validation import as_2d, check_sensitive, relative_weights

__all__ = [
    "ArrayFitRows",
    "DaskFitRows",
    "VariableEncoder",
    "column_peaks",
    "combine_summaries",
    "leakage_from_covariance",
    "summarise_variable",
    "weighted_moments",
]


def weighted_moments(Z, sample_weight=None):
    """Mean and unbiased covariance of the rows of ``Z``, each counted ``sample_weight`` times.

    With integer weights this is exactly the moments of the repeated rows
    (divisor ``sum(w) - 1``). The weights are scaled by a power of two that
    brings the largest near 1 first (exactly: see
    :func:`~sklearn_privacy.utils._validation.relative_weights`), so that weights
    up to float64's largest give finite moments; weights that leave a single row
    are refused.
    """
    if sample_weight is None:
        w, factor = np.ones(Z.shape[0]), 1.0
    else:
        w, factor = relative_weights(sample_weight)
    total = w.sum()
    mean = w @ Z / total
    Zc = Z - mean
    # sum_i w_i z_i z_i^T as Y^T Y, Y = sqrt(w_i) z_i: a symmetric product (half the work)
    Y = Zc if sample_weight is None else Zc * np.sqrt(w)[:, None]
    # the divisor sum(w) - 1 (at least 1) of the caller's units, in the scaled ones
    cov = Y.T @ Y / max(total - factor, factor)
    return mean, cov


def column_peaks(Z):
    """Largest absolute value of each column (zeros for no rows)."""
    if not Z.shape[0]:
        return np.zeros(Z.shape[1])
    return np.maximum(Z.max(axis=0), -Z.min(axis=0))


def leakage_from_covariance(joint, n_sensitive, components, scale, noise_variance):
    """Gaussian-model ``I(S;T)`` for ``T = diag(scale) V X + N(0, diag(noise))``.

    ``joint`` is the covariance of ``(S, X)``, S first (``n_sensitive`` columns).
    """
    if components.shape[0] == 0:
        return 0.0
    ds = n_sensitive
    A = scale[:, None] * components
    cov_s = joint[:ds, :ds]
    cov_sx = joint[:ds, ds:]
    cov_x = joint[ds:, ds:]
    cov_t = A @ cov_x @ A.T + np.diag(noise_variance)
    cov_st = cov_sx @ A.T
    full = np.block([[cov_s, cov_st], [cov_st.T, cov_t]])
    k = components.shape[0]
    try:
        return gaussian_mutual_information(full, np.arange(ds), ds + np.arange(k))
    except ValueError:
        return float("nan")


class ArrayFitRows(RowStatistics):
    """Fit rows held in memory: a :class:`~sklearn_privacy.gaussian._rows.FitRows`.

    A Gaussian mechanism reads its fit rows ``Z`` (the released features, then the
    design matrix of its relevance variable) only through that interface, this class
    or :class:`DaskFitRows`. The noise of a private fit is drawn in the same order
    from either, so equal statistics give equal estimates.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
    sample_weight : ndarray of shape (n_samples,) or None
    extra : ndarray of shape (n_samples, n_extra) or None
        Design matrix of S, read only by ``leakage_covariance``.
    n_released : int or None
        The first ``n_released`` columns of ``Z`` are the released features.
    person_weights : PersonWeights, default=None
        What a weight means (:func:`~sklearn_privacy.gaussian._weights.resolve_weights`).
    """

    def __init__(self, Z, sample_weight=None, extra=None, n_released=None, person_weights=None):
        super().__init__(Z, sample_weight, person_weights)
        self.extra = extra
        self.n_extra = 0 if extra is None else extra.shape[1]
        self.n_released = Z.shape[1] if n_released is None else n_released

    def peaks(self):
        return column_peaks(self.Z)

    def moments(self):
        return weighted_moments(self.Z, self.sample_weight)

    def leakage_covariance(self):
        joint = np.hstack([self.extra, self.Z[:, : self.n_released]])
        return weighted_moments(joint, self.sample_weight)[1]

    def max_norm(self, center, stop=None):
        return float(row_norms_safe(self.Z[:, :stop] - center).max())


# ----------------------------------------------------------------------- dask
class VariableEncoder:
    """:func:`~sklearn_privacy.utils.sensitive_design_matrix` with the symbols of all partitions.

    A discrete variable is one-hot encoded over the symbols seen in every
    partition (sorted as in memory, the first dropped); a continuous one is
    kept as it is. ``summary`` comes from :func:`summarise_variable` and
    :func:`combine_summaries` over the partitions.
    """

    def __init__(self, summary, name):
        self.name = name
        self.continuous = summary["continuous"]
        self.symbols = summary["symbols"]
        if self.continuous:
            self.n_columns = summary["n_columns"]
            single = summary["low"] is not None and np.all(summary["low"] == summary["high"])
        else:
            self.n_columns = len(self.symbols) - 1
            single = len(self.symbols) < 2
        if single:
            raise ValueError(
                f"{name} takes a single value: there is nothing to protect and leakage is "
                "zero. S needs at least two distinct values."
            )

    def __call__(self, values):
        arr = as_2d(values, self.name)
        if self.continuous:
            out = arr.astype(float)
            if not np.all(np.isfinite(out)):
                raise ValueError(f"{self.name} contains NaN or infinite values.")
            return out
        n_symbols = len(self.symbols)
        symbols = self.symbols if self.symbols.ndim == 2 else self.symbols[:, None]
        codes, seen = encode_symbols(np.concatenate([symbols, arr]), name=self.name)
        if len(seen) != n_symbols:  # pragma: no cover - every partition was summarised
            raise ValueError(f"{self.name} holds a value not seen when it was summarised.")
        codes = codes[n_symbols:]
        return (codes[:, None] == np.arange(1, n_symbols)[None, :]).astype(float)


def summarise_variable(values, name):
    """What :class:`VariableEncoder` needs from one partition of a variable.

    Whether it is continuous (as :func:`~sklearn_privacy.utils.is_continuous`
    reads it), its range (single-value check) and its distinct symbols.
    """
    if values is None or not len(values):
        return None
    arr = check_sensitive(values, name=name, min_values=1)
    summary = {"n_columns": arr.shape[1], "low": None, "high": None}
    if is_continuous(arr):
        finite = arr.astype(float)
        low, high = finite.min(axis=0), finite.max(axis=0)
        return {**summary, "continuous": True, "low": low, "high": high, "symbols": None}
    symbols = encode_symbols(arr, name=name)[1]
    return {**summary, "continuous": False, "symbols": symbols}


def combine_summaries(a, b):
    """Summary of two partitions together (associative)."""
    if a is None or b is None:
        return a if b is None else b
    out = {"n_columns": a["n_columns"], "low": None, "high": None, "symbols": None}
    out["continuous"] = a["continuous"] or b["continuous"]
    if a["continuous"] and b["continuous"]:
        if a["low"] is not None and b["low"] is not None:
            out["low"] = np.minimum(a["low"], b["low"])
            out["high"] = np.maximum(a["high"], b["high"])
    elif not out["continuous"]:
        joined = np.concatenate([a["symbols"], b["symbols"]])
        out["symbols"] = encode_symbols(joined, name="symbols")[1]
    # else: a partition of integers beside one holding non-integer floats: the two
    # differ, so the variable is not single-valued (low stays None).
    return out


def _bin_sums(bins, w, Z, norms):
    """Per-bin weighted sums of the rows and of the rows over their norm."""
    n_bins = N_BINS
    indicator = sparse.csr_matrix((w, (bins, np.arange(bins.size))), shape=(n_bins, bins.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        unit = np.where(norms[:, None] > 0, Z / norms[:, None], 0.0)
    huge = np.isinf(norms)  # the norm overflowed: the direction in units of the row's peak
    unit[huge] = clip_to_ball(Z[huge], 1.0)
    return np.asarray(indicator @ Z), np.asarray(indicator @ unit)


def _people(w, people):
    """The weights in people (``people``: a ``PersonWeights``) and the rows over the bound."""
    return people.units(w, w.shape[0])


def first_pass(block, private, want_moments, people):
    """Total weight, column peaks, moments and (private) the people, their norm histogram
    with bin sums (in people), and the rows heavier than one person."""
    if block is None:
        return None
    Z, extra, w = block
    full = Z if extra is None else np.hstack([Z, extra])
    out = {"total": float(w.sum()), "peaks": column_peaks(Z)}
    if want_moments:
        # Columns whose squares overflow are refused afterwards, from the peaks
        # (check_scale_peaks): their moments are never read, so no overflow warning.
        with np.errstate(over="ignore", invalid="ignore"):
            mean = w @ full / out["total"]
            centred = full - mean
            out["mean"], out["m2"] = mean, (centred.T * w) @ centred
    if private:
        units, out["heavy"] = _people(w, people)
        out["units"], out["rows"] = float(units.sum()), Z.shape[0]
        norms = row_norms_safe(Z)
        bins = log2_bins(norms)
        out["histogram"] = np.bincount(bins, weights=units, minlength=N_BINS).astype(float)
        out["sums"], out["unit_sums"] = _bin_sums(bins, units, Z, norms)
    return out


def combine_first(a, b):
    if a is None or b is None:
        return a if b is None else b
    out = {
        "total": a["total"] + b["total"],
        "peaks": np.maximum(a["peaks"], b["peaks"]),
    }
    if "mean" in a:
        # Chan, Golub and LeVeque's pairwise update: stable, one pass (columns that
        # overflow are refused from the peaks, as in first_pass)
        delta = b["mean"] - a["mean"]
        share = b["total"] / out["total"]
        out["mean"] = a["mean"] + delta * share
        with np.errstate(over="ignore", invalid="ignore"):
            out["m2"] = a["m2"] + b["m2"] + np.outer(delta, delta) * (a["total"] * share)
    for key in ("histogram", "sums", "unit_sums", "heavy", "units", "rows"):
        if key in a:
            out[key] = a[key] + b[key]
    return out


def histogram_pass(block, center, people):
    if block is None:
        return None
    Z, _, w = block
    return log2_histogram(row_norms_safe(Z - center), _people(w, people)[0])


def clipped_sum_pass(block, center, radius, people):
    if block is None:
        return None
    Z, _, w = block
    return _people(w, people)[0] @ clip_to_ball(Z, radius, center)


def second_moment_pass(block, center, radius, people):
    """The clipped second moment, and the people beyond the radius (read in the same pass)."""
    if block is None:
        return None
    Z, _, w = block
    units = _people(w, people)[0]
    Zc = clip_to_ball(Z, radius, center)
    beyond = units[row_norms_safe(Z - center) > radius].sum()
    return np.vstack([(Zc.T * units) @ Zc, np.full((1, Z.shape[1]), beyond)])


def max_norm_pass(block, center, stop):
    if block is None:
        return None
    Z = block[0]
    return float(row_norms_safe(Z[:, :stop] - center).max()) if Z.shape[0] else None


def add(a, b):
    if a is None or b is None:
        return a if b is None else b
    return a + b


def maximum(a, b):
    if a is None or b is None:
        return a if b is None else b
    return max(a, b)


class DaskFitRows:
    """Fit rows of a dask collection, computed partition by partition: a ``FitRows``.

    Passes over the data (each reads every partition once, summing small
    per-partition statistics in a tree): the first gives the total weight,
    the column peaks, the moments (when public, or when ``leakage_`` needs
    them) and, for a private fit, the weighted histogram of the row norms on
    the whole radius grid together with the per-bin sums of the rows and of
    the rows over their norm, from which the mean of the rows clipped to any
    grid radius follows. A private fit then needs one pass for the histogram
    of the norms around the private mean (none when the radius is public) and one for the
    clipped second moment (which counts the people beyond the radius too); a public fit one
    for the largest centred norm (none when the radius is public).

    Parameters
    ----------
    blocks : list of dask.delayed.Delayed
        One per partition: ``(Z, extra, w)`` or None for an empty partition.
    n_features, n_extra, n_released : int
    private : bool
        Whether the first pass gathers what a private fit reads.
    want_moments : bool
        Whether the first pass computes the (non-private) moments.
    person_weights : PersonWeights, default=None
        As for :class:`ArrayFitRows`; by default the blocks' weights count people.
    """

    def __init__(
        self,
        blocks,
        *,
        n_features,
        n_extra,
        n_released,
        private,
        want_moments,
        person_weights=None,
    ):
        if person_weights is None:
            person_weights = resolve_weights("counts", 1.0, has_weights=True)
        self._blocks = blocks
        self.person_weights = person_weights
        self.n_features = n_features
        self.n_extra = n_extra
        self.n_released = n_released
        self._private = private
        self._want_moments = want_moments
        self._first = None
        self.n_passes = 0

    def _run(self, func, combine, *args):
        self.n_passes += 1
        return reduce_partitions(self._blocks, func, combine, *args)

    @property
    def first(self):
        if self._first is None:
            first = self._run(
                first_pass,
                combine_first,
                self._private,
                self._want_moments or self.n_extra > 0,
                self.person_weights,
            )
            if first is None or first["total"] <= 0:
                raise ValueError("X has no rows of positive weight.")
            self._first = first
        return self._first

    @property
    def total_weight(self):
        return self.first["total"]

    @property
    def n_people(self):
        """The public number of people (see :meth:`PersonWeights.n_people`)."""
        first = self.first
        return self.person_weights.n_people(first["units"], first["rows"])

    @property
    def n_heavy(self):
        return self.first["heavy"]

    def weight_share(self):
        return self.first["units"] / self.n_people

    def peaks(self):
        return self.first["peaks"]

    def _covariance(self):
        return self.first["m2"] / max(self.total_weight - 1.0, 1.0)

    def moments(self):
        d = self.n_features
        return self.first["mean"][:d], self._covariance()[:d, :d]

    def leakage_covariance(self):
        order = np.r_[self.n_features + np.arange(self.n_extra), np.arange(self.n_released)]
        return self._covariance()[np.ix_(order, order)]

    def max_norm(self, center, stop=None):
        return self._run(max_norm_pass, maximum, np.asarray(center, float), stop)

    # The statistics of a private fit (as RowStatistics): counts in people, sums over the
    # people divided by their number.
    def _per_person(self):
        public = self.person_weights.total_is_public
        return 1.0 / (self.first["units"] if public else self.n_people)

    def norm_histogram(self, center=None):
        if center is None:
            return self.first["histogram"]
        return self._run(histogram_pass, add, np.asarray(center, float), self.person_weights)

    def clipped_mean(self, radius, center=None):
        if center is not None:
            total = self._run(
                clipped_sum_pass, add, np.asarray(center, float), float(radius), self.person_weights
            )
            return total * self._per_person()
        first = self.first
        k = int(np.searchsorted(bin_edges(), radius))
        if k >= N_BINS or bin_edges()[k] != radius:  # pragma: no cover
            raise ValueError("clipped_sum reads the bin sums: radius must be a bin edge.")
        inside = first["sums"][: k + 1].sum(axis=0)
        outside = radius * first["unit_sums"][k + 1 :].sum(axis=0)
        return (inside + outside) * self._per_person()

    def clipped_second_moment(self, center, radius):
        center = np.asarray(center, float)
        out = self._run(second_moment_pass, add, center, float(radius), self.person_weights)
        return ClippedSecondMoment(out[:-1] * self._per_person(), float(out[-1, 0]))
