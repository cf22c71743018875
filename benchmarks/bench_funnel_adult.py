"""Paper result: min and max leakage curves on Adult (privacy-funnel-makhdoumi2014, Fig. 1).

S = (age, income), released X = (age, gender, education) with age in 7 bins
and education in 4 levels (:func:`sklearn_privacy.datasets.fetch_adult` with
``discretize=True``, training file, 32561 rows). The bottom curve sweeps the
disclosure threshold R of Alg. 1 (greedy privacy funnel: least ``I(S;Y)`` with
``I(X;Y) >= R``), the top curve the leakage threshold of Alg. 2 (greedy
bottleneck: least ``I(X;Y)`` with ``I(S;Y) >= threshold``, what a careless
mapping with the same disclosure may leak). The sweeps share the merges the
thresholds have in common (:func:`greedy_sweep`); their time is compared with
one :func:`greedy_merge` per threshold.

Writes ``benchmarks/results/funnel_adult.csv`` and ``.png``.
"""

import argparse
import time

import numpy as np
from _common import RESULTS, default_data_home, joint_of

from sklearn_privacy.datasets import fetch_adult
from sklearn_privacy.discrete._greedy import greedy_merge, greedy_sweep
from sklearn_privacy.information import entropy, mutual_information


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--n-thresholds", type=int, default=61)
    args = parser.parse_args()
    frame = fetch_adult(data_home=args.data_home, as_frame=True, discretize=True).frame
    joint = joint_of(frame, ["age", "income"], ["age", "sex", "education"])
    h_x, i_sx = entropy(joint.sum(axis=0)), mutual_information(joint)
    print(
        f"Adult: {len(frame)} rows, |S| = {joint.shape[0]}, |X| = {joint.shape[1]}, "
        f"H(S) = {entropy(joint.sum(axis=1)):.4f}, H(X) = {h_x:.4f}, I(S;X) = {i_sx:.4f} nats"
    )
    curves, timings = {}, []
    for objective, top in [("funnel", h_x), ("bottleneck", i_sx)]:
        thresholds = np.linspace(0, top, args.n_thresholds)
        t0 = time.perf_counter()
        paths = greedy_sweep(joint, thresholds, objective=objective)
        shared = time.perf_counter() - t0
        t0 = time.perf_counter()
        single = [greedy_merge(joint, objective=objective, threshold=t) for t in thresholds]
        separate = time.perf_counter() - t0
        same = all(np.array_equal(a.merges, b.merges) for a, b in zip(paths, single))
        timings.append((objective, shared, separate, same))
        curves[objective] = np.array(
            [(t, p.disclosure[-1], p.leakage[-1], p.n_clusters) for t, p in zip(thresholds, paths)]
        )
    print(f"\n{'R or threshold':>14s} {'I(X;Y) min':>11s} {'I(S;Y) min':>11s}   (Alg. 1)")
    for t, disc, leak, _ in curves["funnel"][:: max(1, args.n_thresholds // 12)]:
        print(f"{t:14.4f} {disc:11.4f} {leak:11.4f}")
    print(f"\n{'threshold':>14s} {'I(X;Y)':>11s} {'I(S;Y) max':>11s}   (Alg. 2)")
    for t, disc, leak, _ in curves["bottleneck"][:: max(1, args.n_thresholds // 12)]:
        print(f"{t:14.4f} {disc:11.4f} {leak:11.4f}")
    # Gap between the curves at the funnel's disclosure levels (interpolating Alg. 2).
    top = curves["bottleneck"][np.argsort(curves["bottleneck"][:, 1])]
    low = curves["funnel"]
    upper = np.interp(low[:, 1], top[:, 1], top[:, 2])
    gap = upper - low[:, 2]
    print(f"\nmax gap I(S;Y)_max - I(S;Y)_min at equal I(X;Y): {gap.max():.4f} nats")
    for objective, shared, separate, same in timings:
        print(
            f"{objective} sweep of {args.n_thresholds} thresholds: shared {shared:.3f} s, one "
            f"run per threshold {separate:.3f} s ({separate / shared:.1f}x), same merges: {same}"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RESULTS / "funnel_adult.csv", "w") as f:
        f.write("algorithm,threshold,disclosure,leakage,n_clusters\n")
        for objective, algo in [("funnel", "alg1_min"), ("bottleneck", "alg2_max")]:
            for t, disc, leak, k in curves[objective]:
                f.write(f"{algo},{t:.6g},{disc:.6g},{leak:.6g},{int(k)}\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    fig, ax = plt.subplots(figsize=(5.5, 4))
    order = np.argsort(top[:, 1])
    ax.plot(top[order, 1], top[order, 2], "s-", ms=3, label="max I(S;Y) (Alg. 2, bottleneck)")
    order = np.argsort(low[:, 1])
    ax.plot(low[order, 1], low[order, 2], "o-", ms=3, label="min I(S;Y) (Alg. 1, funnel)")
    ax.set_xlabel("I(X;Y) (nats)")
    ax.set_ylabel("I(S;Y) (nats)")
    ax.set_title("Adult: S=(age, income), X=(age, gender, education)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "funnel_adult.png", dpi=120)


if __name__ == "__main__":
    main()
