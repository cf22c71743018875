"""UCI Heart Disease, Hungarian data (processed 14 columns or the full 76 attributes)."""

from pathlib import Path

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

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/heart-disease/"
_UCI_ZIP = "https://archive.ics.uci.edu/static/public/45/heart+disease.zip"

HUNGARIAN_PROCESSED = RemoteFile(
    "heart-disease/processed.hungarian.data",
    ((_UCI + "processed.hungarian.data", None), (_UCI_ZIP, "processed.hungarian.data")),
    sha256="d1ad108f785768cd3d7e82dc522e6f5a61eea93cccfb3a46ee8076f73fc3d796",
)
HUNGARIAN_FULL = RemoteFile(
    "heart-disease/hungarian.data",
    ((_UCI + "hungarian.data", None), (_UCI_ZIP, "hungarian.data")),
    sha256="b8e4bbd06b9bf9ec831c992ba397639f22815e525c43b489e1a6e75b3be29a75",
)

_N_RECORDS = 294

PROCESSED_FEATURE_NAMES = [
    "age", "sex", "cp", "trestbps", "chol", "fbs", "restecg", "thalach", "exang",
    "oldpeak", "slope", "ca", "thal",
]  # fmt: skip
_PROCESSED_INT = ["age", "sex", "cp"]
TARGET_NAME = "num"

# The 76 attributes of heart-disease.names, in file order.
FULL_ATTRIBUTE_NAMES = [
    "id", "ccf", "age", "sex", "painloc", "painexer", "relrest", "pncaden", "cp",
    "trestbps", "htn", "chol", "smoke", "cigs", "years", "fbs", "dm", "famhist",
    "restecg", "ekgmo", "ekgday", "ekgyr", "dig", "prop", "nitr", "pro", "diuretic",
    "proto", "thaldur", "thaltime", "met", "thalach", "thalrest", "tpeakbps",
    "tpeakbpd", "dummy", "trestbpd", "exang", "xhypo", "oldpeak", "slope", "rldv5",
    "rldv5e", "ca", "restckm", "exerckm", "restef", "restwm", "exeref", "exerwm",
    "thal", "thalsev", "thalpul", "earlobe", "cmo", "cday", "cyr", "num", "lmt",
    "ladprox", "laddist", "diag", "cxmain", "ramus", "om1", "om2", "rcaprox",
    "rcadist", "lvx1", "lvx2", "lvx3", "lvx4", "lvf", "cathef", "junk", "name",
]  # fmt: skip
FULL_FEATURE_NAMES = [n for n in FULL_ATTRIBUTE_NAMES if n not in ("id", "num", "name")]

MISSING_SYMBOL = -1

DESCR = """\
.. _heart_disease_hungarian_dataset:

UCI Heart Disease, Hungarian data
---------------------------------

Patients of the Hungarian Institute of Cardiology, Budapest (Andras Janosi,
M.D.), from the UCI Heart Disease data set (Janosi, Steinbrunn, Pfisterer &
Detrano, 1988). This is the data of the submodular privacy funnel paper (Ding
et al., Sec. IV), which uses ``age``, ``sex`` and serum cholesterol ``chol``.

**Data set characteristics:**

:Number of instances: 294
:Processed file (default): 13 features and the class ``num``; ``?`` in the
    file, NaN here (782 missing cells: trestbps 1, chol 23, fbs 8, restecg 1,
    thalach 1, exang 1, slope 190, ca 291, thal 266). ``num``: 0 (no
    disease) 188, 1 (disease) 106. ``age``, ``sex``, ``cp`` and ``num`` are
    int64, the other columns float64.
:Full file (``full=True``): the 76 attributes of ``heart-disease.names``; the
    features are all of them except ``id`` (returned as ``ids``; 293 distinct
    values, one repeats), ``num`` (the class, 0-4: 188/37/26/28/15) and the
    dummy ``name``. All features are float64, ``-9`` (missing) is NaN. The
    records are in another order than in the processed file.

Processed columns (position in the 76-attribute record): ``age`` [3] years,
``sex`` [4] (1 male, 0 female), ``cp`` [9] chest pain type 1-4, ``trestbps``
[10] resting blood pressure (mm Hg), ``chol`` [12] serum cholesterol (mg/dl),
``fbs`` [16] fasting blood sugar > 120 mg/dl, ``restecg`` [19] 0-2,
``thalach`` [32] maximum heart rate, ``exang`` [38] exercise-induced angina,
``oldpeak`` [40] ST depression, ``slope`` [41] 1-3, ``ca`` [44] vessels
coloured by fluoroscopy 0-3, ``thal`` [51] (3 normal, 6 fixed, 7 reversible
defect), ``num`` [58] diagnosis.

``discretize=True`` (or :func:`discretize_heart_disease`) turns ``age``,
``sex`` and ``chol`` into integer symbols as used by Ding et al.: the raw
values, with a missing ``chol`` as its own symbol ``-1``. The paper states no
binning, and the raw values reproduce the alphabet size it reports
(|X| = 197 distinct (sex, chol) pairs, Sec. IV-C); optional cut points give
coarser alphabets.

Files: ``<data_home>/heart-disease/processed.hungarian.data`` (14
comma-separated columns) and ``hungarian.data`` (76 whitespace-separated
values per record, each record wrapped over several lines and ending with the
token ``name``), from
https://archive.ics.uci.edu/ml/machine-learning-databases/heart-disease/
(fallback: the zip https://archive.ics.uci.edu/static/public/45/heart+disease.zip).

Licence CC BY 4.0. Cite: Janosi, A., Steinbrunn, W., Pfisterer, M. & Detrano,
R. (1988). Heart Disease [Dataset]. UCI Machine Learning Repository.
https://doi.org/10.24432/C52P4X
"""


def _read_processed(path):
    with reading(path, "comma-separated processed Heart Disease text"):
        frame = pd.read_csv(
            path,
            header=None,
            names=PROCESSED_FEATURE_NAMES + [TARGET_NAME],
            na_values="?",
            keep_default_na=False,
            dtype={
                n: "int64" if n in _PROCESSED_INT else "float64" for n in PROCESSED_FEATURE_NAMES
            }
            | {TARGET_NAME: "int64"},
        )
    check_n_records(len(frame), _N_RECORDS, path)
    return frame, None


def _read_full(path):
    with reading(path, "whitespace-separated Heart Disease text"):
        tokens = np.array(Path(path).read_text(encoding="ascii").split())
    n_attributes = len(FULL_ATTRIBUTE_NAMES)
    ends = np.flatnonzero(tokens == "name")
    check_n_records(len(ends), _N_RECORDS, path)
    if tokens.size != n_attributes * len(ends) or np.any(np.diff(ends, prepend=-1) != n_attributes):
        raise ValueError(
            f"{path} is not a sequence of {n_attributes}-value records each ending with 'name'."
        )
    with reading(path, "whitespace-separated Heart Disease text"):
        values = tokens.reshape(len(ends), n_attributes)[:, :-1].astype(float)
    values[values == -9] = np.nan
    frame = pd.DataFrame(values, columns=FULL_ATTRIBUTE_NAMES[:-1])
    ids = frame.pop("id").astype("int64").to_numpy()
    frame[TARGET_NAME] = frame.pop(TARGET_NAME).astype("int64")
    return frame, ids


def _codes(values, cuts, name):
    values = np.array(values, dtype=float)
    if cuts is None:
        return values
    cuts = np.asarray(cuts, dtype=float)
    if cuts.ndim != 1 or np.any(np.diff(cuts) <= 0) or not np.all(np.isfinite(cuts)):
        raise ValueError(f"{name} must be a 1-D increasing sequence of finite cut points.")
    codes = np.searchsorted(cuts, values, side="right").astype(float)
    codes[np.isnan(values)] = np.nan
    return codes


@validate_params(
    {"frame": [pd.DataFrame], "age_bins": ["array-like", None], "chol_bins": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def discretize_heart_disease(frame, *, age_bins=None, chol_bins=None):
    """Integer symbols for ``age``, ``sex`` and ``chol`` as in the submodular funnel paper.

    Ding et al. (Sec. IV) take ``age``, ``sex`` and serum cholesterol from the
    Hungarian data (S = {age, sex}, X = {sex, cholesterol} or {age,
    cholesterol}) and state no binning. Their reported alphabet size
    ``|X| = 197`` for X = (sex, cholesterol) is exactly the number of distinct
    (sex, chol) pairs when the raw values are used and a missing cholesterol is
    one more symbol, so that is the default here.

    Parameters
    ----------
    frame : pandas.DataFrame
        Holds ``age``, ``sex`` and ``chol`` (the processed or the full
        Hungarian data); other columns are copied unchanged.
    age_bins, chol_bins : array-like of increasing cut points, default=None
        ``None`` keeps the raw integer values. Cut points ``c_1 < ... < c_k``
        give the symbol ``j`` to values in ``[c_j, c_{j+1})`` (``0`` below
        ``c_1``, ``k`` from ``c_k`` on).

    Returns
    -------
    pandas.DataFrame
        A copy where ``age``, ``sex`` and ``chol`` are int64; a missing
        ``chol`` is ``-1``.

    See Also
    --------
    fetch_heart_disease_hungarian : Loads the frame this function encodes.
    sklearn_privacy.discrete.SubmodularFunnel : The submodular funnel of the paper.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_privacy.datasets import discretize_heart_disease
    >>> df = pd.DataFrame({"age": [28, 54], "sex": [1, 0],
    ...                    "chol": [132.0, float("nan")]})
    >>> discretize_heart_disease(df)["chol"].tolist()
    [132, -1]
    >>> discretize_heart_disease(df, chol_bins=[200, 240])["chol"].tolist()
    [0, -1]
    """
    for name in ("age", "sex", "chol"):
        if name not in frame.columns:
            raise ValueError(f"frame has no column {name!r}; it needs 'age', 'sex' and 'chol'.")
    out = frame.copy()
    for name, cuts in (("age", age_bins), ("sex", None), ("chol", chol_bins)):
        codes = _codes(frame[name], cuts, f"{name}_bins")
        missing = np.isnan(codes)
        if name != "chol" and missing.any():
            raise ValueError(f"frame[{name!r}] has {missing.sum()} missing values.")
        if np.any(codes[~missing] != np.round(codes[~missing])):
            raise ValueError(f"frame[{name!r}] has non-integer values; give {name}_bins.")
        codes[missing] = MISSING_SYMBOL
        out[name] = codes.astype("int64")
    return out


@validate_params(
    {
        **FETCH_CONSTRAINTS,
        "full": ["boolean"],
        "discretize": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@Substitution(**FETCH_DOCS)
def fetch_heart_disease_hungarian(
    *,
    data_home=None,
    download_if_missing=True,
    return_X_y=False,
    as_frame=False,
    full=False,
    discretize=False,
    verify_checksum=True,
):
    """Load the Hungarian heart disease data (UCI Heart Disease).

    Read more in the :doc:`User Guide </user_guide/datasets>`; the full
    description is in ``DESCR``.

    =================   ===============================================
    Samples             294
    Features            13 (processed file) or 73 (``full=True``)
    Classes             ``num``: 0/1 (processed) or 0-4 (full)
    =================   ===============================================

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``heart-disease/processed.hungarian.data`` (and
        ``heart-disease/hungarian.data`` for ``full=True``); see
        :func:`get_data_home`.
    {download_if_missing}
    {return_X_y}
    as_frame : bool, default=False
        Return pandas objects (``data`` DataFrame, ``target`` Series, ``frame``)
        instead of float ndarrays.
    full : bool, default=False
        Read the full 76-attribute file instead of the processed 14 columns.
    discretize : bool, default=False
        Apply :func:`discretize_heart_disease` (raw integer symbols for
        ``age``, ``sex``, ``chol``, missing ``chol`` as ``-1``).
    {verify_checksum}

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data``, ``target``, ``frame`` (or None), ``feature_names``,
        ``target_names`` (``["num"]``), ``DESCR``, and ``ids`` (the patient ids
        of the full file; None for the processed file).
    (data, target) : tuple if ``return_X_y`` is True

    {fetch_raises}

    See Also
    --------
    discretize_heart_disease : Symbols of ``age``, ``sex`` and ``chol`` of the paper.
    get_data_home : Where the loader looks for its files.

    Examples
    --------
    >>> from sklearn_privacy.datasets import fetch_heart_disease_hungarian
    >>> heart = fetch_heart_disease_hungarian(data_home="path/to/data")  # doctest: +SKIP
    >>> heart.data.shape  # doctest: +SKIP
    (294, 13)

    Offline, ``download_if_missing=False`` names the missing file and where to
    get it instead of downloading:

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as empty:  # doctest: +ELLIPSIS
    ...     fetch_heart_disease_hungarian(data_home=empty,
    ...                                   download_if_missing=False)
    Traceback (most recent call last):
        ...
    FileNotFoundError: Data file not found: ...processed.hungarian.data. ...
    """
    remote = HUNGARIAN_FULL if full else HUNGARIAN_PROCESSED
    path = fetch_file(remote, data_home, download_if_missing, verify_checksum)
    frame, ids = _read_full(path) if full else _read_processed(path)
    if discretize:
        frame = discretize_heart_disease(frame)
    feature_names = FULL_FEATURE_NAMES if full else PROCESSED_FEATURE_NAMES
    return make_bunch(
        frame,
        feature_names,
        [TARGET_NAME],
        as_frame=as_frame,
        return_X_y=return_X_y,
        descr=DESCR,
        ids=ids,
    )
