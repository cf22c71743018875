"""Rows unseen at fit are counted and said, once per transform (issue 36).

With the default ``handle_unknown="nearest"`` a typo such as ``'PhD-from-Mars'`` was released
as the nearest seen combination with no warning and no count (81 rows of an Adult test split).
The oracle of the count is pandas: the rows of the released columns absent from the fit rows.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_privacy import ConvexPrivacyMapping, PrivacyFunnelTransformer, SubmodularFunnel
from sklearn_privacy.exceptions import UnseenCategoryWarning

MECHANISMS = [
    PrivacyFunnelTransformer(sensitive=["s"], threshold=0.5),
    SubmodularFunnel(sensitive=["s"], solver="mm"),
    ConvexPrivacyMapping(sensitive=["s"], max_distortion=0.3),
]
IDS = [type(m).__name__ for m in MECHANISMS]


def _table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "s": np.where(s == 1, "F", "M"),
            "education": np.array(["HS", "BSc", "MSc"])[np.where(rng.random(n) < 0.7, s, 2)],
            "age": np.array(["<30", "30-50", "50+"])[rng.integers(0, 3, n)],
        }
    )


def _unseen_count(fit_rows, rows, columns=("education", "age")):
    """Rows of ``rows`` whose released columns are no row of ``fit_rows`` (pandas' merge)."""
    seen = fit_rows[list(columns)].drop_duplicates()
    merged = rows[list(columns)].merge(seen, how="left", indicator=True)
    return int((merged["_merge"] == "left_only").sum())


def _transform(mechanism, X, action="always"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        Xt = mechanism.transform(X)
    return Xt, [w for w in caught if issubclass(w.category, UnseenCategoryWarning)]


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=IDS)
def test_a_transform_with_unseen_rows_counts_them_and_warns_once(mechanism):
    fit_rows = _table()
    mechanism.fit(fit_rows)
    assert mechanism.n_unseen_rows_ == 0
    new = _table(200, seed=1)
    new.loc[:6, "education"] = "PhD-from-Mars"  # 7 typos
    new.loc[7:9, ["education", "age"]] = [["MSc", "90+"]] * 3
    expected = _unseen_count(fit_rows, new)
    assert expected == 10
    Xt, caught = _transform(mechanism, new)
    assert Xt.shape[0] == 200
    assert mechanism.n_unseen_rows_ == expected
    assert len(caught) == 1
    message = str(caught[0].message)
    assert f"{type(mechanism).__name__}.transform: 10 of 200 rows" in message
    # the most frequent change first, naming the column, and how many rows it holds
    assert re.search(r"'PhD-from-Mars' -> '\w+' in column 'education' \(7 rows\)", message)
    assert re.search(r"'90\+' -> '[^']+' in column 'age' \(3 rows\)", message)
    assert "handle_unknown='error'" in message and "category=UnseenCategoryWarning" in message
    # the changes said are the ones made: the typo rows are released as their nearest
    nearest = mechanism.alphabet_.decode(mechanism.alphabet_.encode(new[["education", "age"]]))
    assert set(nearest[:7, 0]) == {re.search(r"'PhD-from-Mars' -> '(\w+)'", message)[1]}


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=IDS)
def test_seen_rows_warn_nothing_and_reset_the_count(mechanism):
    fit_rows = _table()
    mechanism.fit(fit_rows)
    new = fit_rows.head(20).copy()
    new.loc[0, "age"] = "typo"
    _transform(mechanism, new)
    assert mechanism.n_unseen_rows_ == 1
    _, caught = _transform(mechanism, fit_rows)
    assert caught == [] and mechanism.n_unseen_rows_ == 0


def test_silence_is_asked_for_with_the_category_and_the_count_stays():
    funnel = PrivacyFunnelTransformer(sensitive=["s"], threshold=0.5).fit(_table())
    new = _table(50, seed=2).assign(age="typo")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=UnseenCategoryWarning)
        funnel.transform(new)
    assert funnel.n_unseen_rows_ == 50


def test_error_policy_still_refuses_and_a_search_says_the_cause_once():
    X = _table()
    strict = PrivacyFunnelTransformer(sensitive=["s"], handle_unknown="error").fit(X)
    with pytest.raises(ValueError, match="not seen at fit"):
        strict.transform(X.assign(age="typo"))
    # every test fold holds typos: one warning for the cross-validation, not one per fold
    X = X.copy()
    X.loc[::50, "education"] = [f"typo{i}" for i in range(12)]
    y = (X["education"] == "HS").to_numpy(int)
    pipe = make_pipeline(
        PrivacyFunnelTransformer(sensitive=["s"], threshold=0.5),
        OneHotEncoder(handle_unknown="ignore"),
        LogisticRegression(),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        cross_validate(pipe, X, y, cv=4)
    unseen = [w for w in caught if issubclass(w.category, UnseenCategoryWarning)]
    assert len(unseen) == 1 and unseen[0].filename == __file__


def test_an_array_names_the_column_of_x_not_of_the_release():
    X = _table().to_numpy(dtype=object)  # S is column 0: the released columns are 1 and 2
    funnel = PrivacyFunnelTransformer(sensitive=[0], threshold=0.5).fit(X)
    new = X[:3].copy()
    new[:, 2] = "typo"
    _, caught = _transform(funnel, new)
    assert "'typo' -> " in str(caught[0].message)
    assert re.search(r"in column 2 \(\d rows?\)", str(caught[0].message))


def test_a_row_unlike_any_seen_gives_a_bounded_message():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(200, 30)).astype(str)
    funnel = PrivacyFunnelTransformer(sensitive=[0], threshold=0.5).fit(X)
    new = np.full((5, 30), "new", dtype=object)
    _, caught = _transform(funnel, new)
    message = str(caught[0].message)
    assert "5 of 5 rows" in message and "and 26 more column(s) (5 rows)" in message
    assert len(message) < 600
