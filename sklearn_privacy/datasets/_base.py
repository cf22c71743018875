"""Where data files live, and how a missing one is downloaded and checked.

Every loader reads plain files from a *data home* folder, in a fixed relative
layout (``<data_home>/adult/adult.data``, ``<data_home>/mnist/...``), so that a
folder prepared by hand, or the project's shared data folder, can be used as it
is. A missing file is downloaded over https when the loader is allowed to,
written to a temporary file in its final folder, checked against its SHA-256
(or, for the one file with no published SHA-256, its MD5) and only then renamed
into place. Whatever goes wrong, no partial file is left behind.
"""

import hashlib
import http.client
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.error import URLError
from urllib.request import Request, urlopen

from sklearn.utils import Bunch
from sklearn.utils._param_validation import validate_params

ENV_VAR = "SKLEARN_PRIVACY_DATA"
DEFAULT_DATA_HOME = Path("~") / "sklearn_privacy_data"

_CHUNK = 1 << 16
_TIMEOUT = 60
_USER_AGENT = "sklearn-privacy dataset loader (Python urllib)"
# Network failures that justify trying the next mirror; local disk errors are not among them.
_NETWORK_ERRORS = (URLError, TimeoutError, ConnectionError, http.client.HTTPException)


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
    (see ``docs/datasets.md``).

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder to use. ``None`` falls back to the environment variable, then to
        ``~/sklearn_privacy_data``.

    Returns
    -------
    data_home : str
        The absolute path of the folder.

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
    """

    path: str
    urls: tuple
    sha256: str | None = None
    md5: str | None = None

    @property
    def url(self):
        """The first (preferred) source."""
        return self.urls[0][0]

    def digest(self, file_path):
        """Return ``(algorithm, expected, actual)`` for ``file_path``."""
        algorithm, expected = ("sha256", self.sha256) if self.sha256 else ("md5", self.md5)
        return algorithm, expected, _hash_file(file_path, algorithm)


def _hash_file(path, algorithm="sha256"):
    h = hashlib.new(algorithm)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _where_to_put(path, remote):
    return (
        f"Download it from {remote.url} and save it as {path} "
        f"(or point data_home, or the {ENV_VAR} environment variable, at a folder "
        f"that holds {remote.path})."
    )


def fetch_file(remote, data_home=None, download_if_missing=True):
    """Return the local path of ``remote``, downloading it first if needed.

    Parameters
    ----------
    remote : RemoteFile
        The file to get.
    data_home : str or path-like, default=None
        See :func:`get_data_home`.
    download_if_missing : bool, default=True
        If False and the file is absent, raise instead of downloading.

    Returns
    -------
    path : pathlib.Path

    Raises
    ------
    FileNotFoundError
        The file is absent and could not be downloaded (``download_if_missing``
        is False, or every source failed: offline, HTTP error). The message
        names the exact path where the file must be put and the URL to get it.
    OSError
        The downloaded file's checksum differs from the expected one. The
        temporary file is deleted and nothing is written at the final path.
    """
    path = Path(get_data_home(data_home)) / remote.path
    if path.is_file():
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
            raise OSError(
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
