"""PrivacyFunnelTransformer and SubmodularFunnel as scikit-learn estimators."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_privacy.discrete import PrivacyFunnelTransformer, SubmodularFunnel
from sklearn_privacy.discrete._greedy import greedy_merge
from sklearn_privacy.discrete._submodular import iac_mdsf
from sklearn_privacy.information import entropy, mutual_information_from_samples
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


@pytest.mark.parametrize("method", ["funnel", "bottleneck"])
def test_funnel_matches_greedy_on_estimated_joint(method):
    X, _ = _census_like()
    est = PrivacyFunnelTransformer(method=method, threshold=0.4, sensitive=["a", "b"]).fit(X)
    path = greedy_merge(est.joint_, kind=method, threshold=est.threshold_)
    np.testing.assert_array_equal(est.mapping_, path.labels)
    # leakage_ is the plug-in I(S;Y) of the training rows (no smoothing).
    Xt = est.transform(X)
    S = X[["a", "b"]].to_numpy()
    assert est.leakage_ == pytest.approx(mutual_information_from_samples(S, Xt), abs=1e-10)
    assert est.disclosure_ == pytest.approx(entropy(np.bincount(Xt[:, 0]) / len(X)), abs=1e-10)
    assert est.distortion_ == pytest.approx(est.entropy_ - est.disclosure_)
    if method == "funnel":
        assert est.threshold_ == pytest.approx(0.4 * est.entropy_)
        assert est.disclosure_ >= est.threshold_ - 1e-12
    else:
        assert est.leakage_ >= est.threshold_ - 1e-12


def test_funnel_lower_curve_below_bottleneck_curve():
    X, _ = _census_like()
    low = PrivacyFunnelTransformer(threshold=0.5, sensitive=["a", "b"]).fit(X)
    # The bottleneck at the same disclosure leaks at least as much (paper Fig. 1).
    high = PrivacyFunnelTransformer(method="bottleneck", threshold=0.0, sensitive=["a", "b"])
    path = high.fit(X).path_
    k = np.flatnonzero(path.disclosure >= low.disclosure_)[-1]
    assert path.leakage[k] >= low.leakage_


def test_funnel_lagrangian_and_metadata_sensitive():
    X, _ = _census_like()
    S = X[["a", "b"]]
    est = PrivacyFunnelTransformer(lam=0.3).fit(X[["c", "d", "e"]], sensitive=S)
    path = greedy_merge(est.joint_, lam=0.3)
    np.testing.assert_array_equal(est.mapping_, path.labels)
    assert est.threshold_ is None


def test_funnel_outputs_onehot_and_sample():
    X, _ = _census_like()
    kwargs = {"threshold": 0.5, "sensitive": ["a", "b"]}
    sym = PrivacyFunnelTransformer(**kwargs).fit(X)
    onehot = PrivacyFunnelTransformer(output="onehot", **kwargs).fit(X)
    Xs, Xo = sym.transform(X), onehot.transform(X)
    np.testing.assert_array_equal(Xo.argmax(axis=1), Xs[:, 0])
    assert Xo.shape[1] == sym.n_clusters_
    assert list(onehot.get_feature_names_out()) == [
        f"privacyfunneltransformer{i}" for i in range(sym.n_clusters_)
    ]
    sample = PrivacyFunnelTransformer(output="sample", random_state=0, **kwargs).fit(X)
    big = pd.concat([X] * 5, ignore_index=True)
    Xr = sample.transform(big)
    assert list(sample.get_feature_names_out()) == ["c", "d", "e"]
    assert Xr.shape == (len(big), 3)
    # A sampled record lies in the cluster of the original record ...
    codes = sample.alphabet_.encode(Xr)
    np.testing.assert_array_equal(sample.mapping_[codes], np.tile(Xs[:, 0], 5))
    # ... and is drawn from P(X | cluster).
    p_x = sample.joint_.sum(axis=0)
    cluster = sample.mapping_
    expected = p_x / np.bincount(cluster, weights=p_x)[cluster]
    counts = np.bincount(codes, minlength=p_x.size)
    per_cluster = np.bincount(cluster[codes], minlength=sample.n_clusters_)[cluster]
    observed = counts / np.maximum(per_cluster, 1)
    assert np.max(np.abs(observed - expected)) < 0.05
    # each release draws afresh; the seed makes the sequence after fit reproducible
    first = sample.fit(X).transform(X)
    assert not np.array_equal(sample.transform(X), first)
    np.testing.assert_array_equal(sample.fit(X).transform(X), first)
    assert 0 < sample._distortion(X[["c", "d", "e"]].to_numpy(), sample.transform(X)) < 1


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
            method="bottleneck", threshold=3.0, threshold_unit="nats", sensitive=["a"]
        ).fit(X)
    with pytest.raises(ValueError, match="threshold"):
        PrivacyFunnelTransformer(threshold=-0.1, sensitive=["a"]).fit(X)
    continuous = X.assign(c=np.random.default_rng(0).normal(size=len(X)))
    with pytest.raises(ValueError, match=r"column 'c' of X has 400 distinct values.*continuous"):
        PrivacyFunnelTransformer(sensitive=["a", "b"]).fit(continuous)
    est = PrivacyFunnelTransformer(sensitive=["a", "b"]).fit(X)
    unseen = X.head(2).assign(e="zzz")
    with pytest.raises(ValueError, match=r"unseen value\(s\) in column 'e'"):
        est.transform(unseen)
    near = PrivacyFunnelTransformer(handle_unknown="nearest", sensitive=["a", "b"]).fit(X)
    assert near.transform(unseen).shape == (2, 1)
    with pytest.raises(ValueError, match="lam"):
        SubmodularFunnel(lam=1.5, sensitive=["a"]).fit(X)
    with pytest.raises(ValueError, match="releases cluster labels"):
        est._distortion(X, est.transform(X))


@pytest.mark.parametrize("problem", ["funnel", "bottleneck"])
def test_submodular_funnel_matches_iac_mdsf(problem):
    X, _ = _census_like()
    est = SubmodularFunnel(lam=0.4, problem=problem, sensitive=["a", "b"]).fit(X)
    path = iac_mdsf(est.joint_, 0.4, problem=problem)
    np.testing.assert_array_equal(est.mapping_, path.labels)
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
    knob = "threshold" if isinstance(mechanism, PrivacyFunnelTransformer) else "lam"
    search = GridSearchCV(
        pipe,
        {f"{step}__{knob}": [0.2, 0.9]},
        scoring={"leakage": make_leakage_scorer(estimator="plugin"), "accuracy": "accuracy"},
        refit="accuracy",
        cv=3,
    )
    search.fit(X, y)
    leak = -search.cv_results_["mean_test_leakage"]
    acc = search.cv_results_["mean_test_accuracy"]
    assert np.all(leak >= 0) and np.all((acc > 0.3) & (acc <= 1))
    # Keeping more of X (threshold 0.9, or lam 0.9) leaks at least as much.
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
