"""Speed of ``transform`` (one release) and of a private fit, today's code against a baseline.

The releases draw their noise on a grid (issue 25: a published value is a function of an
integer, so its low bits say nothing about the data); that, fresh OS entropy per release,
the overflow-proof clipping and the seed-bound lazy release must not make ``transform``
much slower. Both versions run in child processes of this one run, alternately
(baseline, current, baseline, current), each timing best-of-N transforms of the same data
in CPU seconds (``time.process_time``; the machine is shared); the ratios are of the best
times. A private fit (``L2CompressionDP(epsilon=2.0)``, fit then transform of 100000 x 100,
every private estimate drawn on the grid) is timed the same way, with its child's peak RSS.

Run: ``python benchmarks/bench_release_speed.py [--baseline REF] [--rounds N]`` (default
``9184b27``, the commit before the grid noise).
"""

import argparse

from _common import REPO, checkout_at_ref, remove_checkout, run_with_package, write_csv

RELEASE = """
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
            t = time.process_time()
            mech.transform(X)
            best = min(best, time.process_time() - t)
        out[(name, n)] = best
print(out)
"""

PRIVATE_FIT = """
import resource, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from sklearn_privacy.gaussian import L2CompressionDP
X = np.random.default_rng(0).normal(size=(100000, 100))
best = float("inf")
for _ in range({repeats}):
    t = time.process_time()
    L2CompressionDP(epsilon=2.0).fit(X).transform(X)
    best = min(best, time.process_time() - t)
print({{"fit": best, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}})
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="9184b27")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fit-repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [100, 1000, 10000, 100000]
    folder = checkout_at_ref(args.baseline)
    try:
        best = {"baseline": {}, "current": {}}
        fit = {"baseline": {}, "current": {}}
        for _ in range(args.rounds):
            for label, root in (("baseline", folder), ("current", REPO)):
                times = run_with_package(root, RELEASE.format(sizes=sizes))
                for key, value in times.items():
                    best[label][key] = min(best[label].get(key, float("inf")), value)
                result = run_with_package(root, PRIVATE_FIT.format(repeats=args.fit_repeats))
                for key, value in result.items():
                    fit[label][key] = min(fit[label].get(key, float("inf")), value)
    finally:
        remove_checkout(folder)
    rows = []
    print(
        f"{'mechanism':<24}{'n':>8}{'baseline ms':>14}{'current ms':>13}"
        f"{'time new/old':>14}{'rows/s new/old':>16}"
    )
    for key in sorted(best["current"]):
        base, now = best["baseline"][key], best["current"][key]
        rows.append(
            {
                "mechanism": key[0],
                "n": key[1],
                "baseline_cpu_s": base,
                "current_cpu_s": now,
                "time_ratio": now / base,
                "throughput_ratio": base / now,
            }
        )
        print(
            f"{key[0]:<24}{key[1]:>8}{1e3 * base:>14.3f}{1e3 * now:>13.3f}"
            f"{now / base:>14.2f}{base / now:>16.2f}"
        )
    base, now = fit["baseline"], fit["current"]
    rows.append(
        {
            "mechanism": "L2CompressionDP private fit + transform (100000 x 100)",
            "n": 100000,
            "baseline_cpu_s": base["fit"],
            "current_cpu_s": now["fit"],
            "time_ratio": now["fit"] / base["fit"],
            "throughput_ratio": base["fit"] / now["fit"],
        }
    )
    print(
        f"private fit + transform, 100000 x 100: baseline {base['fit']:.3f} s CPU "
        f"(peak RSS {base['rss_mb']:.0f} MB), current {now['fit']:.3f} s "
        f"({now['rss_mb']:.0f} MB), time new/old {now['fit'] / base['fit']:.2f}"
    )
    print("wrote", write_csv(rows, "release_speed.csv"))


if __name__ == "__main__":
    main()
