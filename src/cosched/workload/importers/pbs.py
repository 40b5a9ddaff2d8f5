"""PBS Pro / OpenPBS / Torque accounting records (``server_priv/accounting/YYYYMMDD``).

A record is ``MM/DD/YYYY HH:MM:SS;T;JOBID;key=value key=value ...``. ``E`` (job ended)
records give each job that ran; ``D`` (deleted) and ``A`` (aborted) records without an
``E`` give jobs that never ran, their submission from the ``Q`` record; ``D`` before
an ``E`` marks a job cancelled while running. Array subjobs ``123[4].server`` are jobs
of their own; the array's own records (``123[].server``) and every other record type are
skipped and counted. Jobs are numbered 1..N in arrival order (PBS ids are not integers).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from cosched.errors import WorkloadFormatError
from cosched.workload.importers._common import (
    MAX_EPOCH,
    TIME_RANGE,
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
from cosched.workload.importers.detect import sniff_text, wrong_format

__all__ = ["RECORD", "attributes", "import_pbs", "parse_walltime", "records"]

#: One line of a PBS accounting log: date, time, record type, id, message (``key=value ...``).
RECORD = re.compile(
    r"^([0-9]{2})/([0-9]{2})/([0-9]{4}) ([0-9]{2}:[0-9]{2}:[0-9]{2});([A-Za-z]);([^;]*);(.*)$"
)
_WALL = re.compile(r"^(?:(?:([0-9]+):)?([0-9]+):)?([0-9]+)$")
_SIZE = re.compile(r"^([0-9]+)(b|kb|mb|gb|tb|pb|w|kw|mw|gw|tw)?$", re.IGNORECASE)
_EXIT = re.compile(r"^[+-]?([0-9]+)$")
#: A host or vnode name: ASCII letters, digits, ``.``, ``-``, ``_`` and brackets.
_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-\[\]]*$")
_NOT_HOSTS = "not a host/cpu list (host/0*4+host/0-3,5)"
_SIZE_KB = {"b": 1 / 1024, "kb": 1, "mb": 1024, "gb": 1024**2, "tb": 1024**3, "pb": 1024**4}
_NAMES = {"user": "user", "group": "group", "account": "account", "queue": "queue"}
_USED = frozenset({"E", "D", "A", "Q"})


def parse_walltime(text: str) -> int | None:
    """Seconds of ``[[HH:]MM:]SS`` (or plain seconds), None when malformed. A number of
    more than 16 digits counts as 2^53 + 1 (the caller refuses any result beyond 2^53)."""
    m = _WALL.match(text)
    if not m:
        return None
    h, mi, s = (digits(x) if x else 0 for x in m.groups())
    return h * 3600 + mi * 60 + s


@dataclass
class _Job:
    """What the records of one PBS job say."""

    key: str
    path: str = ""
    line: int = 0
    attrs: dict[str, str] = field(default_factory=dict)
    queued: tuple[str, int, str] | None = None  # path, line, local stamp of the Q record
    queue: str = ""  # from the Q record, for jobs that never ran
    deleted: bool = False
    ended: bool = False


def attributes(message: str) -> dict[str, str]:
    """The ``key=value`` pairs of a PBS accounting record's message."""
    out = {}
    for part in message.split():
        key, sep, value = part.partition("=")
        if sep:
            out[key] = value
    return out


def records(
    path: str, lines: Iterable[str], *, ids: str = "JOBID", sniff: bool = True
) -> Iterator[tuple[int, str, str, str, str]]:
    """The records of a PBS accounting log's lines, blank lines passed over: ``(line
    number, local stamp YYYY-MM-DDTHH:MM:SS, record type, id, message)``.

    Raises:
        WorkloadFormatError: a line that is not a record (naming file and line; ``ids``:
            what the id field holds, for the message), or with ``sniff``, a line of
            another format the importers read (named).
    """
    for k, line in enumerate(lines, start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        m = RECORD.match(line)
        if not m:
            kind = sniff_text(line) if sniff else None
            if kind not in (None, "pbs"):
                raise WorkloadFormatError(wrong_format(kind, "pbs"), path=path, line=k)
            raise WorkloadFormatError(
                f"not a PBS accounting record (MM/DD/YYYY HH:MM:SS;T;{ids};key=value ...)",
                path=path,
                line=k,
                value=line[:80],
            )
        mon, day, year, clock, rtype, rid, message = m.groups()
        yield k, f"{year}-{mon}-{day}T{clock}", rtype, rid, message


def _read(path: str, jobs: dict[str, _Job], tally: Tally) -> None:
    text = read_text(path)
    note_cut_last_line(path, text, tally)
    for k, stamp, rtype, jid, message in records(path, text.split("\n")):
        tally.add("lines", "", 1)
        if rtype not in _USED:
            tally.add(f"skip_{rtype}", f"skipped {{n}} {rtype} records", 1)
            continue
        if "[]" in jid:
            tally.add("array_parent", "skipped {n} records of job arrays as a whole (123[])")
            continue
        job = jobs.setdefault(jid, _Job(jid))
        if rtype == "Q":
            if job.queued is None:
                job.queued = (path, k, stamp)
                job.queue = attributes(message).get("queue", "")
        elif rtype in ("D", "A"):
            job.deleted = True
            if not job.ended:
                job.path, job.line = path, k
        else:
            if job.ended:
                tally.add("duplicates", "dropped {n} duplicate E records (same job twice)")
            job.ended = True
            job.path, job.line, job.attrs = path, k, attributes(message)


class _Fields:
    """Access to an E record's attributes with errors naming file, line and field."""

    def __init__(self, job: _Job) -> None:
        self.job = job

    def bad(self, name: str, problem: str) -> WorkloadFormatError:
        return WorkloadFormatError(
            problem,
            path=self.job.path,
            line=self.job.line,
            field=name,
            value=shown(self.job.attrs.get(name)),
        )

    def time(self, name: str) -> Stamp | None:
        text = self.job.attrs.get(name)
        if text is None or text == "":
            return None
        if not is_digits(text):
            raise self.bad(name, "not a time (epoch seconds)")
        epoch = digits(text)
        if epoch > MAX_EPOCH:
            raise self.bad(name, TIME_RANGE)
        return Stamp(epoch) if epoch else None  # 0: not recorded

    def count(self, name: str) -> int | None:
        text = self.job.attrs.get(name)
        if text is None:
            return None
        value = read_count(text)
        if isinstance(value, str):
            raise self.bad(name, value)
        return value or None

    def walltime(self, name: str) -> int | None:
        text = self.job.attrs.get(name)
        if text is None:
            return None
        seconds = parse_walltime(text)
        if seconds is None:
            raise self.bad(name, "not a wall time ([[HH:]MM:]SS)")
        if too_large(seconds):
            raise self.bad(name, TOO_LARGE)
        return seconds


def _chunks(spec: str, fields: _Fields, name: str, per: str) -> int:
    """Processors of a ``select`` (``2:ncpus=8+1:ncpus=4``) or ``nodes`` (``2:ppn=8``)."""
    total = 0
    for chunk in spec.split("+"):
        parts = chunk.split(":")
        if not is_digits(parts[0]) and not _HOST.match(parts[0]):
            raise fields.bad(name, "a chunk is not N:ncpus=M (or a host name)")
        count = digits(parts[0]) if is_digits(parts[0]) else 1  # a host name counts as 1
        each = 1
        for p in parts[1:]:
            key, _, value = p.partition("=")
            if key == per:
                if not is_digits(value):
                    raise fields.bad(name, f"{per} is not a count")
                each = digits(value)
        total += count * each
        if too_large(total):
            raise fields.bad(name, f"processors {TOO_LARGE}")
    return total


def _exec_host(text: str, fields: _Fields) -> tuple[int, int]:
    """CPUs and distinct hosts of ``exec_host`` (``n1/0*4+n2/0*4``, ``n1/0+n1/1``,
    ``n1/0-3,5``)."""
    cpus = 0
    hosts = set()
    for part in text.split("+"):
        host, sep, slots = part.partition("/")
        if not _HOST.match(host):
            raise fields.bad("exec_host", _NOT_HOSTS)
        hosts.add(host)
        cpus += _slots(slots, fields) if sep else 1
        if too_large(cpus):
            raise fields.bad("exec_host", f"processors {TOO_LARGE}")
    return cpus, len(hosts)


def _slots(text: str, fields: _Fields) -> int:
    """CPUs of one host's slots: ``0-3,5`` (5), ``0*4`` (4)."""
    slots, star, mult = text.partition("*")
    n = 0
    for piece in slots.split(","):
        lo, dash, hi = piece.partition("-")
        if not is_digits(lo) or (dash and not is_digits(hi)):
            raise fields.bad("exec_host", _NOT_HOSTS)
        if dash and digits(hi) < digits(lo):
            raise fields.bad("exec_host", "a cpu range that ends before it starts")
        n += digits(hi) - digits(lo) + 1 if dash else 1
    if star:
        if not is_digits(mult):
            raise fields.bad("exec_host", _NOT_HOSTS)
        if digits(mult) == 0:
            raise fields.bad("exec_host", "a host with 0 CPUs (*0)")
        n = digits(mult) * (n if n > 1 else 1)
    return n


def _requested_procs(fields: _Fields, tally: Tally) -> int | None:
    a = fields.job.attrs
    if "Resource_List.ncpus" in a:
        return fields.count("Resource_List.ncpus")
    if "Resource_List.select" in a:
        return _chunks(a["Resource_List.select"], fields, "Resource_List.select", "ncpus")
    if "Resource_List.nodes" in a:
        return _chunks(a["Resource_List.nodes"], fields, "Resource_List.nodes", "ppn")
    if "Resource_List.nodect" in a:
        tally.add("procs_from_nodect", "took nodect as the processor count of {n} jobs")
        return fields.count("Resource_List.nodect")
    return None


def _memory_kb(fields: _Fields, procs: int | None, tally: Tally) -> float | None:
    text = fields.job.attrs.get("Resource_List.mem")
    if text is None:
        tally.add("no_mem", "wrote requested memory -1 for {n} jobs without Resource_List.mem")
        return None
    if not procs:
        tally.add(
            "mem_no_procs",
            "wrote requested memory -1 for {n} jobs with Resource_List.mem but no requested "
            "processors (memory per processor unknown)",
        )
        return None
    m = _SIZE.match(text)
    if not m:
        raise fields.bad("Resource_List.mem", "not a size (a number with b, kb, mb, gb, tb)")
    unit = (m.group(2) or "b").lower()
    if unit.endswith("w"):  # words of 8 bytes
        unit, factor = (unit[:-1] + "b") if unit != "w" else "b", 8.0
    else:
        factor = 1.0
    kb = float(m.group(1)) * factor * _SIZE_KB[unit] / procs
    if too_large(kb):
        raise fields.bad("Resource_List.mem", f"KB per processor {TOO_LARGE}")
    return kb


def _status(job: _Job, fields: _Fields, tally: Tally) -> int:
    if job.deleted:
        return 5
    code = job.attrs.get("Exit_status")
    if code is None:
        tally.add("no_exit_status", "wrote status -1 for {n} E records without Exit_status")
        return -1
    m = _EXIT.match(code)
    if not m:
        raise fields.bad("Exit_status", "not an integer")
    return 1 if digits(m.group(1)) == 0 else 0


def _ended(job: _Job, opts: ImportOptions, tally: Tally) -> tuple[Record, int]:
    f = _Fields(job)
    a = job.attrs
    stamps = [f.time("qtime") or f.time("ctime"), f.time("etime"), f.time("start"), f.time("end")]
    submit, eligible, start, end = order_stamps(stamps, tally)
    if submit is None:
        raise f.bad("qtime", "an E record without qtime or ctime")
    written = Tally()
    req = _requested_procs(f, written) or None
    if req is None:
        written.add(
            "no_req_procs",
            "wrote requested processors -1 for {n} jobs whose Resource_List gives none "
            "(ncpus, select, nodes and nodect absent or 0)",
        )
    if "exec_host" in a:
        alloc, hosts = _exec_host(a["exec_host"], f)
    else:
        alloc, hosts = req or 0, f.count("Resource_List.nodect") or 0
        if start is not None and req:
            written.add(
                "alloc_from_req",
                "took the requested processors as allocated for {n} jobs without exec_host",
            )
        elif start is not None:
            written.add(
                "alloc_none",
                "wrote allocated processors -1 for {n} started jobs without exec_host or "
                "requested processors",
            )
    if start is not None and end is None:
        written.add("no_end_time", "wrote run time -1 for {n} E records without end")
    walltime = f.walltime("Resource_List.walltime")
    if walltime is None:
        written.add(
            "no_walltime",
            "wrote requested time -1 for {n} jobs without Resource_List.walltime",
        )
    names = {k: a.get(v, "") for k, v in _NAMES.items()}
    names["account"] = a.get("account", a.get("project", ""))
    names["partition"] = a.get("partition", "")
    rec = Record(
        path=job.path,
        line=job.line,
        key=job.key,
        submit=submit,
        eligible=eligible,
        start=start,
        end=end if start is not None else None,
        alloc_procs=(alloc or None) if start is not None else None,
        req_procs=req,
        req_time=walltime,
        req_mem_kb=_memory_kb(f, req, written),
        status=_status(job, f, written),
        names=names,
        written=written,
    )
    return rec, hosts


def _never_ran(job: _Job, opts: ImportOptions, tally: Tally) -> Record | None:
    if job.queued is None:
        tally.add("no_queue_record", "dropped {n} deleted jobs whose Q record is not in the files")
        return None
    path, line, text = job.queued
    s = parse_stamp(text, opts.tz)
    if isinstance(s, str):
        raise WorkloadFormatError(s, path=path, line=line, field="record time", value=text)
    return Record(
        path=job.path,
        line=job.line,
        key=job.key,
        submit=s.epoch,
        status=5,
        names={"queue": job.queue},
    )


def import_pbs(
    paths: Iterable[str | os.PathLike[str]], opts: ImportOptions | None = None
) -> ImportResult:
    """Read PBS accounting files (or folders of them) as one SWF trace.

    Args:
        paths: files or folders (a folder stands for its files, sorted by name).
        opts: time zone of the record stamps, what to do with jobs that never ran,
            queue to keep (``partition``), machine size, id mapping.

    Returns:
        The trace and the conversion notes.

    Raises:
        WorkloadFormatError: a line that is not a record, or a value that cannot be
            read (naming file, line and field), or a file of another format (named).
    """
    conv = Conversion.of(paths, opts)
    opts, tally = conv.opts, conv.tally
    jobs: dict[str, _Job] = {}
    for path in conv.files:
        _read(path, jobs, tally)
    tally.counts["records"] = len(jobs)
    for job in jobs.values():
        if opts.partition is not None and job.attrs.get("queue", job.queue) != opts.partition:
            tally.add("other_queue", f"dropped {{n}} jobs not in queue {opts.partition}")
            continue
        if "[" in job.key:
            tally.add("array_tasks", "kept {n} array subjobs as jobs of their own (123[4])")
        rec: Record | None
        hosts = 0
        if job.ended:
            rec, hosts = _ended(job, opts, tally)
            if not hosts and rec.start is not None and opts.nodes is None:
                rec.written.add(
                    "hosts_none",
                    "left {n} started jobs without exec_host or Resource_List.nodect out "
                    "of the inferred MaxNodes",
                )
        elif job.deleted:
            rec = _never_ran(job, opts, tally)
        else:
            tally.add(
                "no_end", "dropped {n} jobs with no E, D or A record (queued or running at the end)"
            )
            continue
        if rec is None or not conv.keep(
            rec,
            hosts,
            cancelled=True,
            what="{n} jobs never started (deleted or aborted while queued)",
            kept="kept them with wait, run time, processors, requested time and memory -1 "
            "(--unstarted keep: only their submission is recorded)",
        ):
            continue
        if rec.start is not None and job.deleted:
            tally.add("cancelled_running", "marked {n} jobs deleted while running as cancelled (5)")
    rules = [
        f"jobs that never ran: {opts.unstarted} (--unstarted)",
        f"arrival: {opts.arrival} time (--arrival; qtime or etime)",
        "status: Exit_status 0 -> 1, other -> 0, a D record -> 5",
        "procs: exec_host (allocated), Resource_List ncpus/select/nodes (requested)",
        "record types other than E, D, A, Q skipped; array subjobs are jobs",
    ]
    return build_trace(conv, "pbs", rules, number_by_order=True)
