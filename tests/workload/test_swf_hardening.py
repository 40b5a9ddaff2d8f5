"""The reader against the damage that fuzzing archive traces found, and a fuzz test.

Every malformed input must give a :class:`~cosched.errors.CoschedError` naming the
file (and, where there is one, the line and field), never another exception and never
a silently different table.
"""

from __future__ import annotations

import contextlib
import gzip
import zlib
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.errors import CoschedError, WorkloadFormatError
from cosched.workload.job import SWF_FIELDS
from cosched.workload.loader import load_workload
from cosched.workload.swf import MAX_EXACT_INT, read_swf
from tests.workload.test_swf import EXAMPLE, HEADER, TRACES, job_line, write_text


def test_a_corrupt_gzip_member_names_the_file(tmp_path: Path) -> None:
    good = gzip.compress((HEADER + job_line(1) + "\n" + job_line(2) + "\n").encode() * 50)
    # Keep the gzip header, break the deflate stream in the middle.
    bad = good[:20] + bytes(b ^ 0xFF for b in good[20:40]) + good[40:]
    path = tmp_path / "t.swf.gz"
    path.write_bytes(bad)
    with pytest.raises(zlib.error):
        gzip.decompress(bad)  # what the reader used to let through
    with pytest.raises(WorkloadFormatError, match="corrupt gzip data") as err:
        read_swf(path)
    assert err.value.path == str(path)


def _text(n: int) -> bytes:
    return (HEADER + "".join(job_line(k) + "\n" for k in range(1, n + 1))).encode()


@pytest.mark.parametrize(
    "compress",
    [
        gzip.compress,  # one member: one zlib call
        lambda t: gzip.compress(t[:100]) + gzip.compress(t[100:]),  # two: GzipFile
        lambda t: gzip.compress(t) + bytes(16),  # zero padding after it: GzipFile
    ],
)
def test_a_gzip_trace_reads_as_its_text(tmp_path: Path, compress: object) -> None:
    plain, packed = tmp_path / "t.swf", tmp_path / "t.swf.gz"
    plain.write_bytes(_text(40))
    packed.write_bytes(compress(_text(40)))  # type: ignore[operator]
    assert read_swf(packed).table.equals(read_swf(plain).table)


@pytest.mark.parametrize("damage", ["crc", "length", "truncated", "deflate", "garbage after"])
def test_a_damaged_gzip_gives_gzipfiles_own_message(tmp_path: Path, damage: str) -> None:
    # The one-call path gives up on anything but one valid member; GzipFile then reads
    # the file and its message is GzipFile's own.
    good = gzip.compress(_text(40))
    bad = {
        "crc": good[:-8] + bytes(b ^ 1 for b in good[-8:-4]) + good[-4:],
        "length": good[:-4] + bytes(b ^ 1 for b in good[-4:]),
        "truncated": good[:-20],
        "deflate": good[:20] + bytes(b ^ 0xFF for b in good[20:40]) + good[40:],
        "garbage after": good + b"not gzip",
    }[damage]
    path = tmp_path / "t.swf.gz"
    path.write_bytes(bad)
    messages = []
    for limit in (2 << 20, -1):  # the one-call path allowed, then never taken
        with (
            patch("cosched.workload.swf.ONE_CALL_GZIP_BYTES", limit),
            pytest.raises(CoschedError) as err,
        ):
            read_swf(path)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert str(path) in messages[0]


def test_a_twenty_digit_header_count_is_an_error_naming_the_key(tmp_path: Path) -> None:
    text = "; Version: 2.2\n; MaxProcs: 10000000000000000000\n" + job_line(1) + "\n"
    with pytest.raises(WorkloadFormatError, match="header value too large") as err:
        read_swf(write_text(tmp_path, text))
    assert (err.value.line, err.value.field) == (2, "MaxProcs")


def test_a_twenty_digit_job_id_is_an_error_not_a_wrapped_number(tmp_path: Path) -> None:
    text = HEADER + job_line(1) + "\n" + job_line(2).replace("2 ", "12345678901234567890 ", 1)
    with pytest.raises(WorkloadFormatError, match="too large") as err:
        read_swf(write_text(tmp_path, text + "\n"))
    assert (err.value.line, err.value.field) == (5, "job_id")


def test_the_largest_exact_integer_is_read_exactly(tmp_path: Path) -> None:
    text = HEADER + job_line(1).replace("1 ", f"{MAX_EXACT_INT} ", 1) + "\n"
    assert int(read_swf(write_text(tmp_path, text)).table["job_id"][0]) == MAX_EXACT_INT


@pytest.mark.parametrize("parser", ["python", "pandas", "compiled", "numba", "numpy"])
@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (str(MAX_EXACT_INT), None),  # 2^53 is held exactly: accepted
        (f"{MAX_EXACT_INT}.0", None),
        (str(MAX_EXACT_INT + 1), "too large to be held exactly"),  # float64 reads 2^53
        (f"{MAX_EXACT_INT + 1}.0", "too large to be held exactly"),
        ("9.007199254740993e15", "too large to be held exactly"),
        (f"{2**52}.5", "non-integer value"),  # float64 reads 2^52
    ],
)
def test_the_2_53_bound_is_checked_on_the_text_by_every_parser(
    tmp_path: Path, parser: str, value: str, problem: str | None
) -> None:
    # Enough lines for the compiled and pandas parsers to take the block; the value on
    # the last line (file line 3 + 3000).
    lines = [job_line(k) for k in range(1, 3000)] + [job_line(3000, run_time=value)]
    path = write_text(tmp_path, HEADER + "\n".join(lines) + "\n")
    kind, got = _read_with(path, parser)
    if problem is None:
        assert kind == "table", got
        assert got[0][SWF_FIELDS.index("run_time")][-1] == float(MAX_EXACT_INT)  # type: ignore[index]
        return
    assert kind == "error"
    assert f"{path}:3003: field 'run_time' " in str(got) and problem in str(got)
    assert f"(got '{value}')" in str(got)


@pytest.mark.parametrize("parser", ["python", "pandas", "compiled", "numba", "numpy"])
@pytest.mark.parametrize(
    ("field", "value"),
    [("run_time", "1_000"), ("job_id", "3_000"), ("requested_memory", "2_5.5"),
     ("status", "-1_0")],
)  # fmt: skip
def test_underscore_digits_are_refused_by_every_parser(
    tmp_path: Path, parser: str, field: str, value: str
) -> None:
    # Python's float reads "1_000" as 1000; the SWF rules (decimal digits, an optional
    # sign and point) do not. The value on the last line (file line 3 + 3000).
    lines = [job_line(k) for k in range(1, 3000)] + [job_line(3000, **{field: value})]
    path = write_text(tmp_path, HEADER + "\n".join(lines) + "\n")
    kind, got = _read_with(path, parser)
    assert kind == "error", got
    assert f"{path}:3003: field '{field}' not a plain decimal number" in str(got)
    assert f"(got '{value}')" in str(got)


def test_an_underscore_header_count_is_refused_not_read_as_its_first_digits(
    tmp_path: Path,
) -> None:
    text = "; Version: 2.2\n; MaxProcs: 1_000\n" + job_line(1) + "\n"
    with pytest.raises(WorkloadFormatError, match="not a plain decimal number") as err:
        read_swf(write_text(tmp_path, text))
    assert (err.value.line, err.value.field) == (2, "MaxProcs")


def test_the_2_53_bound_holds_for_a_limited_and_a_streamed_read(tmp_path: Path) -> None:
    from cosched.workload.swf import SwfStream

    text = HEADER + job_line(1) + "\n" + job_line(2, run_time=str(MAX_EXACT_INT + 1)) + "\n"
    path = write_text(tmp_path, text)
    with pytest.raises(WorkloadFormatError, match="too large") as err:
        read_swf(path, limit=2)
    assert (err.value.line, err.value.field) == (5, "run_time")
    with pytest.raises(WorkloadFormatError, match="too large") as err:
        list(SwfStream(path))
    assert (err.value.line, err.value.field) == (5, "run_time")


def test_duplicate_job_ids_name_both_lines(tmp_path: Path) -> None:
    text = HEADER + "\n".join([job_line(1), job_line(2), job_line(1).replace("10", "30", 1)])
    with pytest.raises(
        WorkloadFormatError, match=r"job id 1 appears again \(first on line 4\)"
    ) as e:
        read_swf(write_text(tmp_path, text + "\n"))
    assert (e.value.line, e.value.field) == (6, "job_id")


def test_one_extra_field_on_every_line_is_refused_not_shifted(tmp_path: Path) -> None:
    # pandas used to read the first column as an index and shift every field by one.
    text = HEADER + "\n".join(job_line(k) + " 7" for k in (1, 2, 3)) + "\n"
    with pytest.raises(WorkloadFormatError, match="expected 18 fields, found 19") as err:
        read_swf(write_text(tmp_path, text))
    assert err.value.line == 4


# -- fuzzing --------------------------------------------------------------------------


def _real_lines() -> list[str]:
    """The first 300 lines of KTH-SP2 when the shared traces are there, else the bundled
    example (a real-format file of the same shape)."""
    kth = TRACES / "KTH-SP2-1996-2.1-cln.swf.gz"
    text = gzip.decompress(kth.read_bytes()).decode() if kth.exists() else EXAMPLE.read_text()
    return text.splitlines()[:300]


LINES = _real_lines()
FIRST_JOB = next(k for k, line in enumerate(LINES) if not line.startswith(";"))
TOKENS = st.sampled_from(
    [
        "",
        "-1",
        "0",
        "-2",
        "1.5",
        "nan",
        "inf",
        "1e400",
        "x",
        "12345678901234567890",
        ";",
        "\t",
        "1_000",
        "1_0.5",
        "-1_0",
    ]
)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(0, len(lines) - 1))
        tokens = lines[k].split()
        kind = draw(st.sampled_from(["replace", "drop", "add", "duplicate", "bytes", "header"]))
        if kind == "replace" and tokens:
            tokens[draw(st.integers(0, len(tokens) - 1))] = draw(TOKENS)
            lines[k] = " ".join(tokens)
        elif kind == "drop" and tokens:
            del tokens[draw(st.integers(0, len(tokens) - 1))]
            lines[k] = " ".join(tokens)
        elif kind == "add":
            lines[k] = lines[k] + " " + draw(TOKENS)
        elif kind == "duplicate":
            lines.insert(k, lines[max(k, FIRST_JOB)])
        elif kind == "bytes":
            lines[k] = draw(st.text(max_size=30))
        else:
            key = draw(st.sampled_from(["MaxProcs", "MaxNodes", "MaxJobs", "UnixStartTime"]))
            lines.insert(0, f"; {key}: {draw(TOKENS)}")
    return "\n".join(lines) + "\n"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated(), compress=st.booleans())
def test_mutated_real_lines_give_a_named_error_or_a_sound_table(
    tmp_path_factory: pytest.TempPathFactory, text: str, compress: bool
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / ("t.swf.gz" if compress else "t.swf")
    data = text.encode("utf-8", "surrogatepass")
    path.write_bytes(gzip.compress(data) if compress else data)
    try:
        trace = read_swf(path)
    except WorkloadFormatError as exc:
        assert exc.path == str(path)
        return
    table = trace.table
    assert list(table.columns) == list(SWF_FIELDS)
    assert table["job_id"].is_unique and (table["job_id"] > 0).all()
    # The loader may refuse too (a job wider than the machine), but only by name.
    with contextlib.suppress(CoschedError):
        load_workload(path)


def test_a_limit_reads_only_the_head_of_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cosched.workload import swf
    from cosched.workload.loader import load_workload_with_report

    lines = [job_line(k) for k in range(1, 6)] + ["this line is never parsed"]
    path = write_text(tmp_path, HEADER + "\n".join(lines) + "\n")
    with pytest.raises(WorkloadFormatError):
        read_swf(path)  # the whole file: the bad line is an error
    w, counts = load_workload_with_report(path, limit=2)
    assert list(w.table["job_id"]) == [1, 2] and w.max_procs == 64
    assert counts["limit"] == 4  # lines 3-5 and the unparsed one, counted
    assert "(4 data lines left out after them, limit)" in w.notes[0]
    # Past the counting budget the reader stops: the count is a lower bound, and said so.
    monkeypatch.setattr(swf, "COUNT_BUDGET", 10)
    w, counts = load_workload_with_report(path, limit=2)
    assert counts["limit"] == 1 and "at least 1 data lines left out" in w.notes[0]
    assert "not read" in w.notes[0]
    w, counts = load_workload_with_report(path, limit=0)
    assert len(w) == 0 and w.max_procs == 64  # the header is read all the same


# -- the two fast parsers ----------------------------------------------------------------


#: How each parser is chosen: the compiled parser for long files or after KERNEL_AFTER
#: blocks (and for blocks from AOT_PARSE_BYTES when it is built ahead of time), else
#: numpy's (VECTOR_PARSE), then Python's split below PYTHON_PARSE_BYTES, pandas
#: otherwise. The compiled parser is the one built ahead of time (``cosched.compile``)
#: when ``ENABLED`` and built, else numba's.
_NO_KERNEL = {"KERNEL_FOR_LONG_FILES": False, "KERNEL_AFTER": 2**40, "AOT_PARSE_BYTES": 2**40}
_KERNEL = {"PYTHON_PARSE_BYTES": 0, "KERNEL_FOR_LONG_FILES": True, "KERNEL_AFTER": 0}
PARSERS: dict[str, dict[str, object]] = {
    "python": {"PYTHON_PARSE_BYTES": 2**40, "VECTOR_PARSE": False, **_NO_KERNEL},
    "pandas": {"PYTHON_PARSE_BYTES": 0, "VECTOR_PARSE": False, **_NO_KERNEL},
    "compiled": _KERNEL,
    "numba": {**_KERNEL, "ENABLED": False},
    "numpy": {"PYTHON_PARSE_BYTES": 2**40, "VECTOR_PARSE": True, **_NO_KERNEL},
}


def _read_with(path: Path, parser: str) -> tuple[str, object]:
    """``read_swf(path)`` with one parser first: the error text, or the table as
    arrays with the line numbers."""
    import cosched.compile as cc
    from cosched.workload import swf

    with contextlib.ExitStack() as stack:
        for name, value in PARSERS[parser].items():
            stack.enter_context(patch.object(cc if name == "ENABLED" else swf, name, value))
        try:
            trace = read_swf(path)
        except WorkloadFormatError as exc:
            return "error", str(exc)
    cols = trace.columns
    return "table", ([cols[f].tolist() for f in SWF_FIELDS], trace.line_numbers.tolist())


def _same(a: tuple[str, object], b: tuple[str, object]) -> bool:
    # NaN (missing) compares unequal to itself: compare through repr.
    return repr(a) == repr(b)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated())
def test_the_python_and_pandas_parsers_agree_on_mutated_lines(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    # Both refuse the same line with the same message (the line-by-line pass names it),
    # or both read the same values.
    path = tmp_path_factory.mktemp("parsers") / "t.swf"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    assert _same(_read_with(path, "python"), _read_with(path, "pandas"))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated(), piece=st.sampled_from([64, 1000, 1 << 18]))
def test_the_numpy_and_python_parsers_agree_on_mutated_lines(
    tmp_path_factory: pytest.TempPathFactory, text: str, piece: int
) -> None:
    # Read in pieces of a few lines too, so that every piece boundary is exercised.
    from cosched.workload import _swf_vector

    path = tmp_path_factory.mktemp("parsers") / "t.swf"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    with patch.object(_swf_vector, "PIECE_BYTES", piece):
        assert _same(_read_with(path, "python"), _read_with(path, "numpy"))


@pytest.mark.slow
@pytest.mark.skipif(not TRACES.is_dir(), reason="needs the archive traces in ../shared/traces")
@pytest.mark.parametrize(
    "path",
    sorted(TRACES.glob("*.swf.gz")) if TRACES.is_dir() else [],
    ids=lambda p: p.name.split(".")[0],
)
def test_the_parsers_agree_on_every_archive_trace(path: Path) -> None:
    kind, got = _read_with(path, "pandas")
    assert kind == "table", got
    assert _same((kind, got), _read_with(path, "python")), path.name
    assert _same((kind, got), _read_with(path, "compiled")), path.name
    assert _same((kind, got), _read_with(path, "numba")), path.name
    assert _same((kind, got), _read_with(path, "numpy")), path.name


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [("submit_time", "2.5", "non-integer value"), ("run_time", "-3", "negative value"),
     ("requested_memory", "-2.5", "negative value"), ("job_id", "0", "job id must be"),
     ("job_id", "-1", "job id must be"), ("job_id", "1.5", "non-integer value")],
)  # fmt: skip
def test_the_numpy_parser_s_values_are_checked_like_the_others(
    tmp_path: Path, field: str, value: str, problem: str
) -> None:
    text = HEADER + job_line(1) + "\n" + job_line(2, **{field: value}) + "\n"
    with pytest.raises(WorkloadFormatError, match=problem) as err:
        read_swf(write_text(tmp_path, text))
    assert (err.value.line, err.value.field) == (5, field)


def test_signed_and_fractional_fields_take_what_the_others_refuse(tmp_path: Path) -> None:
    line = job_line(2, status="-4", think_time="-7", requested_memory="2.5", avg_cpu_time=".25")
    trace = read_swf(write_text(tmp_path, HEADER + job_line(1) + "\n" + line + "\n"))
    row = {f: trace.columns[f][1] for f in SWF_FIELDS}
    assert (row["status"], row["think_time"]) == (-4, -7)
    assert (row["requested_memory"], row["avg_cpu_time"]) == (2.5, 0.25)
