"""The kernels are picked once, where a problem is built, and both kinds have one interface."""

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from sklearn_privacy.discrete import _compiled, _greedy_kernels_numpy
from sklearn_privacy.discrete._convex import _kernels_numpy
from sklearn_privacy.discrete._convex._problem import ConvexProblem

DISCRETE = Path(_compiled.__file__).parent
# A branch on which kernels a problem holds: ``kernels is None``, ``kernels is not None``,
# ``kernels is _kernels_numpy``, ``kernels == ...``.
_BRANCH = re.compile(r"kernels\s*(is|==|!=)\s*")


def _branches(text):
    return [line for line in text.splitlines() if _BRANCH.search(line)]


def test_no_branch_on_the_kernels_outside_the_picker():
    assert _branches("        if self.kernels is None:\n") != []  # the pattern bites
    assert _branches("    if kernels is not None and x:\n") != []
    found = {
        path.relative_to(DISCRETE).as_posix(): _branches(path.read_text(encoding="utf-8"))
        for path in DISCRETE.rglob("*.py")
        if path.name != "_compiled.py"
    }
    assert {name: lines for name, lines in found.items() if lines} == {}


@pytest.mark.parametrize(
    ("compiled_name", "numpy_module"),
    [("_convex._kernels", _kernels_numpy), ("_greedy_kernels", _greedy_kernels_numpy)],
)
def test_compiled_and_numpy_kernels_have_the_same_functions(compiled_name, numpy_module):
    pytest.importorskip("numba")
    compiled = _compiled.compiled(compiled_name)
    if compiled is None:
        pytest.skip("numba's JIT is disabled")
    assert sorted(compiled.__all__) == sorted(numpy_module.__all__)
    for name in numpy_module.__all__:
        a, b = getattr(numpy_module, name), getattr(compiled, name)
        if callable(a):
            assert inspect.signature(a) == inspect.signature(b), name
        else:
            assert a == b, name  # the constants both implementations share


def test_a_small_problem_runs_on_numpy():
    joint = np.full((2, 4), 1 / 8)
    problem = ConvexProblem(joint, 1 - np.eye(4), 0.1)
    assert problem.kernels is _kernels_numpy
    assert problem.levels.kernels is _kernels_numpy
    assert _compiled.pick_kernels("_convex._kernels", _kernels_numpy, worth_it=False) is (
        _kernels_numpy
    )
