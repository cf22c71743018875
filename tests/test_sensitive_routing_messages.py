"""Where S is missing, the message says how S reaches the step through a search (issue 27).

scikit-learn's own error for ``GridSearchCV.fit(X, y, sensitive=S)`` without metadata
routing ("Pipeline.fit does not accept the sensitive parameter") never mentions routing;
the library cannot intercept it, but its own errors, a mechanism fitted without S and a
leakage scorer called without S, name the two lines that route S, following the routing
state (off, on but not requested, requested but not passed).
"""

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
