"""fetch_adult and discretize_adult against the README's counts and a plain csv parse."""

import csv

import numpy as np
import pandas as pd
import pytest

from sklearn_privacy.datasets import discretize_adult, fetch_adult

FEATURES = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country",
]  # fmt: skip
NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]


@pytest.fixture(scope="module")
def train(shared_data_home):
    return fetch_adult(subset="train", data_home=shared_data_home, as_frame=True)


@pytest.fixture(scope="module")
def test(shared_data_home):
    return fetch_adult(subset="test", data_home=shared_data_home, as_frame=True)


def _csv_rows(path, skip):
    """Independent parse: the csv module, fields stripped, empty lines dropped."""
    with open(path, newline="") as f:
        rows = [[v.strip() for v in row] for row in csv.reader(f) if row]
    return rows[skip:]


def test_adult_shapes_names_dtypes(train, test):
    assert train.frame.shape == (32561, 15)
    assert test.frame.shape == (16281, 15)
    for bunch in (train, test):
        assert bunch.feature_names == FEATURES
        assert bunch.target_names == ["income"]
        assert list(bunch.frame.columns) == FEATURES + ["income"]
        for name in FEATURES:
            expected = "int64" if name in NUMERIC else "category"
            assert str(bunch.frame[name].dtype) == expected, name
        assert list(bunch.target.cat.categories) == ["<=50K", ">50K"]
        assert "DESCR" in bunch and "adult" in bunch.DESCR.lower()
    # Both subsets use the same categories, so that they concatenate cleanly.
    for name in FEATURES:
        if name not in NUMERIC:
            assert list(train.frame[name].cat.categories) == list(test.frame[name].cat.categories)


def test_adult_label_and_missing_counts(train, test):
    assert train.target.value_counts().to_dict() == {"<=50K": 24720, ">50K": 7841}
    assert test.target.value_counts().to_dict() == {"<=50K": 12435, ">50K": 3846}
    assert int(train.frame.isna().any(axis=1).sum()) == 2399
    assert int(test.frame.isna().any(axis=1).sum()) == 1221
    missing = {k: v for k, v in train.frame.isna().sum().items() if v}
    assert missing == {"workclass": 1836, "occupation": 1843, "native-country": 583}
    missing = {k: v for k, v in test.frame.isna().sum().items() if v}
    assert missing == {"workclass": 963, "occupation": 966, "native-country": 274}


@pytest.mark.parametrize(
    "subset, file, skip", [("train", "adult.data", 0), ("test", "adult.test", 1)]
)
def test_adult_matches_plain_csv_parse(subset, file, skip, train, test, shared_data_home):
    rows = _csv_rows(shared_data_home / "adult" / file, skip)
    frame = (train if subset == "train" else test).frame
    assert len(rows) == len(frame)
    expected = pd.DataFrame(rows, columns=FEATURES + ["income"])
    for name in NUMERIC:
        np.testing.assert_array_equal(frame[name].to_numpy(), expected[name].astype(int))
    for name in FEATURES:
        if name not in NUMERIC:
            got = frame[name].astype(object).where(frame[name].notna(), "?")
            np.testing.assert_array_equal(got.to_numpy(), expected[name].to_numpy())
    # Test labels lose their trailing dot.
    labels = expected["income"].str.rstrip(".") if subset == "test" else expected["income"]
    np.testing.assert_array_equal(frame["income"].astype(object).to_numpy(), labels.to_numpy())


def test_adult_all_is_train_then_test(shared_data_home, train, test):
    both = fetch_adult(subset="all", data_home=shared_data_home, as_frame=True)
    assert both.frame.shape == (48842, 15)
    assert both.frame.iloc[:32561].equals(train.frame)
    assert both.frame.iloc[32561:].reset_index(drop=True).equals(test.frame)


def test_adult_numpy_and_return_X_y(shared_data_home, train):
    bunch = fetch_adult(subset="train", data_home=shared_data_home)
    assert bunch.frame is None
    assert bunch.data.shape == (32561, 14) and bunch.data.dtype == object
    assert bunch.target.shape == (32561,)
    assert set(bunch.target) == {"<=50K", ">50K"}
    assert bunch.data[0, 0] == 39 and bunch.data[0, 1] == "State-gov"
    X, y = fetch_adult(subset="test", data_home=shared_data_home, return_X_y=True, as_frame=True)
    assert X.shape == (16281, 14) and y.name == "income"


# ---------------------------------------------------------------- discretisation


def _age_bin_oracle(age):
    for label, low, high in [
        ("<25", -np.inf, 25), ("25-34", 25, 35), ("35-44", 35, 45), ("45-54", 45, 55),
        ("55-64", 55, 65), ("65-74", 65, 75), ("75+", 75, np.inf),
    ]:  # fmt: skip
        if low <= age < high:
            return label
    raise AssertionError(age)


def _education_oracle(education_num):
    # From the numeric rank, independent of the string mapping under test.
    if education_num <= 8:
        return "no-HS-diploma"
    if education_num == 9:
        return "HS-grad"
    if education_num <= 12:
        return "some-college"
    return "bachelors-or-more"


def test_discretize_adult_counts(shared_data_home, train):
    bunch = fetch_adult(subset="train", data_home=shared_data_home, as_frame=True, discretize=True)
    frame = bunch.frame
    assert frame["age"].cat.ordered and frame["education"].cat.ordered
    assert list(frame["age"].cat.categories) == [
        "<25", "25-34", "35-44", "45-54", "55-64", "65-74", "75+",
    ]  # fmt: skip
    assert frame["age"].value_counts(sort=False).tolist() == [
        5570, 8479, 8151, 5853, 3172, 1050, 286,
    ]  # fmt: skip
    assert frame["education"].value_counts(sort=False).to_dict() == {
        "no-HS-diploma": 4253,
        "HS-grad": 10501,
        "some-college": 9740,
        "bachelors-or-more": 8067,
    }
    # Element by element against the oracles.
    ages = [_age_bin_oracle(a) for a in train.frame["age"]]
    levels = [_education_oracle(e) for e in train.frame["education-num"]]
    assert frame["age"].astype(object).tolist() == ages
    assert frame["education"].astype(object).tolist() == levels
    # Everything else is untouched.
    others = [c for c in frame.columns if c not in ("age", "education")]
    pd.testing.assert_frame_equal(frame[others], train.frame[others])
    # The paper's alphabets: |X| for X = (age, sex, education), |S| for S = (age, income).
    assert len(frame[["age", "sex", "education"]].drop_duplicates()) == 7 * 2 * 4
    assert len(frame[["age", "income"]].drop_duplicates()) == 7 * 2


def test_discretize_adult_edges_and_errors():
    frame = pd.DataFrame(
        {
            "age": [17, 24, 25, 34, 35, 64, 65, 74, 75, 90],
            "education": ["12th", "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm",
                          "Bachelors", "Doctorate", "Preschool", "Masters", "Prof-school"],
        }
    )  # fmt: skip
    out = discretize_adult(frame)
    assert out["age"].astype(object).tolist() == [_age_bin_oracle(a) for a in frame["age"]]
    assert out["education"].astype(object).tolist() == [
        "no-HS-diploma", "HS-grad", "some-college", "some-college", "some-college",
        "bachelors-or-more", "bachelors-or-more", "no-HS-diploma", "bachelors-or-more",
        "bachelors-or-more",
    ]  # fmt: skip
    assert frame["age"].tolist()[0] == 17  # the input is not modified
    with pytest.raises(ValueError, match="'education'"):
        discretize_adult(frame[["age"]])
    with pytest.raises(ValueError, match="unknown values"):
        discretize_adult(frame.assign(education="PhD"))
    with pytest.raises(ValueError, match="missing"):
        discretize_adult(frame.assign(age=np.nan))
    with pytest.raises(ValueError, match="must hold numbers"):
        discretize_adult(discretize_adult(frame))
