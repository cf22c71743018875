"""Private fits at ordinary sizes: radius, centre and covariance of ``L2CompressionDP``.

Part 1, N(0, I_d) with d = 3 and 30, n = 500, 1000, 2000, 5000, epsilon = 0.5, 1,
2 (delta = 1e-5, the default split: a quarter of mu^2 for the fit), ``--seeds``
fits each (100 by default), four estimators on the same rows and the same
fit budget:

- "current": today's ``L2CompressionDP().fit`` (noisy log2 histogram radius,
  first centre, centred radius, one CoinPress step for the centre, Analyze
  Gauss covariance), with its ``PrivateFitWarning``;
- "baseline": the same call on the package of a baseline commit (``--baseline``,
  default 1c2d2b9: binary search of noisy counts on a 1e-30..1e30 grid), run
  in a child process of this run;
- "Analyze Gauss" and "CoinPress": references written from the papers
  (``_private_references.py``) with a loose public prior, a ball of radius
  10 times the true 95 % norm quantile around the origin (K = its square).

For each: the share of fits whose radius is within a factor 4 of the true 95 %
norm quantile (current and baseline), the median and worst error of the mean
(Euclidean) and of the covariance (Frobenius) over the fits that released
something, and for "current" the fits outside a factor 10 that did not warn
(must be 0) and the share of fits that could read no scale of the rows and
released nothing (with a warning).

Part 2, breast cancer (569 x 30, ``log1p`` features, the released protocol: the
classifier is trained and scored on released rows, ``--splits`` random 50/50
splits): median accuracy of the private fit and of the same mechanism fitted on
public rows at epsilon 2 and 10, the majority class, and the largest absolute
value of any release.

Writes ``results/private_fit.csv`` and ``results/private_fit_breast_cancer.csv``.
Run: ``python benchmarks/bench_private_fit.py`` (about 10 minutes; ``--seeds 20``
for a quick look).
"""

import argparse
import time
import warnings

import numpy as np
from _common import checkout_at_ref, remove_checkout, run_with_package, write_csv
from _private_references import analyze_gauss, coinpress
from scipy.stats import chi

from sklearn_privacy.dp import gaussian_dp_mu

DIMS = (3, 30)
SIZES = (500, 1000, 2000, 5000)
EPSILONS = (0.5, 1.0, 2.0)
DELTA = 1e-5

FIT_CODE = """
import warnings
import numpy as np
from sklearn_privacy.gaussian import L2CompressionDP
warnings.simplefilter("ignore")
out = []
for d, n, eps, seed in {cases}:
    X = np.random.default_rng([d, n, seed]).normal(size=(n, d))
    mech = L2CompressionDP(epsilon=eps, random_state=np.random.default_rng([7, seed]))
    mech.fit(X)
    out.append((float(mech.radius_), float(np.linalg.norm(mech.mean_)),
                float(np.linalg.norm(mech.covariance_ - np.eye(d)))))
print(out)
"""


def _rows(d, n, seed):
    return np.random.default_rng([d, n, seed]).normal(size=(n, d))


def current_fit(d, n, eps, seed):
    from sklearn_privacy.exceptions import PrivateFitWarning
    from sklearn_privacy.gaussian import L2CompressionDP

    X = _rows(d, n, seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mech = L2CompressionDP(epsilon=eps, random_state=np.random.default_rng([7, seed]))
        mech.fit(X)
    warned = any(issubclass(w.category, PrivateFitWarning) for w in caught)
    failed = not np.isfinite(mech.radius_)  # no scale read: nothing released (and warned)
    with np.errstate(over="ignore"):
        return (
            float(mech.radius_),
            float("nan") if failed else float(np.linalg.norm(mech.mean_)),
            float(np.linalg.norm(mech.covariance_ - np.eye(d))),
            warned,
        )


def within_factor(radii, truth, factor):
    """Share of the radii within ``factor`` of ``truth``."""
    return float(np.mean((radii < factor * truth) & (radii > truth / factor)))


def summary(values):
    """Median and worst over the fits that released something (NaN: none did)."""
    values = np.asarray(values, dtype=float)
    if np.isnan(values).all():
        return float("nan"), float("nan")
    return float(np.nanmedian(values)), float(np.nanmax(values))


def part_synthetic(seeds, baseline_root):
    cases = [(d, n, e, s) for d in DIMS for n in SIZES for e in EPSILONS for s in range(seeds)]
    t = time.perf_counter()
    baseline = run_with_package(baseline_root, FIT_CODE.format(cases=cases))
    print(f"baseline fits: {time.perf_counter() - t:.0f} s")
    base = dict(zip(cases, baseline))
    rows = []
    header = (
        f"{'d':>3}{'n':>6}{'eps':>5} | {'within 4x':>19} | {'mean error median/worst':>42} | "
        f"{'cov error median/worst':>44} | unwarned > 10x | nothing released"
    )
    print(header)
    print(f"{'':>14} | {'current  baseline':>19} | {'current  baseline  AG  CoinPress':>42} |")
    for d in DIMS:
        q = chi.ppf(0.95, d)
        prior = 10.0 * q
        for n in SIZES:
            for eps in EPSILONS:
                mu_fit = gaussian_dp_mu(eps, DELTA) * 0.5  # a quarter of mu^2
                cur, bas, ag, cp = [], [], [], []
                unwarned = 0
                for seed in range(seeds):
                    radius, m_err, c_err, warned = current_fit(d, n, eps, seed)
                    cur.append((radius, m_err, c_err))
                    if not q / 10 < radius < 10 * q and not warned:
                        unwarned += 1
                    bas.append(base[(d, n, eps, seed)])
                    X = _rows(d, n, seed)
                    rng = np.random.default_rng([11, seed])
                    for out, method in ((ag, analyze_gauss), (cp, coinpress)):
                        mean, cov = method(X, mu_fit, prior, rng)
                        out.append((prior, np.linalg.norm(mean), np.linalg.norm(cov - np.eye(d))))
                cur, bas, ag, cp = (np.asarray(v, dtype=float) for v in (cur, bas, ag, cp))

                row = {"d": d, "n": n, "epsilon": eps, "seeds": seeds}
                row["within4_current"] = within_factor(cur[:, 0], q, 4.0)
                row["within4_baseline"] = within_factor(bas[:, 0], q, 4.0)
                for name, values in (("current", cur), ("baseline", bas), ("AG", ag), ("CP", cp)):
                    row[f"mean_median_{name}"], row[f"mean_worst_{name}"] = summary(values[:, 1])
                    row[f"cov_median_{name}"], row[f"cov_worst_{name}"] = summary(values[:, 2])
                row["unwarned_outside_10x"] = unwarned
                row["released_nothing_current"] = float(np.mean(np.isnan(cur[:, 0])))
                rows.append(row)
                means = "  ".join(
                    f"{row[f'mean_median_{k}']:.2g}/{row[f'mean_worst_{k}']:.2g}"
                    for k in ("current", "baseline", "AG", "CP")
                )
                covs = "  ".join(
                    f"{row[f'cov_median_{k}']:.2g}/{row[f'cov_worst_{k}']:.2g}"
                    for k in ("current", "baseline", "AG", "CP")
                )
                print(
                    f"{d:>3}{n:>6}{eps:>5} | {row['within4_current']:>8.2f}"
                    f"{row['within4_baseline']:>10.2f} | {means:>42} | {covs:>44} | {unwarned}"
                    f" | {row['released_nothing_current']:.2f}"
                )
    print("wrote", write_csv(rows, "private_fit.csv"))
    return rows


def part_breast_cancer(n_splits):
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedShuffleSplit
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from sklearn_privacy import L2CompressionDP

    X, y = load_breast_cancer(return_X_y=True)
    split = StratifiedShuffleSplit(n_splits=n_splits, test_size=0.5, random_state=0)
    majority = max(y.mean(), 1 - y.mean())
    rows = []
    for eps in (2.0, 10.0):
        for fit_data in ("private", "public"):
            accuracies, largest = [], 0.0
            for train, test in split.split(X, y):
                pipe = make_pipeline(
                    FunctionTransformer(np.log1p),
                    L2CompressionDP(epsilon=eps, fit_data=fit_data),
                    LogisticRegression(max_iter=2000),
                )
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    pipe.fit(X[train], y[train])
                    accuracies.append(pipe.score(X[test], y[test]))
                    released = pipe[:-1].transform(X[test])
                largest = max(largest, float(np.abs(released).max()))
            rows.append(
                {
                    "epsilon": eps,
                    "fit_data": fit_data,
                    "median_accuracy": float(np.median(accuracies)),
                    "mean_accuracy": float(np.mean(accuracies)),
                    "std_accuracy": float(np.std(accuracies)),
                    "largest_release_value": largest,
                    "majority": majority,
                }
            )
            print(
                f"breast cancer eps={eps:g} {fit_data:>7}: median accuracy "
                f"{rows[-1]['median_accuracy']:.3f} (mean {rows[-1]['mean_accuracy']:.3f} ± "
                f"{rows[-1]['std_accuracy']:.3f}), largest |release| {largest:.3g}, majority "
                f"{majority:.3f}"
            )
    print("wrote", write_csv(rows, "private_fit_breast_cancer.csv"))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="1c2d2b9")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--splits", type=int, default=20)
    args = parser.parse_args()
    folder = checkout_at_ref(args.baseline)
    try:
        part_synthetic(args.seeds, folder)
    finally:
        remove_checkout(folder)
    part_breast_cancer(args.splits)


if __name__ == "__main__":
    main()
