"""UCI Drug consumption (quantified): 1885 respondents, personality scores, 19 drugs."""

import numpy as np
import pandas as pd

from sklearn_privacy.datasets._base import (
    FETCH_CONSTRAINTS,
    FETCH_DOCS,
    RemoteFile,
    check_n_records,
    fetch_file,
    make_bunch,
    reading,
)
from sklearn_privacy.utils._docstring import Substitution
from sklearn_privacy.utils._sklearn_compat import validate_params

DRUG_CONSUMPTION = RemoteFile(
    "drug-consumption/drug_consumption.data",
    (
        (
            "https://archive.ics.uci.edu/ml/machine-learning-databases/00373/drug_consumption.data",
            None,
        ),
        (
            "https://archive.ics.uci.edu/static/public/373/drug+consumption+quantified.zip",
            "drug_consumption.data",
        ),
    ),
    sha256="90b8cf500b07ad455baf9fe1dc519998c75a1df6d87f6bd7069176f0826ea8c1",
)

_N_RECORDS = 1885
FEATURE_NAMES = [
    "Age", "Gender", "Education", "Country", "Ethnicity", "Nscore", "Escore", "Oscore",
    "Ascore", "Cscore", "Impulsive", "SS",
]  # fmt: skip
DRUG_NAMES = [
    "Alcohol", "Amphet", "Amyl", "Benzos", "Caff", "Cannabis", "Choc", "Coke", "Crack",
    "Ecstasy", "Heroin", "Ketamine", "Legalh", "LSD", "Meth", "Mushrooms", "Nicotine",
    "Semer", "VSA",
]  # fmt: skip
USAGE_CLASSES = ["CL0", "CL1", "CL2", "CL3", "CL4", "CL5", "CL6"]

# The quantified value of each category, from the UCI page of the data set; the
# order of each list is the order of the categories (ordered for Age and Education).
CATEGORIES = {
    "Age": {
        -0.95197: "18-24", -0.07854: "25-34", 0.49788: "35-44", 1.09449: "45-54",
        1.82213: "55-64", 2.59171: "65+",
    },
    "Gender": {0.48246: "Female", -0.48246: "Male"},
    "Education": {
        -2.43591: "Left school before 16 years",
        -1.73790: "Left school at 16 years",
        -1.43719: "Left school at 17 years",
        -1.22751: "Left school at 18 years",
        -0.61113: "Some college or university, no certificate or degree",
        -0.05921: "Professional certificate/ diploma",
        0.45468: "University degree",
        1.16365: "Masters degree",
        1.98437: "Doctorate degree",
    },
    "Country": {
        -0.09765: "Australia", 0.24923: "Canada", -0.46841: "New Zealand", -0.28519: "Other",
        0.21128: "Republic of Ireland", 0.96082: "UK", -0.57009: "USA",
    },
    "Ethnicity": {
        -0.50212: "Asian", -1.10702: "Black", 1.90725: "Mixed-Black/Asian",
        0.12600: "Mixed-White/Asian", -0.22166: "Mixed-White/Black", 0.11440: "Other",
        -0.31685: "White",
    },
}  # fmt: skip
_ORDERED = {"Age", "Education"}

DESCR = """\
.. _drug_consumption_dataset:

UCI Drug consumption (quantified) data set
------------------------------------------

An online survey of 1885 respondents (Fehrman, Egan & Mirkes, 2015): the Big
Five personality scores (NEO-FFI-R), impulsivity (BIS-11), sensation seeking
(ImpSS), demographics, and when they last used each of 19 drugs.

**Data set characteristics:**

:Number of instances: 1885 (ids 1-1888; 294, 299 and 742 are absent). The
    ids are returned as ``ids``.
:Features: 12 real-valued, quantified scores: ``Age``, ``Gender``,
    ``Education``, ``Country``, ``Ethnicity`` (categorical variables coded as
    real numbers by the authors), ``Nscore``, ``Escore``, ``Oscore``,
    ``Ascore``, ``Cscore`` (neuroticism, extraversion, openness,
    agreeableness, conscientiousness), ``Impulsive``, ``SS``.
:Targets: 19 drug columns ``Alcohol``, ``Amphet``, ``Amyl``, ``Benzos``,
    ``Caff``, ``Cannabis``, ``Choc``, ``Coke``, ``Crack``, ``Ecstasy``,
    ``Heroin``, ``Ketamine``, ``Legalh``, ``LSD``, ``Meth``, ``Mushrooms``,
    ``Nicotine``, ``Semer`` (a fictitious drug, to spot over-claimers),
    ``VSA``; each an ordered class ``CL0`` never used, ``CL1`` over a decade
    ago, ``CL2`` in the last decade, ``CL3`` last year, ``CL4`` last month,
    ``CL5`` last week, ``CL6`` last day.
:Missing values: none.

``decode=True`` replaces the five demographic scores by their categories, as
tabulated on the UCI page (also in the ``categories`` entry of the Bunch, a
dict ``{column: {score: category}}``): Age 18-24 (643), 25-34 (481), 35-44
(356), 45-54 (294), 55-64 (93), 65+ (18); Gender Female (942), Male (943);
Education in 9 levels from "Left school before 16 years" (28) to "Doctorate
degree" (89); Country Australia (54), Canada (87), New Zealand (5), Other
(118), Republic of Ireland (20), UK (1044), USA (557); Ethnicity Asian (26),
Black (33), Mixed-Black/Asian (3), Mixed-White/Asian (20), Mixed-White/Black
(20), Other (63), White (1720). Age and Education are ordered categoricals.

File: ``<data_home>/drug-consumption/drug_consumption.data`` (no header,
CRLF line ends), from
https://archive.ics.uci.edu/ml/machine-learning-databases/00373/drug_consumption.data
(fallback: the zip
https://archive.ics.uci.edu/static/public/373/drug+consumption+quantified.zip).

Licence CC BY 4.0. Cite: Fehrman, E., Egan, V. & Mirkes, E. (2015). Drug
consumption (quantified) [Dataset]. UCI Machine Learning Repository.
https://doi.org/10.24432/C5TC7S. Paper: arXiv:1506.06297.
"""


def _decode(frame, path):
    for name, mapping in CATEGORIES.items():
        scores = np.array(list(mapping))
        values = frame[name].to_numpy()
        # The file prints 5 decimals; match each value to the nearest tabulated score.
        nearest = np.abs(values[:, None] - scores[None, :]).argmin(axis=1)
        if np.any(np.abs(values - scores[nearest]) > 1e-4):
            raise ValueError(f"Column {name!r} of {path} has values not in the UCI table.")
        labels = np.array(list(mapping.values()), dtype=object)
        frame[name] = pd.Categorical(
            labels[nearest], categories=list(mapping.values()), ordered=name in _ORDERED
        )
    return frame


@validate_params(
    {
        **FETCH_CONSTRAINTS,
        "decode": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@Substitution(**FETCH_DOCS)
def fetch_drug_consumption(
    *,
    data_home=None,
    download_if_missing=True,
    return_X_y=False,
    as_frame=False,
    decode=False,
    verify_checksum=True,
):
    """Load the UCI Drug consumption (quantified) data set.

    Read more in the :doc:`User Guide </user_guide/datasets>`; the full
    description is in ``DESCR``.

    =================   =================================================
    Samples             1885
    Features            12 real-valued scores (5 decodable categoricals)
    Targets             19 drugs, each an ordered class ``CL0``..``CL6``
    =================   =================================================

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``drug-consumption/drug_consumption.data``; see
        :func:`get_data_home`.
    {download_if_missing}
    {return_X_y}
    as_frame : bool, default=False
        Return pandas objects (``data`` and ``target`` DataFrames, ``frame``)
        instead of ndarrays.
    decode : bool, default=False
        Replace the quantified ``Age``, ``Gender``, ``Education``, ``Country``
        and ``Ethnicity`` by their category names (pandas categoricals;
        strings in an object array when ``as_frame=False``).
    {verify_checksum}

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` of shape (1885, 12), ``target`` of shape (1885, 19) (strings
        ``"CL0"``..``"CL6"``), ``frame`` (or None), ``feature_names``,
        ``target_names`` (the 19 drug names), ``DESCR``, ``ids`` and
        ``categories`` (``{column: {score: category}}``).
    (data, target) : tuple if ``return_X_y`` is True

    {fetch_raises}

    See Also
    --------
    fetch_breast_cancer_wisconsin : The other data set of the thesis's DP experiments.
    get_data_home : Where the loader looks for its files.

    Examples
    --------
    >>> from sklearn_privacy.datasets import fetch_drug_consumption
    >>> drugs = fetch_drug_consumption(
    ...     data_home="path/to/data", as_frame=True, decode=True)  # doctest: +SKIP
    >>> drugs.frame["Gender"].value_counts().to_dict()  # doctest: +SKIP
    {'Male': 943, 'Female': 942}

    Offline, ``download_if_missing=False`` names the missing file and where to
    get it instead of downloading:

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as empty:  # doctest: +ELLIPSIS
    ...     fetch_drug_consumption(data_home=empty, download_if_missing=False)
    Traceback (most recent call last):
        ...
    FileNotFoundError: Data file not found: ...drug_consumption.data. ...
    """
    path = fetch_file(DRUG_CONSUMPTION, data_home, download_if_missing, verify_checksum)
    with reading(path, "comma-separated Drug consumption text"):
        frame = pd.read_csv(
            path,
            header=None,
            names=["ID", *FEATURE_NAMES, *DRUG_NAMES],
            keep_default_na=False,
            dtype={"ID": "int64"} | dict.fromkeys(FEATURE_NAMES, "float64"),
        )
    check_n_records(len(frame), _N_RECORDS, path)
    usage = pd.CategoricalDtype(USAGE_CLASSES, ordered=True)
    for name in DRUG_NAMES:
        column = frame[name].astype(str).str.strip()
        unknown = set(column.unique()) - set(USAGE_CLASSES)
        if unknown:
            raise ValueError(f"Column {name!r} of {path} has values {sorted(unknown)}.")
        frame[name] = column.astype(object).astype(usage)
    if decode:
        frame = _decode(frame, path)
    ids = frame.pop("ID").to_numpy()
    bunch = make_bunch(
        frame,
        FEATURE_NAMES,
        DRUG_NAMES,
        as_frame=as_frame,
        return_X_y=False,
        descr=DESCR,
        ids=ids,
        categories={name: dict(mapping) for name, mapping in CATEGORIES.items()},
    )
    if not as_frame:
        bunch.target = bunch.target.astype(object)
    return (bunch.data, bunch.target) if return_X_y else bunch
