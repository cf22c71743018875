"""Tests of the ConvexPrivacyMapping estimator."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_privacy.discrete import ConvexPrivacyMapping, min_average_leakage_mapping
from sklearn_privacy.information import mutual_information


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 3, n)
    y = (s + rng.integers(0, 2, n)) % 4
    z = rng.integers(0, 2, n)
    return np.column_stack([s, y, z])


def test_fit_matches_solver_and_samples_the_mapping():
    X = _data()
    mech = ConvexPrivacyMapping(max_distortion=0.15, sensitive=[0], random_state=0).fit(X)
    direct = min_average_leakage_mapping(mech.joint_, mech.distortion_matrix_, 0.15)
    assert mech.leakage_ == pytest.approx(direct["average_leakage"], abs=1e-7)
    assert mech.distortion_ <= 0.15 + 1e-7
    np.testing.assert_allclose(mech.mapping_.sum(axis=1), 1.0, atol=1e-8)
    # The release follows P(U | Y): frequencies of a large sample.
    code = 0
    row = mech.input_records_[code]
    Xt = mech.transform(np.tile(np.r_[0, row], (20_000, 1)))
    out_codes = [int(np.flatnonzero((mech.output_records_ == r).all(axis=1))[0]) for r in Xt[:2000]]
    freq = np.bincount(out_codes, minlength=mech.output_records_.shape[0]) / 2000
    np.testing.assert_allclose(freq, mech.mapping_[code], atol=0.04)
    assert Xt.shape == (20_000, 2)


def test_same_random_state_same_release():
    X = _data()
    a = ConvexPrivacyMapping(0.2, sensitive=[0], random_state=3).fit(X).transform(X)
    b = ConvexPrivacyMapping(0.2, sensitive=[0], random_state=3).fit(X).transform(X)
    np.testing.assert_array_equal(a, b)


def test_maximum_and_full_observation_modes():
    X = _data()
    avg = ConvexPrivacyMapping(0.2, sensitive=[0]).fit(X)
    mx = ConvexPrivacyMapping(0.2, leakage="maximum", sensitive=[0]).fit(X)
    full = ConvexPrivacyMapping(0.2, observation="full", sensitive=[0], random_state=0).fit(X)
    assert mx.maximum_leakage_ <= avg.maximum_leakage_ + 1e-6
    assert avg.average_leakage_ <= mx.average_leakage_ + 1e-7
    # Seeing S can only help (Remark 3): P(U|Y) is a special case of P(U|Y,S).
    assert full.leakage_ <= avg.leakage_ + 1e-7
    assert full.mapping_.shape[0] == full.joint_.shape[0]
    Xt = full.transform(X)
    assert Xt.shape == (X.shape[0], 2)
    with pytest.raises(ValueError, match="observation='full'"):
        ConvexPrivacyMapping(observation="full").fit(X[:, 1:], sensitive=X[:, 0])


def test_distortion_choices_and_errors():
    X = _data()
    n_y = len(np.unique(X[:, 1:], axis=0))
    D = np.ones((n_y, n_y)) - np.eye(n_y)
    a = ConvexPrivacyMapping(0.2, distortion=D, sensitive=[0]).fit(X)
    b = ConvexPrivacyMapping(0.2, distortion=lambda y, u: 1.0 - np.eye(len(y)), sensitive=[0])
    assert a.leakage_ == pytest.approx(b.fit(X).leakage_, abs=1e-7)
    with pytest.raises(ValueError, match=r"shape \(n_inputs, n_outputs\)"):
        ConvexPrivacyMapping(0.2, distortion=D[:-1], sensitive=[0]).fit(X)
    with pytest.raises(ValueError, match="negative entries"):
        ConvexPrivacyMapping(0.2, distortion=-D, sensitive=[0]).fit(X)
    out = np.array([[9, 9]])
    with pytest.raises(ValueError, match="least achievable expected distortion 1"):
        ConvexPrivacyMapping(0.5, output_alphabet=out, sensitive=[0]).fit(X)
    with pytest.raises(ValueError, match="output_alphabet must have shape"):
        ConvexPrivacyMapping(0.5, output_alphabet=[[1, 2, 3]], sensitive=[0]).fit(X)
    sq = ConvexPrivacyMapping(0.3, distortion="squared", sensitive=[0]).fit(X)
    assert sq.distortion_ <= 0.3 + 1e-7


def test_solver_failure_is_clear():
    X = _data()
    with pytest.raises(RuntimeError, match="NOT_A_SOLVER"):
        ConvexPrivacyMapping(0.1, solver="NOT_A_SOLVER", sensitive=[0]).fit(X)


def test_dataframe_and_strings():
    X = _data()
    df = pd.DataFrame({"s": X[:, 0], "a": np.array(list("pqrs"))[X[:, 1]], "b": X[:, 2]})
    mech = ConvexPrivacyMapping(0.2, sensitive="s", random_state=0).set_output(transform="pandas")
    out = mech.fit_transform(df)
    assert list(out.columns) == ["a", "b"]
    assert set(out["a"]) <= set("pqrs")
    # Empirical leakage of the release is close to the training operating point.
    codes = pd.factorize(out["a"].astype(str) + out["b"].astype(str))[0]
    counts = np.zeros((3, codes.max() + 1))
    np.add.at(counts, (X[:, 0], codes), 1)
    assert mutual_information(counts / counts.sum()) < mech.leakage_ + 0.03


def test_pipeline_grid_search_with_scorers():
    from sklearn_privacy.metrics import (
        make_adversary_scorer,
        make_distortion_scorer,
        make_leakage_scorer,
    )

    X = _data(400)
    rng = np.random.default_rng(1)
    target = (X[:, 1] + rng.integers(0, 2, 400)) % 2
    pipe = make_pipeline(
        ConvexPrivacyMapping(sensitive=[0], random_state=0),
        OneHotEncoder(handle_unknown="ignore"),
        LogisticRegression(),
    )
    grid = GridSearchCV(
        pipe,
        {"convexprivacymapping__max_distortion": [0.05, 0.3]},
        scoring={
            "accuracy": "accuracy",
            "leakage": make_leakage_scorer(),
            "adversary": make_adversary_scorer(),
            "distortion": make_distortion_scorer(),
        },
        refit="accuracy",
        cv=2,
    )
    grid.fit(X, target)
    res = grid.cv_results_
    assert np.all(np.isfinite(res["mean_test_leakage"]))
    # More budget, less leakage (scorers are negated: greater is better).
    assert res["mean_test_leakage"][1] >= res["mean_test_leakage"][0] - 0.02
    assert -res["mean_test_distortion"][0] <= 0.05 + 0.05


def test_disclosure_is_the_mutual_information_of_input_and_release():
    from sklearn_privacy.information import mutual_information_from_samples

    rng = np.random.default_rng(0)
    n = 200_000
    s = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < 0.8, s, 1 - s) + 2 * rng.integers(0, 2, n)
    X = np.column_stack([s, y])
    mech = ConvexPrivacyMapping(0.2, sensitive=[0], random_state=0).fit(X)
    sampled = mutual_information_from_samples(y, mech.transform(X))
    assert mech.disclosure_ == pytest.approx(sampled, abs=5e-3)
    assert mech.distortion_measure_ == "hamming"


def test_budget_zero_warns_that_nothing_is_hidden():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 500)
    X = np.column_stack([s, np.where(rng.random(500) < 0.8, s, 1 - s)])
    with pytest.warns(UserWarning, match="max_distortion leaves no room.*above min_distortion_"):
        ConvexPrivacyMapping(0.0, sensitive=[0]).fit(X)
    with pytest.warns(UserWarning, match="one record for every row"):
        ConvexPrivacyMapping(1.0, sensitive=[0]).fit(X)
