"""Differentially private mean and covariance ("Analyze Gauss"), clipping, composition.

Neighbouring relation everywhere: data sets of the same size ``n`` that differ
in one row (replace-one). Rows are first clipped to the L2 ball of radius R, so
a row's contribution to the mean moves by at most ``2 R / n`` and its
contribution to the second-moment matrix by at most ``sqrt(2) R^2 / n`` in
Frobenius norm (attained by two orthogonal rows of norm R); the upper triangle
of a symmetric difference ``x x^T - x' x'^T`` has the same bound.
"""

from dataclasses import dataclass, field
from numbers import Real

import numpy as np
from sklearn.utils import check_array

from sklearn_privacy.dp._gaussian_mechanism import gaussian_dp_mu
from sklearn_privacy.dp._grid_noise import grid_sensitivity, grid_sigma, noisy_on_grid
from sklearn_privacy.dp._radius import (
    BEYOND_LARGEST,
    HISTOGRAM_CHANGES,
    HISTOGRAM_SENSITIVITY,
    LARGEST_RADIUS,
    SMALLEST_RADIUS,
    log2_histogram,
    private_norm_quantile,
    rows_needed,
)
from sklearn_privacy.utils import NONNEGATIVE, OPEN_UNIT, POSITIVE, check_generator
from sklearn_privacy.utils._sklearn_compat import Interval, validate_params


@validate_params(
    {"X": ["array-like"], "radius": [POSITIVE], "center": [None, "array-like"]},
    prefer_skip_nested_validation=True,
)
def clip_rows(X, radius, center=None):
    """Scale each row of ``X - center`` into the L2 ball of radius ``radius``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    radius : float
        Clipping radius R > 0.
    center : array-like of shape (n_features,), default=None
        Centre of the ball (the origin by default). The result is centred: the
        centre is *not* added back.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        Rows with norm at most ``radius``.

    See Also
    --------
    dp_norm_quantile : DP choice of the clipping radius.
    dp_mean : DP mean of clipped rows.
    dp_covariance : DP mean and covariance of clipped rows.

    Examples
    --------
    >>> from sklearn_privacy.dp import clip_rows
    >>> clip_rows([[3.0, 4.0], [0.3, 0.4]], 1.0).round(2).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    X = check_array(X, dtype=float)
    center = None if center is None else np.asarray(center, dtype=float)
    return _clip_to_ball(X, float(radius), center)


def _shrink(n_features):
    """Rows are scaled to at most ``R (1 - shrink)``: more than the rounding of a norm."""
    return (4.0 * n_features + 16.0) * np.finfo(float).eps


def _clip_to_ball(X, radius, center=None):
    """``X - center`` with every row scaled into the ball of ``radius``: no row longer than it.

    The plain computation (one norm per row, one scale) serves the rows whose
    norm and scale are ordinary floats; rows whose centred values overflow,
    whose norm is not finite or subnormal, or whose scale ``R / norm`` falls
    into the subnormal range are computed in units of their largest value.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        Xc = X if center is None else X - center
        squares = np.einsum("ij,ij->i", Xc, Xc)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        scale = radius * (1.0 - _shrink(X.shape[1])) / np.sqrt(squares)
        plain = np.isfinite(squares) & (squares > 1e-280) & (scale > 1e-290)
        out = Xc * np.minimum(scale, 1.0)[:, None]
    if plain.all():
        return out
    rows = np.flatnonzero(~plain)
    out[rows] = _clip_in_units(X[rows], radius, None if center is None else center)
    return out


def _clip_in_units(X, radius, center):
    """:func:`_clip_to_ball` of a few rows, computed as ``u t`` with ``|u| <= 2``.

    ``t`` is the largest absolute value of the row and of the centre, so that
    ``u = x / t - c / t`` is finite at any scale; the clipped row is
    ``u min(t, R / ||u||)``, whose norm is at most R. A last pass takes
    rounding in the subnormal range into account.
    """
    peak = np.max(np.abs(X), axis=1) if X.shape[1] else np.zeros(X.shape[0])
    if center is not None and X.shape[1]:
        peak = np.maximum(peak, np.max(np.abs(center)))
    t = np.where(peak > 0, peak, 1.0)[:, None]
    u = X / t if center is None else X / t - center / t
    size = np.sqrt(np.einsum("ij,ij->i", u, u))
    with np.errstate(divide="ignore"):
        keep = np.minimum(t[:, 0], radius * (1.0 - _shrink(X.shape[1])) / size)
    out = u * np.where(size > 0, keep, 0.0)[:, None]
    for _ in range(8):
        long = row_norms_safe(out) > radius
        if not long.any():
            return out
        out[long] = np.nextafter(out[long], 0.0)
    out[row_norms_safe(out) > radius] = 0.0
    return out


def row_norms_safe(X):
    """Euclidean norms of the rows of ``X`` without overflow or underflow of the squares.

    One pass of ``sqrt(sum x^2)``; the rows whose sum of squares overflowed or
    came near the subnormal range are recomputed after dividing by their
    largest absolute entry, so rows of size 1e200 or 1e-200 keep their exact norm.
    """
    X = np.asarray(X, dtype=float)
    with np.errstate(over="ignore"):
        squares = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(squares)
    redo = np.flatnonzero(~np.isfinite(squares) | (squares < 1e-280))
    if redo.size:
        rows = X[redo]
        peak = np.max(np.abs(rows), axis=1) if X.shape[1] else np.zeros(redo.size)
        safe = np.where(peak > 0, peak, 1.0)[:, None]
        with np.errstate(over="ignore", invalid="ignore"):
            norms[redo] = peak * np.sqrt(np.einsum("ij,ij->i", rows / safe, rows / safe))
    return norms


@validate_params(
    {
        "X": ["array-like"],
        "epsilon": [POSITIVE],
        "delta": [OPEN_UNIT],
        "radius": [POSITIVE],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_mean(X, *, epsilon, delta, radius, random_state=None):
    """(epsilon, delta)-DP mean of the rows of ``X`` clipped to radius R.

    Gaussian mechanism with sensitivity :math:`2 R / n` (replace-one) and
    analytically calibrated noise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    epsilon, delta : float
        Privacy budget spent.
    radius : float
        Clipping radius around the origin.
    random_state : int, RandomState, Generator or None, default=None

    Returns
    -------
    ndarray of shape (n_features,)

    See Also
    --------
    dp_covariance : DP mean and covariance together.
    dp_norm_quantile : DP choice of the clipping radius.
    clip_rows : The clipping applied before the noise.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_mean
    >>> X = np.ones((10000, 2))
    >>> m = dp_mean(X, epsilon=1.0, delta=1e-5, radius=2.0, random_state=0)
    >>> bool(np.allclose(m, 1, atol=0.01))
    True
    """
    Xc = clip_rows(X, radius)
    n, d = Xc.shape
    # noise on a grid (dp._grid_noise): a coordinate of the mean is at most R
    sigma = grid_sigma(2.0 * radius / n, gaussian_dp_mu(epsilon, delta), radius, d)
    return noisy_on_grid(Xc.mean(axis=0), sigma, check_generator(random_state), radius / sigma)


@validate_params(
    {
        "X": ["array-like"],
        "epsilon": [POSITIVE],
        "delta": [OPEN_UNIT],
        "radius": [POSITIVE],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_second_moment(X, *, epsilon, delta, radius, random_state=None):
    r"""(epsilon, delta)-DP second-moment matrix :math:`\frac{1}{n} \sum_i x_i x_i^T`.

    The "Analyze Gauss" mechanism of Dwork, Talwar, Thakurta and Zhang (2014):
    rows clipped to radius :math:`R`, then a symmetric matrix whose upper triangle is
    i.i.d. Gaussian is added. The sensitivity of the upper triangle is
    :math:`\sqrt{2} R^2 / n` (module docstring).
    The result is symmetric but may have negative eigenvalues; see
    :func:`dp_covariance` for the PSD projection.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    epsilon, delta : float
        Privacy budget spent.
    radius : float
        Clipping radius around the origin.
    random_state : int, RandomState, Generator or None, default=None

    Returns
    -------
    ndarray of shape (n_features, n_features)

    See Also
    --------
    dp_covariance : DP mean and centred covariance.
    clip_rows : The clipping applied before the noise.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_second_moment
    >>> M = dp_second_moment(np.eye(2), epsilon=1.0, delta=1e-5, radius=1.0, random_state=0)
    >>> M.shape, bool(np.allclose(M, M.T))
    ((2, 2), True)
    """
    Xc = clip_rows(X, radius)
    n, d = Xc.shape
    # noise on a grid (dp._grid_noise): an entry is at most R^2; the upper triangle is released
    mu, bound = gaussian_dp_mu(epsilon, delta), radius**2
    sigma = grid_sigma(np.sqrt(2.0) * radius**2 / n, mu, bound, d * (d + 1) // 2)
    rng = check_generator(random_state)
    noisy = np.triu(noisy_on_grid(Xc.T @ Xc / n, sigma, rng, bound / sigma))
    return noisy + np.triu(noisy, 1).T


@validate_params(
    {
        "X": ["array-like"],
        "epsilon": [POSITIVE],
        "delta": [OPEN_UNIT],
        "radius": [POSITIVE],
        "mean_fraction": [OPEN_UNIT],
        "min_eigenvalue": [NONNEGATIVE],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_covariance(
    X,
    *,
    epsilon,
    delta,
    radius,
    mean_fraction=0.5,
    min_eigenvalue=0.0,
    random_state=None,
):
    r"""(epsilon, delta)-DP mean and covariance of rows clipped to radius R.

    Spends ``mean_fraction`` of (epsilon, delta) on :func:`dp_mean` and the rest
    on :func:`dp_second_moment`; by basic composition the pair is
    (epsilon, delta)-DP. The covariance :math:`M - \mu \mu^T` is projected onto the
    positive semi-definite cone (eigenvalues clipped at ``min_eigenvalue``),
    which is post-processing.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    epsilon, delta : float
        Total budget.
    radius : float
        Clipping radius around the origin (centre the data roughly with public
        knowledge first, or the clipping removes signal).
    mean_fraction : float, default=0.5
        Share of the budget spent on the mean.
    min_eigenvalue : float, default=0.0
        Floor of the eigenvalues of the returned covariance.
    random_state : int, RandomState, Generator or None, default=None

    Returns
    -------
    mean : ndarray of shape (n_features,)
    cov : ndarray of shape (n_features, n_features)

    See Also
    --------
    dp_mean : DP mean alone.
    dp_second_moment : DP uncentred second moment.
    clip_rows : The clipping applied before the noise.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_covariance
    >>> X = np.random.default_rng(0).normal(size=(20000, 2))
    >>> mean, cov = dp_covariance(X, epsilon=2.0, delta=1e-5, radius=5.0, random_state=0)
    >>> bool(np.allclose(cov, np.eye(2), atol=0.1))
    True
    """
    rng = check_generator(random_state)
    mean = dp_mean(
        X,
        epsilon=mean_fraction * epsilon,
        delta=mean_fraction * delta,
        radius=radius,
        random_state=rng,
    )
    second = dp_second_moment(
        X,
        epsilon=(1 - mean_fraction) * epsilon,
        delta=(1 - mean_fraction) * delta,
        radius=radius,
        random_state=rng,
    )
    cov = second - np.outer(mean, mean)
    w, v = np.linalg.eigh(0.5 * (cov + cov.T))
    cov = (v * np.maximum(w, min_eigenvalue)) @ v.T
    return mean, 0.5 * (cov + cov.T)


def compose_basic(*budgets):
    r"""Basic (sequential) composition: :math:`(\sum_i \epsilon_i, \sum_i \delta_i)`.

    Parameters
    ----------
    *budgets : tuple of (float, float)
        The (epsilon, delta) of each mechanism run on the same data.

    Returns
    -------
    (float, float)

    See Also
    --------
    GaussianAccountant : Exact, tighter composition of Gaussian mechanisms.

    Examples
    --------
    >>> from sklearn_privacy.dp import compose_basic
    >>> compose_basic((1.0, 1e-6), (0.5, 1e-6))
    (1.5, 2e-06)
    """
    eps = 0.0
    delta = 0.0
    for budget in budgets:
        e, d = budget
        if not (np.isfinite(e) or e == np.inf) or e < 0 or not 0 <= d <= 1:
            raise ValueError(
                f"each budget must be (epsilon >= 0, 0 <= delta <= 1), got {budget!r}."
            )
        eps += float(e)
        delta += float(d)
    return eps, min(delta, 1.0)


@validate_params(
    {
        "X": ["array-like"],
        "quantile": [Interval(Real, 0, 1, closed="right")],
        "epsilon": [POSITIVE],
        "delta": [OPEN_UNIT],
        "center": [None, "array-like"],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def dp_norm_quantile(X, quantile=0.95, *, epsilon, delta, center=None, random_state=None):
    r"""(epsilon, delta)-DP radius that holds about ``quantile`` of the rows of ``X``.

    The histogram of the row norms on the powers of two (every float64 scale,
    no range to give) is released by one Gaussian mechanism of sensitivity
    :math:`\sqrt{2}` under replace-one neighbours; bins that do not clear the noise
    of an empty bin are dropped, and the radius is where the remaining counts
    reach ``quantile``, interpolated inside its bin (see
    :mod:`sklearn_privacy.dp._radius`). Use it as a clipping radius that is
    not read from the private rows.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    quantile : float, default=0.95
        Share of the rows the radius should hold, in (0, 1].
    epsilon, delta : float
        Privacy budget spent.
    center : array-like of shape (n_features,), default=None
        Centre of the balls (the origin by default); must not depend on X
        unless it was itself released privately.
    random_state : int, RandomState, Generator or None, default=None

    Returns
    -------
    float
        The quantile of the rows whose bins clear the noise, interpolated
        log-linearly inside its bin (so within a factor 2 of it).

    Raises
    ------
    ValueError
        When no bin clears the noise: too few rows for this budget.

    See Also
    --------
    clip_rows : Clip rows to the radius found here.
    dp_mean : DP mean of rows clipped to a radius.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.dp import dp_norm_quantile
    >>> X = np.random.default_rng(0).normal(size=(10000, 2))
    >>> r = dp_norm_quantile(X, 0.95, epsilon=1.0, delta=1e-6, random_state=0)
    >>> round(r, 2), round(float(np.quantile(np.linalg.norm(X, axis=1), 0.95)), 2)
    (3.09, 2.45)
    >>> r = dp_norm_quantile(1e-40 * X, 0.95, epsilon=1.0, delta=1e-6, random_state=0)
    >>> round(r * 1e40, 2)  # any scale
    3.04
    """
    X = check_array(X, dtype=float)
    if center is not None:
        X = X - np.asarray(center, dtype=float)
    n = X.shape[0]  # a count is at most n (noise on a grid, dp._grid_noise)
    sigma = grid_sigma(HISTOGRAM_SENSITIVITY, gaussian_dp_mu(epsilon, delta), n, HISTOGRAM_CHANGES)
    radius = private_norm_quantile(
        log2_histogram(row_norms_safe(X)),
        quantile,
        sigma,
        check_generator(random_state),
        interpolate=True,
        bound=n,
    )
    if radius is None:
        raise ValueError(
            f"No bin of the private norm histogram clears its noise: {X.shape[0]} rows are too "
            f"few for epsilon={epsilon!r} (about {rows_needed(sigma):.0f} are needed)."
        )
    if radius > LARGEST_RADIUS:
        raise ValueError(
            f"The private {quantile!r} quantile of the row norms lies beyond {LARGEST_RADIUS:.3g}: "
            + BEYOND_LARGEST
            + "."
        )
    return radius


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

    @property
    def n_units(self):
        """The total weight in units of ``unit`` (see :func:`check_n_units`)."""
        return check_n_units(self.total_weight, self.unit)

    def norm_histogram(self, center=None):
        """:func:`~sklearn_privacy.dp._radius.log2_histogram` of ``||Z - center||``, in units."""
        Z = self.Z if center is None else self.Z - center
        return log2_histogram(row_norms_safe(Z), self._weights / self.unit)

    def clipped_mean(self, radius, center=None):
        """Weighted mean of the rows minus ``center`` clipped to the ball of ``radius``."""
        center = None if center is None else np.asarray(center, dtype=float)
        clipped = _clip_to_ball(self.Z, float(radius), center)
        return self._relative @ clipped / self._relative.sum()

    def clipped_second_moment(self, center, radius):
        """Weighted mean of ``c c^T`` over the rows minus ``center`` clipped to ``radius``."""
        Zc = _clip_to_ball(self.Z, float(radius), np.asarray(center, dtype=float))
        return (Zc.T * self._relative) @ Zc / self._relative.sum()


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
