"""Sweeps on a dask cluster: tradeoff_curve and GridSearchCV under joblib's dask backend.

A ``distributed.LocalCluster`` with two worker processes stands in for a real
cluster; the results must equal the ``n_jobs=1`` run (every job is a clone
fitted with its own seed, so where it runs does not matter).
"""

import numpy as np
import pytest
from joblib import parallel_backend
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline

from sklearn_privacy import L2CompressionDP
from sklearn_privacy.metrics import make_adversary_scorer, make_leakage_scorer
from sklearn_privacy.model_selection import tradeoff_curve

# DP fits here (plumbing checks fit on few rows) release under 1 % of the
# variance and warn "almost pure noise" (tested in tests/gaussian/test_l2.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning"
)


distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _data():
    rng = np.random.default_rng(0)
    n = 400
    s = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=(n, 3)) + s[:, None] * [1.0, 0.0, 0.5], s]
    y = (X[:, 1] + X[:, 2] > 0.3).astype(int)
    return X, y


def _pipe():
    mech = L2CompressionDP(sensitive=[3], clip_radius=4.0, fit_data="public", random_state=0)
    return Pipeline([("privacy", mech), ("clf", LogisticRegression())])


SCORING = {
    "accuracy": "accuracy",
    "leakage": make_leakage_scorer(estimator="gaussian"),
    "adversary": make_adversary_scorer(),
}
CV = KFold(3, shuffle=True, random_state=0)


def test_tradeoff_curve_on_a_local_cluster_equals_one_process(client):
    X, y = _data()
    kwargs = {"scoring": SCORING, "cv": CV, "param_range": [0.5, 5.0, 50.0]}
    local = tradeoff_curve(_pipe(), X, y, param_name="privacy__epsilon", n_jobs=1, **kwargs)
    with parallel_backend("dask"):
        remote = tradeoff_curve(_pipe(), X, y, param_name="privacy__epsilon", n_jobs=-1, **kwargs)
    for name in SCORING:
        np.testing.assert_allclose(remote.test_scores[name], local.test_scores[name])
    assert len(client.scheduler_info()["workers"]) == 2


def test_grid_search_on_a_local_cluster_equals_one_process(client):
    X, y = _data()
    grid = {"privacy__epsilon": [0.5, 5.0, 50.0]}
    local = GridSearchCV(_pipe(), grid, scoring=SCORING, refit="accuracy", cv=CV).fit(X, y)
    with parallel_backend("dask"):
        remote = GridSearchCV(
            _pipe(), grid, scoring=SCORING, refit="accuracy", cv=CV, n_jobs=-1
        ).fit(X, y)
    for name in SCORING:
        key = f"mean_test_{name}"
        np.testing.assert_allclose(remote.cv_results_[key], local.cv_results_[key])
    assert remote.best_params_ == local.best_params_
