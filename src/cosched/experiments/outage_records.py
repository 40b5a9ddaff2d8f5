"""Unavailability read from a site's own records of node failures and reservations.

Where a site keeps records of when nodes were down, drained or reserved, the fit
(:mod:`cosched.experiments.fit`) and ``compare --baseline fitted`` replay those
intervals instead of the ones :mod:`cosched.experiments.unavailability` infers from the
schedule (``cosched validate --fit --unavailability FILE``). The records are inputs to
the machine, not recorded starts: the held-out part reads them as the fit part does.

Four formats are read (Slurm's node events, two of Slurm's listings of reservations,
PBS's reservation records); the first non-blank line tells which.

**Slurm node events**, as ``sacctmgr -P show event`` prints them (``-P``: fields
separated by ``|``, a header line first). The sacctmgr man page ("LIST/SHOW EVENT FORMAT
OPTIONS"): "The default format is: Cluster,NodeName,TimeStart,TimeEnd,State,Reason,User";
"NodeName: The node affected by the event. In a cluster event, this is blank";
"Start: Period when event started"; "End: Period when event ended"; "State: On a node
event this is the formatted state of the node during the event"; "TRES: Number of TRES
involved with the event". The header names the start ``TimeStart`` (or ``Start``) and
the end ``TimeEnd`` (or ``End``); times are ``YYYY-MM-DDTHH:MM:SS`` ("Format output
is, YYYY-MM-DDTHH:MM:SS, unless changed through the SLURM_TIME_FORMAT environment
variable") in the site's time zone, or epoch seconds; an end of ``Unknown`` (an event
still open) runs to the end of the log. A row counts when its state names a state in
which a node takes no new job (:data:`DOWN_STATES`: ``DOWN``, ``DRAIN``, ``FAIL``,
``MAINT``...); cluster events (no node) and other states are skipped and counted.
Each row removes its nodes (a hostlist: ``tux[1-2,5]``); on a machine allocated by
cores, a ``TRES`` of ``cpu=N`` fewer than those nodes' cores removes those ``N``.

**Slurm reservations**, as ``scontrol show reservation`` prints them: one record per
reservation, ``key=value`` words over one or more lines, records apart by a blank line
(or one per line with ``-o``; ``No reservations in the system`` when there are
none), for instance ``ReservationName=maint
StartTime=2024-04-02T12:00:00 EndTime=2024-04-02T13:00:00 Duration=01:00:00
Nodes=tux[0-3] NodeCnt=4 CoreCnt=448 ...``. A reservation removes its ``NodeCnt``
nodes (or its ``Nodes``), on a machine allocated by cores its ``CoreCnt`` cores. So
does ``sacctmgr -P show reservation`` (header ``Cluster|Name|TRES|TimeStart|TimeEnd|
UnusedWall`` by default): its ``TRES`` ``cpu=N`` / ``node=N``, or its ``Nodes``.

**PBS reservations**, in the PBS accounting log (``MM/DD/YYYY HH:MM:SS;T;ID;key=value
...``, the records :mod:`cosched.workload.importers.pbs` reads for jobs). Of its record
types: "B  Beginning of reservation period. The 'message_text' field contains
information describing the specified advance reservation" (``start`` and ``end``:
"time at which the reservation is to start / end", epoch seconds; ``Resource_List``:
"resources requested by the reservation"); "F  Resource reservation period
finished"; "K  Scheduler or server requested removal of the reservation"; "k  Resources
reservation terminated by ordinary client". A ``B`` record removes its
``Resource_List.nodect`` nodes (or ``Resource_List.ncpus`` processors on a machine
allocated by cores, or its ``Resource_List.select``'s chunk count) from ``start`` until
``end``, or until an ``F``, ``K`` or ``k`` record of the same reservation, if earlier
(a standing reservation writes a ``B`` record per occurrence, each read). Other record
types (the jobs') are skipped.

**Units and overlaps.** Intervals are in the log's time (epoch seconds less the log's
``UnixStartTime``) and in the machine's counted units (nodes, or processors on a machine
allocated by cores: :attr:`Platform.capacity`). Records that name their nodes are
merged node by node first (a node down and drained over the same hour is removed once),
then the removed units summed over nodes and unnamed records, and capped at the
machine. The step function is replayed as is: no rule joins or drops short pieces
(:data:`cosched.experiments.unavailability.MIN_SEGMENT` is the inferred rule's, which
reads a schedule; a record states when a node was out).

**Tested on** hand-written records in these formats, not on a real site's records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cosched.errors import ConfigError, WorkloadFormatError
from cosched.platform import Platform
from cosched.platform.machine import Allocation
from cosched.workload.importers._common import Stamp, parse_stamp
from cosched.workload.importers.pbs import RECORD, attributes, records

__all__ = ["DOWN_STATES", "OutageRecords", "hostlist", "read_outage_records"]

Interval = tuple[float, float, int]

#: Node states (of a Slurm node event) in which a node takes no new job: each state
#: word (``DOWN+DRAIN``, ``IDLE+DRAIN``, ``DOWN*``) is matched against these.
DOWN_STATES = frozenset(
    {"DOWN", "DRAIN", "DRAINED", "DRAINING", "FAIL", "FAILING", "MAINT", "REBOOT",
     "NOT_RESPONDING", "POWERED_DOWN", "POWER_DOWN", "RESERVED"}
)  # fmt: skip

_OPEN_END = frozenset({"unknown", "none", "(null)", ""})


@dataclass(frozen=True)
class OutageRecords:
    """What a record file says.

    Attributes:
        path: the file read.
        kind: its format (``sacctmgr events``, ``scontrol reservations``,
            ``sacctmgr reservations``, ``PBS reservations``).
        read: the records that removed capacity.
        skipped: records read and left out (other states, cluster events, job records).
        intervals: the units removed ``(start, end, units)`` in the log's time, merged.
    """

    path: str
    kind: str
    read: int
    skipped: int
    intervals: tuple[Interval, ...]

    def note(self) -> str:
        """The ``assumed`` line of the report."""
        hours = sum(b - a for a, b, _ in self.intervals) / 3600.0
        most = max((u for _, _, u in self.intervals), default=0)
        return (
            f"outages=on replays the unavailability recorded in {self.path} ({self.kind}: "
            f"{self.read} records, {self.skipped} skipped; {len(self.intervals)} intervals, "
            f"{hours:.1f} h, at most {most} units), on the fit and the held-out part alike, "
            "in place of the rule that reads it from the schedule; drained as units come free"
        )


@dataclass
class _Rec:
    line: int
    start: float
    end: float
    nodes: tuple[str, ...] | None  # named nodes, or None
    units: int  # when unnamed: units removed


def hostlist(text: str) -> list[str]:
    """The node names of a Slurm hostlist (``tux[1-3,7],login0``).

    Raises:
        ValueError: a bracket not closed, or a range not ``a-b`` with ``a <= b``.
    """
    out: list[str] = []
    depth, cur = 0, ""
    parts = []
    for ch in text.strip():
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += (ch == "[") - (ch == "]")
        if depth < 0:
            raise ValueError("']' without '['")
        cur += ch
    if depth:
        raise ValueError("'[' not closed")
    parts.append(cur)
    for part in parts:
        if part:
            out.extend(_expand(part))
    return out


def _expand(part: str) -> list[str]:
    m = re.match(r"^([^\[]*)\[([^\]]*)\](.*)$", part)
    if not m:
        return [part]
    head, body, tail = m.groups()
    names = []
    for r in body.split(","):
        lo, dash, hi = r.partition("-")
        if not lo.isdigit() or (dash and not hi.isdigit()):
            raise ValueError(f"range {r!r} is not N or N-M")
        a, b = int(lo), int(hi) if dash else int(lo)
        if b < a:
            raise ValueError(f"range {r!r} runs backwards")
        names += [f"{head}{str(i).zfill(len(lo))}" for i in range(a, b + 1)]
    return [n + t for n in names for t in _expand(tail)]


def read_outage_records(
    path: Path | str, platform: Platform, origin: float, horizon: float, tz: str = "UTC"
) -> OutageRecords:
    """Read a record file (see the module) into the units it removes over time.

    Args:
        path: the file.
        platform: the machine (its capacity, cores per node and allocation).
        origin: epoch seconds of the log's time 0 (its ``UnixStartTime``).
        horizon: the end of the log (log time), where an open event ends.
        tz: the IANA time zone of date-times without one.

    Raises:
        ConfigError: the file cannot be read, or its format is not one of the three.
        WorkloadFormatError: a record is malformed (names file, line and field).
    """
    name = str(path)
    try:
        text = Path(path).read_text(errors="replace")
    except OSError as e:
        raise ConfigError(f"--unavailability {name}: cannot read it ({e.strerror})") from None
    lines = text.split("\n")
    first = next((ln for ln in lines if ln.strip()), "")
    if RECORD.match(first):
        kind, (recs, skipped) = "PBS reservations", _pbs(name, lines, platform, tz)
    elif first.strip().startswith("No reservations in the system"):
        kind, (recs, skipped) = "scontrol reservations", ([], 0)
    elif "ReservationName=" in first:
        kind, (recs, skipped) = "scontrol reservations", _scontrol(name, lines, platform, tz)
    elif "|" in first:
        head = first.strip().split("|")
        kind = "sacctmgr events" if "NodeName" in head else "sacctmgr reservations"
        recs, skipped = _parsable(name, lines, head, platform, tz, kind == "sacctmgr events")
    else:
        raise ConfigError(
            f"--unavailability {name}:1: not a record file cosched reads: give `sacctmgr -P "
            "show event` or `sacctmgr -P show reservation` output (a header line of fields "
            "apart by '|'), `scontrol show reservation` output, or a PBS accounting log"
        )
    for r in recs:
        r.start -= origin
        r.end = horizon if r.end == float("inf") else r.end - origin
    return OutageRecords(name, kind, len(recs), skipped, _merge(recs, platform, horizon))


# -- the formats ---------------------------------------------------------------------------


def _time(path: str, line: int, field: str, text: str, tz: str, open_end: bool = False) -> float:
    if open_end and text.strip().lower() in _OPEN_END:
        return float("inf")
    s = parse_stamp(text.strip(), tz)
    if not isinstance(s, Stamp):
        raise WorkloadFormatError(s, path=path, line=line, field=field, value=text)
    return float(s.epoch)


def _count(path: str, line: int, field: str, text: str) -> int:
    if not text.isdigit():
        raise WorkloadFormatError(
            "not a count (0 or more)", path=path, line=line, field=field, value=text
        )
    return int(text)


def _nodes(path: str, line: int, field: str, text: str) -> tuple[str, ...]:
    try:
        return tuple(dict.fromkeys(hostlist(text)))
    except ValueError as e:
        raise WorkloadFormatError(
            f"not a hostlist ({e})", path=path, line=line, field=field, value=text
        ) from None


def _tres(path: str, line: int, field: str, text: str) -> dict[str, int]:
    out = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise WorkloadFormatError(
                "not a TRES list (cpu=N,node=N,...)", path=path, line=line, field=field, value=text
            )
        if value.isdigit():
            out[key.strip()] = int(value)
    return out


def _per_node(platform: Platform) -> int:
    """Units of one node."""
    return platform.cores if platform.allocation is Allocation.CORES else 1


def _units(platform: Platform, nodes: int | None, cpus: int | None) -> int:
    """Units removed by ``nodes`` nodes or ``cpus`` processors (what the record gives)."""
    if platform.allocation is Allocation.CORES:
        return cpus if cpus is not None else (nodes or 0) * platform.cores
    if nodes is not None:
        return nodes
    return -(-(cpus or 0) // platform.cores)


def _record(
    path: str,
    line: int,
    platform: Platform,
    start: float,
    end: float,
    names: tuple[str, ...] | None,
    units: int,
    field: str,
    end_field: str,
) -> _Rec:
    if end < start:
        raise WorkloadFormatError(
            "the interval ends before it starts", path=path, line=line, field=end_field
        )
    if units > platform.capacity:
        raise WorkloadFormatError(
            f"removes {units} units, more than the machine's {platform.capacity} "
            f"({platform.describe()})",
            path=path,
            line=line,
            field=field,
        )
    return _Rec(line, start, end, names, units)


def _parsable(
    path: str, lines: list[str], head: list[str], platform: Platform, tz: str, events: bool
) -> tuple[list[_Rec], int]:
    col = {h.strip(): i for i, h in enumerate(head)}
    start_f = next((f for f in ("TimeStart", "Start") if f in col), None)
    end_f = next((f for f in ("TimeEnd", "End") if f in col), None)
    if start_f is None or end_f is None:
        raise ConfigError(
            f"--unavailability {path}:1: the header names no start (TimeStart or Start) or "
            "no end (TimeEnd or End) column; format=NodeName,Start,End,State,TRES for events"
        )
    node_f = next((f for f in ("NodeName", "Nodes") if f in col), None)
    if node_f is None and "TRES" not in col:
        raise ConfigError(
            f"--unavailability {path}:1: the header names neither NodeName/Nodes nor TRES: "
            "nothing says how much of the machine a record removes"
        )
    recs, skipped = [], 0
    for k, raw in enumerate(lines, start=1):
        if k == 1 or not raw.strip():
            continue
        cells = raw.rstrip("\r").split("|")
        if len(cells) < len(head):
            raise WorkloadFormatError(
                f"{len(cells)} fields, the header has {len(head)}", path=path, line=k, value=raw
            )

        def cell(f: str, cells: list[str] = cells) -> str:
            return cells[col[f]].strip()

        if events:
            state = cell("State").upper() if "State" in col else "DOWN"
            words = {w.rstrip("*~#!%$@^-") for w in re.split(r"[+ ]", state)}
            if not cell("NodeName") or not words & DOWN_STATES:
                skipped += 1
                continue
        start = _time(path, k, start_f, cell(start_f), tz)
        end = _time(path, k, end_f, cell(end_f), tz, open_end=True)
        names = _nodes(path, k, node_f, cell(node_f)) if node_f and cell(node_f) else None
        tres = _tres(path, k, "TRES", cell("TRES")) if "TRES" in col and cell("TRES") else {}
        cpus = tres.get("cpu")
        if names is not None and (cpus is None or cpus >= len(names) * _per_node(platform)):
            units = _units(platform, len(names), None)  # whole nodes, merged by name
        elif cpus is not None or "node" in tres:
            units = _units(platform, tres.get("node"), cpus)
            names = None  # processors of part of its nodes: counted, not named
        else:
            raise WorkloadFormatError(
                "names no node and no cpu= or node= count", path=path, line=k, field="TRES"
            )
        field = "TRES" if names is None and "TRES" in col else (node_f or "TRES")
        if names is not None and len(names) > platform.nodes:
            raise WorkloadFormatError(
                f"{len(names)} nodes, more than the machine's {platform.nodes}",
                path=path,
                line=k,
                field=node_f,
            )
        recs.append(_record(path, k, platform, start, end, names, units, field, end_f))
    return recs, skipped


def _scontrol(path: str, lines: list[str], platform: Platform, tz: str) -> tuple[list[_Rec], int]:
    blocks: list[tuple[int, dict[str, str]]] = []
    for k, raw in enumerate(lines, start=1):
        words = raw.split()
        if not words:
            continue
        for w in words:
            key, sep, value = w.partition("=")
            if key == "ReservationName":
                blocks.append((k, {}))
            if not blocks:
                raise WorkloadFormatError(
                    "a record must begin with ReservationName=", path=path, line=k, value=w
                )
            if sep:
                blocks[-1][1][key] = value
    recs, skipped = [], 0
    for k, kv in blocks:
        for f in ("StartTime", "EndTime"):
            if f not in kv:
                raise WorkloadFormatError("missing", path=path, line=k, field=f)
        start = _time(path, k, "StartTime", kv["StartTime"], tz)
        end = _time(path, k, "EndTime", kv["EndTime"], tz)
        names = None
        if kv.get("Nodes", "(null)") not in ("(null)", "", "ALL"):
            names = _nodes(path, k, "Nodes", kv["Nodes"])
        n = _count(path, k, "NodeCnt", kv["NodeCnt"]) if "NodeCnt" in kv else None
        if n is None and names is not None:
            n = len(names)
        if n is None:
            raise WorkloadFormatError("missing (and no Nodes)", path=path, line=k, field="NodeCnt")
        if n > platform.nodes:
            raise WorkloadFormatError(
                f"{n} nodes, more than the machine's {platform.nodes}",
                path=path,
                line=k,
                field="NodeCnt",
                value=kv.get("NodeCnt"),
            )
        cores = _count(path, k, "CoreCnt", kv["CoreCnt"]) if "CoreCnt" in kv else None
        units = _units(platform, n, cores)
        if cores is not None and platform.allocation is Allocation.CORES:
            names = None  # cores of part of the nodes: counted, not named
        rec = _record(path, k, platform, start, end, names, units, "CoreCnt", "EndTime")
        if units == 0:  # reserves no node or processor (licenses, say)
            skipped += 1
            continue
        recs.append(rec)
    return recs, skipped


def _pbs(path: str, lines: list[str], platform: Platform, tz: str) -> tuple[list[_Rec], int]:
    begun: list[tuple[str, _Rec]] = []  # a standing reservation begins once per occurrence
    ended: dict[str, list[float]] = {}
    skipped = 0
    for k, stamp, rtype, rid, message in records(path, lines, ids="ID", sniff=False):
        if rtype in ("F", "K", "k"):
            when = _time(path, k, "time stamp", stamp, tz)
            ended.setdefault(rid, []).append(when)
            continue
        if rtype != "B":
            skipped += 1
            continue
        kv = attributes(message)
        for f in ("start", "end"):
            if f not in kv:
                raise WorkloadFormatError("missing from the B record", path=path, line=k, field=f)
        start = _time(path, k, "start", kv["start"], tz)
        end = _time(path, k, "end", kv["end"], tz)
        nodes = cpus = None
        for f in ("Resource_List.nodect", "Resource_List.nodes"):
            if f in kv and nodes is None:
                nodes = _count(path, k, f, kv[f].split(":")[0]) if kv[f][:1].isdigit() else None
        if "Resource_List.ncpus" in kv:
            cpus = _count(path, k, "Resource_List.ncpus", kv["Resource_List.ncpus"])
        if nodes is None and "Resource_List.select" in kv:
            chunks = [c.split(":")[0] for c in kv["Resource_List.select"].split("+")]
            nodes = sum(int(c) if c.isdigit() else 1 for c in chunks)
        if nodes is None and cpus is None:
            raise WorkloadFormatError(
                "no Resource_List.nodect, .ncpus or .select: nothing says how much is reserved",
                path=path,
                line=k,
                field="Resource_List",
            )
        if nodes is not None and nodes > platform.nodes:
            raise WorkloadFormatError(
                f"{nodes} nodes, more than the machine's {platform.nodes}",
                path=path,
                line=k,
                field="Resource_List.nodect",
            )
        units = _units(platform, nodes, cpus)
        rec = _record(path, k, platform, start, end, None, units, "Resource_List.ncpus", "end")
        if units == 0:  # reserves no node or processor (licenses, say)
            skipped += 1
            continue
        begun.append((rid, rec))
    for rid, r in begun:
        r.end = min([r.end, *(t for t in ended.get(rid, []) if r.start <= t)])
    return [r for _, r in begun], skipped


# -- merging --------------------------------------------------------------------------------


def _merge(recs: list[_Rec], platform: Platform, horizon: float) -> tuple[Interval, ...]:
    """The units removed as a step function, each named node counted once at a time."""
    per_node = _per_node(platform)
    by_node: dict[str, list[tuple[float, float]]] = {}
    edges: list[tuple[float, int]] = []
    for r in recs:
        a, b = r.start, min(r.end, horizon)
        if b <= a:
            continue
        if r.nodes is None:
            edges += [(a, r.units), (b, -r.units)]
        else:
            for n in r.nodes:
                by_node.setdefault(n, []).append((a, b))
    for spans in by_node.values():
        spans.sort()
        ca, cb = spans[0]
        for a, b in spans[1:]:
            if a <= cb:
                cb = max(cb, b)
            else:
                edges += [(ca, per_node), (cb, -per_node)]
                ca, cb = a, b
        edges += [(ca, per_node), (cb, -per_node)]
    if not edges:
        return ()
    times = np.array([t for t, _ in edges])
    deltas = np.array([d for _, d in edges], dtype=np.int64)
    uniq, inverse = np.unique(times, return_inverse=True)
    step = np.zeros(uniq.size, dtype=np.int64)
    np.add.at(step, inverse, deltas)
    level = np.minimum(np.cumsum(step), platform.capacity)
    out: list[Interval] = []
    for i in range(uniq.size - 1):
        u = int(level[i])
        if u <= 0:
            continue
        a, b = float(uniq[i]), float(uniq[i + 1])
        if out and out[-1][1] == a and out[-1][2] == u:
            out[-1] = (out[-1][0], b, u)
        else:
            out.append((a, b, u))
    return tuple(out)
