"""The public convex solvers of privacy-statistical-inference-calmon2012 (Thm. 1 and 2).

The layers of ``_convex/``: "Convex solvers by layer" in ``docs/design.md``.
"""

import time
from typing import NamedTuple

import numpy as np
from sklearn.utils import Bunch

from sklearn_privacy.discrete._convex._first_order_loops import (
    first_order_average,
    first_order_maximum,
)
from sklearn_privacy.discrete._convex._problem import (
    ConvexProblem,
    ConvexSolverError,
    _bar,
    _check_problem,
    _clean_mapping,
    _expected_distortion,
    _forced_mapping,
    _least_distortion,
    _say,
    _sufficient_joint,
)
from sklearn_privacy.discrete._convex._programs import (
    _AUTO_CONIC_MAX_SIZE,
    _AverageLeakageProgram,
    _conic_maximum_line_search,
    _independent_release_mapping,
    _MaxLeakageProgram,
    _run_conic,
    _solver_chain,
)
from sklearn_privacy.information import max_information_leakage, mutual_information
from sklearn_privacy.utils import NONNEGATIVE, POSITIVE, POSITIVE_INTEGER
from sklearn_privacy.utils._docstring import Substitution
from sklearn_privacy.utils._sklearn_compat import StrOptions, validate_params

# Default first-order iterations of the public functions (the curve uses it for every budget).
_MAX_ITER = 20_000

__all__ = [
    "ConvexMappingResult",
    "ConvexSolverError",
    "leakage_distortion_curve",
    "min_achievable_distortion",
    "min_average_leakage_mapping",
    "min_maximum_leakage_mapping",
]

# the parameters the public functions share, validated as scikit-learn validates
# an estimator's (a wrong type or range names the parameter)
_PROBLEM_CONSTRAINTS = {"joint": ["array-like"], "distortion": ["array-like"]}
_SOLVER_CONSTRAINTS = {
    "solver": [str],
    "solver_options": [dict, None],
    "tol": [POSITIVE],
    "verbose": ["verbose"],
}
_MAPPING_CONSTRAINTS = {
    **_PROBLEM_CONSTRAINTS,
    **_SOLVER_CONSTRAINTS,
    "max_distortion": [NONNEGATIVE],
    "max_iter": [POSITIVE_INTEGER],
}


@validate_params(_PROBLEM_CONSTRAINTS, prefer_skip_nested_validation=True)
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
    return _least_distortion(*_check_problem(joint, distortion))


class ConvexMappingResult(Bunch):
    """The mapping a convex privacy program returns, its leakage and how it was found.

    The one result type of :func:`min_average_leakage_mapping`,
    :func:`min_maximum_leakage_mapping` and (one per budget)
    :func:`leakage_distortion_curve`: every result has the keys below, in
    this order, whichever function and solver produced it. A
    :class:`~sklearn.utils.Bunch`: read ``result["mapping"]`` or
    ``result.mapping``.

    Parameters
    ----------
    mapping : ndarray of shape (n_y, n_u)
        ``P(U=u | Y=y)``: rows on the simplex, within the budget.
    leakage_measure : {"average", "maximum"}
        The leakage the function minimised, named as
        :class:`ConvexPrivacyMapping`'s ``leakage`` parameter.
    leakage : float
        The minimised leakage of ``mapping`` in nats: ``average_leakage`` or
        ``maximum_leakage``, as ``leakage_measure`` says.
    average_leakage : float
        ``I(S; U)`` of ``mapping``, in nats.
    maximum_leakage : float
        ``max_u [H(S) - H(S | U=u)]`` of ``mapping``, in nats.
    distortion : float
        Expected distortion ``E[d(Y, U)]`` of ``mapping``.
    solver : str
        What produced ``mapping``: the cvxpy solver (``"CLARABEL"``, ``"SCS"``,
        or the one named), ``"first-order"``, ``"constant"`` (a constant
        release meets the budget: no leakage), ``"HIGHS"`` (a release
        independent of S meets it: maximum leakage 0, a linear program) or
        ``"closest"`` (every y sent to its closest output: the budget is the
        least achievable distortion and that mapping the only feasible one,
        or no step of the line search did better).
    n_iter : int
        Iterations of the method that produced ``mapping``: first-order
        iterations (``solver="first-order"``), steps of Thm. 2's line search
        (one convex program each), 1 for the one conic program of Thm. 1, 0
        when no iterative solve ran (``"constant"``, ``"HIGHS"``, ``"closest"``
        at the least achievable budget).
    gap : float
        Certified bound in nats on ``leakage`` minus the optimum: the
        first-order path's duality gap (average leakage) or the width of its
        certified bracket (maximum leakage); 0 when one mapping is feasible;
        ``nan`` where no certificate is computed (the conic solvers,
        ``"constant"``, ``"HIGHS"``).
    epsilon : float
        Maximum leakage only, ``nan`` for average leakage: Thm. 2's level
        ``eps`` at the end of the search, the upper end of the final bracket
        on the optimum (``mapping`` meets ``H(S | U=u) >= H(S) - epsilon`` for
        every u, to the solver's accuracy).
    n_failed : int
        Steps of Thm. 2's line search that no solver answered (taken as too
        low); 0 where there is no line search.

    See Also
    --------
    min_average_leakage_mapping : Returns it for Thm. 1.
    min_maximum_leakage_mapping : Returns it for Thm. 2.
    leakage_distortion_curve : Returns one per budget.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_privacy.discrete import min_maximum_leakage_mapping
    >>> joint = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> result = min_maximum_leakage_mapping(joint, 1 - np.eye(2), 0.0)
    >>> list(result)  # doctest: +NORMALIZE_WHITESPACE
    ['mapping', 'leakage_measure', 'leakage', 'average_leakage',
     'maximum_leakage', 'distortion', 'solver', 'n_iter', 'gap', 'epsilon',
     'n_failed']
    >>> result.leakage_measure, result.solver, result.n_iter, result.gap
    ('maximum', 'closest', 0, 0.0)
    >>> leakage = round(result["leakage"], 6)
    >>> leakage == round(result.maximum_leakage, 6) == 0.192745
    True
    """

    def __init__(
        self,
        *,
        mapping,
        leakage_measure,
        leakage,
        average_leakage,
        maximum_leakage,
        distortion,
        solver,
        n_iter,
        gap,
        epsilon,
        n_failed,
    ):
        super().__init__(
            mapping=mapping,
            leakage_measure=leakage_measure,
            leakage=leakage,
            average_leakage=average_leakage,
            maximum_leakage=maximum_leakage,
            distortion=distortion,
            solver=solver,
            n_iter=n_iter,
            gap=gap,
            epsilon=epsilon,
            n_failed=n_failed,
        )


def _result(joint, distortion, Q, solver, *, measure, n_iter=0, gap=np.nan, epsilon=None):
    """The :class:`ConvexMappingResult` of mapping ``Q`` for the (unmerged) ``joint``.

    ``epsilon=None`` is the mapping's own maximum leakage for ``measure=
    "maximum"`` (the forced mapping, which is the optimum), ``nan`` for
    average leakage. ``n_failed`` is 0 (the line search sets its own).
    """
    p_y = joint.sum(axis=0)
    release = joint @ Q
    release = release / release.sum()
    average = mutual_information(release)
    maximum = max_information_leakage(release)
    if epsilon is None:
        epsilon = maximum if measure == "maximum" else np.nan
    # Plain Python numbers (the same doubles), whichever path computed them.
    return ConvexMappingResult(
        mapping=Q,
        leakage_measure=measure,
        leakage=float(average if measure == "average" else maximum),
        average_leakage=float(average),
        maximum_leakage=float(maximum),
        distortion=float(_expected_distortion(Q, p_y, distortion)),
        solver=solver,
        n_iter=int(n_iter),
        gap=float(gap),
        epsilon=float(epsilon),
        n_failed=0,
    )


# Parameters the public solvers share, written once (filled in by Substitution).
_SOLVER_DOCS = {
    "problem": """\
joint : array-like of shape (n_s, n_y)
    Joint pmf ``P(S, Y)``.
distortion : array-like of shape (n_y, n_u)
    Distortion ``d(y, u) >= 0``.
max_distortion : float
    Budget on the expected distortion; at least
    :func:`min_achievable_distortion`.""",
    "solver_options": """\
solver_options : dict, default=None
    Keyword arguments for ``cvxpy.Problem.solve``.""",
    "max_iter": """\
max_iter : int, default=20000
    Iteration limit of the first-order path.""",
    "solver_verbose": """\
verbose : int, default=0
    Progress of the solver: ``0`` silent; ``1`` live progress bars on
    stderr (tqdm) for the long loops (the first-order iterations against
    ``max_iter`` with the certified gap against ``tol``, the line search's
    level and bracket width, the curve's budgets) and one line per stage on
    stdout (which solver starts, which ran, why one was abandoned, what the
    first-order path or the line search took); ``2`` also the details of
    each stage on stdout (the first-order path every 10 iterations for
    average leakage, at each smoothing level for maximum leakage). The
    conic solvers' own log: ``solver_options={"verbose": True}``.""",
}


@validate_params(_MAPPING_CONSTRAINTS, prefer_skip_nested_validation=True)
@Substitution(**_SOLVER_DOCS)
def min_average_leakage_mapping(
    joint,
    distortion,
    max_distortion,
    *,
    solver="auto",
    solver_options=None,
    tol=1e-7,
    max_iter=_MAX_ITER,
    verbose=0,
):
    """Mapping ``P(U | Y)`` of least average leakage ``I(S; U)`` under a distortion budget.

    Solves Thm. 1 of privacy-statistical-inference-calmon2012: minimise
    ``I(S; U)`` over ``P(U | Y)`` subject to ``E[d(Y, U)] <= max_distortion``.

    Parameters
    ----------
    {problem}
    solver : str, default="auto"
        ``"auto"`` tries Clarabel, then SCS, then the first-order path (large
        problems go to the first-order path directly); ``"first-order"``; or the
        name of any installed cvxpy solver that handles exponential cones, which
        is then the only one tried.
    {solver_options}
    tol : float, default=1e-7
        Target accuracy (nats) of the first-order path.
    {max_iter}
    {solver_verbose}

    Returns
    -------
    result : ConvexMappingResult
        A :class:`~sklearn.utils.Bunch` with the keys ``mapping`` (n_y, n_u),
        ``leakage_measure`` (``"average"``), ``leakage`` (the minimised
        ``I(S; U)``, nats), ``average_leakage`` and ``maximum_leakage`` (nats),
        ``distortion``, ``solver`` (what produced the mapping), ``n_iter``
        (first-order iterations, 1 for a conic solve, 0 when none ran),
        ``gap`` (the first-order path's certified bound on ``leakage`` minus
        the optimum; ``nan`` for the conic solvers), ``epsilon`` (``nan``:
        maximum leakage only) and ``n_failed`` (0). See
        :class:`ConvexMappingResult`.

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
    settings = _Settings(solver, solver_options, tol, max_iter, verbose)
    return _average_leakage_mapping(joint, distortion, max_distortion, None, settings)


class _Settings(NamedTuple):
    """How the public solver functions were asked to solve, passed on as one argument."""

    solver: str
    solver_options: dict
    tol: float
    max_iter: int
    verbose: int


def _average_leakage_mapping(joint, distortion, max_distortion, program, settings):
    """:func:`min_average_leakage_mapping`, re-solving ``program`` when one is given.

    ``program``: the :class:`_AverageLeakageProgram` of this problem, built once by
    :func:`leakage_distortion_curve` for all its budgets; None builds it here if a
    conic solver runs.
    """
    solver, solver_options, tol, max_iter, verbose = settings
    joint, distortion = _check_problem(joint, distortion, max_distortion)
    p_y = joint.sum(axis=0)
    constant = p_y @ distortion
    if max_distortion >= constant.min():
        # A constant release meets the budget: I(S; U) = 0, the optimum, exactly.
        Q = np.zeros(distortion.shape)
        Q[:, int(np.argmin(constant))] = 1.0
        _say(verbose, "a constant release meets the budget: zero leakage.")
        return _result(joint, distortion, Q, "constant", measure="average")
    forced = _forced_mapping(distortion, p_y, max_distortion)
    if forced is not None:
        _say(verbose, "the budget is the least achievable distortion: one feasible mapping.")
        return _result(joint, distortion, forced, "closest", measure="average", gap=0.0)
    chain = _solver_chain(solver, distortion.size, first_order_ok=True)
    errors = []
    full_joint, joint = joint, _sufficient_joint(joint)
    for name in chain:
        if name == "first-order":
            started = time.perf_counter()
            Q, _, gap, n_iter = first_order_average(
                ConvexProblem(joint, distortion, max_distortion),
                tol=tol,
                max_iter=max_iter,
                verbose=verbose,
            )
            _say(
                verbose,
                f"first-order path: {n_iter} iterations in {time.perf_counter() - started:.2f}s, "
                f"certified gap {gap:.2e} nats.",
            )
            return _result(
                full_joint,
                distortion,
                Q,
                "first-order",
                measure="average",
                gap=gap,
                n_iter=n_iter,
            )
        if program is None:
            program = _AverageLeakageProgram(joint, distortion)
        _say(
            verbose, f"solving with {name} ({distortion.shape[0]} x {distortion.shape[1]} mapping)."
        )
        try:
            Q = _run_conic(program, max_distortion, name, solver_options)
        except ConvexSolverError as exc:
            errors.append(str(exc))
            nxt = chain[chain.index(name) + 1] if name != chain[-1] else None
            _say(verbose, f"{exc}; " + (f"falling back to {nxt}." if nxt else "giving up."))
            continue
        _say(verbose, f"solved with {name}.")
        Q = _clean_mapping(Q, p_y, distortion, max_distortion)
        return _result(full_joint, distortion, Q, name, measure="average", n_iter=1)
    raise ConvexSolverError(
        "No solver produced the average-leakage mapping: " + "; ".join(errors) + ". Try "
        "solver='first-order', or another solver (solver='SCS', solver_options=...)."
    )


@validate_params(_MAPPING_CONSTRAINTS, prefer_skip_nested_validation=True)
@Substitution(**_SOLVER_DOCS)
def min_maximum_leakage_mapping(
    joint,
    distortion,
    max_distortion,
    *,
    solver="auto",
    solver_options=None,
    tol=1e-7,
    max_iter=_MAX_ITER,
    verbose=0,
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
    then both ends of a certified bracket from the exact Lagrange dual of a
    level (a conic program on the pairs near the mapping's, grown by column
    generation), climbed by Newton's method.

    Parameters
    ----------
    {problem}
    solver : str, default="auto"
        ``"auto"`` tries Clarabel, then SCS (problems with ``n_y * n_u`` above
        14400 go to the first-order path); ``"first-order"``; or a cvxpy
        solver name.
    {solver_options}
    tol : float, default=1e-7
        Width (nats) of the final bracket on ``eps`` (on the first-order path,
        2e-6 at the least: the conic solver's accuracy).
    {max_iter}
    {solver_verbose}

    Returns
    -------
    result : ConvexMappingResult
        A :class:`~sklearn.utils.Bunch` with the keys of
        :func:`min_average_leakage_mapping`: ``mapping``, ``leakage_measure``
        (``"maximum"``), ``leakage`` (the minimised maximum leakage,
        nats), ``average_leakage``, ``maximum_leakage``, ``distortion``,
        ``solver``, ``n_iter`` (steps of the line search, each one convex
        program, or first-order iterations; 0 when none ran), ``gap``,
        ``epsilon`` (the upper end of the final bracket on the optimum; the
        mapping meets it) and ``n_failed`` (line-search steps no solver
        answered). The first-order path's ``gap`` is the width of its
        certified bracket (500 symbols, Hamming: maximum leakage 0.4849035,
        certified above 0.4849020): the returned leakage is that of the
        mapping, checked, and the optimum lies between ``epsilon - gap`` and
        ``epsilon``. The conic path's ``gap`` is ``nan``. See
        :class:`ConvexMappingResult`.

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
    settings = _Settings(solver, solver_options, tol, max_iter, verbose)
    return _maximum_leakage_mapping(joint, distortion, max_distortion, None, settings)


def _maximum_leakage_mapping(joint, distortion, max_distortion, program, settings):
    """:func:`min_maximum_leakage_mapping`, re-solving ``program`` when one is given.

    ``program``: the :class:`_MaxLeakageProgram` of this problem, built once by
    :func:`leakage_distortion_curve` for all its budgets; None builds it here if the
    conic line search runs.
    """
    solver, _, tol, max_iter, verbose = settings
    joint, distortion = _check_problem(joint, distortion, max_distortion)
    p_y = joint.sum(axis=0)
    chain = _solver_chain(solver, distortion.size, first_order_ok=True)
    if chain[0] != "first-order":
        chain = [name for name in chain if name != "first-order"]
    full_joint, joint = joint, _sufficient_joint(joint)
    # eps = 0 (U independent of S) is a linear program, degenerate for the cones.
    Q_hi, used = _independent_release_mapping(joint, distortion, max_distortion), "HIGHS"
    if Q_hi is not None:
        _say(verbose, "a release independent of S meets the budget: eps = 0.")
        return _result(full_joint, distortion, Q_hi, used, measure="maximum", epsilon=0.0)
    forced = _forced_mapping(distortion, p_y, max_distortion)
    if forced is not None:
        _say(verbose, "the budget is the least achievable distortion: one feasible mapping.")
        return _result(full_joint, distortion, forced, "closest", measure="maximum", gap=0.0)
    if chain == ["first-order"]:
        started = time.perf_counter()
        Q_hi, hi, lo, n_iter = first_order_maximum(
            ConvexProblem(joint, distortion, max_distortion, "maximum"),
            tol=tol,
            max_iter=max_iter,
            verbose=verbose,
        )
        _say(
            verbose,
            f"first-order path: {n_iter} iterations in {time.perf_counter() - started:.2f}s, "
            f"maximum leakage in [{lo:.6g}, {hi:.6g}].",
        )
        return _result(
            full_joint,
            distortion,
            Q_hi,
            "first-order",
            measure="maximum",
            n_iter=n_iter,
            gap=hi - lo,
            epsilon=hi,
        )
    Q_hi, used, hi, n_steps, n_failed = _conic_maximum_line_search(
        program, joint, p_y, distortion, max_distortion, chain, settings
    )
    result = _result(
        full_joint, distortion, Q_hi, used, measure="maximum", n_iter=n_steps, epsilon=hi
    )
    result["n_failed"] = int(n_failed)
    return result


@validate_params(
    {
        **_PROBLEM_CONSTRAINTS,
        **_SOLVER_CONSTRAINTS,
        "budgets": ["array-like"],
        "leakage": [StrOptions({"average", "maximum"})],
    },
    prefer_skip_nested_validation=True,
)
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
    results : list of ConvexMappingResult
        One result per budget, with the keys of :class:`ConvexMappingResult`
        (as :func:`min_average_leakage_mapping` or
        :func:`min_maximum_leakage_mapping` return).

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
    joint, distortion = _check_problem(joint, distortion)
    program = None
    if solver != "first-order" and (solver != "auto" or distortion.size <= _AUTO_CONIC_MAX_SIZE):
        cls = _AverageLeakageProgram if leakage == "average" else _MaxLeakageProgram
        program = cls(_sufficient_joint(joint), distortion)
    fn = _average_leakage_mapping if leakage == "average" else _maximum_leakage_mapping
    budgets = np.asarray(budgets, dtype=float).reshape(-1)
    results = []
    with _bar(verbose, budgets.size, "leakage-distortion curve (budgets)") as bar:
        for b in budgets:
            settings = _Settings(solver, solver_options, tol, _MAX_ITER, verbose)
            results.append(fn(joint, distortion, float(b), program, settings))
            bar.update()
    return results
