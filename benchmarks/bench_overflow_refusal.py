"""Private fits of 200 ordinary rows that were refused as "beyond 3.27e+150" (issue 47).

A bin of pure noise beyond ``LARGEST_RADIUS`` (2^500) that cleared the ordinary threshold
of the private norm histogram refused a sound ``L2CompressionDP(epsilon=2)`` fit whenever
the rows' own bins cleared nothing, or less than it. Such a bin needs 7.14 noise deviations
now (``dp/_radius.py``, ``bin_thresholds``). For N(0, I_d) rows (200 x d, ``np.random.
default_rng(0)``) and seeds ``0 .. --seeds - 1``, this counts the fits refused, the fits
that read no scale and release the constant 0 (``fallback_ == "zeros"``, with a warning),
and the time per fit. Before the change (commit 4cd4a1c), d = 3: seeds 6304 and 14490 of
0..39999 refused.

Writes ``results/overflow_refusal.csv``. Run:
``python benchmarks/bench_overflow_refusal.py --seeds 20000`` (about 2 minutes per d).
"""

import argparse
import time
import warnings

import numpy as np
from _common import write_csv

from sklearn_privacy.gaussian import L2CompressionDP


def count_refusals(d, seeds, epsilon=2.0):
    X = np.random.default_rng(0).normal(size=(200, d))
    refused, zeros = [], 0
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(seeds):
            try:
                mech = L2CompressionDP(epsilon=epsilon, random_state=seed).fit(X)
            except ValueError:
                refused.append(seed)
                continue
            zeros += mech.fallback_ == "zeros"
    cpu = time.process_time() - start
    return {
        "d": d,
        "n": 200,
        "epsilon": epsilon,
        "fits": seeds,
        "refused": len(refused),
        "refused_seeds": " ".join(map(str, refused)),
        "no_scale_share": zeros / seeds,
        "cpu_ms_per_fit": 1000 * cpu / seeds,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20000)
    parser.add_argument("--dims", type=int, nargs="+", default=[3, 10])
    args = parser.parse_args()
    rows = []
    for d in args.dims:
        rows.append(count_refusals(d, args.seeds))
        print(rows[-1], flush=True)
    print(write_csv(rows, "overflow_refusal.csv"))


if __name__ == "__main__":
    main()
