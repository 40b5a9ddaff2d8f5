"""Read the Standard Workload Format (SWF) of the Parallel Workloads Archive.

An SWF file is a header of ``;`` comment lines (``; Key: value`` facts such as
``MaxProcs``) followed by one line per job of 18 whitespace-separated numbers, -1
meaning "missing". :func:`read_swf` gives the raw table (no scheduling rules applied;
that is :mod:`cosched.workload.loader`'s job); :mod:`cosched.workload.swf_write` writes
either a raw :class:`SwfTrace` or a :class:`~cosched.workload.job.Workload` back.

Reading goes a block of text at a time (:class:`SwfStream`): a fast parser on the
block (numpy's, :mod:`cosched.workload._swf_vector`, for a file of one block; the
compiled parser for a longer one; Python's own tokeniser or pandas' C parser for what
those refuse), then vectorised checks; only when that fails or a check finds
a problem does a slow line-by-line pass run over the block, so that the error can name
the first bad line, its field and its text. The tables are numpy columns
(:class:`~cosched.workload.columns.Columns`), made DataFrames only when a user reads
``.table``: ``cosched run`` on a small trace never imports pandas.
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import math
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from cosched.errors import ConfigError, WorkloadFormatError
from cosched.workload._swf_vector import parse_text
from cosched.workload.columns import Columns, FrameField
from cosched.workload.job import SWF_FIELDS

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SwfChunk",
    "SwfHeader",
    "SwfStream",
    "SwfTrace",
    "read_swf",
]

_N = len(SWF_FIELDS)
_GZIP_MAGIC = b"\x1f\x8b"

#: Fields that may hold fractional values; every other SWF field is integer-valued.
FRACTIONAL_FIELDS: frozenset[str] = frozenset({"avg_cpu_time", "used_memory", "requested_memory"})
#: Fields that may hold any integer: status codes vary between logs (Sandia-Ross has
#: -4, -2, 12, 70...) and a think time may legitimately be negative.
_SIGNED_FIELDS: frozenset[str] = frozenset({"status", "think_time"})

_INT_COLS = [i for i, f in enumerate(SWF_FIELDS) if f not in FRACTIONAL_FIELDS]
#: Every value passes through float64, which holds integers exactly only up to 2^53; a
#: larger one (a 20-digit job id) would silently change, so it is an error. 2^53 itself
#: is held exactly and accepted.
MAX_EXACT_INT = 2**53
#: From here up float64 has no room for a half (2^52 + 0.5 rounds to a whole number) and
#: from 2^53 it rounds integers (2^53 + 1 reads as 2^53): an integer-field value read as
#: this large is checked again on its text, exactly.
_EXACT_CHECK = 2**52
_NONNEG_COLS = [i for i, f in enumerate(SWF_FIELDS) if f not in _SIGNED_FIELDS]

# A header fact is "; Key: value" with a CamelCase key; requiring an upper-case first
# letter and a blank after the colon keeps continuation lines such as
# ";              http://..." or ";\tsee: http://..." from being read as keys.
_KEY_LINE = re.compile(r"^;\s*([A-Z][A-Za-z0-9_]*)\s*:(?:\s(.*))?$")
_LEADING_INT = re.compile(r"^\s*([+-]?[0-9]+)")
#: A header count written with digit separators (``1_000``): Python's ``int`` and
#: ``float`` take them, SWF does not.
_SEPARATED_INT = re.compile(r"^\s*[+-]?[0-9]+_")
#: Why a token with ``_`` is refused (Python's ``float`` reads ``1_000`` as 1000).
UNDERSCORE = "not a plain decimal number ('_' is not a digit in SWF)"

_INT_FACTS = {
    "max_nodes": "MaxNodes",
    "max_procs": "MaxProcs",
    "max_jobs": "MaxJobs",
    "max_records": "MaxRecords",
    "unix_start_time": "UnixStartTime",
    "max_runtime": "MaxRuntime",
    "max_memory": "MaxMemory",
}
_STR_FACTS = {
    "time_zone_string": "TimeZoneString",
    "start_time": "StartTime",
    "end_time": "EndTime",
    "computer": "Computer",
    "installation": "Installation",
    "acknowledge": "Acknowledge",
    "note": "Note",
}


@dataclass(frozen=True)
class SwfHeader:
    """The header of an SWF file: typed facts, every ``; Key: value`` and the raw lines.

    Integer facts take the leading integer of the value (``184  ( 6, 171, 7)`` gives
    184); a value that does not start with one gives None, never an error.

    Attributes:
        max_nodes: ``MaxNodes``.
        max_procs: ``MaxProcs``.
        max_jobs: ``MaxJobs``.
        max_records: ``MaxRecords``.
        unix_start_time: ``UnixStartTime`` (epoch seconds of submit time 0).
        time_zone_string: ``TimeZoneString``.
        start_time: ``StartTime`` as written.
        end_time: ``EndTime`` as written.
        max_runtime: ``MaxRuntime``.
        max_memory: ``MaxMemory``.
        computer: ``Computer``.
        installation: ``Installation``.
        acknowledge: ``Acknowledge``.
        note: ``Note`` lines joined with newlines.
        raw: every key with its value; repeated keys and continuation lines are
            joined with newlines.
        comments: every header line verbatim (without the line end), for the writer.
    """

    max_nodes: int | None = None
    max_procs: int | None = None
    max_jobs: int | None = None
    max_records: int | None = None
    unix_start_time: int | None = None
    time_zone_string: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    max_runtime: int | None = None
    max_memory: int | None = None
    computer: str | None = None
    installation: str | None = None
    acknowledge: str | None = None
    note: str | None = None
    raw: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    comments: tuple[str, ...] = ()

    @classmethod
    def from_mapping(cls, raw: Mapping[str, str], comments: tuple[str, ...] = ()) -> SwfHeader:
        """Build a header from ``Key -> value`` text, deriving the typed facts.

        Args:
            raw: header keys (as in the file, e.g. ``MaxProcs``) and their values.
            comments: the verbatim header lines, if known.

        Returns:
            The header; unparsable integer facts are None.
        """
        facts: dict[str, int | str | None] = {}
        for attr, key in _INT_FACTS.items():
            m = _LEADING_INT.match(raw.get(key, ""))
            facts[attr] = int(m.group(1)) if m else None
        for attr, key in _STR_FACTS.items():
            facts[attr] = raw.get(key) or None
        return cls(**facts, raw=MappingProxyType(dict(raw)), comments=tuple(comments))  # type: ignore[arg-type]

    @classmethod
    def parse(cls, lines: list[str]) -> SwfHeader:
        """Parse header lines (each starting with ``;``, blank lines allowed).

        Args:
            lines: the header lines without line ends.

        Returns:
            The header with ``comments`` set to the non-blank lines.
        """
        raw: dict[str, str] = {}
        last: str | None = None
        comments: list[str] = []
        for line in lines:
            if not line.strip():
                last = None
                continue
            comments.append(line)
            m = _KEY_LINE.match(line.rstrip())
            if m:
                last = m.group(1)
                value = (m.group(2) or "").strip()
                raw[last] = f"{raw[last]}\n{value}" if last in raw else value
                continue
            text = line[1:].strip()
            if not text:
                last = None  # a bare ";" ends a multi-line value
            elif last is not None and line[1:2].isspace():
                raw[last] = f"{raw[last]}\n{text}"
        return cls.from_mapping(raw, tuple(comments))


@dataclass(frozen=True, eq=False)
class SwfTrace:
    """A raw SWF file: the 18 fields of every job line plus the header.

    Attributes:
        table: one row per data line, columns :data:`~cosched.workload.job.SWF_FIELDS`
            in file order; ``job_id`` is int64, the rest float64 with NaN for -1.
        header: the parsed header.
        path: the file that was read.
        line_numbers: the 1-based file line of each row.
        skipped, complete: see :func:`read_swf`'s ``limit``.
    """

    if TYPE_CHECKING:  # a DataFrame to read; Columns too when built (see FrameField)
        table: pd.DataFrame
    else:
        table: FrameField = FrameField()
    header: SwfHeader
    path: str
    line_numbers: np.ndarray
    #: With ``read_swf(limit=...)``: data lines after the limit that were counted (all
    #: of them when ``complete``; a lower bound otherwise).
    skipped: int = 0
    #: Whether the whole file was read (False: reading stopped after the limit).
    complete: bool = True

    def __len__(self) -> int:
        return len(self.columns)

    @property
    def columns(self) -> Columns:
        """:attr:`table` as numpy columns."""
        return SwfTrace.__dict__["table"].columns(self)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- reading


#: After the ``limit`` data lines, this many more bytes of text are scanned to count
#: the data lines left out; beyond it reading stops (the count is then a lower bound).
COUNT_BUDGET = 8 * 2**20


def _read_head(path: str, limit: int) -> tuple[bytes, int, bool]:
    """The header and the first ``limit`` data lines of ``path`` (plain or gzip), read
    as a stream; then the data lines after them counted within :data:`COUNT_BUDGET`.

    Returns:
        ``(text, skipped, complete)``: the text to parse, the data lines counted after
        the limit, and whether the file was read to its end.
    """
    try:
        with open(path, "rb") as probe:
            magic = probe.read(2)
    except FileNotFoundError:
        raise WorkloadFormatError("no such trace file", path=path) from None
    except IsADirectoryError:
        raise WorkloadFormatError("is a directory, not a trace file", path=path) from None
    opener = gzip.open if magic == _GZIP_MAGIC else open
    lines: list[bytes] = []
    taken = skipped = scanned = 0
    complete = True
    try:
        with opener(path, "rb") as fh:
            for block in _blocks(fh.read):
                # A block of data lines only (the common case) is taken or counted
                # whole; any other block line by line, by the same rules.
                n = block.count(b"\n") + (not block.endswith(b"\n"))
                if b";" not in block and not _has_blank(block):
                    if taken + n <= limit:
                        lines.append(block)
                        taken += n
                        continue
                    if taken == limit and limit and scanned + len(block) <= COUNT_BUDGET:
                        skipped += n
                        scanned += len(block)
                        continue
                for line in _split_keep(block):
                    if not line.split(b";", 1)[0].strip():  # header, comment or blank line
                        if taken < limit or not taken:
                            lines.append(line)
                        continue
                    if taken < limit:
                        lines.append(line)
                        taken += 1
                        continue
                    skipped += 1
                    scanned += len(line)
                    if scanned > COUNT_BUDGET:
                        complete = False
                        break
                if not complete:
                    break
    except (OSError, EOFError, zlib.error) as exc:
        raise WorkloadFormatError(f"corrupt gzip data ({exc})", path=path) from None
    text = b"".join(lines).removeprefix(b"\xef\xbb\xbf")
    if b"\r" in text:
        text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return text, skipped, complete


#: A line of only whitespace (as ``bytes.strip`` counts it) after another line.
_BLANK = re.compile(rb"\n[ \t\r\x0b\x0c]*(?:\n|\Z)")


def _has_blank(block: bytes) -> bool:
    """Whether a block of lines holds a blank line (a search for the line end that
    starts one, which is fast; the first line is checked on its own)."""
    return not block[: block.find(b"\n")].strip() or bool(_BLANK.search(block, 0, len(block) - 1))


def _blocks(read: Callable[[int], bytes], size: int = 1 << 18) -> Iterator[bytes]:
    """A binary stream (its ``read``) as blocks of whole lines, each ending with
    ``\\n`` (but the stream's last line, which may have none)."""
    rest = b""
    while chunk := read(size):
        chunk = rest + chunk
        cut = chunk.rfind(b"\n")
        if cut < 0:
            rest = chunk
            continue
        yield chunk[: cut + 1]
        rest = chunk[cut + 1 :]
    if rest:
        yield rest


def _split_keep(block: bytes) -> list[bytes]:
    """The lines of ``block`` split at ``\\n`` only, each with its line end."""
    parts = block.split(b"\n")
    last = parts.pop()
    out = [p + b"\n" for p in parts]
    if last:
        out.append(last)
    return out


def _decode(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("latin-1")


def _split_header(data: bytes) -> tuple[list[str], int]:
    """The leading comment/blank lines and the byte offset where job lines start."""
    lines: list[str] = []
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        line = data[pos:end]
        stripped = line.strip()
        if stripped and not stripped.startswith(b";"):
            break
        lines.append(_decode(line))
        pos = end + 1
    return lines, min(pos, len(data))


def _value_problem(j: int, v: float, text: bytes = b"") -> str | None:
    """Why value ``v`` (read from ``text``) is not acceptable in SWF field ``j`` (None
    if it is). A large value in an integer field is judged on ``text``, exactly: the
    float may have rounded ``2^53 + 1`` down to ``2^53`` or a fraction away."""
    name = SWF_FIELDS[j]
    if not math.isfinite(v):
        return "non-numeric value"
    if b"_" in text:
        return UNDERSCORE
    if name not in FRACTIONAL_FIELDS and abs(v) >= _EXACT_CHECK and text:
        from decimal import Decimal, InvalidOperation  # only for these rare values
        from fractions import Fraction

        try:
            exact = Fraction(Decimal(text.decode("ascii", "replace")))
        except (InvalidOperation, ValueError):
            return "non-numeric value"
        if exact.denominator != 1:
            return "non-integer value in an integer field"
        if abs(exact) > MAX_EXACT_INT:
            return f"integer too large to be held exactly (more than 2^53 = {MAX_EXACT_INT})"
    if name not in FRACTIONAL_FIELDS and v != math.floor(v):
        return "non-integer value in an integer field"
    if name not in FRACTIONAL_FIELDS and abs(v) > MAX_EXACT_INT:
        return f"integer too large to be held exactly (more than 2^53 = {MAX_EXACT_INT})"
    if name == "job_id" and v <= 0:
        return "job id must be a positive integer"
    if name not in _SIGNED_FIELDS and v < 0 and v != -1:
        return "negative value (only -1, meaning missing, is allowed)"
    return None


def _bad_rows(a: np.ndarray) -> bool:
    """Whether any value of the raw (n, 18) array breaks a rule of :func:`_value_problem`."""
    if not np.isfinite(a).all():
        return True
    ints = a[:, _INT_COLS]
    if (ints != np.floor(ints)).any() or (np.abs(ints) >= _EXACT_CHECK).any():
        return True  # a large one to the line-by-line pass, which reads its text exactly
    nonneg = a[:, _NONNEG_COLS]
    return bool(((nonneg < 0) & (nonneg != -1)).any() or (a[:, 0] <= 0).any())


_INTEGER = np.array([f not in FRACTIONAL_FIELDS for f in SWF_FIELDS])
_NONNEG = np.array([f not in _SIGNED_FIELDS for f in SWF_FIELDS])


def _bad_parsed_rows(a: np.ndarray, pointed: np.ndarray) -> bool:
    """:func:`_bad_rows` for the numpy parser's values, which are finite and below
    10^15, and whole except perhaps those written with a point (``pointed``)."""
    flat = a.reshape(-1)
    fields = pointed % _N
    part = flat[pointed]
    if (_INTEGER[fields] & (part != np.floor(part))).any():
        return True
    negative = np.flatnonzero(flat < 0)
    fields = negative % _N
    if (_NONNEG[fields] & (flat[negative] != -1)).any():
        return True
    return bool((a[:, 0] <= 0).any())


def _slow_parse(data: bytes, path: str, first_line: int) -> tuple[np.ndarray, np.ndarray]:
    """Parse job lines one by one; raise on the first bad one.

    Args:
        data: the text after the header.
        path: file name for messages.
        first_line: the 1-based file line number of the first line of ``data``.

    Returns:
        The raw (n, 18) values and the 1-based line numbers of the rows.
    """
    rows: list[list[float]] = []
    numbers: list[int] = []
    for k, line in enumerate(data.split(b"\n")):
        tokens = line.split(b";", 1)[0].split()
        if not tokens:
            continue
        lineno = first_line + k
        if len(tokens) != _N:
            raise WorkloadFormatError(
                f"expected {_N} fields, found {len(tokens)}",
                path=path,
                line=lineno,
                value=_decode(line.strip()),
            )
        values = []
        for j, tok in enumerate(tokens):
            try:
                v = float(tok)
            except ValueError:
                v = math.nan
            problem = _value_problem(j, v, tok)
            if problem:
                text = _decode(tok)
                raise WorkloadFormatError(
                    problem, path=path, line=lineno, field=SWF_FIELDS[j], value=text
                )
            values.append(v)
        rows.append(values)
        numbers.append(lineno)
    return np.array(rows, dtype=np.float64).reshape(-1, _N), np.array(numbers, dtype=np.int64)


#: A block of job lines shorter than this is split and converted by Python's own
#: ``bytes.split`` and ``float`` (about 4.5 us a line); a longer one goes to pandas' C
#: parser (0.8 us a line, but loading pandas costs about 0.3 s of CPU). Break-even
#: near 70,000 lines; measured in docs/performance.md. The choice depends on the size
#: alone, so a file is always read by the same parser.
PYTHON_PARSE_BYTES = 6 * 2**20


#: Whether a block goes first to the parser in numpy's compiled code
#: (:mod:`cosched.workload._swf_vector`: about 0.3 us a line on a small trace, 1 us on a
#: large one, nothing more to load); the parsers below take what it refuses.
VECTOR_PARSE = True


def _python_parse(body: bytes) -> np.ndarray | None:
    """All job lines split by Python, or None when a line is not 18 plain tokens."""
    if b";" in body or b"_" in body:
        # Comments among the jobs: the other parsers handle them; ``1_000``, which
        # Python's ``float`` reads as 1000: the line-by-line pass refuses it.
        return None
    rows = list(map(bytes.split, body.split(b"\n")))
    counts = set(map(len, rows))
    counts.discard(0)  # blank lines
    if counts - {_N}:
        return None
    n = sum(map(bool, rows))
    try:
        values = np.fromiter(
            map(float, itertools.chain.from_iterable(rows)), dtype=np.float64, count=n * _N
        )
    except ValueError:
        return None
    return values.reshape(n, _N)


def _fast_parse(body: bytes) -> np.ndarray | None:
    """All job lines through a fast parser, or None when the parser refuses them."""
    if len(body) < PYTHON_PARSE_BYTES:
        return _python_parse(body)
    import pandas as pd

    try:
        # No ``names``: with names, pandas takes a file whose every line has one extra
        # field as having an index column and shifts every field by one.
        df = pd.read_csv(
            io.BytesIO(body),
            sep=r"\s+",
            header=None,
            comment=";",
            dtype=np.float64,
            na_filter=False,  # so "", "NA" or a short line fail instead of becoming NaN
            quoting=csv.QUOTE_NONE,
            engine="c",
        )
    except (ValueError, pd.errors.ParserError):
        return None
    if df.shape[1] != _N:
        return None  # the line-by-line pass names the first line with another count
    return df.to_numpy(dtype=np.float64)


def _line_numbers(body: bytes, n_rows: int, first_line: int) -> np.ndarray:
    n_lines = body.count(b"\n") + (1 if body and not body.endswith(b"\n") else 0)
    if n_lines == n_rows:  # the usual case: no comment or blank line among the jobs
        return np.arange(first_line, first_line + n_rows, dtype=np.int64)
    numbers = [
        first_line + k for k, line in enumerate(body.split(b"\n")) if line.split(b";", 1)[0].strip()
    ]
    return np.array(numbers, dtype=np.int64)


def _to_table(a: np.ndarray) -> Columns:
    """The raw (n, 18) values as columns, -1 made NaN (``a`` may be overwritten)."""
    fields = np.ascontiguousarray(a.T)  # each field's values contiguous (one copy at most)
    rest = fields[1:]
    rest[rest == -1] = np.nan
    cols = Columns()
    cols[SWF_FIELDS[0]] = fields[0].astype(np.int64)
    for name, col in zip(SWF_FIELDS[1:], rest, strict=True):
        cols[name] = col
    return cols


#: Bytes of text parsed at a time by :class:`SwfStream` (about 100,000 job lines).
BLOCK_BYTES = 8 * 2**20


def _open_trace(path: str) -> BinaryIO:
    """``path`` opened for reading bytes, through gzip when it starts with its magic."""
    try:
        probe = open(path, "rb")  # noqa: SIM115 (returned open)
    except FileNotFoundError:
        raise WorkloadFormatError("no such trace file", path=path) from None
    except IsADirectoryError:
        raise WorkloadFormatError("is a directory, not a trace file", path=path) from None
    if probe.read(2) != _GZIP_MAGIC:
        probe.seek(0)
        return probe
    probe.seek(0)
    if os.fstat(probe.fileno()).st_size <= ONE_CALL_GZIP_BYTES:
        text = _one_member_text(probe.read())
        if text is not None:
            probe.close()
            return io.BytesIO(text)  # shares ``text``: a whole read returns it uncopied
        probe.seek(0)
    return gzip.GzipFile(fileobj=probe, mode="rb")  # type: ignore[return-value]


#: A gzip file up to this size is decompressed by one ``zlib`` call when it is one
#: whole member (every archive trace but the largest): ``GzipFile`` decompresses in 8
#: KiB steps and checks the CRC in Python, 2-4 ms more on SDSC-SP2's 1.2 MB (docs/
#: performance.md, "The fixed cost of a run"). Anything else (several members, trailing
#: bytes, a corrupt or truncated stream) is read by ``GzipFile``, so every error message
#: is its own.
ONE_CALL_GZIP_BYTES = 2 << 20


def _one_member_text(raw: bytes) -> bytes | None:
    """The text of ``raw`` if it is exactly one valid gzip member (zlib checks the
    header, the CRC and the length), else None."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        text = inflater.decompress(raw)
    except zlib.error:
        return None
    return text if inflater.eof and not inflater.unused_data else None


def _normalised_blocks(fh: BinaryIO, size: int, path: str) -> Iterator[bytes]:
    """The file's text in blocks of whole lines, ``\r\n`` and ``\r`` made ``\n``."""
    rest = b""
    first = True
    while True:
        try:
            data = fh.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise WorkloadFormatError(f"corrupt gzip data ({exc})", path=path) from None
        if first:
            data, first = data.removeprefix(b"\xef\xbb\xbf"), False
        if not data:
            if rest:
                yield rest.replace(b"\r", b"\n")
            return
        data = rest + data
        # A "\r" at the end may be the first half of "\r\n": decide with the next block.
        hold = b"\r" if data.endswith(b"\r") else b""
        data = data[: len(data) - len(hold)]
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        cut = data.rfind(b"\n") + 1
        rest = data[cut:] + hold
        if cut:
            yield data[:cut]


@dataclass(frozen=True, eq=False)
class SwfChunk:
    """Consecutive job lines of a trace: the raw fields and their file lines.

    Attributes:
        table: as :attr:`SwfTrace.table`, for these lines.
        line_numbers: the 1-based file line of each row.
    """

    if TYPE_CHECKING:  # a DataFrame to read; Columns too when built (see FrameField)
        table: pd.DataFrame
    else:
        table: FrameField = FrameField()
    line_numbers: np.ndarray

    @property
    def columns(self) -> Columns:
        """:attr:`table` as numpy columns."""
        return SwfChunk.__dict__["table"].columns(self)  # type: ignore[no-any-return]


class SwfStream:
    """An SWF file read a block at a time: the header at once, the jobs as chunks.

    Opening reads only the header. Iterating (once) parses about ``block_bytes`` of
    text at a time with the same parsers and checks as :func:`read_swf`, so every
    error names the same file, line and field; a job id repeated anywhere in the
    file is an error naming both lines (ids that only grow are checked in constant
    memory; otherwise every id seen is kept, 8 bytes a job).

    Args:
        path: the file (plain or gzip).
        block_bytes: text parsed at a time.
        check_ids: check job ids for repeats (:func:`read_swf` checks the whole table
            instead).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        block_bytes: int = BLOCK_BYTES,
        check_ids: bool = True,
    ) -> None:
        self.path = os.fspath(path)
        self._check_ids = check_ids
        self._fh = _open_trace(self.path)
        self._blocks = _normalised_blocks(self._fh, block_bytes, self.path)
        header_lines: list[str] = []
        self._pending = b""
        for block in self._blocks:
            lines, start = _split_header(block)
            header_lines += lines
            if start < len(block):
                self._pending = block[start:]
                break
        self.header_lines = header_lines
        self.header = SwfHeader.parse(header_lines)
        _check_header(self.header, header_lines, self.path)
        self._started = False

    def __iter__(self) -> Iterator[SwfChunk]:
        if self._started:
            raise ConfigError("an SwfStream is read once; open the file again")
        self._started = True
        line = len(self.header_lines) + 1
        ids = _IdCheck(self.path)
        blocks = itertools.chain([self._pending] if self._pending else [], self._blocks)
        long = False
        try:
            for k, (body, more) in enumerate(_with_more(blocks)):
                long = long or (more and KERNEL_FOR_LONG_FILES)
                a, numbers = _parse_block(body, self.path, line, long or k >= KERNEL_AFTER)
                if more:  # the next block's first line (KTH-SP2's 2.6 MB: 2 ms to count)
                    line += body.count(b"\n")
                if len(a):
                    table = _to_table(a)
                    if self._check_ids:
                        ids.add(table["job_id"], numbers)
                    yield SwfChunk(table, numbers)
        finally:
            self._fh.close()


class _IdCheck:
    """Refuses a job id seen before, keeping ids only once they stop growing."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.top = 0  # every id before ``seen`` started is <= top (and was not kept)
        self.seen: list[tuple[np.ndarray, np.ndarray]] | None = None

    def add(self, ids: np.ndarray, lines: np.ndarray) -> None:
        _check_unique_ids(ids, lines, self.path)
        if self.seen is None and ids[0] > self.top and (np.diff(ids) > 0).all():
            self.top = int(ids[-1])
            return
        if (ids <= self.top).any():
            self._refuse_back(ids, lines)
        seen = self.seen = self.seen or []
        for old_ids, old_lines in seen:
            both = np.isin(ids, old_ids)
            if both.any():
                k = int(np.argmax(both))
                first = int(old_lines[int(np.argmax(old_ids == ids[k]))])
                self._raise(int(ids[k]), int(lines[k]), first)
        seen.append((ids, lines))

    def _refuse_back(self, ids: np.ndarray, lines: np.ndarray) -> None:
        k = int(np.argmax(ids <= self.top))
        raise WorkloadFormatError(
            f"job id {int(ids[k])} is not above the ids before it (up to {self.top}); "
            "a streamed trace with ids out of order cannot be checked for repeats "
            "in bounded memory: read it whole",
            path=self.path,
            line=int(lines[k]),
            field="job_id",
            value=str(int(ids[k])),
        )

    def _raise(self, job_id: int, line: int, first: int) -> None:
        raise WorkloadFormatError(
            f"job id {job_id} appears again (first on line {first})",
            path=self.path,
            line=line,
            field="job_id",
            value=str(job_id),
        )


#: Blocks after this many go first to the compiled parser: loading numba costs about
#: what parsing 25 MiB with pandas does, so only a file that long pays for it.
KERNEL_AFTER = 3
#: A file longer than one block goes to the compiled parser from its first block: a
#: trace that long (over 8 MiB, about 100,000 jobs) is simulated by compiled loops that
#: load numba anyway, and pandas is then never loaded (docs/performance.md).
KERNEL_FOR_LONG_FILES = True


def _with_more(blocks: Iterable[bytes]) -> Iterator[tuple[bytes, bool]]:
    """Each block, and whether another one follows (one block read ahead)."""
    it = iter(blocks)
    body = next(it, None)
    while body is not None:
        after = next(it, None)
        yield body, after is not None
        body = after


#: A block of at least this many bytes goes first to the parser compiled ahead of time
#: when it is built (:mod:`cosched.compile`; loading it costs about 2 ms, what the numpy
#: parser spends on some 1,500 lines). Its values are the other parsers' values.
AOT_PARSE_BYTES = 1 << 17


def _kernel_parse(
    body: bytes, first_line: int, *, build: bool = True
) -> tuple[np.ndarray, np.ndarray] | None:
    """The compiled parser's values and lines, or None when it gives up on the block.

    The parser compiled ahead of time when it is built (or, with ``build``, can be),
    else numba's; with neither ``build`` nor a built one, None.
    """
    from cosched.workload._swf_kernel import parse

    got = parse(np.frombuffer(body, dtype=np.uint8), _SIGNED, _FRACTIONAL, build=build)
    if got is None:
        return None
    a, where, ok = got
    # (18, n) transposed: each field's column is contiguous for _to_table.
    return (a.T, where + first_line) if ok else None


_SIGNED = np.array([f in _SIGNED_FIELDS for f in SWF_FIELDS])
_FRACTIONAL = np.array([f in FRACTIONAL_FIELDS for f in SWF_FIELDS])


def _parse_block(
    body: bytes, path: str, first_line: int, kernel: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The raw (n, 18) values of a block of job lines and their file lines."""
    if kernel or len(body) >= AOT_PARSE_BYTES:
        got = _kernel_parse(body, first_line, build=kernel)
        if got is not None:  # the kernel checked the values as _bad_rows does
            return got
    vector = parse_text(body) if VECTOR_PARSE else None
    if vector is not None:
        values, lines, pointed = vector
        if _bad_parsed_rows(values, pointed):
            return _slow_parse(body, path, first_line)
        return values, lines + first_line
    a = _fast_parse(body) if body.strip() else np.empty((0, _N))
    if a is None or _bad_rows(a):
        return _slow_parse(body, path, first_line)
    return a, _line_numbers(body, len(a), first_line)


def read_swf(path: str | os.PathLike[str], *, limit: int | None = None) -> SwfTrace:
    """Read an SWF file, plain or gzip-compressed (detected by its magic bytes).

    Args:
        path: the file to read.
        limit: read only the header and the first ``limit`` data lines, as a stream
            (a ten-million-line trace is not read to take its first thousand jobs); the
            data lines after them are counted in ``skipped`` as far as
            :data:`COUNT_BUDGET` bytes go (``complete`` says whether that was all).

    Returns:
        The raw trace; an empty file or one with only a header has 0 rows.

    Raises:
        WorkloadFormatError: the file is missing, or a job line has other than 18
            fields, a non-numeric value, a fractional value in an integer field, a
            negative value other than -1 (except in ``status`` and ``think_time``), or a
            missing or non-positive ``job_id``. The error names the path, the 1-based
            line, the field and the bad text of the first such line.
    """
    spath = os.fspath(path)
    if limit is None:
        stream = SwfStream(spath, check_ids=False)
        chunks = list(stream)
        header = stream.header
        skipped, complete = 0, True
        if len(chunks) == 1:
            table, numbers = chunks[0].columns, chunks[0].line_numbers
        elif chunks:
            parts = [c.columns for c in chunks]
            numbers = np.concatenate([c.line_numbers for c in chunks])
            del chunks
            # A column at a time, each chunk's copy let go at once: the peak is one table
            # plus one column, not two tables.
            table = Columns()
            for f in SWF_FIELDS:
                table[f] = np.concatenate([p.pop(f) for p in parts])
        else:
            table, numbers = _to_table(np.empty((0, _N))), np.empty(0, dtype=np.int64)
    else:
        data, skipped, complete = _read_head(spath, limit)
        header_lines, start = _split_header(data)
        header = SwfHeader.parse(header_lines)
        _check_header(header, header_lines, spath)
        a, numbers = _parse_block(data[start:], spath, len(header_lines) + 1)
        table = _to_table(a)
    _check_unique_ids(table["job_id"], numbers, spath)
    return SwfTrace(
        table=table,
        header=header,
        path=spath,
        line_numbers=numbers,
        skipped=skipped,
        complete=complete,
    )


def _check_header(header: SwfHeader, lines: list[str], path: str) -> None:
    """A header count too large to use (``MaxProcs: 10000000000000000000``), or written
    with digit separators (``MaxProcs: 1_000``, read as 1 otherwise), is an error."""
    for attr, key in _INT_FACTS.items():
        text = header.raw.get(key, "")
        if _SEPARATED_INT.match(text):
            line = next((k + 1 for k, t in enumerate(lines) if key in t), None)
            raise WorkloadFormatError(UNDERSCORE, path=path, line=line, field=key, value=text)
        v = getattr(header, attr)
        if v is not None and abs(v) > MAX_EXACT_INT:
            line = next((k + 1 for k, text in enumerate(lines) if key in text), None)
            raise WorkloadFormatError(
                f"header value too large (more than 2^53 = {MAX_EXACT_INT})",
                path=path,
                line=line,
                field=key,
                value=str(v),
            )


def _check_unique_ids(ids: np.ndarray, numbers: np.ndarray, path: str) -> None:
    """Two jobs with one id are an error naming both lines (no archive trace has any)."""
    if len(ids) < 2 or (len(ids) and (np.diff(ids) > 0).all()):
        return  # ids that only grow (every archive trace): no sort needed
    order = np.argsort(ids, kind="stable")
    same = ids[order[1:]] == ids[order[:-1]]
    if not same.any():
        return
    # The first row (in file order) whose id an earlier row has.
    k = int(order[1:][same].min())
    job_id = int(ids[k])
    first = int(numbers[int(np.argmax(ids == job_id))])
    raise WorkloadFormatError(
        f"job id {job_id} appears again (first on line {first})",
        path=path,
        line=int(numbers[k]),
        field="job_id",
        value=str(job_id),
    )
