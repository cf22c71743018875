"""Speed of the joint-symbol encoder (``CategoricalAlphabet``), today's code against a baseline.

The alphabet now stands on the shared ``utils._symbols`` encoder and row
lookup; it must not be slower than the one it replaced. Four tables: Adult's
six object columns (real data, long-tailed counts), 100000 rows of four
integer columns with 8 values (tied counts: 4096 symbols seen about 24 times
each), 100000 rows of three columns of 50 random integers (mostly
distinct symbols), and 100000 rows drawn from 2000 records of 20 columns of
30 values (30^20 combinations: beyond an int64 key, the rows' bytes are the
lookup keys; the per-row dictionary they replaced looped over the rows).
Both versions run in child processes of this one run, alternately; each
times best-of-7 ``fit_encode`` and ``encode`` of 20000 rows.

Run: ``python benchmarks/bench_symbol_encoding.py [--baseline REF]`` (default
``c2f6880``, the commit before the shared encoder).
"""

import argparse

from _common import (
    REPO,
    checkout_at_ref,
    default_data_home,
    remove_checkout,
    run_with_package,
    write_csv,
)

CHILD = """
import time
import numpy as np
from sklearn_privacy.discrete import CategoricalAlphabet
from sklearn_privacy.datasets import fetch_adult
columns = ["workclass", "education", "marital-status", "occupation", "relationship",
           "native-country"]
adult = fetch_adult(data_home={data_home!r}, as_frame=True, download_if_missing=False).frame
rng = np.random.default_rng(0)
tables = {{
    "adult (6 object columns)": adult[columns].astype(object).fillna("?").to_numpy(),
    "tied counts (4 x 8 values)": rng.integers(0, 8, (100000, 4)),
    "random (3 x 50 values)": rng.integers(0, 50, (100000, 3)),
    "wide (20 x 30 values)": rng.integers(0, 30, (2000, 20))[
        rng.integers(0, 2000, 100000)
    ],
}}
out = {{}}
for name, X in tables.items():
    fit = encode = float("inf")
    for _ in range(7):
        t = time.perf_counter()
        alphabet = CategoricalAlphabet(max_categories=None)
        codes = alphabet.fit_encode(X)
        fit = min(fit, time.perf_counter() - t)
        t = time.perf_counter()
        alphabet.encode(X[:20000])
        encode = min(encode, time.perf_counter() - t)
    out[name] = (fit, encode, int(alphabet.n_symbols_), int(codes.sum()))
print(out)
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="c2f6880")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    code = CHILD.format(data_home=str(default_data_home()))
    folder = checkout_at_ref(args.baseline)
    try:
        best = {"baseline": {}, "current": {}}
        for _ in range(args.rounds):
            for label, root in (("baseline", folder), ("current", REPO)):
                for name, value in run_with_package(root, code).items():
                    old = best[label].get(name, (float("inf"), float("inf")))
                    best[label][name] = (min(old[0], value[0]), min(old[1], value[1]), *value[2:])
    finally:
        remove_checkout(folder)
    rows = []
    header = f"{'table':<28}{'symbols':>8}{'fit ms (base/now)':>20}{'ratio':>7}"
    print(header + f"{'encode ms (base/now)':>23}{'ratio':>7}")
    for name, now in best["current"].items():
        base = best["baseline"][name]
        # same symbols, same codes: the encoders agree
        assert base[2:] == now[2:], (name, base[2:], now[2:])
        fit, enc = now[0] / base[0], now[1] / base[1]
        print(
            f"{name:<28}{now[2]:>8}{1e3 * base[0]:>10.1f}/{1e3 * now[0]:<9.1f}{fit:>7.2f}"
            f"{1e3 * base[1]:>12.1f}/{1e3 * now[1]:<10.1f}{enc:>7.2f}"
        )
        rows.append([name, now[2], base[0], now[0], fit, base[1], now[1], enc])
    write_csv(
        rows,
        "symbol_encoding.csv",
        header=[
            "table",
            "symbols",
            "fit_base_s",
            "fit_now_s",
            "fit_ratio",
            "encode_base_s",
            "encode_now_s",
            "encode_ratio",
        ],
    )


if __name__ == "__main__":
    main()
