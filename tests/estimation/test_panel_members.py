"""The panel's reach: interactions, codes, a continuous S, the user's adversaries, columns."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier

from sklearn_privacy import PPANTransformer
from sklearn_privacy.estimation._heldout import FLOOR, heldout_folds
from sklearn_privacy.estimation._network import PairProducts
from sklearn_privacy.information import entropy_from_samples
from sklearn_privacy.metrics import leakage_score, make_leakage_scorer


def test_a_user_adversary_is_a_held_out_bound_named_in_the_details():
    # the oracle: H(S) minus the cross-entropy of the same classifier, fitted fold by fold
    rng = np.random.default_rng(0)
    n = 300
    s = rng.integers(0, 3, n)
    t = np.c_[s + rng.normal(size=n), rng.normal(size=n)]
    mine = KNeighborsClassifier(15)
    estimate = leakage_score(s, t, adversaries={"mine": mine}, return_details=True)
    folds, _ = heldout_folds(s, 5)
    proba = np.empty((n, 3))
    for train, test in folds:
        proba[test] = clone(mine).fit(t[train], s[train]).predict_proba(t[test])
    proba = (1 - FLOOR) * proba + FLOOR / 3
    expected = entropy_from_samples(s) + np.mean(np.log(proba[np.arange(n), s]))
    assert estimate.estimates["mine"] == pytest.approx(expected, abs=1e-9)
    # a list is named by the classes; a classifier without probabilities is refused
    listed = leakage_score(s, t, adversaries=[LogisticRegression()], return_details=True)
    assert "user: LogisticRegression" in listed.estimates
    with pytest.raises(ValueError, match="predict_proba"):
        leakage_score(s, t, adversaries={"mine": object()})


def test_the_columns_that_leak_are_named():
    # the only leaking column is "b": it carries the panel's bound, the others about nothing
    rng = np.random.default_rng(1)
    n = 600
    s = rng.integers(0, 2, n)
    frame = pd.DataFrame(rng.normal(size=(n, 5)), columns=list("acdef"))
    frame.insert(1, "b", s + 0.3 * rng.normal(size=n))
    estimate = leakage_score(s, frame, return_details=True)
    assert next(iter(estimate.columns)) == "b"
    assert estimate.columns["b"] >= 0.8 * estimate.value
    assert max(v for k, v in estimate.columns.items() if k != "b") <= 0.02
    assert estimate.columns_by in estimate.estimates
    assert leakage_score(s, frame) == estimate.value  # the float needs no attribution


def test_a_sparse_release_reads_as_its_dense_twin():
    rng = np.random.default_rng(2)
    n = 400
    s = rng.integers(0, 2, n)
    noise = sp.random(n, 9, density=0.1, random_state=0).toarray()
    dense = np.c_[s * rng.uniform(0.5, 1, n), noise]
    assert leakage_score(s, sp.csr_matrix(dense)) == leakage_score(s, dense)
    assert leakage_score(s, sp.csr_matrix(dense)) > 0.4


def test_verbose_prints_a_line_per_member_with_its_time(capsys):
    rng = np.random.default_rng(3)
    s = rng.integers(0, 2, 200)
    t = rng.normal(size=(200, 2))
    leakage_score(s, t)
    assert capsys.readouterr().out == ""
    leakage_score(s, t, verbose=1, n_jobs=2)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "[leakage] knn",
        "[leakage] logistic",
        "[leakage] boosting",
        "[leakage] network",
        "[leakage] pairs",
        "[leakage] table",
    ]
    assert all(line.endswith(" s") for line in lines)


def test_the_network_learns_an_interaction():
    # S = a XOR b among noise columns: no member of a single column sees anything
    rng = np.random.default_rng(4)
    n = 800
    a, b = rng.integers(0, 2, (2, n))
    t = np.c_[a, b, rng.normal(size=(n, 8))]
    estimate = leakage_score(a ^ b, t, return_details=True)
    assert estimate.estimates["network"] >= 0.4
    assert estimate.estimates["logistic"] < 0.05


def test_a_product_of_two_columns_among_many_is_read():
    # S = sign(z3 z6) among 50 N(0,1): each column alone is independent of S, and the
    # network and early-stopped boosting miss the pair among 48 others (0.21 before the
    # pairs member); S is a function of the release, so I(S; T) = H(S)
    rng = np.random.default_rng(7)
    z = rng.normal(size=(800, 50))
    s = (z[:, 2] * z[:, 5] > 0).astype(int)
    estimate = leakage_score(s, z, return_details=True)
    assert estimate.estimator == "pairs"
    assert 0.45 <= estimate.value <= estimate.entropy
    assert set(list(estimate.columns)[:2]) == {"2", "5"}


def test_the_pairs_are_screened_by_their_correlation_with_s():
    # oracle: each pair's product correlated with each indicator of S by np.corrcoef, in a loop
    rng = np.random.default_rng(8)
    X = rng.normal(size=(300, 6))
    s = (X[:, 1] * X[:, 4] + 0.5 * X[:, 3] ** 2 + rng.normal(size=300) > 0.5).astype(int)
    s[::7] = 2  # three values of S
    scores = {}
    for i in range(6):
        for j in range(i, 6):
            product = X[:, i] * X[:, j]
            scores[i, j] = sum(np.corrcoef(product, s == value)[0, 1] ** 2 for value in range(3))
    expected = sorted(scores, key=scores.get, reverse=True)[:4]
    fitted = PairProducts(n_pairs=4).fit(X, s)
    assert [tuple(pair) for pair in fitted.pairs_] == expected
    Z = (X - X.mean(0)) / X.std(0)
    np.testing.assert_allclose(fitted.transform(X)[:, 0], np.prod(Z[:, list(expected[0])], 1))


def test_a_code_column_is_read_as_categories():
    # an integer code of 300 levels, S = 1 on 30 of them: not a number, not 32 bins
    rng = np.random.default_rng(5)
    n = 1500
    code = rng.integers(0, 300, n)
    s = np.isin(code, rng.choice(300, 30, replace=False)).astype(int)
    t = np.c_[code, rng.normal(size=n)]
    estimate = leakage_score(s, t, return_details=True)
    assert estimate.value >= 0.15  # H(S) = 0.325: most of it
    assert estimate.estimates["logistic"] >= 0.1


def test_a_nonlinear_function_of_a_continuous_s_is_seen():
    rng = np.random.default_rng(6)
    n = 500
    s = rng.normal(size=n)
    t = (s**2 + 0.01 * rng.normal(size=n)).reshape(-1, 1)
    assert leakage_score(s, t, estimator="gaussian") < 0.05  # what "auto" used to read
    estimate = leakage_score(s, t, return_details=True)
    assert estimate.value >= 0.5
    assert estimate.estimates["logistic (2 bins of S)"] <= np.log(2) + 1e-9


def _independent(kind, rng, n):
    if kind == "heavy-tailed":
        return rng.standard_t(1, size=(n, 5))
    if kind == "coded":
        return np.c_[rng.integers(0, 60, n), rng.normal(size=n)]
    if kind == "few-valued":
        return rng.choice(3, (n, 5), p=[0.8, 0.15, 0.05]) + 0.5
    if kind == "missing values":  # read as values since issue 47
        t = rng.normal(size=(n, 5))
        t[rng.random((n, 5)) < 0.2] = np.nan
        t[rng.random((n, 5)) < 0.05] = np.inf
        return t
    if kind == "atoms":  # 10 % of each column on 0 or 1: categories beside the numbers
        t = rng.normal(size=(n, 5))
        group = rng.random((n, 5)) < 0.1
        t[group] = rng.integers(0, 2, group.sum())
        return t
    if kind == "sparse":  # with its count of stored entries per row
        return sp.random(n, 20, density=0.1, random_state=rng, format="csr")
    return rng.normal(size=(n, 5))


@pytest.mark.parametrize(
    "kind",
    [
        "gaussian",
        "heavy-tailed",
        "coded",
        "few-valued",
        "continuous S",
        "missing values",
        "atoms",
        "sparse",
    ],
)
def test_independent_releases_still_read_about_zero(kind):
    # the light version of the benchmark's 10-seed sweep (bench_leakage_panel.py --independence)
    values = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        s = rng.normal(size=200) if kind == "continuous S" else rng.integers(0, 2, 200)
        values.append(leakage_score(s, _independent(kind, rng, 200)))
    assert np.mean(values) <= 0.05


def test_the_scorer_and_ppan_pass_the_users_adversaries_on(capsys):
    scorer = make_leakage_scorer(adversaries={"mine": LogisticRegression()}, verbose=1)
    assert "adversaries" in repr(scorer)
    rng = np.random.default_rng(7)
    n = 200
    s = rng.integers(0, 2, n)
    X = np.c_[rng.normal(size=(n, 2)), s]
    mech = PPANTransformer(
        sensitive=[2],
        max_epochs=1,
        release="gaussian",
        random_state=0,
        leakage_adversaries={"mine": LogisticRegression()},
        verbose=1,
    ).fit(X)
    assert "[leakage] mine" in capsys.readouterr().out
    scorer(mech, X)
    assert "[leakage scorer, call 1, 200 rows] mine: " in capsys.readouterr().out
