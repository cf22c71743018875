"""Speed claim: L2CompressionDP.fit_transform on 100000 x 100 within 3x of PCA(100).fit_transform.

Both run in the same process on the same data; the best of ``--repeats`` runs is
reported. Writes ``benchmarks/results/gaussian_speed.csv`` and ``.png``.
"""

import argparse
import time

import numpy as np
from _common import RESULTS
from sklearn.decomposition import PCA

from sklearn_privacy.gaussian import L2CompressionDP


def best_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-features", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    B = rng.normal(size=(args.n_features, args.n_features)) / np.sqrt(args.n_features)
    X = rng.normal(size=(args.n_samples, args.n_features)) @ B + 3.0

    rows = []
    pca = lambda: PCA(n_components=args.n_features).fit_transform(X)  # noqa: E731
    for name, fn in [
        ("PCA(n_components=100).fit_transform", pca),
        (
            "L2CompressionDP(epsilon=1, fit_data='public').fit_transform",
            lambda: L2CompressionDP(epsilon=1.0, fit_data="public").fit_transform(X),
        ),
        (
            "L2CompressionDP(epsilon=1).fit_transform (private fit)",
            lambda: L2CompressionDP(epsilon=1.0).fit_transform(X),
        ),
    ]:
        best, median = best_time(fn, args.repeats)
        rows.append((name, best, median))
    base = rows[0][1]
    RESULTS.mkdir(parents=True, exist_ok=True)
    print(f"data {args.n_samples} x {args.n_features}, best of {args.repeats}")
    print(f"{'method':66s} {'best s':>8s} {'median s':>9s} {'ratio':>6s}")
    with open(RESULTS / "gaussian_speed.csv", "w") as f:
        f.write("method,best_s,median_s,ratio_to_pca\n")
        for name, best, median in rows:
            print(f"{name:66s} {best:8.3f} {median:9.3f} {best / base:6.2f}")
            f.write(f'"{name}",{best:.6f},{median:.6f},{best / base:.4f}\n')
    ratio = rows[1][1] / base
    print(f"claim (ratio <= 3): {'MET' if ratio <= 3 else 'NOT MET'} (ratio {ratio:.2f})")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3))
    ax.barh([r[0] for r in rows], [r[1] for r in rows])
    ax.set_xlabel(f"seconds (best of {args.repeats})")
    fig.tight_layout()
    fig.savefig(RESULTS / "gaussian_speed.png", dpi=120)


if __name__ == "__main__":
    main()
