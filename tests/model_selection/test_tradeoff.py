import warnings

import numpy as np
import pytest
from _mechanisms import NoisyRelease
from joblib import parallel_backend
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, make_scorer
from sklearn.model_selection import GroupKFold, KFold, cross_validate
from sklearn.pipeline import Pipeline

from sklearn_privacy.metrics import make_leakage_scorer
from sklearn_privacy.model_selection import pareto_front, tradeoff_curve

CV = KFold(3, shuffle=True, random_state=0)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 300
    s = rng.integers(0, 2, n)
    X = np.c_[s, s + 0.5 * rng.normal(size=n), rng.normal(size=n)]
    y = (X[:, 1] + X[:, 2] > 0.5).astype(int)
    return X, y, s


def _pipe(**kw):
    return Pipeline(
        [("privacy", NoisyRelease(random_state=0, **kw)), ("clf", LogisticRegression())]
    )


def _scoring():
    return {"accuracy": "accuracy", "leakage": make_leakage_scorer(estimator="gaussian")}


def test_tradeoff_curve_matches_cross_validate(data):
    X, y, _ = data
    scales = [0.0, 1.0, 10.0]
    result = tradeoff_curve(
        _pipe(sensitive=[0]),
        X,
        y,
        param_name="privacy__scale",
        param_range=scales,
        scoring=_scoring(),
        cv=CV,
    )
    assert result.test_scores["leakage"].shape == (3, 3)
    for i, scale in enumerate(scales):
        ref = cross_validate(_pipe(sensitive=[0], scale=scale), X, y, cv=CV, scoring=_scoring())
        np.testing.assert_allclose(result.test_scores["accuracy"][i], ref["test_accuracy"])
        np.testing.assert_allclose(result.test_scores["leakage"][i], ref["test_leakage"])
    leak = -result.mean_test_scores["leakage"]
    assert leak[0] > leak[1] > leak[2]


def test_tradeoff_curve_sweeps_the_declared_knob_by_default(data):
    X, y, _ = data
    result = tradeoff_curve(_pipe(sensitive=[0]), X, y, scoring=_scoring(), cv=CV)
    assert result.param_name == "privacy__scale"
    assert result.param_range.dtype == np.float64  # numeric knobs: a float array
    np.testing.assert_allclose(np.round(result.param_range, 6), np.linspace(0.0, 10.0, 5))
    assert result.more_leakage_when == "smaller"
    named = tradeoff_curve(
        _pipe(sensitive=[0]), X, y, param_name="clf__C", param_range=[1.0], scoring=_scoring()
    )
    assert named.more_leakage_when is None
    with pytest.raises(ValueError, match="param_range is needed"):
        tradeoff_curve(_pipe(sensitive=[0]), X, y, param_name="clf__C", scoring=_scoring())
    with pytest.raises(ValueError, match="no sklearn_privacy mechanism"):
        tradeoff_curve(LogisticRegression(), X, y, scoring="accuracy")


def test_tradeoff_curve_routes_sensitive(routing, data):
    X, y, s = data
    pipe = Pipeline(
        [
            ("privacy", NoisyRelease(random_state=0).set_fit_request(sensitive=True)),
            ("clf", LogisticRegression()),
        ]
    )
    routed = tradeoff_curve(
        pipe,
        X[:, 1:],
        y,
        param_name="privacy__scale",
        param_range=[0.0, 5.0],
        scoring=_scoring(),
        cv=CV,
        params={"sensitive": s},
    )
    columns = tradeoff_curve(
        _pipe(sensitive=[0]),
        X,
        y,
        param_name="privacy__scale",
        param_range=[0.0, 5.0],
        scoring=_scoring(),
        cv=CV,
    )
    np.testing.assert_allclose(routed.test_scores["leakage"], columns.test_scores["leakage"])


def test_tradeoff_curve_routes_groups_sensitive_and_weights(routing, data):
    # the splitter takes groups, the mechanism S, the classifier and a scorer the weights:
    # the same numbers as scikit-learn's cross_validate at each knob value
    X, y, s = data
    rng = np.random.default_rng(1)
    weights, groups = rng.uniform(0.2, 3.0, y.size), rng.integers(0, 6, y.size)
    mechanism = NoisyRelease(random_state=0).set_fit_request(sensitive=True, sample_weight=False)
    pipe = Pipeline(
        [("privacy", mechanism), ("clf", LogisticRegression().set_fit_request(sample_weight=True))]
    )
    scoring = {
        "accuracy": make_scorer(accuracy_score).set_score_request(sample_weight=True),
        "leakage": make_leakage_scorer(estimator="gaussian"),
    }
    params = {"sensitive": s, "sample_weight": weights, "groups": groups}
    scales = [0.0, 3.0]
    result = tradeoff_curve(
        pipe,
        X[:, 1:],
        y,
        param_name="privacy__scale",
        param_range=scales,
        scoring=scoring,
        cv=GroupKFold(3),
        params=params,
    )
    for i, scale in enumerate(scales):
        ref = cross_validate(
            pipe.set_params(privacy__scale=scale),
            X[:, 1:],
            y,
            cv=GroupKFold(3),
            scoring=scoring,
            params=params,
        )
        np.testing.assert_allclose(result.test_scores["accuracy"][i], ref["test_accuracy"])
        np.testing.assert_allclose(result.test_scores["leakage"][i], ref["test_leakage"])
    # the weights reached the fit and the scorer: without them the accuracies differ
    unweighted = tradeoff_curve(
        pipe,
        X[:, 1:],
        y,
        param_name="privacy__scale",
        param_range=scales,
        scoring=scoring,
        cv=GroupKFold(3),
        params={**params, "sample_weight": np.ones(y.size)},
    )
    assert not np.allclose(unweighted.test_scores["accuracy"], result.test_scores["accuracy"])
    with pytest.raises(TypeError, match="not routed"):
        tradeoff_curve(
            pipe, X[:, 1:], y, param_name="privacy__scale", param_range=scales,
            scoring=scoring, params={**params, "unused": s},
        )  # fmt: skip


def test_tradeoff_curve_fit_params_without_routing(data):
    # without routing, params go to fit (split with the rows), as in cross_validate
    X, y, _ = data
    weights = np.random.default_rng(2).uniform(0.2, 3.0, y.size)
    kwargs = dict(param_name="privacy__scale", param_range=[0.0, 3.0], scoring=_scoring(), cv=CV)
    result = tradeoff_curve(
        _pipe(sensitive=[0]), X, y, params={"clf__sample_weight": weights}, **kwargs
    )
    for i, scale in enumerate([0.0, 3.0]):
        ref = cross_validate(
            _pipe(sensitive=[0], scale=scale),
            X,
            y,
            cv=CV,
            scoring=_scoring(),
            params={"clf__sample_weight": weights},
        )
        np.testing.assert_allclose(result.test_scores["accuracy"][i], ref["test_accuracy"])
        np.testing.assert_allclose(result.test_scores["leakage"][i], ref["test_leakage"])
    plain = tradeoff_curve(_pipe(sensitive=[0]), X, y, **kwargs)
    assert not np.allclose(plain.test_scores["accuracy"], result.test_scores["accuracy"])


def test_tradeoff_curve_parallel_backend_gives_same_numbers(data):
    X, y, _ = data
    kwargs = dict(param_name="privacy__scale", param_range=[0.0, 2.0], scoring=_scoring(), cv=CV)
    serial = tradeoff_curve(_pipe(sensitive=[0]), X, y, **kwargs)
    with parallel_backend("threading"):
        threaded = tradeoff_curve(_pipe(sensitive=[0]), X, y, n_jobs=2, **kwargs)
    np.testing.assert_allclose(serial.test_scores["leakage"], threaded.test_scores["leakage"])


def _brute_force_front(leak, util):
    keep = []
    for i in range(len(leak)):
        dominated = any(
            (leak[j] <= leak[i] and util[j] >= util[i]) and (leak[j] < leak[i] or util[j] > util[i])
            for j in range(len(leak))
        )
        if not dominated:
            keep.append(i)
    return set(keep)


@pytest.mark.parametrize("seed", range(20))
def test_pareto_front_brute_force(seed):
    rng = np.random.default_rng(seed)
    leak = rng.integers(0, 6, 15).astype(float)
    util = rng.integers(0, 6, 15).astype(float)
    front = pareto_front(leak, util)
    expected = _brute_force_front(leak, util)
    # among exact duplicates only one index is kept
    assert {(leak[i], util[i]) for i in front} == {(leak[i], util[i]) for i in expected}
    assert np.all(np.diff(leak[front]) > 0)


def test_pareto_front_errors():
    with pytest.raises(ValueError, match="same length"):
        pareto_front([0.1, 0.2], [0.5])
    with pytest.raises(ValueError, match="finite"):
        pareto_front([np.nan], [0.5])


def test_a_failing_fit_scores_error_score_as_in_validation_curve(data):
    from sklearn.exceptions import FitFailedWarning
    from sklearn.model_selection import validation_curve

    X, y, _ = data
    # a negative scale fails NoisyRelease's fit (its parameter validation)
    scales = [-1.0, 1.0]
    with pytest.warns(FitFailedWarning):
        result = tradeoff_curve(
            _pipe(sensitive=[0]), X, y, param_name="privacy__scale", param_range=scales,
            scoring={"accuracy": "accuracy"}, cv=CV,
        )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, reference = validation_curve(
            _pipe(sensitive=[0]), X, y, param_name="privacy__scale", param_range=scales, cv=CV
        )
    np.testing.assert_array_equal(result.test_scores["accuracy"], reference)  # nan, then scores
    assert np.isnan(result.test_scores["accuracy"][0]).all()
    assert not np.isnan(result.test_scores["accuracy"][1]).any()
    with pytest.raises(ValueError, match="scale"):
        tradeoff_curve(
            _pipe(sensitive=[0]), X, y, param_name="privacy__scale", param_range=scales,
            scoring={"accuracy": "accuracy"}, cv=CV, error_score="raise",
        )  # fmt: skip
