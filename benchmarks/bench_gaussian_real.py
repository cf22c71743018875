"""Thesis Fig. 6.9-6.11: logistic-regression accuracy against epsilon on real data.

Breast cancer (L2 compression) and drug consumption (L2 compression and the
Gaussian information bottleneck with the legal drugs as relevance variable),
delta = 1e-5, 100 random 50/50 splits (``--n-splits``), with the majority-class and non-private
baselines. As in the thesis, the covariance is taken as public (estimated on the
whole data set) and the data is centred; the clipping radius is the largest
norm of a centred row.

Two protocols, from one release per split and one classifier trained on the
released training rows:

- "test rows released": the classifier is scored on the released test rows
  (the whole data set goes through the mechanism);
- "test rows clean": it is scored on test rows that are not released, as a
  model trained on a published release is used on new rows: for L2 the
  original test rows (the release lives in the data space), for GIB, whose
  output has fewer columns than x, the rows through its map without noise
  (``A clip(x - c)``). An earlier version also passed the L2 test rows through
  the noiseless map ``c + V_k (a * V_k^T clip(x - c))``; that map shrinks rows
  toward the centre, and at epsilon = 5 every prediction was the majority class.

The thesis states (sec. 6.3.4) that beating the majority baseline
significantly takes epsilon = 5 and beyond and that coming close to the
non-private accuracy takes epsilon >= 20; its figures' values are not in the
text. The script prints the first epsilon at which each protocol does either
(mean less one standard deviation above the majority; mean within 2 points of
the non-private accuracy), next to those numbers, and which protocol is closer
(summed |log10| of the ratios). Writes ``gaussian_real.csv`` and
``gaussian_real.png`` under ``benchmarks/results/``.
"""

import argparse
import warnings

import numpy as np
from _common import RESULTS, default_data_home, pyplot, save_figure, write_csv
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import ShuffleSplit

from sklearn_privacy.datasets import fetch_breast_cancer_wisconsin, fetch_drug_consumption
from sklearn_privacy.dp import clip_rows
from sklearn_privacy.exceptions import PrivacyLeakWarning
from sklearn_privacy.gaussian import GaussianIBTransformer, L2CompressionDP

EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 1000.0]
LEGAL = ["Alcohol", "Caff", "Choc", "Nicotine"]
RELEASED, CLEAN = "test rows released", "test rows clean"
# Thesis sec. 6.3.4: "significantly outperforming the baseline already requires a privacy
# risk of epsilon = 5 and beyond"; "getting close to the non-private baseline requires
# ... epsilon >= 20".
THESIS_BEAT, THESIS_NEAR = 5.0, 20.0
TITLES = {
    "breast_cancer_L2": "breast cancer, L2 compression (thesis Fig. 6.9)",
    "drug_L2": "drug consumption, L2 compression (Fig. 6.10)",
    "drug_GIB": "drug consumption, GIB, legal drugs as Y (Fig. 6.11)",
}


def gib_for_epsilon(X, Y, epsilon, delta, radius):
    """Largest beta whose GIB release is (epsilon, delta)-DP (epsilon_ grows with beta)."""
    base = GaussianIBTransformer(fit_data="public", beta=1e12, clip_radius=radius, delta=delta).fit(
        X, Y
    )
    crit = base.critical_betas_.min()
    lo, hi = np.log(1e-12), np.log(1e12)  # log(beta - crit)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        eps = GaussianIBTransformer(
            fit_data="public", beta=crit + np.exp(mid), clip_radius=radius, delta=delta
        )
        if eps.fit(X, Y).epsilon_ > epsilon:
            hi = mid
        else:
            lo = mid
    return crit + np.exp(lo)


def gib_noiseless(mech, X):
    """GaussianIBTransformer's map without its noise: ``A clip(x - c)``."""
    X = np.asarray(X, dtype=float)[:, mech.feature_positions_]
    return clip_rows(X, mech.radius_, center=mech.mean_) @ mech.components_.T


def evaluate(name, X, y, make_release, n_splits, seed=0):
    """Accuracy per epsilon under both protocols, and the baselines, over random 50/50 splits."""
    rng = np.random.default_rng(seed)
    splits = list(ShuffleSplit(n_splits=n_splits, test_size=0.5, random_state=seed).split(X))
    maj, raw = [], []
    for tr, te in splits:
        values, counts = np.unique(y[tr], return_counts=True)
        maj.append(np.mean(y[te] == values[np.argmax(counts)]))
        raw.append(LogisticRegression(max_iter=1000).fit(X[tr], y[tr]).score(X[te], y[te]))
    rows = []
    for eps in EPSILONS:
        release = make_release(eps)
        released, clean = [], []
        for tr, te in splits:
            T, T_clean = release(rng)
            model = LogisticRegression(max_iter=1000).fit(T[tr], y[tr])
            released.append(model.score(T[te], y[te]))
            clean.append(model.score(T_clean[te], y[te]))
        for protocol, accs in [(RELEASED, released), (CLEAN, clean)]:
            rows.append((name, protocol, eps, float(np.mean(accs)), float(np.std(accs))))
    return rows, (float(np.mean(maj)), float(np.mean(raw)), float(np.std(raw)))


def first_epsilons(rows, majority, non_private):
    """First epsilon clearly above the majority, and first within 2 points of non-private.

    "Clearly above" reads the thesis's "significantly outperforming": the mean less one
    standard deviation (the thesis's error bars) exceeds the majority-class accuracy.
    """
    beat = next((e for _, _, e, m, sd in rows if m - sd > majority), None)
    near = next((e for _, _, e, m, _ in rows if m > non_private - 0.02), None)
    return beat, near


def distance_to_thesis(beat, near):
    """Sum of |log10| ratios to the thesis's epsilons (5 and 20); a miss counts as 3 decades."""
    miss = 3.0
    d_beat = miss if beat is None else abs(np.log10(beat / THESIS_BEAT))
    d_near = miss if near is None else abs(np.log10(near / THESIS_NEAR))
    return d_beat + d_near


def main():
    # Seeded refits are experiments, never published: the seed warning is expected here.
    warnings.filterwarnings("ignore", category=PrivacyLeakWarning)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-home", default=default_data_home())
    parser.add_argument("--n-splits", type=int, default=100)
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument(
        "--from-csv",
        action="store_true",
        help="redo the comparison and the figure from results/gaussian_real.csv",
    )
    args = parser.parse_args()
    if args.from_csv:
        all_rows, baselines, n_splits = read_results(RESULTS / "gaussian_real.csv")
        report(all_rows, baselines, args.delta, n_splits)
        return
    delta = args.delta

    bc = fetch_breast_cancer_wisconsin(data_home=args.data_home, download_if_missing=False)
    keep = ~np.isnan(bc.data).any(axis=1)
    Xb = bc.data[keep].astype(float)
    Xb = Xb - Xb.mean(axis=0)
    yb = (bc.target[keep] == "malignant").astype(int)
    Rb = float(np.linalg.norm(Xb, axis=1).max())

    drug = fetch_drug_consumption(data_home=args.data_home, download_if_missing=False)
    grades = np.vectorize(lambda c: int(str(c)[2:]))(np.asarray(drug.target, dtype=object))
    names = list(drug.target_names)
    legal = [names.index(n) for n in LEGAL]
    hard = [i for i in range(len(names)) if i not in legal]
    Xd = drug.data.astype(float)
    Xd = Xd - Xd.mean(axis=0)
    score = grades[:, hard].mean(axis=1)
    yd = (score > np.median(score)).astype(int)
    Yd = grades[:, legal].astype(float)
    Rd = float(np.linalg.norm(Xd, axis=1).max())

    def l2_release(X, R):
        def make(eps):
            fit_args = (X,)
            mech = L2CompressionDP(fit_data="public", epsilon=eps, delta=delta, clip_radius=R)

            def release(rng):
                # a public fit is deterministic: refitting restarts the release stream
                mech.set_params(random_state=int(rng.integers(2**31))).fit(*fit_args)
                return mech.transform(X), X  # clean: the original rows

            return release

        return make

    def gib_release(X, Y, R):
        def make(eps):
            beta = gib_for_epsilon(X, Y, eps, delta, R)
            fit_args = (X, Y)
            mech = GaussianIBTransformer(fit_data="public", beta=beta, clip_radius=R, delta=delta)

            def release(rng):
                # a public fit is deterministic: refitting restarts the release stream
                mech.set_params(random_state=int(rng.integers(2**31))).fit(*fit_args)
                return mech.transform(X), gib_noiseless(mech, X)

            return release

        return make

    experiments = [
        ("breast_cancer_L2", Xb, yb, l2_release(Xb, Rb)),
        ("drug_L2", Xd, yd, l2_release(Xd, Rd)),
        ("drug_GIB", Xd, yd, gib_release(Xd, Yd, Rd)),
    ]
    all_rows, baselines = [], {}
    for name, X, y, make in experiments:
        rows, base = evaluate(name, X, y, make, args.n_splits)
        all_rows += rows
        baselines[name] = base
        print(
            f"\n{name}: n={X.shape[0]}, d={X.shape[1]}, "
            f"clip radius {np.linalg.norm(X, axis=1).max():.2f}"
        )
        print(f"  majority {base[0]:.3f}   non-private {base[1]:.3f} +- {base[2]:.3f}")
    write_csv(
        [
            {
                "experiment": name,
                "protocol": protocol,
                "epsilon": eps,
                "accuracy_mean": m,
                "accuracy_std": sd,
                "majority": baselines[name][0],
                "non_private": baselines[name][1],
                "n_splits": args.n_splits,
            }
            for name, protocol, eps, m, sd in all_rows
        ],
        "gaussian_real.csv",
    )

    report(all_rows, baselines, delta, args.n_splits)


def read_results(path):
    """The rows and baselines that :func:`main` wrote to ``path``."""
    all_rows, baselines = [], {}
    with open(path) as f:
        header = f.readline().strip().split(",")
        for line in f:
            rec = dict(zip(header, line.strip().split(",")))
            name = rec["experiment"]
            all_rows.append(
                (
                    name,
                    rec["protocol"],
                    float(rec["epsilon"]),
                    float(rec["accuracy_mean"]),
                    float(rec["accuracy_std"]),
                )
            )
            baselines[name] = (float(rec["majority"]), float(rec["non_private"]), np.nan)
            n_splits = int(rec.get("n_splits", 100))
    return all_rows, baselines, n_splits


def report(all_rows, baselines, delta, n_splits):
    print("\nMean (sd) test accuracy; the classifier is trained on released rows")
    print(
        f"  {'experiment':17s} {'epsilon':>8s} {'test released':>14s} {'test clean':>14s} "
        f"{'majority':>9s} {'non-private':>12s}"
    )
    for name in baselines:
        for eps in EPSILONS:
            r = {row[1]: row for row in all_rows if row[0] == name and row[2] == eps}
            print(
                f"  {name:17s} {eps:8g} {r[RELEASED][3]:7.3f} ({r[RELEASED][4]:.3f}) "
                f"{r[CLEAN][3]:7.3f} ({r[CLEAN][4]:.3f}) {baselines[name][0]:9.3f} "
                f"{baselines[name][1]:12.3f}"
            )
    print(
        f"\nAgainst the thesis (sec. 6.3.4: beating the majority significantly from epsilon = "
        f"{THESIS_BEAT:g}, near the non-private accuracy from epsilon >= {THESIS_NEAR:g}); here: "
        "first epsilon whose mean - 1 sd is above the majority / first within 2 points of "
        "non-private"
    )
    distance = {RELEASED: 0.0, CLEAN: 0.0}
    for name in baselines:
        maj, raw, _ = baselines[name]
        cells = []
        for protocol in (RELEASED, CLEAN):
            rows = [r for r in all_rows if r[0] == name and r[1] == protocol]
            beat, near = first_epsilons(rows, maj, raw)
            distance[protocol] += distance_to_thesis(beat, near)
            cells.append(f"{protocol}: {beat} / {near}")
        print(f"  {name:17s} thesis: {THESIS_BEAT:g} / >={THESIS_NEAR:g};  " + ";  ".join(cells))
    best = min(distance, key=distance.get)
    print(
        f"closer to the thesis: '{best}' (summed |log10| distance to its epsilons: "
        + ", ".join(f"{p} {d:.2f}" for p, d in distance.items())
        + ")"
    )
    at5 = {(r[0], r[1]): r[3] for r in all_rows if r[2] == 5.0}
    print(
        "accuracy at epsilon = 5, released vs clean: "
        + ", ".join(
            f"{name} {at5[(name, RELEASED)]:.3f} vs {at5[(name, CLEAN)]:.3f}" for name in baselines
        )
    )
    plot(all_rows, baselines, delta, best, n_splits)


def plot(all_rows, baselines, delta, best, n_splits):
    plt = pyplot()
    if plt is None:  # pragma: no cover
        return
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.2), sharey=False)
    for ax, name in zip(axes, baselines):
        for protocol, color, marker, shift in [
            (RELEASED, "tab:red", "s", 0.94),
            (CLEAN, "tab:blue", "o", 1.06),
        ]:
            rows = [r for r in all_rows if r[0] == name and r[1] == protocol]
            e = np.array([r[2] for r in rows])
            note = " (closer to thesis)" if protocol == best else ""
            ax.errorbar(
                e * shift,
                [r[3] for r in rows],
                yerr=[r[4] for r in rows],
                marker=marker,
                ms=4,
                color=color,
                capsize=2,
                label=f"{protocol}{note}",
            )
        ax.axhline(baselines[name][0], color="k", ls=":", label="majority class")
        ax.axhline(baselines[name][1], color="g", ls="--", label="non-private logistic regression")
        ax.axvline(THESIS_BEAT, color="0.5", lw=0.8, ls="-.")
        ax.axvline(THESIS_NEAR, color="0.5", lw=0.8, ls="-.")
        ax.set_xscale("log")
        ax.set_xlabel(f"epsilon (nats; delta = {delta:g}); thesis marks at 5 and 20")
        ax.set_ylabel("test accuracy (mean +- sd over splits)")
        ax.set_title(TITLES.get(name, name), fontsize=10)
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    fig.suptitle(
        "Kohler 2018 thesis Fig. 6.9-6.11: logistic regression trained on released rows, "
        f"{n_splits} random 50/50 splits"
    )
    fig.tight_layout()
    save_figure(fig, "gaussian_real.png")


if __name__ == "__main__":
    main()
