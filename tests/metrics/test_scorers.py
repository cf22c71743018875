import numpy as np
import pandas as pd
import pytest
from _mechanisms import NoisyRelease, RandomizedResponse
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import mutual_info_score
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from sklearn_privacy.metrics import (
    find_mechanism,
    is_privacy_scorer,
    leakage_score,
    make_adversary_scorer,
    make_distortion_scorer,
    make_leakage_scorer,
)

CV = KFold(4, shuffle=True, random_state=0)


@pytest.fixture
def discrete_data():
    rng = np.random.default_rng(0)
    n = 400
    s = rng.integers(0, 2, n)
    x = np.where(rng.random(n) < 0.8, s, 1 - s) + 2 * rng.integers(0, 2, n)
    y = (x >= 2).astype(int)
    return s, x, y


def _pipe(mechanism):
    return Pipeline(
        [
            ("privacy", mechanism),
            ("onehot", OneHotEncoder(handle_unknown="ignore")),
            ("clf", LogisticRegression()),
        ]
    )


def _expected_fold_leakage(s, x):
    return [-mutual_info_score(s[test], x[test]) for _, test in CV.split(x)]


def test_leakage_scorer_reads_each_folds_own_columns(discrete_data):
    s, x, y = discrete_data
    X = np.c_[s, x]
    res = cross_validate(
        _pipe(RandomizedResponse(flip=0.0, sensitive=[0])),
        X,
        y,
        cv=CV,
        scoring={"leakage": make_leakage_scorer(estimator="plugin")},
        error_score="raise",
    )
    np.testing.assert_allclose(res["test_leakage"], _expected_fold_leakage(s, x), atol=1e-12)


def test_leakage_scorer_gets_each_folds_own_metadata(routing, discrete_data):
    s, x, y = discrete_data
    mech = RandomizedResponse(flip=0.0).set_fit_request(sensitive=True)
    res = cross_validate(
        _pipe(mech),
        x.reshape(-1, 1),
        y,
        cv=CV,
        params={"sensitive": s},
        scoring={"leakage": make_leakage_scorer(estimator="plugin")},
        error_score="raise",
    )
    np.testing.assert_allclose(res["test_leakage"], _expected_fold_leakage(s, x), atol=1e-12)


def _grid_scoring():
    return {
        "accuracy": "accuracy",
        "leakage": make_leakage_scorer(),
        "adversary": make_adversary_scorer(),
        "distortion": make_distortion_scorer(),
    }


def test_grid_search_with_sensitive_columns(discrete_data):
    s, x, y = discrete_data
    X = pd.DataFrame({"s": s, "x": x})
    search = GridSearchCV(
        _pipe(RandomizedResponse(sensitive="s", random_state=0)),
        {"privacy__flip": [0.0, 1.0]},
        scoring=_grid_scoring(),
        refit="accuracy",
        cv=CV,
        error_score="raise",
    ).fit(X, y)
    res = search.cv_results_
    for key in ("mean_test_leakage", "mean_test_adversary", "mean_test_distortion"):
        assert np.all(np.isfinite(res[key]))
    # flip=1 redraws every row from the pool: less leakage, a weaker adversary, more distortion
    assert -res["mean_test_leakage"][1] < -res["mean_test_leakage"][0]
    assert -res["mean_test_adversary"][0] > 0.7
    assert -res["mean_test_adversary"][1] < 0.65
    assert res["mean_test_distortion"][0] == 0.0
    assert search.best_params_ == {"privacy__flip": 0.0}


def test_grid_search_with_routed_sensitive(routing, discrete_data):
    s, x, y = discrete_data
    mech = RandomizedResponse(random_state=0).set_fit_request(sensitive=True)
    search = GridSearchCV(
        _pipe(mech),
        {"privacy__flip": [0.0, 1.0]},
        scoring=_grid_scoring(),
        refit="accuracy",
        cv=CV,
        error_score="raise",
    ).fit(x.reshape(-1, 1), y, sensitive=s)
    assert np.all(np.isfinite(search.cv_results_["mean_test_leakage"]))
    # each fold's own S reached the scorer: the default estimate of each test fold
    expected = [-leakage_score(s[test], x[test].reshape(-1, 1)) for _, test in CV.split(x)]
    assert search.cv_results_["mean_test_leakage"][0] == pytest.approx(np.mean(expected), abs=1e-12)
    # the plug-in minus its permutation null (4 symbols on 133-row folds): the truth
    # ln 2 - h(0.2) = 0.193 within 0.02, where the plug-in reads 0.204
    assert -search.cv_results_["mean_test_leakage"][0] == pytest.approx(0.193, abs=0.02)


def test_scorer_without_sensitive_raises(discrete_data):
    s, x, y = discrete_data
    with pytest.raises(ValueError, match="found no sensitive attribute"):
        make_leakage_scorer()(
            NoisyRelease().fit(x.reshape(-1, 1).astype(float), sensitive=s),
            x.reshape(-1, 1).astype(float),
        )


def test_scorer_that_cannot_get_s_raises_in_search(routing, discrete_data):
    s, x, y = discrete_data
    mech = RandomizedResponse().set_fit_request(sensitive=True)
    scorer = make_leakage_scorer().set_score_request(sensitive=False)
    search = GridSearchCV(
        _pipe(mech),
        {"privacy__flip": [0.0]},
        scoring={"leakage": scorer},
        refit=False,
        cv=CV,
        error_score="raise",
    )
    with pytest.raises(ValueError, match="found no sensitive attribute"):
        search.fit(x.reshape(-1, 1), y, sensitive=s)


def test_scorer_s_given_twice(discrete_data):
    s, x, y = discrete_data
    X = np.c_[s, x]
    mech = RandomizedResponse(sensitive=[0]).fit(X)
    with pytest.raises(ValueError, match="given twice"):
        make_leakage_scorer()(mech, X, sensitive=s)


def test_scorer_rejects_non_mechanism():
    with pytest.raises(TypeError, match="neither a sklearn_privacy mechanism"):
        make_leakage_scorer()(StandardScaler().fit([[0.0], [1.0]]), [[0.0], [1.0]])


def test_find_mechanism_pushes_x_through_preceding_steps():
    X = np.c_[np.arange(10) % 2, np.arange(10.0)]
    pipe = Pipeline(
        [("scale", StandardScaler()), ("privacy", NoisyRelease(scale=0.0, sensitive=[0]))]
    ).fit(X)
    mech, X_mech = find_mechanism(pipe, X)
    assert mech is pipe.named_steps["privacy"]
    np.testing.assert_allclose(X_mech, StandardScaler().fit_transform(X))


def test_distortion_needs_matching_shapes_or_an_override():
    X = np.c_[np.arange(10) % 2, np.arange(10.0)]
    mech = NoisyRelease(scale=1.0, sensitive=[0], random_state=0).fit(X)
    noise = mech.transform(X) - X[:, 1:]
    mech.fit(X)  # restarts the release sequence: the scorer's release is the same first draw
    assert make_distortion_scorer()(mech, X) == pytest.approx(-np.mean(noise**2))


@pytest.mark.parametrize(
    "make", [make_leakage_scorer, make_adversary_scorer, make_distortion_scorer]
)
def test_scorer_declares_its_sign(make, discrete_data):
    """``greater_is_better`` is public and read-only, and the score's sign follows it."""
    s, x, _ = discrete_data
    scores = {}
    for greater in (False, True):
        mech = RandomizedResponse(flip=0.1, random_state=0).fit(x.reshape(-1, 1), sensitive=s)
        scorer = make(greater_is_better=greater)
        assert scorer.greater_is_better is greater
        with pytest.raises(AttributeError):
            scorer.greater_is_better = not greater
        scores[greater] = scorer(mech, x.reshape(-1, 1), sensitive=s)
    assert scores[False] == pytest.approx(-scores[True]) and scores[True] > 0


@pytest.mark.parametrize(
    "make, measure",
    [
        (make_leakage_scorer, "leakage"),
        (make_adversary_scorer, "adversary"),
        (make_distortion_scorer, "distortion"),
    ],
)
def test_scorer_says_what_it_measures(make, measure):
    """``measure`` is public and read-only, names the factory and ignores the sign."""
    for greater in (False, True):
        scorer = make(greater_is_better=greater)
        assert scorer.measure == measure
        assert repr(scorer).startswith(f"make_{measure}_scorer(")
        with pytest.raises(AttributeError):
            scorer.measure = "accuracy"


def test_the_package_recognises_its_privacy_scorers():
    from sklearn.metrics import get_scorer

    assert is_privacy_scorer(make_leakage_scorer()) and is_privacy_scorer(make_distortion_scorer())
    assert not any(map(is_privacy_scorer, [get_scorer("accuracy"), "leakage", None]))


def test_the_scorer_base_is_abstract():
    from sklearn_privacy.metrics._scorers import _MechanismScorer

    with pytest.raises(TypeError, match="abstract"):
        _MechanismScorer(-1, {})


def test_verbose_leakage_scorer_names_the_call_and_fold_of_each_line(capsys):
    """Before: every fold printed ``[leakage] logistic: ...``, nothing told the folds apart."""
    rng = np.random.default_rng(0)
    n = 160  # folds of 54, 53 and 53 rows
    s = rng.integers(0, 2, n)
    x = np.where(rng.random(n) < 0.8, s, 1 - s) + 2 * rng.integers(0, 2, n)
    X = pd.DataFrame({"s": s, "x": x}, index=np.arange(100, 100 + n))
    res = cross_validate(
        _pipe(RandomizedResponse(flip=0.2, sensitive=["s"], random_state=0)),
        X,
        (x >= 2).astype(int),
        cv=KFold(3),
        scoring={"leakage": make_leakage_scorer(verbose=1)},
        error_score="raise",
    )
    lines = capsys.readouterr().out.splitlines()
    assert all(line.startswith("[leakage scorer, call ") for line in lines), lines
    folds = [test for _, test in KFold(3).split(X)]
    labels = set()
    for call, (test, score) in enumerate(zip(folds, res["test_leakage"]), start=1):
        label = f"[leakage scorer, call {call}, {test.size} rows, index "
        label += f"{X.index[test[0]]} ... {X.index[test[-1]]}]"
        mine = [line for line in lines if line.startswith(f"{label} ")]
        assert any(" nats in " in line for line in mine[:-1]), lines  # the panel's members
        assert mine[-1].startswith(f"{label} score {score:.4f} in "), lines
        labels.add(label)
    assert len(labels) == 3


def test_a_verbose_scorer_copy_counts_on_from_its_own_number(discrete_data, capsys):
    """A search on processes pickles the scorer (its lock does not pickle); see the docstring."""
    import copy
    import pickle

    s, x, _ = discrete_data
    mech = RandomizedResponse(flip=0.0).fit(x.reshape(-1, 1), sensitive=s)
    scorer = make_leakage_scorer(estimator="plugin", verbose=1)
    scorer(mech, x.reshape(-1, 1), sensitive=s)
    for twin in (pickle.loads(pickle.dumps(scorer)), copy.deepcopy(scorer)):
        twin(mech, x.reshape(-1, 1), sensitive=s)
    scorer(mech, x.reshape(-1, 1), sensitive=s)
    calls = [line.split(",")[1] for line in capsys.readouterr().out.splitlines()]
    assert calls == [" call 1", " call 2", " call 2", " call 2"]


def test_scorer_repr():
    assert repr(make_leakage_scorer()) == (
        "make_leakage_scorer(estimator='auto', n_neighbors=5, n_splits=5, n_shuffles=0, "
        "greater_is_better=False)"
    )


@pytest.mark.parametrize(
    "sensitive, match",
    [
        (np.zeros(400), "single value"),
        (np.arange(399) % 2, "399 rows but X has 400"),
        (np.r_[np.nan, np.arange(399) % 2], "NaN"),
        (np.zeros((400, 2, 2)), "1-D or 2-D"),
    ],
)
def test_scorer_rejects_bad_sensitive(discrete_data, sensitive, match):
    s, x, y = discrete_data
    mech = RandomizedResponse(flip=0.0).fit(x.reshape(-1, 1), sensitive=s)
    with pytest.raises(ValueError, match=match):
        make_leakage_scorer()(mech, x.reshape(-1, 1), sensitive=sensitive)


def test_scorer_rejects_nan_in_x(discrete_data):
    s, x, y = discrete_data
    X = np.c_[s, x].astype(float)
    mech = NoisyRelease(sensitive=[0]).fit(X)
    X[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        make_leakage_scorer()(mech, X)


@pytest.mark.filterwarnings("ignore:.*merged nothing:UserWarning")
def test_a_fold_with_one_value_of_s_scores_nan_and_says_why():
    from sklearn.model_selection import LeaveOneOut

    from sklearn_privacy import PrivacyFunnelTransformer

    rng = np.random.default_rng(0)
    s, y = rng.integers(0, 2, 60), rng.integers(0, 2, 60)
    X = np.column_stack([s, s, rng.integers(0, 3, 60)])  # the second column gives S away
    funnel = PrivacyFunnelTransformer(sensitive=[0], threshold=1.0, handle_unknown="nearest")
    pipe = Pipeline([("privacy", funnel), ("clf", LogisticRegression())])
    scoring = {"leakage": make_leakage_scorer(), "adversary": make_adversary_scorer()}
    with pytest.warns(UndefinedMetricWarning, match="single value of S, on which") as record:
        loo = cross_validate(pipe, X, y, scoring=scoring, cv=LeaveOneOut())
    # before: 0.0 nats on every fold, a release that gives S away looked private
    assert np.isnan(loo["test_leakage"]).all() and np.isnan(loo["test_adversary"]).all()
    assert any(w.filename == __file__ for w in record)
    folds = cross_validate(pipe, X, y, scoring=scoring, cv=3)
    assert np.all(-folds["test_leakage"] > 0.6)  # I(S; X) of ln 2 minus the fold's sampling


def test_a_mechanism_inside_a_column_transformer_is_named_not_hidden():
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline

    from sklearn_privacy import PrivacyFunnelTransformer

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"s": rng.integers(0, 2, 200), "a": rng.integers(0, 3, 200)})
    X["z"] = rng.normal(size=200)
    funnel = PrivacyFunnelTransformer(sensitive=["s"], threshold=0.5)
    branch = make_pipeline(funnel, OneHotEncoder(handle_unknown="ignore"))
    columns = ColumnTransformer([("priv", branch, ["s", "a"]), ("num", StandardScaler(), ["z"])])
    pipe = make_pipeline(columns, LogisticRegression()).fit(X, rng.integers(0, 2, 200))
    # before: "Pipeline is neither a sklearn_privacy mechanism nor a Pipeline holding one"
    with pytest.raises(TypeError, match="inside a ColumnTransformer: privacy scorers find"):
        make_leakage_scorer()(pipe, X)
    with pytest.raises(TypeError, match="neither a sklearn_privacy mechanism"):
        make_leakage_scorer()(make_pipeline(StandardScaler()).fit(X[["z"]]), X[["z"]])
