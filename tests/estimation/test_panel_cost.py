"""The panel's cost bounds: a cap on the learned members' training rows, a cap on |S|."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

import sklearn_privacy.estimation._heldout as heldout
from sklearn_privacy import PPANTransformer
from sklearn_privacy.estimation._heldout import (
    FLOOR,
    CodeEncoder,
    TunedLogisticRegression,
    _target_encoder,
    adversary,
    heldout_folds,
)
from sklearn_privacy.estimation._panel import panel_members
from sklearn_privacy.estimation._release import read_release
from sklearn_privacy.information import encode_symbols, entropy_from_samples
from sklearn_privacy.metrics import leakage_score

FITTED_ROWS = []


class RecordingLogistic(LogisticRegression):
    """A logistic regression that records how many rows it was fitted on."""

    def fit(self, X, y, sample_weight=None):
        FITTED_ROWS.append(len(X))
        return super().fit(X, y, sample_weight=sample_weight)


def test_the_learned_members_fit_on_a_seeded_draw_of_capped_rows(monkeypatch):
    # the oracle: the same member fitted by hand, fold by fold, on a seeded draw of
    # 100 of the fold's training rows, and scored on every test row
    monkeypatch.setattr(heldout, "MAX_FIT_ROWS", 100)
    rng = np.random.default_rng(0)
    n = 400
    s = rng.integers(0, 2, n)
    t = np.c_[s + rng.normal(size=n), rng.normal(size=n)]
    estimate = leakage_score(s, t, estimator="logistic", return_details=True)
    folds, _ = heldout_folds(s, 5)
    model, features = adversary("logistic", read_release(t))
    proba = np.empty((n, 2))
    for train, test in folds:
        drawn = np.sort(np.random.default_rng(0).choice(train, 100, replace=False))
        proba[test] = clone(model).fit(features[drawn], s[drawn]).predict_proba(features[test])
    proba = (1 - FLOOR) * proba + FLOOR / 2
    expected = entropy_from_samples(s) + np.mean(np.log(proba[np.arange(n), s]))
    assert estimate.value == pytest.approx(max(expected, 0.0), abs=1e-9)
    # uncapped, the bound differs: the cap is what ran
    monkeypatch.setattr(heldout, "MAX_FIT_ROWS", None)
    assert leakage_score(s, t, estimator="logistic") != pytest.approx(estimate.value, abs=1e-6)


def test_the_users_adversaries_fit_on_every_training_row(monkeypatch):
    monkeypatch.setattr(heldout, "MAX_FIT_ROWS", 100)
    rng = np.random.default_rng(1)
    n = 400
    s = rng.integers(0, 2, n)
    t = rng.normal(size=(n, 2))
    FITTED_ROWS.clear()
    estimate = leakage_score(s, t, adversaries={"mine": RecordingLogistic()}, return_details=True)
    # tried on a slice of 200 rows first, then 4 of 5 folds of 400 rows, the cap ignored
    assert FITTED_ROWS == [200] + [320] * 5
    assert "100 training rows a fold" in estimate.folds  # the details say the members' cap


def test_above_200_values_of_s_the_costly_members_are_left_out_and_said(capsys):
    rng = np.random.default_rng(2)
    n = 1000
    s = rng.permutation(np.arange(n) % 250)  # each value 4 times
    t = np.c_[s + 0.1 * rng.normal(size=n), rng.normal(size=n)]
    estimate = leakage_score(
        s, t, adversaries={"mine": KNeighborsClassifier(3)}, return_details=True, verbose=1
    )
    assert sorted(estimate.estimates) == ["knn", "mine", "table"]
    assert sorted(estimate.left_out) == ["boosting", "logistic", "network", "pairs"]
    assert all("250 values of S" in why for why in estimate.left_out.values())
    printed = capsys.readouterr().out
    assert "[leakage] logistic: left out, 250 values of S" in printed
    assert estimate.value >= 3.0  # S is the first column, H(S) = 5.5: still read
    # at 200 values every member runs
    view = read_release(t)
    assert panel_members(200, view) == (["logistic", "boosting", "network", "pairs", "table"], {})
    assert panel_members(201, view)[0] == ["table"]


def test_a_release_of_few_rows_says_the_network_was_left_out():
    rng = np.random.default_rng(3)
    s = rng.integers(0, 2, 300)
    estimate = leakage_score(s, np.c_[s, rng.integers(0, 3, 300)], return_details=True)
    assert not {"network", "pairs"} & set(estimate.estimates)
    assert "few distinct rows" in estimate.left_out["network"]
    assert "few distinct rows" in estimate.left_out["pairs"]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_epochs=2
def test_ppan_with_1000_values_of_s_is_bounded():
    # the case: 1000 string classes of S (2 rows each); the fresh estimate's panel
    # runs the table and the kNN estimate only, and says so
    rng = np.random.default_rng(4)
    n = 2000
    labels = rng.integers(0, 1000, n).astype(str)
    X = rng.normal(size=(n, 5))
    mech = PPANTransformer(release="gaussian", max_epochs=2, random_state=0).fit(
        X, sensitive=labels
    )
    estimate = leakage_score(labels, mech.transform(X), return_details=True)
    assert sorted(estimate.estimates) == ["knn", "table"]
    assert "values of S (more than 200" in estimate.left_out["logistic"]
    assert mech.fresh_leakage_ == pytest.approx(0.0, abs=0.05)


def test_the_code_encoder_makes_the_features_of_scikit_learns_encoders():
    # the oracle: scikit-learn's encoders on the same codes; the test rows hold codes
    # never seen in fit (5, and 9 above every fitted code), which give zeros (or -1)
    rng = np.random.default_rng(0)
    train = np.c_[rng.choice([0, 1, 2, 4], 60), rng.choice([3, 7], 60)]
    test = np.c_[rng.choice([0, 4, 5, 9], 40), rng.choice([0, 3, 7, 8], 40)]
    ours = CodeEncoder().fit(train)
    theirs = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(train)
    np.testing.assert_array_equal(ours.transform(test), theirs.transform(test))
    np.testing.assert_array_equal(ours.transform(train), theirs.transform(train))
    np.testing.assert_array_equal(ours.get_feature_names_out(), theirs.get_feature_names_out())
    ours = CodeEncoder(ordinal=True).fit(train)
    theirs = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(train)
    np.testing.assert_array_equal(ours.transform(test), theirs.transform(test))


def test_the_release_is_read_once_into_the_codes_the_members_read():
    rng = np.random.default_rng(2)
    strings = np.c_[rng.choice(["b", "a", "c"], 300), rng.choice(["x", "y"], 300)]
    numbers = np.c_[rng.choice([10, -3, 7], 300), rng.normal(size=300)]
    for t in (strings, numbers):
        view = read_release(t)
        # the rows' codes are those of the rows themselves; each category column's codes
        # those of its values in sorted order; a number column as it is
        np.testing.assert_array_equal(view.rows, encode_symbols(t)[0])
        for j in view.one_hot:
            np.testing.assert_array_equal(view.coded[:, j], encode_symbols(t[:, j])[0])
    assert view.numbers.tolist() == [1]
    np.testing.assert_array_equal(view.coded[:, 1], numbers[:, 1])
    np.testing.assert_array_equal(view.coded[:, 0], np.searchsorted([-3, 7, 10], numbers[:, 0]))


def test_the_members_on_the_codes_equal_scikit_learns_encoders_on_the_strings(monkeypatch):
    # the oracle: the logistic and boosting members as they were, scikit-learn's encoders
    # reading the strings, passed as the user's adversaries (which read the release as
    # given); every training row for all, so the two read the same rows
    monkeypatch.setattr(heldout, "MAX_FIT_ROWS", None)
    rng = np.random.default_rng(3)
    n = 600
    s = rng.integers(0, 2, n)
    few = np.where(rng.random(n) < 0.7, s, 1 - s).astype(str)
    many = np.char.add("v", (rng.integers(0, 40, n) + 40 * s).astype(str))  # 80 values
    t = np.c_[few, many].astype(object)

    def on_strings(ordinal):
        few = (
            OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
            if ordinal
            else OneHotEncoder(handle_unknown="ignore")
        )
        parts = [("categories", few, [0]), ("codes", _target_encoder(), [1])]
        return ColumnTransformer(parts, sparse_threshold=0)

    boosting = HistGradientBoostingClassifier(
        max_bins=32, early_stopping=True, random_state=0, categorical_features=None
    )
    mine = {
        "logistic_on_strings": make_pipeline(on_strings(False), TunedLogisticRegression()),
        "boosting_on_strings": make_pipeline(on_strings(True), boosting),
    }
    estimates = leakage_score(s, t, adversaries=mine, return_details=True).estimates
    assert view_kinds(t) == ([0], [1])
    assert estimates["logistic"] == pytest.approx(estimates["logistic_on_strings"], abs=1e-9)
    assert estimates["boosting"] == pytest.approx(estimates["boosting_on_strings"], abs=1e-9)
    assert estimates["logistic"] > 0.3  # S is in the release: the test reads a real bound


def view_kinds(t):
    view = read_release(t)
    return view.one_hot.tolist(), view.target.tolist()
