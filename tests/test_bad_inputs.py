"""Bad input gets an error that names the user's mistake and the remedy (31 cases).

Each case failed before with a raw or unclear error: narwhals' ``DuplicateError``,
numpy's ``DTypePromotionError``, "mixes types that cannot be ordered" for complex
values, torch's ``RuntimeError`` for a device string, "could not convert string
to float" from the kNN estimate, ``AttributeError: 'LogisticRegression' object
has no attribute 'transform'`` from a scorer, NaN from PPAN on a 1.7e308 row.
"""

import re
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
    "ignore::sklearn_privacy.exceptions.DegenerateReleaseWarning"
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
            # A public fit: in a private one the total of the weights is private, and a
            # total of about one person gives a named fallback (tests/gaussian/test_weights.py).
            lambda: L2CompressionDP(fit_data="public").fit(
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


def _numbers_with_text(placeholder, *, as_csv):
    """NUMERIC with one cell of column 'a' replaced by a placeholder for a missing value.

    ``as_csv``: as ``pandas.read_csv`` reads it (every cell of the column a
    string); otherwise floats with one string in an object column.
    """
    column = NUMERIC["a"].astype(str) if as_csv else NUMERIC["a"].astype(object)
    column[5] = placeholder
    return NUMERIC.assign(a=column)


_STRAY = (
    r"column 'a' of X holds numbers with stray text: 1 of its 300 values is not a number "
    r"\(first {}, in row 5\)\. If it is a measurement, .*pandas\.to_numeric\(X\['a'\], "
    r"errors='coerce'\).*drop those rows"
)


@pytest.mark.parametrize("as_csv", [False, True], ids=["object floats", "csv strings"])
@pytest.mark.parametrize("placeholder", ["n/a", "?"])
@pytest.mark.parametrize("name", list(NUMERIC_MECHANISMS))
def test_numbers_with_stray_text_are_refused_naming_the_column(name, placeholder, as_csv):
    """Before: PPAN read the column as 300 labels and released it in code units (0.891 as
    155.3) with a generic warning; L2 and GIB refused it without naming the column."""
    frame = _numbers_with_text(placeholder, as_csv=as_csv)
    match = _STRAY.format(re.escape(repr(placeholder)))
    if name == "PPANTransformer":
        match += ".*pandas categorical column"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=match):
            NUMERIC_MECHANISMS[name]().fit(frame, TARGET)


@pytest.mark.parametrize("name", list(NUMERIC_MECHANISMS))
def test_numbers_with_stray_text_at_transform_name_the_column(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mech = NUMERIC_MECHANISMS[name]().fit(NUMERIC, TARGET)
    with pytest.raises(ValueError, match=_STRAY.format("'n/a'")):
        mech.transform(_numbers_with_text("n/a", as_csv=False))


def test_numbers_with_stray_text_in_an_array_are_named_by_position():
    X = _numbers_with_text("?", as_csv=False).to_numpy(dtype=object)
    make = lambda: PPANTransformer(max_epochs=1, hidden_layer_sizes=(4,), sensitive=[2])  # noqa: E731
    with pytest.raises(ValueError, match=r"column 0 of X holds numbers with stray text.*X\[:, 0\]"):
        make().fit(X)
    # a column of labels with a few numbers is labels, as before
    labels = pd.Series(np.array(["x", "y", "z"], dtype=object)[NUMERIC["s"]], dtype=object)
    labels[:3] = 7
    labels = NUMERIC.assign(a=labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mech = NUMERIC_MECHANISMS["PPANTransformer"]().fit(labels[["a", "s"]])
    assert list(mech.label_categories_) == ["a"]


@pytest.mark.parametrize("name", list(NUMERIC_MECHANISMS))
def test_a_series_as_x_gets_scikit_learns_message(name):
    """Before: PPAN raised TypeError: 'numpy.dtypes.Float64DType' object is not iterable."""
    expected = r"Expected a 2-dimensional container but got <class 'pandas\..*Series'> instead"
    for series in (NUMERIC["a"], NUMERIC["a"].astype(object), CATEGORICAL["a"]):
        mech = NUMERIC_MECHANISMS[name]().set_params(sensitive=None)
        with pytest.raises(ValueError, match=expected) as error:
            mech.fit(series, sensitive=NUMERIC["s"])
        # the very message of the other mechanisms (scikit-learn's validate_data)
        with pytest.raises(ValueError) as l2_error:
            L2CompressionDP(fit_data="public").fit(series, sensitive=NUMERIC["s"])
        assert str(error.value) == str(l2_error.value)


_S_MISSING = (
    r"{} contains missing values \(in row 3; None, NaN, pd\.NA or NaT\): S must be known for "
    r"every row\. Drop those rows or impute S"
)


@pytest.mark.parametrize("labels", [False, True], ids=["numbers", "labels"])
@pytest.mark.parametrize("as_columns", [True, False], ids=["columns of X", "metadata"])
@pytest.mark.parametrize("name", list(NUMERIC_MECHANISMS))
def test_pd_na_in_an_object_s_names_sensitive_and_the_remedy(name, as_columns, labels):
    """Before, as columns: TypeError: float() argument must be ... not 'NAType'."""
    s = (CATEGORICAL["a"] if labels else NUMERIC["s"]).astype(object)
    s[3] = pd.NA
    mech = NUMERIC_MECHANISMS[name]()  # L2 and GIB fit public data: S is read
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if as_columns:
            with pytest.raises(ValueError, match=_S_MISSING.format("the sensitive columns of X")):
                mech.fit(NUMERIC.assign(s=s), TARGET)
        else:
            with pytest.raises(ValueError, match=_S_MISSING.format("^sensitive")):
                mech.set_params(sensitive=None).fit(NUMERIC[["a", "b"]], TARGET, sensitive=s)


@pytest.mark.parametrize("name", list(NUMERIC_MECHANISMS))
def test_a_weight_that_drowns_every_other_row_is_refused(name):
    """Before: PPAN raised numpy's "cov contains NaN or infinite values"; a public GIB
    released values near 2e149 silently."""
    weight = np.ones(N)
    weight[0] = 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(
            ValueError,
            match=r"sample_weight gives one row the weight 1e\+300.*"
            "less than float64's resolution.*Check the weights",
        ):
            NUMERIC_MECHANISMS[name]().fit(NUMERIC, TARGET, sample_weight=weight)
