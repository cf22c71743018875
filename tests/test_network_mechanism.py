"""The base carries a mechanism that owns a trained skorch network (the shape PPAN takes)."""

import pickle

import numpy as np
import pytest
from _mechanisms import NetRelease
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_privacy.metrics import make_leakage_scorer
from sklearn_privacy.model_selection import tradeoff_curve

torch = pytest.importorskip("torch")
pytest.importorskip("skorch")


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 400
    s = rng.integers(0, 2, n)
    X = np.c_[s + 0.3 * rng.normal(size=n), rng.normal(size=(n, 2)), s]
    y = (X[:, 0] + X[:, 1] > 0.5).astype(int)
    return X, y


def _weights(mech):
    return [p.detach().numpy().copy() for p in mech.net_.module_.parameters()]


def test_training_is_seeded_from_the_fit_stream_only(data):
    X, _ = data
    before = torch.random.get_rng_state().clone()
    first = NetRelease(random_state=3, sensitive=[3]).fit(X)
    assert torch.equal(torch.random.get_rng_state(), before)  # global torch state untouched
    again = NetRelease(random_state=3, sensitive=[3]).fit(X)
    other = NetRelease(random_state=4, sensitive=[3]).fit(X)
    for a, b in zip(_weights(first), _weights(again)):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(_weights(first), _weights(other)))
    assert first.n_iter_ == first.max_epochs == len(first.history_)
    assert first.history_[-1]["train_loss"] < first.history_[0]["train_loss"]


def test_release_noise_comes_from_the_release_stream(data):
    X, _ = data
    mech = NetRelease(random_state=3, sensitive=[3]).fit(X)
    r1, r2 = mech.transform(X), mech.transform(X)
    assert not np.array_equal(r1, r2)
    np.testing.assert_allclose(np.std(r1 - r2), np.sqrt(2) * mech.noise, rtol=0.1)
    np.testing.assert_array_equal(mech.fit(X).transform(X), r1)


def test_pickle_clone_and_search(data):
    X, y = data
    mech = NetRelease(random_state=0, sensitive=[3]).fit(X)
    restored = pickle.loads(pickle.dumps(mech))
    np.testing.assert_allclose(
        restored.net_.predict(X[:, :3].astype(np.float32)),
        mech.net_.predict(X[:, :3].astype(np.float32)),
    )
    assert clone(mech).get_params() == mech.get_params()
    search = GridSearchCV(
        make_pipeline(NetRelease(random_state=0, sensitive=[3]), LogisticRegression()),
        {"netrelease__noise": [0.0, 3.0]},
        scoring={"accuracy": "accuracy", "leakage": make_leakage_scorer(estimator="knn")},
        refit="accuracy",
        cv=2,
    ).fit(X, y)
    leak = -search.cv_results_["mean_test_leakage"]
    assert leak[0] > leak[1]
    curve = tradeoff_curve(
        make_pipeline(NetRelease(random_state=0, sensitive=[3]), LogisticRegression()),
        X,
        y,
        scoring="accuracy",
        cv=2,
    )
    assert curve.param_name == "netrelease__noise" and curve.more_leakage_when == "smaller"


def test_verbose_is_handed_to_the_net(data, capsys):
    X, _ = data
    NetRelease(sensitive=[3], verbose=0).fit(X)
    assert capsys.readouterr().out == ""
    NetRelease(sensitive=[3], verbose=1).fit(X)
    assert "train_loss" in capsys.readouterr().out


@parametrize_with_checks(
    [NetRelease(max_epochs=2, random_state=0)],
    expected_failed_checks=lambda est: {
        "check_sample_weight_equivalence_on_dense_data": (
            "minibatch training sees the expanded rows in another order than the repeated ones"
        )
    },
)
def test_estimator_checks(estimator, check):
    check(estimator)
