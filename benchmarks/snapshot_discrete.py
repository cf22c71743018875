"""Snapshot of the discrete mechanisms' fitted values, to compare two versions of the code.

``python benchmarks/snapshot_discrete.py OUT.npz`` runs the three discrete mechanisms and the
public solver functions on 60 cases and stores every fitted number; ``--compare A.npz B.npz``
prints, per case, whether the two snapshots are identical or the largest difference.
``--compiled`` runs every case on the compiled kernels (numba), whatever its size (the
thresholds ``_convex._problem._COMPILED_ENTRIES`` and ``_greedy._COMPILED_WORK`` set to 0):
run it with ``PYTHONPATH`` at another checkout to compare that checkout's compiled paths.
"""

import argparse
import warnings

import numpy as np


def _joint(rng, n_s, n_y, alpha=0.5):
    return rng.dirichlet(np.full(n_s * n_y, alpha)).reshape(n_s, n_y)


def _bunch(prefix, result, out):
    for key, value in result.items():
        if isinstance(value, str):
            continue
        out[f"{prefix}.{key}"] = np.asarray(value, dtype=float)


def _path(prefix, path, out):
    for key in ("merges", "leakage", "disclosure", "lagrangian", "labels"):
        if hasattr(path, key):
            out[f"{prefix}.{key}"] = np.asarray(getattr(path, key), dtype=float)


def _solver_cases(out):
    from sklearn_privacy.discrete import (
        distortion_matrix,
        leakage_distortion_curve,
        min_average_leakage_mapping,
        min_maximum_leakage_mapping,
    )

    rng = np.random.default_rng(0)
    cases = 0
    for n_s, n_y, budget, kind in [
        (2, 6, 0.1, "hamming"),
        (3, 20, 0.2, "hamming"),
        (4, 60, 0.05, "hamming"),
        (3, 150, 0.1, "hamming"),
        (6, 200, 0.05, "hamming"),
        (2, 40, 0.3, "squared"),
        (3, 80, 0.2, "absolute"),
        (4, 120, 0.5, "random"),
        (3, 300, 0.02, "hamming"),
        (5, 90, 0.15, "random"),
    ]:
        joint = _joint(rng, n_s, n_y)
        if kind == "random":
            d = rng.random((n_y, n_y))
            np.fill_diagonal(d, 0.0)
        elif kind == "hamming":
            d = 1.0 - np.eye(n_y)
        else:
            grid = np.arange(n_y, dtype=float).reshape(-1, 1) / n_y
            d = distortion_matrix(grid, grid, kind=kind)
        tag = f"solve_{n_s}x{n_y}_{kind}_{budget}"
        for solver in ("first-order",):
            r = min_average_leakage_mapping(joint, d, budget, solver=solver, max_iter=3000)
            _bunch(f"{tag}.avg.{solver}", r, out)
            cases += 1
        if n_y <= 120:
            r = min_maximum_leakage_mapping(joint, d, budget, solver="first-order", max_iter=600)
            _bunch(f"{tag}.max", r, out)
            cases += 1
        if n_y <= 20:
            r = min_average_leakage_mapping(joint, d, budget)
            _bunch(f"{tag}.avg.auto", r, out)
            curve = leakage_distortion_curve(joint, d, [budget, 2 * budget], solver="first-order")
            for k, r in enumerate(curve):
                _bunch(f"{tag}.curve{k}", r, out)
            cases += 2
    return cases


def _mechanism_cases(out):
    from sklearn_privacy.discrete import (
        ConvexPrivacyMapping,
        PrivacyFunnelTransformer,
        SubmodularFunnel,
        greedy_merge,
        greedy_sweep,
        iac_mdsf,
    )

    rng = np.random.default_rng(1)
    cases = 0
    for n, k_x, k_s in [(400, 6, 2), (1500, 12, 3), (3000, 30, 2), (800, 9, 4)]:
        X = rng.integers(0, k_x, size=(n, 2))
        S = (X[:, 0] + rng.integers(0, 2, size=n)) % k_s
        tag = f"mech_{n}_{k_x}_{k_s}"
        for threshold in (0.5, 0.8):
            for objective in ("funnel", "bottleneck"):
                m = PrivacyFunnelTransformer(threshold, objective=objective).fit(X, sensitive=S)
                out[f"{tag}.funnel.{threshold}.{objective}"] = m.transform(X).astype(float)
                _path(f"{tag}.funnel.{threshold}.{objective}.path", m.path_, out)
                cases += 1
        for lam in (0.3, 0.9):
            m = SubmodularFunnel(lam).fit(X, sensitive=S)
            out[f"{tag}.submod.{lam}"] = m.transform(X).astype(float)
            _path(f"{tag}.submod.{lam}.path", m.path_, out)
            cases += 1
        for leakage in ("average", "maximum"):
            m = ConvexPrivacyMapping(0.2, leakage=leakage, solver="first-order").fit(X, sensitive=S)
            out[f"{tag}.convex.{leakage}"] = np.asarray(m.mapping_, dtype=float)
            cases += 1
    rng = np.random.default_rng(2)
    for n_s, n_x in [(2, 40), (3, 200), (6, 500)]:
        joint = _joint(rng, n_s, n_x)
        _path(f"greedy_{n_s}x{n_x}", greedy_merge(joint, threshold=0.5), out)
        for i, p in enumerate(greedy_sweep(joint, [0.3, 0.6, 0.9])):
            _path(f"sweep_{n_s}x{n_x}.{i}", p, out)
        if n_x <= 200:
            _path(f"iac_{n_s}x{n_x}", iac_mdsf(joint, 0.5), out)
        cases += 3
    return cases


def _everything_compiled():
    from sklearn_privacy.discrete import _greedy
    from sklearn_privacy.discrete._convex import _problem

    _problem._COMPILED_ENTRIES = {"average": 0, "maximum": 0}
    _greedy._COMPILED_WORK = 0


def snapshot(path, compiled=False):
    if compiled:
        _everything_compiled()
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = _solver_cases(out) + _mechanism_cases(out)
    np.savez(path, **out)
    print(f"{n} cases, {len(out)} arrays -> {path}")


def compare(a, b):
    A, B = np.load(a), np.load(b)
    worst = 0.0
    for key in sorted(set(A) | set(B)):
        if key not in A or key not in B:
            print("missing", key)
            worst = np.inf
            continue
        x, y = A[key], B[key]
        if x.shape != y.shape:
            print("shape", key, x.shape, y.shape)
            worst = np.inf
            continue
        if np.array_equal(x, y, equal_nan=True):
            continue
        diff = float(np.nanmax(np.abs(x - y)))
        worst = max(worst, diff)
        print(f"differs {key}: max |diff| {diff:.3g}")
    print(f"{len(A)} arrays; largest difference {worst:.3g}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--compiled", action="store_true")
    args = parser.parse_args()
    compare(*args.paths) if args.compare else snapshot(args.paths[0], args.compiled)
