"""Breast Cancer Wisconsin (Original): 699 samples, 9 cytology scores 1-10."""

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

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/breast-cancer-wisconsin/"
_UCI_ZIP = "https://archive.ics.uci.edu/static/public/15/breast+cancer+wisconsin+original.zip"

BREAST_CANCER_WISCONSIN = RemoteFile(
    "breast-cancer-wisconsin/breast-cancer-wisconsin.data",
    (
        (_UCI + "breast-cancer-wisconsin.data", None),
        (_UCI_ZIP, "breast-cancer-wisconsin.data"),
    ),
    sha256="402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64",
)

_N_RECORDS = 699
FEATURE_NAMES = [
    "Clump Thickness",
    "Uniformity of Cell Size",
    "Uniformity of Cell Shape",
    "Marginal Adhesion",
    "Single Epithelial Cell Size",
    "Bare Nuclei",
    "Bland Chromatin",
    "Normal Nucleoli",
    "Mitoses",
]
TARGET_NAME = "Class"
_CLASSES = {2: "benign", 4: "malignant"}

DESCR = """\
.. _breast_cancer_wisconsin_dataset:

Breast Cancer Wisconsin (Original) data set
-------------------------------------------

Fine-needle aspirates of breast masses scored by Dr. William H. Wolberg,
University of Wisconsin Hospitals (Wolberg, 1992). Not to be confused with
the 569-sample *Diagnostic* data set bundled as
:func:`sklearn.datasets.load_breast_cancer`.

**Data set characteristics:**

:Number of instances: 699 (645 distinct sample ids; some ids repeat)
:Number of attributes: 9 integer scores 1-10 and the class
:Missing values: 16, all in ``Bare Nuclei`` (``?`` in the file). They are
    kept as NaN, so ``Bare Nuclei`` is float64 while the other eight features
    are int64 (with ``as_frame=False`` the whole array is float64). Drop or
    impute them (e.g. :class:`sklearn.impute.SimpleImputer`) as you see fit.
:Classes: ``Class`` is ``"benign"`` (file value 2; 458) or ``"malignant"``
    (file value 4; 241).

Features: ``Clump Thickness``, ``Uniformity of Cell Size``, ``Uniformity of
Cell Shape``, ``Marginal Adhesion``, ``Single Epithelial Cell Size``,
``Bare Nuclei``, ``Bland Chromatin``, ``Normal Nucleoli``, ``Mitoses``. The
first column of the file, ``Sample code number``, is returned as ``ids``.

File: ``<data_home>/breast-cancer-wisconsin/breast-cancer-wisconsin.data``,
from https://archive.ics.uci.edu/ml/machine-learning-databases/breast-cancer-wisconsin/
(fallback: the zip
https://archive.ics.uci.edu/static/public/15/breast+cancer+wisconsin+original.zip).

Licence CC BY 4.0. Cite: Wolberg, W. (1992). Breast Cancer Wisconsin
(Original) [Dataset]. UCI Machine Learning Repository.
https://doi.org/10.24432/C5HP4Z
"""


@validate_params(
    {
        **FETCH_CONSTRAINTS,
    },
    prefer_skip_nested_validation=True,
)
@Substitution(**FETCH_DOCS)
def fetch_breast_cancer_wisconsin(
    *,
    data_home=None,
    download_if_missing=True,
    return_X_y=False,
    as_frame=False,
    verify_checksum=True,
):
    """Load the Breast Cancer Wisconsin (Original) data set, 699 samples.

    Read more in the :doc:`User Guide </user_guide/datasets>`; the full
    description is in ``DESCR``.

    =================   ==============================================
    Samples             699
    Features            9 integer scores 1-10 (16 NaN in Bare Nuclei)
    Classes             2 (``"benign"`` 458, ``"malignant"`` 241)
    =================   ==============================================

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding
        ``breast-cancer-wisconsin/breast-cancer-wisconsin.data``; see
        :func:`get_data_home`.
    {download_if_missing}
    {return_X_y}
    as_frame : bool, default=False
        Return pandas objects (``data`` DataFrame, ``target`` categorical
        Series, ``frame``) instead of ndarrays.
    {verify_checksum}

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` of shape (699, 9), ``target`` of shape (699,) with values
        ``"benign"``/``"malignant"``, ``frame`` (or None), ``feature_names``,
        ``target_names`` (``["Class"]``), ``DESCR`` and ``ids`` (sample code
        numbers).
    (data, target) : tuple if ``return_X_y`` is True

    {fetch_raises}

    See Also
    --------
    sklearn.datasets.load_breast_cancer : The Diagnostic data set bundled with scikit-learn.
    fetch_drug_consumption : The other data set of the thesis's DP experiments.

    Examples
    --------
    >>> from sklearn_privacy.datasets import fetch_breast_cancer_wisconsin
    >>> X, y = fetch_breast_cancer_wisconsin(
    ...     data_home="path/to/data", return_X_y=True)  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (699, 9)

    Offline, ``download_if_missing=False`` names the missing file and where to
    get it instead of downloading:

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as empty:  # doctest: +ELLIPSIS
    ...     fetch_breast_cancer_wisconsin(data_home=empty,
    ...                                   download_if_missing=False)
    Traceback (most recent call last):
        ...
    FileNotFoundError: ...not found: ...breast-cancer-wisconsin.data. ...
    """
    path = fetch_file(BREAST_CANCER_WISCONSIN, data_home, download_if_missing, verify_checksum)
    with reading(path, "comma-separated Breast Cancer Wisconsin text"):
        frame = pd.read_csv(
            path,
            header=None,
            names=["Sample code number", *FEATURE_NAMES, TARGET_NAME],
            na_values="?",
            keep_default_na=False,
            dtype={name: "float64" if name == "Bare Nuclei" else "int64" for name in FEATURE_NAMES}
            | {"Sample code number": "int64", TARGET_NAME: "int64"},
        )
    check_n_records(len(frame), _N_RECORDS, path)
    unknown = set(frame[TARGET_NAME].unique()) - set(_CLASSES)
    if unknown:
        raise ValueError(f"Column 'Class' of {path} has values {sorted(unknown)}, not 2 or 4.")
    frame[TARGET_NAME] = pd.Categorical(
        frame[TARGET_NAME].map(_CLASSES), categories=list(_CLASSES.values())
    )
    ids = frame.pop("Sample code number").to_numpy()
    bunch = make_bunch(
        frame,
        FEATURE_NAMES,
        [TARGET_NAME],
        as_frame=as_frame,
        return_X_y=False,
        descr=DESCR,
        ids=ids,
    )
    if not as_frame:
        bunch.data = bunch.data.astype("float64")
        bunch.target = bunch.target.astype(object)
    return (bunch.data, bunch.target) if return_X_y else bunch
