"""The privacy-mapping problem (calmon2012) that every convex solver shares.

:class:`ConvexProblem` (the data and its marginals, built once), checks, reductions before
solving, clean-ups of a solver's mapping, :class:`ConvexSolverError`, and the solvers' output
at ``verbose``: the lines of :func:`_say` (stdout) and the progress bars of :func:`_bar`.
"""

import numpy as np

from sklearn_privacy.discrete._compiled import pick_kernels
from sklearn_privacy.discrete._convex import _kernels_numpy
from sklearn_privacy.discrete._convex._first_order import (
    SERIAL,
    DistortionLevels,
    budget_projection,
    project_levels,
)
from sklearn_privacy.information import entropy
from sklearn_privacy.utils import progress

_TINY = 1e-300
# Mapping entries from which the first-order passes run on the compiled kernels, where
# numba is installed: loading them takes half a second to a second, which the average
# leakage's path saves from about a million entries (1024 symbols; Adult's 2142 are 4.6
# million) and the maximum leakage's, whose smoothing makes about 1400 projections, from
# about 2^17 (362 symbols; at 500, 3 of 31 s).
_COMPILED_ENTRIES = {"average": 2**20, "maximum": 2**17}
# Least seconds between two redraws of a solver's progress bar.
_REFRESH_S = 0.25


class ConvexSolverError(RuntimeError):
    """A convex solver failed (or was inaccurate) on a privacy-mapping program.

    See Also
    --------
    ConvexPrivacyMapping : The estimator whose ``fit`` can raise it.
    min_average_leakage_mapping : One of the programs that raise it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import (
    ...     ConvexSolverError, min_average_leakage_mapping)
    >>> joint = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> hamming = 1 - np.eye(3)
    >>> try:  # two SCS iterations cannot reach an accurate optimum
    ...     min_average_leakage_mapping(
    ...         joint, hamming, 0.2, solver="SCS",
    ...         solver_options={"max_iters": 2})
    ... except ConvexSolverError as exc:
    ...     print(str(exc).split(":")[0])
    No solver produced the average-leakage mapping
    >>> issubclass(ConvexSolverError, RuntimeError)
    True
    """


class ConvexProblem:
    """One privacy-mapping problem and what every first-order step reads of it, built once.

    Parameters
    ----------
    joint : ndarray of shape (n_s, n_y)
        ``P(S, Y)`` (merged by :func:`_sufficient_joint`).
    distortion : ndarray of shape (n_y, n_u)
    budget : float
    objective : {"average", "maximum"}, default="average"
        The leakage the first-order path minimises: from which size its passes
        are worth the compiled kernels.

    Attributes
    ----------
    p_y : ndarray of shape (n_y,)
    h_s : float
        ``H(S)``.
    log_prior : ndarray of shape (n_s, 1)
        ``log P(S)``: the posterior given to an output of no mass.
    p_s_given_y : ndarray of shape (n_y, n_s)
        ``P(S | Y)``, C-contiguous (the products with it are the inner loops).
    levels : DistortionLevels or None
        The levels of ``d`` when it has few distinct values.
    distortion_sq : ndarray or None
        ``d * d`` for the projection of a ``d`` of many values (None with levels).
    threads : RowThreads
        Threads for the row blocks of the passes (none unless a loop sets them).
    kernels : module
        The passes over row blocks, picked here once: the compiled
        :mod:`._kernels` on large mappings with levels where numba is installed
        (:func:`~.._compiled.pick_kernels`), else :mod:`._kernels_numpy`; its
        ``levels`` hold the same.
    """

    def __init__(self, joint, distortion, budget, objective="average"):
        self.joint, self.distortion, self.budget = joint, distortion, budget
        self.p_y = joint.sum(axis=0)
        p_s = joint.sum(axis=1)
        self.h_s = _entropy_of_s(joint)
        self.log_prior = np.log(np.maximum(p_s / p_s.sum(), _TINY))[:, None]
        self.p_s_given_y = np.ascontiguousarray((joint / np.maximum(self.p_y, _TINY)).T)
        self.levels = DistortionLevels.of(distortion)
        self.distortion_sq = None if self.levels is not None else distortion * distortion
        self._scratch = None
        self.threads = SERIAL
        self.kernels = pick_kernels(
            "_convex._kernels",
            _kernels_numpy,
            worth_it=self.levels is not None and distortion.size >= _COMPILED_ENTRIES[objective],
        )
        if self.levels is not None:
            self.levels.kernels = self.kernels

    @property
    def scratch(self):
        """A work array of the mapping's shape, made once and shared by the steps."""
        if self._scratch is None:
            self._scratch = np.empty(self.distortion.shape)
        return self._scratch

    def log_posterior(self, J, slack=0.0):
        """``log P(S | U)`` of the release ``J = joint @ Q``, less ``slack``.

        An output of no mass gets the prior: any posterior keeps the dual bounds
        valid. ``slack`` keeps a cut below Gibbs' bound despite rounding.
        """
        p_u = J.sum(axis=0)
        log_post = np.log(np.maximum(J, _TINY)) - np.log(np.maximum(p_u, _TINY))
        empty = p_u <= _TINY
        if empty.any():
            log_post[:, empty] = self.log_prior
        if slack:
            log_post -= slack
        return log_post

    def leakage(self, J):
        """``I(S; U) = H(S) - H(S | U)`` of the release ``J``, and its ``log P(S | U)``."""
        log_post = self.log_posterior(J)
        return self.h_s + float((J * log_post).sum()), log_post

    def project(self, logits, lam, *, budget=None, out=None, by_cells=False):
        """KL projection of ``softmax(logits)`` onto the budget: ``(Q, lam)``.

        Through the level sums when ``d`` has few values (``by_cells``: see
        :func:`~._first_order.project_levels`), else by the dense Newton search.
        ``budget`` defaults to the problem's; ``out`` receives ``Q`` when given.
        """
        budget = self.budget if budget is None else budget
        if self.levels is not None:
            return project_levels(
                logits, self.levels, self.p_y, budget, lam, out=out, by_cells=by_cells
            )
        Q, lam = budget_projection(
            logits, self.distortion, self.p_y, budget, lam, distortion_sq=self.distortion_sq
        )
        if out is None:
            return Q, lam
        np.copyto(out, Q)
        return out, lam


def _check_problem(joint, distortion, max_distortion=None):
    """``(joint, distortion)`` as float arrays, or a ``ValueError`` naming the parameter.

    With ``max_distortion``, also checks that some mapping meets the budget.
    """
    joint = np.asarray(joint, dtype=float)
    if joint.ndim != 2:
        raise ValueError(f"joint must be a 2-D array P(S, Y), got shape {joint.shape}.")
    if not np.all(np.isfinite(joint)) or np.any(joint < 0):
        raise ValueError("joint must hold finite probabilities >= 0.")
    total = joint.sum()
    if abs(total - 1.0) > 1e-8 * max(1, joint.size):
        raise ValueError(f"joint must sum to 1, it sums to {total:.12g}.")
    if joint.shape[0] < 2:
        raise ValueError("joint must have at least two rows (values of S).")
    distortion = np.asarray(distortion, dtype=float)
    if distortion.ndim != 2 or distortion.shape[0] != joint.shape[1]:
        raise ValueError(
            f"distortion must be a matrix of shape (n_y, n_u) = ({joint.shape[1]}, n_u), one "
            f"row per value of Y; got shape {distortion.shape}."
        )
    if distortion.shape[1] < 1:
        raise ValueError("distortion has no columns: the output alphabet is empty.")
    if not np.all(np.isfinite(distortion)):
        raise ValueError("distortion contains NaN or infinite values.")
    if np.any(distortion < 0):
        raise ValueError(
            f"distortion has negative entries (smallest {distortion.min():.3g}); a distortion "
            "d(y, u) must be >= 0."
        )
    if max_distortion is not None:
        if not np.isfinite(max_distortion) or max_distortion < 0:
            raise ValueError(f"max_distortion must be a finite number >= 0, got {max_distortion}.")
        least = _least_distortion(joint, distortion)
        if max_distortion < least - 1e-12:
            raise ValueError(
                f"max_distortion={max_distortion:.6g} is below the least achievable expected "
                f"distortion {least:.6g} (every y sent to its closest output): no mapping meets "
                "it. Raise max_distortion."
            )
    return joint, distortion


def _least_distortion(joint, distortion):
    """``sum_y P(y) min_u d(y, u)``, the least expected distortion of any mapping.

    Every y sent to its closest output; a lesser budget is infeasible. The body
    of :func:`~sklearn_privacy.discrete.min_achievable_distortion`, here so that
    :func:`_check_problem` needs nothing from the public layer.
    """
    joint = np.asarray(joint, dtype=float)
    distortion = np.asarray(distortion, dtype=float)
    return float(joint.sum(axis=0) @ distortion.min(axis=1))


def _closest_mapping(distortion):
    """Deterministic mapping of each y to its closest output (first on ties)."""
    Q = np.zeros(distortion.shape)
    Q[np.arange(distortion.shape[0]), np.argmin(distortion, axis=1)] = 1.0
    return Q


def _forced_mapping(distortion, p_y, budget):
    """The only feasible mapping when the budget is the least achievable distortion, else None.

    At ``budget == sum_y P(y) min_u d(y, u)`` every row of positive mass must go
    to its closest outputs; when each such row has a single closest output the
    feasible set is one deterministic mapping (the first-order path would spend
    its whole ``max_iter`` on that degenerate simplex).
    """
    least = float(p_y @ distortion.min(axis=1))
    if budget > least + 1e-12 * max(1.0, least):
        return None
    rows = p_y > 0
    closest = distortion[rows] == distortion[rows].min(axis=1, keepdims=True)
    return _closest_mapping(distortion) if np.all(closest.sum(axis=1) == 1) else None


def _clean_mapping(Q, p_y, distortion, budget):
    """Clip and renormalise a solver's mapping, then restore ``E[d] <= budget`` exactly.

    Solvers meet the constraints to their tolerance; mixing with the closest
    mapping by the least weight that meets the budget moves the objective by
    the same order (the objective is continuous in ``Q``).
    """
    # In place on one copy: a fresh array per step costs more in page faults than
    # the arithmetic on a large alphabet.
    Q = np.array(Q, dtype=float)
    np.nan_to_num(Q, copy=False)
    np.maximum(Q, 0.0, out=Q)
    sums = Q.sum(axis=1)
    empty = sums <= 0
    Q /= np.where(empty, 1.0, sums)[:, None]
    if empty.any():
        Q[empty] = 1.0 / Q.shape[1]
    if budget is not None:
        expected = _expected_distortion(Q, p_y, distortion)
        if expected > budget:
            closest = np.argmin(distortion, axis=1)
            rows = np.arange(Q.shape[0])
            least = float(p_y @ distortion[rows, closest])  # that of _closest_mapping
            t = min(1.0, (expected - budget) / max(expected - least, _TINY) * (1 + 1e-12))
            Q *= 1 - t
            Q[rows, closest] += t
    return Q


def _prune_outputs(Q, p_y, min_mass=1e-6):
    """Drop outputs with ``P(U=u) < min_mass``, giving their mass to the row's other outputs.

    The perspective constraint (32) scales with ``p_U(u)``, so a solver may
    leave outputs of vanishing probability with any posterior; the maximum
    leakage counts every output of positive probability, so they must go.
    """
    rare = (p_y @ Q) < min_mass
    if not rare.any() or rare.all():
        return Q
    kept = np.where(rare[None, :], 0.0, Q)
    sums = kept.sum(axis=1, keepdims=True)
    return np.where(sums > 0, kept / np.where(sums > 0, sums, 1.0), Q)


def _sufficient_joint(joint):
    """Merge the values of S whose rows ``P(S=s, Y=.)`` are proportional; drop empty rows.

    U depends on S only through Y, so S enters both leakages only through
    ``P(Y | S=s)``: merging values of S with the same conditional leaves
    ``I(S; U)`` and every ``H(S) - H(S | U=u)`` unchanged, and shrinks the
    programs (the counting query's ``2^n`` databases become ``n + 1`` rows).
    """
    mass = joint.sum(axis=1)
    rows = joint[mass > 0]
    keys = np.round(rows / mass[mass > 0, None], 12)
    _, group = np.unique(keys, axis=0, return_inverse=True)
    merged = np.zeros((group.max() + 1, joint.shape[1]))
    np.add.at(merged, group.ravel(), rows)
    return merged if merged.shape[0] >= 2 else joint


def _entropy_of_s(joint):
    """``H(S)`` of ``joint[s, y]``, renormalised (``_check_problem`` allows a sum off by 1e-8)."""
    p_s = joint.sum(axis=1)
    return entropy(p_s / p_s.sum())


def _expected_distortion(Q, p_y, distortion):
    """``E[d(Y, U)]`` of mapping ``Q``."""
    return float(p_y @ (Q * distortion).sum(axis=1))


def _say(verbose, message, *, level=1):
    """Print a message of the solvers on stdout when ``verbose >= level``.

    ``verbose`` has one meaning in the convex mapping (the functions of
    :mod:`._solvers` and ``ConvexPrivacyMapping``), that of the library's
    shared ``verbose`` entry. ``0``: silent. ``1`` (``level=1``): one line per
    stage here (which solver runs or ran, why one was abandoned, what the
    first-order path or the line search took) and the live progress bars of
    the long loops on stderr (:func:`_bar`). ``2`` (``level=2``): also the
    details of each stage: the first-order path every 10 iterations (average
    leakage) or at each smoothing level (maximum leakage). Every message goes
    through here, by ``tqdm.write``, which keeps a bar on the terminal intact.
    """
    if verbose >= level:
        from tqdm.auto import tqdm

        tqdm.write(f"[ConvexPrivacyMapping] {message}")


def _bar(verbose, total, desc, *, initial=0):
    """A progress bar of a solver's loop on stderr when ``verbose >= 1``, else a disabled one.

    :func:`~sklearn_privacy.utils.progress` redrawn at most every
    ``_REFRESH_S`` seconds: ``bar.update()`` at every step costs a counter
    increment; the loops set their postfix (the duality gap, the bracket) only
    through :func:`_postfix`.
    """
    return progress(
        verbose=verbose, total=total, desc=desc, initial=initial, mininterval=_REFRESH_S
    )


def _postfix(bar, template, *args):
    """Show ``template.format(*args)`` after the bar at its next redraw (not formatted when
    the bar is disabled)."""
    if not bar.disable:
        bar.set_postfix_str(template.format(*args), refresh=False)


def _step(bar, template, *args):
    """One step of a loop of a few long steps (a line search): counted, and drawn now with
    its postfix ``template.format(*args)``, whatever the time since the last redraw."""
    _postfix(bar, template, *args)
    bar.update()
    if not bar.disable:
        bar.refresh()
