"""fetch_heart_disease_hungarian and discretize_heart_disease."""

import csv

import numpy as np
import pandas as pd
import pytest

from sklearn_privacy.datasets import discretize_heart_disease, fetch_heart_disease_hungarian

PROCESSED = [
    "age", "sex", "cp", "trestbps", "chol", "fbs", "restecg", "thalach", "exang",
    "oldpeak", "slope", "ca", "thal",
]  # fmt: skip
# 1-based positions of the processed columns in the 76-attribute record (heart-disease.names).
POSITIONS = [3, 4, 9, 10, 12, 16, 19, 32, 38, 40, 41, 44, 51]


@pytest.fixture(scope="module")
def processed(shared_data_home):
    return fetch_heart_disease_hungarian(data_home=shared_data_home, as_frame=True)


@pytest.fixture(scope="module")
def full(shared_data_home):
    return fetch_heart_disease_hungarian(data_home=shared_data_home, as_frame=True, full=True)


def test_processed_shape_names_dtypes(processed):
    assert processed.frame.shape == (294, 14)
    assert processed.feature_names == PROCESSED
    assert processed.target_names == ["num"]
    assert processed.ids is None
    dtypes = processed.frame.dtypes.astype(str).to_dict()
    assert {k for k, v in dtypes.items() if v == "int64"} == {"age", "sex", "cp", "num"}
    assert {k for k, v in dtypes.items() if v == "float64"} == set(PROCESSED) - {
        "age", "sex", "cp",
    }  # fmt: skip


def test_processed_counts(processed):
    assert processed.target.value_counts().to_dict() == {0: 188, 1: 106}
    missing = processed.frame.isna().sum()
    assert int(missing.sum()) == 782
    assert {k: v for k, v in missing.items() if v} == {
        "trestbps": 1, "chol": 23, "fbs": 8, "restecg": 1, "thalach": 1, "exang": 1,
        "slope": 190, "ca": 291, "thal": 266,
    }  # fmt: skip


def test_processed_matches_plain_csv_parse(processed, shared_data_home):
    with open(shared_data_home / "heart-disease" / "processed.hungarian.data", newline="") as f:
        rows = [row for row in csv.reader(f) if row]
    expected = np.array([[np.nan if v == "?" else float(v) for v in row] for row in rows])
    np.testing.assert_array_equal(processed.frame.to_numpy(dtype=float), expected)


def test_full_file(full, processed):
    assert full.data.shape == (294, 73)
    assert full.target.value_counts().sort_index().tolist() == [188, 37, 26, 28, 15]
    assert len(full.ids) == 294 and len(set(full.ids)) == 293
    assert {"id", "num", "name"}.isdisjoint(full.feature_names)
    assert full.feature_names[:3] == ["ccf", "age", "sex"]
    assert (full.data.dtypes == "float64").all()
    # -9 means missing: none is left, chol is missing for the same 23 patients.
    assert not (full.data == -9).any().any()
    assert int(full.data["chol"].isna().sum()) == 23
    # Same patients as the processed file (in another order): same multiset of
    # (age, sex, cp) and the processed class is num > 0.
    key = ["age", "sex", "cp"]
    a = full.frame[key].astype(int).value_counts().sort_index()
    b = processed.frame[key].value_counts().sort_index()
    assert a.to_dict() == b.to_dict()
    assert int((full.target > 0).sum()) == 106


def test_full_matches_token_oracle(full, shared_data_home):
    tokens = (shared_data_home / "heart-disease" / "hungarian.data").read_text().split()
    records, current = [], []
    for token in tokens:
        if token == "name":
            records.append(current)
            current = []
        else:
            current.append(float(token))
    assert current == [] and len(records) == 294 and {len(r) for r in records} == {75}
    values = np.array(records)
    values[values == -9] = np.nan
    np.testing.assert_array_equal(full.ids, values[:, 0])
    np.testing.assert_array_equal(full.target, values[:, 57])
    got = full.frame[[PROCESSED[i] for i in range(13)]].to_numpy()
    np.testing.assert_array_equal(got, values[:, [p - 1 for p in POSITIONS]])


def test_numpy_output(shared_data_home):
    X, y = fetch_heart_disease_hungarian(data_home=shared_data_home, return_X_y=True)
    assert X.shape == (294, 13) and X.dtype == np.float64
    assert y.shape == (294,) and y.dtype == np.int64


def test_discretize_reproduces_paper_alphabets(shared_data_home):
    bunch = fetch_heart_disease_hungarian(
        data_home=shared_data_home, as_frame=True, discretize=True
    )
    frame = bunch.frame
    for name in ("age", "sex", "chol"):
        assert frame[name].dtype == np.int64
    assert int((frame["chol"] == -1).sum()) == 23
    # Ding et al., Sec. IV-C: |X| = 197 for X = (sex, cholesterol).
    assert len(frame[["sex", "chol"]].drop_duplicates()) == 197
    assert len(frame[["age", "sex"]].drop_duplicates()) == 68
    assert len(frame[["age", "chol"]].drop_duplicates()) == 281
    full = fetch_heart_disease_hungarian(
        data_home=shared_data_home, as_frame=True, discretize=True, full=True
    )
    assert len(full.frame[["sex", "chol"]].drop_duplicates()) == 197


def test_discretize_with_cut_points_matches_oracle():
    rng = np.random.RandomState(0)
    chol = rng.uniform(80, 600, size=200).round()
    chol[::17] = np.nan
    frame = pd.DataFrame(
        {"age": rng.randint(28, 67, size=200), "sex": rng.randint(0, 2, size=200), "chol": chol}
    )
    cuts_age, cuts_chol = [40, 50, 60], [200, 240]
    out = discretize_heart_disease(frame, age_bins=cuts_age, chol_bins=cuts_chol)

    def oracle(value, cuts):
        if np.isnan(value):
            return -1
        return sum(value >= c for c in cuts)

    assert out["age"].tolist() == [oracle(v, cuts_age) for v in frame["age"].astype(float)]
    assert out["chol"].tolist() == [oracle(v, cuts_chol) for v in frame["chol"]]
    assert out["sex"].tolist() == frame["sex"].tolist()
    assert frame["chol"].isna().sum() == 12  # input untouched


def test_discretize_errors():
    frame = pd.DataFrame({"age": [30.0, np.nan], "sex": [1, 0], "chol": [200.0, 210.5]})
    with pytest.raises(ValueError, match="'chol'"):
        discretize_heart_disease(frame[["age", "sex"]])
    with pytest.raises(ValueError, match=r"frame\['age'\] has 1 missing"):
        discretize_heart_disease(frame)
    with pytest.raises(ValueError, match="non-integer"):
        discretize_heart_disease(frame.assign(age=30))
    with pytest.raises(ValueError, match="chol_bins"):
        discretize_heart_disease(frame.assign(age=30), chol_bins=[240, 200])
