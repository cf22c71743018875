"""Rows of an Adult test split unseen at fit, with a typo category: counted and said.

The main job's first 50/50 split of UCI Adult (age, education, relationship; S = sex; the
``StratifiedShuffleSplit`` of ``python -m sklearn_privacy``), a funnel fitted on the training
half at its defaults, ``--typos`` rows of the test half given the education
``'PhD-from-Mars'``: the rows ``transform`` released as their nearest seen combination
(``n_unseen_rows_``, against pandas' count of rows absent from the training half), and the
warnings it gave (issue 36).

Run: ``python benchmarks/bench_unseen_rows_adult.py [--typos 10] [--data-home DIR]``
"""

import argparse
import warnings

from _common import default_data_home
from sklearn.model_selection import StratifiedShuffleSplit

from sklearn_privacy import PrivacyFunnelTransformer
from sklearn_privacy._demo import RELEASED, SENSITIVE, load_adult


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--typos", type=int, default=10)
    parser.add_argument("--data-home", default=default_data_home())
    args = parser.parse_args()
    frame, y, _ = load_adult(args.data_home)
    cv = StratifiedShuffleSplit(n_splits=5, test_size=0.5, random_state=0)
    train, test = next(cv.split(frame, y))
    fit_rows, new = frame.iloc[train], frame.iloc[test].copy()
    new.iloc[: args.typos, RELEASED.index("education")] = "PhD-from-Mars"
    seen = fit_rows[RELEASED].drop_duplicates()
    merged = new[RELEASED].merge(seen, how="left", indicator=True)
    expected = int((merged["_merge"] == "left_only").sum())
    funnel = PrivacyFunnelTransformer(sensitive=[SENSITIVE]).fit(fit_rows)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        funnel.transform(new)
    print(f"test rows {len(new)}, typos {args.typos}, unseen (pandas) {expected}")
    print(f"n_unseen_rows_ {funnel.n_unseen_rows_}, warnings {len(caught)}")
    for w in caught:
        print(f"{w.category.__name__}: {w.message}")
    return 0 if funnel.n_unseen_rows_ == expected else 1


if __name__ == "__main__":
    raise SystemExit(main())
