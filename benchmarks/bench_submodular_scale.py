"""Scale of IAC-MDSF: the pair search without an n(n-1)/2 x n mask, min-norm-point in O(n^2).

Each size runs ``iac_mdsf`` (``lam = r``, i.e. ``SubmodularFunnel(lam=1)``) in a fresh
subprocess on real-data-like counts (every symbol seen 1-3 times, binary S), and
times ``_best_pair`` alone on the first step; reports wall, CPU and peak RSS
(``getrusage``). A size that exceeds ``--timeout`` is reported as such.
``--baseline-max`` also runs the ``"ssp"`` solver of git ``--baseline-ref`` (by
default the commit before the certified min-norm point) up to that size, in the
same run, and says whether its merged sets are those of the new code. Targets:
1000 symbols in <= 20 s and <= 500 MB; 3000 measured. Writes
``benchmarks/results/submodular_scale.csv`` and ``.png``.
"""

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import time

import numpy as np
from _common import RESULTS, module_at_ref
from bench_funnel_scale import sparse_joint


def _load_submodular(ref):
    if ref == "new":
        from sklearn_privacy.discrete import _submodular

        return _submodular
    return module_at_ref("sklearn_privacy/discrete/_submodular.py", ref)


def worker(n, solver, what, ref):
    from sklearn_privacy.information import entropy, mutual_information

    sub = _load_submodular(ref)
    joint = sparse_joint(n)
    lam = min(mutual_information(joint) / entropy(joint.sum(axis=0)), 1.0)
    c0, t0 = time.process_time(), time.perf_counter()
    digest = ""
    if what == "pair":
        sub._best_pair(sub._Difference(*sub.step_functions(joint, lam)), n)
        iters = 0
    else:
        path = sub.iac_mdsf(joint, lam, solver=solver)
        iters = path.n_iter
        digest = hashlib.md5(str([w.tolist() for w in path.merged_sets]).encode()).hexdigest()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = {"wall": wall, "cpu": cpu, "rss_mb": rss, "iters": iters, "sets": digest[:10]}
    print(json.dumps(out))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 500, 1000, 3000])
    parser.add_argument("--solvers", nargs="+", default=["ssp", "mm"])
    parser.add_argument("--baseline-max", type=int, default=1000)
    parser.add_argument("--baseline-ref", default="d44b305")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    rows = []
    head = f"{'what':>10s} {'n':>6s} {'iters':>5s} {'wall s':>8s} {'cpu s':>8s} {'RSS MB':>8s}"
    print(head + "  sets")
    for n in args.sizes:
        cases = [("pair", "new")] + [(solver, "new") for solver in args.solvers]
        if n <= args.baseline_max:
            cases.append(("ssp", args.baseline_ref))
        for what, ref in cases:
            solver = what if what != "pair" else "ssp"
            cmd = [sys.executable, __file__, "--worker", str(n), solver, what, ref]
            try:
                out = subprocess.run(
                    cmd, capture_output=True, text=True, timeout=args.timeout, check=True
                )
                r = json.loads(out.stdout.strip().splitlines()[-1])
            except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
                r = {"wall": np.nan, "cpu": np.nan, "rss_mb": np.nan, "iters": -1, "sets": ""}
            label = what if ref == "new" else f"{what}@base"
            r.update(n=n, what=label)
            if ref != "new" and r["sets"]:
                new = [x for x in rows if x["n"] == n and x["what"] == "ssp"]
                same = bool(new) and new[0]["sets"] == r["sets"]
                r["sets"] += " (same as ssp)" if same else " (differs from ssp)"
            rows.append(r)
            print(
                f"{label:>10s} {n:6d} {r['iters']:5d} {r['wall']:8.2f} {r['cpu']:8.2f} "
                f"{r['rss_mb']:8.0f}  {r['sets']}"
                + ("  (timed out or failed)" if r["iters"] < 0 else ""),
                flush=True,
            )
    for n in args.sizes:
        sel = {r["what"]: r for r in rows if r["n"] == n}
        if "ssp" in sel and "ssp@base" in sel:
            base, new = sel["ssp@base"], sel["ssp"]
            print(
                f"n = {n}: ssp new / base CPU = {new['cpu'] / base['cpu']:.3f}, "
                f"wall = {new['wall'] / base['wall']:.3f}"
            )
    RESULTS.mkdir(parents=True, exist_ok=True)
    keys = ["what", "n", "iters", "wall", "cpu", "rss_mb", "sets"]
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
    for what in sorted({r["what"] for r in rows}):
        sel = [r for r in rows if r["what"] == what]
        ax.loglog([r["n"] for r in sel], [r["cpu"] for r in sel], "o-", label=what)
    ax.set_xlabel("|X|")
    ax.set_ylabel("CPU s")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "submodular_scale.png", dpi=120)


if __name__ == "__main__":
    main()
