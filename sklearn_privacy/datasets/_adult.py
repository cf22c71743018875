"""UCI Adult (US 1994 census income) and the privacy funnel's discretisation."""

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
from sklearn_privacy.utils._sklearn_compat import StrOptions, validate_params

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/"
_UCI_ZIP = "https://archive.ics.uci.edu/static/public/2/adult.zip"

ADULT_TRAIN = RemoteFile(
    "adult/adult.data",
    ((_UCI + "adult.data", None), (_UCI_ZIP, "adult.data")),
    sha256="5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
)
ADULT_TEST = RemoteFile(
    "adult/adult.test",
    ((_UCI + "adult.test", None), (_UCI_ZIP, "adult.test")),
    sha256="a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
)

_N_RECORDS = {"train": 32561, "test": 16281}

_NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]

# Category lists as in adult.names; education is ordered by education-num.
_CATEGORIES = {
    "workclass": [
        "Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
        "State-gov", "Without-pay", "Never-worked",
    ],
    "education": [
        "Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th",
        "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters",
        "Prof-school", "Doctorate",
    ],
    "marital-status": [
        "Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
        "Married-spouse-absent", "Married-AF-spouse",
    ],
    "occupation": [
        "Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
        "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
        "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
        "Armed-Forces",
    ],
    "relationship": [
        "Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried",
    ],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native-country": [
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China", "Cuba",
        "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico",
        "Portugal", "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan",
        "Haiti", "Columbia", "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand",
        "Yugoslavia", "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands",
    ],
    "income": ["<=50K", ">50K"],
}  # fmt: skip

FEATURE_NAMES = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country",
]  # fmt: skip
TARGET_NAME = "income"

# The paper states 7 age categories and 4 education levels but not the cut points;
# these are our choice (decades, and the usual school / college milestones).
AGE_BIN_EDGES = (25, 35, 45, 55, 65, 75)
AGE_BIN_LABELS = ("<25", "25-34", "35-44", "45-54", "55-64", "65-74", "75+")
EDUCATION_LEVELS = {
    "no-HS-diploma": ["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th"],
    "HS-grad": ["HS-grad"],
    "some-college": ["Some-college", "Assoc-voc", "Assoc-acdm"],
    "bachelors-or-more": ["Bachelors", "Masters", "Prof-school", "Doctorate"],
}

DESCR = """\
.. _adult_dataset:

UCI Adult (census income) data set
----------------------------------

Records of the 1994 US census (Becker & Kohavi, 1996), the "US 1994 Census
dataset" of the privacy funnel paper (Makhdoumi et al., 2014, Sec. IV-B).

**Data set characteristics:**

:Number of instances: 32561 in ``adult.data`` (subset ``"train"``), 16281 in
    ``adult.test`` (subset ``"test"``), 48842 for ``"all"`` (train rows first).
:Number of attributes: 14 features and the class ``income``.
:Missing values: ``?`` in the file, NaN here; only in ``workclass``,
    ``occupation`` and ``native-country``. 2399 train and 1221 test records
    have at least one.
:Classes: ``income`` is ``<=50K`` (train 24720, test 12435) or ``>50K``
    (train 7841, test 3846). The trailing ``.`` of the test labels is removed.

Features: ``age``, ``workclass``, ``fnlwgt`` (census final weight),
``education``, ``education-num`` (1-16, the rank of ``education``),
``marital-status``, ``occupation``, ``relationship``, ``race``, ``sex``,
``capital-gain``, ``capital-loss``, ``hours-per-week``, ``native-country``.
With ``as_frame=True`` the six numeric columns are int64 and the others are
pandas categoricals whose categories are those listed in ``adult.names``
(``education`` in the order of ``education-num``).

``discretize=True`` (or :func:`discretize_adult`) replaces ``age`` by 7
ordered bins (``<25, 25-34, 35-44, 45-54, 55-64, 65-74, 75+``) and
``education`` by 4 ordered levels (``no-HS-diploma`` = Preschool to 12th,
``HS-grad``, ``some-college`` = Some-college, Assoc-voc, Assoc-acdm,
``bachelors-or-more`` = Bachelors, Masters, Prof-school, Doctorate). The
paper gives only the numbers of categories (7 and 4), not the cut points:
these are this library's choice.

Files: ``<data_home>/adult/adult.data`` and ``adult.test``, from
https://archive.ics.uci.edu/ml/machine-learning-databases/adult/ (fallback:
the zip https://archive.ics.uci.edu/static/public/2/adult.zip). The test file
starts with the banner line ``|1x3 Cross validator``, which is skipped.

Licence CC BY 4.0. Cite: Becker, B. & Kohavi, R. (1996). Adult [Dataset]. UCI
Machine Learning Repository. https://doi.org/10.24432/C5XW20
"""


def _read_adult(path, subset):
    with reading(path, "comma-separated Adult text"):
        frame = pd.read_csv(
            path,
            header=None,
            names=FEATURE_NAMES + [TARGET_NAME],
            skipinitialspace=True,
            na_values="?",
            keep_default_na=False,
            skiprows=1 if subset == "test" else 0,
            dtype={name: "string" for name in _CATEGORIES} | {name: "int64" for name in _NUMERIC},
        )
    check_n_records(len(frame), _N_RECORDS[subset], path)
    if subset == "test":
        frame[TARGET_NAME] = frame[TARGET_NAME].str.removesuffix(".")
    return frame


def _to_categorical(frame, path):
    for name, categories in _CATEGORIES.items():
        column = frame[name]
        unknown = set(column.dropna().unique()) - set(categories)
        if unknown:
            raise ValueError(f"Column {name!r} of {path} has unknown values {sorted(unknown)}.")
        frame[name] = pd.Categorical(column.astype(object), categories=categories)
    return frame


@validate_params(
    {"frame": [pd.DataFrame]},
    prefer_skip_nested_validation=True,
)
def discretize_adult(frame):
    """Coarsen Adult's ``age`` and ``education`` as in the privacy funnel paper.

    Makhdoumi et al. (2014, Sec. IV-B) use age in 7 categories and education in
    4 levels; they do not give the cut points, so this library fixes them:

    - ``age``: ``<25``, ``25-34``, ``35-44``, ``45-54``, ``55-64``, ``65-74``,
      ``75+`` (left-closed decades);
    - ``education``: ``no-HS-diploma`` (Preschool to 12th), ``HS-grad``,
      ``some-college`` (Some-college, Assoc-voc, Assoc-acdm),
      ``bachelors-or-more`` (Bachelors, Masters, Prof-school, Doctorate).

    Parameters
    ----------
    frame : pandas.DataFrame
        Holds an integer ``age`` column and a string or categorical
        ``education`` column with Adult's 16 education values; other columns
        are copied unchanged (``education-num`` included).

    Returns
    -------
    pandas.DataFrame
        A copy where ``age`` and ``education`` are ordered categoricals.

    See Also
    --------
    fetch_adult : Loads the frame this function coarsens.
    sklearn_privacy.discrete.PrivacyFunnelTransformer : The greedy funnel of the paper.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_privacy.datasets import discretize_adult
    >>> df = pd.DataFrame({"age": [17, 30, 80],
    ...                    "education": ["9th", "Masters", "HS-grad"]})
    >>> discretize_adult(df)["age"].tolist()
    ['<25', '25-34', '75+']
    >>> discretize_adult(df)["education"].tolist()
    ['no-HS-diploma', 'bachelors-or-more', 'HS-grad']
    """
    for name in ("age", "education"):
        if name not in frame.columns:
            raise ValueError(f"frame has no column {name!r}; it needs 'age' and 'education'.")
    try:
        age = pd.to_numeric(frame["age"].astype(object), errors="raise")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"frame['age'] must hold numbers (years): {exc}") from exc
    if age.isna().any():
        raise ValueError("frame['age'] has missing values.")
    out = frame.copy()
    edges = [-np.inf, *AGE_BIN_EDGES, np.inf]
    out["age"] = pd.cut(age, edges, right=False, labels=list(AGE_BIN_LABELS), ordered=True)
    level_of = {value: level for level, values in EDUCATION_LEVELS.items() for value in values}
    education = frame["education"].astype(object)
    unknown = set(education.dropna().unique()) - set(level_of)
    if unknown:
        raise ValueError(f"frame['education'] has unknown values {sorted(map(str, unknown))}.")
    out["education"] = pd.Categorical(
        education.map(level_of), categories=list(EDUCATION_LEVELS), ordered=True
    )
    return out


@validate_params(
    {
        **FETCH_CONSTRAINTS,
        "subset": [StrOptions({"train", "test", "all"})],
        "discretize": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@Substitution(**FETCH_DOCS)
def fetch_adult(
    *,
    subset="train",
    data_home=None,
    download_if_missing=True,
    return_X_y=False,
    as_frame=False,
    discretize=False,
    verify_checksum=True,
):
    """Load the UCI Adult (census income) data set.

    Read more in the :doc:`User Guide </user_guide/datasets>`; the full
    description is in ``DESCR``.

    =================   ===========================================
    Samples             32561 (train), 16281 (test), 48842 (all)
    Features            14 (6 integer, 8 categorical)
    Classes             2 (``<=50K``, ``>50K``)
    =================   ===========================================

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        ``"train"`` is ``adult.data``, ``"test"`` is ``adult.test``, ``"all"``
        both, train rows first.
    data_home : str or path-like, default=None
        Folder holding ``adult/adult.data`` and ``adult/adult.test``; see
        :func:`get_data_home`.
    {download_if_missing}
    {return_X_y}
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame (categorical columns as pandas
        categoricals), ``target`` a Series and ``frame`` both together. If
        False, ``data`` is an object ndarray and ``target`` an ndarray of
        strings.
    discretize : bool, default=False
        Apply :func:`discretize_adult` (age in 7 bins, education in 4 levels).
    {verify_checksum}

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` of shape (n_samples, 14), ``target`` of shape (n_samples,),
        ``frame`` (or None), ``feature_names``, ``target_names``
        (``["income"]``), ``DESCR``.
    (data, target) : tuple if ``return_X_y`` is True

    {fetch_raises}

    See Also
    --------
    discretize_adult : Coarsened ``age`` and ``education`` of the funnel paper.
    get_data_home : Where the loader looks for its files.

    Examples
    --------
    >>> from sklearn_privacy.datasets import fetch_adult
    >>> adult = fetch_adult(data_home="path/to/data", as_frame=True)  # doctest: +SKIP
    >>> adult.frame.shape  # doctest: +SKIP
    (32561, 15)

    Offline, ``download_if_missing=False`` names the missing file and where to
    get it instead of downloading:

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as empty:  # doctest: +ELLIPSIS
    ...     fetch_adult(data_home=empty, download_if_missing=False)
    Traceback (most recent call last):
        ...
    FileNotFoundError: Data file not found: ...adult/adult.data. ...
    """
    subsets = ["train", "test"] if subset == "all" else [subset]
    frames = []
    for name in subsets:
        remote = ADULT_TRAIN if name == "train" else ADULT_TEST
        path = fetch_file(remote, data_home, download_if_missing, verify_checksum)
        frames.append(_to_categorical(_read_adult(path, name), path))
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    if discretize:
        frame = discretize_adult(frame)
    return make_bunch(
        frame,
        FEATURE_NAMES,
        [TARGET_NAME],
        as_frame=as_frame,
        return_X_y=return_X_y,
        descr=DESCR,
    )
