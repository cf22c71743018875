"""Speed of ``transform`` (one release) of the Gaussian mechanisms, today's code against a baseline.

Fresh OS entropy per release, the overflow-proof clipping and the seed-bound
lazy release must not make ``transform`` more than 1.2x slower. Both versions
run in child processes of this one run, alternately (baseline, current,
baseline, current), each timing best-of-N transforms of the same data; the
ratio is current / baseline of the best times.

Run: ``python benchmarks/bench_release_speed.py [--baseline REF]`` (default
``1c2d2b9``, the commit before the privacy-promise issue).
"""

import argparse

from _common import REPO, checkout_at_ref, remove_checkout, run_with_package, write_csv

CHILD = """
import time, warnings
import numpy as np
warnings.simplefilter("ignore")
from sklearn_privacy.gaussian import GaussianIBTransformer, L2CompressionDP
rng = np.random.default_rng(0)
out = {{}}
for n in {sizes}:
    X = rng.normal(size=(n, 10))
    y = X[:, 0] + rng.normal(size=n)
    for name, mech in [
        ("L2CompressionDP", L2CompressionDP(epsilon=2.0, fit_data="public").fit(X)),
        ("GaussianIBTransformer", GaussianIBTransformer(beta=20.0, fit_data="public").fit(X, y)),
    ]:
        repeats = max(5, int(2e6 // n))
        best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            mech.transform(X)
            best = min(best, time.perf_counter() - t)
        out[(name, n)] = best
print(out)
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="1c2d2b9")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    sizes = [100, 1000, 10000, 100000]
    folder = checkout_at_ref(args.baseline)
    try:
        best = {"baseline": {}, "current": {}}
        for _ in range(args.rounds):
            for label, root in (("baseline", folder), ("current", REPO)):
                times = run_with_package(root, CHILD.format(sizes=sizes))
                for key, value in times.items():
                    best[label][key] = min(best[label].get(key, float("inf")), value)
    finally:
        remove_checkout(folder)
    rows = []
    print(f"{'mechanism':<24}{'n':>8}{'baseline ms':>14}{'current ms':>13}{'ratio':>8}")
    for key in sorted(best["current"]):
        base, now = best["baseline"][key], best["current"][key]
        rows.append(
            {
                "mechanism": key[0],
                "n": key[1],
                "baseline_s": base,
                "current_s": now,
                "ratio": now / base,
            }
        )
        print(f"{key[0]:<24}{key[1]:>8}{1e3 * base:>14.3f}{1e3 * now:>13.3f}{now / base:>8.2f}")
    print("wrote", write_csv(rows, "release_speed.csv"))


if __name__ == "__main__":
    main()
