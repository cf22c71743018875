"""Solve time of the Thm. 1 program against alphabet size: conic (Clarabel, SCS) vs first-order.

Instance: |S| = 6, |Y| = |U| = n, P(S, Y) Dirichlet(0.5) (seeded), Hamming distortion,
budget 0.05 (the instance of issue 5). Every path runs in the same process on the
same problem; the table reports seconds, the objective I(S; U) in nats, its
distance to the best objective found at that size, and the first-order
certified duality gap. Writes benchmarks/results/convex_scaling.csv and .png.

    python benchmarks/bench_convex_scaling.py [--sizes 20 60 100 200] [--big 500]
"""

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from sklearn_privacy.discrete import min_average_leakage_mapping
from sklearn_privacy.discrete._convex_solvers import _SCS_OPTIONS, _AverageLeakageProgram

RESULTS = Path(__file__).resolve().parent / "results"


def instance(n, n_s=6, seed=0):
    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.full(n_s * n, 0.5)).reshape(n_s, n)
    return joint, 1.0 - np.eye(n)


def run(name, fn):
    start = time.perf_counter()
    try:
        result = fn()
        return name, time.perf_counter() - start, result["average_leakage"], result
    except Exception as exc:  # report the failure in the table
        return name, time.perf_counter() - start, np.nan, {"error": repr(exc)[:80]}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 60, 100, 200])
    parser.add_argument(
        "--big",
        type=int,
        nargs="*",
        default=[500],
        help="sizes solved by the first-order path and SCS only",
    )
    parser.add_argument("--skip-scs-big", action="store_true")
    parser.add_argument("--budget", type=float, default=0.05)
    args = parser.parse_args()
    rows = []
    for n in [*args.sizes, *args.big]:
        joint, D = instance(n)
        big = n in args.big
        runs = []
        if not big:
            runs.append(
                (
                    "clarabel",
                    lambda: min_average_leakage_mapping(joint, D, args.budget, solver="CLARABEL"),
                )
            )
        runs.append(
            (
                "scs-default",
                lambda: min_average_leakage_mapping(
                    joint,
                    D,
                    args.budget,
                    solver="SCS",
                    solver_options={"eps_abs": 1e-4, "eps_rel": 1e-4},
                ),
            )
        )
        if not (big and args.skip_scs_big):
            runs.append(
                (
                    "scs-1e-8",
                    lambda: min_average_leakage_mapping(joint, D, args.budget, solver="SCS"),
                )
            )
        runs.append(
            (
                "first-order",
                lambda: min_average_leakage_mapping(joint, D, args.budget, solver="first-order"),
            )
        )
        out = [run(name, fn) for name, fn in runs]
        best = np.nanmin([o[2] for o in out])
        for name, seconds, value, result in out:
            rows.append(
                {
                    "n": n,
                    "solver": name,
                    "seconds": seconds,
                    "objective": value,
                    "minus_best": value - best,
                    "gap": result.get("gap", np.nan),
                    "n_iter": result.get("n_iter", ""),
                    "error": result.get("error", ""),
                }
            )
            print(
                f"n={n:4d} {name:12s} {seconds:8.3f}s  I={value:.10f}  "
                f"-best={value - best:.2e}  gap={result.get('gap', np.nan):.2e} "
                f"{result.get('error', '')}",
                flush=True,
            )
        times = {r["solver"]: r["seconds"] for r in rows if r["n"] == n}
        for ref in ("scs-default", "scs-1e-8"):
            if ref in times:
                print(
                    f"n={n}: {ref} / first-order time ratio = "
                    f"{times[ref] / times['first-order']:.1f}",
                    flush=True,
                )
    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RESULTS / "convex_scaling.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3.5))
        for solver in dict.fromkeys(r["solver"] for r in rows):
            pts = [(r["n"], r["seconds"]) for r in rows if r["solver"] == solver]
            ax.loglog(*zip(*pts), marker="o", label=solver)
        ax.set_xlabel("|Y| = |U|")
        ax.set_ylabel("solve time (s)")
        ax.set_title("Thm. 1, |S| = 6, Hamming, budget %.2g" % args.budget)
        ax.legend()
        fig.tight_layout()
        fig.savefig(RESULTS / "convex_scaling.png", dpi=120)
    except ImportError:
        pass


if __name__ == "__main__":
    _ = _AverageLeakageProgram, _SCS_OPTIONS
    main()
