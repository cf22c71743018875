"""The main job: hide a sensitive attribute in released data, keep the data useful.

``python -m sklearn_privacy [--help]``: the funnel on UCI Adult hiding ``sex``, scored on
repeated splits ("The main job's story" in ``docs/design.md``; the options in ``--help``).
"""

import argparse
import os
import sys
import textwrap
import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder
from sklearn.utils import Bunch

from sklearn_privacy.discrete import PrivacyFunnelTransformer
from sklearn_privacy.exceptions import PrivateFitWarning
from sklearn_privacy.gaussian import L2CompressionDP
from sklearn_privacy.metrics import (
    make_adversary_scorer,
    make_distortion_scorer,
    make_leakage_scorer,
)
from sklearn_privacy.model_selection import pareto_front, tradeoff_curve

RELEASED = ["age", "education", "relationship"]
SENSITIVE = "sex"
THRESHOLDS = (0.99, 0.97, 0.95, 0.9, 0.85, 0.8, 0.6)
LEAKAGE_BUDGET = 0.03  # nats: the operating point the job picks is the most accurate below it


def _table(header, rows):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(str(h).rjust(w) for h, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).rjust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def load_adult(data_home=None):
    """The released columns and ``sex`` of UCI Adult, and whether income is above 50K.

    Parameters
    ----------
    data_home : str, default=None
        See :func:`sklearn_privacy.datasets.get_data_home`.

    Returns
    -------
    frame : DataFrame of shape (32561, 4)
        ``age`` (7 bins), ``education`` (4 levels), ``relationship``, ``sex``.
    y : ndarray of shape (32561,)
        1 when the income is above 50K.
    name : str
        Description of the data for the output.
    """
    from sklearn_privacy.datasets import fetch_adult

    adult = fetch_adult(data_home=data_home, discretize=True, as_frame=True)
    frame = adult.frame[RELEASED + [SENSITIVE]].astype(str)
    y = np.asarray(adult.target == ">50K", dtype=int)
    return frame, y, f"UCI Adult ({len(frame)} census records)"


def make_synthetic_census(n_samples=20000, random_state=0):
    """Synthetic census-like records shaped like the Adult columns of the main job.

    ``sex`` shapes ``relationship`` (husbands are men, wives women) and, through
    it, ``age``; income depends on being married, education and age. So the
    release leaks ``sex`` mostly through ``relationship``, as in Adult, while
    marriage, education and age carry the income signal.

    Parameters
    ----------
    n_samples : int, default=20000
        Number of records.
    random_state : int, default=0
        Seed.

    Returns
    -------
    frame : DataFrame of shape (n_samples, 4)
    y : ndarray of shape (n_samples,)
    name : str
    """
    rng = np.random.default_rng(random_state)
    male = rng.random(n_samples) < 0.67
    relationships = ["Husband", "Wife", "Not-in-family", "Own-child", "Unmarried", "Other-relative"]
    p_male = [0.60, 0.00, 0.20, 0.13, 0.04, 0.03]
    p_female = [0.00, 0.15, 0.32, 0.20, 0.27, 0.06]
    rel = np.where(
        male,
        rng.choice(6, n_samples, p=p_male),
        rng.choice(6, n_samples, p=p_female),
    )
    # age bin 0..6 (<25 .. 75+); children of the household are young
    age = np.clip(rng.binomial(6, np.where(rel == 3, 0.12, 0.4)), 0, 6)
    education = rng.choice(4, n_samples, p=[0.15, 0.33, 0.30, 0.22])
    married = rel <= 1
    logit = -4.2 + 2.2 * married + 0.8 * education + 0.35 * age - 0.6 * (rel == 3)
    y = (rng.random(n_samples) < 1 / (1 + np.exp(-logit))).astype(int)
    age_labels = np.array(["<25", "25-34", "35-44", "45-54", "55-64", "65-74", "75+"])
    edu_labels = np.array(["no-HS-diploma", "HS-grad", "some-college", "bachelors-or-more"])
    frame = pd.DataFrame(
        {
            "age": age_labels[age],
            "education": edu_labels[education],
            "relationship": np.asarray(relationships)[rel],
            "sex": np.where(male, "Male", "Female"),
        }
    )
    return frame, y, f"SYNTHETIC census-like data ({n_samples} records; not UCI Adult)"


def run_funnel(frame, y, *, thresholds=THRESHOLDS, n_splits=5, random_state=0, n_jobs=None):
    """Leakage of ``sex``, adversary and income accuracy along the funnel's threshold.

    Parameters
    ----------
    frame : DataFrame
        Released columns and ``sex``.
    y : array-like
        Income class.
    thresholds : sequence of float
        Values of ``PrivacyFunnelTransformer``'s ``threshold`` (share of H(X) kept).
    n_splits : int
        Random 50/50 splits (the mechanism and classifier fit on one half; the
        other half is released and scored).
    random_state : int
        Seed of the splits.
    n_jobs : int, default=None
        Parallel jobs of the sweep.

    Returns
    -------
    result : Bunch
        What :func:`tradeoff_curve` returned for the thresholds.
    baselines : dict
        ``"no mechanism"``: the same measurements on the unmerged columns (a
        :func:`tradeoff_curve` result with one value); ``"majority class"``
        and ``"majority sex"``: accuracies of guessing the most frequent
        income class and sex of the training half (arrays over the splits).
    """
    pipe = Pipeline(
        [
            (
                "privacy",
                PrivacyFunnelTransformer(sensitive=[SENSITIVE], handle_unknown="nearest"),
            ),
            ("onehot", OneHotEncoder(handle_unknown="ignore")),
            ("clf", LogisticRegression(max_iter=2000)),
        ]
    )
    cv = StratifiedShuffleSplit(n_splits=n_splits, test_size=0.5, random_state=random_state)
    scoring = {
        "accuracy": "accuracy",
        "leakage": make_leakage_scorer(estimator="miller_madow"),
        "adversary": make_adversary_scorer(),
    }
    kwargs = {"param_name": "privacy__threshold", "scoring": scoring, "cv": cv}
    result = tradeoff_curve(pipe, frame, y, param_range=list(thresholds), n_jobs=n_jobs, **kwargs)
    with warnings.catch_warnings():
        # threshold 1.0 merges nothing: the release is the columns themselves, and the
        # funnel warns so; here that is the point (the "no mechanism" baseline).
        warnings.filterwarnings("ignore", message=".*merged nothing", category=UserWarning)
        plain = tradeoff_curve(pipe, frame, y, param_range=[1.0], **kwargs)
    splits = list(cv.split(frame, y))
    sex = frame[SENSITIVE].to_numpy()
    majority_class = cross_val_score(DummyClassifier(), frame, y, cv=splits)
    majority_sex = cross_val_score(DummyClassifier(), frame, sex, cv=splits)
    return result, {
        "no mechanism": plain,
        "majority class": majority_class,
        "majority sex": majority_sex,
    }


def _mean_std(values, digits=3):
    values = np.asarray(values, dtype=float)
    return f"{values.mean():.{digits}f} ± {values.std():.{digits}f}"


def funnel_report(result, baselines, name, n_splits):
    """Title, table and closing notes of the funnel job (strings)."""
    scores = result.test_scores
    plain = baselines["no mechanism"].test_scores
    leak, adversary, accuracy = -scores["leakage"], -scores["adversary"], scores["accuracy"]
    rows = [
        [
            "none (no mechanism)",
            _mean_std(-plain["leakage"][0]),
            _mean_std(-plain["adversary"][0]),
            _mean_std(plain["accuracy"][0]),
        ]
    ]
    rows += [
        [f"{t:g}", _mean_std(leak[i]), _mean_std(adversary[i]), _mean_std(accuracy[i])]
        for i, t in enumerate(result.param_range)
    ]
    rows.append(
        [
            "majority guess",
            "0",
            _mean_std(baselines["majority sex"]),
            _mean_std(baselines["majority class"]),
        ]
    )
    table = _table(
        ["threshold", "I(sex; release) nats", "adversary acc. (sex)", "income accuracy"], rows
    )
    title = (
        f"{name}: PrivacyFunnelTransformer releases ({', '.join(RELEASED)}) merged so as to "
        f"hide {SENSITIVE};\nthreshold = share of H(release columns) kept. Mean ± std over "
        f"{n_splits} random 50/50 splits (fit on one half, release and score the other)."
    )
    m_leak, m_acc = leak.mean(axis=1), accuracy.mean(axis=1)
    majority = np.mean(baselines["majority class"])
    ok = np.flatnonzero(m_leak <= LEAKAGE_BUDGET)
    notes = []
    if ok.size:
        best = ok[np.argmax(m_acc[ok])]
        verdict = "above" if m_acc[best] > majority else "not above"
        notes.append(
            f"Leakage falls from {np.mean(-plain['leakage']):.3f} nats (no mechanism) to "
            f"{m_leak[best]:.3f} nats at threshold {result.param_range[best]:g}, the most "
            f"accurate threshold leaking at most {LEAKAGE_BUDGET:g} nats, where income accuracy "
            f"is {m_acc[best]:.3f}: {verdict} the {majority:.3f} of always guessing the "
            f"majority class (no mechanism: {np.mean(plain['accuracy']):.3f})."
        )
    notes.append(
        f"Adversary: a logistic regression trained on half of each released test half to guess "
        f"{SENSITIVE}, scored on the other half, against always guessing the majority "
        f"{SENSITIVE} ({np.mean(baselines['majority sex']):.3f}). As leakage falls it drops "
        "to that guess: the release then tells it nothing more than the base rate; a score "
        "a little below the guess is the attacker over-fitting rare released symbols, not "
        "extra protection."
    )
    front = pareto_front(m_leak, m_acc)
    notes.append(
        "Pareto-optimal thresholds (no other is both less leaky and more accurate): "
        + ", ".join(f"{result.param_range[i]:g}" for i in front)
        + "."
    )
    return title, table, "\n".join(textwrap.fill(note, 100) for note in notes)


def plot_funnel(result, baselines, name, path):
    """Two panels: income accuracy and adversary accuracy against the leakage."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_privacy.plotting import TradeoffDisplay

    plain = baselines["no mechanism"].test_scores
    plain_leak = float(np.mean(-plain["leakage"]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5), layout="constrained")
    common = {"leakage_name": f"leakage I({SENSITIVE}; release) (nats)"}
    TradeoffDisplay.from_tradeoff(
        result,
        leakage="leakage",
        utility="accuracy",
        utility_name="income accuracy (test rows)",
        estimator_name="funnel, by threshold",
        baselines={
            "majority class": float(np.mean(baselines["majority class"])),
            "no mechanism": (plain_leak, float(np.mean(plain["accuracy"]))),
        },
        **common,
    ).plot(ax=left)
    left.set_title("Downstream task: predict income from the release", fontsize=11)
    leak, adversary = -result.test_scores["leakage"], -result.test_scores["adversary"]
    TradeoffDisplay(
        leak.mean(axis=1),
        adversary.mean(axis=1),
        leakage_std=leak.std(axis=1),
        utility_std=adversary.std(axis=1),
        param_range=list(result.param_range),
        utility_name=f"adversary accuracy guessing {SENSITIVE} (lower is more private)",
        estimator_name="funnel, by threshold",
        baselines={
            f"majority guess of {SENSITIVE}": float(np.mean(baselines["majority sex"])),
            "no mechanism": (plain_leak, float(np.mean(-plain["adversary"]))),
        },
        **common,
    ).plot(ax=right, show_pareto=False)
    right.set_title(f"Attack: guess {SENSITIVE} from the release", fontsize=11)
    fig.suptitle(f"{name}: privacy funnel hiding {SENSITIVE}", fontsize=12)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _sweep(pipe, X, y, epsilons, cv, scoring, label, progress):
    """``tradeoff_curve`` over ``epsilons``, one at a time, saying on ``progress`` where it is."""
    import time

    parts, start = [], time.perf_counter()
    for i, epsilon in enumerate(epsilons):
        parts.append(
            tradeoff_curve(
                pipe, X, y, param_name="privacy__epsilon", param_range=[epsilon],
                scoring=scoring, cv=cv,
            )
        )  # fmt: skip
        if progress is not None:
            print(
                f"  {label}: epsilon {epsilon:g} done ({i + 1}/{len(epsilons)}, "
                f"{time.perf_counter() - start:.0f} s)",
                file=progress,
                flush=True,
            )
    names = list(parts[0].test_scores)
    scores = {name: np.vstack([part.test_scores[name] for part in parts]) for name in names}
    return Bunch(
        param_name="privacy__epsilon",
        param_range=np.asarray(epsilons, dtype=float),
        test_scores=scores,
        mean_test_scores={name: values.mean(axis=1) for name, values in scores.items()},
    )


def run_breast_cancer(
    n_splits=20, epsilons=(0.5, 1, 2, 5, 10, 20, 50, 100), random_state=None, progress=None
):
    """Accuracy and distortion of logistic regression on L2CompressionDP releases against epsilon.

    The released protocol (thesis sec. 6.3.3): the mechanism is fitted on the
    training rows, the classifier is trained on their release and scored on
    the release of the test rows. Nothing is fitted on the private rows
    outside the mechanism: the features go through ``log1p``, a public
    constant transform, and the mechanism estimates its centre, radius and
    covariance privately (``fit_data="private"``); beside it the same
    mechanism fitted as if the rows were public, the classifier on the
    ``log1p`` features without a mechanism, and the majority class. The
    distortion ``E||x - t||^2`` of the released test rows is read against the
    features' own variance ``E||x - mean||^2`` (what releasing the mean costs).

    ``random_state`` seeds the mechanism's noise (``None``: fresh noise, as
    a release is made; a seed reproduces the table and warns with
    :class:`~sklearn_privacy.exceptions.PrivacyLeakWarning`). ``progress``: a
    file (``sys.stderr``) that gets one line per epsilon and fit, or None.
    """
    X, y = load_breast_cancer(return_X_y=True)
    cv = StratifiedShuffleSplit(n_splits=n_splits, test_size=0.5, random_state=0)
    clf = LogisticRegression(max_iter=2000)
    public_transform = FunctionTransformer(np.log1p)  # a constant: reads no row
    scoring = {"accuracy": "accuracy", "distortion": make_distortion_scorer()}
    results = {}
    for fit_data in ("private", "public"):
        pipe = Pipeline(
            [
                ("log1p", public_transform),
                (
                    "privacy",
                    L2CompressionDP(delta=1e-5, fit_data=fit_data, random_state=random_state),
                ),
                ("clf", clf),
            ]
        )
        with warnings.catch_warnings():
            # the smallest epsilons are meant to show what a private fit cannot do
            warnings.simplefilter("ignore", PrivateFitWarning)
            warnings.filterwarnings("ignore", ".* almost pure noise", UserWarning)
            results[fit_data] = _sweep(
                pipe, X, y, epsilons, cv, scoring, f"{fit_data} fit", progress
            )
    majority = cross_val_score(DummyClassifier(), X, y, cv=cv)
    no_mechanism = cross_val_score(
        Pipeline([("log1p", public_transform), ("clf", clf)]), X, y, cv=cv
    )
    logs = np.log1p(X)
    variance = float(np.sum(logs.var(axis=0)))
    private, public = (results[k].test_scores["accuracy"] for k in ("private", "public"))
    distortion = {k: -results[k].test_scores["distortion"] for k in ("private", "public")}
    rows = [
        [
            f"{e:g}",
            _mean_std(private[i]),
            _mean_std(distortion["private"][i], 3 if distortion["private"][i].max() < 100 else 0),
            _mean_std(public[i]),
            _mean_std(distortion["public"][i], 3 if distortion["public"][i].max() < 100 else 0),
        ]
        for i, e in enumerate(epsilons)
    ]
    title = (
        f"Wisconsin diagnostic breast cancer (569 rows, 30 features, log1p), L2CompressionDP "
        f"with delta=1e-5, classifier trained and scored on released rows, {n_splits} random "
        f"50/50 splits.\nmajority class {_mean_std(majority)}, no mechanism "
        f"{_mean_std(no_mechanism)}; the features' variance E||x - mean||^2 = {variance:.3f} "
        "(the distortion of releasing the mean)"
    )
    table = _table(
        [
            "epsilon",
            "accuracy (private fit)",
            "distortion (private)",
            "accuracy (public fit)",
            "distortion (public)",
        ],
        rows,
    )
    baselines = {"majority": majority, "no mechanism": no_mechanism, "variance": variance}
    return title, table, results, baselines


def _log_axis_spread(values):
    """Error bars of the mean over splits (rows) that stay on a log axis: (below, above).

    Mean ± std runs below 0 when one split's distortion is far above the others (the
    spread of a skewed positive quantity); the 16th to 84th percentiles of the splits
    (mean ± std of a normal) stay positive. Widened to reach the mean when it lies outside.
    """
    mean = values.mean(axis=1)
    low, high = np.percentile(values, [16, 84], axis=1)
    return np.vstack([np.maximum(mean - low, 0.0), np.maximum(high - mean, 0.0)])


def plot_breast_cancer(results, baselines, path):
    """Accuracy and distortion against epsilon (log scale), private and public fits."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    fits = (
        ("private", "private fit (clipped to a private 95 % quantile of the norms)", "o"),
        ("public", "fit rows taken as public (clipped to their largest norm)", "s"),
    )
    for key, label, marker in fits:
        eps = np.asarray(results[key].param_range, dtype=float)
        acc = results[key].test_scores["accuracy"]
        left.errorbar(eps, acc.mean(axis=1), acc.std(axis=1), marker=marker, capsize=2,
                      label=label)  # fmt: skip
        distortion = -results[key].test_scores["distortion"]
        right.errorbar(eps, distortion.mean(axis=1), _log_axis_spread(distortion), marker=marker,
                       capsize=2, label=label)  # fmt: skip
    for key, style, label in (
        ("no mechanism", "-.", "no mechanism (log1p features)"),
        ("majority", ":", "majority class"),
    ):
        scores = baselines[key]
        left.axhline(scores.mean(), linestyle=style, color="0.4", label=label)
        left.axhspan(scores.mean() - scores.std(), scores.mean() + scores.std(), color="0.9")
    right.axhline(
        baselines["variance"], linestyle=":", color="0.4",
        label="the features' variance (releasing the mean)",
    )  # fmt: skip
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("epsilon (delta = 1e-5); smaller is more private")
    right.set_yscale("log")
    left.set_ylabel("accuracy on released test rows")
    right.set_ylabel("distortion E||x - t||^2 of released test rows\n(bars: middle 68 % of splits)")
    left.set_title("Logistic regression on the release")
    right.set_title("Distance of the release from the rows")
    left.legend(loc="upper left", fontsize="small")
    right.legend(loc="upper right", fontsize="small")
    fig.suptitle("Breast cancer (WDBC): differentially private release, L2CompressionDP")
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _load_data(args):
    """Adult, or the synthetic data with one line saying why."""
    if args.synthetic:
        return make_synthetic_census()
    try:
        return load_adult(args.data_home)
    except (FileNotFoundError, PermissionError):
        from sklearn_privacy.datasets import get_data_home

        where = os.path.join(get_data_home(args.data_home), "adult", "adult.data")
        print(
            f"UCI Adult is not available (no file {where} and no download): put adult.data "
            "there, or pass --data-home DIR or set SKLEARN_PRIVACY_DATA. Running on "
            "SYNTHETIC census-like data instead."
        )
        return make_synthetic_census()


def main(argv=None):
    """Run the main job; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_privacy", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--data-home", default=None, help="folder holding adult/adult.data (default: "
        "$SKLEARN_PRIVACY_DATA, else ~/sklearn_privacy_data)"
    )  # fmt: skip
    parser.add_argument(
        "--synthetic", action="store_true", help="use the synthetic census-like data"
    )
    parser.add_argument(
        "--dp", action="store_true", help="run the DP experiment on breast cancer instead"
    )
    parser.add_argument(
        "--output", default=None, help="where to write the plot (default: tradeoff.png, "
        "with --dp tradeoff_dp.png: the two jobs' figures do not overwrite each other)"
    )  # fmt: skip
    parser.add_argument("--splits", type=int, default=None, help="number of random splits")
    parser.add_argument(
        "--thresholds",
        type=lambda text: [float(v) for v in text.split(",")],
        default=THRESHOLDS,
        help="comma-separated funnel thresholds (default: %(default)s)",
    )
    parser.add_argument("--jobs", type=int, default=None, help="parallel jobs (-1: all cores)")
    args = parser.parse_args(argv)
    if args.output is None:
        args.output = "tradeoff_dp.png" if args.dp else "tradeoff.png"

    if args.dp:
        n_splits = args.splits or 20
        print(
            f"Fitting L2CompressionDP at 8 epsilons on {n_splits} splits, privately and as if "
            "public (about a minute of CPU time at 20 splits); progress on stderr.",
            flush=True,
        )
        title, table, result, baselines = run_breast_cancer(n_splits=n_splits, progress=sys.stderr)
        notes = (
            "Smaller epsilon is more private; every cell is mean ± std over the splits (the "
            "release's noise is fresh in each run, so the numbers move between runs within "
            "about these spreads). Distortion is E||x - t||^2 of the released test rows: above "
            f"the features' variance ({baselines['variance']:.3f}) the release is farther from "
            "the rows than their mean is. With 569 rows the private estimates of the centre, "
            "radius and covariance take a share of the budget: below epsilon 5 they are mostly "
            "noise, the distortion is far above the variance and the release keeps little "
            "beyond the majority class. At large epsilon the private fit can score above the "
            "public one: a public fit clips to the largest norm of its rows (no row is "
            "clipped), a private fit to a private 95 % quantile of the norms, and the smaller "
            "radius needs less noise."
        )
        plotter = lambda: plot_breast_cancer(result, baselines, args.output)  # noqa: E731
    else:
        frame, y, name = _load_data(args)
        n_splits = args.splits or 5
        result, baselines = run_funnel(
            frame, y, thresholds=args.thresholds, n_splits=n_splits, n_jobs=args.jobs
        )
        title, table, notes = funnel_report(result, baselines, name, n_splits)
        plotter = lambda: plot_funnel(result, baselines, name, args.output)  # noqa: E731
    print(title)
    print(table)
    print(notes)
    try:
        plotter()
    except ImportError:
        print("matplotlib is not installed: no plot (pip install 'sklearn-privacy[plot]').")
        return 0
    print(f"plot written to {args.output}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
