"""Gaussian noise on a grid: every published value is a function of an integer.

:func:`noisy_on_grid` and :func:`grid_integers` draw it; :func:`grid_step`,
:func:`grid_sensitivity`, :func:`grid_sigma` and :func:`mu_after_rounding` account for it.
Why and the proof: "Float-safe noise" in ``docs/design.md``.
"""

import math

import numpy as np

__all__ = [
    "GRID_BITS",
    "GRID_STEP",
    "grid_integers",
    "grid_sensitivity",
    "grid_sigma",
    "grid_step",
    "mu_after_rounding",
    "noisy_on_grid",
]

GRID_BITS = 20
GRID_STEP = 2.0**-GRID_BITS  # one noise standard deviation is 2^20 grid steps
# A snapped signal stays below 2^50 steps, so that q + Z (|Z| < 2^24 at the finest
# step: numpy's normal stays below 14 deviations) is an exact float64 integer.
_LARGEST_STEPS = 2.0**50


def grid_step(bound):
    """Grid step for a signal of at most ``bound`` noise deviations: a power of two.

    :data:`GRID_STEP` (2^-20), or the smallest coarser power of two that keeps
    ``bound / step`` below 2^50. It must be computed from public quantities only.

    Parameters
    ----------
    bound : float
        Public bound on ``|signal / sigma|`` in every coordinate, finite and >= 0.

    Returns
    -------
    float
    """
    bound = float(bound)
    if not (math.isfinite(bound) and bound >= 0):
        raise ValueError(
            f"The public bound on the signal is {bound!r} noise deviations: Gaussian noise on "
            "a grid needs a finite bound. Rescale the data by a public constant."
        )
    if bound <= _LARGEST_STEPS * GRID_STEP:
        return GRID_STEP
    # bound / 2^50 = m 2^e with m in [0.5, 1): 2^e is the power of two just above it
    return float(np.ldexp(1.0, np.frexp(bound / _LARGEST_STEPS)[1]))


def grid_sensitivity(sensitivity, sigma, bound, n_coordinates):
    """Sensitivity of the grid release, in the units of ``sensitivity``.

    ``sensitivity + sigma * gamma * sqrt(n_coordinates)`` with ``gamma =
    grid_step(bound)``; 0 when ``sensitivity`` is 0 (a signal that no row moves
    rounds to the same grid point for every data set).

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity of the noiseless signal.
    sigma : float
        Standard deviation of the noise, in the same units (1 for a whitened release).
    bound : float
        Public bound on ``|signal / sigma|``, as given to :func:`noisy_on_grid`.
    n_coordinates : int
        How many coordinates one person can change.

    Returns
    -------
    float
    """
    if sensitivity == 0:
        return 0.0
    return float(sensitivity + sigma * grid_step(bound) * np.sqrt(n_coordinates))


def grid_sigma(sensitivity, mu, bound, n_coordinates):
    """Noise standard deviation whose grid release is exactly ``mu``-GDP.

    ``sensitivity / (mu - gamma sqrt(n_coordinates))``: the continuous
    mechanism spends ``mu`` less the rounding's share. The step is that of the
    bound at the continuous calibration ``sensitivity / mu``, at least the step
    of the release's own bound (``bound / sigma``), so the release is
    ``mu``-GDP or slightly better.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity of the noiseless signal, > 0.
    mu : float
        GDP budget of the release, > 0.
    bound : float
        Public bound on ``|signal|`` in every coordinate, in the units of ``sensitivity``.
    n_coordinates : int
        How many coordinates one person can change.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When ``mu`` does not exceed the rounding's ``gamma sqrt(n_coordinates)``
        (``mu`` below about 1e-6: epsilon of order 1e-5).
    """
    return float(sensitivity / mu_after_rounding(mu, bound * mu / sensitivity, n_coordinates))


def mu_after_rounding(mu, scaled_bound, n_coordinates, *, remedy="Raise epsilon (or fit_epsilon)."):
    """The budget ``mu`` less the rounding's share ``gamma sqrt(n_coordinates)``: the check of
    every grid release.

    ``gamma = grid_step(scaled_bound)``, ``scaled_bound`` the public bound on the signal
    in units of the noise standard deviation (``bound * mu / sensitivity`` at the
    continuous calibration).

    Parameters
    ----------
    mu : float
        GDP budget of the release.
    scaled_bound : float
        Bound on ``|signal| / sigma`` that sets the grid's step.
    n_coordinates : int
        How many coordinates one person can change.
    remedy : str, default="Raise epsilon (or fit_epsilon)."
        The end of the error: which budget to raise.

    Returns
    -------
    float
        ``mu - gamma sqrt(n_coordinates)``, > 0.

    Raises
    ------
    ValueError
        When the rounding takes the whole budget.
    """
    rounding = grid_step(scaled_bound) * np.sqrt(n_coordinates)
    if not mu > rounding:
        raise ValueError(
            f"A Gaussian mechanism of budget mu={mu:.3g} cannot pay for the rounding of its "
            f"noise to the float-safe grid (mu {rounding:.3g} for {n_coordinates} "
            f"coordinates): epsilon is too small. {remedy}"
        )
    return float(mu - rounding)


def noisy_on_grid(signal, sigma, rng, bound):
    """``signal`` plus ``N(0, sigma^2)`` noise, published on the grid ``gamma * sigma``.

    Every value returned is ``N * gamma * sigma`` for an integer ``N`` (exact
    in float64): the signal snapped to the grid plus Gaussian noise rounded to
    it, ``N = rint(signal / (gamma sigma)) + rint(G / gamma)`` with
    ``gamma = grid_step(bound)`` (why: "Float-safe noise" in ``docs/design.md``). The noise is
    one ``rng.standard_normal(signal.shape)``, drawn as a float release would
    draw it.

    Parameters
    ----------
    signal : array-like
        The noiseless values.
    sigma : float or array-like
        Noise standard deviation, broadcasting against ``signal`` (one per column).
    rng : numpy.random.Generator
    bound : float
        Public bound on ``|signal / sigma|`` (noise deviations). Values beyond it
        (rounding) are clamped to it, which moves no two signals apart.

    Returns
    -------
    ndarray of the shape of ``signal``

    Raises
    ------
    ValueError
        When the signal is not finite: no grid holds it.
    """
    signal = np.asarray(signal, dtype=float)
    scale = np.asarray(sigma, dtype=float) * grid_step(bound)
    N = grid_integers(signal / scale, rng, bound)
    N *= scale  # N gamma sigma: N gamma is exact, so the value is a function of N alone
    return N


def grid_integers(steps, rng, bound):
    """The integers ``N = rint(steps) + rint(G / gamma)`` of :func:`noisy_on_grid`.

    For a caller that folds the division by ``sigma * gamma`` (and the
    multiplication back) into its own linear maps. ``steps`` is the signal in
    grid steps, ``signal / (sigma * gamma)`` computed any deterministic way; a
    float array, overwritten with ``N``. ``gamma = grid_step(bound)``, ``G =
    rng.standard_normal(steps.shape)``. Values of ``steps`` beyond the bound
    (``bound / gamma``) are clamped to it.

    Parameters
    ----------
    steps : ndarray of float64
        The signal in grid steps (overwritten).
    rng : numpy.random.Generator
    bound : float
        Public bound on ``|signal / sigma|`` (noise deviations).

    Returns
    -------
    ndarray
        ``steps``, holding the integers ``N`` (exact float64 integers below 2^51).

    Raises
    ------
    ValueError
        When the signal is not finite: no grid holds it.
    """
    step = grid_step(bound)
    noise = rng.standard_normal(steps.shape)
    if not math.isfinite(steps.sum()):
        raise ValueError(
            "The signal to release holds values that are not finite (or far beyond the "
            "public bound on it): no noise grid holds them."
        )
    limit = float(math.floor(float(bound) / step))
    np.minimum(steps, limit, out=steps)
    np.maximum(steps, -limit, out=steps)
    np.rint(steps, out=steps)  # q: the signal snapped to the grid
    noise *= 1.0 / step  # exact: a power of two
    np.rint(noise, out=noise)  # Z
    steps += noise  # exact: integers below 2^51
    return steps
