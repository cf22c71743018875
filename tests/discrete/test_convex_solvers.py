"""Oracle tests of the Thm. 1 / Thm. 2 solvers (privacy-statistical-inference-calmon2012)."""

import inspect

import numpy as np
import pytest
from scipy.optimize import minimize

import sklearn_privacy.discrete as discrete
from sklearn_privacy.discrete import (
    ConvexSolverError,
    leakage_distortion_curve,
    min_achievable_distortion,
    min_average_leakage_mapping,
    min_maximum_leakage_mapping,
)
from sklearn_privacy.discrete._convex._first_order import dual_bound
from sklearn_privacy.discrete._convex._problem import _sufficient_joint
from sklearn_privacy.discrete._convex._programs import _AverageLeakageProgram, _MaxLeakageProgram
from sklearn_privacy.information import entropy, max_information_leakage, mutual_information


def _random_instance(seed, n_s=3, n_y=6, n_u=6):
    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.ones(n_s * n_y)).reshape(n_s, n_y)
    D = rng.uniform(0, 1, (n_y, n_u))
    D[np.arange(min(n_y, n_u)), np.arange(min(n_y, n_u))] = 0.0
    return joint, D


def _budgets(joint, D):
    least = min_achievable_distortion(joint, D)
    constant = min(joint.sum(axis=0) @ D)  # best constant output: zero leakage
    return [least + f * (constant - least) for f in (0.1, 0.4, 0.7)]


def _check_feasible(result, joint, D, budget):
    Q = result["mapping"]
    assert np.all(Q >= 0)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, atol=1e-8)
    assert joint.sum(axis=0) @ (Q * D).sum(axis=1) <= budget + 1e-7


def _posteriors(joint, Q):
    R = np.clip(joint @ Q, 1e-300, None)
    return R, R / R.sum(axis=0)


def _slsqp_average(joint, D, budget, starts=2, seed=0):
    """Independent oracle of Thm. 1: SLSQP on P(U|Y) with the analytic gradient."""
    n_y, n_u = D.shape
    p_y = joint.sum(axis=0)

    def unpack(x):
        return np.clip(x.reshape(n_y, n_u), 0, None)

    def fun(x):
        Q = unpack(x)
        R = joint @ Q
        return mutual_information(R / R.sum())

    def jac(x):
        _, post = _posteriors(joint, unpack(x))
        return (joint.T @ np.log(post)).ravel()

    cons = [
        {
            "type": "eq",
            "fun": lambda x: x.reshape(n_y, n_u).sum(axis=1) - 1,
            "jac": lambda x: np.kron(np.eye(n_y), np.ones(n_u)),
        },
        {
            "type": "ineq",
            "fun": lambda x: budget - p_y @ (x.reshape(n_y, n_u) * D).sum(axis=1),
            "jac": lambda x: -(p_y[:, None] * D).ravel(),
        },
    ]
    rng = np.random.default_rng(seed)
    best = np.inf
    for _ in range(starts):
        x0 = rng.dirichlet(np.ones(n_u), n_y).ravel()
        res = minimize(
            fun,
            x0,
            jac=jac,
            bounds=[(0, 1)] * x0.size,
            constraints=cons,
            method="SLSQP",
            options={"ftol": 1e-13, "maxiter": 400},
        )
        Q = unpack(res.x)
        Q /= Q.sum(axis=1, keepdims=True)
        if p_y @ (Q * D).sum(axis=1) <= budget + 1e-7:
            best = min(best, fun(Q.ravel()))
    return best


@pytest.mark.parametrize(
    "seed", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)]
)
def test_average_leakage_matches_slsqp_oracle(seed):
    joint, D = _random_instance(seed)
    for budget in _budgets(joint, D):
        result = min_average_leakage_mapping(joint, D, budget)
        _check_feasible(result, joint, D, budget)
        oracle = _slsqp_average(joint, D, budget, seed=seed)
        value = result["average_leakage"]
        # The convex optimum is global: never worse than a local oracle, and equal to it.
        assert value <= oracle + 1e-7
        assert abs(value - oracle) <= 1e-5 * oracle + 1e-8


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_first_order_matches_conic(seed):
    joint, D = _random_instance(seed)
    for budget in _budgets(joint, D):
        conic = min_average_leakage_mapping(joint, D, budget, solver="CLARABEL")
        fo = min_average_leakage_mapping(joint, D, budget, solver="first-order", tol=1e-8)
        _check_feasible(fo, joint, D, budget)
        assert fo["solver"] == "first-order"
        assert abs(fo["average_leakage"] - conic["average_leakage"]) <= 1e-6
        # The certificate bounds the distance to the optimum from above.
        assert fo["average_leakage"] - conic["average_leakage"] <= fo["gap"] + 1e-8


def _bsc(alpha):
    return np.array([[1 - alpha, alpha], [alpha, 1 - alpha]])


@pytest.mark.parametrize("leakage", ["average", "maximum"])
@pytest.mark.parametrize("budget", [0.0, 0.05, 0.2, 0.35])
def test_binary_symmetric_closed_form(leakage, budget):
    # S uniform, Y = S through BSC(alpha), Hamming: the optimal U is Y through BSC(budget),
    # so S -> U is BSC(alpha * budget) and both leakages equal ln 2 - h(alpha * budget).
    alpha = 0.1
    joint = 0.5 * _bsc(alpha)
    crossover = alpha * (1 - budget) + (1 - alpha) * budget
    expected = np.log(2) - entropy([crossover, 1 - crossover])
    fn = min_average_leakage_mapping if leakage == "average" else min_maximum_leakage_mapping
    result = fn(joint, 1 - np.eye(2), budget)
    _check_feasible(result, joint, 1 - np.eye(2), budget)
    assert result[f"{leakage}_leakage"] == pytest.approx(expected, abs=2e-6)


def _slsqp_maximum(joint, D, budget, starts=3, seed=0):
    """Independent oracle of Thm. 2: epigraph min t, H(S) - H(S|u) <= t, by SLSQP."""
    n_y, n_u = D.shape
    p_y = joint.sum(axis=0)
    h_s = entropy(joint.sum(axis=1))

    def leak(x):
        _, post = _posteriors(joint, np.clip(x[:-1].reshape(n_y, n_u), 0, None))
        return h_s + (post * np.log(post)).sum(axis=0)

    cons = [
        {"type": "eq", "fun": lambda x: x[:-1].reshape(n_y, n_u).sum(axis=1) - 1},
        {
            "type": "ineq",
            "fun": lambda x: budget - p_y @ (x[:-1].reshape(n_y, n_u) * D).sum(axis=1),
        },
        {"type": "ineq", "fun": lambda x: x[-1] - leak(x)},
    ]
    rng = np.random.default_rng(seed)
    best = np.inf
    for _ in range(starts):
        Q0 = rng.dirichlet(np.ones(n_u), n_y)
        x0 = np.r_[Q0.ravel(), h_s]
        res = minimize(
            lambda x: x[-1],
            x0,
            bounds=[(0, 1)] * (x0.size - 1) + [(0, None)],
            constraints=cons,
            method="SLSQP",
            options={"ftol": 1e-13, "maxiter": 3000},
        )
        Q = np.clip(res.x[:-1].reshape(n_y, n_u), 0, None)
        Q /= Q.sum(axis=1, keepdims=True)
        Q[:, (p_y @ Q) < 1e-9] = 0  # outputs SLSQP leaves with no mass
        Q /= Q.sum(axis=1, keepdims=True)
        if p_y @ (Q * D).sum(axis=1) <= budget + 1e-7:
            best = min(best, max_information_leakage(joint @ Q))
    return best


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1])
def test_maximum_leakage_matches_slsqp_oracle(seed):
    joint, D = _random_instance(seed, n_s=3, n_y=4, n_u=4)
    for budget in _budgets(joint, D)[:2]:
        result = min_maximum_leakage_mapping(joint, D, budget, tol=1e-8)
        _check_feasible(result, joint, D, budget)
        oracle = _slsqp_maximum(joint, D, budget, seed=seed)
        value = result["maximum_leakage"]
        assert value <= oracle + 2e-6
        assert abs(value - oracle) <= 1e-5 * oracle + 2e-6


def test_maximum_leakage_independent_release_is_zero():
    joint, D = _random_instance(3)
    budget = min(joint.sum(axis=0) @ D) + 1e-3
    result = min_maximum_leakage_mapping(joint, D, budget)
    assert result["maximum_leakage"] <= 1e-7
    assert result["epsilon"] == 0.0


def test_curve_reuses_one_program_and_is_monotone():
    joint, D = _random_instance(4)
    budgets = np.linspace(min_achievable_distortion(joint, D), 0.4, 5)
    curve = leakage_distortion_curve(joint, D, budgets)
    values = [r["average_leakage"] for r in curve]
    assert np.all(np.diff(values) <= 1e-8)
    for budget, r in zip(budgets, curve):
        direct = min_average_leakage_mapping(joint, D, budget)
        assert r["average_leakage"] == pytest.approx(direct["average_leakage"], abs=1e-7)


@pytest.mark.parametrize("leakage", ["average", "maximum"])
def test_curve_builds_its_program_once(monkeypatch, leakage):
    built = []

    def counting(init):
        def __init__(self, *args, **kwargs):
            built.append(type(self).__name__)
            init(self, *args, **kwargs)

        return __init__

    for cls in (_AverageLeakageProgram, _MaxLeakageProgram):
        monkeypatch.setattr(cls, "__init__", counting(cls.__init__))
    joint, D = _random_instance(4)
    least = min_achievable_distortion(joint, D)
    budgets = [least + f * (min(joint.sum(axis=0) @ D) - least) for f in (0.2, 0.4, 0.6)]
    curve = leakage_distortion_curve(joint, D, budgets, leakage=leakage)
    assert len(built) == 1  # one cvxpy program, re-solved at every budget
    assert [r["solver"] for r in curve] == ["CLARABEL"] * 3
    built.clear()
    min_average_leakage_mapping(joint, D, budgets[1])
    min_maximum_leakage_mapping(joint, D, budgets[1])
    assert len(built) == 2  # the public functions build their own


def test_no_public_function_of_discrete_takes_a_private_parameter():
    for name in discrete.__all__:
        obj = getattr(discrete, name)
        func = obj.__init__ if inspect.isclass(obj) else obj
        if not callable(func) or func is object.__init__:
            continue
        private = [p for p in inspect.signature(func).parameters if p.startswith("_")]
        assert not private, f"{name} takes the private parameter(s) {private}"


@pytest.mark.parametrize(
    "D, match",
    [
        (np.zeros((5, 2)), r"shape \(n_y, n_u\) = \(6, n_u\)"),
        (-np.ones((6, 6)), "negative entries"),
        (np.full((6, 6), np.nan), "NaN"),
    ],
)
def test_bad_distortion_errors(D, match):
    joint, _ = _random_instance(0)
    with pytest.raises(ValueError, match=match):
        min_average_leakage_mapping(joint, D, 0.1)


def test_budget_below_least_distortion_says_the_least():
    joint, D = _random_instance(0)
    D = D + 0.3
    least = min_achievable_distortion(joint, D)
    with pytest.raises(ValueError, match=f"least achievable expected distortion {least:.6g}"):
        min_average_leakage_mapping(joint, D, least - 0.01)
    with pytest.raises(ValueError, match="max_distortion"):
        min_maximum_leakage_mapping(joint, D, least - 0.01)


def test_fallback_chain_said_at_verbose(monkeypatch, capsys):
    import cvxpy as cp

    original = _AverageLeakageProgram.solve

    def failing(self, budget, solver, options):
        if solver in ("CLARABEL", "SCS"):
            raise cp.error.SolverError(f"{solver} broke")
        return original(self, budget, solver, options)

    monkeypatch.setattr(_AverageLeakageProgram, "solve", failing)
    joint, D = _random_instance(0)
    result = min_average_leakage_mapping(joint, D, 0.2, verbose=1)
    out = capsys.readouterr().out
    assert "CLARABEL failed" in out and "falling back to SCS" in out
    assert "falling back to first-order" in out
    assert result["solver"] == "first-order"
    assert capsys.readouterr().out == ""
    min_average_leakage_mapping(joint, D, 0.2)  # silent without verbose
    assert capsys.readouterr().out == ""


def test_named_solver_failure_is_clear(monkeypatch):
    def inaccurate(self, budget, solver, options):
        return "optimal_inaccurate", None

    monkeypatch.setattr(_AverageLeakageProgram, "solve", inaccurate)
    joint, D = _random_instance(0)
    with pytest.raises(ConvexSolverError, match="SCS returned status 'optimal_inaccurate'"):
        min_average_leakage_mapping(joint, D, 0.2, solver="SCS")


def test_unknown_solver_is_clear():
    joint, D = _random_instance(0)
    with pytest.raises(ConvexSolverError, match="NOT_A_SOLVER"):
        min_average_leakage_mapping(joint, D, 0.2, solver="NOT_A_SOLVER")


def test_auto_goes_first_order_for_large_alphabets():
    rng = np.random.default_rng(0)
    n = 130
    joint = rng.dirichlet(np.full(4 * n, 0.5)).reshape(4, n)
    result = min_average_leakage_mapping(joint, 1 - np.eye(n), 0.05)
    assert result["solver"] == "first-order"
    assert result["gap"] < 1e-5


def test_first_order_500_within_1e5_of_optimum():
    # |Y| = |U| = 500, |S| = 6, Hamming, budget 0.05: the duality-gap certificate
    # bounds the distance to the optimum.
    rng = np.random.default_rng(0)
    n = 500
    joint = rng.dirichlet(np.full(6 * n, 0.5)).reshape(6, n)
    D = 1 - np.eye(n)
    result = min_average_leakage_mapping(joint, D, 0.05)
    _check_feasible(result, joint, D, 0.05)
    assert result["solver"] == "first-order"
    assert result["gap"] <= 1e-5


def test_first_order_matches_clarabel_at_50():
    # A size where the interior-point solver is still reliable: the certified gap
    # bounds the distance to its optimum, and both agree within 1e-5 nats.
    rng = np.random.default_rng(1)
    n = 50
    joint = rng.dirichlet(np.full(6 * n, 0.5)).reshape(6, n)
    D = 1 - np.eye(n)
    conic = min_average_leakage_mapping(joint, D, 0.05, solver="CLARABEL")
    fo = min_average_leakage_mapping(joint, D, 0.05, solver="first-order")
    _check_feasible(fo, joint, D, 0.05)
    assert fo["gap"] <= 1e-5
    assert abs(fo["average_leakage"] - conic["average_leakage"]) <= 1e-5
    assert fo["average_leakage"] - conic["average_leakage"] <= fo["gap"] + 1e-7


@pytest.mark.parametrize("seed", [0, 1])
def test_dual_bound_is_below_the_optimum(seed):
    # Weak duality: the bound of any posteriors is below the optimum; the bound at the
    # lam maximising it is at least the bound at any other lam (brute force over a grid).
    joint, D = _random_instance(seed)
    p_y = joint.sum(axis=0)
    h_s = entropy(joint.sum(axis=1))
    psy = (joint / p_y).T
    for budget in _budgets(joint, D):
        opt = min_average_leakage_mapping(joint, D, budget, solver="CLARABEL")
        rng = np.random.default_rng(seed)
        for _ in range(5):
            G = psy @ np.log(rng.dirichlet(np.ones(3), D.shape[1]).T)
            bound = dual_bound(G, D, p_y, budget, h_s, 1.0)
            assert bound <= opt["average_leakage"] + 1e-9
            grid = np.linspace(0, 20, 4001)
            brute = max(h_s + p_y @ (G + lam * D).min(axis=1) - lam * budget for lam in grid)
            assert bound >= brute - 1e-6


@pytest.mark.parametrize("leakage", ["average", "maximum"])
def test_proportional_rows_of_s_are_merged_exactly(leakage):
    # Splitting each value of S into two with the same P(Y | S) changes neither
    # leakage; the solvers see the merged S (the counting query: 2^n rows -> n + 1).
    joint, D = _random_instance(5, n_s=3, n_y=4, n_u=4)
    split = np.vstack([0.3 * joint, 0.7 * joint])
    assert _sufficient_joint(split).shape == (3, 4)
    fn = min_average_leakage_mapping if leakage == "average" else min_maximum_leakage_mapping
    budget = _budgets(joint, D)[1]
    a, b = fn(joint, D, budget), fn(split, D, budget)
    assert b[f"{leakage}_leakage"] == pytest.approx(a[f"{leakage}_leakage"], abs=1e-6)
    # The reported leakage is that of the given joint.
    assert b["average_leakage"] == pytest.approx(
        mutual_information(split @ b["mapping"]), abs=1e-12
    )


RESULT_KEYS = [
    "mapping",
    "leakage_measure",
    "leakage",
    "average_leakage",
    "maximum_leakage",
    "distortion",
    "solver",
    "n_iter",
    "gap",
    "epsilon",
    "n_failed",
]


def _every_path():
    """(name, result) for every path of every public solver function, and what it must say."""
    joint, D = _random_instance(1)
    least = min_achievable_distortion(joint, D)
    constant = min(joint.sum(axis=0) @ D)
    mid = least + 0.4 * (constant - least)
    average, maximum = min_average_leakage_mapping, min_maximum_leakage_mapping
    curve_avg = leakage_distortion_curve(joint, D, [least, mid])
    curve_max = leakage_distortion_curve(joint, D, [mid, constant], leakage="maximum")
    # name: (result, solver, n_iter (or "positive"), rule for gap, rule for epsilon)
    return (
        joint,
        D,
        {
            "average constant": (average(joint, D, constant), "constant", 0, "nan", "nan"),
            "average closest": (average(joint, D, least), "closest", 0, "zero", "nan"),
            "average conic": (average(joint, D, mid), "CLARABEL", 1, "nan", "nan"),
            "average first-order": (
                average(joint, D, mid, solver="first-order"),
                "first-order",
                "positive",
                "certified",
                "nan",
            ),
            "maximum HIGHS": (maximum(joint, D, constant), "HIGHS", 0, "nan", "zero"),
            "maximum closest": (maximum(joint, D, least), "closest", 0, "zero", "leakage"),
            "maximum conic": (maximum(joint, D, mid), "CLARABEL", "positive", "nan", "bracket"),
            "maximum first-order": (
                maximum(joint, D, mid, solver="first-order", max_iter=300),
                "first-order",
                300,
                "certified",
                "leakage",
            ),
            "curve average closest": (curve_avg[0], "closest", 0, "zero", "nan"),
            "curve average conic": (curve_avg[1], "CLARABEL", 1, "nan", "nan"),
            "curve maximum conic": (curve_max[0], "CLARABEL", "positive", "nan", "bracket"),
            "curve maximum HIGHS": (curve_max[1], "HIGHS", 0, "nan", "zero"),
        },
    )


def _holds(rule, value, result):
    """Whether ``gap`` or ``epsilon`` of ``result`` says what its path must say."""
    if rule == "nan":
        return np.isnan(value)
    if rule == "zero":
        return value == 0.0
    if rule == "certified":
        return 0.0 <= value <= 1e-3
    if rule == "leakage":
        return value == pytest.approx(result["maximum_leakage"], abs=1e-12)
    # "bracket": the upper end of the line search's bracket, within its tolerance of the
    # mapping's checked leakage, which may exceed it by the solver's accuracy.
    return 0.0 <= result["maximum_leakage"] - value <= 1e-6


def test_every_public_function_returns_one_result_type_with_the_same_keys():
    from sklearn.utils import Bunch

    from sklearn_privacy.discrete import ConvexMappingResult

    joint, D, paths = _every_path()
    for name, (result, solver, n_iter, gap, epsilon) in paths.items():
        assert type(result) is ConvexMappingResult, name
        assert isinstance(result, Bunch), name
        assert list(result) == RESULT_KEYS, name
        measure = "maximum" if "maximum" in name else "average"
        assert result["leakage_measure"] == result.leakage_measure == measure, name
        assert result["leakage"] == result[f"{measure}_leakage"], name
        # Every number is the mapping's own, recomputed here.
        Q = result["mapping"]
        assert result["average_leakage"] == pytest.approx(
            mutual_information(joint @ Q), abs=1e-12
        ), name
        assert result["maximum_leakage"] == pytest.approx(
            max_information_leakage(joint @ Q), abs=1e-12
        ), name
        assert result["distortion"] == pytest.approx(joint.sum(axis=0) @ (Q * D).sum(axis=1))
        assert result["solver"] == solver, name
        assert type(result["n_iter"]) is int and type(result["n_failed"]) is int, name
        assert result["n_failed"] == 0, name
        if n_iter == "positive":
            assert result["n_iter"] > 0, name
        else:
            assert result["n_iter"] == n_iter, name
        assert type(result["gap"]) is float and type(result["epsilon"]) is float, name
        assert _holds(gap, result["gap"], result), (name, result["gap"])
        assert _holds(epsilon, result["epsilon"], result), (name, result["epsilon"])


def test_result_pickles_with_its_keys():
    import pickle

    joint, D = _random_instance(1)
    result = min_average_leakage_mapping(joint, D, 0.1)
    again = pickle.loads(pickle.dumps(result))
    assert type(again) is type(result) and list(again) == RESULT_KEYS
    np.testing.assert_array_equal(again.mapping, result["mapping"])
    assert again.leakage == result.leakage


@pytest.mark.parametrize(
    "solve, progress",
    [
        (min_average_leakage_mapping, "first-order iter 10: I(S;U)="),
        (min_maximum_leakage_mapping, "smoothed max leakage t=10: "),
    ],
)
def test_verbose_levels_of_the_first_order_path(capsys, solve, progress):
    # One meaning of verbose: 1 says which solver ran and what it took, 2 adds its progress.
    joint, D = _random_instance(1)
    least = min_achievable_distortion(joint, D)
    budget = least + 0.4 * (min(joint.sum(axis=0) @ D) - least)
    said = {}
    for verbose in (0, 1, 2):
        solve(joint, D, budget, solver="first-order", max_iter=300, verbose=verbose)
        said[verbose] = capsys.readouterr().out
    assert said[0] == ""
    summary = "[ConvexPrivacyMapping] first-order path: "
    assert said[1].startswith(summary) and said[1].count("\n") == 1
    assert progress not in said[1]
    assert f"[ConvexPrivacyMapping] {progress}" in said[2]
    assert said[2].splitlines()[-1].startswith(summary)
