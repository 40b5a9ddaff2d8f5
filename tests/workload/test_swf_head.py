"""The limited read (``swf._read_head``) reads blocks, not lines: it must give exactly
what the line-by-line rule gives (the rule as it stood before blocks, written out
here), on any text, limit, counting budget and block size."""

from __future__ import annotations

import gzip
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.workload import swf

TRACES = Path(__file__).resolve().parents[2] / ".." / "shared" / "traces"


def _by_lines(data: bytes, limit: int, budget: int) -> tuple[bytes, int, bool]:
    """The rule, one line at a time: header, comment and blank lines kept until the
    limit is reached (all of them when it is 0), data lines kept up to the limit, then
    counted (their bytes too) until the budget is passed."""
    kept: list[bytes] = []
    taken = skipped = scanned = 0
    complete = True
    for line in data.splitlines(keepends=True) if b"\r" not in data else _nl_lines(data):
        if not line.split(b";", 1)[0].strip():
            if taken < limit or not taken:
                kept.append(line)
            continue
        if taken < limit:
            kept.append(line)
            taken += 1
            continue
        skipped += 1
        scanned += len(line)
        if scanned > budget:
            complete = False
            break
    text = b"".join(kept).removeprefix(b"\xef\xbb\xbf")
    if b"\r" in text:
        text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return text, skipped, complete


def _nl_lines(data: bytes) -> list[bytes]:
    parts = data.split(b"\n")
    last = parts.pop()
    return [p + b"\n" for p in parts] + ([last] if last else [])


PIECES = [
    b"1 2 3\n", b"; MaxProcs: 8\n", b"\n", b"  \n", b" \t \r\n", b"4 5 6\r\n",
    b"7 8 ; note\n", b"9\r", b"\xef\xbb\xbf", b"  ; c\n", b"10 11 12", b"\x0b\n",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    body=st.lists(st.sampled_from(PIECES), max_size=40).map(b"".join),
    limit=st.integers(0, 12),
    budget=st.sampled_from([0, 7, 30, 8 * 2**20]),
    block=st.sampled_from([1, 3, 16, 1 << 18]),
    gz=st.booleans(),
)
def test_blocks_read_as_lines(
    body: bytes, limit: int, budget: int, block: int, gz: bool, tmp_path_factory
) -> None:
    path = tmp_path_factory.mktemp("head") / ("t.swf.gz" if gz else "t.swf")
    path.write_bytes(gzip.compress(body) if gz else body)
    with (
        patch.object(swf, "COUNT_BUDGET", budget),
        patch.object(swf._blocks, "__defaults__", (block,)),
    ):
        assert swf._read_head(str(path), limit) == _by_lines(body, limit, budget)


@pytest.mark.slow
def test_archive_traces_read_as_lines() -> None:
    """Every archive trace, at limits from none to all of it."""
    traces = sorted(TRACES.glob("*.swf*")) if TRACES.is_dir() else []
    if not traces:
        pytest.skip("needs the archive traces in ../shared/traces")
    for path in traces:
        raw = path.read_bytes()
        body = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        for limit in (0, 1, 1000, 10**9):
            assert swf._read_head(str(path), limit) == _by_lines(body, limit, swf.COUNT_BUDGET), (
                path.name,
                limit,
            )
