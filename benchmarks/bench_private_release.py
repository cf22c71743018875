"""What a private L2 fit releases when its estimates fail, and how many warnings a study reads.

Issue 34 (fallbacks that release only what was estimated) and issue 36, item 2 (one warning
per fit). Runs the baseline commit and today's code in the same run (children importing each
package), on the Wisconsin breast cancer data that scikit-learn ships:

1. the first half of the 569 rows, standardised, 40 stratified splits (70/30): a logistic
   regression trained on the released training rows and scored on the released test rows,
   ``L2CompressionDP(epsilon=e)`` fitted on the training rows, e in 1, 2, 3, 5, 10: the
   median, quartiles and the majority, the components released and the fallbacks;
2. ``distortion_`` against the realised mean squared distortion of the release of the fit
   rows, ``mean ||x - t||^2``, at n = 300, 450, 569 rows and the same epsilons (10 fits
   each): the median ratio, the share within 20 % and the share of fits whose warning says
   that ``distortion_`` is not an estimate;
3. a small private study (the one in ``_STUDY``): the warnings a user sees under the
   default filter, and all the warnings it emits (``"always"``), before and after;
4. the same splits through ``GaussianIBTransformer(fit_epsilon=e)`` (the bottleneck on y,
   beta 10): the median and first quartile of the accuracy, the fits whose map is zero
   (before: a column of N(0, 1) noise; now the constant centre) and the fits refused.

Run ``python benchmarks/bench_private_release.py``; writes ``results/private_release.csv``.
``--study-only`` runs part 3 alone (seconds instead of minutes).
"""

import argparse

from _common import REPO, checkout_at_ref, remove_checkout, run_with_package, write_csv

BASELINE = "4730279"
EPSILONS = (1.0, 2.0, 3.0, 5.0, 10.0)

# The first half of the breast-cancer rows, standardised, and what the splits read.
_HALF = """
import warnings
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn_privacy import GaussianIBTransformer, L2CompressionDP

warnings.simplefilter("ignore")
X, y = load_breast_cancer(return_X_y=True)
X, y = StandardScaler().fit_transform(X[:284]), y[:284]
out = {}
"""

_SPLITS = _HALF + """
for eps in EPSILONS:
    accs, majority, ks, fallbacks = [], [], [], []
    for i in range(N_SPLITS):
        Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, random_state=i, stratify=y)
        mech = L2CompressionDP(epsilon=eps).fit(Xa)
        Ta, Tb = mech.transform(Xa), mech.transform(Xb)
        accs.append(LogisticRegression(max_iter=2000).fit(Ta, ya).score(Tb, yb))
        majority.append(max(np.mean(yb), 1 - np.mean(yb)))
        ks.append(int(mech.n_components_))
        fallbacks.append(str(getattr(mech, "fallback_", None)))
    q1, med, q3 = np.percentile(accs, [25, 50, 75])
    out[eps] = dict(
        median=float(med), q1=float(q1), q3=float(q3), sd=float(np.std(accs)),
        majority=float(np.median(majority)), components=sorted(set(ks)),
        all_directions=int(np.sum(np.asarray(ks) == X.shape[1])),
        fallbacks={f: fallbacks.count(f) for f in set(fallbacks)},
    )
print(out)
"""

_DISTORTION = """
import warnings
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler
from sklearn_privacy import L2CompressionDP

X = StandardScaler().fit_transform(load_breast_cancer(return_X_y=True)[0])
rng = np.random.default_rng(0)
out = {}
for n in (300, 450, 569):
    for eps in EPSILONS:
        ratios, flagged = [], []
        for _ in range(N_FITS):
            rows = X[rng.permutation(X.shape[0])[:n]]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                mech = L2CompressionDP(epsilon=eps).fit(rows)
            realised = float(np.mean(np.sum((rows - mech.transform(rows)) ** 2, axis=1)))
            ratios.append(mech.distortion_ / realised)
            flagged.append(any("not an estimate" in str(w.message) for w in caught))
        ratios, flagged = np.asarray(ratios), np.asarray(flagged)
        within = np.abs(ratios - 1) <= 0.2
        out[(n, eps)] = dict(
            median_ratio=float(np.nanmedian(ratios)) if np.isfinite(ratios).any() else None,
            within_20=float(np.mean(within)),
            flagged=float(np.mean(flagged)),
            # within 20 %, or said not to be an estimate (NaN: nothing was estimated, said)
            covered=float(np.mean(within | flagged | np.isnan(ratios))),
        )
print(out)
"""

_GIB = _HALF + """
for eps in EPSILONS:
    accs, zero, refused = [], 0, 0
    for i in range(N_SPLITS):
        Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, random_state=i, stratify=y)
        try:
            gib = GaussianIBTransformer(fit_epsilon=eps).fit(Xa, ya)
        except ValueError:
            refused += 1
            continue
        zero += int(not np.any(gib.components_))
        Ta, Tb = gib.transform(Xa), gib.transform(Xb)
        accs.append(LogisticRegression(max_iter=2000).fit(Ta, ya).score(Tb, yb))
    q1, med = np.percentile(accs, [25, 50]) if accs else (np.nan, np.nan)
    out[eps] = dict(median=float(med), q1=float(q1), zero_map=zero, refused=refused)
print(out)
"""

# A newcomer's study: 20 lines, small data, small budgets, the default warning filter.
_STUDY = """
import warnings
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn_privacy import L2CompressionDP

X, y = load_breast_cancer(return_X_y=True)
X, y = StandardScaler().fit_transform(X)[:150], y[:150]


def study():
    for eps in [0.1, 0.3, 1.0, 3.0]:
        pipe = make_pipeline(L2CompressionDP(epsilon=eps), LogisticRegression())
        scores = cross_val_score(pipe, X, y, cv=5)
        mech = L2CompressionDP(epsilon=eps).fit(X)
        T = mech.transform(X)
        spent = mech.privacy_spent()[0]


counts = []
for action in ("default", "always"):  # what a user sees; every warning emitted
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        study()
    counts += [len(caught), sum(str(w.message).count(chr(10)) + 1 for w in caught)]
print(tuple(counts))
"""


def _run(package, code, **constants):
    header = "".join(f"{name} = {value!r}\n" for name, value in constants.items())
    return run_with_package(package, header + code)


def main(n_splits=40, n_fits=10, study_only=False):
    today = str(REPO)  # this checkout, whatever package the interpreter has installed
    base = checkout_at_ref(BASELINE)
    rows = []
    try:
        for label, package in (("baseline", base), ("today", today)):
            splits = (
                {} if study_only else _run(package, _SPLITS, EPSILONS=EPSILONS, N_SPLITS=n_splits)
            )
            distortion = (
                {} if study_only else _run(package, _DISTORTION, EPSILONS=EPSILONS, N_FITS=n_fits)
            )
            warned, lines, emitted, emitted_lines = _run(package, _STUDY)
            gib = _run(package, _GIB, EPSILONS=EPSILONS, N_SPLITS=n_splits)
            print(
                f"== {label}: a small private study shows {warned} warnings ({lines} lines) "
                f"under the default filter; it emits {emitted} ({emitted_lines} lines)"
            )
            for eps, r in splits.items():
                print(
                    f"epsilon {eps:>4}: median accuracy {r['median']:.3f} (quartiles "
                    f"{r['q1']:.3f}-{r['q3']:.3f}, sd {r['sd']:.3f}), majority "
                    f"{r['majority']:.3f}; components {r['components']}, all 30 in "
                    f"{r['all_directions']} of {n_splits}; fallbacks {r['fallbacks']}"
                )
                rows.append(dict(code=label, part="splits", n=284, epsilon=eps, **_flat(r)))
            for (n, eps), r in distortion.items():
                print(
                    f"n {n:>3}, epsilon {eps:>4}: distortion_ / realised median "
                    f"{r['median_ratio'] or float('nan'):.3f}, "
                    f"within 20 % in {r['within_20']:.0%}, "
                    f"'not an estimate' in {r['flagged']:.0%}; either in {r['covered']:.0%}"
                )
                rows.append(dict(code=label, part="distortion", n=n, epsilon=eps, **_flat(r)))
            for eps, r in gib.items():
                print(
                    f"GIB fit_epsilon {eps:>4}: median accuracy {r['median']:.3f} (first "
                    f"quartile {r['q1']:.3f}); zero map in {r['zero_map']}, refused in "
                    f"{r['refused']} of {n_splits}"
                )
                rows.append(dict(code=label, part="gib", n=284, epsilon=eps, **r))
            rows.append(
                dict(code=label, part="study", n=150, epsilon=0.0, warnings=warned, emitted=emitted)
            )
    finally:
        remove_checkout(base)
    keys = sorted({k for row in rows for k in row})
    print(
        "written",
        write_csv([{k: row.get(k, "") for k in keys} for row in rows], "private_release.csv"),
    )


def _flat(result):
    return {
        k: (str(v).replace(",", ";") if isinstance(v, (list, dict)) else v)
        for k, v in result.items()
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=40)
    parser.add_argument("--fits", type=int, default=10)
    parser.add_argument("--study-only", action="store_true", help="part 3 alone: the warnings")
    args = parser.parse_args()
    main(args.splits, args.fits, args.study_only)
