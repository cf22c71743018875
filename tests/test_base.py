"""The shared mechanism contract, proved on the reference mechanisms of ``_mechanisms``."""

import numpy as np
import pandas as pd
import pytest
from _mechanisms import NetRelease, NoisyRelease, RandomizedResponse
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_privacy.utils import check_generator

_DRAWS_FROM_THE_POOL = {
    "check_sample_weight_equivalence_on_dense_data": (
        "the release draws rows from the training pool: a weighted pool and a repeated one "
        "are drawn from with different indices"
    )
}


@parametrize_with_checks(
    [
        NoisyRelease(sensitive=[0], random_state=0),
        RandomizedResponse(sensitive=[0], random_state=0),
    ],
    expected_failed_checks=lambda est: (
        _DRAWS_FROM_THE_POOL if isinstance(est, RandomizedResponse) else {}
    ),
)
def test_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {"s": rng.integers(0, 2, 40), "a": rng.normal(size=40), "b": rng.normal(size=40)}
    )


def test_sensitive_columns_are_not_released(frame):
    mech = NoisyRelease(scale=0.0, sensitive="s").fit(frame)
    assert mech.n_features_in_ == 3
    assert list(mech.get_feature_names_out()) == ["a", "b"]
    np.testing.assert_allclose(mech.transform(frame), frame[["a", "b"]].to_numpy())
    out = mech.set_output(transform="pandas").transform(frame)
    assert list(out.columns) == ["a", "b"]


def test_sensitive_as_metadata(frame):
    mech = NoisyRelease(scale=0.0).fit(frame[["a", "b"]], sensitive=frame["s"])
    assert mech.n_sensitive_ == 1
    assert mech.transform(frame[["a", "b"]]).shape == (40, 2)


def test_sensitive_indices_and_negative_index():
    X = np.random.default_rng(0).normal(size=(10, 3))
    X[:, 2] = np.arange(10) % 2
    mech = NoisyRelease(sensitive=-1).fit(X)
    np.testing.assert_array_equal(mech.sensitive_columns_, [2])
    np.testing.assert_array_equal(mech.release_columns_, [0, 1])


def test_every_transform_draws_fresh_noise(frame):
    mech = NoisyRelease(sensitive="s", random_state=3).fit(frame)
    first, second = mech.transform(frame), mech.transform(frame)
    assert not np.array_equal(first, second)
    # an int seed makes the sequence of releases after fit reproducible
    again = NoisyRelease(sensitive="s", random_state=3).fit(frame)
    np.testing.assert_array_equal(again.transform(frame), first)
    np.testing.assert_array_equal(again.transform(frame), second)
    # refitting restarts the sequence; None gives a new one
    np.testing.assert_array_equal(mech.fit(frame).transform(frame), first)
    fresh = NoisyRelease(sensitive="s").fit(frame)
    assert not np.array_equal(fresh.transform(frame), first)


def test_fit_and_release_streams_are_independent(frame):
    mech = NoisyRelease(sensitive="s", random_state=3).fit(frame)
    assert not hasattr(mech, "_fit_rng")  # the fit-time stream lives for the fit only
    fit_draws = np.random.default_rng(np.random.SeedSequence(3).spawn(2)[0]).standard_normal(1000)
    release_noise = (mech.transform(frame) - frame[["a", "b"]].to_numpy()).ravel()
    assert not np.isin(release_noise, fit_draws).any()
    parent = np.random.SeedSequence(3)
    fit_seed, release_seed = parent.spawn(2)
    np.testing.assert_array_equal(fit_draws, np.random.default_rng(fit_seed).standard_normal(1000))
    np.testing.assert_allclose(
        release_noise[:2], np.random.default_rng(release_seed).standard_normal(2)
    )


def test_generator_random_state_spawns_a_new_stream_each_fit(frame):
    gen = np.random.default_rng(0)
    mech = NoisyRelease(sensitive="s", random_state=gen)
    first = mech.fit(frame).transform(frame)
    second = mech.fit(frame).transform(frame)
    assert not np.array_equal(first, second)


@pytest.mark.parametrize(
    "kwargs, fit_kwargs, match",
    [
        ({"sensitive": "s"}, {"sensitive": np.arange(40) % 2}, "given twice"),
        ({}, {}, "needs the sensitive attribute"),
        ({"sensitive": "zz"}, {}, "'zz' is not a column"),
        ({"sensitive": 7}, {}, "out of range"),
        ({"sensitive": ["s", "s"]}, {}, "names a column twice"),
        ({"sensitive": ["s", "a", "b"]}, {}, "nothing is left to release"),
        ({}, {"sensitive": np.zeros(40)}, "single value"),
        ({}, {"sensitive": np.arange(39) % 2}, "39 rows but X has 40"),
        ({}, {"sensitive": np.r_[np.nan, np.arange(39) % 2]}, "NaN"),
    ],
)
def test_sensitive_errors_name_the_parameter(frame, kwargs, fit_kwargs, match):
    with pytest.raises(ValueError, match=match):
        NoisyRelease(**kwargs).fit(frame, **fit_kwargs)


def test_names_need_a_dataframe():
    with pytest.raises(ValueError, match="X has no column names"):
        NoisyRelease(sensitive="s").fit(np.ones((4, 2)) * np.arange(4)[:, None])


def test_nan_in_X_is_rejected(frame):
    bad = frame.copy()
    bad.loc[3, "a"] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        NoisyRelease(sensitive="s").fit(bad)


def test_invalid_parameter_is_named(frame):
    with pytest.raises(ValueError, match="'scale' parameter"):
        NoisyRelease(scale=-1, sensitive="s").fit(frame)


def test_categorical_input_kept_as_objects():
    X = np.array([["m", "a"], ["f", "b"], ["m", "b"], ["f", "a"]], dtype=object)
    mech = RandomizedResponse(flip=0.0, sensitive=[0], random_state=0).fit(X)
    assert mech.transform(X).tolist() == [["a"], ["b"], ["b"], ["a"]]


def test_metadata_routing_in_pipeline(routing, frame):
    y = (frame["a"] > 0).astype(int)
    pipe = Pipeline(
        [
            ("privacy", NoisyRelease(scale=0.1).set_fit_request(sensitive=True)),
            ("clf", LogisticRegression()),
        ]
    )
    pipe.fit(frame[["a", "b"]], y, sensitive=frame["s"])
    assert pipe.named_steps["privacy"].n_sensitive_ == 1


def test_check_generator():
    assert isinstance(check_generator(None), np.random.Generator)
    assert check_generator(3).random() == np.random.default_rng(3).random()
    gen = np.random.default_rng(0)
    assert check_generator(gen) is gen
    assert isinstance(check_generator(np.random.RandomState(0)), np.random.Generator)
    with pytest.raises(ValueError, match="random_state"):
        check_generator("seed")


def test_a_fitted_mechanism_releases_a_single_row(frame):
    mech = NoisyRelease(scale=0.0, sensitive="s").fit(frame)
    np.testing.assert_allclose(mech.transform(frame.iloc[:1]), frame[["a", "b"]].iloc[:1])
    with pytest.raises(ValueError, match="minimum of 2"):
        NoisyRelease(sensitive="s").fit(frame.iloc[:1])


def test_a_mechanism_without_a_knob_says_so():
    with pytest.raises(NotImplementedError, match="declares no trade-off knob"):
        RandomizedResponse().get_tradeoff_knob()


def test_a_mechanism_that_observes_s_refuses_s_as_metadata():
    from sklearn_privacy import ConvexPrivacyMapping

    X = np.c_[np.arange(40) % 3, np.arange(40) % 2]
    with pytest.raises(ValueError, match="observation='full' reads S at transform time"):
        ConvexPrivacyMapping(0.5, observation="full").fit(X, sensitive=np.arange(40) % 2)
    assert not NoisyRelease()._observes_sensitive()


def test_gib_feature_names_are_validated():
    from sklearn_privacy import GaussianIBTransformer

    X = np.random.default_rng(0).normal(size=(300, 3))
    gib = GaussianIBTransformer(beta=50.0, fit_data="public").fit(X, X[:, 0])
    with pytest.raises(ValueError, match="number of features"):
        gib.get_feature_names_out(["a", "b", "c", "d", "e"])


@pytest.mark.parametrize(
    "make", [NoisyRelease, RandomizedResponse, NetRelease], ids=lambda c: c.__name__
)
def test_the_test_doubles_pass_scikit_learns_parameter_validation_check(make):
    """The doubles that prove the contract follow it (scikit-learn's parameter-validation check)."""
    from sklearn.utils.estimator_checks import check_param_validation

    check_param_validation(make.__name__, make())
