"""The conic path of the convex mapping: cvxpy programs, the solver chain, Thm. 2's line search.

The programs of Thm. 1 and of Thm. 2 at one level are built once with a ``cvxpy.Parameter``,
so that a sweep re-solves without rebuilding.
"""

import warnings

import numpy as np

from sklearn_privacy.discrete._convex._problem import (
    ConvexSolverError,
    _bar,
    _clean_mapping,
    _closest_mapping,
    _entropy_of_s,
    _expected_distortion,
    _prune_outputs,
    _say,
    _step,
)
from sklearn_privacy.information import max_information_leakage

# Largest n_y * n_u sent to the conic solvers under solver="auto": above, the
# interior-point and SCS solves take tens of seconds (measured in
# benchmarks/bench_convex_scaling.py) while the first-order path takes a second.
_AUTO_CONIC_MAX_SIZE = 120 * 120
_CONIC_SOLVERS = ("CLARABEL", "SCS")
_SCS_OPTIONS = {"eps_abs": 1e-8, "eps_rel": 1e-8, "max_iters": 200_000}


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
    """The solver names to try in order: ``"auto"`` is Clarabel, SCS, then ``"first-order"``
    (if ``first_order_ok``), or ``"first-order"`` alone above ``_AUTO_CONIC_MAX_SIZE``."""
    if solver == "auto":
        if size > _AUTO_CONIC_MAX_SIZE and first_order_ok:
            return ["first-order"]
        return [*_CONIC_SOLVERS, "first-order"] if first_order_ok else list(_CONIC_SOLVERS)
    return [solver]


def _conic_options(solver, solver_options):
    """Keyword arguments of ``Problem.solve``: tight tolerances for SCS, then the user's."""
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


def _conic_maximum_line_search(program, joint, p_y, distortion, max_distortion, chain, settings):
    """Thm. 2 by bisection over ``eps``, each level one least-distortion program.

    ``joint`` is the (merged) joint the program was built on (``program=None``
    builds it), ``p_y`` the column sums of the joint as given; ``settings``
    the public function's (``solver_options``, ``tol`` and ``verbose`` are read).

    Returns ``(Q, solver, eps_hi, n_steps, n_failed)``: the best mapping met
    within the budget, the solver that produced it, the upper end of the final
    bracket, the number of convex programs solved and the number of steps no
    solver answered (taken as too low).
    """
    import cvxpy as cp

    solver_options, tol, verbose = settings.solver_options, settings.tol, settings.verbose
    if program is None:
        program = _MaxLeakageProgram(joint, distortion)
    # H(S) of the merged S: eq. 32's H(S) - eps is stated for the S the program sees.
    h_s = _entropy_of_s(joint)
    n_failed = 0

    def attempt(eps):
        """(mapping within the budget or None, its maximum leakage, solver name)."""
        nonlocal n_failed
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

    Q_hi, used = _closest_mapping(distortion), "closest"
    lo, hi = 0.0, max_information_leakage(joint @ Q_hi)
    best = hi
    n_steps = 0
    # The bisection's steps to close [0, hi] to tol (fewer when a mapping lowers hi).
    steps = max(0, int(np.ceil(np.log2(max(hi, tol) / tol))))
    _say(
        verbose,
        f"starting the line search over eps: up to {steps} convex programs with {chain[0]} "
        f"({distortion.shape[0]} x {distortion.shape[1]} mapping), to a bracket of {tol:.0e}.",
    )
    with _bar(verbose, steps, "maximum leakage: line search over eps") as bar:
        while hi - lo > tol:
            mid = 0.5 * (lo + hi)
            _step(bar, "eps={:.4g}, bracket width {:.2e}", mid, hi - lo)
            Q, leak, name = attempt(mid)
            n_steps += 1
            if Q is not None and leak < best:
                # Any mapping within the budget bounds the optimum by its own leakage.
                Q_hi, best, used = Q, leak, name
            if Q is not None:
                # The least distortion at this level is within the budget: eps* <= mid even
                # when the mapping leaks a little more (taking such a level as too low sent
                # the search to 0.0517 for an optimum 0.0456: tests/discrete/test_convex_scale).
                hi = min(mid, best)
            else:
                lo = mid
                hi = min(hi, best)
    if n_failed:
        _say(verbose, f"{n_failed} line-search steps had no solution (taken as too low).")
    _say(verbose, f"line search over eps: {n_steps} convex programs with {used}.")
    return Q_hi, used, hi, n_steps, n_failed
