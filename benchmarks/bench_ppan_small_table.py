"""PPAN at its defaults on a small continuous table: does the stopping rule end training?

Breast cancer (569 rows, 30 columns standardised, S the diagnosis), ``PPANTransformer`` at
its defaults, seeds 0-3: the epochs trained, whether the rule stopped it (``converged_``),
the warnings and the CPU seconds. ``max_epochs="auto"`` allows at least 10000 minibatch
updates (2000 epochs of 5 here); before issue 36 it allowed 100 epochs and every fit warned
``ConvergenceWarning``. ``--max-epochs 100`` reruns that budget.

Run: ``python benchmarks/bench_ppan_small_table.py [--seeds 4] [--max-epochs auto]``
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from sklearn_privacy import PPANTransformer


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--max-epochs", default="auto")
    args = parser.parse_args()
    max_epochs = args.max_epochs if args.max_epochs == "auto" else int(args.max_epochs)
    X, y = load_breast_cancer(return_X_y=True)
    data = np.c_[y, StandardScaler().fit_transform(X)]
    print("seed  epochs  converged  leakage_  distortion_  CPU s  warnings")
    for seed in range(args.seeds):
        start = time.process_time()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mech = PPANTransformer(sensitive=[0], max_epochs=max_epochs, random_state=seed)
            mech.fit(data)
        names = sorted({w.category.__name__ for w in caught})
        print(
            f"{seed:4d}  {mech.n_iter_:6d}  {mech.converged_!s:>9}  {mech.leakage_:8.3f}  "
            f"{mech.distortion_:11.3f}  {time.process_time() - start:5.1f}  {', '.join(names)}"
        )


if __name__ == "__main__":
    main()
