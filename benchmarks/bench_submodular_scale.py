"""Scale of IAC-MDSF, and today's code against a baseline commit in the same run.

Sweep (``--sizes``): each size runs ``iac_mdsf`` at ``lam = r`` (``SubmodularFunnel(lam=1)``)
in a fresh subprocess on real-data-like counts (every symbol seen 1-3 times, binary S), and
times ``_best_pair`` alone on the first step; wall, CPU and peak RSS (``getrusage``). A size
that exceeds ``--timeout`` is reported as such. ``--baseline-max`` also runs the ``"ssp"``
solver of the baseline up to that size.

Comparison: git ``--baseline-ref`` (default 9184b27, the code before the pair search kept
across merges, checked out in a temporary worktree) and today's code, each case in a fresh
subprocess, alternating, best of ``--repeats`` CPU times: IAC-MDSF at ``--compare-size``
(3000) symbols of sparse tied counts for each estimator ``lam`` of ``--compare-lams`` (1 and
3: multiplier ``min(lam r, 1)``), and the IAC-MDSF sweep of ``bench_submodular_heart.py`` on
the Hungarian heart data (both settings; funnel at 21 values of the paper's lambda with SSP
and MM, bottleneck at 11 with MM; 106 runs). Reported: CPU seconds, peak RSS, iterations,
the CPU ratio, and whether the merges are the same: as sets of symbols, and up to
exchanging symbols with equal columns (the baseline broke ties between equal columns by
the rounding of BLAS products, so its own merged sets change with the BLAS kernel).
``--skip-heart`` leaves the heart data out; ``--repeats 1 --compare-lams 1`` is a quick run.

Writes ``benchmarks/results/submodular_scale.csv``, ``submodular_compare.csv`` and
``submodular_scale.png``.
"""

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _common import (
    REPO,
    checkout_at_ref,
    default_data_home,
    pyplot,
    remove_checkout,
    save_figure,
    write_csv,
)

HEART_SETTINGS = {"X=(sex,chol)": ["sex", "chol"], "X=(age,chol)": ["age", "chol"]}


def merge_signature(joint, merged_sets):
    """The merges up to exchanging symbols with equal columns.

    Each merge as the sorted list of its merged symbols, each symbol as the sorted list of
    the original columns it holds.
    """
    held = {i: (tuple(col),) for i, col in enumerate(joint.T.tolist())}
    out = []
    for merged in merged_sets:
        parts = sorted(held[int(i)] for i in merged)
        out.append(parts)
        held[int(merged[0])] = tuple(sorted(sum(parts, ())))
        for i in merged[1:]:
            del held[int(i)]
    return out


def _digest(value):
    return hashlib.md5(repr(value).encode()).hexdigest()[:12]


def _run_iac(joint, lam, objective, solver):
    from sklearn_privacy.discrete._submodular import iac_mdsf

    path = iac_mdsf(joint, lam, objective=objective, solver=solver)
    merged = [np.asarray(w).tolist() for w in path.merged_sets]
    # IACPath.lagrangian was IACPath.objective up to the baseline (47b9967).
    lagrangian = path.lagrangian if hasattr(path, "lagrangian") else path.objective
    return {
        "iters": path.n_iter,
        "solves": path.n_solves,
        "ds": int(sum(path.ds_iterations)),
        "lagrangian": float(lagrangian[-1]),
        "path": lagrangian.tolist(),
        "ids": _digest(merged),
        "sig": _digest(merge_signature(joint, merged)),
    }


def _heart_joints(data_home):
    from _common import joint_of

    from sklearn_privacy.datasets import fetch_heart_disease_hungarian

    frame = fetch_heart_disease_hungarian(
        data_home=data_home, as_frame=True, discretize=True, download_if_missing=False
    ).frame
    return {name: joint_of(frame, ["age", "sex"], cols) for name, cols in HEART_SETTINGS.items()}


def worker(spec):
    """One case in this process; prints a JSON line (CPU and peak RSS of this process)."""
    from bench_funnel_scale import sparse_joint

    from sklearn_privacy.information import entropy, mutual_information

    out = {}
    if spec["kind"] == "heart":
        joints = _heart_joints(spec["data_home"])
        c0, t0 = time.process_time(), time.perf_counter()
        runs = []
        for name, joint in joints.items():
            for objective, grid, solvers in [
                ("funnel", np.linspace(0, 1, 21), ["ssp", "mm"]),
                ("bottleneck", np.linspace(0, 1, 11), ["mm"]),
            ]:
                for lam in grid:
                    for solver in solvers:
                        run = _run_iac(joint, float(lam), objective, solver)
                        run.update(case=f"{name} {objective} {lam:.2f} {solver}")
                        runs.append(run)
        out["runs"] = runs
        out["iters"] = sum(r["iters"] for r in runs)
    else:
        joint = sparse_joint(spec["n"])
        rate = mutual_information(joint) / entropy(joint.sum(axis=0))
        lam = min(spec["lam"] * rate, 1.0)
        c0, t0 = time.process_time(), time.perf_counter()
        if spec["kind"] == "pair":
            from sklearn_privacy.discrete import _submodular as sub

            sub._best_pair(sub._Difference(*sub.step_functions(joint, lam)), spec["n"])
            out["iters"] = 0
        else:
            out.update(_run_iac(joint, lam, "funnel", spec["solver"]))
    out["wall"] = time.perf_counter() - t0
    out["cpu"] = time.process_time() - c0
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def _same_path(x, y):
    """Same number of merges and the same Lagrangian after each, to 1e-12."""
    return len(x["path"]) == len(y["path"]) and bool(
        np.allclose(x["path"], y["path"], rtol=0, atol=1e-12)
    )


def run_case(spec, root, timeout):
    """``spec`` in a fresh interpreter importing ``sklearn_privacy`` from ``root``."""
    here = Path(__file__).resolve().parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(here)]))
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    cmd = [sys.executable, str(here / "bench_submodular_scale.py"), "--worker", json.dumps(spec)]
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, check=True, env=env
        )
        return json.loads(done.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as error:
        print(error.stderr[-2000:], file=sys.stderr)
        return None


def sweep(args, baseline_root):
    rows = []
    head = f"{'what':>10s} {'n':>6s} {'iters':>5s} {'wall s':>8s} {'cpu s':>8s} {'RSS MB':>8s}"
    print(head + "  merges (up to equal columns)")
    for n in args.sizes:
        cases = [("pair", REPO), ("ssp", REPO), ("mm", REPO)]
        if n <= args.baseline_max:
            cases.append(("ssp@base", baseline_root))
        for what, root in cases:
            kind = "pair" if what == "pair" else "sparse"
            spec = {"kind": kind, "n": n, "lam": 1.0, "solver": what.split("@")[0]}
            r = run_case(spec, root, args.timeout) or {"cpu": np.nan, "iters": -1}
            r.update(n=n, what=what)
            r.setdefault("sig", "")
            r.setdefault("wall", np.nan)
            r.setdefault("rss_mb", np.nan)
            rows.append(r)
            print(
                f"{what:>10s} {n:6d} {r['iters']:5d} {r['wall']:8.2f} {r['cpu']:8.2f} "
                f"{r['rss_mb']:8.0f}  {r['sig']}"
                + ("  (timed out or failed)" if r["iters"] < 0 else ""),
                flush=True,
            )
    write_csv(
        [
            {k: r.get(k, "") for k in ["what", "n", "iters", "wall", "cpu", "rss_mb", "sig"]}
            for r in rows
        ],
        "submodular_scale.csv",
    )
    plt = pyplot()
    if plt is not None:
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for what in sorted({r["what"] for r in rows}):
            sel = [r for r in rows if r["what"] == what]
            ax.loglog([r["n"] for r in sel], [r["cpu"] for r in sel], "o-", label=what)
        ax.set_xlabel("|X| (symbols)")
        ax.set_ylabel("CPU s")
        ax.set_title("IAC-MDSF at lam = 1, sparse tied counts")
        ax.legend(fontsize=8)
        save_figure(fig, "submodular_scale.png")


def compare(args, baseline_root):
    specs = [
        (
            f"{args.compare_size} symbols, lam {lam:g}",
            {"kind": "sparse", "n": args.compare_size, "lam": lam, "solver": "ssp"},
        )
        for lam in args.compare_lams
    ]
    if not args.skip_heart:
        specs.append(("heart, 106 IAC runs", {"kind": "heart", "data_home": args.data_home}))
    roots = {"baseline": baseline_root, "new": REPO}
    results = {(label, who): [] for label, _ in specs for who in roots}
    for rep in range(args.repeats):
        for label, spec in specs:
            # Alternate which goes first, so that drifts of a shared machine hit both.
            order = ["baseline", "new"] if rep % 2 == 0 else ["new", "baseline"]
            for who in order:
                r = run_case(spec, roots[who], args.timeout)
                results[label, who].append(r)
                cpu = "failed" if r is None else f"{r['cpu']:.2f} s CPU"
                print(f"  round {rep + 1}: {label:28s} {who:8s} {cpu}", flush=True)
    print(
        f"\n{'case':28s} {'baseline CPU':>12s} {'new CPU':>8s} {'ratio':>6s} "
        f"{'RSS base':>8s} {'RSS new':>7s} {'iters base/new':>14s}  same merges"
    )
    rows = []
    for label, spec in specs:
        base = [r for r in results[label, "baseline"] if r is not None]
        new = [r for r in results[label, "new"] if r is not None]
        if not base or not new:
            print(f"{label:28s} failed")
            continue
        b, n = min(base, key=lambda r: r["cpu"]), min(new, key=lambda r: r["cpu"])
        pairs = list(zip(b["runs"], n["runs"])) if spec["kind"] == "heart" else [(b, n)]
        same_ids = sum(x["ids"] == y["ids"] for x, y in pairs)
        same_sig = sum(x["sig"] == y["sig"] and x["iters"] == y["iters"] for x, y in pairs)
        same_path = sum(_same_path(x, y) for x, y in pairs)
        same = (
            f"{same_ids}/{len(pairs)} as sets, {same_sig} up to equal columns, "
            f"{same_path} same Lagrangian at every step (1e-12)"
        )
        differ = [
            f"{x.get('case', label)}: {x['iters']}/{y['iters']} merges, Lagrangian "
            f"{x['lagrangian']:.6f}/{y['lagrangian']:.6f}"
            + (" (the same at every step)" if _same_path(x, y) else "")
            for x, y in pairs
            if x["sig"] != y["sig"] or x["iters"] != y["iters"]
        ]
        ratio = b["cpu"] / n["cpu"]
        print(
            f"{label:28s} {b['cpu']:12.2f} {n['cpu']:8.2f} {ratio:6.1f} {b['rss_mb']:8.0f} "
            f"{n['rss_mb']:7.0f} {b['iters']:>7d}/{n['iters']:<6d}  {same}"
        )
        for case in differ:
            print(f"    merges differ (baseline/new): {case}")
        rows.append(
            {
                "case": label,
                "baseline_ref": args.baseline_ref,
                "baseline_cpu": b["cpu"],
                "new_cpu": n["cpu"],
                "ratio": ratio,
                "baseline_rss_mb": b["rss_mb"],
                "new_rss_mb": n["rss_mb"],
                "baseline_iters": b["iters"],
                "new_iters": n["iters"],
                "runs": len(pairs),
                "same_sets": same_ids,
                "same_up_to_equal_columns": same_sig,
                "same_lagrangian_path": same_path,
                "repeats": args.repeats,
            }
        )
    if rows:
        write_csv(rows, "submodular_compare.csv")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(json.loads(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[200, 500, 1000, 3000])
    parser.add_argument("--baseline-max", type=int, default=0)
    parser.add_argument("--baseline-ref", default="9184b27")
    parser.add_argument("--compare-size", type=int, default=3000)
    parser.add_argument("--compare-lams", type=float, nargs="*", default=[1.0, 3.0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--skip-heart", action="store_true")
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--timeout", type=float, default=1200)
    args = parser.parse_args()
    baseline_root = checkout_at_ref(args.baseline_ref)
    try:
        if args.sizes:
            sweep(args, baseline_root)
        if args.compare_lams or not args.skip_heart:
            print(f"\nBaseline {args.baseline_ref} against today's code, best of {args.repeats}:")
            compare(args, baseline_root)
    finally:
        remove_checkout(baseline_root)


if __name__ == "__main__":
    main()
