"""fetch_breast_cancer_wisconsin (the original 699-sample data set)."""

import csv

import numpy as np
import pytest

from sklearn_privacy.datasets import fetch_breast_cancer_wisconsin

FEATURES = [
    "Clump Thickness", "Uniformity of Cell Size", "Uniformity of Cell Shape",
    "Marginal Adhesion", "Single Epithelial Cell Size", "Bare Nuclei", "Bland Chromatin",
    "Normal Nucleoli", "Mitoses",
]  # fmt: skip


@pytest.fixture(scope="module")
def bunch(shared_data_home):
    return fetch_breast_cancer_wisconsin(data_home=shared_data_home, as_frame=True)


def test_shape_names_dtypes(bunch):
    assert bunch.frame.shape == (699, 10)
    assert bunch.feature_names == FEATURES
    assert bunch.target_names == ["Class"]
    dtypes = bunch.data.dtypes.astype(str).to_dict()
    assert dtypes.pop("Bare Nuclei") == "float64"
    assert set(dtypes.values()) == {"int64"}
    assert list(bunch.target.cat.categories) == ["benign", "malignant"]


def test_counts(bunch):
    assert bunch.target.value_counts().to_dict() == {"benign": 458, "malignant": 241}
    missing = bunch.data.isna().sum()
    assert int(missing.sum()) == 16 and int(missing["Bare Nuclei"]) == 16
    values = bunch.data.to_numpy()
    observed = values[~np.isnan(values)]
    assert observed.min() == 1 and observed.max() == 10
    assert np.all(observed == np.round(observed))
    assert len(bunch.ids) == 699 and len(np.unique(bunch.ids)) == 645


def test_matches_plain_csv_parse(bunch, shared_data_home):
    path = shared_data_home / "breast-cancer-wisconsin" / "breast-cancer-wisconsin.data"
    with open(path, newline="") as f:
        rows = [row for row in csv.reader(f) if row]
    ids = [int(r[0]) for r in rows]
    features = np.array([[np.nan if v == "?" else float(v) for v in r[1:10]] for r in rows])
    labels = [{"2": "benign", "4": "malignant"}[r[10]] for r in rows]
    np.testing.assert_array_equal(bunch.ids, ids)
    np.testing.assert_array_equal(bunch.data.to_numpy(dtype=float), features)
    assert bunch.target.astype(object).tolist() == labels


def test_numpy_output(shared_data_home):
    bunch = fetch_breast_cancer_wisconsin(data_home=shared_data_home)
    assert bunch.frame is None
    assert bunch.data.shape == (699, 9) and bunch.data.dtype == np.float64
    assert int(np.isnan(bunch.data).sum()) == 16
    assert bunch.target.dtype == object and set(bunch.target) == {"benign", "malignant"}
    X, y = fetch_breast_cancer_wisconsin(data_home=shared_data_home, return_X_y=True)
    np.testing.assert_array_equal(X, bunch.data)
