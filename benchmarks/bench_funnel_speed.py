"""Speed claim: the greedy privacy funnel's full merge path, incremental vs textbook.

Merges a random joint pmf P(S, X) (|S| = 8) all the way down to one symbol
(``threshold=0``) for several alphabet sizes, with

- ``incremental``: :func:`greedy_merge`, Prop. 1 costs updated for the pairs of
  the merged symbol only, best partner per row;
- ``textbook``: ``greedy_merge_textbook(exact=False)`` (``tests/_textbook_greedy.py``,
  the tests' oracle, loaded from its file), every pair's Prop. 1 cost recomputed
  (vectorised) at every iteration;

and times ``PrivacyFunnelTransformer.fit`` on 20000 rows whose released columns
form 2000 symbols (|S| = 8). Targets: the fit at 2000 symbols in <= 3 s, and
incremental >= 30x faster than textbook at |X| = 300, measured in the same run.
Writes ``benchmarks/results/funnel_speed.csv`` and ``.png``.
"""

import argparse
import time
import warnings

import numpy as np
from _common import RESULTS, load_test_reference

from sklearn_privacy.discrete import PrivacyFunnelTransformer
from sklearn_privacy.discrete._greedy import greedy_merge

greedy_merge_textbook = load_test_reference("_textbook_greedy").greedy_merge_textbook


def best_time(fn, repeats):
    """Best wall-clock and best CPU (process) time of ``repeats`` runs, and the last output.

    The machine is shared: CPU time is what the code itself costs, wall time
    what a user waits under the current load.
    """
    walls, cpus = [], []
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus), out


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[50, 100, 200, 300, 500, 1000, 2000]
    )
    parser.add_argument("--textbook-max", type=int, default=300)
    parser.add_argument("--n-sensitive", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    print(f"|S| = {args.n_sensitive}, merge down to one symbol, best of {args.repeats}")
    print(
        f"{'|X|':>6s} {'incr wall s':>12s} {'incr cpu s':>11s} {'text wall s':>12s} "
        f"{'text cpu s':>11s} {'x wall':>7s} {'x cpu':>6s} {'same':>5s}"
    )
    for n in args.sizes:
        joint = rng.dirichlet(np.full(args.n_sensitive * n, 0.5)).reshape(args.n_sensitive, n)
        fast, fast_cpu, path = best_time(
            lambda j=joint: greedy_merge(j, threshold=0.0), args.repeats
        )
        slow = slow_cpu = np.nan
        same = ""
        if n <= args.textbook_max:
            slow, slow_cpu, ref = best_time(
                lambda j=joint: greedy_merge_textbook(j, threshold=0.0, exact=False),
                max(1, args.repeats - 1),
            )
            same = str(bool(np.array_equal(path.merges, ref.merges)))
        ratio, ratio_cpu = slow / fast, slow_cpu / fast_cpu
        rows.append((n, fast, fast_cpu, slow, slow_cpu, ratio, ratio_cpu))
        print(
            f"{n:6d} {fast:12.4f} {fast_cpu:11.4f} {slow:12.4f} {slow_cpu:11.4f} "
            f"{ratio:7.1f} {ratio_cpu:6.1f} {same:>5s}"
        )

    # Estimator fit: two released columns (50 x 40 categories) = 2000 joint symbols.
    n_rows = 20000
    a, b = np.divmod(np.arange(n_rows) % 2000, 40)
    s = rng.integers(0, args.n_sensitive, n_rows)
    X = np.column_stack([a, b])
    funnel = PrivacyFunnelTransformer(threshold=0.0, max_categories=None)
    with warnings.catch_warnings():
        # threshold=0 merges everything on purpose (the whole path is timed): that warns.
        warnings.simplefilter("ignore", UserWarning)
        fit_best, fit_cpu, fitted = best_time(lambda: funnel.fit(X, sensitive=s), args.repeats)
    print(
        f"PrivacyFunnelTransformer.fit: {n_rows} rows, {fitted.alphabet_.n_symbols_} symbols, "
        f"|S| = {args.n_sensitive}, down to {fitted.n_clusters_}: wall {fit_best:.3f} s, "
        f"cpu {fit_cpu:.3f} s (best of {args.repeats}; target <= 3 s)"
    )
    at = [r for r in rows if r[0] == 300]
    if at:
        print(f"speed-up at |X| = 300: {at[0][5]:.1f}x wall, {at[0][6]:.1f}x cpu (target >= 30x)")

    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RESULTS / "funnel_speed.csv", "w") as f:
        f.write(
            "n_symbols,incremental_wall_s,incremental_cpu_s,textbook_wall_s,"
            "textbook_cpu_s,speedup_wall,speedup_cpu\n"
        )
        for r in rows:
            f.write(",".join(f"{v:.6g}" for v in r) + "\n")
        f.write(f"# estimator_fit_2000_symbols_wall_s,{fit_best:.6g},cpu_s,{fit_cpu:.6g}\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    data = np.array(rows)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.loglog(data[:, 0], data[:, 2], "o-", label="incremental (Prop. 1, per-row best)")
    ok = np.isfinite(data[:, 3])
    ax.loglog(data[ok, 0], data[ok, 4], "s--", label="textbook (all pairs each iteration)")
    ax.axhline(3.0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("|X| (symbols merged down to one)")
    ax.set_ylabel("CPU seconds (best of repeats)")
    ax.set_title(f"Greedy privacy funnel, |S| = {args.n_sensitive}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "funnel_speed.png", dpi=120)


if __name__ == "__main__":
    main()
