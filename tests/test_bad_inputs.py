"""Bad input gets an error that names the user's mistake and the remedy (31 cases).

Each case failed before with a raw or unclear error: narwhals' ``DuplicateError``,
numpy's ``DTypePromotionError``, "mixes types that cannot be ordered" for complex
values, torch's ``RuntimeError`` for a device string, "could not convert string
to float" from the kNN estimate, ``AttributeError: 'LogisticRegression' object
has no attribute 'transform'`` from a scorer, NaN from PPAN on a 1.7e308 row.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from sklearn_privacy import (
    ConvexPrivacyMapping,
    GaussianIBTransformer,
    L2CompressionDP,
    PPANTransformer,
    PrivacyFunnelTransformer,
    SubmodularFunnel,
)
from sklearn_privacy.gaussian import gaussian_information_bottleneck
from sklearn_privacy.metrics import leakage_score, make_adversary_scorer, make_leakage_scorer

N = 300
_rng = np.random.default_rng(0)
NUMERIC = pd.DataFrame(
    {"a": _rng.normal(size=N), "b": _rng.normal(size=N), "s": _rng.integers(0, 2, N)}
)
CATEGORICAL = NUMERIC.assign(
    a=_rng.integers(0, 3, N).astype(str), b=_rng.integers(0, 3, N).astype(str)
)

# DP fits here (bad-input checks fit on few rows) release under 1 % of the
# variance and warn "almost pure noise" (tested in tests/gaussian/test_l2.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore:.* leaves the release almost pure noise:UserWarning"
)


TARGET = _rng.normal(size=N)

NUMERIC_MECHANISMS = {
    "L2CompressionDP": lambda: L2CompressionDP(fit_data="public", sensitive=["s"]),
    "GaussianIBTransformer": lambda: GaussianIBTransformer(
        beta=50.0, fit_data="public", sensitive=["s"]
    ),
    "PPANTransformer": lambda: PPANTransformer(
        max_epochs=1, hidden_layer_sizes=(4,), sensitive=["s"]
    ),
}
CATEGORICAL_MECHANISMS = {
    "PrivacyFunnelTransformer": lambda: PrivacyFunnelTransformer(sensitive=["s"]),
    "SubmodularFunnel": lambda: SubmodularFunnel(sensitive=["s"]),
    "ConvexPrivacyMapping": lambda: ConvexPrivacyMapping(0.5, sensitive=["s"]),
}
ALL = {
    **{k: (v, NUMERIC) for k, v in NUMERIC_MECHANISMS.items()},
    **{k: (v, CATEGORICAL) for k, v in CATEGORICAL_MECHANISMS.items()},
}


def _fit(make, frame):
    return lambda: make().fit(frame, TARGET)


def _cases():
    cases = []
    for name, make in NUMERIC_MECHANISMS.items():
        frame = NUMERIC.assign(s=NUMERIC["s"].astype("Int64"))
        frame.loc[0, "s"] = pd.NA
        cases.append((f"{name}: pd.NA in S", _fit(make, frame), "sensitive columns .* NaN"))
    for name, (make, base) in ALL.items():
        frame = base.copy()
        frame.columns = ["a", "a", "s"]
        cases.append(
            (f"{name}: duplicate names", _fit(make, frame), r"duplicate column names \['a'\]")
        )
        frame = base.assign(d=pd.date_range("2020-01-01", periods=N))
        match = (
            "'d' of X holds datetimes" if base is NUMERIC else "column 'd' of X has 300 distinct"
        )
        cases.append((f"{name}: datetime column", _fit(make, frame), match))
        frame = base.assign(c=_rng.normal(size=N) + 1j)
        cases.append((f"{name}: complex column", _fit(make, frame), "'c' of X holds complex"))
    for device in ("mps", "banana", ""):
        make = lambda device=device: PPANTransformer(  # noqa: E731
            max_epochs=1, hidden_layer_sizes=(4,), sensitive=["s"], device=device
        )
        cases.append((f"PPAN device={device!r}", _fit(make, NUMERIC), f"device={device!r}"))
    cases.append(
        (
            "weights adding up to 1",
            lambda: L2CompressionDP().fit(
                NUMERIC[["a", "b"]], sample_weight=np.r_[np.full(N - 1, 1e-300), 1.0]
            ),
            "sample_weight adds up to 1",
        )
    )
    strings = np.array(["x", "y"] * (N // 2)).reshape(-1, 1)
    for estimator in ("knn", "gaussian"):
        cases.append(
            (
                f"{estimator} on a string release",
                lambda e=estimator: leakage_score(NUMERIC["s"], strings, estimator=e),
                f"estimator='{estimator}' reads the release as numbers.*'plugin'",
            )
        )
    model = make_pipeline(LogisticRegression()).fit(NUMERIC[["a", "b"]], NUMERIC["s"])
    for scorer in (make_leakage_scorer(), make_adversary_scorer()):
        cases.append(
            (
                f"{scorer!r} on a pipeline without a mechanism",
                lambda scorer=scorer: scorer(model, NUMERIC[["a", "b"]], sensitive=NUMERIC["s"]),
                "neither a sklearn_privacy mechanism nor a Pipeline holding one",
            )
        )
    ill = np.array([[1.0, 1.0 - 1e-17], [1.0 - 1e-17, 1.0]])
    cases.append(
        (
            "ill-conditioned covariance",
            lambda: gaussian_information_bottleneck(ill, [[0.5], [0.5]], [[1.0]], beta=8.0),
            "singular or too ill-conditioned for float64",
        )
    )
    huge = NUMERIC.assign(a=np.r_[1.7e308, NUMERIC["a"][1:]])
    cases.append(
        ("PPAN on a 1.7e308 row", _fit(NUMERIC_MECHANISMS["PPANTransformer"], huge), "float32")
    )
    return cases


CASES = _cases()


def test_the_battery_has_at_least_31_cases():
    assert len(CASES) >= 31


@pytest.mark.parametrize("name, call, match", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_an_error_naming_the_mistake(name, call, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError), match=match):
            call()


def test_a_dask_frame_whose_first_partition_is_empty_is_released():
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    frame = NUMERIC[["a", "b"]]
    parts = [frame.iloc[:0], frame.iloc[:150], frame.iloc[150:]]
    lazy = dd.from_delayed([dask.delayed(p) for p in parts], meta=frame.iloc[:0])
    mech = L2CompressionDP(fit_data="public").fit(lazy)
    assert mech.transform(lazy).compute().shape == (N, 2)


@pytest.mark.parametrize("frame", [False, True])
def test_text_given_to_a_numeric_mechanism_names_it_and_the_remedies(frame):
    X = pd.DataFrame({"age": ["25-34", "35-44"] * 50, "x": np.arange(100.0)})
    X = X if frame else X.to_numpy(dtype=object)
    for mech in (L2CompressionDP(), GaussianIBTransformer(fit_data="public")):
        name = type(mech).__name__
        # before: numpy's bare "could not convert string to float: '25-34'"
        with pytest.raises(ValueError, match=f"{name} releases numeric columns.*'25-34'.*OneHot"):
            mech.fit(X, np.arange(100) % 2)
