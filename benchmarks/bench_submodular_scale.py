"""Scale of IAC-MDSF: the pair search without an n(n-1)/2 x n mask, min-norm-point in O(n^2).

Each size runs ``iac_mdsf`` (``lam = r``, i.e. ``SubmodularFunnel(lam=1)``) in a fresh
subprocess on real-data-like counts (every symbol seen 1-3 times, binary S), and
times ``_best_pair`` alone on the first step; reports wall, CPU and peak RSS
(``getrusage``). A size that exceeds ``--timeout`` is reported as such. Targets:
1000 symbols in <= 20 s and <= 500 MB; 3000 measured. Writes
``benchmarks/results/submodular_scale.csv`` and ``.png``.
"""

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np
from _common import RESULTS
from bench_funnel_scale import sparse_joint


def worker(n, solver, what):
    from sklearn_privacy.discrete._submodular import (
        _best_pair,
        _Difference,
        iac_mdsf,
        step_functions,
    )
    from sklearn_privacy.information import entropy, mutual_information

    joint = sparse_joint(n)
    lam = min(mutual_information(joint) / entropy(joint.sum(axis=0)), 1.0)
    c0, t0 = time.process_time(), time.perf_counter()
    if what == "pair":
        _best_pair(_Difference(*step_functions(joint, lam)), n)
        iters = 0
    else:
        iters = iac_mdsf(joint, lam, solver=solver).n_iter
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall": wall, "cpu": cpu, "rss_mb": rss, "iters": iters}))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 500, 1000, 3000])
    parser.add_argument("--solvers", nargs="+", default=["ssp", "mm"])
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    rows = []
    print(f"{'what':>10s} {'n':>6s} {'iters':>5s} {'wall s':>8s} {'cpu s':>8s} {'RSS MB':>8s}")
    for n in args.sizes:
        for what in ["pair", *args.solvers]:
            solver = what if what != "pair" else "ssp"
            cmd = [sys.executable, __file__, "--worker", str(n), solver, what]
            try:
                out = subprocess.run(
                    cmd, capture_output=True, text=True, timeout=args.timeout, check=True
                )
                r = json.loads(out.stdout.strip().splitlines()[-1])
            except subprocess.TimeoutExpired:
                r = {"wall": np.nan, "cpu": np.nan, "rss_mb": np.nan, "iters": -1}
            r.update(n=n, what=what)
            rows.append(r)
            print(
                f"{what:>10s} {n:6d} {r['iters']:5d} {r['wall']:8.2f} {r['cpu']:8.2f} "
                f"{r['rss_mb']:8.0f}" + ("  (timed out)" if r["iters"] < 0 else "")
            )
    RESULTS.mkdir(parents=True, exist_ok=True)
    keys = ["what", "n", "iters", "wall", "cpu", "rss_mb"]
    with open(RESULTS / "submodular_scale.csv", "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(str(r[k]) for k in keys) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for what in ["pair", *args.solvers]:
        sel = [r for r in rows if r["what"] == what]
        ax.loglog([r["n"] for r in sel], [r["cpu"] for r in sel], "o-", label=what)
    ax.set_xlabel("|X|")
    ax.set_ylabel("CPU s")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "submodular_scale.png", dpi=120)


if __name__ == "__main__":
    main()
