"""What the Slurm and PBS importers share: times, durations, names as numbers, the table.

Each importer turns its records into :class:`Record` objects (epoch seconds, counts and
names, with the source file and line) and hands each to a :class:`Conversion`, which
keeps it or not by the rules every format shares; :func:`build_trace` turns those kept
into an :class:`~cosched.workload.swf.SwfTrace` with a header saying how, plus the
conversion notes (jobs kept, dropped or changed, by reason).

Every value is range-checked where it is read, so that what is written is what the SWF
reader accepts: counts, durations, memory and job numbers at most 2^53 (SWF values pass
through float64, exact only up to there), time stamps between 1970 and 9999, numbers in
ASCII digits only. A value outside is an error naming file, line and field.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from cosched.errors import ConfigError, WorkloadFormatError
from cosched.workload.columns import Columns
from cosched.workload.job import SWF_FIELDS
from cosched.workload.swf import MAX_EXACT_INT, SwfHeader, SwfTrace

__all__ = ["Conversion", "ImportOptions", "ImportResult", "Record", "build_trace"]

#: The problem of a count, duration, memory size or job number beyond 2^53.
TOO_LARGE = f"too large to be held exactly (more than 2^53 = {MAX_EXACT_INT})"
NOT_COUNT = "not a count (a whole number >= 0)"
#: The latest time stamp read (9999-12-30 00:00 UTC): Python's dates end with the year
#: 9999, and the header prints the first and last times in the log's own time zone.
MAX_EPOCH = 253402128000
TIME_RANGE = "time out of range (1970-01-01 to 9999-12-30)"
_DIGITS = re.compile(r"[0-9]+")
_MAX_DIGITS = len(str(MAX_EXACT_INT))

#: The name kinds written as integers, with their SWF field.
NAME_FIELDS: dict[str, str] = {
    "user": "user_id",
    "group": "group_id",
    "account": "executable",
    "queue": "queue",
    "partition": "partition",
}
_NAME_FIELD_NUMBERS = {
    "user": 12,
    "group": 13,
    "account": 14,
    "queue (Slurm QOS, PBS queue)": 15,
    "partition": 16,
}


@dataclass(frozen=True)
class ImportOptions:
    """How an accounting log becomes SWF.

    Attributes:
        tz: the IANA time zone of local time stamps (``Europe/Berlin``); epoch
            seconds need none. Default UTC.
        unstarted: jobs that never started (cancelled while pending, still pending):
            ``drop`` (default) or ``keep`` (written with wait and run time -1).
            Counted either way.
        partition: keep only jobs of this partition (Slurm) or queue (PBS).
        nodes: the machine's node count, when known (else inferred from the log).
        cores: cores per node (with ``nodes``, MaxProcs = nodes x cores).
        ids: operator's mapping ``{"user": {"alice": 7}, ...}``; names not in it get
            the next free numbers.
        arrival: ``eligible`` (default): a job arrives when it became eligible to run
            (after a ``--begin`` time or a dependency), when that is later than its
            submission; ``submit``: always the submission time.
        exclusive: the site gives each job whole nodes (the operator says so): the
            header says ``NodeAllocation: exclusive``, and the baselines allocate whole
            nodes (:func:`~cosched.policies.requirements.build_platform`).
    """

    tz: str = "UTC"
    unstarted: Literal["drop", "keep"] = "drop"
    partition: str | None = None
    nodes: int | None = None
    cores: int | None = None
    ids: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    arrival: Literal["eligible", "submit"] = "eligible"
    exclusive: bool = False

    def __post_init__(self) -> None:
        zone(self.tz)
        if self.unstarted not in ("drop", "keep"):
            raise ConfigError(f"unstarted must be drop or keep, got {self.unstarted!r}")
        if self.arrival not in ("eligible", "submit"):
            raise ConfigError(f"arrival must be eligible or submit, got {self.arrival!r}")
        for name in ("nodes", "cores"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value < 1):
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if self.cores is not None and self.nodes is None:
            raise ConfigError("cores per node needs the node count too (--nodes)")
        if (self.nodes or 0) * (self.cores or 1) > MAX_EXACT_INT:
            raise ConfigError(f"--nodes (times --cores): {TOO_LARGE}")
        unknown = sorted(set(self.ids) - set(NAME_FIELDS))
        if unknown:
            raise ConfigError(f"id mapping: unknown kind(s) {unknown} (known: {list(NAME_FIELDS)})")
        for kind, names in self.ids.items():
            for name, number in names.items():
                check_id_number("id mapping", kind, name, number)


@dataclass
class Record:
    """One job as read from a log, before it becomes an SWF line.

    Times are epoch seconds, counts and sizes numbers; None (the default): not
    recorded. ``written``: the values of this job written as -1 or taken from another
    field, by reason; counted in the notes if the job is kept.
    """

    path: str
    line: int
    key: str
    submit: int | None
    status: int
    names: dict[str, str]
    eligible: int | None = None
    start: int | None = None
    end: int | None = None
    alloc_procs: int | None = None
    req_procs: int | None = None
    req_time: int | None = None
    req_mem_kb: float | None = None
    job_number: int | None = None
    written: Tally = field(default_factory=lambda: Tally())


@dataclass(frozen=True)
class ImportResult:
    """An imported log: the SWF trace and what the conversion did.

    Attributes:
        trace: the trace (header facts, the 18 fields of each kept job).
        counts: jobs by reason (``records``, ``kept``, ``dropped_*``, ``changed_*``...).
        notes: one sentence per reason with its count, for the user.
        fmt: ``slurm`` or ``pbs``.
    """

    trace: SwfTrace
    counts: Mapping[str, int]
    notes: tuple[str, ...]
    fmt: str


class Tally:
    """Counts by reason, each with its sentence."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.sentences: dict[str, str] = {}

    def add(self, key: str, sentence: str, n: int = 1) -> None:
        self.counts[key] += n
        self.sentences.setdefault(key, sentence)

    def merge(self, other: Tally) -> None:
        """Add ``other``'s counts (with their sentences)."""
        for key, n in other.counts.items():
            self.add(key, other.sentences.get(key, ""), n)

    def dropped(self) -> int:
        """Records and jobs left out of the trace: the counts whose sentence says
        "dropped" (a skipped record, a job step or a non-job record, is no job)."""
        return sum(
            n for k, n in self.counts.items() if self.sentences.get(k, "").startswith("dropped")
        )

    def notes(self) -> list[str]:
        # The first ``{n}`` only, not ``format``: a sentence may quote a name (a
        # partition) holding braces.
        return [
            self.sentences[k].replace("{n}", str(self.counts[k]), 1)
            for k in self.sentences
            if self.counts[k] and self.sentences[k]
        ]


# --------------------------------------------------------------------------- numbers


def is_digits(text: str) -> bool:
    """Whether ``text`` is ASCII digits only (``str.isdigit`` also takes '²' and '٣')."""
    return _DIGITS.fullmatch(text) is not None


def digits(text: str) -> int:
    """The value of ASCII digits ``text``, at most 2^53 + 1: every larger number is
    refused alike, and Python converts no more than 4300 digits."""
    text = text.lstrip("0")
    if len(text) > _MAX_DIGITS:
        return MAX_EXACT_INT + 1
    return min(int(text or "0"), MAX_EXACT_INT + 1)


def read_count(text: str) -> int | str:
    """The whole number 0..2^53 written in ``text``, or the problem."""
    if not is_digits(text):
        return NOT_COUNT
    value = digits(text)
    return TOO_LARGE if value > MAX_EXACT_INT else value


def too_large(value: float) -> bool:
    """Whether a computed count, duration or memory size is beyond what SWF holds."""
    return not value <= MAX_EXACT_INT  # NaN and infinity too


def shown(text: str | None, width: int = 60) -> str | None:
    """``text`` for an error message, cut to ``width`` characters (a line of one field)."""
    if text is None or len(text) <= width:
        return text
    return f"{text[: width - 3]}..."


def check_id_number(source: str, kind: str, name: str, number: object) -> None:
    """An operator's number for a name must be an integer 1..2^53."""
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ConfigError(f"{source}: {kind} {name!r} must map to an integer >= 1")
    if number > MAX_EXACT_INT:
        raise ConfigError(f"{source}: {kind} {name!r}: {TOO_LARGE}")


# --------------------------------------------------------------------------- files


def note_cut_last_line(path: str, text: str, tally: Tally) -> None:
    """Count a file whose last line has no line end: a log still being written or cut
    short, whose last record may be incomplete (it is read as it stands)."""
    if text and not text.endswith("\n"):
        line = text.count("\n") + 1
        tally.add(
            f"cut_last_line {path}",
            f"the last record of {path} (line {line}) has no line end: perhaps cut short "
            "(read as it stands)",
        )


def read_text(path: str) -> str:
    """The text of a log file (plain or gzip), with a clear error when unreadable."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise WorkloadFormatError("no such file", path=path) from None
    except IsADirectoryError:
        raise WorkloadFormatError("is a directory, not a log file", path=path) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise WorkloadFormatError(f"corrupt gzip data ({exc})", path=path) from None
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Files as given; a folder stands for its files, sorted by name (PBS: one per day)."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            files = sorted(str(f) for f in path.iterdir() if f.is_file())
            if not files:
                raise WorkloadFormatError("folder holds no files", path=str(path))
            out += files
        else:
            out.append(os.fspath(p))
    if not out:
        raise ConfigError("no log file given")
    return out


def read_ids(path: str | os.PathLike[str]) -> dict[str, dict[str, int]]:
    """An operator's id mapping: JSON ``{"user": {"alice": 7}, "partition": {...}}``."""
    spath = os.fspath(path)
    try:
        raw = json.loads(Path(spath).read_text())
    except FileNotFoundError:
        raise ConfigError(f"id mapping {spath}: no such file") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"id mapping {spath}: not JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"id mapping {spath}: expected an object of kinds")
    out: dict[str, dict[str, int]] = {}
    for kind, names in raw.items():
        if kind not in NAME_FIELDS or not isinstance(names, dict):
            raise ConfigError(
                f"id mapping {spath}: {kind!r} is not one of {', '.join(NAME_FIELDS)} "
                "mapping names to numbers"
            )
        for name, number in names.items():
            check_id_number(f"id mapping {spath}", kind, name, number)
        out[kind] = dict(names)
    return out


# --------------------------------------------------------------------------- times


def zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name``, or a ConfigError naming it."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"unknown time zone {name!r} (an IANA name such as Europe/Berlin)"
        ) from None


@dataclass(frozen=True)
class Stamp:
    """A parsed time stamp: epoch seconds, and the later reading if it was ambiguous."""

    epoch: int
    later: int | None = None  # the second occurrence, for a time in the repeated hour


@lru_cache(maxsize=65536)
def _local(text: str, tz: str) -> Stamp | str:
    """Epoch seconds of local ``text`` in ``tz``, or the reason it cannot be read."""
    try:
        naive = datetime.fromisoformat(text)
    except ValueError:
        return "not a time stamp (ISO YYYY-MM-DDTHH:MM:SS or epoch seconds)"
    if naive.microsecond:
        return "a fractional second (whole seconds only: YYYY-MM-DDTHH:MM:SS or epoch seconds)"
    try:
        if naive.tzinfo is not None:
            return Stamp(int(naive.timestamp()))
        z = zone(tz)
        first = naive.replace(tzinfo=z, fold=0)
        second = naive.replace(tzinfo=z, fold=1)
        e0, e1 = int(first.timestamp()), int(second.timestamp())
        back = datetime.fromtimestamp(e0, z).replace(tzinfo=None)
    except (OverflowError, ValueError, OSError):  # year 1 or 9999 moved out of range
        return TIME_RANGE
    if back != naive:
        return f"does not exist in {tz} (skipped by the spring daylight-saving change)"
    return Stamp(e0, e1 if e1 != e0 else None)


def parse_stamp(text: str, tz: str) -> Stamp | str:
    """A time stamp as epoch digits or ISO local time in ``tz``; a str is the problem."""
    s = Stamp(digits(text)) if is_digits(text) else _local(text, tz)
    if isinstance(s, Stamp) and not 0 <= s.epoch <= MAX_EPOCH:
        return TIME_RANGE
    return s


def order_stamps(stamps: list[Stamp | None], tally: Tally) -> list[int | None]:
    """Epoch seconds of a job's times (submit, eligible, start, end, in that order).

    A time in the repeated autumn hour is read as its first occurrence, unless that
    would put it before the job's previous time, then as its second.
    """
    out: list[int | None] = []
    last: int | None = None
    for s in stamps:
        if s is None:
            out.append(None)
            continue
        value = s.epoch
        if s.later is not None:
            tally.add("ambiguous_times", "read {n} times in the repeated autumn hour")
            if last is not None and value < last:
                value = s.later
                tally.add(
                    "ambiguous_second",
                    "read {n} of them as the second occurrence, to keep submit <= start <= end",
                )
        out.append(value)
        last = value
    return out


def fmt_utc(epoch: int, tz: str) -> str:
    """``epoch`` as local time in ``tz``, for the header."""
    return datetime.fromtimestamp(epoch, zone(tz)).strftime("%a %b %d %H:%M:%S %Z %Y")


def in_order(rec: Record, tally: Tally) -> bool:
    """Whether a job's times are in order (submit <= start <= end); if not, counted."""
    if rec.start is not None and rec.submit is not None and rec.start < rec.submit:
        tally.add("start_before_submit", "dropped {n} jobs that start before their submission")
        return False
    if rec.start is not None and rec.end is not None and rec.end < rec.start:
        tally.add("end_before_start", "dropped {n} jobs that end before they start")
        return False
    if rec.start is not None and rec.eligible is not None and rec.eligible > rec.start:
        tally.add(
            "eligible_after_start",
            "ignored the eligible time of {n} jobs that started before it",
        )
        rec.eligible = None
    return True


def keep_unstarted(
    opts: ImportOptions, tally: Tally, *, cancelled: bool, what: str, kept: str
) -> bool:
    """Count a job that never started (``what``: the note on such jobs; ``cancelled``: it
    was cancelled before it started) and say whether ``--unstarted`` keeps it (``kept``:
    the note on how such jobs are written)."""
    tally.add("never_started", what)
    if cancelled:
        tally.add("cancelled_before_start", "")
    if opts.unstarted == "drop":
        tally.add("dropped_never_started", "dropped them (--unstarted drop)")
        return False
    tally.add("kept_never_started", kept)
    return True


@dataclass
class Conversion:
    """One import under way: its options, the files it reads, the counts by reason, and
    the jobs kept so far with the nodes each used (0: not known)."""

    opts: ImportOptions
    files: list[str]
    tally: Tally = field(default_factory=Tally)
    kept: list[Record] = field(default_factory=list)
    nodes_used: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, paths: Iterable[str | os.PathLike[str]], opts: ImportOptions | None) -> Conversion:
        """An import of ``paths`` (folders stand for their files) with ``opts`` (None:
        the defaults)."""
        return cls(opts or ImportOptions(), expand_paths(paths))

    def keep(self, rec: Record, nodes: int, *, cancelled: bool, what: str, kept: str) -> bool:
        """Keep a job that started if its times are in order (:func:`in_order`), one that
        never started if ``--unstarted`` keeps it (:func:`keep_unstarted`, which takes
        ``cancelled``, ``what`` and ``kept``); whether it was kept."""
        if rec.start is None:
            if not keep_unstarted(self.opts, self.tally, cancelled=cancelled, what=what, kept=kept):
                return False
        elif not in_order(rec, self.tally):
            return False
        self.kept.append(rec)
        self.nodes_used.append(nodes)
        return True


# --------------------------------------------------------------------------- names


def number_names(records: list[Record], ids: Mapping[str, Mapping[str, int]], tally: Tally) -> None:
    """Replace names by integers: the operator's mapping first, then sorted order."""
    for kind in NAME_FIELDS:
        given = dict(ids.get(kind, {}))
        seen = sorted({r.names[kind] for r in records if r.names.get(kind)})
        nxt = max(given.values(), default=0) + 1
        new = [n for n in seen if n not in given]
        if nxt + len(new) - 1 > MAX_EXACT_INT:
            raise ConfigError(f"id mapping: the {kind} numbers after its largest: {TOO_LARGE}")
        for name in new:
            given[name] = nxt
            nxt += 1
        if new and ids.get(kind):
            tally.add(
                f"new_{kind}",
                f"numbered {{n}} {kind} names absent from the id mapping after its largest",
                len(new),
            )
        for r in records:
            name = r.names.get(kind) or ""
            r.names[kind] = str(given[name]) if name else ""


# --------------------------------------------------------------------------- the table


def _peak(records: list[Record], size: list[int], fact: str) -> int:
    """Largest sum of ``size`` over jobs running at once (ends before starts at a tie).

    Raises:
        WorkloadFormatError: the sum passes 2^53 (the header fact ``fact`` could not be
            held), naming the job whose start makes it do so.
    """
    events: list[tuple[int, int, int]] = []
    for i, (r, s) in enumerate(zip(records, size, strict=True)):
        if r.start is not None and r.end is not None and r.end > r.start:
            events += [(r.start, s, i), (r.end, -s, i)]
    events.sort(key=lambda e: (e[0], e[1]))
    peak = now = 0
    for _, d, i in events:
        now += d
        if now > MAX_EXACT_INT:
            r = records[i]
            raise WorkloadFormatError(
                f"the jobs running at this job's start hold together a number {TOO_LARGE}; "
                "pass --nodes/--cores to give the machine's size",
                path=r.path,
                line=r.line,
                field=fact,
            )
        peak = max(peak, now)
    return peak


def machine_facts(
    records: list[Record], nodes_used: list[int], opts: ImportOptions
) -> tuple[int | None, int | None, str]:
    """MaxNodes, MaxProcs and where they came from."""
    if opts.nodes is not None:
        procs = opts.nodes * opts.cores if opts.cores else None
        said = f"--nodes {opts.nodes}" + (f" --cores {opts.cores}" if opts.cores else "")
        return opts.nodes, procs, f"MaxNodes/MaxProcs given by the operator ({said})"
    cpus = [r.alloc_procs or 0 for r in records]
    peak_procs = _peak(records, cpus, "MaxProcs") or None
    peak_nodes = _peak(records, nodes_used, "MaxNodes") or None
    return (
        peak_nodes,
        peak_procs,
        "MaxNodes/MaxProcs inferred from the log: the most nodes and CPUs allocated at once "
        "(a lower bound of the machine; pass --nodes/--cores to give the real size)",
    )


def _col(values: Sequence[float | None]) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def build_trace(
    conv: Conversion, fmt: str, rules: list[str], *, number_by_order: bool
) -> ImportResult:
    """The SWF trace of the jobs a conversion kept, with header and notes.

    Args:
        conv: the conversion: its options, files, counts so far (records read,
            dropped...), the jobs kept and the nodes each used (for the inferred
            MaxNodes).
        fmt: ``slurm`` or ``pbs``.
        rules: sentences naming the rules applied, for the header (which also gets
            every counted note: each value written as -1 or taken from another field).
        number_by_order: job numbers 1..N in submit order instead of ``job_number``.
    """
    records, nodes_used = conv.kept, conv.nodes_used
    opts, tally, paths = conv.opts, conv.tally, conv.files
    number_names(records, opts.ids, tally)
    for r in records:
        tally.merge(r.written)
    arrival = []
    for r in records:
        a = r.submit
        if opts.arrival == "eligible" and r.eligible is not None and a is not None:
            if r.eligible > a:
                tally.add(
                    "eligible_later",
                    "took the eligible time as the arrival of {n} jobs eligible after their "
                    "submission (a begin time or a dependency; --arrival submit to keep submit)",
                )
            a = max(a, r.eligible)
        arrival.append(a)
    order = sorted(range(len(records)), key=lambda i: (arrival[i] or 0, records[i].key))
    records = [records[i] for i in order]
    arrival = [arrival[i] for i in order]
    nodes_used = [nodes_used[i] for i in order]
    t0 = min((a for a in arrival if a is not None), default=0)
    max_nodes, max_procs, machine_note = machine_facts(records, nodes_used, opts)
    n = len(records)
    wait = [
        r.start - a if r.start is not None and a is not None else None
        for r, a in zip(records, arrival, strict=True)
    ]
    run = [r.end - r.start if r.start is not None and r.end is not None else None for r in records]
    cols: dict[str, np.ndarray] = {
        "job_id": np.array(
            [i + 1 if number_by_order else r.job_number for i, r in enumerate(records)],
            dtype=np.int64,
        ),
        "submit_time": _col([a - t0 if a is not None else None for a in arrival]),
        "wait_time": _col(wait),
        "run_time": _col(run),
        "allocated_procs": _col([r.alloc_procs for r in records]),
        "requested_procs": _col([r.req_procs for r in records]),
        "requested_time": _col([r.req_time for r in records]),
        "requested_memory": _col([r.req_mem_kb for r in records]),
        "status": _col([r.status for r in records]),
    }
    for kind, name in NAME_FIELDS.items():
        cols[name] = _col([int(r.names[kind]) if r.names.get(kind) else None for r in records])
    table = Columns({f: cols.get(f, np.full(n, np.nan)) for f in SWF_FIELDS})
    table["job_id"] = table["job_id"].astype(np.int64)
    tally.counts["kept"] = n
    seen = "sacct records" if fmt == "slurm" else "jobs named in the PBS records"
    notes = [f"kept {n} jobs of {tally.counts['records']} {seen}", *tally.notes()]
    header = _header(
        fmt, paths, opts, [*rules, *notes], machine_note, max_nodes, max_procs, t0, records
    )
    header["MaxRecords"] = str(tally.counts["records"])
    header["ImportCounts"] = import_counts(tally, seen, opts.unstarted)
    if opts.exclusive:
        header["NodeAllocation"] = "exclusive (trace import --exclusive: whole nodes to each job)"
    lines = np.array([r.line for r in records], dtype=np.int64)
    path = paths[0] if len(paths) == 1 else f"{paths[0]} (+{len(paths) - 1} files)"
    trace = SwfTrace(
        table=table, header=SwfHeader.from_mapping(header), path=path, line_numbers=lines
    )
    return ImportResult(trace, dict(tally.counts), tuple(notes), fmt)


def import_counts(tally: Tally, seen: str, unstarted: str) -> str:
    """The header's ``ImportCounts``: records read, jobs kept and dropped, and jobs
    cancelled before they started (kept or dropped by ``--unstarted``)."""
    c = tally.counts
    fate = "dropped" if unstarted == "drop" else "kept"
    return (
        f"read {c['records']} {seen}: {c['kept']} jobs kept, {tally.dropped()} dropped, "
        f"{c['cancelled_before_start']} cancelled before they started ({fate}, --unstarted)"
    )


def _header(
    fmt: str,
    paths: list[str],
    opts: ImportOptions,
    rules: list[str],
    machine_note: str,
    max_nodes: int | None,
    max_procs: int | None,
    t0: int,
    records: list[Record],
) -> dict[str, str]:
    from cosched import __version__

    source = "Slurm sacct --parsable2" if fmt == "slurm" else "PBS accounting records"
    ends = [r.end for r in records if r.end is not None]
    head = {
        "Version": "2.2",
        "Conversion": f"cosched {__version__} `cosched trace import {fmt}` from {source}",
        "Information": "files: " + ", ".join(Path(p).name for p in paths),
        "MaxJobs": str(len(records)),
        "MaxRecords": "",
        "UnixStartTime": str(t0),
        "TimeZoneString": opts.tz,
        "StartTime": fmt_utc(t0, opts.tz),
    }
    if ends:
        head["EndTime"] = fmt_utc(max(ends), opts.tz)
    if max_nodes is not None:
        head["MaxNodes"] = str(max_nodes)
    if max_procs is not None:
        head["MaxProcs"] = str(max_procs)
    numbered = ", ".join(f"{k} -> field {v}" for k, v in _NAME_FIELD_NUMBERS.items())
    notes = [
        f"source format: {fmt}",
        f"time zone of local time stamps: {opts.tz}",
        machine_note,
        f"names written as integers ({numbered})",
        *rules,
    ]
    head["Note"] = "\n".join(notes)
    return head
