"""The block-at-a-time reader gives what reading the file as one block gives.

Same table and line numbers, or the same error (message, line, field), whatever the
block size: blocks cut lines, ``\\r\\n`` pairs and comments anywhere.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.errors import WorkloadFormatError
from cosched.workload.swf import SwfStream, read_swf
from tests.workload.test_swf import EXAMPLE, HEADER, job_line, write_text
from tests.workload.test_swf_hardening import mutated


def _whole(path: Path) -> tuple[pd.DataFrame, np.ndarray] | WorkloadFormatError:
    try:
        chunks = list(SwfStream(path, block_bytes=1 << 30, check_ids=False))
    except WorkloadFormatError as exc:
        return exc
    return _joined(chunks)


def _joined(chunks: list) -> tuple[pd.DataFrame, np.ndarray]:  # type: ignore[type-arg]
    if not chunks:
        return pd.DataFrame(), np.empty(0, dtype=np.int64)
    table = pd.concat([c.table for c in chunks], ignore_index=True)
    return table, np.concatenate([c.line_numbers for c in chunks])


def _same(path: Path, block: int) -> None:
    expected = _whole(path)
    try:
        got = _joined(list(SwfStream(path, block_bytes=block, check_ids=False)))
    except WorkloadFormatError as exc:
        assert isinstance(expected, WorkloadFormatError), exc
        assert (str(exc), exc.line, exc.field) == (
            str(expected),
            expected.line,
            expected.field,
        )
        return
    assert not isinstance(expected, WorkloadFormatError), expected
    pd.testing.assert_frame_equal(got[0], expected[0])
    assert np.array_equal(got[1], expected[1])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=mutated(),
    block=st.integers(40, 3000),
    crlf=st.booleans(),
    compress=st.booleans(),
)
def test_blocks_of_any_size_give_the_one_block_result(
    tmp_path_factory: pytest.TempPathFactory, text: str, block: int, crlf: bool, compress: bool
) -> None:
    path = tmp_path_factory.mktemp("blocks") / ("t.swf.gz" if compress else "t.swf")
    if crlf:
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8", "surrogatepass")
    path.write_bytes(gzip.compress(data) if compress else data)
    _same(path, block)


def test_read_swf_equals_the_stream_of_the_bundled_example() -> None:
    trace = read_swf(EXAMPLE)
    got = _joined(list(SwfStream(EXAMPLE, block_bytes=100)))
    pd.testing.assert_frame_equal(got[0], trace.table)
    assert np.array_equal(got[1], trace.line_numbers)


def test_an_error_in_a_late_block_names_its_line(tmp_path: Path) -> None:
    lines = [job_line(k) for k in range(1, 200)]
    lines[150] = job_line(151, run_time="x")
    path = write_text(tmp_path, HEADER + "\n".join(lines) + "\n")
    header_lines = HEADER.count("\n")
    with pytest.raises(WorkloadFormatError, match="non-numeric value") as err:
        list(SwfStream(path, block_bytes=256))
    assert (err.value.line, err.value.field) == (header_lines + 151, "run_time")


def test_a_repeated_id_in_another_block_names_both_lines(tmp_path: Path) -> None:
    # Ids grow, then stop growing (kept from then on), then 300 comes again.
    ids = [*range(1, 100), 300, 200, *range(201, 260), 300]
    path = write_text(tmp_path, HEADER + "\n".join(job_line(k) for k in ids) + "\n")
    first = HEADER.count("\n") + 100
    with pytest.raises(
        WorkloadFormatError, match=rf"job id 300 appears again \(first on line {first}\)"
    ):
        list(SwfStream(path, block_bytes=300))


def test_ids_going_back_below_the_unkept_ones_are_refused_by_name(tmp_path: Path) -> None:
    ids = [*range(10, 1000, 10), 5000, 15]  # 15 was never seen, but it could have been
    path = write_text(tmp_path, HEADER + "\n".join(job_line(k) for k in ids) + "\n")
    with pytest.raises(WorkloadFormatError, match="not above the ids before it") as err:
        list(SwfStream(path, block_bytes=300))
    assert err.value.field == "job_id"
    # Read whole, the same file is fine.
    assert len(read_swf(path)) == 101


def _read(path: Path, monkeypatch: pytest.MonkeyPatch, kernel: bool) -> object:
    from cosched.workload import swf

    monkeypatch.setattr(swf, "KERNEL_AFTER", 0 if kernel else 1 << 62)
    monkeypatch.setattr(swf, "VECTOR_PARSE", False)  # Python's or pandas' parser otherwise
    try:
        trace = read_swf(path)
    except WorkloadFormatError as exc:
        return (str(exc), exc.line, exc.field)
    return trace


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    text=mutated(), extra=st.sampled_from(["", "-0", "+5", "007", "1.0", "1e3", "-1", "-7", "0"])
)
def test_the_compiled_parser_reads_what_pandas_reads(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, text: str, extra: str
) -> None:
    lines = text.splitlines()
    if extra:  # one more value written another way, in a random field of a job line
        k = next((i for i, x in enumerate(lines) if x and not x.startswith(";")), None)
        if k is not None and len(lines[k].split()) == 18:
            tokens = lines[k].split()
            tokens[len(extra) % 18] = extra
            lines[k] = " ".join(tokens)
    path = tmp_path_factory.mktemp("kernel") / "t.swf"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8", "surrogatepass"))
    fast, slow = _read(path, monkeypatch, True), _read(path, monkeypatch, False)
    if isinstance(slow, tuple):
        assert fast == slow
        return
    assert not isinstance(fast, tuple), fast
    pd.testing.assert_frame_equal(fast.table, slow.table)  # type: ignore[attr-defined]
    assert np.array_equal(fast.line_numbers, slow.line_numbers)  # type: ignore[attr-defined]


def test_the_compiled_parser_takes_an_ordinary_trace() -> None:
    from cosched.workload.swf import _fast_parse, _kernel_parse, _split_header

    data = EXAMPLE.read_bytes()
    lines, start = _split_header(data)
    got = _kernel_parse(data[start:], len(lines) + 1)
    assert got is not None
    assert np.array_equal(got[0], _fast_parse(data[start:]))
    assert got[1][0] == len(lines) + 1
