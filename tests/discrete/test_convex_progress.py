"""Live progress of the convex mapping's long loops at ``verbose >= 1`` (issue 27).

The bars go to stderr (tqdm), the stage lines to stdout; ``verbose=0`` prints
nothing, and the bars never change a result. The redraw interval is set to 0
here so that every step is drawn (by default at most four redraws a second).
"""

import re

import numpy as np
import pytest

from sklearn_privacy.discrete import (
    ConvexPrivacyMapping,
    leakage_distortion_curve,
    min_average_leakage_mapping,
    min_maximum_leakage_mapping,
)
from sklearn_privacy.discrete._convex import _first_order_loops, _problem


@pytest.fixture
def every_step(monkeypatch):
    """Redraw the bars at every update (the default waits 0.25 s between redraws)."""
    monkeypatch.setattr(_problem, "_REFRESH_S", 0.0)


def _hamming_instance(n_y=150, n_s=4, seed=0):
    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.full(n_s * n_y, 0.5)).reshape(n_s, n_y)
    return joint, 1.0 - np.eye(n_y)


def _bar_states(err, desc):
    """The ``(done, total, postfix)`` of each drawn state of the bar labelled ``desc``."""
    head = re.compile(re.escape(desc) + r":\s+\d+%\|[^|]*\| (\d+)/(\d+) \[[^,]*, [^,\]]*(.*)\]\s*$")
    states = []
    for line in re.split(r"[\r\n]", err):
        match = head.match(line)
        if match:
            done, total, rest = match.groups()
            states.append((int(done), int(total), rest[2:] if rest.startswith(", ") else rest))
    return states


def test_first_order_bar_shows_iterations_and_gap_while_it_runs(every_step, capsys, monkeypatch):
    joint, D = _hamming_instance()
    # Read stderr in the middle of the loop (at its 5th certificate check, iteration 50).
    seen, calls = [], [0]
    bound = _first_order_loops.dual_bound_levels

    def spying_bound(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 5:
            seen.append(capsys.readouterr().err)
        return bound(*args, **kwargs)

    monkeypatch.setattr(_first_order_loops, "dual_bound_levels", spying_bound)
    result = min_average_leakage_mapping(joint, D, 0.1, solver="first-order", verbose=1)
    assert result["n_iter"] > 50 and len(seen) == 1
    states = _bar_states(seen[0], "first-order, average leakage")
    # Before the end: the iterations drawn against max_iter, and the certified gap
    # against tol from the first check (iteration 10) on.
    assert [done for done, _, _ in states] == list(range(51))
    assert {total for _, total, _ in states} == {20_000}
    gaps = [post for done, _, post in states if done > 10]
    assert gaps and all(re.fullmatch(r"gap \d\.\d\de[-+]\d+ \(tol 1e-07\).*", g) for g in gaps)
    captured = capsys.readouterr()
    # The working-set phase goes on on the same bar, and it counts every iteration.
    states = _bar_states(captured.err, "first-order, average leakage")
    assert states[-1][0] == result["n_iter"]
    assert any(post.endswith(", working set") for _, _, post in states)
    # stdout keeps its one summary line at verbose=1.
    assert captured.out.startswith("[ConvexPrivacyMapping] first-order path: ")
    assert captured.out.count("\n") == 1


def test_the_estimator_shows_the_bar_on_stderr(capsys):
    # Default redraw interval: the bar is drawn when it starts and when it ends at least.
    joint, _ = _hamming_instance(n_y=120)
    s, y = np.nonzero(joint > 0)
    X = np.column_stack([s, y])
    mech = ConvexPrivacyMapping(
        max_distortion=0.1, solver="first-order", sensitive=[0], max_categories=None, verbose=1
    )
    mech.fit(X, sample_weight=joint[s, y])
    captured = capsys.readouterr()
    states = _bar_states(captured.err, "first-order, average leakage")
    assert states[0][:2] == (0, mech.max_iter)
    assert "[ConvexPrivacyMapping] first-order path: " in captured.out


@pytest.mark.parametrize("verbose", [0, 1])
def test_verbose_zero_is_silent_and_one_is_not(capsys, verbose):
    joint, D = _hamming_instance(n_y=40)
    small = joint[:, :6] / joint[:, :6].sum()
    calls = [
        lambda: min_average_leakage_mapping(joint, D, 0.1, solver="first-order", verbose=verbose),
        lambda: min_maximum_leakage_mapping(
            joint, D, 0.1, solver="first-order", max_iter=300, verbose=verbose
        ),
        lambda: min_average_leakage_mapping(small, 1 - np.eye(6), 0.2, verbose=verbose),
        lambda: min_maximum_leakage_mapping(small, 1 - np.eye(6), 0.2, verbose=verbose),
        lambda: leakage_distortion_curve(small, 1 - np.eye(6), [0.1, 0.2], verbose=verbose),
    ]
    for call in calls:
        call()
        captured = capsys.readouterr()
        if verbose:
            assert captured.out.startswith("[ConvexPrivacyMapping] ")
        else:
            assert captured.out == "" and captured.err == ""


def test_maximum_leakage_bars_smoothing_and_certificate(every_step, capsys):
    joint, D = _hamming_instance(n_y=40)
    result = min_maximum_leakage_mapping(
        joint, D, 0.1, solver="first-order", max_iter=300, verbose=1
    )
    err = capsys.readouterr().err
    warm = _bar_states(err, "first-order, maximum leakage: warm start")
    assert warm and {total for _, total, _ in warm} == {75}
    smoothing = _bar_states(err, "first-order, maximum leakage")
    # It starts where the warm start stopped and ends at the iterations returned.
    assert smoothing[0][0] == warm[-1][0] and smoothing[-1][0] == result["n_iter"]
    assert any(re.fullmatch(r"t=10, max leakage in \[.*, .*\]", p) for _, _, p in smoothing)
    dual = _bar_states(err, "maximum leakage: exact dual")
    assert dual and all(
        re.fullmatch(r"eps=\S+, bracket width \S+", p) for done, _, p in dual if done
    )
    widths = [float(p.split("width ")[1]) for done, _, p in dual if done]
    assert widths[-1] == pytest.approx(result["gap"], rel=1e-2, abs=1e-12)


def test_conic_line_search_says_its_solver_and_shows_the_bracket(every_step, capsys):
    joint, _ = _hamming_instance(n_y=6)
    joint = joint / joint.sum()
    result = min_maximum_leakage_mapping(joint, 1 - np.eye(6), 0.2, tol=1e-4, verbose=1)
    captured = capsys.readouterr()
    first = captured.out.splitlines()[0]
    assert first.startswith("[ConvexPrivacyMapping] starting the line search over eps: ")
    assert "CLARABEL" in first and "(6 x 6 mapping)" in first
    states = _bar_states(captured.err, "maximum leakage: line search over eps")
    assert states[-1][0] == result["n_iter"]
    widths = [float(p.split("width ")[1]) for done, _, p in states if done]
    assert widths == sorted(widths, reverse=True) and widths[-1] > 1e-4


@pytest.mark.parametrize(
    "solve, kwargs",
    [
        (min_average_leakage_mapping, {"solver": "first-order"}),
        (min_maximum_leakage_mapping, {"solver": "first-order", "max_iter": 300}),
        (min_maximum_leakage_mapping, {}),
    ],
)
def test_progress_never_changes_the_result(every_step, capsys, solve, kwargs):
    joint, D = _hamming_instance(n_y=40 if kwargs else 6)
    joint = joint / joint.sum()
    quiet = solve(joint, D, 0.1, verbose=0, **kwargs)
    shown = solve(joint, D, 0.1, verbose=1, **kwargs)
    assert capsys.readouterr().err
    np.testing.assert_array_equal(shown["mapping"], quiet["mapping"])
    for key in ("leakage", "gap", "n_iter", "epsilon", "solver"):
        assert shown[key] == quiet[key] or (np.isnan(shown[key]) and np.isnan(quiet[key]))


def test_conic_solve_is_announced_before_it_runs(capsys, monkeypatch):
    from sklearn_privacy.discrete._convex import _programs

    joint, _ = _hamming_instance(n_y=6)
    joint = joint / joint.sum()
    original = _programs._AverageLeakageProgram.solve
    said_before = []

    def spying_solve(self, budget, solver, options):
        said_before.append(capsys.readouterr().out)
        return original(self, budget, solver, options)

    monkeypatch.setattr(_programs._AverageLeakageProgram, "solve", spying_solve)
    min_average_leakage_mapping(joint, 1 - np.eye(6), 0.2, verbose=1)
    assert said_before == ["[ConvexPrivacyMapping] solving with CLARABEL (6 x 6 mapping).\n"]
    assert capsys.readouterr().out == "[ConvexPrivacyMapping] solved with CLARABEL.\n"


def test_curve_bar_counts_the_budgets(every_step, capsys):
    joint, _ = _hamming_instance(n_y=6)
    joint = joint / joint.sum()
    leakage_distortion_curve(joint, 1 - np.eye(6), [0.1, 0.2, 0.3], verbose=1)
    states = _bar_states(capsys.readouterr().err, "leakage-distortion curve (budgets)")
    # Redrawn at each step, and again around each stage line (tqdm.write).
    done = [done for done, _, _ in states]
    assert done == sorted(done) and set(done) == {0, 1, 2, 3}
    assert {total for _, total, _ in states} == {3}
