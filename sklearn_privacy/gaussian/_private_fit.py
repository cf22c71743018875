"""The private fit of the Gaussian mechanisms: mean, covariance and clipping radius under a budget.

:func:`private_mean_covariance_from_statistics` reads the rows only through the statistics of
:class:`~sklearn_privacy.gaussian._rows.PrivateRows` (:class:`RowStatistics` or
:class:`~sklearn_privacy.gaussian._moments.DaskFitRows`) and returns a :class:`FitMoments`.
"""

from dataclasses import dataclass

import numpy as np

from sklearn_privacy.dp import clip_to_ball
from sklearn_privacy.dp.kernels import (
    BEYOND_LARGEST,
    GRID_STEP,
    HISTOGRAM_CHANGES,
    HISTOGRAM_SENSITIVITY,
    LARGEST_RADIUS,
    SMALLEST_RADIUS,
    centred_squares,
    clip_factors,
    grid_sensitivity,
    grid_sigma,
    grid_step,
    log2_histogram,
    noisy_on_grid,
    norms_from_squares,
    private_norm_quantile,
)
from sklearn_privacy.gaussian._rows import ClippedSecondMoment
from sklearn_privacy.gaussian._weights import resolve_weights

__all__ = [
    "FitMoments",
    "RowStatistics",
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
# Share of the budget of the people's mean weight, when each row is one person of a private
# weight (the other shares shrink to make room).
_WEIGHT_SHARE = 0.05
# Share of the budget of the people beyond a public radius (taken from the covariance's):
# a public radius reads no histogram, so nothing else says how many rows it clips.
_BEYOND_SHARE = 0.025


class RowStatistics:
    """The statistics of the rows of ``Z`` (in memory) that a private fit reads.

    :func:`private_mean_covariance_from_statistics` reads the rows only
    through this interface (:class:`~sklearn_privacy.gaussian._rows.PrivateRows`),
    so that another implementation (dask, chunk by chunk) computes the same
    estimate from the same statistics.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
    sample_weight : ndarray of shape (n_samples,), default=None
    person_weights : PersonWeights, default=None
        What a weight means (:func:`~sklearn_privacy.gaussian._weights.resolve_weights`);
        by default each row is one person, or a count of people when
        ``sample_weight`` is given.
    """

    def __init__(self, Z, sample_weight=None, person_weights=None):
        if person_weights is None:
            person_weights = resolve_weights("counts", 1.0, sample_weight is not None)
        self.Z = Z
        self.sample_weight = sample_weight
        self.person_weights = person_weights
        w = np.ones(Z.shape[0]) if sample_weight is None else sample_weight
        with np.errstate(over="ignore"):
            self.total_weight = float(w.sum())
        self.n_features = Z.shape[1]
        self._cached_key, self._cached = (), None  # the centred rows of the last centre
        self._people = None

    def _units(self):
        """Each row's weight in people, the number of people and the rows over the bound."""
        if self._people is None:
            n_rows = self.Z.shape[0]
            units, n_heavy = self.person_weights.units(self.sample_weight, n_rows)
            n_people = self.person_weights.n_people(units.sum(), n_rows)
            # Sums are formed with the units over their largest (a scale that changes
            # nothing but the rounding), so that no sum overflows, whatever the counts.
            relative = units / units.max(initial=1.0) if units.size else units
            # the statistics are sums over the public number of people
            public = self.person_weights.total_is_public
            per_person = 1.0 / relative.sum() if public else 1.0 / n_people
            if not public:
                per_person *= units.max(initial=1.0)
            self._people = units, n_people, n_heavy, relative * per_person
        return self._people

    @property
    def n_people(self):
        """The public number of people (see :meth:`PersonWeights.n_people`)."""
        return self._units()[1]

    @property
    def n_heavy(self):
        """Rows whose weight exceeds ``max_person_weight`` (clipped to it, ``weights="person"``)."""
        return self._units()[2]

    def weight_share(self):
        """The people's total weight over their number, in units of ``max_person_weight``."""
        units, n_people = self._units()[:2]
        return float(units.sum() / n_people)

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
        """:func:`~sklearn_privacy.dp._radius.log2_histogram` of ``||Z - center||``, in people."""
        Zc, squares = self._centred(center)
        return log2_histogram(norms_from_squares(Zc, squares), self._units()[0])

    def clipped_mean(self, radius, center=None):
        """The sum over the people of the rows minus ``center`` clipped to ``radius``, per person.

        The weighted mean when the total is public (``total_is_public``), else
        that mean times :meth:`weight_share`.
        """
        weight = self._units()[3]
        Zc, factor, plain = self._clip_factors(radius, center)
        if plain.all():
            return (factor * weight) @ Zc
        rows, clipped = self._clip_rest(plain, radius, center)
        return (factor * weight)[plain] @ Zc[plain] + weight[rows] @ clipped

    def clipped_second_moment(self, center, radius):
        """As :meth:`clipped_mean`, of ``c c^T`` for the clipped rows ``c``; and the people
        beyond ``radius`` (:class:`~sklearn_privacy.gaussian._rows.ClippedSecondMoment`)."""
        units, _, _, weight = self._units()
        Zc, factor, plain = self._clip_factors(radius, center)
        # sum_i w_i f_i^2 z_i z_i^T as Y^T Y, Y = sqrt(w_i) f_i z_i: a symmetric product
        root = factor * np.sqrt(weight)
        Y = Zc * root[:, None] if plain.all() else Zc[plain] * root[plain, None]
        moment = Y.T @ Y
        if not plain.all():
            rows, clipped = self._clip_rest(plain, radius, center)
            moment += (clipped.T * weight[rows]) @ clipped
        beyond = float(units[norms_from_squares(*self._centred(center)) > radius].sum())
        return ClippedSecondMoment(moment, beyond)


def private_mean_covariance(
    Z,
    mu,
    *,
    rng,
    accountant,
    radius=None,
    sample_weight=None,
    max_person_weight=1.0,
    weights="counts",
):
    """Mean, covariance and clipping radius of the rows of ``Z`` under a ``mu``-GDP budget.

    See :func:`private_mean_covariance_from_statistics` for the estimates and
    :func:`~sklearn_privacy.gaussian._weights.resolve_weights` for
    ``max_person_weight`` and ``weights``.

    Returns
    -------
    mean : ndarray of shape (d,)
    cov : ndarray of shape (d, d)
    radius : float
        ``R``, the radius the centred rows were clipped to.
    """
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, float)
    person_weights = resolve_weights(weights, max_person_weight, sample_weight is not None)
    fit = private_mean_covariance_from_statistics(
        RowStatistics(Z, sample_weight, person_weights),
        mu,
        rng=rng,
        accountant=accountant,
        radius=radius,
    )
    return fit.mean, fit.covariance, fit.radius


@dataclass(frozen=True)
class FitMoments:
    """The moments a Gaussian mechanism is designed on: private estimates, or the sample's.

    Returned by :func:`private_mean_covariance_from_statistics` (and, for
    public rows, by the mechanisms' ``_fit_moments``) and passed on as a value.
    ``starts`` are the centres each refinement clipped around (published as
    DP estimates too; audits read them); ``problems`` says, in words, which
    estimate is unreliable (empty when all are sound). ``failed``: the noisy
    histogram of the row norms showed no scale at all, so nothing else was
    estimated (the mean is zero, the covariance the identity, the radius 1:
    placeholders that a mechanism must not release from). ``noise_floor``:
    eigenvalues of ``covariance`` at or below it are the noise's, floored
    there, not estimated (0 for public rows); ``trace``: the trace of the noisy
    second moment around ``mean`` before the floor (an unbiased estimate of the
    clipped rows' mean squared distance from ``mean``; for public rows the trace
    of ``covariance``); ``beyond``: the estimated share of the people whose rows
    lie beyond ``radius`` (a post-processing of the last noisy histogram; with a
    public radius, a noisy count of its own less two deviations of its noise, a
    lower bound). ``radius`` is None for public rows when no radius was asked.
    """

    mean: np.ndarray
    covariance: np.ndarray
    radius: float | None
    starts: tuple = ()
    problems: tuple = ()
    failed: bool = False
    noise_floor: float = 0.0
    trace: float = float("nan")
    beyond: float = float("nan")


def private_mean_covariance_from_statistics(rows, mu, *, rng, accountant, radius=None):
    """Mean, covariance and clipping radius of the rows under a ``mu``-GDP budget.

    The budget (``mu^2``) is split over Gaussian mechanisms, each recorded in
    ``accountant`` (shares in ``_FIT_SHARES``):

    0. ``weight of the people``, only when each row is one person of a weight
       read from ``sample_weight`` (``rows.total_is_public`` false): the mean
       weight of a person (sensitivity one person over their public number),
       which divides the sums below (post-processing);
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
    there: see ``FitMoments.failed``.)

    4. the centre is every estimate weighed by the inverse of its noise
       variance (post-processing): data far from the origin keeps the refined
       ones, data around it gets the whole budget of the centres;
    5. ``radius around the mean``: the final radius ``R`` around that centre
       (unless ``radius`` is given);
    6. ``covariance``: the second moment of the rows minus the centre clipped
       to ``R`` (upper triangle, Analyze Gauss), eigenvalues floored at the
       noise's spectral norm (post-processing);
    7. ``people beyond the radius``, with a public ``radius`` only: the share of
       the people whose centred row it clips (sensitivity one person over their
       number), which no histogram gives then.

    ``rows`` is a :class:`~sklearn_privacy.gaussian._rows.PrivateRows` (the
    number of people is public; counts are in people, sums over the people
    divided by their number); the noise is drawn from ``rng`` in
    the same order whatever computes them, so equal statistics give equal
    estimates. Every sensitivity is a function of public facts (the number of
    people, the parameters) and of estimates published before it: replacing
    one person (or moving one of a count table) moves a count by one and a
    sum over the people by at most ``2 R`` (a second moment ``sqrt(2) R^2``).

    Returns
    -------
    FitMoments
    """
    return _PrivateEstimates(rows, mu, rng, accountant, radius).run()


class _PrivateEstimates:
    """The steps of :func:`private_mean_covariance_from_statistics`, in its order."""

    def __init__(self, rows, mu, rng, accountant, radius):
        self.rows, self.mu, self.rng, self.accountant = rows, mu, rng, accountant
        self.d, self.n_people = rows.n_features, rows.n_people
        self.public_radius = radius is not None
        self.radius = radius
        self.total_is_public = rows.person_weights.total_is_public
        self.shares = _shares(self.public_radius, self.total_is_public)
        self.problems = []
        self.share = 1.0  # the mean weight of a person: 1 when the total is public

    def run(self):
        if not self.total_is_public:
            self.share = self._weight_share()
        r0 = self._radius_of_rows()
        if r0 is None:
            # No scale can be read: any radius would be a guess, and a guess of 1e150
            # releases noise of that size. Stop: the mechanism releases nothing.
            self.problems.append(
                "the private histogram of the row norms is all noise (no scale of the rows "
                "could be read), so nothing is estimated and the release is the constant 0 "
                "(fallback_='zeros')"
            )
            d = self.d
            return FitMoments(np.zeros(d), np.eye(d), 1.0, (), tuple(self.problems), failed=True)
        mean, reach, starts, error = self._centre(r0)
        radius, beyond = self._final_radius(mean, reach, error)
        cov, floor, trace, clipped = self._covariance(mean, radius)
        if self.public_radius:
            beyond = self._people_beyond(clipped.people_beyond)
        return FitMoments(
            mean, cov, radius, tuple(starts), tuple(self.problems), False, floor, trace, beyond
        )

    # ------------------------------------------------------------- mechanisms
    def _release(self, name, label, signal, sensitivity, bound, n_coordinates):
        """``signal`` with Gaussian noise on a grid, recorded as ``label``; and its sigma.

        ``bound`` bounds every coordinate of the signal; sigma pays for the
        rounding to the grid too (dp._grid_noise), so that the entry spends
        exactly the share ``name`` of the budget.
        """
        mu = self.mu * np.sqrt(self.shares[name])
        try:
            sigma = grid_sigma(sensitivity, mu, bound, n_coordinates)
        except ValueError as exc:
            self._refuse_too_many_people(exc, mu, sensitivity, bound)
        value = noisy_on_grid(signal, sigma, self.rng, bound / sigma)
        sensitivity = grid_sensitivity(sensitivity, sigma, bound / sigma, n_coordinates)
        self.accountant.spend(label, sensitivity=sensitivity, sigma=sigma)
        return value, sigma

    def _refuse_too_many_people(self, exc, mu, sensitivity, bound):
        """A grid too coarse for the budget: name the number of people when it is the cause."""
        if grid_step(bound * mu / sensitivity) > GRID_STEP and bound >= self.n_people:
            person_weights = self.rows.person_weights
            raise ValueError(
                f"The rows hold {self.n_people:.3g} people (weights="
                f"{person_weights.weights!r}, in units of max_person_weight"
                f"={person_weights.max_person_weight!r}): a count that large "
                "cannot be rounded to the float-safe noise grid at this budget. Check the "
                "counts and max_person_weight (the weight of one person), or declare "
                "weights='person'."
            ) from exc
        raise exc

    def _histogram_radius(self, center, name, label, interpolate, return_inside=False):
        """The private 95 % quantile of ``||z - center||`` (None when all is noise).

        ``return_inside``: ``(quantile, inside)``, ``inside`` a noisy count of the rows
        within it (:func:`~sklearn_privacy.dp._radius.private_norm_quantile`).
        """
        n = self.n_people  # a count is at most the number of people
        mu = self.mu * np.sqrt(self.shares[name])
        try:
            sigma = grid_sigma(HISTOGRAM_SENSITIVITY, mu, n, HISTOGRAM_CHANGES)
        except ValueError as exc:
            self._refuse_too_many_people(exc, mu, HISTOGRAM_SENSITIVITY, n)
        found = private_norm_quantile(
            self.rows.norm_histogram(center),
            _QUANTILE,
            sigma,
            self.rng,
            interpolate,
            bound=n,
            return_inside=return_inside,
        )
        sensitivity = grid_sensitivity(HISTOGRAM_SENSITIVITY, sigma, n / sigma, HISTOGRAM_CHANGES)
        self.accountant.spend(label, sensitivity=sensitivity, sigma=sigma)
        return found

    # ------------------------------------------------------------------ steps
    def _weight_share(self):
        """Step 0: the people's mean weight (a share of ``max_person_weight``, in (0, 1])."""
        share = np.array([self.rows.weight_share()])
        noisy, sigma = self._release(
            "weight", "weight of the people", share, 1.0 / self.n_people, 1.0, 1
        )
        noisy = float(noisy[0])
        if noisy <= 2.0 * sigma:
            self.problems.append(
                "the private total of the weights is mostly noise (the people weigh far less "
                "than max_person_weight)"
            )
        # post-processing: a mean weight lies in (0, 1]; below its noise it is not resolved
        return float(np.clip(noisy, sigma, 1.0))

    def _radius_of_rows(self):
        """Step 1: ``r0``, the radius of the rows around the origin (a bin edge), or None."""
        r0 = self._histogram_radius(None, "radius", "radius of the rows", False)
        if r0 is not None and r0 > LARGEST_RADIUS:
            # A post-processing of the private histogram: clipping the rows to 3e150
            # would release a centre and a covariance far from theirs, silently. Noise
            # alone reads a radius there in under one histogram in 1e9 (dp._radius).
            raise ValueError(
                f"The private {_QUANTILE} quantile of the row norms lies beyond "
                f"{LARGEST_RADIUS:.3g}: " + BEYOND_LARGEST + "."
            )
        return r0

    def _clipped_mean(self, name, label, radius, center=None):
        """A private sum over the people of the rows clipped to ``radius``, per mean weight;
        and the sum's noise deviation."""
        sensitivity = 2.0 * radius / self.n_people
        # a clipped mean's coordinate is at most the radius (times the share, at most 1)
        value, sigma = self._release(
            name, label, self.rows.clipped_mean(radius, center), sensitivity, radius, self.d
        )
        # sigma is the sum's: the next radius (a public choice) reads it, not the mean weight
        return value / self.share, sigma

    def _centre(self, r0):
        """Steps 2-4: the first centre, its refinements, and their precision-weighted mean."""
        centre, sigma = self._clipped_mean("mean", "mean", r0)
        estimates, starts = [(centre, sigma)], []
        for _ in range(_REFINEMENTS):
            error = _noise_norm(sigma, self.d)
            if self.public_radius:
                reach = self.radius + error
            else:
                found = self._histogram_radius(
                    centre, "centred radius", "radius around the centre", True
                )
                if found is None:
                    self._all_noise("radius around the centre")
                reach = r0 + error if found is None else found
            reach = float(np.clip(reach, SMALLEST_RADIUS, LARGEST_RADIUS))
            starts.append(centre)
            # the offset is released (the centre it starts from is public already)
            offset, sigma = self._clipped_mean("centre", "centre", reach, centre)
            centre = centre + offset
            estimates.append((centre, sigma))
        # Post-processing: the estimates carry independent noise (each refinement's
        # offset cancels the noise of the centre it started from): weigh them by the
        # inverse of their noise variances (relative to the smallest: a radius of 1e-150
        # around a crowd of 1e14 people on one row makes 1 / sd^2 overflow)
        sds = np.array([sd for _, sd in estimates])
        precisions = (sds.min() / sds) ** 2
        mean = precisions @ np.array([c for c, _ in estimates]) / precisions.sum()
        error = _noise_norm(sds.min() / np.sqrt(precisions.sum()), self.d) / self.share
        return mean, reach, starts, error

    def _all_noise(self, label):
        self.problems.append(f"the private histogram of the row norms ({label}) is all noise")

    def _final_radius(self, mean, reach, mean_error):
        """Step 5: the radius around the mean (the public one when given), and the share of
        the people beyond it that its histogram says (NaN with a public radius)."""
        radius, beyond = self.radius, float("nan")
        if not self.public_radius:
            found, inside = self._histogram_radius(
                mean, "final radius", "radius around the mean", True, return_inside=True
            )
            # Post-processing of that histogram: the people (a public number, times their
            # mean weight) not counted within the radius lie beyond it, in bins the
            # noise hid (or in the 5 % above the quantile).
            total = self.n_people * self.share
            beyond = float(np.clip(1.0 - inside / total, 0.0, 1.0))
            if found is None:
                self._all_noise("radius around the mean")
            radius = reach if found is None else found
        radius = float(np.clip(radius, SMALLEST_RADIUS, LARGEST_RADIUS))
        if mean_error > radius:
            self.problems.append(
                f"the private centre is uncertain by about {mean_error:.3g}, more than the "
                f"radius {radius:.3g} of the rows around it"
            )
        return radius, beyond

    def _people_beyond(self, people_beyond):
        """Step 7 (a public radius only): the share of the people beyond it, a noisy count.

        ``people_beyond`` comes with the clipped second moment of step 6
        (:class:`~sklearn_privacy.gaussian._rows.ClippedSecondMoment`): the same
        centre and radius, by construction.
        """
        share = np.array([people_beyond / self.n_people])
        noisy, sigma = self._release(
            "beyond", "people beyond the radius", share, 1.0 / self.n_people, 1.0, 1
        )
        # post-processing: two deviations of its noise below it (a lower bound, with chance
        # about 0.98), so that noise alone does not say a large public radius clips many
        # rows; a share of the (mean-weighted) people lies in [0, 1]
        return float(np.clip((noisy[0] - 2.0 * sigma) / self.share, 0.0, 1.0))

    def _covariance(self, mean, radius):
        """Step 6: the covariance, its noise floor, the trace of the noisy moment, and the
        noiseless :class:`~sklearn_privacy.gaussian._rows.ClippedSecondMoment` (step 7 reads
        its people beyond the radius)."""
        d = self.d
        clipped = self.rows.clipped_second_moment(mean, radius)
        moment = clipped.moment
        sensitivity = np.sqrt(2.0) * radius**2 / self.n_people
        n_upper = d * (d + 1) // 2  # the upper triangle is released; an entry is at most R^2
        noisy, sigma = self._release(
            "covariance", "covariance", moment, sensitivity, radius**2, n_upper
        )
        cov = np.triu(noisy) / self.share
        sigma /= self.share
        cov = cov + np.triu(cov, 1).T
        w, v = np.linalg.eigh(cov)
        # Post-processing: eigenvalues below the noise's spectral norm (about
        # 2 sigma sqrt(d)) are not resolved by the estimate; flooring them there keeps
        # the covariance invertible and stops a direction that only the noise made
        # small from looking almost noiseless to the mechanism designed on it.
        floor = max(2.0 * sigma * np.sqrt(d), 1e-9 * max(float(w.max()), 0.0))
        if float(w.max()) <= 1.25 * floor:
            self.problems.append(
                f"the private covariance is mostly noise (noise level {floor:.3g}, largest "
                f"eigenvalue {float(w.max()):.3g})"
            )
        cov = (v * np.maximum(w, floor)) @ v.T
        return 0.5 * (cov + cov.T), floor, float(np.trace(noisy)) / self.share, clipped


def _shares(public_radius, total_is_public):
    """The shares of the budget: a public radius gives the radii's shares to the covariance
    (less the count of the people beyond it);
    a private total of the weights takes ``_WEIGHT_SHARE`` from every other estimate."""
    shares = dict(_FIT_SHARES)
    if public_radius:
        shares["covariance"] += shares.pop("final radius") + _REFINEMENTS * shares.pop(
            "centred radius"
        )
        shares["covariance"] -= _BEYOND_SHARE
        shares["beyond"] = _BEYOND_SHARE
    if not total_is_public:
        shares = {name: share * (1.0 - _WEIGHT_SHARE) for name, share in shares.items()}
        shares["weight"] = _WEIGHT_SHARE
    return shares


def _noise_norm(sigma, d):
    """A bound on ``||N(0, sigma^2 I_d)||`` that holds with probability about 0.98."""
    return sigma * (np.sqrt(d) + 2.0)
