"""Where S is missing, the message says how S reaches the step through a search (issue 27).

scikit-learn's own error for ``GridSearchCV.fit(X, y, sensitive=S)`` without metadata
routing ("Pipeline.fit does not accept the sensitive parameter") never mentions routing;
the library cannot intercept it, but its own errors, a mechanism fitted without S and a
leakage scorer called without S, name the two lines that route S, following the routing
state (off, on but not requested, requested but not passed).
"""

import warnings

import numpy as np
import pytest
import sklearn
from _mechanisms import RandomizedResponse
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_privacy import PrivacyFunnelTransformer
from sklearn_privacy.metrics import make_leakage_scorer

CV = KFold(3, shuffle=True, random_state=0)
PASS_S = "GridSearchCV(...).fit(X, y, sensitive=S), or cross_validate(..., params={'sensitive': S})"


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 300)
    X = np.column_stack([np.where(rng.random(300) < 0.8, s, 1 - s), rng.integers(0, 3, 300)])
    return X, s, rng.integers(0, 2, 300)


def _pipe(mechanism):
    return Pipeline(
        [
            ("privacy", mechanism),
            ("onehot", OneHotEncoder(handle_unknown="ignore")),
            ("clf", LogisticRegression()),
        ]
    )


def test_a_mechanism_without_s_names_the_two_routing_lines_when_routing_is_off(data):
    X, _, y = data
    with pytest.raises(ValueError) as info:
        GridSearchCV(_pipe(PrivacyFunnelTransformer()), {"clf__C": [1.0]}, cv=CV).fit(X, y)
    message = str(info.value)
    for words in (
        "needs the sensitive attribute S",
        "sensitive=[...]",
        "sklearn.set_config(enable_metadata_routing=True)",
        "PrivacyFunnelTransformer(...).set_fit_request(sensitive=True)",
        PASS_S,
    ):
        assert words in message


def test_with_routing_on_the_message_says_what_is_still_missing(routing, data):
    X, _, y = data
    with pytest.raises(ValueError, match="routing is on but S is not requested: call Priv"):
        PrivacyFunnelTransformer().fit(X, y)
    requested = PrivacyFunnelTransformer().set_fit_request(sensitive=True)
    with pytest.raises(ValueError) as info:
        cross_validate(_pipe(requested), X, y, cv=CV, error_score="raise")
    message = str(info.value)
    assert "routing is on and S is requested, but none reached it" in message
    assert PASS_S in message and "set_config" not in message
    # as the message says: S passed to the search reaches the mechanism
    scores = cross_validate(_pipe(requested), X, y, cv=CV, params={"sensitive": data[1]})
    assert np.all(np.isfinite(scores["test_score"]))


def test_a_scorer_without_s_names_its_score_request(data):
    X, s, y = data
    fitted = RandomizedResponse().fit(X[:, :1], sensitive=s)
    with pytest.raises(ValueError) as info:
        make_leakage_scorer()(fitted, X[:, :1])
    message = str(info.value)
    assert "scorer(estimator, X, y, sensitive=S)" in message
    assert "sklearn.set_config(enable_metadata_routing=True)" in message
    assert "set_score_request(sensitive=True)" in message and PASS_S in message
    with sklearn.config_context(enable_metadata_routing=True):
        mechanism = RandomizedResponse().set_fit_request(sensitive=True)
        search = GridSearchCV(
            _pipe(mechanism),
            {"privacy__flip": [0.0]},
            scoring=make_leakage_scorer().set_score_request(sensitive=False),
            cv=CV,
            error_score="raise",
        )
        with pytest.raises(ValueError, match="not requested: call make_leakage_scorer"):
            search.fit(X[:, :1], y, sensitive=s)


# issue 36: where the library can see that S is routed while routing is off, it says so
# before the search runs


def test_tradeoff_curve_refuses_routed_s_with_routing_off_before_any_fit(data, monkeypatch):
    from sklearn_privacy.model_selection import tradeoff_curve

    X, s, y = data
    fits = []
    with monkeypatch.context() as patch, pytest.raises(ValueError) as info:
        patch.setattr(PrivacyFunnelTransformer, "_fit_on_joint", fits.append)
        tradeoff_curve(
            _pipe(PrivacyFunnelTransformer()), X, y, param_range=[0.5, 0.9], cv=CV,
            scoring="accuracy", params={"sensitive": s},
        )  # fmt: skip
    message = str(info.value)
    assert "params ['sensitive'] while scikit-learn's metadata routing is off: every fit" in (
        message
    )
    for words in (
        "sklearn.set_config(enable_metadata_routing=True)",
        "PrivacyFunnelTransformer(...).set_fit_request(sensitive=True)",
        "sensitive=[...]",
    ):
        assert words in message
    assert fits == []  # said before the search ran
    # with routing on, as the message says, the same call runs
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = _pipe(PrivacyFunnelTransformer().set_fit_request(sensitive=True))
        result = tradeoff_curve(
            pipe, X, y, param_range=[0.5, 0.9], cv=CV, scoring="accuracy",
            params={"sensitive": s},
        )  # fmt: skip
    assert np.all(np.isfinite(result.test_scores["score"]))


def test_tradeoff_curve_refuses_s_its_privacy_scorers_would_not_get(data):
    from sklearn_privacy.model_selection import tradeoff_curve

    X, s, y = data
    mechanism = PrivacyFunnelTransformer()
    kwargs = dict(param_range=[0.5], cv=CV, params={"sensitive": s})
    with pytest.raises(ValueError, match="the privacy scorers would get no S"):
        tradeoff_curve(mechanism, X, y, scoring={"leak": make_leakage_scorer()}, **kwargs)

    # a mechanism alone takes fit(X, y, sensitive=S) with routing off: with no privacy
    # scorer, or with S among the columns, nothing is refused
    def fitted_leakage(estimator, X, y):
        return estimator.leakage_

    result = tradeoff_curve(mechanism, X, y, scoring=fitted_leakage, **kwargs)
    assert np.all(np.isfinite(result.test_scores["score"]))
    with_columns = PrivacyFunnelTransformer(sensitive=[0])
    result = tradeoff_curve(
        with_columns, np.column_stack([s, X]), y, param_range=[0.5], cv=CV,
        scoring=make_leakage_scorer(),
    )  # fmt: skip
    assert np.all(np.isfinite(result.test_scores["score"]))


def test_a_score_request_with_routing_off_says_how_to_turn_it_on():
    with pytest.raises(RuntimeError) as info:
        make_leakage_scorer().set_score_request(sensitive=True)
    message = str(info.value)
    assert "takes effect only with metadata routing on" in message
    assert "sklearn.set_config(enable_metadata_routing=True)" in message
    with sklearn.config_context(enable_metadata_routing=True):
        assert make_leakage_scorer().set_score_request(sensitive=False) is not None


@pytest.mark.parametrize("relabel", [False, True])
def test_s_routed_but_left_in_x_warns(data, relabel):
    # issue 46: S passed as metadata and also kept as a column of X was released merged with
    # the other columns in silence (leakage_ 0.166 instead of 0.066 on the user's data).
    from sklearn_privacy.exceptions import PrivacyLeakWarning

    X, s, _ = data
    copy = np.where(s == 1, "Male", "Female") if relabel else s
    with_s = np.column_stack([X.astype(str), copy.astype(str)])
    with pytest.warns(PrivacyLeakWarning, match=r"column 2 of X holds the sensitive attribute"):
        leaky = PrivacyFunnelTransformer(threshold=0.999).fit(with_s, sensitive=s)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clean = PrivacyFunnelTransformer(threshold=0.999).fit(X.astype(str), sensitive=s)
        # a column that only predicts S (80 % agreement) is the mechanism's job, not a mistake
        PrivacyFunnelTransformer(threshold=0.999).fit(with_s[:, :2], sensitive=s)
    assert leaky.leakage_ > clean.leakage_ + 0.1
