"""The main job: a privacy/accuracy trade-off on a real data set, as a table and a plot.

``python -m sklearn_privacy`` runs it on the Wisconsin diagnostic breast cancer
data bundled with scikit-learn (offline): :class:`L2CompressionDP` over a range of
epsilon, logistic-regression accuracy on 50/50 splits against the majority-class
and non-private baselines (the experiment of dp-compression-kohler2018, Fig. 6.9).

``python -m sklearn_privacy --adult [--data-home DIR]`` runs it on UCI Adult:
:class:`PrivacyFunnelTransformer` hides ``sex`` in the released (age, education,
relationship, occupation) while a classifier predicts income; leakage
``I(S; release)`` and an adversary's accuracy on S are measured on the test folds.
"""

import argparse
import sys

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from sklearn_privacy.discrete import PrivacyFunnelTransformer
from sklearn_privacy.gaussian import L2CompressionDP
from sklearn_privacy.metrics import (
    make_adversary_scorer,
    make_distortion_scorer,
    make_leakage_scorer,
)
from sklearn_privacy.model_selection import pareto_front, tradeoff_curve

ADULT_COLUMNS = ["age", "education", "relationship", "occupation", "sex"]


def _table(header, rows):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(str(h).rjust(w) for h, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).rjust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def run_breast_cancer(n_splits=20, epsilons=(0.5, 1, 2, 5, 10, 20, 50, 100)):
    """Accuracy of logistic regression on L2CompressionDP releases against epsilon."""
    X, y = load_breast_cancer(return_X_y=True)
    cv = StratifiedShuffleSplit(n_splits=n_splits, test_size=0.5, random_state=0)
    clf = LogisticRegression(max_iter=2000)
    pipe = Pipeline(
        [
            ("scale", StandardScaler()),
            ("privacy", L2CompressionDP(delta=1e-5, clip_radius=6.0)),
            ("clf", clf),
        ]
    )
    result = tradeoff_curve(
        pipe,
        X,
        y,
        param_name="privacy__epsilon",
        param_range=list(epsilons),
        scoring={"accuracy": "accuracy", "distortion": make_distortion_scorer()},
        cv=cv,
    )
    majority = cross_val_score(DummyClassifier(), X, y, cv=cv).mean()
    private_free = cross_val_score(
        Pipeline([("scale", StandardScaler()), ("clf", clf)]), X, y, cv=cv
    ).mean()
    acc = result.test_scores["accuracy"]
    rows = [
        [
            f"{e:g}",
            f"{acc[i].mean():.3f} +- {acc[i].std():.3f}",
            f"{-result.mean_test_scores['distortion'][i]:.2f}",
        ]
        for i, e in enumerate(epsilons)
    ]
    title = (
        f"Wisconsin diagnostic breast cancer (569 rows, 30 features), L2CompressionDP with "
        f"delta=1e-5, clip radius 6 (standardised data), mean and covariance estimated "
        f"privately (a quarter of the budget), {n_splits} random 50/50 splits.\n"
        f"majority-class accuracy {majority:.3f}, non-private accuracy {private_free:.3f}"
    )
    table = _table(["epsilon", "accuracy", "distortion E||x-t||^2"], rows)
    return title, table, result, {"majority": majority, "non-private": private_free}


def run_adult(data_home=None, thresholds=(1.0, 0.95, 0.9, 0.85, 0.8, 0.5), n_splits=3):
    """Leakage of sex and income accuracy along the privacy funnel's disclosure threshold."""
    from sklearn_privacy.datasets import fetch_adult

    adult = fetch_adult(data_home=data_home, discretize=True, as_frame=True)
    complete = adult.frame[ADULT_COLUMNS].notna().all(axis=1)  # occupation has "?" rows
    frame = adult.frame.loc[complete, ADULT_COLUMNS].astype(str)
    y = np.asarray(adult.target[complete] == ">50K", dtype=int)
    pipe = Pipeline(
        [
            ("privacy", PrivacyFunnelTransformer(sensitive=["sex"], handle_unknown="nearest")),
            ("onehot", OneHotEncoder(handle_unknown="ignore")),
            ("clf", LogisticRegression(max_iter=2000)),
        ]
    )
    cv = StratifiedShuffleSplit(n_splits=n_splits, test_size=0.3, random_state=0)
    result = tradeoff_curve(
        pipe,
        frame,
        y,
        param_name="privacy__threshold",
        param_range=list(thresholds),
        scoring={
            "accuracy": "accuracy",
            "leakage": make_leakage_scorer(estimator="plugin"),
            "adversary": make_adversary_scorer(),
        },
        cv=cv,
    )
    m = result.mean_test_scores
    rows = [
        [
            f"{t:g}",
            f"{abs(m['leakage'][i]):.4f}",
            f"{-m['adversary'][i]:.3f}",
            f"{m['accuracy'][i]:.3f}",
        ]
        for i, t in enumerate(thresholds)
    ]
    majority_sex = max(np.mean(frame["sex"] == v) for v in frame["sex"].unique())
    title = (
        f"UCI Adult ({len(frame)} complete rows), PrivacyFunnelTransformer hiding sex in "
        f"(age, education, relationship, occupation); {n_splits} splits 70/30.\n"
        f"threshold = kept fraction of H(X); majority guess of sex {majority_sex:.3f}"
    )
    table = _table(["threshold", "I(sex; release) nats", "adversary acc.", "income acc."], rows)
    return title, table, result, {}


def _plot(result, path, title, *, privacy_key, privacy_label, baselines, logx):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_privacy.plotting import TradeoffDisplay

    if privacy_key == "param":  # the knob itself (epsilon) is the privacy axis
        display = TradeoffDisplay(
            np.asarray(result.param_range, dtype=float),
            result.mean_test_scores["accuracy"],
            param_range=list(result.param_range),
            leakage_name=privacy_label,
        )
    else:
        display = TradeoffDisplay.from_tradeoff(
            result, leakage=privacy_key, utility="accuracy", leakage_name=privacy_label
        )
    fig, ax = plt.subplots(figsize=(6, 4))
    display.plot(ax=ax, show_pareto=privacy_key != "param")
    if logx:
        ax.set_xscale("log")
    for name, value in baselines.items():
        ax.axhline(value, linestyle=":", color="grey")
        ax.annotate(
            name,
            (0.01, value),
            xycoords=("axes fraction", "data"),
            fontsize=8,
            va="bottom",
            color="grey",
        )
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_privacy", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--adult", action="store_true", help="run on UCI Adult instead")
    parser.add_argument("--data-home", default=None, help="folder holding adult/adult.data")
    parser.add_argument("--output", default="tradeoff.png", help="where to write the plot")
    parser.add_argument("--splits", type=int, default=None, help="number of random splits")
    args = parser.parse_args(argv)

    if args.adult or args.data_home is not None:
        title, table, result, baselines = run_adult(args.data_home, n_splits=args.splits or 3)
        front = pareto_front(
            -result.mean_test_scores["leakage"], result.mean_test_scores["accuracy"]
        )
        note = "Pareto-optimal thresholds: " + ", ".join(
            f"{result.param_range[i]:g}" for i in front
        )
        plot_kw = {
            "title": "UCI Adult: PrivacyFunnelTransformer hiding sex, income accuracy",
            "privacy_key": "leakage",
            "privacy_label": "I(sex; release) (nats)",
            "logx": False,
        }
    else:
        title, table, result, baselines = run_breast_cancer(n_splits=args.splits or 20)
        note = "Smaller epsilon is more private; accuracy is the mean over the splits."
        plot_kw = {
            "title": "Breast cancer (WDBC): L2CompressionDP, logistic regression",
            "privacy_key": "param",
            "privacy_label": "epsilon",
            "logx": True,
        }
    print(title)
    print(table)
    print(note)
    try:
        _plot(result, args.output, baselines=baselines, **plot_kw)
    except ImportError:
        print("matplotlib is not installed: no plot (pip install 'sklearn-privacy[plot]').")
        return 0
    print(f"plot written to {args.output}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
