"""ConvexPrivacyMapping at scale and for every distortion (issue 11, part 3)."""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import brentq, linprog

from sklearn_privacy.discrete import (
    ConvexPrivacyMapping,
    distortion_matrix,
    min_average_leakage_mapping,
    min_maximum_leakage_mapping,
)
from sklearn_privacy.discrete._convex import _kernels_numpy
from sklearn_privacy.discrete._convex._first_order import (
    SERIAL,
    DistortionLevels,
    blocked_combination,
    budget_projection,
    dual_bound,
    dual_bound_levels,
    mirror_step_levels,
    project_levels,
)
from sklearn_privacy.discrete._convex._first_order_loops import max_leakage_certificate
from sklearn_privacy.discrete._convex._problem import ConvexProblem
from sklearn_privacy.discrete._convex._working_set import entries_near_row_max as _entries
from sklearn_privacy.information import entropy, max_information_leakage


def _issue_table(seed=0):
    """16 rows, binary S, 10 distinct values of Y (the case of issue 11)."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, 16)
    y = rng.integers(0, 12, 16)
    assert np.unique(y).size == 10
    return np.column_stack([s, y])


def _least_independent_distortion(joint, D):
    """Oracle: least E[d] of a release independent of S, as an LP in P(Y, U) (HiGHS IPM)."""
    n_s, n_y = joint.shape
    n_u = D.shape[1]
    p_s, p_y = joint.sum(axis=1), joint.sum(axis=0)
    psy = joint / p_y  # P(S | Y)
    # W[y, u] = P(Y=y, U=u): sum_u W = p_y, sum_y P(s|y) W[y, u] = p_s sum_y W[y, u].
    A_rows = np.kron(np.eye(n_y), np.ones((1, n_u)))
    A_ind = np.kron(psy - p_s[:, None], np.eye(n_u))
    res = linprog(
        D.ravel(),
        A_eq=np.vstack([A_rows, A_ind]),
        b_eq=np.r_[p_y, np.zeros(n_s * n_u)],
        bounds=(0, None),
        method="highs-ipm",
    )
    assert res.status == 0
    return res.fun


def _binary_maximum_leakage_oracle(joint, D, budget):
    """Oracle of Thm. 2 for binary S: bisection on eps, each level a linear program.

    With two values of S, ``H(S | U=u) >= H(S) - eps`` says that the posterior
    ``P(S=1 | u)`` lies in ``[a, 1 - a]`` with ``h(a) = H(S) - eps``: the linear
    constraints ``a p_U(u) <= P(S=1, U=u) <= (1 - a) p_U(u)``. The least
    distortion under them (scipy's HiGHS) decides the level.
    """
    n_y, n_u = D.shape
    p_y = joint.sum(axis=0)
    h_s = entropy(joint.sum(axis=1))
    rows = np.kron(np.eye(n_y), np.ones((1, n_u)))

    def least_distortion(eps):
        target = h_s - eps
        a = 0.0 if target <= 0 else brentq(lambda q: entropy([q, 1 - q]) - target, 1e-300, 0.5)
        # a p_U(u) - P(S=1, U=u) <= 0 and P(S=1, U=u) - (1 - a) p_U(u) <= 0, per u.
        lower = np.kron(a * p_y - joint[1], np.eye(n_u))
        upper = np.kron(joint[1] - (1 - a) * p_y, np.eye(n_u))
        res = linprog(
            (p_y[:, None] * D).ravel(),
            A_ub=np.vstack([lower, upper]),
            b_ub=np.zeros(2 * n_u),
            A_eq=rows,
            b_eq=np.ones(n_y),
            bounds=(0, None),
            method="highs",
        )
        return res.fun if res.status == 0 else np.inf

    lo, hi = 0.0, h_s
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if least_distortion(mid) <= budget else (mid, hi)
    return hi


@pytest.mark.parametrize("distortion", ["hamming", "absolute", "squared"])
def test_issue_case_maximum_leakage_against_oracles(distortion):
    # Issue 11: maximum leakage, 16 rows, 10 symbols, budgets 0.2, 0.5, 1.0. Where
    # a release independent of S meets the budget the optimum is exactly 0, so the
    # leakage is the same for every such budget; the old path returned the
    # tolerance of its line search (an interior-point LP left outputs of mass
    # ~1e-9 with arbitrary posteriors), not 0.
    X = _issue_table()
    results = {}
    for budget in (0.2, 0.5, 1.0):
        mech = ConvexPrivacyMapping(
            budget, leakage="maximum", distortion=distortion, sensitive=[0]
        ).fit(X)
        results[budget] = mech
        assert mech.distortion_ <= budget + 1e-9
    joint, D = results[0.2].joint_, results[0.2].distortion_matrix_
    least = _least_independent_distortion(joint, D)
    for budget, mech in results.items():
        if budget >= least + 1e-9:
            assert mech.leakage_ == 0.0
            assert mech.n_iter_ == 1
            # The release is independent of S: every used output has the prior.
            release = joint @ mech.mapping_
            used = release.sum(axis=0) > 0
            post = release[:, used] / release[:, used].sum(axis=0)
            np.testing.assert_allclose(post, joint.sum(axis=1)[:, None] * np.ones_like(post))
        else:
            oracle = _binary_maximum_leakage_oracle(joint, D, budget)
            assert oracle > 1e-3
            assert mech.leakage_ == pytest.approx(oracle, abs=1e-5)
    # The smallest budget is below the least independent distortion here.
    assert least > 0.2


def test_ten_symbols_every_distortion_few_conic_solves():
    # Every distortion and objective on the 10-symbol case: one conic program, one
    # LP, or a line search of at most 30 steps; none falls back to SCS.
    X = _issue_table()
    for distortion in ("hamming", "absolute", "squared"):
        for leakage in ("average", "maximum"):
            for budget in (0.2, 0.5, 1.0):
                with warnings.catch_warnings():
                    # budget 1.0 under Hamming releases one record for all: warned, expected
                    warnings.filterwarnings("ignore", "max_distortion=1.0", UserWarning)
                    mech = ConvexPrivacyMapping(
                        budget, leakage=leakage, distortion=distortion, sensitive=[0]
                    ).fit(X)
                assert mech.solver_ in {"CLARABEL", "HIGHS", "constant"}
                assert mech.n_iter_ <= 30


def entries_near_row_max(
    base, P, B, lam_total, D, margin, *, threads=None, kernels=_kernels_numpy, **kw
):
    """The working set's entry search on ``P(S|Y) = P`` and ``d = D`` (a stand-in problem)."""
    problem = SimpleNamespace(
        p_s_given_y=P, distortion=D, threads=threads or SERIAL, kernels=kernels
    )
    return _entries(problem, base, B, lam_total, margin, **kw)


def _hamming_instance(n_rows=60, n_cols=3, n_values=4, n_s=3, seed=0):
    rng = np.random.default_rng(seed)
    records = np.unique(rng.integers(0, n_values, (n_rows, n_cols)), axis=0)
    joint = rng.dirichlet(np.full(n_s * len(records), 0.5)).reshape(n_s, len(records))
    return joint, distortion_matrix(records, kind="hamming")


def test_distortion_levels_sums_and_minima_match_brute_force():
    _, D = _hamming_instance()
    levels = DistortionLevels.of(D)
    assert levels is not None
    np.testing.assert_array_equal(levels.values, np.unique(D))
    A = np.random.default_rng(1).normal(size=D.shape)
    for j, value in enumerate(levels.values):
        mask = D == value
        np.testing.assert_allclose(levels.sums(A)[:, j], np.where(mask, A, 0).sum(axis=1))
        np.testing.assert_array_equal(levels.minima(A)[:, j], np.where(mask, A, np.inf).min(1))
    assert DistortionLevels.of(np.random.default_rng(0).random((50, 50))) is None


@pytest.mark.parametrize("budget", [0.05, 0.3])
def test_level_projection_matches_dense_projection(budget):
    joint, D = _hamming_instance(seed=2)
    p_y = joint.sum(axis=0)
    logits = np.random.default_rng(3).normal(scale=3, size=D.shape)
    dense, lam_dense = budget_projection(logits.copy(), D, p_y, budget, 0.0, rtol=1e-12)
    levels = DistortionLevels.of(D)
    fast, lam_fast = project_levels(logits.copy(), levels, p_y, budget, 0.0, rtol=1e-12)
    assert lam_fast == pytest.approx(lam_dense, rel=1e-8, abs=1e-12)
    np.testing.assert_allclose(fast, dense, rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(fast.sum(axis=1), 1.0)
    # Oracle of the multiplier: the budget is met with equality (it binds here).
    assert p_y @ (fast * D).sum(axis=1) == pytest.approx(budget, rel=1e-9)


@pytest.mark.parametrize(
    ("lam_total", "block", "n_cols"), [(0.0, 7, 3), (2.5, 32, 3), (2.5, 32, 1)]
)
def test_blocked_mirror_step_matches_dense_projection(lam_total, block, n_cols):
    # Oracle: the dense logits base - P(S|Y)^T A - lam_total d projected by the
    # dense Newton search; the blocked step works on row blocks and per-level
    # tables (one column: a single dense level, the full-array path).
    joint, D = _hamming_instance(n_cols=n_cols, n_values=4 if n_cols > 1 else 30, seed=9)
    p_y = joint.sum(axis=0)
    rng = np.random.default_rng(10)
    p_s_given_y = np.ascontiguousarray((joint / p_y).T)
    base = rng.normal(size=D.shape)
    A = rng.normal(scale=2, size=(joint.shape[0], D.shape[1]))
    logits = base - p_s_given_y @ A - lam_total * D
    dense, lam_dense = budget_projection(logits, D, p_y, 0.1, 0.0, rtol=1e-12)
    out = np.empty(D.shape)
    assert DistortionLevels.of(D)._cell_scale == (n_cols > 1)  # which path runs
    problem = ConvexProblem(joint, D, 0.1)
    np.testing.assert_allclose(problem.p_s_given_y, p_s_given_y, rtol=1e-15)
    Q, lam, release = mirror_step_levels(problem, base, A, lam_total, 0.0, out=out, block=block)
    assert Q is out
    assert lam == pytest.approx(lam_dense, rel=1e-7)
    np.testing.assert_allclose(Q, dense, rtol=1e-7, atol=1e-14)
    np.testing.assert_allclose(release, joint @ dense, rtol=1e-7, atol=1e-14)
    assert p_y @ (Q * D).sum(axis=1) == pytest.approx(0.1, rel=1e-8)


def test_blocked_minima_and_combination_match_dense():
    joint, D = _hamming_instance(seed=11)
    rng = np.random.default_rng(12)
    levels = DistortionLevels.of(D)
    P = (joint / joint.sum(axis=0)).T
    B = rng.normal(size=(joint.shape[0], D.shape[1]))
    np.testing.assert_allclose(
        levels.minima_of_product(P, B, block=5), levels.minima(P @ B), rtol=1e-12
    )
    x, z = rng.random(D.shape), rng.random(D.shape)
    expected = 0.3 * x + 0.7 * z
    blocked_combination(x, 0.3, z, 0.7, scratch=np.empty(D.shape), block=6)
    np.testing.assert_allclose(x, expected, rtol=1e-15)


def test_level_dual_bound_equals_dense_bound():
    joint, D = _hamming_instance(seed=4)
    p_y = joint.sum(axis=0)
    h_s = entropy(joint.sum(axis=1))
    G = (joint / p_y).T @ np.log(np.random.default_rng(5).dirichlet(np.ones(3), D.shape[1]).T)
    levels = DistortionLevels.of(D)
    for budget in (0.05, 0.2, 0.5):
        dense = dual_bound(G, D, p_y, budget, h_s, 1.0)
        fast = dual_bound_levels(levels.minima(G), levels.values, p_y, budget, h_s)
        assert fast == pytest.approx(dense, abs=1e-9)


def test_first_order_average_on_multi_column_hamming_matches_conic():
    joint, D = _hamming_instance(seed=6)
    budget = 0.1
    conic = min_average_leakage_mapping(joint, D, budget, solver="CLARABEL")
    fo = min_average_leakage_mapping(joint, D, budget, solver="first-order", tol=1e-8)
    assert fo["gap"] <= 1e-5
    assert abs(fo["average_leakage"] - conic["average_leakage"]) <= 1e-5
    assert fo["average_leakage"] - conic["average_leakage"] <= fo["gap"] + 1e-7


@pytest.mark.parametrize(("seed", "kind"), [(0, "hamming"), (1, "absolute")])
def test_first_order_maximum_brackets_the_conic_optimum(seed, kind):
    rng = np.random.default_rng(seed)
    n = 10
    joint = rng.dirichlet(np.full(3 * n, 0.5)).reshape(3, n)
    D = distortion_matrix(np.arange(n), kind=kind)
    budget = 0.1 if kind == "hamming" else 0.3
    conic = min_maximum_leakage_mapping(joint, D, budget)
    fo = min_maximum_leakage_mapping(joint, D, budget, solver="first-order")
    assert fo["solver"] == "first-order"
    assert fo["distortion"] <= budget + 1e-9
    # The mapping's own maximum leakage, and a certified lower end below the optimum.
    assert fo["maximum_leakage"] == pytest.approx(max_information_leakage(joint @ fo["mapping"]))
    lower = fo["maximum_leakage"] - fo["gap"]
    assert lower <= conic["maximum_leakage"] + 1e-6
    assert fo["maximum_leakage"] >= conic["maximum_leakage"] - 1e-6
    assert fo["maximum_leakage"] <= conic["maximum_leakage"] + 0.05
    assert lower > 0


def test_max_leakage_certificate_never_refutes_a_feasible_level():
    # Soundness: at a level above the optimum no weights and posteriors can prove
    # infeasibility (random ones here); below it, the optimum's own posteriors can.
    rng = np.random.default_rng(7)
    joint = rng.dirichlet(np.ones(3 * 6)).reshape(3, 6)
    D = 1 - np.eye(6)
    budget = 0.15
    opt = min_maximum_leakage_mapping(joint, D, budget, tol=1e-9)["maximum_leakage"]
    problem = ConvexProblem(joint, D, budget)
    for _ in range(50):
        mu = rng.random(6)
        log_post = np.log(rng.dirichlet(np.ones(3), 6).T)
        for eps in (opt + 1e-6, opt + 0.05):
            assert not max_leakage_certificate(problem, eps, mu, log_post)


def test_estimator_first_order_maximum_and_gap():
    rng = np.random.default_rng(8)
    n = 40
    s = rng.integers(0, 3, 4000)
    y = (s * 7 + rng.integers(0, n, 4000)) % n
    X = np.column_stack([s, y])
    mech = ConvexPrivacyMapping(0.2, leakage="maximum", solver="first-order", sensitive=[0]).fit(X)
    assert mech.solver_ == "first-order"
    assert np.isfinite(mech.gap_) and mech.gap_ >= 0
    assert mech.distortion_ <= 0.2 + 1e-9
    avg = ConvexPrivacyMapping(0.2, solver="first-order", sensitive=[0]).fit(X)
    assert avg.gap_ <= 1e-5
    # Each optimum bounds the other objective: I(S;U) <= max leakage.
    assert avg.average_leakage_ <= mech.maximum_leakage_ + 1e-9
    conic = min_average_leakage_mapping(avg.joint_, avg.distortion_matrix_, 0.2, solver="SCS")
    assert abs(conic["average_leakage"] - avg.leakage_) <= avg.gap_ + 1e-6
    small = ConvexPrivacyMapping(0.2, solver="CLARABEL", sensitive=[0]).fit(_issue_table())
    assert np.isnan(small.gap_)


@pytest.mark.parametrize("objective", ["average", "maximum"])
def test_budget_at_the_least_distortion_has_one_feasible_mapping(objective):
    # Hamming: each record's only zero-distortion output is itself, so at budget 0 the
    # identity is the one feasible mapping (the first-order path ran 20000 iterations here).
    from sklearn_privacy.discrete import (
        min_average_leakage_mapping,
        min_maximum_leakage_mapping,
    )
    from sklearn_privacy.information import max_information_leakage, mutual_information

    rng = np.random.default_rng(0)
    joint = rng.dirichlet(np.full(3 * 40, 0.5)).reshape(3, 40)
    hamming = 1.0 - np.eye(40)
    solve = min_average_leakage_mapping if objective == "average" else min_maximum_leakage_mapping
    result = solve(joint, hamming, 0.0, solver="first-order")
    np.testing.assert_array_equal(result["mapping"], np.eye(40))
    assert result["solver"] == "closest" and result["distortion"] == 0.0
    assert result["average_leakage"] == pytest.approx(mutual_information(joint), abs=1e-12)
    assert result["maximum_leakage"] == pytest.approx(max_information_leakage(joint), abs=1e-12)
    # the conic path (the oracle; a budget of 1e-9 keeps it off the shortcut) finds the
    # same optimum in the limit
    conic = solve(joint[:, :8] / joint[:, :8].sum(), hamming[:8, :8], 1e-9, solver="CLARABEL")
    assert conic["distortion"] <= 1e-9 + 1e-15
    key = f"{objective}_leakage"
    exact = mutual_information if objective == "average" else max_information_leakage
    assert conic[key] == pytest.approx(exact(joint[:, :8] / joint[:, :8].sum()), abs=1e-5)


def _random_problem(seed, n=7, n_s=3, kind="hamming"):
    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.full(n_s * n, 0.7)).reshape(n_s, n)
    D = distortion_matrix(np.arange(n), kind=kind)
    D = D / D.max()
    least_indep = _least_independent_distortion(joint, D)
    # a budget between the least distortion (0) and an independent release
    budget = float(rng.uniform(0.2, 0.8) * least_indep)
    return joint, D, budget


@pytest.mark.parametrize("seed", range(12))
def test_first_order_maximum_bracket_holds_the_conic_optimum(seed):
    # Soundness of the certified bracket on many small random cases: the lower end
    # (the exact dual) never exceeds the conic optimum (Clarabel's line search,
    # tol 1e-9), and the upper end is the mapping's own, verified leakage.
    kind = ("hamming", "absolute", "squared")[seed % 3]
    joint, D, budget = _random_problem(seed, n=5 + seed % 4, n_s=2 + seed % 3, kind=kind)
    conic = min_maximum_leakage_mapping(joint, D, budget, tol=1e-9)
    fo = min_maximum_leakage_mapping(joint, D, budget, solver="first-order")
    assert fo["distortion"] <= budget + 1e-9
    assert fo["maximum_leakage"] == pytest.approx(max_information_leakage(joint @ fo["mapping"]))
    lower = fo["maximum_leakage"] - fo["gap"]
    assert lower <= conic["maximum_leakage"] + 1e-6
    if fo["maximum_leakage"] < conic["maximum_leakage"] - 1e-6:
        # Clarabel's line search can stop above the optimum (seed 10: 0.054191 at tol
        # 1e-9, where SCS and the polished first-order mapping reach 0.053474-0.053479).
        scs = min_maximum_leakage_mapping(joint, D, budget, tol=1e-9, solver="SCS")
        assert fo["maximum_leakage"] >= scs["maximum_leakage"] - 1e-6
    if joint.shape[0] == 2:
        # binary S: the independent linear-programming oracle agrees with the conic path
        oracle = _binary_maximum_leakage_oracle(joint, D, budget)
        assert conic["maximum_leakage"] == pytest.approx(oracle, abs=1e-5)
        assert lower <= oracle + 1e-6


def test_cut_certificate_never_refutes_a_feasible_level():
    # Weak duality of the cut bound: at a level above the optimum no cuts and no
    # weights prove infeasibility (random ones, and the exact dual's own, solved on
    # every pair); below it, the exact dual does.
    from sklearn_privacy.discrete._convex._dual_columns import LevelDual, cut_certificate

    rng = np.random.default_rng(3)
    joint = rng.dirichlet(np.ones(3 * 6)).reshape(3, 6)
    D = 1 - np.eye(6)
    budget = 0.15
    opt = min_maximum_leakage_mapping(joint, D, budget, tol=1e-10)["maximum_leakage"]
    problem = ConvexProblem(joint, D, budget)
    h_s = entropy(joint.sum(axis=1))
    P = (joint / joint.sum(axis=0)).T
    every_pair = np.nonzero(np.ones((6, 6)))
    for _ in range(30):
        cuts = [P @ np.log(rng.dirichlet(np.ones(3), 6).T) for _ in range(2)]
        nu = rng.exponential(size=(6, 2)) * 10.0 ** rng.integers(-2, 3)
        for eps in (opt + 1e-6, opt + 0.05):
            assert cut_certificate(problem, h_s - eps, cuts, nu) <= 0
    for eps in (opt + 1e-6, opt + 0.05):
        assert LevelDual(problem, every_pair).certify(eps)[0] <= 0
    assert LevelDual(problem, every_pair).certify(opt - 1e-5)[0] > 0


def _level_dual_by_cvxpy(problem, delta, rows, cols):
    """The level dual on the pairs written in cvxpy (the oracle of the direct program)."""
    import cvxpy as cp

    p_s_given_y, p_y = problem.p_s_given_y, problem.p_y
    n_s, n_u = p_s_given_y.shape[1], problem.distortion.shape[1]
    z, lam = cp.Variable(p_y.size), cp.Variable(n_u)
    a, w = cp.Variable((n_s, n_u)), cp.Variable((n_s, n_u))
    spread = np.ones((n_s, 1)) @ cp.reshape(lam, (1, n_u), order="C")
    pairs = [
        z[y] - delta * lam[u] - p_s_given_y[y] @ a[:, u] <= problem.distortion[y, u]
        for y, u in zip(rows, cols)
    ]
    constraints = [*pairs, cp.sum(w, axis=0) <= lam, cp.constraints.ExpCone(a, spread, w)]
    program = cp.Problem(cp.Maximize(p_y @ z), constraints)
    program.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return program.value, np.array([c.dual_value for c in pairs]).ravel()


@pytest.mark.parametrize("seed", [0, 5])
def test_level_program_matches_its_cvxpy_formulation(seed):
    # Oracle: the same program written in cvxpy, row by row. The direct program's
    # value and its multipliers (the mapping on the pairs) agree with it.
    from sklearn_privacy.discrete._convex._dual_columns import LevelDual

    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.ones(3 * 8)).reshape(3, 8)
    D = 1 - np.eye(8)
    problem = ConvexProblem(joint, D, 0.2)
    keep = rng.random((8, 8)) < 0.5
    dual = LevelDual(problem, np.nonzero(keep))
    rows, cols = dual.keys // 8, dual.keys % 8
    delta = problem.h_s - 0.6 * max_information_leakage(joint)
    value, lam, a, Q = dual._solve(delta, {})
    expected, multipliers = _level_dual_by_cvxpy(problem, delta, rows, cols)
    assert value == pytest.approx(expected, abs=1e-7)
    np.testing.assert_allclose(Q[rows, cols] * problem.p_y[rows], multipliers, atol=1e-6)
    assert lam.shape == (8,) and a.shape == (3, 8)


def test_level_dual_keeps_an_iterate_that_stopped_short_and_its_certificate_holds(monkeypatch):
    # The certificate is exact whatever the solution: programs cut off after a few
    # iterations (Clarabel's MaxIterations) still give iterates, and no certificate
    # from them refutes a level above the optimum (weak duality).
    from sklearn_privacy.discrete._convex import _dual_columns

    rng = np.random.default_rng(3)
    joint = rng.dirichlet(np.ones(3 * 6)).reshape(3, 6)
    D = 1 - np.eye(6)
    opt = min_maximum_leakage_mapping(joint, D, 0.15, tol=1e-10)["maximum_leakage"]
    problem = ConvexProblem(joint, D, 0.15)
    every_pair = np.nonzero(np.ones((6, 6)))
    solver = _dual_columns._SOLVER
    for max_iter in (2, 5, 10):
        monkeypatch.setattr(_dual_columns, "_SOLVER", {**solver, "max_iter": max_iter})
        for eps in (opt + 1e-6, opt + 0.05):
            level = _dual_columns.LevelDual(problem, every_pair).certify(eps)
            assert level is not None
            assert level[0] <= 0
    # Any iterate at all: multipliers and exponents drawn at random.
    dual = _dual_columns.LevelDual(problem, every_pair)
    for _ in range(30):
        lam = rng.exponential(size=6) * 10.0 ** rng.integers(-2, 3)
        a = rng.normal(scale=3.0, size=(3, 6))
        for eps in (opt + 1e-6, opt + 0.05):
            assert dual._price(problem.h_s - eps, lam, a)[0] <= 0
    monkeypatch.setattr(_dual_columns, "_SOLVER", solver)
    assert _dual_columns.LevelDual(problem, every_pair).certify(opt - 1e-5)[0] > 0


def test_working_set_steps_match_full_steps():
    # The working set is an exact shortcut: the iterates (and so the objective,
    # the certificate and the iteration count) are those of the full steps.
    import sklearn_privacy.discrete._convex._first_order_loops as loops
    import sklearn_privacy.discrete._convex._iterates as iterates

    joint, D = _hamming_instance(n_rows=300, n_cols=3, n_values=6, n_s=2, seed=13)
    built = []
    original = iterates.WorkingSet

    class Recorded(original):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(self.size)

    iterates.WorkingSet = Recorded
    try:
        fast = loops.first_order_average(ConvexProblem(joint, D, 0.1), tol=1e-8)
        assert built, "the working set was never used"
        assert min(built) < 0.1 * D.size
        full = loops.first_order_average(ConvexProblem(joint, D, 0.1), tol=1e-8, sparse=False)
    finally:
        iterates.WorkingSet = original
    (Q_fast, value_fast, gap_fast, n_fast), (Q_full, value_full, gap_full, n_full) = fast, full
    assert n_fast == n_full
    assert value_fast == pytest.approx(value_full, abs=1e-11)
    assert gap_fast == pytest.approx(gap_full, abs=1e-11)
    np.testing.assert_allclose(Q_fast, Q_full, atol=1e-10)
    conic = min_average_leakage_mapping(joint, D, 0.1, solver="CLARABEL")
    assert abs(value_fast - conic["average_leakage"]) <= max(gap_fast, 1e-6) + 1e-6


def test_distortion_levels_find_values_the_sample_missed():
    # DistortionLevels.of reads the values off a sample, then checks every entry
    # by binary search: a value met once (here far from the sampled rows) is kept.
    D = np.tile(np.array([0.0, 0.5, 1.0]), (200, 100))[:, :300]
    D[123, 45] = 0.25
    levels = DistortionLevels.of(D)
    np.testing.assert_array_equal(levels.values, [0.0, 0.25, 0.5, 1.0])
    np.testing.assert_array_equal(levels.values[levels.level], D)
    many = np.arange(40 * 40, dtype=float).reshape(40, 40)
    assert DistortionLevels.of(many) is None


def test_row_threads_change_nothing():
    # The level passes (the mirror step, the averaging, the dual bound's minima) split
    # their row blocks over as many threads as threadpoolctl allows the BLAS; each
    # block is computed alone and the release summed in the order of the blocks, so
    # 1 and 3 threads give the same iterates, to the bit.
    from threadpoolctl import threadpool_info, threadpool_limits

    from sklearn_privacy.discrete._convex import _first_order
    from sklearn_privacy.discrete._convex._first_order_loops import first_order_average

    if not any(lib["user_api"] == "blas" for lib in threadpool_info()):
        pytest.skip("no BLAS library seen by threadpoolctl")
    with threadpool_limits(3):
        # a BLAS may hold fewer threads than asked (MKL: the physical cores), and the
        # passes take the fewest any BLAS allows
        allowed = _first_order.RowThreads.allowed().n
    if allowed == 1:
        pytest.skip("the BLAS libraries allow one thread here")
    joint, D = _hamming_instance(n_rows=300, n_cols=3, n_values=6, n_s=2, seed=13)
    seen = []
    real = _first_order.RowThreads.run

    def run(self, n_rows, block, work):
        seen.append(self.n)
        return real(self, n_rows, block, work)

    results = {}
    for n in (1, 3):
        with threadpool_limits(n), pytest.MonkeyPatch.context() as patch:
            patch.setattr(_first_order.RowThreads, "run", run)
            results[n] = first_order_average(ConvexProblem(joint, D, 0.1), tol=1e-8, sparse=False)
    assert set(seen) == {1, allowed}
    np.testing.assert_array_equal(results[3][0], results[1][0])
    assert results[3][1:] == results[1][1:]
    # a block never depends on the grouping: 5 or more row blocks over 3 threads
    assert D.shape[0] > 4 * 32
    threads = _first_order.RowThreads(3)
    try:
        P = np.random.default_rng(2).random((D.shape[0], 2))
        B = np.random.default_rng(3).normal(size=(2, D.shape[1]))
        levels = DistortionLevels.of(D)
        np.testing.assert_array_equal(
            levels.minima_of_product(P, B, block=32, threads=threads),
            levels.minima_of_product(P, B, block=32),
        )
        # the working set's entries: the same, in the same order, and the same refusal
        base = np.random.default_rng(4).normal(scale=20.0, size=D.shape)
        serial = entries_near_row_max(base, P, B, 0.3, D, 30.0, block=32)
        assert serial[0].size > D.shape[0]
        for got in zip(
            entries_near_row_max(base, P, B, 0.3, D, 30.0, block=32, threads=threads), serial
        ):
            np.testing.assert_array_equal(*got)
        for limit in (serial[0].size, serial[0].size - 1, 5):
            near = entries_near_row_max(base, P, B, 0.3, D, 30.0, limit=limit, block=32)
            assert (near is None) == (limit < serial[0].size)
            threaded = entries_near_row_max(
                base, P, B, 0.3, D, 30.0, limit=limit, block=32, threads=threads
            )
            assert (threaded is None) == (near is None)
    finally:
        threads.close()


@pytest.mark.parametrize("seed", [3, 7])
def test_first_order_maximum_upper_end_reaches_the_conic_optimum(seed):
    # The conic polish on the first-order support: the upper end is a verified
    # mapping's own maximum leakage within 1e-4 of the optimum of the full conic
    # line search (Clarabel, tol 1e-10), and never below it.
    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.ones(3 * 6)).reshape(3, 6)
    D = 1 - np.eye(6)
    opt = min_maximum_leakage_mapping(joint, D, 0.15, tol=1e-10)["maximum_leakage"]
    fo = min_maximum_leakage_mapping(joint, D, 0.15, solver="first-order")
    assert fo["distortion"] <= 0.15 + 1e-9
    assert fo["maximum_leakage"] == pytest.approx(max_information_leakage(joint @ fo["mapping"]))
    assert opt - 1e-7 <= fo["maximum_leakage"] <= opt + 1e-4
    assert fo["maximum_leakage"] - fo["gap"] <= opt + 1e-9


def test_dual_bracket_returns_verified_mappings_or_its_inputs(monkeypatch):
    # The upper end is a verified mapping's own maximum leakage within the budget;
    # with no program allowed, the inputs come back unchanged.
    from sklearn_privacy.discrete._convex import _dual_columns
    from sklearn_privacy.discrete._convex._first_order_loops import first_order_maximum

    joint = np.random.default_rng(3).dirichlet(np.ones(3 * 6)).reshape(3, 6)
    D = 1 - np.eye(6)
    problem = ConvexProblem(joint, D, 0.15)
    Q, hi, lo, _ = first_order_maximum(problem)
    assert hi == pytest.approx(max_information_leakage(joint @ Q))
    assert float(problem.p_y @ (Q * D).sum(axis=1)) <= 0.15 + 1e-9
    start = np.eye(6)
    # A bracket already narrower than _NARROW (near eps = 0 the program degenerates).
    narrow = _dual_columns.dual_bracket(problem, start, 0.3, 0.3 + 5e-7)
    assert narrow[0] is start and narrow[1:] == (0.3 + 5e-7, 0.3)
    monkeypatch.setattr(_dual_columns, "_MAX_SOLVES", 0)
    same, hi_same, lo_same = _dual_columns.dual_bracket(problem, start, 0.1, 0.9)
    assert same is start and (hi_same, lo_same) == (0.9, 0.1)


@pytest.mark.parametrize(("seed", "kind", "budget"), [(3, "hamming", 0.15), (4, "absolute", 0.4)])
def test_exact_dual_certifies_just_below_the_conic_optimum(seed, kind, budget):
    # Oracle: the full conic line search (Clarabel, tol 1e-10). The exact dual of a
    # level, grown from the pairs of the closest mapping only, proves every level
    # 1e-4 below the optimum infeasible and none 1e-4 above; its Newton climb ends
    # within 1e-5 below the optimum, never above it, and its mapping within 1e-5 above.
    from sklearn_privacy.discrete._convex._dual_columns import LevelDual, dual_bracket
    from sklearn_privacy.discrete._convex._problem import _closest_mapping

    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.ones(3 * 7)).reshape(3, 7)
    D = distortion_matrix(np.arange(7), kind=kind)
    opt = min_maximum_leakage_mapping(joint, D, budget, tol=1e-10)["maximum_leakage"]
    problem = ConvexProblem(joint, D, budget)
    start = np.nonzero(_closest_mapping(D))
    below = LevelDual(problem, start).certify(opt - 1e-4)[0]
    above = LevelDual(problem, start).certify(opt + 1e-4)[0]
    assert below > 0
    assert above <= 0
    _, hi, lo = dual_bracket(problem, _closest_mapping(D), 0.0, opt + 0.05)
    assert opt - 1e-5 <= lo <= opt + 1e-9
    assert opt - 1e-9 <= hi <= opt + 1e-5


# -- the compiled kernels (numba, the ``fast`` extra) ---------------------------------


@pytest.fixture
def convex_kernels(monkeypatch):
    """Every problem of the test on the compiled kernels, whatever its size."""
    pytest.importorskip("numba")
    from sklearn_privacy.discrete._compiled import compiled
    from sklearn_privacy.discrete._convex import _problem

    monkeypatch.setattr(_problem, "_COMPILED_ENTRIES", {"average": 0, "maximum": 0})
    kernels = compiled("_convex._kernels")
    assert kernels is not None
    return kernels


@pytest.mark.parametrize(("lam_total", "block"), [(0.0, 7), (2.5, 32)])
def test_compiled_mirror_step_matches_dense_projection(lam_total, block, convex_kernels):
    # The oracle of test_blocked_mirror_step_matches_dense_projection, on the kernels'
    # step (one pass a row, fdlibm's exp): the same projection to 1e-7.
    joint, D = _hamming_instance(n_cols=3, n_values=4, seed=9)
    p_y = joint.sum(axis=0)
    rng = np.random.default_rng(10)
    base = rng.normal(size=D.shape)
    A = rng.normal(scale=2, size=(joint.shape[0], D.shape[1]))
    logits = base - (joint / p_y).T @ A - lam_total * D
    dense, lam_dense = budget_projection(logits, D, p_y, 0.1, 0.0, rtol=1e-12)
    problem = ConvexProblem(joint, D, 0.1)
    assert problem.kernels is convex_kernels
    Q, lam, release = mirror_step_levels(
        problem, base, A, lam_total, 0.0, out=np.empty(D.shape), block=block
    )
    assert lam == pytest.approx(lam_dense, rel=1e-7)
    np.testing.assert_allclose(Q, dense, rtol=1e-7, atol=1e-14)
    np.testing.assert_allclose(release, joint @ dense, rtol=1e-7, atol=1e-14)
    # and the numpy step's to rounding
    problem.kernels = problem.levels.kernels = _kernels_numpy
    Q_numpy, lam_numpy, _ = mirror_step_levels(
        problem, base, A, lam_total, 0.0, out=np.empty(D.shape), block=block
    )
    np.testing.assert_allclose(Q, Q_numpy, rtol=1e-12, atol=1e-300)
    assert lam == pytest.approx(lam_numpy, rel=1e-12)


def test_compiled_minima_entries_and_combination_match_numpy(convex_kernels):
    from sklearn_privacy.discrete._convex._first_order import RowThreads

    joint, D = _hamming_instance(n_rows=300, n_cols=3, n_values=6, n_s=2, seed=13)
    levels = DistortionLevels.of(D)
    rng = np.random.default_rng(2)
    P, B = rng.random((D.shape[0], 2)), rng.normal(size=(2, D.shape[1]))
    expected = levels.minima(P @ B)
    levels.kernels = convex_kernels
    minima = levels.minima_of_product(P, B, block=32)
    np.testing.assert_array_equal(np.isinf(minima), np.isinf(expected))
    np.testing.assert_allclose(minima, expected, rtol=1e-13)
    # the working set's entries: the same, in the same order, the same refusal
    base = rng.normal(scale=20.0, size=D.shape)
    serial = entries_near_row_max(base, P, B, 0.3, D, 30.0, block=32)
    threads = RowThreads(3)
    try:
        for pool in (SERIAL, threads):
            kwargs = {"threads": pool, "kernels": convex_kernels}
            got = entries_near_row_max(base, P, B, 0.3, D, 30.0, block=32, **kwargs)
            np.testing.assert_array_equal(got[0], serial[0])
            np.testing.assert_array_equal(got[1], serial[1])
            np.testing.assert_allclose(got[2], serial[2], rtol=0, atol=1e-12)
            for limit in (serial[0].size, serial[0].size - 1):
                near = entries_near_row_max(
                    base, P, B, 0.3, D, 30.0, limit=limit, block=32, **kwargs
                )
                assert (near is None) == (limit < serial[0].size)
    finally:
        threads.close()
    # x = a x + b z rounds as numpy's, to the bit
    x, z = rng.random(D.shape), rng.random(D.shape)
    expected = x.copy()
    blocked_combination(expected, 0.3, z, 0.7, scratch=np.empty(D.shape), block=6)
    blocked_combination(x, 0.3, z, 0.7, scratch=np.empty(D.shape), block=6, kernels=convex_kernels)
    np.testing.assert_array_equal(x, expected)


def test_compiled_first_order_average_matches_numpy_and_conic(convex_kernels, monkeypatch):
    from sklearn_privacy.discrete._convex import _problem
    from sklearn_privacy.discrete._convex._first_order_loops import first_order_average

    joint, D = _hamming_instance(n_rows=300, n_cols=3, n_values=6, n_s=2, seed=13)
    compiled = ConvexProblem(joint, D, 0.1)
    assert compiled.kernels is convex_kernels
    Q, value, gap, _ = first_order_average(compiled, tol=1e-8)
    monkeypatch.setattr(_problem, "_COMPILED_ENTRIES", {"average": np.inf, "maximum": np.inf})
    numpy_problem = ConvexProblem(joint, D, 0.1)
    Q_numpy, value_numpy, gap_numpy, _ = first_order_average(numpy_problem, tol=1e-8)
    assert value == pytest.approx(value_numpy, abs=1e-10)
    np.testing.assert_allclose(Q, Q_numpy, atol=1e-8)
    assert gap == pytest.approx(gap_numpy, abs=1e-10)
    conic = min_average_leakage_mapping(joint, D, 0.1, solver="CLARABEL")
    assert abs(value - conic["average_leakage"]) <= max(gap, 1e-6) + 1e-6


@pytest.mark.parametrize(("budget", "n_cols"), [(0.05, 3), (0.3, 3), (0.05, 1)])
def test_compiled_level_projection_matches_dense_projection(budget, n_cols, convex_kernels):
    # The kernels' projection (exponentials and level sums in one pass a row, then the
    # scaling), one-column Hamming (one dense level and the diagonal) included.
    joint, D = _hamming_instance(n_cols=n_cols, n_values=4 if n_cols > 1 else 30, seed=2)
    p_y = joint.sum(axis=0)
    logits = np.random.default_rng(3).normal(scale=3, size=D.shape)
    dense, lam_dense = budget_projection(logits.copy(), D, p_y, budget, 0.0, rtol=1e-12)
    levels = DistortionLevels.of(D)
    levels.kernels = convex_kernels
    out = np.empty(D.shape)
    fast, lam_fast = project_levels(logits.copy(), levels, p_y, budget, 0.0, rtol=1e-12, out=out)
    assert fast is out
    assert lam_fast == pytest.approx(lam_dense, rel=1e-8, abs=1e-12)
    np.testing.assert_allclose(fast, dense, rtol=1e-8, atol=1e-14)
    assert p_y @ (fast * D).sum(axis=1) == pytest.approx(budget, rel=1e-9)


def test_compiled_maximum_leakage_brackets_the_numpy_one(convex_kernels, monkeypatch):
    # The maximum leakage's first-order path (smoothing, line search, exact dual) on the
    # kernels: a certified bracket that overlaps the numpy path's.
    from sklearn_privacy.discrete._convex import _problem

    rng = np.random.default_rng(5)
    joint = rng.dirichlet(np.full(3 * 40, 0.5)).reshape(3, 40)
    D = 1 - np.eye(40)
    fast = min_maximum_leakage_mapping(joint, D, 0.1, solver="first-order")
    monkeypatch.setattr(_problem, "_COMPILED_ENTRIES", {"average": np.inf, "maximum": np.inf})
    slow = min_maximum_leakage_mapping(joint, D, 0.1, solver="first-order")
    for result in (fast, slow):
        assert result["gap"] <= 1e-5
    assert fast["maximum_leakage"] == pytest.approx(slow["maximum_leakage"], abs=2e-5)
    assert max_information_leakage(joint @ fast["mapping"]) == pytest.approx(
        fast["maximum_leakage"], abs=1e-12
    )
