"""The discrete solvers give the same results with and without numpy's AVX-512 loops.

Numpy vectorises float64 ``log`` and ``exp`` only with AVX-512, so its results move by an
ulp between CPUs (issue 49); ``NPY_DISABLE_CPU_FEATURES`` gives the second setting on one
machine. A child process with AVX-512 disabled fits a small convex mapping and a small
greedy path, on numpy and on the compiled kernels where numba is installed, and they must
agree with this process's fits to the tolerances of ``docs/design.md`` ("The convex
passes", "One logarithm per greedy state"): a convex fit's leakage and gap within 1e-10 and
its mapping within 1e-8; a greedy path's merges equal and its informations within 1e-12.
On a CPU without AVX-512 (this project's AMD EPYC) the two settings run the same code;
on one with it, the child runs numpy's other loops.

The normal setting runs here rather than in a second child: importing the package costs
about 3 s of CPU a process, which one child already spends.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from sklearn_privacy.discrete import _compiled

CONVEX_TOL = {"leakage": 1e-10, "gap": 1e-10, "mapping": 1e-8}
GREEDY_TOL = 1e-12

# Runs the fits in this process (imported) or in the child (``python -c``): a dict of lists.
FITS = """
import numpy as np
from sklearn_privacy.discrete import _compiled, _greedy, greedy_merge
from sklearn_privacy.discrete import min_average_leakage_mapping
from sklearn_privacy.discrete._convex import _problem


def fits():
    rng = np.random.default_rng(49)
    joint = rng.dirichlet(np.full(2 * 30, 0.5)).reshape(2, 30)
    D = 1 - np.eye(30)
    path_joint = rng.dirichlet(np.full(4 * 40, 0.5)).reshape(4, 40)
    out = {}
    on_kernels = [False]
    if _compiled.compiled("_convex._kernels") and _compiled.compiled("_greedy_kernels"):
        on_kernels.append(True)
    for compiled in on_kernels:
        # the size thresholds: 0 puts these small problems on the kernels, inf on numpy
        limit = 0 if compiled else np.inf
        _problem._COMPILED_ENTRIES = {"average": limit, "maximum": limit}
        _greedy._COMPILED_WORK = limit
        name = "compiled" if compiled else "numpy"
        r = min_average_leakage_mapping(joint, D, 0.1, solver="first-order", tol=1e-8)
        out[f"convex {name}"] = {
            "leakage": float(r["leakage"]), "gap": float(r["gap"]),
            "mapping": r["mapping"].tolist(),
        }
        p = greedy_merge(path_joint, threshold=0.5)
        out[f"greedy {name}"] = {
            "merges": np.asarray(p.merges).tolist(), "leakage": p.leakage.tolist(),
            "disclosure": p.disclosure.tolist(),
        }
    return out
"""

CHILD = (
    FITS
    + """
import json
from numpy._core._multiarray_umath import __cpu_features__
print(json.dumps({"fits": fits(), "features": __cpu_features__}))
"""
)


def _avx512_names():
    """Numpy's dispatched AVX-512 targets (numpy 2.4: ``X86_V4 AVX512_ICL AVX512_SPR``)."""
    from numpy._core._multiarray_umath import __cpu_dispatch__

    return [name for name in __cpu_dispatch__ if name.startswith(("AVX512", "X86_V4"))]


def _in_this_process(monkeypatch):
    from sklearn_privacy.discrete import _greedy
    from sklearn_privacy.discrete._convex import _problem

    # the fits set the thresholds; monkeypatch puts them back
    monkeypatch.setattr(_problem, "_COMPILED_ENTRIES", dict(_problem._COMPILED_ENTRIES))
    monkeypatch.setattr(_greedy, "_COMPILED_WORK", _greedy._COMPILED_WORK)
    namespace = {}
    exec(compile(FITS, "<fits>", "exec"), namespace)
    return namespace["fits"]()


def _disagreements(a, b):
    """The fits of ``a`` and ``b`` that differ by more than the documented tolerances."""
    bad = []
    assert sorted(a) == sorted(b)
    for name in a:
        x, y = a[name], b[name]
        if name.startswith("convex"):
            for key, tol in CONVEX_TOL.items():
                if not np.allclose(x[key], y[key], rtol=0, atol=tol):
                    bad.append(f"{name} {key}")
        else:
            if x["merges"] != y["merges"]:
                bad.append(f"{name} merges")
            for key in ("leakage", "disclosure"):
                if len(x[key]) != len(y[key]) or not np.allclose(
                    x[key], y[key], rtol=0, atol=GREEDY_TOL
                ):
                    bad.append(f"{name} {key}")
    return bad


def test_the_comparison_bites():
    fits = {
        "convex numpy": {"leakage": 0.1, "gap": 1e-9, "mapping": [[1.0, 0.0]]},
        "greedy numpy": {"merges": [[0, 1]], "leakage": [0.2, 0.1], "disclosure": [1.0, 0.5]},
    }
    assert _disagreements(fits, fits) == []
    moved = json.loads(json.dumps(fits))
    moved["convex numpy"]["leakage"] += 5e-10  # beyond 1e-10
    moved["convex numpy"]["mapping"][0][1] = 5e-8  # beyond 1e-8
    moved["greedy numpy"]["leakage"][1] += 5e-12  # beyond 1e-12
    moved["greedy numpy"]["merges"] = [[0, 2]]
    assert _disagreements(fits, moved) == [
        "convex numpy leakage",
        "convex numpy mapping",
        "greedy numpy merges",
        "greedy numpy leakage",
    ]


def test_the_same_results_with_and_without_avx512(monkeypatch):
    names = _avx512_names()
    if not names:
        pytest.skip("this numpy dispatches no AVX-512 loops")
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(names), OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    child = json.loads(done.stdout.strip().splitlines()[-1])
    # the setting took effect: numpy in the child reports none of them
    assert {name: child["features"][name] for name in names} == dict.fromkeys(names, False)
    here = _in_this_process(monkeypatch)
    expected = ["convex numpy", "greedy numpy"]
    if _compiled.compiled("_convex._kernels") and _compiled.compiled("_greedy_kernels"):
        expected += ["convex compiled", "greedy compiled"]
    assert sorted(here) == sorted(expected)
    assert _disagreements(here, child["fits"]) == []
    # and, in each setting, the kernels agree with numpy to the same tolerances
    for fits in (here, child["fits"]):
        if "convex compiled" in fits:
            numpy_fits = {k.split()[0]: v for k, v in fits.items() if k.endswith("numpy")}
            compiled_fits = {k.split()[0]: v for k, v in fits.items() if k.endswith("compiled")}
            assert _disagreements(numpy_fits, compiled_fits) == []
