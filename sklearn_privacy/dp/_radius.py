"""A private radius that needs no range: the noisy histogram of row norms on the powers of two.

Why a histogram and how it is read: "Private fit-time estimates" in ``docs/design.md``.
"""

import numpy as np
from scipy.stats import norm

from sklearn_privacy.dp._grid_noise import noisy_on_grid

__all__ = [
    "HISTOGRAM_CHANGES",
    "HISTOGRAM_SENSITIVITY",
    "BELOW",
    "BEYOND_LARGEST",
    "LARGEST_RADIUS",
    "N_BINS",
    "SMALLEST_RADIUS",
    "bin_edges",
    "bin_thresholds",
    "log2_bins",
    "log2_histogram",
    "noise_threshold",
    "private_norm_quantile",
    "quantile_from_noisy_histogram",
    "rows_needed",
]

_OFFSET = 1074  # frexp's exponent of the smallest subnormal is -1073
N_BINS = 1024 + _OFFSET + 1
HISTOGRAM_SENSITIVITY = float(np.sqrt(2.0))
# Bins whose counts one replaced row changes (the rounding to the noise grid moves no other)
HISTOGRAM_CHANGES = 2
# Bins under the kept ones counted within a radius (a factor 16 in norm): a window, for the
# noise of each bin (sigma) adds up over it.
BELOW = 4
# Chance that some empty bin clears the threshold. Small: when the rows' own bins do
# not clear it, a bin of noise that does would set a radius of any size.
_FALSE_BIN = 0.001
# The same chance for the bins beyond LARGEST_RADIUS (a quarter of them), where a radius read
# is not a poor radius but a refusal (the rows' squares overflow float64): at _FALSE_BIN a bin
# of noise there refused about one fit in 8000 of 200 ordinary rows at epsilon=2 (issue 47),
# whenever their own bins cleared nothing. At 1e-9 (7.14 sigma) noise alone refuses
# practically never, while rows that large still clear it when enough of them lie there.
_FALSE_BEYOND = 1e-9


def log2_bins(norms):
    """Bin of each norm: ``e + 1074`` for a norm in ``[2^(e-1), 2^e)``; zero in bin 0.

    A norm that overflowed to infinity goes to the last bin, above every finite
    norm (``frexp`` gives it the exponent 0, the bin of ``[0.5, 1)``).
    """
    norms = np.asarray(norms, dtype=float)
    exponent = np.frexp(norms)[1].astype(np.int64) + _OFFSET
    exponent[norms == 0] = 0
    exponent[np.isinf(norms)] = N_BINS - 1
    return np.clip(exponent, 0, N_BINS - 1)


# Radii stay where their squares (a covariance's sensitivity) are normal floats.
LARGEST_RADIUS = 2.0**500
SMALLEST_RADIUS = 2.0**-500
_LARGEST_BIN = 500 + _OFFSET  # the bin whose upper edge is LARGEST_RADIUS
BEYOND_LARGEST = (
    "their squares overflow float64, so the covariance and its sensitivity cannot be "
    "formed. Divide X by a public factor (a power of ten chosen without looking at the "
    "private rows, e.g. 1e150) before fit, and multiply the release back"
)


with np.errstate(over="ignore"):
    _EDGES = np.clip(np.ldexp(1.0, np.arange(N_BINS) - _OFFSET), SMALLEST_RADIUS, LARGEST_RADIUS)
_EDGES.flags.writeable = False


def bin_edges():
    """Upper edge of every bin, within ``[2^-500, 2^500]`` (about 3e-151 to 3e150)."""
    return _EDGES


def log2_histogram(norms, weights=None):
    """Weighted count of the norms in each bin (partial histograms add up)."""
    return np.bincount(log2_bins(norms), weights=weights, minlength=N_BINS).astype(float)


def noise_threshold(sigma):
    """Noisy count above which a bin is taken to hold rows: 4.90 sigma."""
    return float(sigma * norm.isf(_FALSE_BIN / N_BINS))


# Thresholds in noise deviations, bin by bin: 4.90, and 7.14 beyond LARGEST_RADIUS.
_DEVIATIONS = np.full(N_BINS, norm.isf(_FALSE_BIN / N_BINS))
_DEVIATIONS[_LARGEST_BIN + 1 :] = norm.isf(_FALSE_BEYOND / N_BINS)
_DEVIATIONS.flags.writeable = False


def bin_thresholds(sigma):
    """The threshold of each bin: :func:`noise_threshold`, 7.14 sigma beyond ``LARGEST_RADIUS``.

    Public (a function of sigma and of the bin): reading a noisy histogram
    against them is post-processing.
    """
    return sigma * _DEVIATIONS


def _kept_bins(noisy, sigma):
    """``(low, kept)``: the run of bins kept around the fullest one (see below), or None."""
    clear = noisy > bin_thresholds(sigma)
    if not clear.any():
        return None
    # the fullest bin that clears its threshold (a fuller one beyond LARGEST_RADIUS may not)
    peak = int(np.argmax(np.where(clear, noisy, -np.inf)))
    bridged = clear.copy()
    bridged[1:-1] |= clear[:-2] & clear[2:]
    low = high = peak
    while low > 0 and bridged[low - 1]:
        low -= 1
    while high < N_BINS - 1 and bridged[high + 1]:
        high += 1
    return low, np.where(clear[low : high + 1], noisy[low : high + 1], 0.0)


def quantile_from_noisy_histogram(noisy, sigma, quantile, interpolate=False):
    """Upper edge of the bin where the kept counts reach ``quantile``, or None if none is kept.

    Infinity when that bin lies above :data:`LARGEST_RADIUS` (norms beyond
    about 3e150, whose squares overflow float64).

    Kept: the run of bins that clear the threshold around the fullest bin,
    bridging single bins that do not (a factor 4 in norm). A bin of noise
    that clears the threshold far from the rows (one histogram in a thousand
    has one somewhere among the 2099 bins) is not joined to them. Beyond
    ``LARGEST_RADIUS`` the threshold is higher (:func:`bin_thresholds`), so
    that noise alone practically never reads a radius there. ``interpolate``:
    the quantile inside its bin, log-linearly, instead of the bin's upper edge.
    """
    found = _kept_bins(noisy, sigma)
    if found is None:
        return None
    low, kept = found
    cumulative = np.cumsum(kept)
    target = quantile * cumulative[-1]
    i = int(np.searchsorted(cumulative, target))
    b = min(low + i, N_BINS - 1)
    if b > _LARGEST_BIN:
        return float("inf")  # beyond LARGEST_RADIUS: the caller says so
    upper = float(bin_edges()[b])
    if not interpolate or b == 0:
        return upper
    # log-linear within the bin [upper / 2, upper): rows taken as spread evenly in log norm
    before = cumulative[i - 1] if i > 0 else 0.0
    share = (target - before) / kept[i] if kept[i] > 0 else 1.0
    return float(np.clip(upper * 2.0 ** (np.clip(share, 0.0, 1.0) - 1.0), SMALLEST_RADIUS, upper))


def private_norm_quantile(
    histogram, quantile, sigma, rng, interpolate=False, *, bound, return_inside=False
):
    """The radius (or None) read from the histogram released with ``N(0, sigma^2)`` noise.

    ``histogram`` counts rows in units of one person's weight (sensitivity
    ``sqrt(2)``); ``bound`` is a public bound on a count (the number of rows in
    those units). The noisy counts are drawn on a grid
    (:func:`~sklearn_privacy.dp._grid_noise.noisy_on_grid`): the caller records
    the mechanism in its ledger with
    ``grid_sensitivity(HISTOGRAM_SENSITIVITY, sigma, bound / sigma, HISTOGRAM_CHANGES)``.
    ``return_inside``: return ``(radius, inside)``, ``inside`` a noisy count of the
    rows within the radius (post-processing of the same release): ``quantile`` of the
    bins the radius was read from, plus the :data:`BELOW` bins under them (a lower
    tail that the noise hid lies within any radius read above it). An ``inside``
    far below the public number of rows says that the radius was read among few of
    them, and that far more than ``1 - quantile`` lie beyond it.
    """
    noisy = noisy_on_grid(histogram, sigma, rng, bound / sigma)
    radius = quantile_from_noisy_histogram(noisy, sigma, quantile, interpolate)
    if not return_inside:
        return radius
    kept = _kept_bins(noisy, sigma)
    if kept is None:
        return radius, 0.0
    low, counts = kept
    return radius, float(quantile * counts.sum() + noisy[max(low - BELOW, 0) : low].sum())


def rows_needed(sigma, share=0.5):
    """Rows (in weight units) for a bin holding ``share`` of them to clear the threshold.

    With two noise deviations of margin: below this the private radius is
    likely to be read from noise, which a fit can say before it reads a row.
    """
    return (noise_threshold(sigma) + 2.0 * sigma) / share
