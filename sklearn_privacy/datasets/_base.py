"""Where data files live (the data home), and how a missing one is downloaded and checked.

What users see: the user guide's data set page; why: "File verification" in ``docs/design.md``.
"""

import gzip
import hashlib
import http.client
import os
import shutil
import tempfile
import time
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.error import URLError
from urllib.request import Request, urlopen

from sklearn.utils import Bunch

from sklearn_privacy.utils._sklearn_compat import validate_params

ENV_VAR = "SKLEARN_PRIVACY_DATA"

#: The parameters every ``fetch_*`` loader shares, validated alike.
FETCH_CONSTRAINTS = {
    "data_home": [str, os.PathLike, None],
    "download_if_missing": ["boolean"],
    "return_X_y": ["boolean"],
    "as_frame": ["boolean"],
    "verify_checksum": ["boolean"],
}

#: Their documentation, for :class:`~sklearn_privacy.utils._docstring.Substitution`
#: (``{download_if_missing}``, ``{return_X_y}``, ``{verify_checksum}``), and the
#: errors every loader raises (``{fetch_raises}``, the whole section).
FETCH_DOCS = {
    "download_if_missing": """\
download_if_missing : bool, default=True
    If a file is absent, download it (and check its checksum); if False,
    raise :class:`FileNotFoundError` naming where to put it.""",
    "return_X_y": """\
return_X_y : bool, default=False
    Return ``(data, target)`` instead of a Bunch.""",
    "verify_checksum": """\
verify_checksum : bool, default=True
    Check the SHA-256 of each file read against the original's, also when
    the file was already present, and raise :class:`ChecksumError` naming
    the file and both digests if it differs. The result is cached for the
    process (keyed by the file's path, size and modification time), so a
    repeated load does not hash the file again. Pass False to load a copy
    that you modified on purpose; it must still parse. Downloads are
    always checked.""",
    "fetch_raises": """\
Raises
------
FileNotFoundError
    A file is absent and was not downloaded; the message says where to
    put it and where to get it.
ChecksumError
    A file is not the original (see ``verify_checksum``).
ValueError
    ``data_home`` is not a folder, or a file cannot be parsed or does not
    hold the original records (for instance with
    ``verify_checksum=False``).""",
}
DEFAULT_DATA_HOME = Path("~") / "sklearn_privacy_data"

_CHUNK = 1 << 16
_TIMEOUT = 60
_USER_AGENT = "sklearn-privacy dataset loader (Python urllib)"
# Network failures that justify trying the next mirror; local disk errors are not among them.
_NETWORK_ERRORS = (URLError, TimeoutError, ConnectionError, http.client.HTTPException)
# What the parsers raise on a file that is not in the expected format: pandas' ParserError
# and EmptyDataError and UnicodeDecodeError are ValueErrors; a truncated gzip stream raises
# EOFError, a corrupt one zlib.error or gzip.BadGzipFile (an OSError, unlike the others).
_PARSE_ERRORS = (ValueError, TypeError, OverflowError, EOFError, zlib.error, gzip.BadGzipFile)
# A file modified less than this long before it was hashed may be modified again within the
# same tick of a coarse file-system clock (same size and mtime, new content): its digest is
# not cached ("racily clean", as git calls it). Data files are normally much older.
_RACY_WINDOW_NS = 2_000_000_000
# (absolute path, algorithm) -> (stat signature, hex digest found). One entry per file, so
# the cache cannot grow beyond the number of data files read.
_DIGEST_CACHE = {}


class ChecksumError(ValueError, OSError):
    """A data file's checksum differs from the one of the original file.

    Raised by the ``fetch_*`` loaders when a file present in the data home
    (or a file just downloaded) does not have the SHA-256 of the original (for
    MNIST's training images, of its decompressed bytes). The message names the file,
    the expected and the found digest, and how to fix it: delete the file so
    that the loader downloads the original again, or pass
    ``verify_checksum=False`` to load a copy modified on purpose.

    It subclasses :class:`ValueError` (the file's content is wrong) and
    :class:`OSError` (what a failed download check raised before this class
    existed).

    See Also
    --------
    fetch_adult : A loader that verifies the checksums of its files.
    get_data_home : The folder holding the verified files.

    Examples
    --------
    >>> from sklearn_privacy.datasets import ChecksumError
    >>> issubclass(ChecksumError, ValueError)
    True
    """


@validate_params({"data_home": [str, os.PathLike, None]}, prefer_skip_nested_validation=True)
def get_data_home(data_home=None):
    """Return the folder where the data set loaders look for their files.

    The folder is, in order of precedence: the ``data_home`` argument, the
    ``SKLEARN_PRIVACY_DATA`` environment variable, ``~/sklearn_privacy_data``.
    ``~`` is expanded. Unlike :func:`sklearn.datasets.get_data_home`, the folder
    is not created here: a loader creates the sub-folder it needs only when it
    downloads a file, so that a read-only folder (such as a shared copy of the
    data) can be used.

    Inside it, each data set has its own sub-folder with the original file
    names, e.g. ``adult/adult.data`` or ``mnist/t10k-images-idx3-ubyte.gz``
    (see the :doc:`User Guide </user_guide/datasets>`).

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder to use. ``None`` falls back to the environment variable, then to
        ``~/sklearn_privacy_data``.

    Returns
    -------
    data_home : str
        The absolute path of the folder.

    See Also
    --------
    fetch_adult : A loader that reads its files from this folder.

    Examples
    --------
    >>> from sklearn_privacy.datasets import get_data_home
    >>> get_data_home("/tmp/my_data")
    '/tmp/my_data'
    """
    if data_home is None:
        data_home = os.environ.get(ENV_VAR) or DEFAULT_DATA_HOME
    return str(Path(os.path.expanduser(os.fspath(data_home))).absolute())


@dataclass(frozen=True)
class RemoteFile:
    """A data file: where it lives under the data home, where to get it, its hash.

    Parameters
    ----------
    path : str
        Path relative to the data home, with ``/`` separators.
    urls : tuple of (str, str or None)
        Sources tried in order. The second element names the member to extract
        when the source is a zip archive, ``None`` for a plain file.
    sha256 : str or None
        Hex SHA-256 of the file as stored.
    md5 : str or None
        Hex MD5, used only when no SHA-256 is known.
    gunzipped_sha256 : str or None
        Hex SHA-256 of the file's gzip-decompressed content, checked instead of
        a digest of the stored bytes: for a file whose content is fixed but whose
        compression is not (a re-compressed copy changes the gzip header and
        stream, not one byte of the data).
    """

    path: str
    urls: tuple
    sha256: str | None = None
    md5: str | None = None
    gunzipped_sha256: str | None = None

    @property
    def url(self):
        """The first (preferred) source."""
        return self.urls[0][0]

    @property
    def expected_digest(self):
        """``(algorithm, expected hex digest)``, the algorithm as :func:`_hash_file` takes it."""
        if self.gunzipped_sha256:
            return GUNZIPPED_SHA256, self.gunzipped_sha256
        return ("sha256", self.sha256) if self.sha256 else ("md5", self.md5)

    def digest(self, file_path):
        """Return ``(algorithm, expected, actual)`` for ``file_path``."""
        algorithm, expected = self.expected_digest
        return algorithm, expected, _hash_file(file_path, algorithm)


#: The algorithm name of a SHA-256 of a file's gzip-decompressed content.
GUNZIPPED_SHA256 = "decompressed-content sha256"


def _hash_file(path, algorithm="sha256"):
    """Hex digest of the file at ``path``, read in chunks.

    With ``GUNZIPPED_SHA256`` the SHA-256 of its gzip-decompressed content; a file that
    does not decompress gets a digest that matches nothing (``"not gzip data (...)"``).
    """
    gunzipped = algorithm == GUNZIPPED_SHA256
    h = hashlib.new("sha256" if gunzipped else algorithm)
    try:
        with (gzip.open if gunzipped else open)(path, "rb") as f:
            for chunk in iter(lambda: f.read(_CHUNK), b""):
                h.update(chunk)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        if not gunzipped:
            raise
        return f"not gzip data ({type(exc).__name__}: {exc})"
    return h.hexdigest()


def _stat_signature(stat):
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev)


def _cached_digest(path, algorithm):
    """Return the hex digest of ``path``, hashing it only if it changed since the last time.

    The digest is cached in-process, keyed by the absolute path and the
    algorithm, and reused while the file's ``os.stat`` signature (size, mtime,
    ctime, inode, device) is the same. A file modified within the last
    ``_RACY_WINDOW_NS`` before hashing is hashed again at each call.
    """
    key = (os.fspath(Path(path).absolute()), algorithm)
    signature = _stat_signature(os.stat(path))
    cached = _DIGEST_CACHE.get(key)
    if cached is not None and cached[0] == signature:
        return cached[1]
    started = time.time_ns()
    digest = _hash_file(path, algorithm)
    if _stat_signature(os.stat(path)) == signature and signature[1] < started - _RACY_WINDOW_NS:
        _DIGEST_CACHE[key] = (signature, digest)
    else:
        _DIGEST_CACHE.pop(key, None)
    return digest


def _clear_digest_cache():
    """Forget every cached digest (for tests)."""
    _DIGEST_CACHE.clear()


def verify_file(remote, path):
    """Check that the file at ``path`` has the checksum of ``remote``.

    Parameters
    ----------
    remote : RemoteFile
        The file's description, with its expected digest.
    path : path-like
        The local file.

    Raises
    ------
    ChecksumError
        The digest differs. The message names the file, both digests and how
        to fix it.
    """
    algorithm, expected = remote.expected_digest
    if expected is None:
        return
    actual = _cached_digest(path, algorithm)
    if actual != expected:
        raise ChecksumError(
            f"The data file {path} is not the original {remote.path}: its {algorithm} "
            f"checksum is {actual}, expected {expected}. It may be corrupted, truncated, "
            "modified or another version of the data. Delete it so that the loader downloads "
            "the original again (download_if_missing=True), or, to load a copy that you "
            "modified on purpose as it is, pass verify_checksum=False."
        )


@contextmanager
def reading(path, file_format):
    """Turn a parser's low-level error on ``path`` into a clear :class:`ValueError`.

    Wrap only the parsing itself: the checks that follow it raise their own
    messages.

    Parameters
    ----------
    path : path-like
        The file being read, named in the message.
    file_format : str
        What the file should be, e.g. ``"comma-separated text"``; the message
        says that the file is not a valid ``<file_format>`` file.
    """
    try:
        yield
    except _PARSE_ERRORS as exc:
        raise ValueError(
            f"{path} is not a valid {file_format} file ({type(exc).__name__}: {exc}). It may be "
            "corrupted, truncated or not the data file at all; delete it so that the loader "
            "downloads the original again."
        ) from exc


def _check_layout(home, path):
    """Raise a clear error if the data home, or a folder of ``path`` below it, is not a folder."""
    existing = next(p for p in (home, *home.parents) if p.exists())
    if not existing.is_dir():
        where = "" if existing == home else f" ({existing} is a file)"
        raise ValueError(
            f"The data home {home} (the data_home argument, else the {ENV_VAR} environment "
            f"variable) is not a folder{where}. Pass as data_home the folder that holds the "
            f"data files, e.g. the one holding {path.relative_to(home)}."
        )
    for folder in reversed(path.relative_to(home).parents[:-1]):
        folder = home / folder
        if folder.exists() and not folder.is_dir():
            raise ValueError(
                f"{folder} is not a folder, but the data home layout needs one there to "
                f"hold {path.relative_to(home)}. Move it out of the way."
            )
    if path.exists() and not path.is_file():
        raise ValueError(f"The data file {path} is not a regular file. Move it out of the way.")


def _where_to_put(path, remote):
    return (
        f"Download it from {remote.url} and save it as {path} "
        f"(or point data_home, or the {ENV_VAR} environment variable, at a folder "
        f"that holds {remote.path})."
    )


def fetch_file(remote, data_home=None, download_if_missing=True, verify_checksum=True):
    """Return the local path of ``remote``, downloading it first if needed.

    A file already present is checked against ``remote``'s digest (see
    :func:`verify_file`; the result is cached in-process). A downloaded file is
    always checked before it is put in place.

    Parameters
    ----------
    remote : RemoteFile
        The file to get.
    data_home : str or path-like, default=None
        See :func:`get_data_home`.
    download_if_missing : bool, default=True
        If False and the file is absent, raise instead of downloading.
    verify_checksum : bool, default=True
        Check the digest of a file that is already present. Downloads are
        checked whatever this says.

    Returns
    -------
    path : pathlib.Path

    Raises
    ------
    ValueError
        The data home (or a folder of the layout below it) is a file, not a
        folder.
    FileNotFoundError
        The file is absent and could not be downloaded (``download_if_missing``
        is False, or every source failed: offline, HTTP error). The message
        names the exact path where the file must be put and the URL to get it.
    ChecksumError
        The file present has another checksum than the original (with
        ``verify_checksum=True``), or the downloaded file has; then the
        temporary file is deleted and nothing is written at the final path.
        :class:`ChecksumError` is both a :class:`ValueError` and an
        :class:`OSError`.
    """
    home = Path(get_data_home(data_home))
    path = home / remote.path
    _check_layout(home, path)
    if path.is_file():
        if verify_checksum:
            verify_file(remote, path)
        return path
    if not download_if_missing:
        raise FileNotFoundError(
            f"Data file not found: {path}. download_if_missing=False, so it was not "
            f"downloaded. {_where_to_put(path, remote)}"
        )
    return _download(remote, path)


def _makedirs(folder, created):
    """Create ``folder`` and its missing parents, appending each one made to ``created``."""
    missing = []
    folder = Path(folder)
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for f in reversed(missing):
        f.mkdir()
        created.insert(0, f)


def _download(remote, path):
    created = []  # deepest first
    failures = []
    try:
        _makedirs(path.parent, created)
        for url, member in remote.urls:
            try:
                _download_one(remote, url, member, path)
            except _NETWORK_ERRORS as exc:
                failures.append(f"{url}: {exc}")
            except (zipfile.BadZipFile, KeyError) as exc:
                failures.append(f"{url}: not a zip archive holding {member!r} ({exc})")
            else:
                return path
    except PermissionError as exc:
        raise PermissionError(
            f"Cannot write the data file {path} ({exc}). {_where_to_put(path, remote)}"
        ) from exc
    finally:
        if not path.exists():
            for folder in created:
                try:
                    folder.rmdir()
                except OSError:
                    break
    tried = "; ".join(failures)
    raise FileNotFoundError(
        f"Data file not found: {path}, and downloading it failed (tried {tried}). "
        f"{_where_to_put(path, remote)}"
    )


def _new_temp(folder, name):
    fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=folder)
    os.close(fd)
    return Path(temp)


def _stream_to(url, temp):
    request = Request(url, headers={"User-Agent": _USER_AGENT})
    with urlopen(request, timeout=_TIMEOUT) as response, open(temp, "wb") as out:
        while True:
            chunk = response.read(_CHUNK)
            if not chunk:
                break
            out.write(chunk)


def _extract_member(archive, member, temp):
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        if member in names:
            name = member
        else:
            # UCI archives sometimes put the files in a sub-folder.
            matches = [n for n in names if n.rsplit("/", 1)[-1] == member]
            if not matches:
                raise KeyError(f"{member!r} not among {names[:10]}")
            name = matches[0]
        with zf.open(name) as src, open(temp, "wb") as out:
            shutil.copyfileobj(src, out, _CHUNK)


def _download_one(remote, url, member, path):
    temps = []
    try:
        temp = _new_temp(path.parent, path.name)
        temps.append(temp)
        _stream_to(url, temp)
        if member is not None:
            extracted = _new_temp(path.parent, path.name)
            temps.append(extracted)
            _extract_member(temp, member, extracted)
            temp = extracted
        algorithm, expected, actual = remote.digest(temp)
        if expected is not None and actual != expected:
            raise ChecksumError(
                f"The {algorithm} checksum of the file downloaded from {url} ({actual}) "
                f"differs from the expected one ({expected}); it was deleted and nothing "
                f"was written at {path}. The source may have changed or the download "
                f"was corrupted. {_where_to_put(path, remote)}"
            )
        os.replace(temp, path)
        temps.remove(temp)
    finally:
        for t in temps:
            t.unlink(missing_ok=True)


def make_bunch(frame, feature_names, target_names, *, as_frame, return_X_y, descr, **extra):
    """Package a loaded frame the way :mod:`sklearn.datasets` loaders do.

    ``data``/``target`` are pandas objects when ``as_frame`` is True (and
    ``frame`` is the whole table), NumPy arrays otherwise (``frame`` is None). A
    single target column gives a 1-D ``target``.
    """
    data = frame[feature_names]
    target = frame[target_names[0]] if len(target_names) == 1 else frame[target_names]
    if not as_frame:
        data = data.to_numpy()
        target = target.to_numpy()
        frame = None
    if return_X_y:
        return data, target
    return Bunch(
        data=data,
        target=target,
        frame=frame,
        feature_names=list(feature_names),
        target_names=list(target_names),
        DESCR=descr,
        **extra,
    )


def check_n_records(n_found, n_expected, path):
    """Raise a clear error when a file does not hold the original number of records."""
    if n_found != n_expected:
        raise ValueError(
            f"{path} holds {n_found} records, but the original file holds {n_expected}. "
            "It may be truncated or a different version; delete it so that the loader "
            "downloads and checks the original."
        )
