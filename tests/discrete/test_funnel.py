"""PrivacyFunnelTransformer and SubmodularFunnel as scikit-learn estimators."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_privacy.discrete import PrivacyFunnelTransformer, SubmodularFunnel
from sklearn_privacy.discrete._greedy import greedy_merge
from sklearn_privacy.discrete._submodular import iac_mdsf
from sklearn_privacy.information import (
    entropy,
    mutual_information,
    mutual_information_from_samples,
)
from sklearn_privacy.metrics import make_leakage_scorer


def _census_like(n=3000, seed=0):
    """S = (a, b) correlated with released (c, d, e); y depends on c and e."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = rng.integers(0, 2, n)
    c = (a + rng.integers(0, 2, n)) % 4
    d = np.where(rng.random(n) < 0.7, b, 1 - b)
    e = rng.integers(0, 3, n)
    y = ((c + e + rng.integers(0, 2, n)) % 2).astype(int)
    frame = pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e.astype(str)})
    return frame, y


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_funnel_matches_greedy_on_estimated_joint(objective):
    X, _ = _census_like()
    est = PrivacyFunnelTransformer(objective=objective, threshold=0.4, sensitive=["a", "b"]).fit(X)
    path = greedy_merge(est.joint_, objective=objective, threshold=est.threshold_)
    np.testing.assert_array_equal(est.labels_, path.labels)
    # leakage_ is the plug-in I(S;Y) of the training rows (no smoothing).
    Xt = est.transform(X)
    S = X[["a", "b"]].to_numpy()
    assert est.leakage_ == pytest.approx(mutual_information_from_samples(S, Xt), abs=1e-10)
    assert est.disclosure_ == pytest.approx(entropy(np.bincount(Xt[:, 0]) / len(X)), abs=1e-10)
    assert est.distortion_ == pytest.approx(est.entropy_ - est.disclosure_)
    assert est.distortion_measure_ == "log-loss"
    assert est.n_iter_ == len(path.merges) == est.alphabet_.n_symbols_ - est.n_clusters_
    if objective == "funnel":
        assert est.threshold_ == pytest.approx(0.4 * est.entropy_)
        assert est.disclosure_ >= est.threshold_ - 1e-12
    else:
        assert est.leakage_ >= est.threshold_ - 1e-12


def test_funnel_lower_curve_below_bottleneck_curve():
    X, _ = _census_like()
    low = PrivacyFunnelTransformer(threshold=0.5, sensitive=["a", "b"]).fit(X)
    # The bottleneck at the same disclosure leaks at least as much (paper Fig. 1).
    high = PrivacyFunnelTransformer(objective="bottleneck", threshold=0.0, sensitive=["a", "b"])
    with pytest.warns(UserWarning, match="this threshold merged all"):
        path = high.fit(X).path_
    k = np.flatnonzero(path.disclosure >= low.disclosure_)[-1]
    assert path.leakage[k] >= low.leakage_


def test_funnel_lagrangian_and_metadata_sensitive():
    X, _ = _census_like()
    S = X[["a", "b"]]
    est = PrivacyFunnelTransformer(lam=0.3).fit(X[["c", "d", "e"]], sensitive=S)
    rate = mutual_information(est.joint_) / entropy(est.joint_.sum(axis=0))
    assert est.multiplier_ == pytest.approx(0.3 * rate)
    path = greedy_merge(est.joint_, lam=est.multiplier_)
    np.testing.assert_array_equal(est.labels_, path.labels)
    assert est.threshold_ is None


def test_funnel_outputs_onehot_and_sample():
    X, _ = _census_like()
    kwargs = {"threshold": 0.5, "sensitive": ["a", "b"]}
    sym = PrivacyFunnelTransformer(**kwargs).fit(X)
    onehot = PrivacyFunnelTransformer(output="onehot", **kwargs).fit(X)
    Xs, Xo = sym.transform(X), onehot.transform(X)
    np.testing.assert_array_equal(Xo.argmax(axis=1), Xs[:, 0])
    assert Xo.shape[1] == sym.n_clusters_
    assert list(sym.get_feature_names_out()) == ["merged_symbol"]
    assert list(onehot.get_feature_names_out()) == [
        f"merged_symbol_{i}" for i in range(sym.n_clusters_)
    ]
    sample = PrivacyFunnelTransformer(output="sample", random_state=0, **kwargs).fit(X)
    big = pd.concat([X] * 5, ignore_index=True)
    Xr = sample.transform(big)
    assert list(sample.get_feature_names_out()) == ["c", "d", "e"]
    assert Xr.shape == (len(big), 3)
    # A sampled record lies in the cluster of the original record ...
    codes = sample.alphabet_.encode(Xr)
    np.testing.assert_array_equal(sample.labels_[codes], np.tile(Xs[:, 0], 5))
    # ... and is drawn from P(X | cluster).
    p_x = sample.joint_.sum(axis=0)
    cluster = sample.labels_
    expected = p_x / np.bincount(cluster, weights=p_x)[cluster]
    counts = np.bincount(codes, minlength=p_x.size)
    per_cluster = np.bincount(cluster[codes], minlength=sample.n_clusters_)[cluster]
    observed = counts / np.maximum(per_cluster, 1)
    assert np.max(np.abs(observed - expected)) < 0.05
    # each release draws afresh; the seed makes the sequence after fit reproducible
    first = sample.fit(X).transform(X)
    assert not np.array_equal(sample.transform(X), first)
    np.testing.assert_array_equal(sample.fit(X).transform(X), first)
    assert 0 < sample.mean_distortion(X[["c", "d", "e"]].to_numpy(), sample.transform(X)) < 1


def test_funnel_pandas_output():
    X, _ = _census_like(500)
    est = PrivacyFunnelTransformer(output="sample", sensitive=["a", "b"], random_state=0)
    out = est.set_output(transform="pandas").fit_transform(X)
    assert list(out.columns) == ["c", "d", "e"]


def test_funnel_errors():
    X, _ = _census_like(400)
    with pytest.raises(ValueError, match=r"threshold=1.5 with threshold_unit='relative'"):
        PrivacyFunnelTransformer(threshold=1.5, sensitive=["a", "b"]).fit(X)
    with pytest.raises(ValueError, match=r"outside \[0, H\(X\)\]"):
        PrivacyFunnelTransformer(threshold=50, threshold_unit="nats", sensitive=["a"]).fit(X)
    with pytest.raises(ValueError, match=r"outside \[0, I\(S;X\)\]"):
        PrivacyFunnelTransformer(
            objective="bottleneck", threshold=3.0, threshold_unit="nats", sensitive=["a"]
        ).fit(X)
    with pytest.raises(ValueError, match="threshold"):
        PrivacyFunnelTransformer(threshold=-0.1, sensitive=["a"]).fit(X)
    continuous = X.assign(c=np.random.default_rng(0).normal(size=len(X)))
    with pytest.raises(ValueError, match=r"column 'c' of X has 400 distinct values.*continuous"):
        PrivacyFunnelTransformer(sensitive=["a", "b"]).fit(continuous)
    est = PrivacyFunnelTransformer(sensitive=["a", "b"], handle_unknown="error").fit(X)
    unseen = X.head(2).assign(e="zzz")
    with pytest.raises(ValueError, match=r"unseen value\(s\) in column 'e'"):
        est.transform(unseen)
    near = PrivacyFunnelTransformer(sensitive=["a", "b"]).fit(X)  # handle_unknown="nearest"
    assert near.transform(unseen).shape == (2, 1)
    with pytest.raises(ValueError, match="lam"):
        SubmodularFunnel(lam=-0.5, sensitive=["a"]).fit(X)
    with pytest.raises(ValueError, match="lam"):
        PrivacyFunnelTransformer(lam=-0.5, sensitive=["a"]).fit(X)
    with pytest.raises(ValueError, match="objective"):
        SubmodularFunnel(objective="other", sensitive=["a"]).fit(X)
    with pytest.raises(ValueError, match="releases cluster labels"):
        est.mean_distortion(X, est.transform(X))


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_submodular_funnel_matches_iac_mdsf(objective):
    X, _ = _census_like()
    est = SubmodularFunnel(lam=2.0, objective=objective, sensitive=["a", "b"]).fit(X)
    rate = mutual_information(est.joint_) / entropy(est.joint_.sum(axis=0))
    assert est.multiplier_ == pytest.approx(2.0 * rate if objective == "funnel" else rate / 2.0)
    path = iac_mdsf(est.joint_, est.multiplier_, objective=objective)
    np.testing.assert_array_equal(est.labels_, path.labels)
    assert 1 < est.n_clusters_ < est.alphabet_.n_symbols_
    assert est.n_iter_ == path.n_solves >= path.n_iter
    S = X[["a", "b"]].to_numpy()
    assert est.leakage_ == pytest.approx(
        mutual_information_from_samples(S, est.transform(X)), abs=1e-10
    )


@pytest.mark.parametrize(
    "mechanism",
    [
        PrivacyFunnelTransformer(handle_unknown="nearest", sensitive=[0, 1]),
        SubmodularFunnel(handle_unknown="nearest", solver="mm", sensitive=[0, 1]),
    ],
)
def test_pipeline_grid_search_with_privacy_scorers(mechanism):
    X, y = _census_like(1500)
    X = X.to_numpy(dtype=object)
    pipe = make_pipeline(
        mechanism, OneHotEncoder(handle_unknown="ignore"), LogisticRegression(max_iter=500)
    )
    step = pipe.steps[0][0]
    knob = mechanism.get_tradeoff_knob().name
    search = GridSearchCV(
        pipe,
        {f"{step}__{knob}": {"threshold": [0.2, 0.9], "lam": [1.0, 3.0]}[knob]},
        scoring={"leakage": make_leakage_scorer(estimator="plugin"), "accuracy": "accuracy"},
        refit="accuracy",
        cv=3,
    )
    search.fit(X, y)
    leak = -search.cv_results_["mean_test_leakage"]
    acc = search.cv_results_["mean_test_accuracy"]
    assert np.all(leak >= 0) and np.all((acc > 0.3) & (acc <= 1))
    # Keeping more of X (the larger value of the knob) leaks at least as much.
    assert leak[1] >= leak[0] - 1e-9


def test_grid_search_with_routed_sensitive_metadata():
    from sklearn import config_context

    X, y = _census_like(1200)
    S = X[["a", "b"]].to_numpy()
    X = X[["c", "d", "e"]].to_numpy(dtype=object)
    with config_context(enable_metadata_routing=True):
        mechanism = PrivacyFunnelTransformer(handle_unknown="nearest").set_fit_request(
            sensitive=True
        )
        pipe = make_pipeline(
            mechanism, OneHotEncoder(handle_unknown="ignore"), LogisticRegression(max_iter=500)
        )
        search = GridSearchCV(
            pipe,
            {"privacyfunneltransformer__threshold": [0.2, 0.9]},
            scoring={"leakage": make_leakage_scorer(estimator="plugin"), "accuracy": "accuracy"},
            refit="accuracy",
            cv=3,
        )
        search.fit(X, y, sensitive=S)
    leak = -search.cv_results_["mean_test_leakage"]
    assert np.all(leak >= 0) and leak[1] >= leak[0] - 1e-9


# ----------------------------------------------------------------------------
# The shared vocabulary on the project's data sets (docs/user_guide/funnels.md, "Knobs").


@pytest.fixture(scope="module")
def adult(data_home):
    """Adult (age, education, relationship; S = sex): 166 symbols, I(S;X) / H(X) = 0.066."""
    from sklearn_privacy.datasets import fetch_adult

    frame = fetch_adult(data_home=data_home, discretize=True, as_frame=True).frame
    return frame[["age", "education", "relationship", "sex"]].astype(str)


@pytest.fixture(scope="module")
def heart(data_home):
    """Hungarian heart, X = (sex, cholesterol), S = (age, sex): 197 symbols, ratio 0.66."""
    from sklearn_privacy.datasets import fetch_heart_disease_hungarian

    frame = fetch_heart_disease_hungarian(data_home=data_home, as_frame=True, discretize=True)
    return frame.frame[["sex", "chol"]], frame.frame[["age", "sex"]]


def _fit_quietly(est, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return est.fit(*args, **kwargs)


KNOB_CASES = [
    (PrivacyFunnelTransformer, {}, "threshold", [0.7, 0.85, 0.98]),
    (PrivacyFunnelTransformer, {"lam": 1.0}, "lam", [0.1, 1.0, 10.0]),
    (PrivacyFunnelTransformer, {"objective": "bottleneck"}, "threshold", [0.2, 0.5, 0.9]),
    (PrivacyFunnelTransformer, {"objective": "bottleneck", "lam": 1.0}, "lam", [0.3, 1.0, 10.0]),
    (SubmodularFunnel, {"solver": "mm"}, "lam", [0.1, 1.0, 10.0]),
    (SubmodularFunnel, {"objective": "bottleneck", "solver": "mm"}, "lam", [0.3, 1.0, 10.0]),
]


@pytest.mark.parametrize(
    "cls, params, knob, values", KNOB_CASES, ids=[f"{c[0].__name__}-{c[1]}" for c in KNOB_CASES]
)
def test_knob_moves_leakage_in_its_declared_direction_on_adult(cls, params, knob, values, adult):
    est = cls(sensitive=["sex"], **params)
    declared = est.get_tradeoff_knob()
    assert (declared.name, declared.more_leakage_when) == (knob, "larger")
    fits = [_fit_quietly(clone(est).set_params(**{knob: v}), adult) for v in values]
    leakage = np.array([f.leakage_ for f in fits])
    disclosure = np.array([f.disclosure_ for f in fits])
    i_sx = fits[0].path_.leakage[0]
    # strictly, by more than 1 % of I(S;X) at each step: far beyond rounding
    assert np.all(np.diff(leakage) > 0.01 * i_sx), leakage / i_sx
    assert np.all(np.diff(disclosure) > 0), disclosure
    # and the declared default range spans a real trade-off
    low, high = (
        _fit_quietly(clone(est).set_params(**{knob: v}), adult).leakage_
        for v in (declared.low, declared.high)
    )
    assert low < 0.15 * i_sx and high > 0.3 * i_sx, (low / i_sx, high / i_sx)


@pytest.mark.parametrize("cls", [PrivacyFunnelTransformer, SubmodularFunnel])
def test_lam_moves_leakage_on_heart_too(cls, heart):
    X, S = heart
    values = [0.75, 1.0, 1.5]
    solver = {"solver": "mm"} if cls is SubmodularFunnel else {}
    fits = [_fit_quietly(cls(lam=v, **solver), X, sensitive=S) for v in values]
    leakage = np.array([f.leakage_ for f in fits])
    assert np.all(np.diff(leakage) > 0.01 * fits[0].path_.leakage[0]), leakage
    assert all(1 < f.n_clusters_ < f.alphabet_.n_symbols_ for f in fits)


@pytest.mark.parametrize("cls", [PrivacyFunnelTransformer, SubmodularFunnel])
def test_default_fit_on_adult_merges_something_and_keeps_something(cls, adult):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # neither a no-op nor a collapse
        est = cls(sensitive=["sex"]).fit(adult)
    assert 1 < est.n_clusters_ < est.alphabet_.n_symbols_
    i_sx = est.path_.leakage[0]
    # most of the leakage gone, more than half of H(X) kept
    assert est.leakage_ < 0.1 * i_sx and est.disclosure_ > 0.5 * est.entropy_
    assert isinstance(est.n_iter_, int) and est.n_iter_ >= 1


@pytest.mark.parametrize("objective", ["funnel", "bottleneck"])
def test_lam_means_the_same_in_both_funnels(objective, adult):
    kwargs = {"lam": 2.0, "objective": objective, "sensitive": ["sex"]}
    greedy = PrivacyFunnelTransformer(**kwargs).fit(adult)
    iac = SubmodularFunnel(solver="mm", **kwargs).fit(adult)
    rate = mutual_information(greedy.joint_) / greedy.entropy_
    expected = 2.0 * rate if objective == "funnel" else rate / 2.0
    assert greedy.multiplier_ == pytest.approx(expected)
    assert iac.multiplier_ == pytest.approx(expected)
    # the same Lagrangian: IAC never ends above the pairwise greedy's start
    sign = 1 if objective == "funnel" else -1
    for est in (greedy, iac):
        lagrangian = est.leakage_ - expected * est.disclosure_
        start = est.path_.leakage[0] - expected * est.path_.disclosure[0]
        assert sign * (lagrangian - start) < 0


@pytest.mark.parametrize(
    "est, match",
    [
        (PrivacyFunnelTransformer(threshold=1.0), r"this threshold merged nothing.*Lower thr"),
        (PrivacyFunnelTransformer(threshold=0.0), r"this threshold merged all.*Raise threshold"),
        (PrivacyFunnelTransformer(lam=1e3), r"this lam merged nothing.*Lower lam"),
        (PrivacyFunnelTransformer(lam=0.0, objective="bottleneck"), r"this lam merged all"),
        (SubmodularFunnel(lam=1e6), r"this lam merged nothing.*Lower lam"),
        (SubmodularFunnel(lam=0.05, objective="bottleneck"), r"this lam merged all"),
    ],
    ids=[
        "threshold-no-op",
        "threshold-collapse",
        "lam-no-op",
        "lam-collapse",
        "submodular-no-op",
        "submodular-collapse",
    ],
)
def test_no_op_and_collapse_warn_naming_the_knob(est, match, adult):
    with pytest.warns(UserWarning, match=match):
        est.set_params(sensitive=["sex"]).fit(adult)
    assert est.n_clusters_ in (1, est.alphabet_.n_symbols_)


@pytest.mark.parametrize("cls", [PrivacyFunnelTransformer, SubmodularFunnel])
def test_documented_ends_of_lam(cls, adult):
    # funnel: lam >= H(X) / I(S;X) merges nothing; bottleneck: lam <= I(S;X) / H(X) merges all
    fitted = PrivacyFunnelTransformer(sensitive=["sex"]).fit(adult)
    rate = mutual_information(fitted.joint_) / fitted.entropy_
    solver = {"solver": "mm"} if cls is SubmodularFunnel else {}
    with pytest.warns(UserWarning, match="merged nothing"):
        none = cls(lam=1.001 / rate, sensitive=["sex"], **solver).fit(adult)
    assert none.leakage_ == pytest.approx(none.path_.leakage[0])
    with pytest.warns(UserWarning, match="merged all"):
        cls(lam=0.999 * rate, objective="bottleneck", sensitive=["sex"], **solver).fit(adult)


@pytest.mark.parametrize("cls", [PrivacyFunnelTransformer, SubmodularFunnel])
def test_verbose_shows_a_progress_bar_on_stderr_only_when_set(cls, capsys):
    X, _ = _census_like(800)
    cls(sensitive=["a", "b"], verbose=1).fit(X)
    captured = capsys.readouterr()
    assert ("greedy merges" if cls is PrivacyFunnelTransformer else "IAC-MDSF") in captured.err
    assert captured.out == ""
    cls(sensitive=["a", "b"]).fit(X)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_feature_names_and_n_iter_of_both_funnels():
    X, _ = _census_like(800)
    for cls, params in [(PrivacyFunnelTransformer, {}), (SubmodularFunnel, {"solver": "mm"})]:
        kwargs = {"sensitive": ["a", "b"], **params}
        sym = cls(**kwargs).fit(X)
        assert list(sym.get_feature_names_out()) == ["merged_symbol"]
        onehot = cls(output="onehot", **kwargs).fit(X)
        names = [f"merged_symbol_{k}" for k in range(onehot.n_clusters_)]
        assert list(onehot.get_feature_names_out()) == names
        assert list(onehot.set_output(transform="pandas").transform(X).columns) == names
        sample = cls(output="sample", random_state=0, **kwargs).fit(X)
        assert list(sample.get_feature_names_out()) == ["c", "d", "e"]
        if cls is PrivacyFunnelTransformer:
            assert (
                sym.n_iter_ == len(sym.path_.merges) == sym.alphabet_.n_symbols_ - sym.n_clusters_
            )
        else:
            assert sym.n_iter_ == sym.path_.n_solves == sym.path_.n_iter + 1
        assert sym.distortion_measure_ == "log-loss"
    with pytest.warns(UserWarning, match="merged nothing"):
        none = PrivacyFunnelTransformer(threshold=1.0, sensitive=["a", "b"]).fit(X)
    assert none.n_iter_ == 0
    with pytest.warns(UserWarning, match="merged nothing"):
        none = SubmodularFunnel(lam=1e3, sensitive=["a", "b"]).fit(X)
    assert none.n_iter_ == 1  # one subset problem solved, no improving merge found


def test_types_of_fitted_attributes_are_public():
    import sklearn_privacy.discrete as discrete
    from sklearn_privacy.discrete import CategoricalAlphabet, IACPath, MergePath

    X, _ = _census_like(800)
    greedy = PrivacyFunnelTransformer(sensitive=["a", "b"]).fit(X)
    iac = SubmodularFunnel(solver="mm", sensitive=["a", "b"]).fit(X)
    assert isinstance(greedy.path_, MergePath) and isinstance(iac.path_, IACPath)
    assert isinstance(greedy.alphabet_, CategoricalAlphabet)
    for cls in (CategoricalAlphabet, IACPath, MergePath):
        assert cls.__name__ in discrete.__all__
        assert "Examples\n    --------" in cls.__doc__
        assert "from sklearn_privacy.discrete import" in cls.__doc__
        assert "._" not in cls.__doc__.split("Examples")[1]  # public imports only


def test_declared_knobs_follow_the_parameters():
    knob = PrivacyFunnelTransformer().get_tradeoff_knob()
    assert (knob.name, knob.low, knob.high, knob.log) == ("threshold", 0.7, 0.98, False)
    knob = PrivacyFunnelTransformer(objective="bottleneck").get_tradeoff_knob()
    assert (knob.name, knob.low, knob.high) == ("threshold", 0.1, 0.9)
    for est in (PrivacyFunnelTransformer(lam=1.0), SubmodularFunnel()):
        knob = est.get_tradeoff_knob()
        assert (knob.name, knob.more_leakage_when, knob.low, knob.high, knob.log) == (
            "lam",
            "larger",
            0.1,
            10.0,
            True,
        )
    # in nats, the relative range scaled by H(X) of the last fit
    X, _ = _census_like(800)
    est = PrivacyFunnelTransformer(threshold=1.0, threshold_unit="nats", sensitive=["a", "b"])
    knob = est.fit(X).get_tradeoff_knob()
    assert knob.low == pytest.approx(0.7 * est.entropy_)
    assert knob.high == pytest.approx(0.98 * est.entropy_)
