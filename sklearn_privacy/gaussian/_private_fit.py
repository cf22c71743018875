"""The private fit of the Gaussian mechanisms: mean, covariance and clipping radius under a budget.

:func:`private_mean_covariance_from_statistics` reads the rows only through the statistics of
:class:`RowStatistics` or of :class:`~sklearn_privacy.gaussian._moments.DaskFitRows`.
"""

from dataclasses import dataclass, field

import numpy as np

from sklearn_privacy.dp import clip_to_ball
from sklearn_privacy.dp.kernels import (
    BEYOND_LARGEST,
    HISTOGRAM_CHANGES,
    HISTOGRAM_SENSITIVITY,
    LARGEST_RADIUS,
    SMALLEST_RADIUS,
    centred_squares,
    clip_factors,
    grid_sensitivity,
    grid_sigma,
    log2_histogram,
    noisy_on_grid,
    norms_from_squares,
    private_norm_quantile,
)

__all__ = [
    "PrivateMoments",
    "RowStatistics",
    "check_n_units",
    "private_mean_covariance",
    "private_mean_covariance_from_statistics",
]


# Shares of a private-fit budget (of mu^2, which adds up over Gaussian mechanisms),
# chosen by measurement (benchmarks/bench_private_fit.py): the radius around the
# origin, the first centre, per refinement step a centred radius and a centre, the
# final centred radius and the covariance. A public radius gives the centred
# radii's shares to the covariance.
_FIT_SHARES = {
    "radius": 0.075,
    "mean": 0.1,
    "centred radius": 0.05,
    "centre": 0.1,
    "final radius": 0.075,
    "covariance": 0.45,
}
_REFINEMENTS = 2
_QUANTILE = 0.95


class RowStatistics:
    """The statistics of the rows of ``Z`` (in memory) that a private fit reads.

    :func:`private_mean_covariance_from_statistics` reads the rows only
    through this interface, so that another implementation (dask, chunk by
    chunk) computes the same estimate from the same statistics.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
    sample_weight : ndarray of shape (n_samples,), default=None
        Units of weight of each row (a row of weight ``w`` counts ``w`` times).
    unit : float, default=1.0
        The public bound on the weight of one person: counts are in these
        units, so moving one person's weight moves at most one unit. Never
        read off the weights.
    """

    def __init__(self, Z, sample_weight=None, unit=1.0):
        self.Z = Z
        self.sample_weight = sample_weight
        self.unit = float(unit)
        w = np.ones(Z.shape[0]) if sample_weight is None else sample_weight
        self._weights = w
        with np.errstate(over="ignore"):
            self.total_weight = float(w.sum())
        # Means are formed with the weights over their largest (a scale that changes
        # nothing but the rounding), so that no sum overflows, whatever the weights.
        self._relative = w / w.max(initial=1.0) if w.size else w
        self.n_features = Z.shape[1]
        self._cached_key, self._cached = (), None  # the centred rows of the last centre

    @property
    def n_units(self):
        """The total weight in units of ``unit`` (see :func:`check_n_units`)."""
        return check_n_units(self.total_weight, self.unit)

    def _centred(self, center):
        """``Z - center`` and its squared row norms, kept for the last centre asked.

        The estimate reads the histogram of the norms around a centre and then
        clips around the same centre: one pass over the rows serves both.
        """
        center = None if center is None else np.asarray(center, dtype=float)
        key = None if center is None else center.tobytes()
        if self._cached_key != key:
            self._cached = centred_squares(self.Z, center)
            self._cached_key = key
        return self._cached

    def _clip_factors(self, radius, center):
        """``Z - center``, each row's clipping scale, and the rows it serves (``plain``).

        The other rows (a norm that is not an ordinary float) are clipped in
        units of their largest value by the caller, with :func:`clip_to_ball`.
        """
        Zc, squares = self._centred(center)
        return (Zc, *clip_factors(squares, float(radius), self.n_features))

    def _clip_rest(self, plain, radius, center):
        """The rows outside ``plain`` clipped (few: overflowing or subnormal), and their index."""
        rows = np.flatnonzero(~plain)
        center = None if center is None else np.asarray(center, dtype=float)
        return rows, clip_to_ball(self.Z[rows], float(radius), center)

    def norm_histogram(self, center=None):
        """:func:`~sklearn_privacy.dp._radius.log2_histogram` of ``||Z - center||``, in units."""
        Zc, squares = self._centred(center)
        return log2_histogram(norms_from_squares(Zc, squares), self._weights / self.unit)

    def clipped_mean(self, radius, center=None):
        """Weighted mean of the rows minus ``center`` clipped to the ball of ``radius``."""
        Zc, factor, plain = self._clip_factors(radius, center)
        if plain.all():
            total = (factor * self._relative) @ Zc
        else:
            rows, clipped = self._clip_rest(plain, radius, center)
            total = (factor * self._relative)[plain] @ Zc[plain] + self._relative[rows] @ clipped
        return total / self._relative.sum()

    def clipped_second_moment(self, center, radius):
        """Weighted mean of ``c c^T`` over the rows minus ``center`` clipped to ``radius``."""
        Zc, factor, plain = self._clip_factors(radius, center)
        # sum_i w_i f_i^2 z_i z_i^T as Y^T Y, Y = sqrt(w_i) f_i z_i: a symmetric product
        root = factor * np.sqrt(self._relative)
        Y = Zc * root[:, None] if plain.all() else Zc[plain] * root[plain, None]
        moment = Y.T @ Y
        if not plain.all():
            rows, clipped = self._clip_rest(plain, radius, center)
            moment += (clipped.T * self._relative[rows]) @ clipped
        return moment / self._relative.sum()


def check_n_units(total_weight, unit):
    """``total_weight / unit``: how many people's weight the rows hold, finite and positive.

    The total weight is the number of rows of the expanded table, which the
    replace-one neighbours of a private fit share (public).
    """
    n_units = total_weight / unit
    if not np.isfinite(n_units) or n_units <= 0:
        raise ValueError(
            f"sample_weight adds up to {total_weight:.6g}, which is {n_units:.6g} units of "
            f"max_person_weight={unit!r}: a private fit needs a finite, positive number of "
            "units. Scale the weights, or max_person_weight with them."
        )
    return n_units


def private_mean_covariance(
    Z, mu, *, rng, accountant, radius=None, sample_weight=None, max_person_weight=1.0
):
    """Mean, covariance and clipping radius of the rows of ``Z`` under a ``mu``-GDP budget.

    See :func:`private_mean_covariance_from_statistics` for the estimates.
    A row of ``sample_weight`` w counts w times; the guarantee covers moving
    ``max_person_weight`` of weight (one person) from one row to another.

    Returns
    -------
    mean : ndarray of shape (d,)
    cov : ndarray of shape (d, d)
    radius : float
        ``R``, the radius the centred rows were clipped to.
    """
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, float)
    fit = private_mean_covariance_from_statistics(
        RowStatistics(Z, sample_weight, max_person_weight),
        mu,
        rng=rng,
        accountant=accountant,
        radius=radius,
    )
    return fit.mean, fit.covariance, fit.radius


@dataclass
class PrivateMoments:
    """What :func:`private_mean_covariance_from_statistics` estimated, and what went wrong.

    ``starts`` are the centres each refinement clipped around (published as
    DP estimates too; audits read them); ``problems`` says, in words, which
    estimate is unreliable (empty when all are sound). ``failed``: the noisy
    histogram of the row norms showed no scale at all, so nothing else was
    estimated (the mean is zero, the covariance the identity, the radius 1:
    placeholders that a mechanism must not release from).
    """

    mean: np.ndarray
    covariance: np.ndarray
    radius: float
    starts: list
    problems: list = field(default_factory=list)
    failed: bool = False


def private_mean_covariance_from_statistics(rows, mu, *, rng, accountant, radius=None):
    """Mean, covariance and clipping radius of the rows under a ``mu``-GDP budget.

    The budget (``mu^2``) is split over Gaussian mechanisms, each recorded in
    ``accountant`` (shares in ``_FIT_SHARES``):

    1. ``radius of the rows``: the noisy log2 histogram of the row norms gives
       ``r0``, about their 95 % quantile (:mod:`sklearn_privacy.dp._radius`);
       no range is assumed;
    2. ``mean``: a first centre ``c1``, the mean of the rows clipped to ``r0``;
    3. ``_REFINEMENTS`` steps of CoinPress (Biswas et al. 2020), each a
       ``radius around the centre`` (the noisy histogram of ``||z - c||``, about
       their 95 % quantile ``R``) and a ``centre``: ``c + mean(clip(z - c, R))``,
       whose noise scales with ``R``, not with the distance ``r0`` from the
       origin. With a public ``radius`` the histograms are skipped and the rows
       are clipped to ``radius + e`` around ``c`` (``e`` a bound on the noise of
       ``c``, public since it follows from the noise scale);
    (When the first histogram shows no scale at all, the estimation stops
    there: see ``PrivateMoments.failed``.)

    4. the centre is every estimate weighed by the inverse of its noise
       variance (post-processing): data far from the origin keeps the refined
       ones, data around it gets the whole budget of the centres;
    5. ``radius around the mean``: the final radius ``R`` around that centre
       (unless ``radius`` is given);
    6. ``covariance``: the second moment of the rows minus the centre clipped
       to ``R`` (upper triangle, Analyze Gauss), eigenvalues floored at the
       noise's spectral norm (post-processing).

    ``rows`` has ``n_units`` (the total weight in units of one person's,
    ``max_person_weight``), ``n_features``, ``norm_histogram(center)`` (counts
    in those units), ``clipped_mean(radius, center)`` and
    ``clipped_second_moment(center, radius)`` (weighted means; see
    :class:`RowStatistics`); the noise is drawn from ``rng`` in the same
    order whatever computes them, so equal statistics give equal estimates.
    Moving one person's weight from one row to another moves one unit of
    count and a clipped mean by at most ``2 R / n_units``.

    Returns
    -------
    PrivateMoments
    """
    d, n_units = rows.n_features, rows.n_units
    public_radius = radius is not None
    shares = dict(_FIT_SHARES)
    if public_radius:
        shares["covariance"] += shares.pop("final radius") + _REFINEMENTS * shares.pop(
            "centred radius"
        )
    problems = []

    def noise_for(name, sensitivity, bound, n_coordinates):
        # Noise on a grid (dp._grid_noise) for a signal of at most ``bound`` per
        # coordinate: sigma pays for the rounding too, so that the entry recorded
        # (``record``) spends exactly the share. Returns sigma and the bound in sigmas.
        sigma = grid_sigma(sensitivity, mu * np.sqrt(shares[name]), bound, n_coordinates)
        return sigma, bound / sigma

    def record(label, sensitivity, sigma, bound, n_coordinates):
        sensitivity = grid_sensitivity(sensitivity, sigma, bound, n_coordinates)
        accountant.spend(label, sensitivity=sensitivity, sigma=sigma)

    def noise_norm(sigma):
        # a bound on ||N(0, sigma^2 I_d)|| that holds with probability about 0.98
        return sigma * (np.sqrt(d) + 2.0)

    def centred_radius(center, name, label):
        # a count is at most n_units
        sigma, bound = noise_for(name, HISTOGRAM_SENSITIVITY, n_units, HISTOGRAM_CHANGES)
        found = private_norm_quantile(
            rows.norm_histogram(center), _QUANTILE, sigma, rng, interpolate=True, bound=n_units
        )
        record(label, HISTOGRAM_SENSITIVITY, sigma, bound, HISTOGRAM_CHANGES)
        if found is None:
            problems.append(f"the private histogram of the row norms ({label}) is all noise")
        return found

    sigma, bound = noise_for("radius", HISTOGRAM_SENSITIVITY, n_units, HISTOGRAM_CHANGES)
    r0 = private_norm_quantile(rows.norm_histogram(None), _QUANTILE, sigma, rng, bound=n_units)
    record("radius of the rows", HISTOGRAM_SENSITIVITY, sigma, bound, HISTOGRAM_CHANGES)
    if r0 is None:
        # No scale can be read: any radius would be a guess, and a guess of 1e150
        # releases noise of that size. Stop: the mechanism releases nothing.
        problems.append(
            "the private histogram of the row norms is all noise (no scale of the rows "
            "could be read), so nothing is released"
        )
        return PrivateMoments(np.zeros(d), np.eye(d), 1.0, [], problems, failed=True)
    if r0 > LARGEST_RADIUS:
        # A post-processing of the private histogram: clipping the rows to 3e150
        # would release a centre and a covariance far from theirs, silently.
        raise ValueError(
            f"The private {_QUANTILE} quantile of the row norms lies beyond "
            f"{LARGEST_RADIUS:.3g}: " + BEYOND_LARGEST + "."
        )

    sens = 2.0 * r0 / n_units
    sigma, bound = noise_for("mean", sens, r0, d)  # a clipped mean's coordinate is at most r0
    centre = noisy_on_grid(rows.clipped_mean(r0), sigma, rng, bound)
    record("mean", sens, sigma, bound, d)
    estimates, starts = [(centre, sigma)], []
    for _ in range(_REFINEMENTS):
        error = noise_norm(sigma)
        if public_radius:
            reach = radius + error
        else:
            found = centred_radius(centre, "centred radius", "radius around the centre")
            reach = r0 + error if found is None else found
        reach = float(np.clip(reach, SMALLEST_RADIUS, LARGEST_RADIUS))
        sens = 2.0 * reach / n_units
        sigma, bound = noise_for("centre", sens, reach, d)
        starts.append(centre)
        # the offset is released (the centre it starts from is public already)
        centre = centre + noisy_on_grid(rows.clipped_mean(reach, centre), sigma, rng, bound)
        record("centre", sens, sigma, bound, d)
        estimates.append((centre, sigma))
    # Post-processing: the estimates carry independent noise (each refinement's
    # offset cancels the noise of the centre it started from): weigh them by the
    # inverse of their noise variances.
    precisions = np.array([1.0 / sd**2 for _, sd in estimates])
    mean = precisions @ np.array([c for c, _ in estimates]) / precisions.sum()
    mean_error = noise_norm(1.0 / np.sqrt(precisions.sum()))

    if not public_radius:
        found = centred_radius(mean, "final radius", "radius around the mean")
        radius = reach if found is None else found
    radius = float(np.clip(radius, SMALLEST_RADIUS, LARGEST_RADIUS))
    if mean_error > radius:
        problems.append(
            f"the private centre is uncertain by about {mean_error:.3g}, more than the "
            f"radius {radius:.3g} of the rows around it"
        )

    moment = rows.clipped_second_moment(mean, radius)
    sens = np.sqrt(2.0) * radius**2 / n_units
    n_upper = d * (d + 1) // 2  # the upper triangle is released; an entry is at most R^2
    sigma, bound = noise_for("covariance", sens, radius**2, n_upper)
    cov = np.triu(noisy_on_grid(moment, sigma, rng, bound))
    cov = cov + np.triu(cov, 1).T
    record("covariance", sens, sigma, bound, n_upper)
    w, v = np.linalg.eigh(cov)
    # Post-processing: eigenvalues below the noise's spectral norm (about
    # 2 sigma sqrt(d)) are not resolved by the estimate; flooring them there keeps
    # the covariance invertible and stops a direction that only the noise made
    # small from looking almost noiseless to the mechanism designed on it.
    floor = max(2.0 * sigma * np.sqrt(d), 1e-9 * max(float(w.max()), 0.0))
    if float(w.max()) <= 1.25 * floor:
        problems.append(
            f"the private covariance is mostly noise (noise level {floor:.3g}, largest "
            f"eigenvalue {float(w.max()):.3g})"
        )
    cov = (v * np.maximum(w, floor)) @ v.T
    return PrivateMoments(mean, 0.5 * (cov + cov.T), radius, starts, problems)
