"""The kernels of ``dp`` that the package's private fits build on: an internal API.

The Gaussian mechanisms (``gaussian/``) clip rows, add noise on the float-safe grid and read
radii from noisy log2 histograms with these; they live in ``dp``'s private modules and are
named here, the one place another room imports them from. Not part of the public API
(``dp.__all__``): no validation (they run inside fits), and no promise that a release keeps
them. Why the grid and the histograms: "Float-safe noise" and "Private fit-time estimates
that degrade gracefully" in ``docs/design.md``.
"""

from sklearn_privacy.dp._clipping import (
    centred_squares,
    clip_factors,
    clipped_product,
    norms_from_squares,
    row_norms_safe,
)
from sklearn_privacy.dp._grid_noise import (
    GRID_STEP,
    grid_integers,
    grid_sensitivity,
    grid_sigma,
    grid_step,
    mu_after_rounding,
    noisy_on_grid,
)
from sklearn_privacy.dp._radius import (
    BEYOND_LARGEST,
    HISTOGRAM_CHANGES,
    HISTOGRAM_SENSITIVITY,
    LARGEST_RADIUS,
    N_BINS,
    SMALLEST_RADIUS,
    bin_edges,
    log2_bins,
    log2_histogram,
    private_norm_quantile,
    rows_needed,
)

__all__ = [
    "BEYOND_LARGEST",
    "GRID_STEP",
    "HISTOGRAM_CHANGES",
    "HISTOGRAM_SENSITIVITY",
    "LARGEST_RADIUS",
    "N_BINS",
    "SMALLEST_RADIUS",
    "bin_edges",
    "centred_squares",
    "clip_factors",
    "clipped_product",
    "grid_integers",
    "grid_sensitivity",
    "grid_sigma",
    "grid_step",
    "log2_bins",
    "log2_histogram",
    "mu_after_rounding",
    "noisy_on_grid",
    "norms_from_squares",
    "private_norm_quantile",
    "row_norms_safe",
    "rows_needed",
]
