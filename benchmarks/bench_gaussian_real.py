"""Thesis Fig. 6.9-6.11: logistic-regression accuracy against epsilon on real data.

Breast cancer (L2 compression) and drug consumption (L2 compression and the
Gaussian information bottleneck with the legal drugs as relevance variable),
delta = 1e-5, 100 random 50/50 splits (``--n-splits``), with the majority-class and non-private
baselines. As in the thesis, the covariance is taken as public (estimated on the
whole data set) and the data is centred; the clipping radius is the largest
norm of a centred row.

The protocol is the thesis's (sec. 6.3.3: "cross-validation (100 random 50/50
splits of the data) to estimate the accuracy of a logistic regression
classifier trained on the compressed data"): the whole data set is released
once per split, the classifier is trained on the released training rows and
scored on the released test rows. An earlier version of this script also
scored on clean (unreleased) test rows and printed that this protocol was
closer to the thesis; the thesis's text says otherwise, and the clean column is
kept only for contrast, for the library's convention ("clean": the original
rows for L2, ``A clip(x - c)`` without noise for GIB, whose output has fewer
columns than x).

Two sensitivity conventions, for the same (epsilon, delta):

- "2R" (the library's): replace-one neighbours, the release's Mahalanobis
  sensitivity is ``2 R ||Lambda^(-1/2) A||_2`` (``sensitivity_``);
- "R" (the thesis's, sec. 5.4: ``Delta f = ||A||_2 R``): half of it.

Only ``mu = sensitivity / sigma`` enters the analytic Gaussian mechanism, so a
release whose R-convention guarantee is (epsilon, delta) is exactly the
library's release at ``epsilon' = gaussian_dp_epsilon_from_mu(2 *
gaussian_dp_mu(epsilon, delta), delta)``; the script checks every fit
(``gaussian_dp_epsilon_from_mu(sensitivity_ / 2, delta) == epsilon`` to 1e-9
relative). Doubling epsilon is not the same thing: the analytic calibration is
not linear in epsilon (at delta = 1e-5, ``mu(2 epsilon) / mu(epsilon)`` is
1.87 at epsilon = 1 and 1.45 at 1000, and ``epsilon' / epsilon`` is 2.15 and
3.66); the script prints both ratios.

The thesis's text gives no values of its figures, only two claims (sec.
6.3.4): beating the majority baseline significantly takes epsilon = 5 and
beyond, and coming close to the non-private accuracy takes epsilon >= 20. The
script prints, per experiment and convention, the first epsilon at which the
released-protocol curve does either (mean less one or two standard deviations
above the majority; mean within 2 points of the non-private accuracy) beside
those claims, with "agrees" / "differs", and the verdict under both readings
of "significantly". Run for issue 36 (100 splits, today's code, 8.5 min wall on a
loaded shared 2-core machine): with one standard deviation (the thesis's error
bars) 2R agrees with both claims in 2/3 experiments and R in 1/3; with two, 2R in
0/3 and R in 2/3 (breast cancer under R first beats the majority at epsilon 10;
an older run, before the noise-grid change, said 3/3). Writes
``gaussian_real.csv`` and ``gaussian_real.png`` under ``benchmarks/results/``.
"""

import argparse
import warnings

import numpy as np
from _common import RESULTS, default_data_home, pyplot, save_figure, write_csv
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import ShuffleSplit

from sklearn_privacy.datasets import fetch_breast_cancer_wisconsin, fetch_drug_consumption
from sklearn_privacy.dp import clip_rows, gaussian_dp_epsilon_from_mu, gaussian_dp_mu
from sklearn_privacy.exceptions import PrivacyLeakWarning
from sklearn_privacy.gaussian import GaussianIBTransformer, L2CompressionDP

EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 1000.0]
LEGAL = ["Alcohol", "Caff", "Choc", "Nicotine"]
# (convention, protocol) of each curve; the thesis's protocol is "released"
LIBRARY, THESIS = "2R", "R"
RELEASED, CLEAN = "released", "clean"
CURVES = [(LIBRARY, RELEASED), (THESIS, RELEASED), (LIBRARY, CLEAN)]
LABELS = {
    (LIBRARY, RELEASED): "released rows, sensitivity 2R (library, replace-one)",
    (THESIS, RELEASED): "released rows, sensitivity R (thesis sec. 5.4)",
    (LIBRARY, CLEAN): "clean test rows, 2R (not the thesis's protocol)",
}
# Thesis sec. 6.3.4: "significantly outperforming the baseline already requires a privacy
# risk of epsilon = 5 and beyond"; "getting close to the non-private baseline requires
# ... epsilon >= 20".
THESIS_BEAT, THESIS_NEAR = 5.0, 20.0
# "Significantly above the majority": mean - n_sd standard deviations above it. The
# thesis's error bars are one sd; two is closer to a test. The verdict flips between
# them (before the noise-grid change: 2R 2/3 and R 1/3 with one sd, 2R 0/3 with two; R with
# two: 2/3 in issue 36's run), so both print.
SD_RULES = (1.0, 2.0)
TITLES = {
    "breast_cancer_L2": "breast cancer, L2 compression (thesis Fig. 6.9)",
    "drug_L2": "drug consumption, L2 compression (Fig. 6.10)",
    "drug_GIB": "drug consumption, GIB, legal drugs as Y (Fig. 6.11)",
}


def library_epsilon(epsilon, delta, convention):
    """The library's epsilon whose release is (epsilon, delta)-DP under ``convention``.

    Under "R" the sensitivity is half the library's, so the same noise allows twice
    the library's ``mu``: exact, because only ``mu`` enters the analytic mechanism.
    """
    if convention == LIBRARY:
        return epsilon
    return gaussian_dp_epsilon_from_mu(2.0 * gaussian_dp_mu(epsilon, delta), delta)


def convention_epsilon(mech, convention):
    """Epsilon of a fitted public release under ``convention`` (from ``sensitivity_``)."""
    scale = 1.0 if convention == LIBRARY else 0.5
    return gaussian_dp_epsilon_from_mu(scale * mech.sensitivity_, mech.delta_)


def make_gib(beta, radius, delta):
    """The thesis's GIB: public fit, the legal drugs' grades as numbers (sec. 6.3.2).

    ``classes="continuous"``: the grades are integers, which ``classes="auto"`` would
    one-hot over the ~400 grade combinations seen, not the thesis's Gaussian model.
    """
    return GaussianIBTransformer(
        fit_data="public", beta=beta, clip_radius=radius, delta=delta, classes="continuous"
    )


def gib_for_epsilon(X, Y, epsilon, delta, radius):
    """Largest beta whose GIB release is (epsilon, delta)-DP (epsilon_ grows with beta)."""
    crit = make_gib(1e12, radius, delta).fit(X, Y).critical_betas_.min()
    lo, hi = np.log(1e-12), np.log(1e12)  # log(beta - crit)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if make_gib(crit + np.exp(mid), radius, delta).fit(X, Y).epsilon_ > epsilon:
            hi = mid
        else:
            lo = mid
    return crit + np.exp(lo)


def printed_bound_ratio(mech):
    """The thesis's ``||A||_2 / lambda_min`` over the exact ``||Lambda^(-1/2) A||_2`` (L2)."""
    sd = np.sqrt(mech.noise_variance_)
    return float(mech.scale_.max() / sd.min() / (mech.scale_ / sd).max())


def gib_noiseless(mech, X):
    """GaussianIBTransformer's map without its noise: ``A clip(x - c)``."""
    X = np.asarray(X, dtype=float)[:, mech.feature_positions_]
    return clip_rows(X, mech.radius_, center=mech.mean_) @ mech.components_.T


def check_convention(mech, epsilon, convention, rtol):
    """The fitted release's guarantee under ``convention`` is ``epsilon`` (GIB: at most)."""
    achieved = convention_epsilon(mech, convention)
    if not (achieved <= epsilon * (1 + 1e-9) and achieved >= epsilon * (1 - rtol)):
        raise AssertionError(
            f"convention {convention}: the release is {achieved!r}-DP, asked {epsilon!r}"
        )


def evaluate(name, X, y, make_release, n_splits, delta, seed=0):
    """Accuracy per (epsilon, convention) under both protocols, and the baselines."""
    rng = np.random.default_rng(seed)
    splits = list(ShuffleSplit(n_splits=n_splits, test_size=0.5, random_state=seed).split(X))
    maj, raw = [], []
    for tr, te in splits:
        values, counts = np.unique(y[tr], return_counts=True)
        maj.append(np.mean(y[te] == values[np.argmax(counts)]))
        raw.append(LogisticRegression(max_iter=1000).fit(X[tr], y[tr]).score(X[te], y[te]))
    rows = []
    for eps in EPSILONS:
        for convention in (LIBRARY, THESIS):
            release = make_release(eps, convention)
            released, clean = [], []
            for tr, te in splits:
                T, T_clean = release(rng)
                model = LogisticRegression(max_iter=1000).fit(T[tr], y[tr])
                released.append(model.score(T[te], y[te]))
                if (convention, CLEAN) in CURVES:
                    clean.append(model.score(T_clean[te], y[te]))
            for protocol, accs in [(RELEASED, released), (CLEAN, clean)]:
                if (convention, protocol) in CURVES:
                    rows.append(
                        (name, convention, protocol, eps, float(np.mean(accs)), float(np.std(accs)))
                    )
    return rows, (float(np.mean(maj)), float(np.mean(raw)), float(np.std(raw)))


def first_epsilons(rows, majority, non_private, n_sd=1.0):
    """First epsilon clearly above the majority, and first within 2 points of non-private.

    "Clearly above" reads the thesis's "significantly outperforming": the mean less
    ``n_sd`` standard deviations (the thesis's error bars are one) exceeds the
    majority-class accuracy. None: at no epsilon of the sweep.
    """
    beat = next((r[3] for r in rows if r[4] - n_sd * r[5] > majority), None)
    near = next((r[3] for r in rows if r[4] > non_private - 0.02), None)
    return beat, near


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
    print_calibration(delta)

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

    literal = {}  # (radius, epsilon) -> (components kept, printed bound / R-Mahalanobis)

    def l2_release(X, R):
        def make(eps, convention):
            mech = L2CompressionDP(
                fit_data="public",
                epsilon=library_epsilon(eps, delta, convention),
                delta=delta,
                clip_radius=R,
            )
            check_convention(mech.fit(X), eps, convention, rtol=1e-9)
            if convention == THESIS:
                literal[R, eps] = (mech.n_components_, printed_bound_ratio(mech))

            def release(rng):
                # a public fit is deterministic: refitting restarts the release stream
                mech.set_params(random_state=int(rng.integers(2**31))).fit(X)
                return mech.transform(X), X  # clean: the original rows

            return release

        return make

    def gib_release(X, Y, R):
        def make(eps, convention):
            beta = gib_for_epsilon(X, Y, library_epsilon(eps, delta, convention), delta, R)
            mech = make_gib(beta, R, delta)
            # the bisection stops within a factor 1 + 1e-9 of beta - crit
            check_convention(mech.fit(X, Y), eps, convention, rtol=1e-6)

            def release(rng):
                # a public fit is deterministic: refitting restarts the release stream
                mech.set_params(random_state=int(rng.integers(2**31))).fit(X, Y)
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
        rows, base = evaluate(name, X, y, make, args.n_splits, delta)
        all_rows += rows
        baselines[name] = base
        print(
            f"\n{name}: n={X.shape[0]}, d={X.shape[1]}, "
            f"clip radius {np.linalg.norm(X, axis=1).max():.2f}"
        )
        print(f"  majority {base[0]:.3f}   non-private {base[1]:.3f} +- {base[2]:.3f}")
    print(
        "\nL2 under sensitivity R: the thesis's printed bound ||A||_2 R / lambda_min (sec. 5.4) "
        "over the exact R ||Lambda^(-1/2) A||_2 used here (1 while one component is kept; "
        "the GIB's noise is white, so there they are equal)"
    )
    for name, R in [("breast_cancer_L2", Rb), ("drug_L2", Rd)]:
        print(
            f"  {name:17s} "
            + ", ".join(
                f"eps {e:g}: {literal[R, e][0]} comp. {literal[R, e][1]:.2f}" for e in EPSILONS
            )
        )
    write_csv(
        [
            {
                "experiment": name,
                "convention": convention,
                "protocol": protocol,
                "epsilon": eps,
                "library_epsilon": library_epsilon(eps, delta, convention),
                "accuracy_mean": m,
                "accuracy_std": sd,
                "majority": baselines[name][0],
                "non_private": baselines[name][1],
                "n_splits": args.n_splits,
            }
            for name, convention, protocol, eps, m, sd in all_rows
        ],
        "gaussian_real.csv",
    )

    report(all_rows, baselines, delta, args.n_splits)


def print_calibration(delta):
    """The R convention as a library epsilon, beside the doubled epsilon it is not."""
    print(
        f"Sensitivity R (thesis) as the library's epsilon at delta = {delta:g}: "
        "epsilon' = eps_from_mu(2 mu(epsilon)); doubling epsilon gives mu(2 epsilon) instead"
    )
    print(f"  {'epsilon':>8s} {'epsilon_prime':>14s} {'ratio':>6s} {'mu(2eps)/mu(eps)':>17s}")
    for eps in EPSILONS:
        prime = library_epsilon(eps, delta, THESIS)
        mu_ratio = gaussian_dp_mu(2 * eps, delta) / gaussian_dp_mu(eps, delta)
        print(f"  {eps:8g} {prime:14.4f} {prime / eps:6.3f} {mu_ratio:17.3f}")


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
                    rec["convention"],
                    rec["protocol"],
                    float(rec["epsilon"]),
                    float(rec["accuracy_mean"]),
                    float(rec["accuracy_std"]),
                )
            )
            baselines[name] = (float(rec["majority"]), float(rec["non_private"]), np.nan)
            n_splits = int(rec["n_splits"])
    return all_rows, baselines, n_splits


def curve(all_rows, name, convention, protocol):
    return [r for r in all_rows if r[:3] == (name, convention, protocol)]


def report(all_rows, baselines, delta, n_splits):
    print(
        f"\nMean (sd) test accuracy over {n_splits} random 50/50 splits; the classifier is "
        "trained on released rows and scored on released test rows (the thesis's protocol) "
        "or, for contrast, on clean ones"
    )
    heads = ["released 2R", "released R", "clean 2R"]
    print(
        f"  {'experiment':17s} {'epsilon':>8s} "
        + " ".join(f"{h:>14s}" for h in heads)
        + f" {'majority':>9s} {'non-private':>12s}"
    )
    for name in baselines:
        for eps in EPSILONS:
            cells = []
            for key in CURVES:
                (r,) = [row for row in curve(all_rows, name, *key) if row[3] == eps]
                cells.append(f"{r[4]:7.3f} ({r[5]:.3f})")
            print(
                f"  {name:17s} {eps:8g} "
                + " ".join(cells)
                + f" {baselines[name][0]:9.3f} {baselines[name][1]:12.3f}"
            )
    print(
        f"\nThesis sec. 6.3.4, for all three figures: beating the majority significantly "
        f"from epsilon = {THESIS_BEAT:g}, near the non-private accuracy from epsilon >= "
        f"{THESIS_NEAR:g}. Here (released rows, the thesis's protocol): 'beat', the first "
        "epsilon whose mean - 1 sd (the thesis's error bar) or mean - 2 sd is above the "
        "majority (agrees if 5), and 'near', the first within 2 points of non-private "
        "(agrees if >= 20 or never)"
    )
    agree = {}
    for name in baselines:
        maj, raw, _ = baselines[name]
        cells = []
        for convention in (LIBRARY, THESIS):
            rows = curve(all_rows, name, convention, RELEASED)
            near = first_epsilons(rows, maj, raw)[1]
            ok_near = near is None or near >= THESIS_NEAR
            beats = []
            for n_sd in SD_RULES:
                beat = first_epsilons(rows, maj, raw, n_sd=n_sd)[0]
                agree[name, convention, n_sd] = beat == THESIS_BEAT and ok_near
                beats.append(
                    f"{n_sd:g} sd: {beat} ({'agrees' if beat == THESIS_BEAT else 'differs'})"
                )
            cells.append(
                f"{convention}: beat {', '.join(beats)}; near {near} "
                f"({'agrees' if ok_near else 'differs'})"
            )
        print(f"  {name:17s} " + ";  ".join(cells))
    # The verdict rests on the reading of "significantly": give it under both rules.
    for n_sd in SD_RULES:
        counts = ", ".join(
            f"sensitivity {convention} {sum(agree[name, convention, n_sd] for name in baselines)}"
            f"/{len(baselines)}"
            for convention in (LIBRARY, THESIS)
        )
        print(
            f"'beat' read as mean - {n_sd:g} sd above the majority: experiments that agree with "
            f"both claims of the thesis: {counts}"
        )
    print(
        "The thesis's protocol is the released one (sec. 6.3.3); scoring on clean rows is a "
        "different question (a model trained on a release, used on new rows) and is shown "
        "only for contrast."
    )
    plot(all_rows, baselines, delta, n_splits)


def plot(all_rows, baselines, delta, n_splits):
    plt = pyplot()
    if plt is None:  # pragma: no cover
        return
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.6), sharey=False)
    styles = {
        (LIBRARY, RELEASED): ("tab:red", "s", 0.94, "-"),
        (THESIS, RELEASED): ("tab:purple", "^", 1.0, "-"),
        (LIBRARY, CLEAN): ("0.6", "o", 1.06, ":"),
    }
    for ax, name in zip(axes, baselines):
        for key in CURVES:
            color, marker, shift, ls = styles[key]
            rows = curve(all_rows, name, *key)
            e = np.array([r[3] for r in rows])
            ax.errorbar(
                e * shift,
                [r[4] for r in rows],
                yerr=[r[5] for r in rows],
                marker=marker,
                ms=4,
                ls=ls,
                color=color,
                capsize=2,
                label=LABELS[key],
            )
        ax.axhline(baselines[name][0], color="k", ls=":", label="majority class")
        ax.axhline(baselines[name][1], color="g", ls="--", label="non-private logistic regression")
        ax.axvline(THESIS_BEAT, color="0.5", lw=0.8, ls="-.")
        ax.axvline(THESIS_NEAR, color="0.5", lw=0.8, ls="-.")
        ax.set_xscale("log")
        ax.set_xlabel(f"epsilon (delta = {delta:g}); thesis's claims at 5 and 20")
        ax.set_ylabel("test accuracy (mean +- sd over splits)")
        ax.set_title(TITLES.get(name, name), fontsize=10)
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1)
    fig.suptitle(
        "Kohler 2018 thesis Fig. 6.9-6.11: logistic regression trained and scored on released "
        f"rows, {n_splits} random 50/50 splits"
    )
    fig.tight_layout()
    save_figure(fig, "gaussian_real.png")


if __name__ == "__main__":
    main()
