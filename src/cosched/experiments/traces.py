"""Traces by archive name: find them locally, fetch them, check their checksums.

A spec names a trace by its Parallel Workloads Archive file name (for instance
``KTH-SP2-1996-2.1-cln.swf.gz``). :func:`find_trace` looks for it, in order, in the
folders given on the command line (``--traces DIR``), in ``$COSCHED_TRACES``, in
``../shared/traces`` (from the current folder) and in the cache (:func:`cache_dir`).
:func:`fetch` downloads a log into the cache and verifies it against the checksum table
shipped with the package (``cosched/data/traces.toml``); a mismatch is refused.

The table holds the SHA-256 of the *decompressed* SWF text, so a copy recompressed by
another gzip still verifies; a log whose content differs by one byte does not.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tempfile
import tomllib
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from cosched.errors import ConfigError, UnknownNameError

__all__ = [
    "KnownTrace",
    "cache_dir",
    "content_sha256",
    "fetch",
    "file_sha256",
    "find_trace",
    "known",
]

_CHUNK = 1 << 20


@dataclass(frozen=True)
class KnownTrace:
    """One row of the checksum table."""

    name: str
    url: str
    sha256: str
    gz_sha256: str


@cache
def known() -> dict[str, KnownTrace]:
    """The checksum table shipped with the package: name -> :class:`KnownTrace`."""
    text = (resources.files("cosched") / "data" / "traces.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    base = data["base"]
    return {
        name: KnownTrace(name, f"{base}{row['dir']}/{name}", row["sha256"], row["gz_sha256"])
        for name, row in data["traces"].items()
    }


def cache_dir() -> Path:
    """``$COSCHED_DATA``, else the platform's user cache folder for cosched."""
    env = os.environ.get("COSCHED_DATA")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("cosched"))


def search_path(extra: Sequence[str | os.PathLike[str]] = ()) -> list[Path]:
    """The folders :func:`find_trace` looks in, in order."""
    dirs = [Path(d) for d in extra]
    if os.environ.get("COSCHED_TRACES"):
        dirs.append(Path(os.environ["COSCHED_TRACES"]))
    dirs += [Path.cwd().parent / "shared" / "traces", cache_dir()]
    return dirs


def find_trace(name: str, extra: Sequence[str | os.PathLike[str]] = ()) -> Path:
    """The local file of trace ``name``.

    Raises:
        ConfigError: not found in any folder of :func:`search_path` (the message lists
            them and says how to fetch it).
    """
    dirs = search_path(extra)
    for d in dirs:
        if (d / name).is_file():
            return (d / name).resolve()
    hint = f"; run `cosched trace fetch {name}`" if name in known() else ""
    looked = ", ".join(str(d) for d in dirs)
    raise ConfigError(f"trace {name!r} not found (looked in {looked}){hint}")


def file_sha256(path: Path) -> str:
    """SHA-256 of the file's bytes."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def content_sha256(path: Path) -> str:
    """SHA-256 of the decompressed text of a gzip file (of the bytes otherwise)."""
    with path.open("rb") as fh:
        if fh.read(2) != b"\x1f\x8b":  # the gzip magic number (RFC 1952)
            return file_sha256(path)
    h = hashlib.sha256()
    try:
        with gzip.open(path, "rb") as fh:
            while block := fh.read(_CHUNK):
                h.update(block)
    except (OSError, EOFError) as exc:
        raise ConfigError(f"{path}: not a valid gzip file ({exc})") from None
    return h.hexdigest()


def fetch(
    name: str,
    *,
    dest: Path | None = None,
    table: Mapping[str, KnownTrace] | None = None,
    timeout: float = 60.0,
) -> Path:
    """Download trace ``name`` into ``dest`` (default :func:`cache_dir`) and verify it.

    An already cached file that verifies is not downloaded again.

    Args:
        name: the archive file name.
        dest: the folder to store it in.
        table: the checksum table (default: the one shipped, :func:`known`).
        timeout: seconds to wait for the server.

    Raises:
        UnknownNameError: ``name`` is not in the table.
        ConfigError: the download failed, or its checksum does not match (nothing is kept).
    """
    rows = known() if table is None else table
    if name not in rows:
        raise UnknownNameError("trace", name, rows)
    row = rows[name]
    folder = cache_dir() if dest is None else Path(dest)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    if target.is_file() and content_sha256(target) == row.sha256:
        return target
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(row.url, timeout=timeout) as resp:
            shutil.copyfileobj(resp, out, _CHUNK)
        got = content_sha256(Path(tmp))
        if got != row.sha256:
            raise ConfigError(
                f"{row.url}: checksum mismatch for {name} (SHA-256 of the content {got}, "
                f"expected {row.sha256}); the download was discarded"
            )
        os.replace(tmp, target)
    except (urllib.error.URLError, OSError) as exc:
        raise ConfigError(f"cannot download {name} from {row.url}: {exc}") from None
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target
