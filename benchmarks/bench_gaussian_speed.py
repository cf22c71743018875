"""Speed: L2CompressionDP fit + transform on 100000 x 100 against PCA(100), today and a baseline.

Each case runs in a fresh child process with one BLAS thread (``threadpoolctl``),
alternating between the baseline commit's package and today's, and reports the
best CPU time of ``--repeats`` runs of each (and the peak RSS of its child): PCA's
``fit_transform``, L2CompressionDP's ``fit_transform`` with a public fit and with
a private one. The claims (issue "the largest inputs in seconds"): a public fit
within 1.5x of PCA, a private one within 2.5x. Writes
``benchmarks/results/gaussian_speed.csv``.

Run: ``python benchmarks/bench_gaussian_speed.py [--baseline 9184b27] [--repeats 5]``.
"""

import argparse

from _common import REPO, checkout_at_ref, remove_checkout, run_with_package, write_csv

CHILD = """
import resource, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
from sklearn.decomposition import PCA
from sklearn_privacy.gaussian import L2CompressionDP
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
B = rng.normal(size=({d}, {d})) / np.sqrt({d})
X = rng.normal(size=({n}, {d})) @ B + 3.0
cases = {{
    "pca": lambda: PCA(n_components={d}).fit_transform(X),
    "public": lambda: L2CompressionDP(epsilon=1.0, fit_data="public").fit_transform(X),
    "private": lambda: L2CompressionDP(epsilon=1.0).fit_transform(X),
}}
with threadpool_limits(1):
    cases["{case}"]()  # warm up
    best = float("inf")
    for _ in range({repeats}):
        t0 = time.process_time()
        cases["{case}"]()
        best = min(best, time.process_time() - t0)
print((best, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="9184b27")
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-features", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2, help="alternations per case")
    args = parser.parse_args()
    folder = checkout_at_ref(args.baseline)
    roots = {"baseline": folder, "today": REPO}
    best = {}
    try:
        for _ in range(args.rounds):
            for case in ("pca", "public", "private"):
                for label, root in roots.items():
                    code = CHILD.format(
                        n=args.n_samples, d=args.n_features, repeats=args.repeats, case=case
                    )
                    cpu, rss = run_with_package(root, code)
                    old = best.get((label, case), (float("inf"), 0.0))
                    best[(label, case)] = (min(old[0], cpu), max(old[1], rss))
    finally:
        remove_checkout(folder)
    rows = []
    print(f"{args.n_samples} x {args.n_features}, one BLAS thread, best CPU s of "
          f"{args.rounds} x {args.repeats}")  # fmt: skip
    print(f"{'case':10s}{'baseline s':>12s}{'today s':>10s}{'today/base':>12s}"
          f"{'/PCA base':>11s}{'/PCA today':>12s}{'peak MB':>9s}")  # fmt: skip
    for case in ("pca", "public", "private"):
        (b, _), (t, rss) = best[("baseline", case)], best[("today", case)]
        pb, pt = best[("baseline", "pca")][0], best[("today", "pca")][0]
        rows.append(
            {"case": case, "baseline_s": b, "today_s": t, "ratio": t / b,
             "pca_ratio_baseline": b / pb, "pca_ratio_today": t / pt, "peak_mb": rss}
        )  # fmt: skip
        print(f"{case:10s}{b:12.3f}{t:10.3f}{t / b:12.2f}{b / pb:11.2f}{t / pt:12.2f}{rss:9.0f}")
    print("claims: public <= 1.5x PCA, private <= 2.5x PCA")
    print("wrote", write_csv(rows, "gaussian_speed.csv"))


if __name__ == "__main__":
    main()
