"""A discrete mechanism at its defaults cross-validates on real data (issue 27).

Every test fold of Adult holds a few combinations the training folds lack; with
``handle_unknown="error"`` as the default, ``cross_validate`` and ``GridSearchCV``
(``error_score=nan``) returned NaN scores and buried the message in a traceback.
"""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_privacy import ConvexPrivacyMapping, PrivacyFunnelTransformer, SubmodularFunnel

RELEASED = ["age", "education", "relationship"]


@pytest.fixture(scope="module")
def adult(data_home):
    from sklearn_privacy.datasets import fetch_adult

    frame = fetch_adult(data_home=data_home, discretize=True, as_frame=True).frame
    return frame[[*RELEASED, "sex"]].astype(str), (frame["income"] == ">50K").astype(int)


def _unseen_per_fold(X, y, cv):
    rows = (X["age"] + "|" + X["education"] + "|" + X["relationship"]).to_numpy()
    return [len(set(rows[test]) - set(rows[train])) for train, test in cv.split(X, y)]


MECHANISMS = [
    PrivacyFunnelTransformer(sensitive=["sex"]),
    SubmodularFunnel(sensitive=["sex"], solver="mm"),
    ConvexPrivacyMapping(sensitive=["sex"]),
]


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=lambda m: type(m).__name__)
def test_default_mechanism_cross_validates_on_adult_although_every_fold_has_unseen_rows(
    mechanism, adult
):
    X, y = adult
    cv = StratifiedKFold(5)
    # the situation of the issue: each test fold holds rows no training fold has
    assert min(_unseen_per_fold(X, y, cv)) >= 1
    assert mechanism.handle_unknown == "nearest"
    pipe = make_pipeline(mechanism, OneHotEncoder(handle_unknown="ignore"), LogisticRegression())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = cross_validate(pipe, X, y, cv=cv)["test_score"]
    assert np.all(np.isfinite(scores)) and np.all(scores > 0.7)
    assert not [w for w in caught if "failed" in str(w.message)]


def test_default_funnel_grid_search_has_no_nan_on_adult(adult):
    X, y = adult
    pipe = make_pipeline(
        PrivacyFunnelTransformer(sensitive=["sex"]),
        OneHotEncoder(handle_unknown="ignore"),
        LogisticRegression(),
    )
    search = GridSearchCV(pipe, {"privacyfunneltransformer__threshold": [0.8, 0.95]}, cv=3)
    search.fit(X, y)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_error_policy_still_refuses_the_unseen_rows_of_a_fold(adult):
    X, y = adult
    train, test = next(StratifiedKFold(5).split(X, y))
    strict = PrivacyFunnelTransformer(sensitive=["sex"], handle_unknown="error")
    strict.fit(X.iloc[train])
    with pytest.raises(ValueError, match="not seen at fit.*handle_unknown='nearest'"):
        strict.transform(X.iloc[test])
    nearest = PrivacyFunnelTransformer(sensitive=["sex"]).fit(X.iloc[train])
    # the release keeps the fitted alphabet of merged symbols
    assert set(np.unique(nearest.transform(X.iloc[test]))) <= set(range(nearest.n_clusters_))
