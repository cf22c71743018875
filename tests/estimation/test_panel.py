"""The default leakage estimate: the largest of held-out bounds and corrected estimates."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from sklearn_privacy import L2CompressionDP
from sklearn_privacy.estimation._heldout import (
    HELDOUT_ADVERSARIES,
    SymbolTable,
    TunedLogisticRegression,
    heldout_bound,
    heldout_folds,
)
from sklearn_privacy.estimation._release import read_release
from sklearn_privacy.information import binary_entropy, entropy_from_samples, mutual_information
from sklearn_privacy.metrics import (
    LeakageEstimate,
    leakage_score,
    make_adversary_scorer,
    make_leakage_scorer,
)


def _gaussian_mixture_information(a):
    """I(S; T) for a fair bit S and T = a S + N(0, 1), by quadrature (the oracle)."""
    x = np.linspace(-12, 12 + a, 40001)
    phi = lambda m: np.exp(-((x - m) ** 2) / 2) / np.sqrt(2 * np.pi)  # noqa: E731
    mix = 0.5 * phi(0) + 0.5 * phi(a)
    return float(-np.trapezoid(mix * np.log(mix), x) - 0.5 * np.log(2 * np.pi * np.e))


def _wide_give_away(rng, n, d):
    s = rng.integers(0, 2, n)
    return s, np.c_[s + 0.1 * rng.normal(size=n), rng.normal(size=(n, d - 1))]


@pytest.mark.parametrize("d", [10, 100])
def test_a_wide_release_that_gives_s_away_is_caught(d):
    # the kNN estimate alone reads 0.03-0.1 nats here: its neighbourhoods are set by the noise
    s, release = _wide_give_away(np.random.default_rng(0), 2000, d)
    estimate = leakage_score(s, release, return_details=True)
    assert estimate.value >= 0.95 * entropy_from_samples(s)
    assert estimate.estimator in ("logistic", "boosting")
    if d == 100:
        assert estimate.estimates["knn"] < 0.15


def test_the_l2_pipeline_release_of_a_give_away_column_is_caught():
    # L2CompressionDP(epsilon=500, public) keeps the give-away column among 99 noise columns:
    # the leakage scorer read 0.08 nats where an adversary was right 93 % of the time
    rng = np.random.default_rng(0)
    n = 4000
    s = rng.integers(0, 2, n)
    X = np.c_[3 * s + 0.3 * rng.normal(size=n), rng.normal(size=(n, 99)), s]
    mech = L2CompressionDP(epsilon=500, fit_data="public", sensitive=[100], random_state=0)
    mech.fit(X[:2000])
    leakage = -make_leakage_scorer()(mech, X[2000:])
    accuracy = -make_adversary_scorer()(mech, X[2000:])
    assert accuracy > 0.9
    # Fano: an adversary right with probability 0.9 leaves I(S; U) >= H(S) - h(0.1) = 0.37
    h_s = entropy_from_samples(s[2000:])
    assert leakage >= h_s - binary_entropy(1 - accuracy)
    assert leakage >= 0.45


def test_a_gaussian_mixture_reads_its_closed_form():
    rng = np.random.default_rng(1)
    n, a = 4000, 2.0
    s = rng.integers(0, 2, n)
    t = (a * s + rng.normal(size=n)).reshape(-1, 1)
    truth = _gaussian_mixture_information(a)
    estimate = leakage_score(s, t, return_details=True)
    assert estimate.value == pytest.approx(truth, abs=0.03)
    # the held-out bounds are lower bounds: below the truth but for the sample's noise (the
    # mean of -log q over 4000 rows spreads by about 0.01)
    for name in ("logistic", "boosting", "table"):
        assert estimate.estimates[name] <= truth + 0.02
    assert estimate.estimates["logistic"] == pytest.approx(truth, abs=0.02)


def test_a_one_hot_release_reads_its_exact_information():
    # X uniform on 20 symbols given S = 1, on the first 10 given S = 0; released one-hot
    rng = np.random.default_rng(2)
    n, k = 4000, 20
    s = rng.integers(0, 2, n)
    x = np.where(s == 1, rng.integers(0, k, n), rng.integers(0, k // 2, n))
    joint = np.zeros((2, k))
    joint[1] = 0.5 / k
    joint[0, : k // 2] = 0.5 / (k // 2)
    truth = mutual_information(joint)  # 0.2157
    assert leakage_score(s, np.eye(k)[x]) == pytest.approx(truth, abs=0.02)


def test_a_high_cardinality_release_that_determines_s_is_caught_by_the_table():
    # 500 symbols, 4 rows each, S the parity of the symbol: no smooth function of the number
    # sees it; the table, and the members that read the code as categories (target-encoded)
    rng = np.random.default_rng(3)
    n = 2000
    s = rng.integers(0, 2, n)
    release = (2 * rng.integers(0, 250, n) + s).reshape(-1, 1)
    estimate = leakage_score(s, release, return_details=True)
    assert estimate.value >= 0.45
    assert estimate.estimates["table"] >= 0.45
    assert estimate.estimates["logistic"] >= 0.3
    # read as a number (floats: no code), the linear member sees nothing
    numbers = release + 1e-3 * rng.random(release.shape)
    assert leakage_score(s, numbers, estimator="logistic") < 0.05


@pytest.mark.parametrize(
    "kind", ["gaussian", "binary", "skewed", "500 symbols", "60 binary columns"]
)
def test_independent_releases_read_about_zero(kind):
    n = 2000 if kind == "60 binary columns" else 200
    makers = {
        "gaussian": lambda rng: rng.normal(size=(n, 10)),
        "binary": lambda rng: rng.integers(0, 2, (n, 10)),
        "skewed": lambda rng: rng.exponential(size=(n, 10)) ** 3,
        "500 symbols": lambda rng: rng.integers(0, 500, (n, 1)),
        # almost every row seen once: the plug-in estimate reads H(S) here
        "60 binary columns": lambda rng: rng.integers(0, 2, (n, 60)),
    }
    values = []
    for seed in range(5):
        rng = np.random.default_rng(seed)
        s = rng.integers(0, 2, n)
        release = makers[kind](rng)
        values.append(leakage_score(s, release))
    assert np.mean(values) <= 0.03, values
    if kind == "60 binary columns":
        assert leakage_score(s, release, estimator="plugin") > 0.6
        assert max(values) <= 0.01


def test_details_name_the_member_that_attains_the_value():
    s, release = _wide_give_away(np.random.default_rng(4), 500, 5)
    estimate = leakage_score(s, release, return_details=True)
    assert isinstance(estimate, LeakageEstimate)
    assert float(estimate) == estimate.value == leakage_score(s, release)
    assert set(estimate.estimates) == {"logistic", "boosting", "network", "pairs", "table", "knn"}
    assert estimate.estimates[estimate.estimator] == max(estimate.estimates.values())
    assert estimate.value == pytest.approx(min(max(estimate.estimates.values()), estimate.entropy))
    assert all(np.isfinite(v) and v >= 0 for v in estimate.spreads.values())
    assert "5 folds" in estimate.folds and "stratified" in estimate.folds
    assert "logistic=" in repr(estimate)
    # a discrete release of few symbols: the plug-in estimate joins, kNN does not, and the
    # network stays out (the table member bounds every function of so few rows)
    discrete = leakage_score(s, s.reshape(-1, 1) % 2, return_details=True)
    assert set(discrete.estimates) == {"logistic", "boosting", "table", "plugin"}
    # a single estimator: its own value
    one = leakage_score(s, release, estimator="logistic", return_details=True)
    assert one.estimates == {"logistic": pytest.approx(estimate.estimates["logistic"])}


def test_the_held_out_bound_is_cross_fitted():
    # H(S) - CE, each row scored by a model fitted on the other folds only
    rng = np.random.default_rng(5)
    n = 600
    s = rng.integers(0, 3, n)
    t = s[:, None] + rng.normal(size=(n, 2))
    folds, _ = heldout_folds(s, 5)
    assert all(np.intersect1d(train, test).size == 0 for train, test in folds)
    assert np.array_equal(np.sort(np.concatenate([test for _, test in folds])), np.arange(n))
    model, features = HELDOUT_ADVERSARIES["logistic"](read_release(t)), t
    proba = np.empty((n, 3))
    for train, test in folds:
        proba[test] = clone(model).fit(features[train], s[train]).predict_proba(features[test])
    proba = 0.999 * proba + 0.001 / 3
    h_s = entropy_from_samples(s)
    expected = h_s + np.mean(np.log(proba[np.arange(n), s]))
    bounds = heldout_bound("logistic", s, t, folds, h_s)
    sizes = np.array([test.size for _, test in folds])
    assert bounds @ sizes / n == pytest.approx(expected, abs=1e-9)
    # a bound on the training rows would not be one: a table of 600 distinct rows memorises S
    symbols = np.arange(n).reshape(-1, 1)
    table = SymbolTable().fit(symbols, s)
    in_sample = h_s + np.mean(np.log(table.predict_proba(symbols)[np.arange(n), s]))
    assert in_sample > 0.2
    assert leakage_score(s, rng.normal(size=(n, 1)), estimator="table") == 0.0


def test_the_logistic_adversary_picks_the_c_of_least_held_out_log_loss():
    rng = np.random.default_rng(7)
    n = 300
    s = rng.integers(0, 10, n)
    t = 0.5 * np.eye(10)[s] @ rng.normal(size=(10, 40)) + rng.normal(size=(n, 40))
    tuned = TunedLogisticRegression().fit(t, s)
    inner, held = next(StratifiedKFold(5, shuffle=True, random_state=0).split(t, s))
    losses = {
        C: log_loss(
            s[held],
            LogisticRegression(C=C, max_iter=1000).fit(t[inner], s[inner]).predict_proba(t[held]),
            labels=np.arange(10),
        )
        for C in tuned.Cs
    }
    assert tuned.C_ == min(losses, key=losses.get)
    assert tuned.C_ < 1.0  # 30 rows per class in 40 columns: C=1 is overconfident
    # a class seen fewer than 5 times: no inner split, C = 1
    assert TunedLogisticRegression().fit(t[:12], np.r_[np.zeros(8), np.ones(4)]).C_ == 1.0


def test_the_table_adversary_shrinks_towards_the_prior():
    table = SymbolTable(alpha=1.0).fit(np.array([[0], [0], [0], [1]]), np.array([1, 1, 0, 0]))
    prior = np.array([0.5, 0.5])
    expected = (np.array([1, 2]) + prior) / 4  # symbol 0: counts (1, 2), 3 rows
    np.testing.assert_allclose(table.predict_proba([[0]])[0], expected)
    np.testing.assert_allclose(table.predict_proba([[7]])[0], prior)  # never seen: the prior
    assert table.predict([[0], [1]]).tolist() == [1, 0]


def test_a_continuous_s_is_read_by_bins_and_knn_or_refused():
    rng = np.random.default_rng(6)
    s = rng.normal(size=500)
    t = (s + rng.normal(size=500)).reshape(-1, 1)
    # "auto": held-out bounds on quantile bins of S beside the continuous kNN estimate; the
    # Gaussian estimate (exact here: I = 0.5 log 2 = 0.347) by name
    estimate = leakage_score(s, t, return_details=True)
    assert {"knn", "logistic (2 bins of S)", "logistic (8 bins of S)"} <= set(estimate.estimates)
    assert estimate.value == pytest.approx(0.5 * np.log(2), abs=0.08)
    assert leakage_score(s, t, estimator="gaussian") == pytest.approx(0.5 * np.log(2), abs=0.05)
    for estimator in ("knn", "logistic", "boosting", "network", "pairs", "table"):
        with pytest.raises(ValueError, match="Bin S first"):
            leakage_score(s, t, estimator=estimator)
    # a float S of two values is a label
    labels = np.where(s > 0, 1.5, 0.5)
    assert leakage_score(labels, t, return_details=True).estimator != "gaussian"
