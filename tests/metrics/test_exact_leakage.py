"""Exact leakage of mechanisms with a finite release: no sampling, no estimator bias."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy
from sklearn.metrics import mutual_info_score
from sklearn.model_selection import KFold, cross_validate

from sklearn_privacy import (
    ConvexPrivacyMapping,
    GaussianIBTransformer,
    PrivacyFunnelTransformer,
    SubmodularFunnel,
)
from sklearn_privacy.metrics import exact_leakage_score, leakage_score, make_leakage_scorer


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    a = (s + rng.integers(0, 2, n) * (rng.random(n) < 0.4)) % 3
    b = rng.integers(0, 3, n) + s * (rng.random(n) < 0.3)
    return pd.DataFrame({"s": s, "a": a, "b": b})


def _closed_form(mech, frame):
    """I(S; U) from the fold's counts of (s, record) and the mapping's rows, by hand."""
    records = {tuple(r): i for i, r in enumerate(mech.input_records_.tolist())}
    joint = np.zeros((2, mech.mapping_.shape[1]))
    for (s, a, b), count in frame.value_counts(["s", "a", "b"]).items():
        joint[s] += count * mech.mapping_[records[(a, b)]]
    joint /= joint.sum()
    return entropy(joint.sum(axis=1)) + entropy(joint.sum(axis=0)) - entropy(joint.ravel())


def test_exact_leakage_of_the_convex_mapping_is_the_closed_form():
    frame = _data()
    train, test = frame.iloc[:2000], frame.iloc[2000:]
    mech = ConvexPrivacyMapping(0.3, sensitive=["s"]).fit(train)
    assert exact_leakage_score(mech, test) == pytest.approx(_closed_form(mech, test), abs=1e-12)
    # on the fit rows it is the fitted leakage
    assert exact_leakage_score(mech, train) == pytest.approx(mech.leakage_, abs=1e-9)


@pytest.mark.parametrize(
    "make", [PrivacyFunnelTransformer, SubmodularFunnel], ids=["greedy", "submodular"]
)
@pytest.mark.parametrize("output", ["symbol", "sample"])
def test_exact_leakage_of_a_merge_is_that_of_its_merged_symbol(make, output):
    frame = _data()
    mech = make(sensitive=["s"], output=output, random_state=np.random.default_rng(0)).fit(frame)
    symbols = mech.labels_[mech.alphabet_.encode(frame[["a", "b"]].to_numpy())]
    expected = mutual_info_score(frame["s"], symbols)
    assert exact_leakage_score(mech, frame) == pytest.approx(expected, abs=1e-12)


def test_the_scorer_uses_the_exact_leakage_where_it_can():
    frame = _data()
    mech = ConvexPrivacyMapping(0.3, sensitive=["s"]).fit(frame.iloc[:2000])
    test = frame.iloc[2000:]
    exact = exact_leakage_score(mech, test)
    assert -make_leakage_scorer()(mech, test) == pytest.approx(exact, abs=1e-15)
    assert -make_leakage_scorer(estimator="exact")(mech, test) == pytest.approx(exact, abs=1e-15)
    corrected = exact_leakage_score(mech, test, n_shuffles=10)
    assert -make_leakage_scorer(n_shuffles=10)(mech, test) == pytest.approx(corrected, abs=1e-15)
    # a sampled release estimated with the plug-in is biased upwards
    sampled = -make_leakage_scorer(estimator="plugin")(mech, test)
    assert sampled != exact
    # a Gaussian mechanism has no finite release: "exact" says so, "auto" estimates
    X = np.random.default_rng(0).normal(size=(500, 3))
    X[:, 2] = X[:, 1] + np.random.default_rng(1).normal(size=500) > 0  # a binary S
    gib = GaussianIBTransformer(beta=50.0, fit_data="public", sensitive=[2]).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="does not release finitely many values"):
        make_leakage_scorer(estimator="exact")(gib, X)
    assert -make_leakage_scorer()(gib, X) == pytest.approx(
        leakage_score(X[:, 2:], gib.transform(X)), abs=0.1
    )


def test_exact_leakage_removes_the_sampling_bias_of_a_search(data_home):
    """On Adult (S = sex), test folds report the convex mapping's fitted leakage."""
    from sklearn_privacy.datasets import fetch_adult

    adult = fetch_adult(data_home=data_home, discretize=True, as_frame=True)
    X = adult.frame[["age", "education", "relationship", "sex"]].astype(str)
    mech = ConvexPrivacyMapping(0.5, sensitive=["sex"], handle_unknown="nearest")
    cv = KFold(5, shuffle=True, random_state=0)
    scores = cross_validate(
        mech,
        X,
        cv=cv,
        scoring={"exact": make_leakage_scorer(), "plugin": make_leakage_scorer(estimator="plugin")},
        return_estimator=True,
    )
    fitted = np.mean([m.leakage_ for m in scores["estimator"]])
    assert -scores["test_exact"].mean() == pytest.approx(fitted, abs=0.002)
    # the plug-in estimate of one sampled release of the fold is biased upwards
    assert -scores["test_plugin"].mean() > -scores["test_exact"].mean()


# Five epochs keep the test fast; the identity checked holds for any trained mechanism, converged
# or not, so PPAN's warning that training stopped early is expected here (it is tested with PPAN).
@pytest.mark.filterwarnings(
    "ignore:PPANTransformer stopped at max_epochs:sklearn.exceptions.ConvergenceWarning"
)
@pytest.mark.filterwarnings("ignore:PPANTransformer kept the release almost equal:UserWarning")
def test_exact_leakage_of_a_categorical_ppan_is_its_fitted_leakage():
    from sklearn_privacy import PPANTransformer

    frame = _data(n=1000)
    mech = PPANTransformer(
        sensitive=["s"], max_epochs=5, release="categorical", random_state=0
    ).fit(frame)
    assert mech.release_ == "categorical"
    assert exact_leakage_score(mech, frame) == pytest.approx(mech.leakage_, abs=1e-6)


def test_the_shuffle_correction_subtracts_the_leakage_of_independent_s():
    """Against its definition: the mean exact leakage over permutations of S, by hand."""
    frame = _data(n=400)
    mech = ConvexPrivacyMapping(0.3, sensitive=["s"]).fit(_data(seed=1))
    rng = np.random.default_rng(5)
    null = []
    for _ in range(400):
        shuffled = frame.assign(s=rng.permutation(frame["s"].to_numpy()))
        null.append(_closed_form(mech, shuffled))
    expected = _closed_form(mech, frame) - np.mean(null)
    corrected = exact_leakage_score(mech, frame, n_shuffles=10)
    # ten seeded shuffles against four hundred: within the spread of a mean of ten
    assert corrected == pytest.approx(expected, abs=3 * np.std(null) / np.sqrt(10))
    assert exact_leakage_score(mech, frame, n_shuffles=10) == corrected  # seeded
    assert exact_leakage_score(mech, frame) == pytest.approx(_closed_form(mech, frame), abs=1e-12)


def test_the_shuffle_correction_reads_new_data_off_small_folds(data_home):
    """600-row Adult folds: the leakage on the rows is inflated several times, not corrected."""
    from sklearn_privacy.datasets import fetch_adult

    adult = fetch_adult(data_home=data_home, discretize=True, as_frame=True)
    X = adult.frame[["age", "education", "relationship", "sex"]].sample(frac=1, random_state=0)
    mech = ConvexPrivacyMapping(sensitive=["sex"], handle_unknown="nearest").fit(X.iloc[:3000])
    held_out = exact_leakage_score(mech, X.iloc[3000:])  # 29561 rows: about 0.015 nats
    folds = [X.iloc[3000 + 600 * i : 3600 + 600 * i] for i in range(8)]
    raw = np.mean([exact_leakage_score(mech, fold) for fold in folds])
    corrected = np.mean([exact_leakage_score(mech, fold, n_shuffles=10) for fold in folds])
    assert raw > 3 * held_out  # measured 0.067 against 0.015
    assert abs(corrected - held_out) < 0.01  # measured 0.021


@pytest.mark.filterwarnings("ignore:.*merged nothing:UserWarning")  # on purpose: the release is X
def test_the_shuffle_correction_subtracts_too_much_where_the_release_gives_s_away():
    """Why it is not the default: on small folds of a release equal to S it under-reports."""
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 2000)
    frame = pd.DataFrame({"s": s, "a": s, "b": rng.integers(0, 3, 2000)})
    mech = PrivacyFunnelTransformer(sensitive=["s"], threshold=1.0).fit(frame)  # merges nothing
    folds = [frame.iloc[20 * i : 20 * i + 20] for i in range(20)]
    folds = [f for f in folds if f["s"].nunique() == 2]
    raw = np.array([exact_leakage_score(mech, f) for f in folds])
    corrected = np.array([exact_leakage_score(mech, f, n_shuffles=10) for f in folds])
    truth = np.log(2)
    assert np.mean(raw) == pytest.approx(truth, abs=0.05)  # H(S) of the fold: about ln 2
    assert np.mean(corrected) < truth - 0.1  # the null's leakage subtracted from a true one
