"""Tests of the SWF reader and writer."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.errors import WorkloadFormatError
from cosched.workload.job import SWF_FIELDS, Workload
from cosched.workload.loader import load_workload
from cosched.workload.swf import SwfHeader, SwfTrace, read_swf
from cosched.workload.swf_write import write_swf

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / ".." / "shared" / "traces"
EXAMPLE = REPO / "src" / "cosched" / "data" / "example.swf"

GOOD = "1 0 10 100 4 95.5 -1 4 200 -1 1 3 2 -1 1 1 -1 -1"


def trace_path(name: str) -> Path:
    """A shared trace, or skip the test when the shared traces are not there."""
    path = TRACES / name
    if not path.exists():
        pytest.skip(f"shared trace {name} not found under {TRACES.resolve()}")
    return path


def job_line(number: int = 1, /, **values: str) -> str:
    """Valid SWF job line ``number`` with some fields replaced by the given text."""
    tokens = GOOD.split()
    tokens[0] = str(number)
    tokens[1] = str(10 * number)
    for name, text in values.items():
        tokens[SWF_FIELDS.index(name)] = text
    return " ".join(tokens)


def write_text(tmp_path: Path, text: str, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


HEADER = "; Version: 2.2\n; MaxProcs: 64\n;\n"

# One value per field that breaks that field's rule (and only that rule).
BAD_VALUES = {
    "job_id": "0",
    "submit_time": "-5",
    "wait_time": "1.5",
    "run_time": "-2",
    "allocated_procs": "4.5",
    "avg_cpu_time": "-0.5",
    "used_memory": "-3",
    "requested_procs": "2e-1",
    "requested_time": "12x",
    "requested_memory": "abc",
    "status": "1.2",
    "user_id": "-7",
    "group_id": "nan",
    "executable": "0.1",
    "queue": "-2",
    "partition": "inf",
    "preceding_job": "-3",
    "think_time": "one",
}


@pytest.mark.parametrize("field", SWF_FIELDS)
def test_bad_value_names_line_and_field(tmp_path: Path, field: str) -> None:
    bad = BAD_VALUES[field]
    lines = [job_line(1), job_line(2, **{field: bad}), job_line(3, **{field: bad})]
    path = write_text(tmp_path, HEADER + "\n".join(lines) + "\n")
    with pytest.raises(WorkloadFormatError) as info:
        read_swf(path)
    err = info.value
    assert (err.line, err.field, err.value, err.path) == (5, field, bad, str(path))
    assert f"{path}:5" in str(err) and field in str(err)


@pytest.mark.parametrize("field", SWF_FIELDS)
def test_non_numeric_value_in_every_field(tmp_path: Path, field: str) -> None:
    path = write_text(tmp_path, job_line(1) + "\n" + job_line(2, **{field: "-"}) + "\n")
    with pytest.raises(WorkloadFormatError, match="non-numeric") as info:
        read_swf(path)
    assert (info.value.line, info.value.field) == (2, field)


@pytest.mark.parametrize("count", [17, 19, 1])
def test_wrong_field_count(tmp_path: Path, count: int) -> None:
    tokens = (GOOD.split() * 2)[:count]
    path = write_text(tmp_path, HEADER + job_line(1) + "\n" + " ".join(tokens) + "\n")
    with pytest.raises(WorkloadFormatError, match=f"found {count}") as info:
        read_swf(path)
    assert info.value.line == 5 and info.value.field is None


def test_values_allowed_by_the_definition(tmp_path: Path) -> None:
    lines = [
        job_line(1, status="-4", think_time="-30", preceding_job="-1"),
        job_line(2, submit_time="-1", avg_cpu_time="12.25", used_memory="0.5"),
        job_line(3, status="5", requested_memory="1024.125"),
    ]
    trace = read_swf(write_text(tmp_path, "\n".join(lines)))
    t = trace.table
    assert t["status"].tolist() == [-4.0, 1.0, 5.0]
    assert t["think_time"].iloc[0] == -30
    assert np.isnan(t["submit_time"].iloc[1])  # SWF allows -1 (missing) in every field
    assert t["used_memory"].iloc[1] == 0.5


def test_table_types_missing_values_and_line_numbers(tmp_path: Path) -> None:
    text = HEADER + job_line(1) + "\n\n; a comment\n" + job_line(2) + "  ; trailing\n" + job_line(3)
    trace = read_swf(write_text(tmp_path, text))
    assert isinstance(trace, SwfTrace) and len(trace) == 3
    assert list(trace.table.columns) == list(SWF_FIELDS)
    dtypes = trace.table.dtypes
    assert dtypes["job_id"] == np.int64
    assert all(dtypes[f] == np.float64 for f in SWF_FIELDS[1:])
    assert trace.table["used_memory"].isna().all()  # -1 is "missing"
    assert trace.table["avg_cpu_time"].iloc[0] == 95.5
    assert trace.line_numbers.tolist() == [4, 7, 8]


def test_first_bad_line_is_reported_after_comments(tmp_path: Path) -> None:
    text = HEADER + job_line(1) + "\n; note\n\n" + job_line(2, run_time="x") + "\n" + job_line(3)
    with pytest.raises(WorkloadFormatError) as info:
        read_swf(write_text(tmp_path, text))
    assert info.value.line == 7


@pytest.mark.parametrize("text", ["", "\n\n", HEADER, "; only: a header"])
def test_empty_and_header_only_files_have_no_jobs(tmp_path: Path, text: str) -> None:
    trace = read_swf(write_text(tmp_path, text))
    assert len(trace) == 0 and list(trace.table.columns) == list(SWF_FIELDS)
    assert trace.table["job_id"].dtype == np.int64
    assert len(trace.line_numbers) == 0


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "nope.swf"
    with pytest.raises(WorkloadFormatError, match=r"nope\.swf"):
        read_swf(path)


def test_gzip_is_detected_by_magic_bytes(tmp_path: Path) -> None:
    text = HEADER + job_line(1) + "\n" + job_line(2) + "\n"
    plain = read_swf(write_text(tmp_path, text, "plain.swf"))
    gz_named_plain = tmp_path / "x.swf"
    gz_named_plain.write_bytes(gzip.compress(text.encode()))
    plain_named_gz = write_text(tmp_path, text, "y.swf.gz")
    for path in (gz_named_plain, plain_named_gz):
        pd.testing.assert_frame_equal(read_swf(path).table, plain.table)
    bom = tmp_path / "bom.swf"
    bom.write_bytes(b"\xef\xbb\xbf" + text.replace(job_line(2), "  \t\n" + job_line(2)).encode())
    assert read_swf(bom).line_numbers.tolist() == [4, 6]
    crlf = tmp_path / "crlf.swf"
    crlf.write_bytes(text.replace("\n", "\r\n").encode())
    assert read_swf(crlf).line_numbers.tolist() == [4, 5]


HEADER_TEXT = """\
;   --- SWF file converted ---
;       Version: 2.2
; Computer: IBM SP2
; Information: http://www.tc.cornell.edu/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
; MaxJobs: 184  ( 6,  171,   7)
; MaxNodes: 338 (batch partition; 512 total)
; MaxProcs: unknown
; UnixStartTime: 835823160
; EndTime:   Sat May 31 23:11:26 EDT 1997
; Note: first note
;\tsee: http://example.org
; Note: second note
;
;  ignored free text
"""


def test_header_parsing(tmp_path: Path) -> None:
    h = read_swf(write_text(tmp_path, HEADER_TEXT + job_line(1))).header
    assert isinstance(h, SwfHeader)
    assert h.max_jobs == 184 and h.max_nodes == 338 and h.max_procs is None
    assert h.unix_start_time == 835823160 and h.max_records is None
    assert h.computer == "IBM SP2" and h.end_time == "Sat May 31 23:11:26 EDT 1997"
    assert h.note == "first note\nsee: http://example.org\nsecond note"
    assert h.raw["Version"] == "2.2"
    assert h.raw["Information"].splitlines()[1].startswith("http://www.cs.huji")
    assert "http" not in h.raw and "see" not in h.raw
    assert h.comments == tuple(HEADER_TEXT.splitlines())


def test_round_trip_example(tmp_path: Path) -> None:
    trace = read_swf(EXAMPLE)
    assert len(trace) == 300 and trace.header.max_procs == 64 and trace.header.max_nodes == 16
    assert "synthetic" in (trace.header.note or "")
    out = tmp_path / "out.swf"
    write_swf(trace, out)
    again = read_swf(out)
    pd.testing.assert_frame_equal(again.table, trace.table)
    assert again.header.comments == trace.header.comments
    assert out.read_bytes() == EXAMPLE.read_bytes()


@pytest.mark.traces
def test_round_trip_real_trace_gz(tmp_path: Path) -> None:
    trace = read_swf(trace_path("SDSC-Par-1996-3.1-cln.swf.gz"))  # has fractional cpu times
    out = tmp_path / "out.swf.gz"
    write_swf(trace, out)
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    again = read_swf(out)
    pd.testing.assert_frame_equal(again.table, trace.table)
    assert dict(again.header.raw) == dict(trace.header.raw)
    second = tmp_path / "second.swf.gz"
    write_swf(again, second)
    assert second.read_bytes() == out.read_bytes()  # deterministic, even gzip
    w = load_workload(trace)
    write_swf(w, out)
    cols = ["job_id", "submit_time", "run_time", "procs", "requested_time"]
    pd.testing.assert_frame_equal(load_workload(out).table[cols], w.table[cols])


def test_workload_round_trip(tmp_path: Path) -> None:
    w = load_workload(EXAMPLE)
    out = tmp_path / "w.swf"
    write_swf(w, out)
    again = load_workload(read_swf(out))
    cols = ["job_id", "submit_time", "run_time", "procs", "requested_time"]
    pd.testing.assert_frame_equal(again.table[cols], w.table[cols])
    assert again.max_procs == 64
    first = out.read_bytes()
    write_swf(w, out)
    assert out.read_bytes() == first


def test_write_workload_fields_and_header(tmp_path: Path) -> None:
    w = Workload.from_jobs([(0, 4, 100.0, 200.0), (5, 2, 30.5, 60.0)], max_procs=8, max_nodes=2)
    w = w.replace_table(w.table.assign(user_id=[7, np.nan], avg_cpu_time=[1.123456789, 2.5]))
    out = tmp_path / "w.swf"
    write_swf(w, out)
    lines = out.read_text().splitlines()
    assert lines[:2] == ["; MaxNodes: 2", "; MaxProcs: 8"]
    assert " ".join(lines[2].split()) == "1 0 -1 100 4 1.123457 -1 4 200 -1 -1 7 -1 -1 -1 -1 -1 -1"
    # SWF times are integers: the writer rounds the 30.5 s run time.
    assert lines[3].split()[3:5] == ["30", "2"] and lines[3].split()[5] == "2.5"
    write_swf(w, out, header={"Note": "a\nb", "MaxProcs": "8"})
    assert out.read_text().splitlines()[:3] == ["; Note: a", "; Note: b", "; MaxProcs: 8"]
    assert read_swf(out).header.note == "a\nb"
