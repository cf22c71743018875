"""Optimal privacy mappings of privacy-statistical-inference-calmon2012 as convex programs.

Notation: ``joint[s, y] = P(S=s, Y=y)``, ``distortion[y, u] = d(y, u)``, and the
mapping ``Q[y, u] = P(U=u | Y=y)`` (rows on the simplex). The release joint is
``joint @ Q = P(S, U)``.

- Average leakage (Thm. 1): minimise ``I(S; U)`` subject to ``E[d(Y, U)] <= budget``.
  ``I(S; U) = sum_{s,u} J log(J / (p_S p_U))`` with ``J = joint @ Q`` and
  ``p_U = p_Y @ Q`` both affine in ``Q``: a sum of relative entropies of affine
  expressions, i.e. exponential cones (eq. 14-17 with ``p_{U|S}`` eliminated).
- Maximum leakage (Thm. 2): the minimum distortion subject to
  ``H(S | U=u) >= H(S) - eps`` for every ``u``, written as the perspective
  ``delta p_U(u) + sum_s J[s, u] log(J[s, u] / p_U(u)) <= 0`` with
  ``delta = H(S) - eps`` (eq. 32), inside a bisection over ``eps``.
- A first-order path for large alphabets: accelerated mirror descent on the
  rows of ``Q`` in the geometry ``h(Q) = sum_y p_Y(y) sum_u Q log Q``, in which
  ``I(S; U)`` is 1-smooth relative to ``h`` (joint convexity of the KL
  divergence), with the exact Bregman projection onto the budget (a Newton
  search on the Lagrange multiplier of the budget) and a duality-gap
  certificate that needs only the posteriors ``P(S | U)``.

Each cvxpy problem is built once with a :class:`cvxpy.Parameter` (the budget,
or ``delta``), so that a sweep re-solves without rebuilding.
"""

import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from sklearn_privacy.discrete._convex_first_order import (
    DistortionLevels,
    blocked_combination,
    dual_bound_levels,
    maximise_concave,
    mirror_step_levels,
    project_levels,
)
from sklearn_privacy.information import entropy, max_information_leakage, mutual_information

__all__ = [
    "ConvexSolverError",
    "leakage_distortion_curve",
    "min_achievable_distortion",
    "min_average_leakage_mapping",
    "min_maximum_leakage_mapping",
]

_TINY = 1e-300
# Largest n_y * n_u sent to the conic solvers under solver="auto": above, the
# interior-point and SCS solves take tens of seconds (measured in
# benchmarks/bench_convex_scaling.py) while the first-order path takes a second.
_AUTO_CONIC_MAX_SIZE = 120 * 120
_CONIC_SOLVERS = ("CLARABEL", "SCS")
_SCS_OPTIONS = {"eps_abs": 1e-8, "eps_rel": 1e-8, "max_iters": 200_000}


class ConvexSolverError(RuntimeError):
    """A convex solver failed (or was inaccurate) on a privacy-mapping program.

    See Also
    --------
    ConvexPrivacyMapping : The estimator whose ``fit`` can raise it.
    min_average_leakage_mapping : One of the programs that raise it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import ConvexSolverError, min_average_leakage_mapping
    >>> joint = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> hamming = 1 - np.eye(3)
    >>> try:  # two SCS iterations cannot reach an accurate optimum
    ...     min_average_leakage_mapping(
    ...         joint, hamming, 0.2, solver="SCS", solver_options={"max_iters": 2}
    ...     )
    ... except ConvexSolverError as exc:
    ...     print(str(exc).split(":")[0])
    No solver produced the average-leakage mapping
    >>> issubclass(ConvexSolverError, RuntimeError)
    True
    """


# --------------------------------------------------------------------------
# Checks and small helpers
# --------------------------------------------------------------------------


def _check_problem(joint, distortion, max_distortion=None):
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
        least = min_achievable_distortion(joint, distortion)
        if max_distortion < least - 1e-12:
            raise ValueError(
                f"max_distortion={max_distortion:.6g} is below the least achievable expected "
                f"distortion {least:.6g} (every y sent to its closest output): no mapping meets "
                "it. Raise max_distortion."
            )
    return joint, distortion


def min_achievable_distortion(joint, distortion):
    """Least expected distortion of any mapping: ``sum_y P(y) min_u d(y, u)``.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_y)
        Joint pmf ``P(S, Y)``.
    distortion : array-like of shape (n_y, n_u)
        Distortion matrix ``d(y, u) >= 0``.

    Returns
    -------
    float

    See Also
    --------
    distortion_matrix : A distortion between records.
    leakage_distortion_curve : Optimal leakage at budgets above this one.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import min_achievable_distortion
    >>> min_achievable_distortion(np.full((2, 2), 0.25), 1 - np.eye(2))
    0.0
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
    Q = np.clip(np.nan_to_num(np.asarray(Q, dtype=float)), 0.0, None)
    sums = Q.sum(axis=1, keepdims=True)
    Q = np.where(sums > 0, Q / np.where(sums > 0, sums, 1.0), 1.0 / Q.shape[1])
    if budget is not None:
        expected = float(p_y @ (Q * distortion).sum(axis=1))
        if expected > budget:
            Q0 = _closest_mapping(distortion)
            least = float(p_y @ (Q0 * distortion).sum(axis=1))
            t = min(1.0, (expected - budget) / max(expected - least, _TINY) * (1 + 1e-12))
            Q = (1 - t) * Q + t * Q0
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
    return float(p_y @ (Q * distortion).sum(axis=1))


def _say(verbose, message):
    if verbose:
        print(f"[ConvexPrivacyMapping] {message}")


# --------------------------------------------------------------------------
# cvxpy programs, built once
# --------------------------------------------------------------------------


class _AverageLeakageProgram:
    """Thm. 1 with the budget as a :class:`cvxpy.Parameter`."""

    def __init__(self, joint, distortion):
        import cvxpy as cp

        n_s, n_y = joint.shape
        n_u = distortion.shape[1]
        p_s, p_y = joint.sum(axis=1), joint.sum(axis=0)
        self.Q = cp.Variable((n_y, n_u), nonneg=True)
        self.budget = cp.Parameter(nonneg=True)
        J = joint @ self.Q
        p_u = p_y @ self.Q
        # p_S(s) p_U(u), affine in Q (eq. 14: p_{U|S} p_S log(p_{U|S} / p_U)).
        product = np.reshape(p_s, (n_s, 1)) @ cp.reshape(p_u, (1, n_u), order="C")
        objective = cp.sum(cp.rel_entr(J, product))
        constraints = [
            cp.sum(self.Q, axis=1) == 1,
            cp.sum(cp.multiply(p_y[:, None] * distortion, self.Q)) <= self.budget,  # eq. 15
        ]
        self.problem = cp.Problem(cp.Minimize(objective), constraints)

    def solve(self, budget, solver, options):
        self.budget.value = float(budget)
        self.problem.solve(solver=solver, **options)
        return self.problem.status, self.Q.value


class _MaxLeakageProgram:
    """Thm. 2: least distortion with ``H(S | U=u) >= delta`` for all u (eq. 29-32)."""

    def __init__(self, joint, distortion):
        import cvxpy as cp

        n_s, n_y = joint.shape
        n_u = distortion.shape[1]
        p_y = joint.sum(axis=0)
        self.Q = cp.Variable((n_y, n_u), nonneg=True)
        self.delta = cp.Parameter(nonneg=True)
        J = joint @ self.Q
        p_u = p_y @ self.Q
        spread = np.ones((n_s, 1)) @ cp.reshape(p_u, (1, n_u), order="C")
        constraints = [
            cp.sum(self.Q, axis=1) == 1,
            # eq. 32: delta p_U(u) + sum_s J log(J / p_U) <= 0, i.e. H(S | U=u) >= delta.
            self.delta * p_u + cp.sum(cp.rel_entr(J, spread), axis=0) <= 0,
        ]
        objective = cp.sum(cp.multiply(p_y[:, None] * distortion, self.Q))
        self.problem = cp.Problem(cp.Minimize(objective), constraints)

    def solve(self, delta, solver, options):
        self.delta.value = float(delta)
        self.problem.solve(solver=solver, **options)
        return self.problem.status, self.Q.value


def _solver_chain(solver, size, *, first_order_ok):
    if solver == "auto":
        if size > _AUTO_CONIC_MAX_SIZE and first_order_ok:
            return ["first-order"]
        return [*_CONIC_SOLVERS, "first-order"] if first_order_ok else list(_CONIC_SOLVERS)
    return [solver]


def _conic_options(solver, solver_options):
    options = dict(_SCS_OPTIONS) if solver == "SCS" else {}
    options.update(solver_options or {})
    return options


def _run_conic(program, value, solver, solver_options):
    """Solve; return the raw mapping or raise :class:`ConvexSolverError`."""
    import cvxpy as cp

    options = _conic_options(solver, solver_options)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status, Q = program.solve(value, solver, options)
    except cp.error.SolverError as exc:
        raise ConvexSolverError(f"solver {solver} failed: {exc}") from exc
    if status != cp.OPTIMAL or Q is None:
        raise ConvexSolverError(f"solver {solver} returned status {status!r}")
    return Q


# --------------------------------------------------------------------------
# First-order path (Thm. 1)
# --------------------------------------------------------------------------


# exp(-600) ~ 1e-261: entries below it are zero for every purpose here, and
# keeping them out of the subnormal range keeps the matrix products fast.
_LOG_FLOOR = -600.0


def _softmax_rows(z):
    z = np.maximum(z - z.max(axis=1, keepdims=True), _LOG_FLOOR)
    Q = np.exp(z)
    Q /= Q.sum(axis=1, keepdims=True)
    return Q


def _budget_projection(logits, distortion, p_y, budget, lam, *, distortion_sq=None, rtol=1e-9):
    """KL projection of ``softmax(logits)`` onto ``E[d] <= budget``.

    The projection is ``softmax(logits - lam * d)`` with the least ``lam >= 0``
    that meets the budget; ``lam`` is found by safeguarded Newton steps
    (``dE/dlam = -sum_y p_y Var_{Q_y}(d)``) from the warm start ``lam``. The
    budget is met to ``rtol * budget``: the iterates need no more, and the
    returned mapping is made exactly feasible by :func:`_clean_mapping`.
    """
    if distortion_sq is None:
        distortion_sq = distortion * distortion
    lo, hi = 0.0, np.inf
    lam = max(float(lam), 0.0)
    for _ in range(100):
        Q = _softmax_rows(logits - lam * distortion if lam > 0 else logits)
        rows = np.einsum("ij,ij->i", Q, distortion)
        excess = float(p_y @ rows) - budget
        if (excess <= 0 and lam == 0) or abs(excess) <= rtol * budget:
            return Q, lam
        if excess > 0:
            lo = lam
        else:
            hi = lam
        slope = float(p_y @ (np.einsum("ij,ij->i", Q, distortion_sq) - rows**2))
        new = lam + excess / max(slope, _TINY)
        if not lo < new < hi:
            new = 0.5 * (lo + hi) if np.isfinite(hi) else max(2.0 * lam, lam + 1.0)
        lam = new
    return Q, lam


def _dual_bound(G, distortion, p_y, budget, h_s, lam_hint):
    """Lagrange dual bound on the optimum from the posteriors behind ``G``.

    For any posteriors ``p(s|u)`` (``G[y, u] = sum_s p(s|y) log p(s|u)``) and
    ``lam >= 0``, ``OPT >= H(S) + sum_y p_y min_u [G + lam d] - lam budget``
    (weak duality: ``-H(S|U) = max_r sum J log r``). The bound is concave and
    piecewise linear in ``lam``: maximised by bisection on its slope.
    """
    rows = np.arange(G.shape[0])

    def value_slope(lam):
        A = G + lam * distortion
        best = A.argmin(axis=1)
        return (
            h_s + float(p_y @ A[rows, best]) - lam * budget,
            float(p_y @ distortion[rows, best]) - budget,
        )

    return maximise_concave(value_slope, max(lam_hint, 1e-3), n_bracket=60, n_bisect=40, rtol=0.0)


def _first_order_average(joint, distortion, budget, **kwargs):
    # The products here have an inner dimension of n_s (a handful): a second BLAS
    # thread only adds synchronisation, up to 20 times slower on a loaded machine.
    with threadpool_limits(limits=1, user_api="blas"):
        return _first_order_average_loop(joint, distortion, budget, **kwargs)


def _first_order_average_loop(
    joint, distortion, budget, *, tol=1e-7, max_iter=20_000, init=None, verbose=0
):
    """Accelerated mirror descent for Thm. 1; returns ``(Q, objective, certified_gap, n_iter)``.

    In the geometry ``h(Q) = sum_y p_Y(y) sum_u Q log Q``, ``I(S; U)`` is
    1-smooth relative to ``h`` (its Bregman divergence is ``sum_u p'_U
    KL(p'(S|u) || p(S|u)) <= KL(P'_{YU} || P_{YU})``). The iteration is the
    accelerated Bregman proximal gradient of Hanzely, Richtarik and Xiao
    (2021) with triangle-scaling exponent 2 and a restart whenever the
    objective rises; each step is a KL projection onto the budget.

    The iterates are kept factored (:mod:`._convex_first_order`): the mirror
    iterate is ``softmax(M - P(S|Y)^T A - lam d)`` (the gradient has rank
    ``n_s``), the releases ``joint @ Q`` of the sequences are updated affinely,
    and when ``d`` has few distinct values the projection and the dual bound
    work on per-row level sums and minima.

    The duality-gap certificate is evaluated at both sequences: the averaged
    one gives smooth posteriors and so a tight bound, the mirror-step one
    usually the better objective. The iteration stops when the best objective
    minus the best bound is below ``tol``, or when the geometric extrapolation
    of the last decreases says the objective is within ``tol`` of its limit
    and the certified gap is below 1e-5 nats.
    """
    p_y = joint.sum(axis=0)
    h_s = _entropy_of_s(joint)
    p_s_given_y = np.ascontiguousarray((joint / np.maximum(p_y, _TINY)).T)
    levels = DistortionLevels.of(distortion)
    distortion_sq = None if levels is not None else distortion * distortion
    buffer = np.empty(distortion.shape)

    def value_and_log_posterior(J):
        # I(S; U) = H(S) - H(S | U), and log P(S | U) for the gradient.
        log_post = np.log(np.maximum(J, _TINY)) - np.log(np.maximum(J.sum(axis=0), _TINY))
        return h_s + float((J * log_post).sum()), log_post

    def project(logits, lam, out=None):
        if levels is not None:
            return project_levels(logits, levels, p_y, budget, lam, out=out)
        Q, lam = _budget_projection(
            logits, distortion, p_y, budget, lam, distortion_sq=distortion_sq
        )
        if out is None:
            return Q, lam
        np.copyto(out, Q)
        return out, lam

    def bound(log_post, lam):
        if levels is not None:
            minima = levels.minima_of_product(p_s_given_y, log_post)
            return dual_bound_levels(minima, levels.values, p_y, budget, h_s)
        G = np.matmul(p_s_given_y, log_post, out=buffer)
        return _dual_bound(G, distortion, p_y, budget, h_s, lam)

    start = _closest_mapping(distortion) if init is None else np.asarray(init, dtype=float)
    x, lam = project(np.log(np.maximum(0.5 * start + 0.5 / distortion.shape[1], _TINY)), 0.0)
    # The mirror iterate z = softmax(base - P(S|Y)^T A - lam_total d): base holds
    # log z at the last (re)start, A the scaled log-posteriors since.
    base = np.log(np.maximum(x, _TINY))
    A = np.zeros((joint.shape[0], distortion.shape[1]))
    z, spare = x.copy(), np.empty_like(x)
    # With levels, the budget multipliers accumulated since the last (re)start
    # (z = softmax(base - P^T A - lam_total d)); otherwise folded into base.
    lam_total = 0.0
    J_x = joint @ x
    J_z = J_x.copy()
    f_x, _ = value_and_log_posterior(J_x)
    best_Q, best_value = x.copy(), f_x
    theta, best_lower, gap = 1.0, -np.inf, np.inf
    history = []
    check_every = 10
    started = time.perf_counter()
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        _, log_post_y = value_and_log_posterior((1.0 - theta) * J_x + theta * J_z)
        step = 1.0 / theta  # 1 / (theta^(gamma - 1) L) with gamma = 2, L = 1
        A_new = A + step * log_post_y
        if levels is not None:
            z_new, lam_z, J_z_new = mirror_step_levels(
                base,
                p_s_given_y,
                A_new,
                lam_total,
                levels,
                p_y,
                budget,
                lam * step,
                out=spare,
                joint=joint,
                scratch=buffer,
            )
        else:
            logits = np.matmul(p_s_given_y, -A_new, out=buffer)
            logits += base
            z_new, lam_z = project(logits, lam * step, spare)
            J_z_new = joint @ z_new
        lam = lam_z / step
        J_x_new = (1.0 - theta) * J_x + theta * J_z_new
        f_new, _ = value_and_log_posterior(J_x_new)
        if f_new > f_x:
            # Restart the momentum from the last (better) point.
            theta, J_z = 1.0, J_x.copy()
            np.copyto(z, x)
            np.log(np.maximum(x, _TINY, out=base), out=base)
            lam_total = 0.0
            A = np.zeros_like(A)
            continue
        blocked_combination(x, 1.0 - theta, z_new, theta, scratch=buffer)
        # z_new was written into the spare array; the old z becomes the spare.
        z, spare = z_new, z
        A, J_x, J_z, f_x = A_new, J_x_new, J_z_new, f_new
        if levels is not None:
            lam_total += lam_z
        elif lam_z > 0:
            base -= np.multiply(distortion, lam_z, out=buffer)
        theta = 0.5 * (np.sqrt(theta**4 + 4.0 * theta**2) - theta**2)
        if n_iter % check_every:
            continue
        f_z, log_post_z = value_and_log_posterior(J_z)
        _, log_post_x = value_and_log_posterior(J_x)
        for Q, value in ((x, f_x), (z, f_z)):
            if value < best_value:
                best_Q, best_value = Q.copy(), value
        best_lower = max(best_lower, bound(log_post_x, lam), bound(log_post_z, lam))
        gap = best_value - best_lower
        history.append(best_value)
        if verbose > 1:
            print(
                f"[ConvexPrivacyMapping] first-order iter {n_iter}: I(S;U)={best_value:.10g} "
                f"gap<={gap:.3g} ({time.perf_counter() - started:.2f}s)"
            )
        if gap <= tol:
            break
        if len(history) >= 3:
            d1, d2 = history[-3] - history[-2], history[-2] - history[-1]
            if 0 <= d2 < d1:
                rate = d2 / d1
                # Extrapolated distance below tol, and a certificate within 1e-5 nats.
                if d2 * rate / (1 - rate) < tol and gap <= 1e-5:
                    break
    # The certificate for the returned, exactly feasible mapping.
    Q = _clean_mapping(best_Q, p_y, distortion, budget)
    value, _ = value_and_log_posterior(joint @ Q)
    return Q, value, value - best_lower, n_iter


def _max_leakage_certificate(joint, distortion, budget, eps, mu, log_post):
    """Whether ``eps`` is certified below the optimal maximum leakage.

    For weights ``mu >= 0`` on the outputs and posteriors ``r`` (``log_post``),
    every mapping meeting ``H(S | U=u) >= H(S) - eps`` for all u and the budget
    has ``0 >= sum_u mu_u p_U(u) (delta - H(S | U=u)) >= sum_{y,u} p_y Q C`` with
    ``C[y, u] = mu_u (delta + sum_s p(s|y) log r(s|u))`` (Gibbs), whose least
    value over the budget is bounded below by the dual of that linear program,
    ``max_lam sum_y p_y min_u (C + lam d) - lam budget``. A positive bound
    proves ``eps`` infeasible.
    """
    p_y = joint.sum(axis=0)
    delta = _entropy_of_s(joint) - eps
    C = (joint / np.maximum(p_y, _TINY)).T @ (mu[None, :] * (log_post + delta))
    return _dual_bound(C, distortion, p_y, budget, 0.0, 1.0) > 0


def _first_order_maximum(joint, distortion, budget, *, tol=1e-7, max_iter=20_000, verbose=0):
    with threadpool_limits(limits=1, user_api="blas"):
        return _first_order_maximum_loop(
            joint, distortion, budget, tol=tol, max_iter=max_iter, verbose=verbose
        )


def _first_order_maximum_loop(joint, distortion, budget, *, tol=1e-7, max_iter=20_000, verbose=0):
    """Thm. 2 for large alphabets: a smoothed maximum, and a certified lower bound.

    ``F_t(Q) = sum_u p_U(u) exp(t L_u)`` with ``L_u = H(S) - H(S | U=u)`` is
    convex in ``Q`` (the perspective of the convex ``r -> exp(t (H(S) - H(r)))``),
    and ``(1/t) log F_t`` tends to the maximum leakage over the used outputs
    as ``t`` grows. Mirror steps on the rows of ``Q`` (backtracking on the
    step, each step a KL projection onto the budget) minimise it for
    ``t = 10, 30, ..., 1e4``, warm-started from the least-average-leakage
    mapping; the gradient divided by ``p_Y`` is
    ``P(S|Y)^T [w_u (1/t + log P(s|u) + H(S|U=u))]`` with ``w_u`` the
    normalised weights ``exp(t L_u) / F_t``.

    Upper end: the maximum leakage of the best mapping met (outputs below
    1e-6 pruned, budget checked). Lower end: the largest ``eps`` that
    :func:`_max_leakage_certificate` proves infeasible with the weights
    ``w_u`` (the multipliers of the perspective constraints at the smoothed
    optimum) and the mapping's posteriors, found by bisection after each
    ``t`` and the best kept: the weights of small ``t`` are spread over many
    outputs and often prove more than the peaked ones of large ``t``
    (500 symbols: 0.33 instead of 0.22, the upper end 0.491).

    The lower end is loose: the certificate linearises ``H(S | U=u)`` at the
    posteriors (Gibbs) with fixed weights, and a mapping may gain in that
    linearisation what it loses in leakage. The upper end is usually within
    1e-3 of the optimum (it settles to that as ``t`` grows), but only the
    bracket is certified. A Frank-Wolfe bound on the smoothed problem was
    tried and is useless here (its gap stays at 0.2-0.3 after 1500 mirror
    steps: entries of ``Q`` near 0 grow slowly under multiplicative steps).

    Returns
    -------
    Q : ndarray of shape (n_y, n_u)
    eps_hi : float
        The maximum leakage of ``Q`` (verified).
    eps_lo : float
        A certified lower bound on the optimum.
    n_iter : int
    """
    p_y = joint.sum(axis=0)
    h_s = _entropy_of_s(joint)
    p_s_given_y = np.ascontiguousarray((joint / np.maximum(p_y, _TINY)).T)
    levels = DistortionLevels.of(distortion)
    distortion_sq = None if levels is not None else distortion * distortion
    # Steps aim slightly inside the budget, so that pruning keeps the mapping within it.
    inner = budget - 1e-9 * max(1.0, float(distortion.max()))

    def project(logits, lam):
        if levels is not None:
            return project_levels(logits, levels, p_y, inner, lam)
        return _budget_projection(logits, distortion, p_y, inner, lam, distortion_sq=distortion_sq)

    def verified(Q, lam=0.0):
        Q = settle(Q, lam, 1e-6)
        if _expected_distortion(Q, p_y, distortion) > budget + 1e-9:
            return None, np.inf
        return Q, max_information_leakage(joint @ Q)

    def settle(Q, lam, min_mass=1e-9):
        """Outputs below ``min_mass`` leave for good (a mass at the floor would
        weigh ``exp(t L_u)`` as t grows); the budget is restored by projecting again."""
        dead = (p_y @ Q) < min_mass
        if not dead.any() or dead.all():
            return Q
        kept = np.where(dead[None, :], 0.0, Q)
        if np.any(kept.sum(axis=1) <= 0):
            return Q
        with np.errstate(divide="ignore"):
            kept, _ = project(np.log(kept), lam)
        kept[:, dead] = 0.0
        return kept / kept.sum(axis=1, keepdims=True)

    def smoothed(Q, t):
        """(1/t) log F_t, the log-weights log w_u, log P(S|U) and H(S|U=u)."""
        J = joint @ Q
        p_u = np.maximum(J.sum(axis=0), _TINY)
        log_post = np.log(np.maximum(J, _TINY)) - np.log(p_u)
        h_u = -(np.exp(log_post) * log_post).sum(axis=0)
        a = np.where(p_u > _TINY, np.log(p_u) + t * (h_s - h_u), -np.inf)
        top = a.max()
        log_f = top + np.log(np.exp(a - top).sum())
        return log_f / t, a - np.log(p_u) - log_f, log_post, h_u

    Q, _, _, n_iter = _first_order_average(
        joint, distortion, budget, tol=1e-6, max_iter=max(1, max_iter // 4)
    )
    Q_hi, hi = verified(Q)
    if Q_hi is None:
        Q_hi = _closest_mapping(distortion)
        hi = max_information_leakage(joint @ Q_hi)

    def certified_below(mu, log_post, hi):
        """Bisection for the largest eps that the weights ``mu`` prove infeasible."""
        lo, top = 0.0, hi
        if not _max_leakage_certificate(joint, distortion, budget, 0.0, mu, log_post):
            top = 0.0
        for _ in range(40):
            if top - lo <= max(tol, 1e-3 * (hi - lo) if hi - lo > 1e-4 else tol):
                break
            mid = 0.5 * (lo + top)
            if _max_leakage_certificate(joint, distortion, budget, mid, mu, log_post):
                lo = mid
            else:
                top = mid
        return lo

    lam, eta = 0.0, 1.0
    lo_smooth = 0.0
    log_w = log_post = None
    for t in (10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0):
        value, log_w, log_post, h_u = smoothed(Q, t)
        for _ in range(200):
            if n_iter >= max_iter:
                break
            n_iter += 1
            # Gradient of (1/t) log F_t divided by p_Y.
            W = np.exp(np.minimum(log_w, 600.0))[None, :] * (1.0 / t + log_post + h_u[None, :])
            G = p_s_given_y @ W
            with np.errstate(divide="ignore"):
                log_q = np.log(Q)
            while True:
                Q_new, lam_new = project(log_q - eta * G, lam)
                Q_new = settle(Q_new, lam_new)
                new = smoothed(Q_new, t)
                if new[0] < value or eta < 1e-12:
                    break
                eta *= 0.25
            improvement = value - new[0]
            if improvement <= 0:
                break
            Q, lam = Q_new, lam_new
            value, log_w, log_post, h_u = new
            eta *= 2.0
            if improvement <= 1e-10 * max(1.0, abs(value)):
                break
        Q_try, leak = verified(Q, lam)
        if leak < hi:
            Q_hi, hi = Q_try, leak
        lo_smooth = max(lo_smooth, certified_below(np.exp(log_w - log_w.max()), log_post, hi))
        if verbose > 1:
            print(
                f"[ConvexPrivacyMapping] smoothed max leakage t={t:g}: {value:.8g}, "
                f"best verified {hi:.8g}, certified >= {lo_smooth:.8g} ({n_iter} iterations)"
            )
        if n_iter >= max_iter:
            break
    return Q_hi, hi, min(lo_smooth, hi), n_iter


# --------------------------------------------------------------------------
# Public solvers
# --------------------------------------------------------------------------


def _result(joint, distortion, Q, solver, **extra):
    p_y = joint.sum(axis=0)
    release = joint @ Q
    release = release / release.sum()
    out = {
        "mapping": Q,
        "average_leakage": mutual_information(release),
        "maximum_leakage": max_information_leakage(release),
        "distortion": _expected_distortion(Q, p_y, distortion),
        "solver": solver,
    }
    out.update(extra)
    return out


def min_average_leakage_mapping(
    joint,
    distortion,
    max_distortion,
    *,
    solver="auto",
    solver_options=None,
    tol=1e-7,
    max_iter=20_000,
    verbose=0,
    _program=None,
):
    """Mapping ``P(U | Y)`` of least average leakage ``I(S; U)`` under a distortion budget.

    Solves Thm. 1 of privacy-statistical-inference-calmon2012: minimise
    ``I(S; U)`` over ``P(U | Y)`` subject to ``E[d(Y, U)] <= max_distortion``.

    Parameters
    ----------
    joint : array-like of shape (n_s, n_y)
        Joint pmf ``P(S, Y)``.
    distortion : array-like of shape (n_y, n_u)
        Distortion ``d(y, u) >= 0``.
    max_distortion : float
        Budget on the expected distortion; at least
        :func:`min_achievable_distortion`.
    solver : str, default="auto"
        ``"auto"`` tries Clarabel, then SCS, then the first-order path (large
        problems go to the first-order path directly); ``"first-order"``; or the
        name of any installed cvxpy solver that handles exponential cones, which
        is then the only one tried.
    solver_options : dict, default=None
        Keyword arguments for ``cvxpy.Problem.solve``.
    tol : float, default=1e-7
        Target accuracy (nats) of the first-order path.
    max_iter : int, default=20000
        Iteration limit of the first-order path.
    verbose : int, default=0
        Say which solver ran and why one was abandoned.

    Returns
    -------
    dict
        ``mapping`` (n_y, n_u), ``average_leakage`` and ``maximum_leakage``
        (nats), ``distortion``, ``solver`` (the one that produced the mapping),
        and for the first-order path ``gap`` (certified bound on the distance to
        the optimum) and ``n_iter``.

    Raises
    ------
    ConvexSolverError
        When every solver tried failed.

    See Also
    --------
    min_maximum_leakage_mapping : The same program for maximum leakage.
    leakage_distortion_curve : Optimal leakage at many budgets.
    ConvexPrivacyMapping : Estimator that fits this mapping to data.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import min_average_leakage_mapping
    >>> joint = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> result = min_average_leakage_mapping(joint, 1 - np.eye(2), 0.2)
    >>> round(result["distortion"], 6), round(result["average_leakage"], 4)
    (0.2, 0.0663)
    """
    joint, distortion = _check_problem(joint, distortion, max_distortion)
    p_y = joint.sum(axis=0)
    constant = p_y @ distortion
    if max_distortion >= constant.min():
        # A constant release meets the budget: I(S; U) = 0, the optimum, exactly.
        Q = np.zeros(distortion.shape)
        Q[:, int(np.argmin(constant))] = 1.0
        _say(verbose, "a constant release meets the budget: zero leakage.")
        return _result(joint, distortion, Q, "constant")
    forced = _forced_mapping(distortion, p_y, max_distortion)
    if forced is not None:
        _say(verbose, "the budget is the least achievable distortion: one feasible mapping.")
        return _result(joint, distortion, forced, "closest", gap=0.0)
    chain = _solver_chain(solver, distortion.size, first_order_ok=True)
    errors = []
    program = _program
    full_joint, joint = joint, _sufficient_joint(joint)
    for name in chain:
        if name == "first-order":
            started = time.perf_counter()
            Q, _, gap, n_iter = _first_order_average(
                joint, distortion, max_distortion, tol=tol, max_iter=max_iter, verbose=verbose
            )
            _say(
                verbose,
                f"first-order path: {n_iter} iterations in {time.perf_counter() - started:.2f}s, "
                f"certified gap {gap:.2e} nats.",
            )
            return _result(full_joint, distortion, Q, "first-order", gap=gap, n_iter=n_iter)
        if program is None:
            program = _AverageLeakageProgram(joint, distortion)
        try:
            Q = _run_conic(program, max_distortion, name, solver_options)
        except ConvexSolverError as exc:
            errors.append(str(exc))
            nxt = chain[chain.index(name) + 1] if name != chain[-1] else None
            _say(verbose, f"{exc}; " + (f"falling back to {nxt}." if nxt else "giving up."))
            continue
        _say(verbose, f"solved with {name}.")
        Q = _clean_mapping(Q, p_y, distortion, max_distortion)
        return _result(full_joint, distortion, Q, name)
    raise ConvexSolverError(
        "No solver produced the average-leakage mapping: " + "; ".join(errors) + ". Try "
        "solver='first-order', or another solver (solver='SCS', solver_options=...)."
    )


def min_maximum_leakage_mapping(
    joint,
    distortion,
    max_distortion,
    *,
    solver="auto",
    solver_options=None,
    tol=1e-7,
    max_iter=20_000,
    verbose=0,
    _program=None,
):
    """Mapping ``P(U | Y)`` of least maximum leakage under a distortion budget.

    Thm. 2 of privacy-statistical-inference-calmon2012: the least ``eps`` such
    that some mapping with ``H(S | U=u) >= H(S) - eps`` for every ``u`` has
    expected distortion ``<= max_distortion``, found by bisection over ``eps``;
    each step solves the convex least-distortion program (29)-(32). When a
    release independent of S meets the budget, the answer is exactly 0 (a
    linear program, solved by HiGHS's simplex). Large alphabets go to a
    first-order path: a smoothed maximum ``(1/t) log sum_u p_U(u) exp(t L_u)``
    (convex in the mapping) minimised by mirror descent for growing ``t``,
    with a certified lower bound from the Lagrangian of (32).

    Parameters
    ----------
    joint : array-like of shape (n_s, n_y)
        Joint pmf ``P(S, Y)``.
    distortion : array-like of shape (n_y, n_u)
        Distortion ``d(y, u) >= 0``.
    max_distortion : float
        Budget on the expected distortion; at least
        :func:`min_achievable_distortion`.
    solver : str, default="auto"
        ``"auto"`` tries Clarabel, then SCS (problems with ``n_y * n_u`` above
        14400 go to the first-order path); ``"first-order"``; or a cvxpy
        solver name.
    solver_options : dict, default=None
        Keyword arguments for ``cvxpy.Problem.solve``.
    tol : float, default=1e-7
        Width (nats) of the final bracket on ``eps``.
    max_iter : int, default=20000
        Iteration limit of the first-order path.
    verbose : int, default=0
        Say which solver ran (2: first-order progress).

    Returns
    -------
    dict
        As :func:`min_average_leakage_mapping`, plus ``epsilon``, the upper end
        of the final bracket (the mapping meets it); the first-order path adds
        ``gap``, the width of its certified bracket on the optimum, and
        ``n_iter``. That bracket is loose on large alphabets (500 symbols,
        Hamming: maximum leakage 0.491, certified only above 0.33): the
        returned leakage is that of the mapping, checked, and the optimum lies
        between ``epsilon - gap`` and ``epsilon``; the upper end settles as the
        smoothing sharpens and is usually close to the optimum, but only the
        bracket is proved.

    See Also
    --------
    min_average_leakage_mapping : Thm. 1, the average-leakage program.
    leakage_distortion_curve : the optimum at each budget of a sweep.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import min_maximum_leakage_mapping
    >>> joint = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> result = min_maximum_leakage_mapping(joint, 1 - np.eye(2), 0.0)
    >>> round(result["maximum_leakage"], 6)
    0.192745
    """
    joint, distortion = _check_problem(joint, distortion, max_distortion)
    p_y = joint.sum(axis=0)
    chain = _solver_chain(solver, distortion.size, first_order_ok=True)
    if chain[0] != "first-order":
        chain = [name for name in chain if name != "first-order"]
    full_joint, joint = joint, _sufficient_joint(joint)
    # H(S) of the merged S: eq. 32's H(S) - eps is stated for the S the program sees.
    h_s = _entropy_of_s(joint)
    program = _program
    if program is None and chain != ["first-order"]:
        program = _MaxLeakageProgram(joint, distortion)
    n_failed = 0

    def attempt(eps):
        """(mapping within the budget or None, its maximum leakage, solver name)."""
        nonlocal n_failed
        import cvxpy as cp

        for name in chain:
            options = _conic_options(name, solver_options)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    status, Q = program.solve(max(h_s - eps, 0.0), name, options)
            except cp.error.SolverError as exc:
                _say(verbose, f"solver {name} failed at eps={eps:.3g}: {exc}.")
                continue
            if Q is None:
                _say(verbose, f"solver {name} returned status {status!r} at eps={eps:.3g}.")
                continue
            Q = _prune_outputs(_clean_mapping(Q, p_y, distortion, None), p_y)
            ok_distortion = _expected_distortion(Q, p_y, distortion) <= max_distortion + 1e-9
            leak = max_information_leakage(joint @ Q) if ok_distortion else np.inf
            if leak <= eps + 1e-6 or status == cp.OPTIMAL:
                # Solved: verified, or at the optimum within the solver's accuracy
                # (or infeasible); another solver would not do better (SCS took
                # 32 s on 10 symbols for such steps, issue 11).
                return (Q if ok_distortion else None), leak, name
            _say(verbose, f"solver {name} returned status {status!r} at eps={eps:.3g}.")
        n_failed += 1
        return None, np.inf, None

    # eps = 0 (U independent of S) is a linear program, degenerate for the cones.
    Q_hi, used = _independent_release_mapping(joint, distortion, max_distortion), "HIGHS"
    if Q_hi is not None:
        _say(verbose, "a release independent of S meets the budget: eps = 0.")
        return _result(full_joint, distortion, Q_hi, used, epsilon=0.0, n_steps=0)
    forced = _forced_mapping(distortion, p_y, max_distortion)
    if forced is not None:
        _say(verbose, "the budget is the least achievable distortion: one feasible mapping.")
        return _result(full_joint, distortion, forced, "closest", gap=0.0, n_steps=0)
    if chain == ["first-order"]:
        started = time.perf_counter()
        Q_hi, hi, lo, n_iter = _first_order_maximum(
            joint, distortion, max_distortion, tol=tol, max_iter=max_iter, verbose=verbose
        )
        _say(
            verbose,
            f"first-order path: {n_iter} iterations in {time.perf_counter() - started:.2f}s, "
            f"maximum leakage in [{lo:.6g}, {hi:.6g}].",
        )
        return _result(
            full_joint, distortion, Q_hi, "first-order", epsilon=hi, gap=hi - lo, n_iter=n_iter
        )
    Q_hi, used = _closest_mapping(distortion), "closest"
    lo, hi = 0.0, max_information_leakage(joint @ Q_hi)
    best = hi
    n_steps = 0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        Q, leak, name = attempt(mid)
        n_steps += 1
        if Q is not None and leak < best:
            # Any mapping within the budget bounds the optimum by its own leakage.
            Q_hi, best, used = Q, leak, name
        if Q is not None:
            # The least distortion at this level is within the budget: eps* <= mid,
            # even when the solver's mapping leaks a little more than mid (its
            # accuracy). Taking such a level as too low sent the old search up to
            # 0.0517 where the optimum is 0.0456 (tests/discrete/test_convex_scale.py).
            hi = min(mid, best)
        else:
            lo = mid
            hi = min(hi, best)
    if n_failed:
        _say(verbose, f"{n_failed} line-search steps had no solution (taken as too low).")
    _say(verbose, f"line search over eps: {n_steps} convex programs with {used}.")
    return _result(
        full_joint, distortion, Q_hi, used, epsilon=hi, n_steps=n_steps, n_failed=n_failed
    )


def _independent_release_mapping(joint, distortion, max_distortion):
    """Least-distortion mapping with ``P(S | U=u) = P(S)`` for all u, if within budget.

    Independence is linear in ``Q``: ``sum_y (P(s, y) - P(s) P(y)) Q[y, u] = 0``
    for every ``(s, u)``, so this is a linear program, solved by HiGHS's
    simplex: a vertex is exact, whereas an interior-point solution leaves
    outputs of mass ~1e-9 with arbitrary posteriors, and the maximum leakage
    counts every output of positive mass (issue 11: the line search then ran
    23 steps and reported its tolerance, not 0, for every budget).
    """
    from scipy import sparse
    from scipy.optimize import linprog

    n_s, n_y = joint.shape
    n_u = distortion.shape[1]
    if n_y * n_u > _AUTO_CONIC_MAX_SIZE:
        return None
    p_s, p_y = joint.sum(axis=1), joint.sum(axis=0)
    # Variables Q[y, u] in row-major order.
    rows_sum = sparse.kron(sparse.eye(n_y), np.ones((1, n_u)))
    independence = sparse.kron(joint - np.outer(p_s, p_y), sparse.eye(n_u))
    A_eq = sparse.vstack([rows_sum, independence]).tocsr()
    b_eq = np.r_[np.ones(n_y), np.zeros(n_s * n_u)]
    cost = (p_y[:, None] * distortion).ravel()
    res = linprog(cost, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs-ds")
    if res.status != 0 or res.fun > max_distortion + 1e-9:
        return None
    Q = _prune_outputs(_clean_mapping(res.x.reshape(n_y, n_u), p_y, distortion, None), p_y)
    if (
        _expected_distortion(Q, p_y, distortion) <= max_distortion + 1e-9
        and max_information_leakage(joint @ Q) <= 1e-9
    ):
        return _clean_mapping(Q, p_y, distortion, max_distortion)
    return None


def leakage_distortion_curve(
    joint,
    distortion,
    budgets,
    *,
    leakage="average",
    solver="auto",
    solver_options=None,
    tol=1e-7,
    verbose=0,
):
    """Optimal leakage at each budget, re-solving one cvxpy problem built once.

    Parameters
    ----------
    joint, distortion
        As in :func:`min_average_leakage_mapping`.
    budgets : array-like of float
        Distortion budgets, each at least :func:`min_achievable_distortion`.
    leakage : {"average", "maximum"}, default="average"
    solver, solver_options, tol, verbose
        As in :func:`min_average_leakage_mapping`.

    Returns
    -------
    list of dict
        One result per budget, as :func:`min_average_leakage_mapping`.

    See Also
    --------
    min_average_leakage_mapping : The mapping at one budget, average leakage.
    min_maximum_leakage_mapping : The mapping at one budget, maximum leakage.
    min_achievable_distortion : Smallest feasible budget.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import leakage_distortion_curve
    >>> joint = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> curve = leakage_distortion_curve(joint, 1 - np.eye(2), [0.0, 0.2, 0.5])
    >>> [round(r["average_leakage"], 4) for r in curve]
    [0.1927, 0.0663, 0.0]
    """
    if leakage not in ("average", "maximum"):
        raise ValueError(f"leakage must be 'average' or 'maximum', got {leakage!r}.")
    joint, distortion = _check_problem(joint, distortion)
    program = None
    if solver != "first-order" and (solver != "auto" or distortion.size <= _AUTO_CONIC_MAX_SIZE):
        cls = _AverageLeakageProgram if leakage == "average" else _MaxLeakageProgram
        program = cls(_sufficient_joint(joint), distortion)
    fn = min_average_leakage_mapping if leakage == "average" else min_maximum_leakage_mapping
    return [
        fn(
            joint,
            distortion,
            float(b),
            solver=solver,
            solver_options=solver_options,
            tol=tol,
            verbose=verbose,
            _program=program,
        )
        for b in np.asarray(budgets, dtype=float).reshape(-1)
    ]
