"""Solve time of the Thm. 1 program against alphabet size: SCS vs the first-order path.

Instance (issue 5): |S| = 6, |Y| = |U| = n, P(S, Y) Dirichlet(0.5) (seeded),
Hamming distortion, budget 0.05. At each size SCS (cvxpy's default settings)
and the first-order path run in the same process on the same problem; the
table reports seconds, the objective I(S; U) in nats of the cleaned, exactly
feasible mapping, the first-order certified duality gap (an upper bound on its
distance to the optimum), and the time ratio. Large sizes run the first-order
path alone. Writes benchmarks/results/convex_scaling.csv and .png.

    python benchmarks/bench_convex_scaling.py [--sizes 50 100 200] [--big 500]
"""

import argparse
import csv
import time
import warnings

import numpy as np
from _common import RESULTS

from sklearn_privacy.discrete import min_average_leakage_mapping
from sklearn_privacy.discrete._convex_solvers import _AverageLeakageProgram, _clean_mapping
from sklearn_privacy.information import mutual_information


def instance(n, n_s=6, seed=0):
    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.full(n_s * n, 0.5)).reshape(n_s, n)
    return joint, 1.0 - np.eye(n)


def solve_scs_default(joint, D, budget):
    """cvxpy + SCS with its default settings on the direct formulation of Thm. 1."""
    start = time.perf_counter()
    program = _AverageLeakageProgram(joint, D)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, Q = program.solve(budget, "SCS", {})
    seconds = time.perf_counter() - start
    if Q is None:
        return seconds, np.nan, {"status": status}
    Q = _clean_mapping(Q, joint.sum(axis=0), D, budget)
    return (
        seconds,
        mutual_information(joint @ Q),
        {"status": status, "raw_objective": program.problem.value},
    )


def solve_first_order(joint, D, budget):
    start = time.perf_counter()
    result = min_average_leakage_mapping(joint, D, budget, solver="first-order")
    return time.perf_counter() - start, result["average_leakage"], result


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200])
    parser.add_argument("--big", type=int, nargs="*", default=[500])
    parser.add_argument("--budget", type=float, default=0.05)
    args = parser.parse_args()
    rows = []
    print(f"{'n':>4} {'solver':12s} {'seconds':>8} {'I(S;U) nats':>14} {'gap':>9} {'note'}")
    for n in [*args.sizes, *args.big]:
        joint, D = instance(n)
        runs = []
        if n not in args.big:
            runs.append(("scs-default", *solve_scs_default(joint, D, args.budget)))
        runs.append(("first-order", *solve_first_order(joint, D, args.budget)))
        for name, seconds, value, info in runs:
            note = info.get("status", f"{info.get('n_iter', '')} iterations")
            rows.append(
                {
                    "n": n,
                    "solver": name,
                    "seconds": seconds,
                    "objective": value,
                    "gap": info.get("gap", np.nan),
                    "note": note,
                }
            )
            print(
                f"{n:4d} {name:12s} {seconds:8.3f} {value:14.10f} "
                f"{info.get('gap', np.nan):9.2e} {note}",
                flush=True,
            )
        if len(runs) == 2:
            (_, t_scs, v_scs, _), (_, t_fo, v_fo, fo) = runs
            print(
                f"n={n}: SCS / first-order time = {t_scs / t_fo:.1f}x; objective difference "
                f"first-order - SCS = {v_fo - v_scs:+.2e} nats (certified gap {fo['gap']:.1e})",
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
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for solver in dict.fromkeys(r["solver"] for r in rows):
        pts = [(r["n"], r["seconds"]) for r in rows if r["solver"] == solver]
        ax.loglog(*zip(*pts), marker="o", label=solver)
    ax.set_xlabel("|Y| = |U|")
    ax.set_ylabel("solve time (s)")
    ax.set_title(f"Thm. 1, |S| = 6, Hamming, budget {args.budget:g}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "convex_scaling.png", dpi=120)


if __name__ == "__main__":
    main()
