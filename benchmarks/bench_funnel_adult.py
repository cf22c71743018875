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

Each threshold gives one deterministic mapping, and the greedy's result is not
monotone in the threshold: the figure draws every run as a point and each
algorithm's Pareto front as a staircase (bottom: least ``I(S;Y)`` among the
runs with at least that ``I(X;Y)``; top: most ``I(S;Y)`` among those with at
most that ``I(X;Y)``), as the paper's Fig. 1 compares them. Beside them: the
erasure mechanism (``Y = X`` with probability p, else a blank symbol:
``I(S;Y) = p I(S;X)`` at ``I(X;Y) = p H(X)``) and the data-processing bounds
``max(0, I(X;Y) - H(X|S)) <= I(S;Y) <= min(I(X;Y), I(S;X))`` that hold for
every mapping. Information is in nats.

Writes ``benchmarks/results/funnel_adult.csv`` (with an ``on_front`` column) and
``.png``.
"""

import argparse
import time

import numpy as np
from _common import default_data_home, joint_of, pareto_front, pyplot, save_figure, write_csv

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
    # Each threshold's greedy path is one deterministic mapping; the paths are not monotone in
    # the threshold, so the curves are the Pareto fronts of the points (bottom: least I(S;Y) for
    # at least that I(X;Y); top: most I(S;Y) for at most that I(X;Y)).
    fronts = {
        "funnel": low_front(curves["funnel"]),
        "bottleneck": high_front(curves["bottleneck"]),
    }
    for objective, label in [("funnel", "Alg. 1"), ("bottleneck", "Alg. 2")]:
        pts, front = curves[objective], fronts[objective]
        print(
            f"{label}: {len(pts)} thresholds, {len(np.unique(pts[:, 1:3], axis=0))} distinct "
            f"mappings, {len(front)} on the Pareto front"
        )
    low, top = curves["funnel"][fronts["funnel"]], curves["bottleneck"][fronts["bottleneck"]]
    upper = np.interp(low[:, 1], top[:, 1], top[:, 2])
    gap = upper - low[:, 2]
    worst = int(np.argmax(gap))
    print(
        f"\nmax gap between the fronts at equal I(X;Y) (linear between front points): "
        f"{gap[worst]:.4f} nats at I(X;Y) = {low[worst, 1]:.4f} "
        f"(Alg. 2 {upper[worst]:.4f}, Alg. 1 {low[worst, 2]:.4f})"
    )
    # Other baselines: erasure (Y = X with probability p, else a blank symbol) leaks
    # I(S;Y) = p I(S;X) at I(X;Y) = p H(X); data processing bounds every mapping.
    erasure = low[:, 1] * i_sx / h_x
    inner = (low[:, 1] > 0) & (low[:, 1] < h_x)
    below = int(np.sum(low[inner, 2] < erasure[inner] - 1e-12))
    ratio = low[inner, 2] / erasure[inner]
    print(
        f"Alg. 1 front vs erasure at the same I(X;Y): below it at {below}/{inner.sum()} inner "
        f"points, I(S;Y) ratio {ratio.min():.3f}-{ratio.max():.3f}"
    )
    h_x_given_s = h_x - i_sx
    inside = np.all(
        (curves["funnel"][:, 2] <= np.minimum(curves["funnel"][:, 1], i_sx) + 1e-9)
        & (curves["funnel"][:, 2] >= curves["funnel"][:, 1] - h_x_given_s - 1e-9)
    )
    print(f"every Alg. 1 point within the data-processing bounds: {bool(inside)}")
    for objective, shared, separate, same in timings:
        print(
            f"{objective} sweep of {args.n_thresholds} thresholds: shared {shared:.3f} s, one "
            f"run per threshold {separate:.3f} s ({separate / shared:.1f}x), same merges: {same}"
        )
    rows = [
        {
            "algorithm": algo,
            "threshold": t,
            "disclosure": disc,
            "leakage": leak,
            "n_clusters": int(k),
            "on_front": i in set(fronts[objective]),
        }
        for objective, algo in [("funnel", "alg1_min"), ("bottleneck", "alg2_max")]
        for i, (t, disc, leak, k) in enumerate(curves[objective])
    ]
    write_csv(rows, "funnel_adult.csv")
    plot(curves, fronts, h_x, i_sx, len(frame))


def low_front(points):
    """Alg. 1 points with no other point of larger I(X;Y) and smaller I(S;Y)."""
    return pareto_front(points[:, 1], points[:, 2], maximize_x=True, maximize_y=False)


def high_front(points):
    """Alg. 2 points with no other point of smaller I(X;Y) and larger I(S;Y)."""
    return pareto_front(points[:, 1], points[:, 2], maximize_x=False, maximize_y=True)


def plot(curves, fronts, h_x, i_sx, n_rows):
    plt = pyplot()
    if plt is None:  # pragma: no cover
        return
    fig, ax = plt.subplots(figsize=(7, 5))
    grid = np.linspace(0, h_x, 200)
    # Every mapping satisfies max(0, I(X;Y) - H(X|S)) <= I(S;Y) <= min(I(X;Y), I(S;X)).
    ax.fill_between(
        grid,
        np.minimum(grid, i_sx),
        i_sx * 1.06,
        color="0.92",
        lw=0,
        label="no mapping reaches (data processing)",
    )
    ax.fill_between(grid, 0, np.maximum(0, grid - (h_x - i_sx)), color="0.92", lw=0)
    ax.plot(grid, np.minimum(grid, i_sx), color="0.55", lw=1)
    ax.plot(grid, np.maximum(0, grid - (h_x - i_sx)), color="0.55", lw=1)
    ax.plot(
        [0, h_x],
        [0, i_sx],
        color="tab:gray",
        ls=":",
        lw=1.5,
        label="erasure: Y = X w.p. p, else blank",
    )
    styles = {
        "bottleneck": ("tab:red", "s", "steps-post", "Alg. 2", "max I(S;Y) (careless mapping)"),
        "funnel": ("tab:blue", "o", "steps-pre", "Alg. 1", "min I(S;Y) (privacy funnel)"),
    }
    for objective, (color, marker, steps, algo, what) in styles.items():
        pts, front = curves[objective], fronts[objective]
        ax.plot(
            pts[:, 1],
            pts[:, 2],
            ls="none",
            marker=marker,
            ms=4,
            mfc="none",
            color=color,
            alpha=0.6,
            label=f"{algo}: one greedy run per threshold",
        )
        ax.plot(
            pts[front, 1],
            pts[front, 2],
            color=color,
            drawstyle=steps,
            lw=2,
            label=f"{algo} Pareto front: {what}",
        )
    ax.set_xlim(-0.05, h_x * 1.02)
    ax.set_ylim(-0.03, i_sx * 1.06)
    ax.set_xlabel("disclosure I(X;Y) (nats)")
    ax.set_ylabel("leakage I(S;Y) (nats)")
    ax.set_title(
        f"Privacy funnel on Adult ({n_rows} rows), Makhdoumi et al. Fig. 1\n"
        "S = (age, income), X = (age, sex, education); greedy fronts as staircases",
        fontsize=10,
    )
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    save_figure(fig, "funnel_adult.png")


if __name__ == "__main__":
    main()
