"""Scale claim: the greedy privacy funnel's full merge path in O(n^2 |S|) time and O(n^2) memory.

Each case runs in a fresh subprocess (peak RSS from ``getrusage``), on

- ``dense``: a random joint pmf P(S, X), |S| = 8, merged down to one symbol;
- ``sparse``: real-data-like counts, every symbol seen 1-3 times, binary S
  (many equal columns, exact ties), default relative threshold 0.8 of H(X);
- ``adult``: ``PrivacyFunnelTransformer.fit`` on Adult's six categorical columns
  (workclass, education, marital-status, occupation, relationship, race;
  S = sex), thresholds 0.8 (default) and 0.5.

``--baseline-max`` also times the code of git ``HEAD`` (``--baseline-ref``) up to
that size, in the same run. Targets: n = 10000 in <= 15 s and <= 2 GB for dense
and sparse, log-log slope of time against n <= 2.2 between 2000 and 20000, Adult
in <= 5 s. Writes ``benchmarks/results/funnel_scale.csv`` and ``.png``.

``--compare REF`` instead times git ``REF`` (e.g. ``9184b27``, before the
packed triangle of issue 26) against today's code on dense and sparse 10000
and 20000 and on Adult (thresholds 0.8 and 0.5), alternating the two in fresh
subprocesses, ``--repeats`` times each: best CPU seconds, peak RSS, the ratio,
and whether both made the same merges and informations (a digest of the path).
Writes ``benchmarks/results/funnel_scale_compare.csv``.
"""

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
from _common import RESULTS, default_data_home, module_at_ref


def dense_joint(n, n_s=8, seed=0):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.full(n_s * n, 0.5)).reshape(n_s, n)


def sparse_joint(n, seed=0):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 4, n)
    ones = rng.binomial(counts, 0.3)
    joint = np.vstack([counts - ones, ones]).astype(float)
    return joint / joint.sum()


def _load_greedy(impl):
    if impl == "new":
        from sklearn_privacy.discrete import _greedy

        return _greedy
    return module_at_ref("sklearn_privacy/discrete/_greedy.py", impl)


def worker(impl, kind, n, threshold, data_home):
    import warnings

    from sklearn_privacy.information import entropy

    greedy = _load_greedy(impl)
    if kind == "adult":
        from sklearn_privacy.datasets import fetch_adult
        from sklearn_privacy.discrete import PrivacyFunnelTransformer, _funnel

        _funnel.greedy_merge = greedy.greedy_merge
        frame = fetch_adult(data_home=data_home, as_frame=True).frame
        cols = ["workclass", "education", "marital-status", "occupation", "relationship", "race"]
        X = frame[cols].astype(object).fillna("missing").astype(str).to_numpy()
        s = frame["sex"].astype(str).to_numpy()
        funnel = PrivacyFunnelTransformer(threshold=threshold)
        c0, t0 = time.process_time(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            funnel.fit(X, sensitive=s)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        n, merges = funnel.alphabet_.n_symbols_, funnel.n_iter_
        path = funnel.path_
    else:
        joint = dense_joint(n) if kind == "dense" else sparse_joint(n)
        t = threshold * entropy(joint.sum(axis=0))
        c0, t0 = time.process_time(), time.perf_counter()
        path = greedy.greedy_merge(joint, threshold=t)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        merges = len(path.merges)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    digest = hashlib.sha1(
        b"".join(np.ascontiguousarray(a).tobytes() for a in (path.merges, path.leakage))
    ).hexdigest()[:12]
    print(
        json.dumps(
            {"n": n, "wall": wall, "cpu": cpu, "rss_mb": rss, "merges": merges, "path": digest}
        )
    )


def run_case(impl, kind, n, threshold, data_home, timeout):
    cmd = [sys.executable, __file__, "--worker", impl, kind, str(n), str(threshold), data_home]
    # One BLAS/OpenMP thread (the children share the machine; oversubscription distorts).
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")
    failed = {"n": n, "wall": np.nan, "cpu": np.nan, "rss_mb": np.nan, "merges": -1}
    try:
        out = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, check=True, env=env
        )
    except subprocess.TimeoutExpired:
        return {**failed, "error": f"timed out after {timeout:g} s"}
    except subprocess.CalledProcessError as exc:
        # One failing case (e.g. out of memory) is reported, not the end of the table.
        lines = (exc.stderr or "").strip().splitlines() or [f"exit status {exc.returncode}"]
        return {**failed, "error": lines[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def slope(rows):
    n, t = np.array([r["n"] for r in rows], float), np.array([r["cpu"] for r in rows], float)
    ok = np.isfinite(t)
    if ok.sum() < 2:
        return np.nan
    return float(np.polyfit(np.log(n[ok]), np.log(t[ok]), 1)[0])


def compare(ref, repeats, data_home, timeout):
    """Baseline ``ref`` against today's code, alternating, best of ``repeats``."""
    cases = [("dense", 10000, 0.0), ("sparse", 10000, 0.8), ("dense", 20000, 0.0)]
    cases += [("sparse", 20000, 0.8), ("adult", 0, 0.8), ("adult", 0, 0.5)]
    print(f"baseline {ref} vs today, best of {repeats} (CPU s, peak RSS MB)")
    print(
        f"{'case':>7s} {'n':>6s} {'thr':>4s} {'base cpu':>9s} {'new cpu':>8s} {'ratio':>6s} "
        f"{'base MB':>8s} {'new MB':>7s} {'same':>5s}"
    )
    rows = []
    for kind, n, threshold in cases:
        runs = {"base": [], "new": []}
        for _ in range(repeats):
            for impl, label in ((ref, "base"), ("new", "new")):
                runs[label].append(run_case(impl, kind, n, threshold, data_home, timeout))
        best = {
            k: min(v, key=lambda r: r["cpu"] if np.isfinite(r["cpu"]) else np.inf)
            for k, v in runs.items()
        }
        paths = {r.get("path") for v in runs.values() for r in v}
        row = {
            "case": kind,
            "n": best["new"]["n"],
            "threshold": threshold,
            "base_cpu": best["base"]["cpu"],
            "new_cpu": best["new"]["cpu"],
            "ratio": best["base"]["cpu"] / best["new"]["cpu"],
            "base_rss_mb": best["base"]["rss_mb"],
            "new_rss_mb": best["new"]["rss_mb"],
            "same_path": len(paths) == 1 and None not in paths,
        }
        rows.append(row)
        print(
            f"{kind:>7s} {row['n']:6d} {threshold:4.1f} {row['base_cpu']:9.2f} "
            f"{row['new_cpu']:8.2f} {row['ratio']:6.2f} {row['base_rss_mb']:8.0f} "
            f"{row['new_rss_mb']:7.0f} {str(row['same_path']):>5s}",
            flush=True,
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RESULTS / "funnel_scale_compare.csv", "w") as f:
        f.write(",".join(rows[0]) + "\n")
        for row in rows:
            f.write(",".join(str(v) for v in row.values()) + "\n")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        impl, kind, n, threshold, data_home = sys.argv[2:7]
        worker(impl, kind, int(n), float(threshold), data_home)
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000, 20000])
    parser.add_argument("--baseline-max", type=int, default=2000)
    parser.add_argument("--baseline-ref", default="HEAD")
    parser.add_argument("--adult-baseline", action="store_true")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--compare", metavar="REF", default=None)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    if args.compare:
        compare(args.compare, args.repeats, args.data_home, args.timeout)
        return
    cases = [("dense", n, 0.0) for n in args.sizes] + [("sparse", n, 0.8) for n in args.sizes]
    cases += [("adult", 0, 0.8), ("adult", 0, 0.5)]
    rows = []
    head = f"{'case':>7s} {'impl':>5s} {'n':>6s} {'thr':>4s} {'merges':>6s} "
    print(head + f"{'wall s':>8s} {'cpu s':>8s} {'RSS MB':>8s}")
    for kind, n, threshold in cases:
        impls = ["new"]
        if (kind != "adult" and n <= args.baseline_max) or (
            kind == "adult" and args.adult_baseline
        ):
            impls.append(args.baseline_ref)
        for impl in impls:
            r = run_case(impl, kind, n, threshold, args.data_home, args.timeout)
            r.update(case=kind, impl="new" if impl == "new" else "base", threshold=threshold)
            rows.append(r)
            print(
                f"{kind:>7s} {r['impl']:>5s} {r['n']:6d} {threshold:4.1f} {r['merges']:6d} "
                f"{r['wall']:8.2f} {r['cpu']:8.2f} {r['rss_mb']:8.0f}"
                + (f"  ({r['error']})" if "error" in r else ""),
                flush=True,
            )
    for kind in ("dense", "sparse"):
        sel = [r for r in rows if r["case"] == kind and r["impl"] == "new"]
        print(f"{kind}: log-log slope of CPU time vs n = {slope(sel):.2f} (target <= 2.2)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    keys = ["case", "impl", "n", "threshold", "merges", "wall", "cpu", "rss_mb"]
    with open(RESULTS / "funnel_scale.csv", "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join(str(r[k]) for k in keys) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for kind, marker in (("dense", "o-"), ("sparse", "s-")):
        sel = [r for r in rows if r["case"] == kind and r["impl"] == "new"]
        n = [r["n"] for r in sel]
        axes[0].loglog(n, [r["cpu"] for r in sel], marker, label=f"{kind} (new)")
        axes[1].loglog(n, [r["rss_mb"] for r in sel], marker, label=f"{kind} (new)")
    axes[0].set_ylabel("CPU s")
    axes[1].set_ylabel("peak RSS MB")
    for ax in axes:
        ax.set_xlabel("|X|")
        ax.legend(fontsize=8)
    fig.suptitle("Greedy privacy funnel, full path")
    fig.tight_layout()
    fig.savefig(RESULTS / "funnel_scale.png", dpi=120)


if __name__ == "__main__":
    main()
