"""The attacks of the privacy-promise issue, against a baseline commit and today's code.

Each attack of ``tests/_attacks.py`` (public API only; the tests assert today's
numbers, and the child loads that file by its path) runs in a child process
importing the package of the baseline commit, then of today's checkout, in the
same run. Prints one row per attack with both numbers and what a safe value
is, and writes ``results/privacy_attacks.csv``.

Run: ``python benchmarks/bench_privacy_attacks.py [--baseline REF]`` (default
``1c2d2b9``, the commit before the issue); about a minute.
"""

import argparse

from _common import REPO, checkout_at_ref, remove_checkout, run_with_package, write_csv

# (name, expression evaluated in the child, what a safe value is)
ATTACKS = [
    ("random states in a pickled model (public fit)", "pickle_replay()[0]", "0"),
    ("random states in private L2 + GIB models", "private_pickle_states()", "0"),
    ("owner's next release predicted from a pickle: residual", "pickle_replay()[1]", "1"),
    *[
        (f"copy difference via {path}: residual", f"copy_difference({path!r})", "1")
        for path in ("pickle", "deepcopy", "joblib", "loky", "pipeline-memory")
    ],
    ("noise left after averaging 200 dask computes (threads)", "dask_average(200)[0]", "1"),
    ("noise left after averaging 200 dask computes (sync)", "dask_average(200, 'sync')[0]", "1"),
    ("GIB: structure differs, one y = 0.5", "gib_neighbours()['y=0.5']", "0"),
    ("GIB: structure differs, one y = 3 (new class)", "gib_neighbours()['y=3']", "0"),
    ("GIB: structure differs, single-class y", "gib_neighbours()['single class']", "0"),
    ("weight-100 row: TPR at FPR 0.05 from mean_", "weighted_row()[0]", "<= GDP bound"),
    ("weight-100 row: GDP bound on that TPR", "weighted_row()[1]", ""),
    ("count table: share of fits whose ledger tells a moved person", "count_table()[0]", "0"),
    ("count table: mean's sensitivity / the expanded rows'", "count_table()[1]", "1"),
    ("S of a target row recovered from leakage_", "leakage_membership()", "0.5"),
    ("clip_rows: largest ||clip(x, R)|| / R", "clip_overshoot()[0]", "<= 1"),
    ("clip_rows([[7.37e306, 0]], 1.83e-17): norm / R", "clip_overshoot()[1]", "<= 1"),
]

# The child loads the tests' ``_attacks.py`` by its path (as ``load_test_reference`` does
# here): neither ``tests`` nor ``benchmarks`` is on the other's import path.
CHILD = """
import importlib.util
import warnings
warnings.simplefilter("ignore")
spec = importlib.util.spec_from_file_location("_attacks", {path!r})
_attacks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(_attacks)
print(float(eval({expression!r}, vars(_attacks))))
"""
ATTACKS_FILE = REPO / "tests" / "_attacks.py"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="1c2d2b9")
    args = parser.parse_args()
    folder = checkout_at_ref(args.baseline)
    rows = []
    try:
        print(f"{'attack':<58}{'before':>12}{'after':>12}  safe")
        for name, expression, safe in ATTACKS:
            code = CHILD.format(path=str(ATTACKS_FILE), expression=expression)
            before, after = (run_with_package(root, code) for root in (folder, REPO))
            rows.append({"attack": name, "before": before, "after": after, "safe": safe})
            print(f"{name:<58}{before:>12.3g}{after:>12.3g}  {safe}")
    finally:
        remove_checkout(folder)
    print("wrote", write_csv(rows, "privacy_attacks.csv"))


if __name__ == "__main__":
    main()
