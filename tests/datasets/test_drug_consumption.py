"""fetch_drug_consumption, with and without decoded demographics."""

import csv

import numpy as np
import pytest

from sklearn_privacy.datasets import fetch_drug_consumption

FEATURES = [
    "Age", "Gender", "Education", "Country", "Ethnicity", "Nscore", "Escore", "Oscore",
    "Ascore", "Cscore", "Impulsive", "SS",
]  # fmt: skip
DRUGS = [
    "Alcohol", "Amphet", "Amyl", "Benzos", "Caff", "Cannabis", "Choc", "Coke", "Crack",
    "Ecstasy", "Heroin", "Ketamine", "Legalh", "LSD", "Meth", "Mushrooms", "Nicotine",
    "Semer", "VSA",
]  # fmt: skip

# Category counts of the UCI page of the data set.
UCI_COUNTS = {
    "Age": {"18-24": 643, "25-34": 481, "35-44": 356, "45-54": 294, "55-64": 93, "65+": 18},
    "Gender": {"Female": 942, "Male": 943},
    "Education": {
        "Left school before 16 years": 28,
        "Left school at 16 years": 99,
        "Left school at 17 years": 30,
        "Left school at 18 years": 100,
        "Some college or university, no certificate or degree": 506,
        "Professional certificate/ diploma": 270,
        "University degree": 480,
        "Masters degree": 283,
        "Doctorate degree": 89,
    },
    "Country": {
        "Australia": 54, "Canada": 87, "New Zealand": 5, "Other": 118,
        "Republic of Ireland": 20, "UK": 1044, "USA": 557,
    },
    "Ethnicity": {
        "Asian": 26, "Black": 33, "Mixed-Black/Asian": 3, "Mixed-White/Asian": 20,
        "Mixed-White/Black": 20, "Other": 63, "White": 1720,
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def scores(shared_data_home):
    return fetch_drug_consumption(data_home=shared_data_home, as_frame=True)


@pytest.fixture(scope="module")
def decoded(shared_data_home):
    return fetch_drug_consumption(data_home=shared_data_home, as_frame=True, decode=True)


@pytest.fixture(scope="module")
def rows(shared_data_home):
    path = shared_data_home / "drug-consumption" / "drug_consumption.data"
    assert b"\r\n" in path.read_bytes()[:1000]  # CRLF, as documented
    with open(path, newline="") as f:
        return [row for row in csv.reader(f) if row]


def test_shape_names_dtypes(scores):
    assert scores.frame.shape == (1885, 31)
    assert scores.feature_names == FEATURES
    assert scores.target_names == DRUGS
    assert (scores.data.dtypes == "float64").all()
    for name in DRUGS:
        dtype = scores.frame[name].dtype
        assert dtype.ordered and list(dtype.categories) == [f"CL{i}" for i in range(7)]
    assert scores.frame.isna().sum().sum() == 0


def test_ids(scores):
    ids = scores.ids
    assert len(ids) == 1885 and ids.min() == 1 and ids.max() == 1888
    assert sorted(set(range(1, 1889)) - set(ids.tolist())) == [294, 299, 742]


def test_matches_plain_csv_parse(scores, rows):
    assert len(rows) == 1885 and {len(r) for r in rows} == {32}
    np.testing.assert_array_equal(scores.ids, [int(r[0]) for r in rows])
    np.testing.assert_array_equal(
        scores.data.to_numpy(), np.array([[float(v) for v in r[1:13]] for r in rows])
    )
    np.testing.assert_array_equal(
        scores.target.astype(object).to_numpy(), np.array([r[13:] for r in rows], dtype=object)
    )
    assert scores.target["Alcohol"].value_counts(sort=False).tolist() == [
        34, 34, 68, 198, 287, 759, 505,
    ]  # fmt: skip


def test_decoded_counts_match_uci_page(decoded):
    for name, counts in UCI_COUNTS.items():
        column = decoded.frame[name]
        assert column.dtype == "category"
        assert column.value_counts().to_dict() == counts, name
        assert column.cat.ordered == (name in ("Age", "Education"))
    # Only the five demographics change.
    assert (decoded.data[FEATURES[5:]].dtypes == "float64").all()


def test_decoding_is_the_uci_table(scores, decoded):
    for name, mapping in decoded.categories.items():
        assert len(set(mapping.values())) == len(mapping)
        expected = [mapping[round(v, 5)] for v in scores.frame[name]]
        assert decoded.frame[name].astype(object).tolist() == expected
    assert decoded.categories["Ethnicity"][0.126] == "Mixed-White/Asian"
    assert decoded.categories["Gender"][0.48246] == "Female"


def test_numpy_output(shared_data_home):
    X, y = fetch_drug_consumption(data_home=shared_data_home, return_X_y=True)
    assert X.shape == (1885, 12) and X.dtype == np.float64
    assert y.shape == (1885, 19) and y.dtype == object and y[0, 0] == "CL5"
    X, _ = fetch_drug_consumption(data_home=shared_data_home, return_X_y=True, decode=True)
    assert X.dtype == object and X[0, 0] == "35-44" and X[0, 5] == pytest.approx(0.31287)
