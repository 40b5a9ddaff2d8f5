"""Traces by name: fetched from a local HTTP server (loopback only), verified, found."""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from cosched.errors import ConfigError, UnknownNameError
from cosched.experiments import traces
from cosched.experiments.traces import KnownTrace, content_sha256, fetch, find_trace, known

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "traces"
SWF = b"; tiny log\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: object) -> None:
        _Quiet.hits.append(self.path)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTP server on 127.0.0.1 serving ``tmp_path/www``: (base URL, folder)."""
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(_Quiet, directory=str(www))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Quiet.hits = []
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/", www
    finally:
        httpd.shutdown()
        httpd.server_close()


def _table(base: str, name: str, sha: str) -> dict[str, KnownTrace]:
    return {name: KnownTrace(name, base + name, sha, "")}


def test_fetch_downloads_verifies_and_caches(
    server: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, www = server
    (www / "Tiny-1.swf.gz").write_bytes(gzip.compress(SWF))
    table = _table(base, "Tiny-1.swf.gz", hashlib.sha256(SWF).hexdigest())
    cache = tmp_path / "cache"
    monkeypatch.setenv("COSCHED_DATA", str(cache))
    path = fetch("Tiny-1.swf.gz", table=table)
    assert path == cache / "Tiny-1.swf.gz" and gzip.decompress(path.read_bytes()) == SWF
    assert _Quiet.hits == ["/Tiny-1.swf.gz"]
    assert fetch("Tiny-1.swf.gz", table=table) == path  # verified copy: no second download
    assert _Quiet.hits == ["/Tiny-1.swf.gz"]
    # Specs find it in the cache by name.
    monkeypatch.chdir(tmp_path)
    assert find_trace("Tiny-1.swf.gz") == path.resolve()


def test_a_checksum_mismatch_is_refused_and_nothing_kept(
    server: tuple[str, Path], tmp_path: Path
) -> None:
    base, www = server
    (www / "Tiny-1.swf.gz").write_bytes(gzip.compress(SWF.replace(b"10", b"11", 1)))
    table = _table(base, "Tiny-1.swf.gz", hashlib.sha256(SWF).hexdigest())
    with pytest.raises(ConfigError, match=r"checksum mismatch for Tiny-1\.swf\.gz"):
        fetch("Tiny-1.swf.gz", dest=tmp_path / "cache", table=table)
    assert list((tmp_path / "cache").iterdir()) == []


def test_missing_file_and_unknown_name_are_clear_errors(
    server: tuple[str, Path], tmp_path: Path
) -> None:
    base, _ = server
    table = _table(base, "Gone-1.swf.gz", "0" * 64)
    with pytest.raises(ConfigError, match=r"cannot download Gone-1\.swf\.gz .*404"):
        fetch("Gone-1.swf.gz", dest=tmp_path, table=table)
    with pytest.raises(UnknownNameError, match="unknown trace 'Nope'"):
        fetch("Nope", dest=tmp_path, table=table)


def test_cli_fetch(
    server: tuple[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cosched.cli.main import main

    base, www = server
    (www / "Tiny-1.swf.gz").write_bytes(gzip.compress(SWF))
    table = _table(base, "Tiny-1.swf.gz", hashlib.sha256(SWF).hexdigest())
    monkeypatch.setattr(traces, "known", lambda: table)
    monkeypatch.setenv("COSCHED_DATA", str(tmp_path / "cache"))
    assert main(["trace", "fetch", "Tiny-1.swf.gz"]) == 0
    assert "checksum verified" in capsys.readouterr().out
    assert main(["trace", "fetch", "Nope"]) == 2


def test_the_shipped_table_matches_the_archive_copies() -> None:
    """SOURCES.md of ../shared/traces gives KTH SP2's uncompressed SHA-256."""
    kth = known()["KTH-SP2-1996-2.1-cln.swf.gz"]
    assert kth.sha256 == "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"
    assert kth.url == (
        "https://www.cs.huji.ac.il/labs/parallel/workload/l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz"
    )
    if (SHARED / kth.name).is_file():
        assert content_sha256(SHARED / kth.name) == kth.sha256
