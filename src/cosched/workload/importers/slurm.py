"""Slurm accounting as printed by ``sacct --parsable2`` (see :data:`SACCT_COMMAND`).

Columns are found by the header line, in any order; unknown columns are ignored.
Several files (one per month, say) are read as one log, a job appearing twice kept once
(by ``JobIDRaw``: the later record, unless only the earlier one has an end).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from cosched.errors import WorkloadFormatError
from cosched.workload.importers._common import (
    TOO_LARGE,
    Conversion,
    ImportOptions,
    ImportResult,
    Record,
    Stamp,
    Tally,
    build_trace,
    digits,
    is_digits,
    note_cut_last_line,
    order_stamps,
    parse_stamp,
    read_count,
    read_text,
    shown,
    too_large,
)
from cosched.workload.sacct import SACCT_COLUMNS, SACCT_COMMAND

__all__ = ["SACCT_COLUMNS", "SACCT_COMMAND", "STATE_STATUS", "import_slurm"]


#: Columns without which no job can be converted.
REQUIRED: tuple[str, ...] = (
    "JobIDRaw",
    "JobID",
    "Submit",
    "Start",
    "End",
    "State",
    "NCPUS",
    "Timelimit",
)

#: Slurm job state (first word of ``State``) -> SWF status (field 11).
#: 1 completed, 0 failed (by the job or the system), 5 cancelled, 2 partial execution
#: to be continued (requeued), -1 not over yet.
STATE_STATUS: dict[str, int] = {
    "COMPLETED": 1,
    "COMPLETING": 1,
    "FAILED": 0,
    "TIMEOUT": 0,
    "NODE_FAIL": 0,
    "OUT_OF_MEMORY": 0,
    "BOOT_FAIL": 0,
    "DEADLINE": 0,
    "SPECIAL_EXIT": 0,
    "PREEMPTED": 0,
    "CANCELLED": 5,
    "REVOKED": 5,
    "REQUEUED": 2,
    "REQUEUE_FED": 2,
    "REQUEUE_HOLD": 2,
    "RESIZING": 2,
    "RUNNING": -1,
    "PENDING": -1,
    "SUSPENDED": -1,
    "STOPPED": -1,
    "SIGNALING": -1,
    "STAGE_OUT": -1,
}

_NEVER = frozenset({"None", "Unknown", ""})
_DURATION = re.compile(r"^(?:([0-9]+)-)?([0-9]+)(?::([0-9]+))?(?::([0-9]+))?$")
_MEM = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([KMGTP]?)([nc]?)$")
_MEM_KB = {"K": 1.0, "": 1024.0, "M": 1024.0, "G": 1024.0**2, "T": 1024.0**3, "P": 1024.0**4}
_PENDING_RANGE = re.compile(r"_\[")
_NAME_COLUMNS = {
    "user": "User",
    "group": "Group",
    "account": "Account",
    "queue": "QOS",
    "partition": "Partition",
}


def parse_duration(text: str) -> int | None:
    """Seconds of a Slurm time string (``minutes``, ``minutes:seconds``,
    ``hours:minutes:seconds``, ``days-hours``, ``days-hours:minutes``,
    ``days-hours:minutes:seconds``), or None when malformed. A number of more than 16
    digits counts as 2^53 + 1 (the caller refuses any result beyond 2^53)."""
    m = _DURATION.match(text)
    if not m:
        return None
    days, a, b, c = m.groups()
    parts = [digits(a)] + [digits(x) for x in (b, c) if x is not None]
    if days is not None:
        h, mi, s = ([*parts, 0, 0])[:3]
        return digits(days) * 86400 + h * 3600 + mi * 60 + s
    if len(parts) == 1:
        return parts[0] * 60
    if len(parts) == 2:
        return parts[0] * 60 + parts[1]
    return parts[0] * 3600 + parts[1] * 60 + parts[2]


class _Row:
    """One data line with its file, line number and header, for field access and errors."""

    __slots__ = ("cols", "line", "path", "values")

    def __init__(self, path: str, line: int, cols: dict[str, int], values: list[str]) -> None:
        self.path, self.line, self.cols, self.values = path, line, cols, values

    def has(self, name: str) -> bool:
        return name in self.cols

    def get(self, name: str) -> str:
        i = self.cols.get(name)
        return self.values[i].strip() if i is not None else ""

    def bad(self, name: str, problem: str) -> WorkloadFormatError:
        return WorkloadFormatError(
            problem, path=self.path, line=self.line, field=name, value=shown(self.get(name))
        )

    def stamp(self, name: str, tz: str) -> Stamp | None:
        text = self.get(name)
        if text in _NEVER:
            return None
        s = parse_stamp(text, tz)
        if isinstance(s, str):
            raise self.bad(name, s)
        return s

    def count(self, name: str) -> int | None:
        text = self.get(name)
        if not self.has(name) or text == "":
            return None
        value = read_count(text)
        if isinstance(value, str):
            raise self.bad(name, value)
        return value or None


def _check_header(path: str, first: str) -> dict[str, int]:
    from cosched.workload.importers.detect import sniff_text, wrong_format

    if "|" not in first:
        kind = sniff_text(first)
        raise WorkloadFormatError(
            wrong_format(kind, "slurm")
            if kind not in (None, "slurm")
            else "no sacct header line (columns separated by '|'): run sacct with --parsable2 "
            f"and without --noheader, e.g. {SACCT_COMMAND}",
            path=path,
            line=1,
        )
    names = first.split("|")
    if names and names[-1] == "":
        names = names[:-1]  # --parsable (not 2) ends every line with '|'
    cols = {n.strip(): i for i, n in enumerate(names)}
    for name in REQUIRED:
        if name not in cols:
            raise WorkloadFormatError(
                f"no column {name!r} in the sacct header; print it with: {SACCT_COMMAND}",
                path=path,
                line=1,
                field=name,
            )
    return cols


def _rows(path: str, tally: Tally) -> list[_Row]:
    text = read_text(path)
    note_cut_last_line(path, text, tally)
    lines = text.split("\n")
    cols = _check_header(path, lines[0].strip())
    width = len(cols)
    out = []
    header = lines[0].strip()
    for k, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        if text.strip() == header:  # dumps joined with `cat` repeat the header
            tally.add("repeated_header", "skipped {n} repeated header lines")
            continue
        values = text.split("|")
        if len(values) == width + 1 and values[-1] == "":
            values = values[:-1]
        if len(values) != width:
            raise WorkloadFormatError(
                f"expected {width} fields separated by '|' (as the header), found {len(values)}",
                path=path,
                line=k,
                value=shown(text, 80),
            )
        out.append(_Row(path, k, cols, values))
    tally.add("records", "", len(out))
    return out


def _status(row: _Row) -> int:
    state = row.get("State").split(" ")[0].rstrip("+")
    if state not in STATE_STATUS:
        raise row.bad("State", f"unknown job state (known: {', '.join(STATE_STATUS)})")
    return STATE_STATUS[state]


def _req_time(row: _Row, tally: Tally) -> int | None:
    text = row.get("Timelimit")
    if text in ("UNLIMITED", "Partition_Limit", ""):
        tally.add(
            f"limit_{text or 'none'}",
            f"wrote requested time -1 for {{n}} jobs whose Timelimit is {text or 'empty'!r}",
        )
        return None
    seconds = parse_duration(text)
    if seconds is None:
        raise row.bad("Timelimit", "not a time limit ([D-]HH:MM:SS, UNLIMITED, Partition_Limit)")
    if too_large(seconds):
        raise row.bad("Timelimit", TOO_LARGE)
    return seconds


def _req_mem(row: _Row, cpus: int | None, nodes: int | None, tally: Tally) -> float | None:
    """Requested memory in KB per processor (SWF field 10)."""
    if not row.has("ReqMem"):
        tally.add("no_reqmem", "wrote requested memory -1 for {n} jobs (no ReqMem column)")
        return None
    text = row.get("ReqMem")
    if text in ("", "0", "0n", "0c"):
        tally.add("mem_none", "wrote requested memory -1 for {n} jobs whose ReqMem is empty or 0")
        return None
    m = _MEM.match(text)
    if not m:
        raise row.bad("ReqMem", "not a memory size (a number with K/M/G/T, optional n or c)")
    kb = float(m.group(1)) * _MEM_KB[m.group(2)]
    if m.group(3) != "c":
        # Per node (suffix n, or none: --mem's meaning): needs the nodes and CPUs.
        if not cpus or not nodes:
            tally.add(
                "mem_per_node_unknown",
                "wrote requested memory -1 for {n} jobs whose ReqMem is per node but whose "
                "NNodes or NCPUS is empty or 0 (memory per processor unknown)",
            )
            return None
        kb = kb * nodes / cpus
    if too_large(kb):
        raise row.bad("ReqMem", f"KB per processor {TOO_LARGE}")
    return kb


def _record(row: _Row, opts: ImportOptions, tally: Tally) -> Record:
    raw = row.get("JobIDRaw")
    if not is_digits(raw) or digits(raw) < 1:
        raise row.bad("JobIDRaw", "not a positive job number")
    if too_large(digits(raw)):
        raise row.bad("JobIDRaw", TOO_LARGE)
    if not row.get("JobID"):
        raise row.bad("JobID", "a job without its JobID")
    status = _status(row)
    stamps = [
        row.stamp(n, opts.tz) if row.has(n) else None
        for n in ("Submit", "Eligible", "Start", "End")
    ]
    submit, eligible, start, end = order_stamps(stamps, tally)
    if submit is None:
        raise row.bad("Submit", "a job without a submit time")
    cpus = row.count("NCPUS")
    nodes = row.count("NNodes")
    never = start is None or (
        row.has("AllocTRES") and row.get("AllocTRES") == "" and end is not None and end == start
    )
    written = Tally()
    if not never and cpus is None:
        written.add(
            "ncpus_none",
            "wrote allocated processors -1 for {n} started jobs whose NCPUS is empty or 0",
        )
    if row.has("ReqCPUS"):
        req_procs = row.count("ReqCPUS")
        if req_procs is None:
            written.add(
                "reqcpus_none",
                "wrote requested processors -1 for {n} jobs whose ReqCPUS is empty or 0",
            )
    else:
        req_procs = cpus
        if cpus is None:
            written.add(
                "reqcpus_ncpus_none",
                "wrote requested processors -1 for {n} jobs (no ReqCPUS column, NCPUS empty or 0)",
            )
        else:
            written.add(
                "reqcpus_from_ncpus",
                "took NCPUS as the requested processors of {n} jobs (no ReqCPUS column)",
            )
    names = {k: row.get(c) for k, c in _NAME_COLUMNS.items()}
    return Record(
        path=row.path,
        line=row.line,
        key=row.get("JobID"),
        submit=submit,
        eligible=eligible,
        start=None if never else start,
        end=None if never else end,
        alloc_procs=None if never else cpus,
        req_procs=req_procs,
        req_time=_req_time(row, written),
        req_mem_kb=_req_mem(row, cpus, nodes, written),
        status=status,
        names=names,
        job_number=digits(raw),
        written=written,
    )


def _sum(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _merge_het(parts: list[tuple[Record, int]]) -> tuple[Record, int]:
    """The components of a heterogeneous job as one job (they start together)."""
    first, nodes = parts[0]
    for r, n in parts[1:]:
        first.written.merge(r.written)  # a component's -1 is the merged job's too
        # A component whose count is unknown (-1, counted) leaves the sum unknown.
        first.alloc_procs = _sum(first.alloc_procs, r.alloc_procs)
        first.req_procs = _sum(first.req_procs, r.req_procs)
        for name, total in (("NCPUS", first.alloc_procs), ("ReqCPUS", first.req_procs)):
            if too_large(total or 0):
                raise WorkloadFormatError(
                    f"the heterogeneous job's components together: {TOO_LARGE}",
                    path=r.path,
                    line=r.line,
                    field=name,
                )
        first.submit = min(x for x in (first.submit, r.submit) if x is not None)
        if first.end is not None and r.end is not None:
            first.end = max(first.end, r.end)
        if first.req_time is not None and r.req_time is not None:
            first.req_time = max(first.req_time, r.req_time)
        first.req_mem_kb = None
        nodes += n
    return first, nodes


def _dedupe(rows: list[_Row], tally: Tally) -> list[_Row]:
    latest: dict[str, _Row] = {}
    for row in rows:
        key = row.get("JobIDRaw")
        if is_digits(key):  # 0042 and 42 are one job number
            key = str(digits(key))
        old = latest.get(key)
        if old is not None:
            tally.add("duplicates", "dropped {n} duplicate records (same JobIDRaw in two dumps)")
            if row.get("End") in _NEVER and old.get("End") not in _NEVER:
                continue
        latest[key] = row
    return list(latest.values())


def _select(rows: list[_Row], opts: ImportOptions, tally: Tally) -> list[_Row]:
    out = []
    for row in rows:
        jid = row.get("JobID")
        if "." in jid:
            tally.add("steps", "skipped {n} job steps (export with --allocations)")
        elif _PENDING_RANGE.search(jid):
            tally.add(
                "pending_arrays",
                "dropped {n} records of array tasks still pending as a range (123_[5-9])",
            )
        elif opts.partition is not None and row.get("Partition") != opts.partition:
            tally.add("other_partition", f"dropped {{n}} jobs not in partition {opts.partition}")
        else:
            out.append(row)
    return out


def import_slurm(
    paths: Iterable[str | os.PathLike[str]], opts: ImportOptions | None = None
) -> ImportResult:
    """Read ``sacct --parsable2`` dumps as one SWF trace.

    Args:
        paths: one or more dump files (plain or gzip).
        opts: time zone, what to do with jobs that never started, partition, machine
            size, id mapping (see :class:`ImportOptions`).

    Returns:
        The trace and the conversion notes.

    Raises:
        WorkloadFormatError: a needed column is missing (the message gives the sacct
            command), or a value cannot be read (naming file, line and field), or the
            file is of another format (named).
    """
    conv = Conversion.of(paths, opts)
    opts, tally = conv.opts, conv.tally
    rows: list[_Row] = []
    for path in conv.files:
        rows += _rows(path, tally)
    rows = _dedupe(_select(rows, opts, tally), tally)
    het: dict[str, list[tuple[Record, int]]] = {}
    records: list[tuple[Record, int]] = []
    for row in rows:
        rec = _record(row, opts, tally)
        nodes = row.count("NNodes") or 0
        if not nodes and rec.start is not None and opts.nodes is None:
            rec.written.add(
                "nnodes_none",
                "left {n} started jobs whose NNodes is empty or 0 out of the inferred MaxNodes",
            )
        jid = row.get("JobID")
        if "+" in jid:
            het.setdefault(jid.split("+")[0], []).append((rec, nodes))
            continue
        if "_" in jid:
            tally.add("array_tasks", "kept {n} array tasks as jobs of their own (123_4)")
        records.append((rec, nodes))
    for parts in het.values():
        tally.add(
            "het_components",
            "merged {n} heterogeneous job components (123+0, 123+1) into one job each",
            len(parts),
        )
        if any(r.req_mem_kb is not None for r, _ in parts):
            parts[0][0].written.add(
                "het_mem",
                "wrote requested memory -1 for {n} heterogeneous jobs (one value per "
                "processor cannot hold their components' requests)",
            )
        records.append(_merge_het(parts))
    return _finish(records, conv)


def _finish(records: list[tuple[Record, int]], conv: Conversion) -> ImportResult:
    opts, tally = conv.opts, conv.tally
    for rec, nodes in records:
        if rec.start is not None and rec.end is None:
            tally.add(
                "still_running",
                "kept {n} jobs still running at the dump with run time -1 (the loader drops them)",
            )
        conv.keep(
            rec,
            nodes,
            cancelled=rec.status == STATE_STATUS["CANCELLED"],
            what="{n} jobs never started (cancelled or still pending)",
            kept="kept them with wait, run time and allocated processors -1 (--unstarted keep)",
        )
    rules = [
        f"jobs that never started: {opts.unstarted} (--unstarted)",
        f"arrival: {opts.arrival} time (--arrival)",
        "status from State: " + ", ".join(f"{k} {v}" for k, v in STATE_STATUS.items()),
        "repeated autumn hour: first occurrence unless that puts a time before the previous one",
        "job steps skipped; array tasks are jobs; heterogeneous components merged",
    ]
    if opts.partition is not None:
        rules.append(f"only partition {opts.partition} (--partition)")
    return build_trace(conv, "slurm", rules, number_by_order=False)
