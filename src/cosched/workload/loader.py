"""Turn a raw SWF trace into a :class:`~cosched.workload.job.Workload`.

Real logs have jobs the simulator cannot take as they are: no processor count, a run
time of 0 or -1, a run time above the requested limit, a size above the machine.
:class:`LoadRules` says what to do with each; every rule that changes something adds a
sentence with its count to the workload's notes, and :func:`load_workload_with_report`
also returns the counts as a dict.

The rules apply in this order: jobs without a submit time dropped, ``procs_field``,
``nonpositive_run``, missing requested times filled, ``overrun``, ``too_wide``. A
``limit`` of K keeps the first K jobs these rules keep: the trace is cut after the data
line of its K-th kept job, and the rules' notes count what they did up to that line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from cosched.errors import ConfigError, WorkloadError, WorkloadFormatError
from cosched.platform.machine import Platform
from cosched.workload.columns import Columns
from cosched.workload.job import SWF_FIELDS, Workload
from cosched.workload.rules import NonpositiveRun, Overrun, ProcsField, TooWide
from cosched.workload.swf import SwfHeader, SwfTrace, read_swf

__all__ = [
    "DEFAULT_RULES",
    "LoadRules",
    "NonpositiveRun",
    "Overrun",
    "ProcsField",
    "TooWide",
    "load_workload",
    "load_workload_with_report",
]


@dataclass(frozen=True)
class LoadRules:
    """How :func:`load_workload` resolves a trace's questionable jobs.

    Attributes:
        procs_field: ``allocated`` (default): field 5 (allocated processors), or field 8
            (requested processors) when 5 is missing; ``requested``: field 8, falling
            back to 5; ``max``: the larger of the two present. A job with neither is
            dropped and counted. A count <= 0 counts as missing.
        overrun: for a run time above the requested time, ``extend`` (default): the
            requested time becomes the run time; ``keep``: leave both (the job overruns
            its limit); ``kill``: the run time becomes the requested time (the job is
            killed at its limit). Before this rule, a missing or non-positive requested
            time becomes the run time (counted).
        nonpositive_run: for a missing run time or one <= 0, ``drop`` (default, counted)
            or ``one`` (set to 1 second).
        too_wide: for a job wider than the machine, ``error`` (default): raise
            :class:`~cosched.errors.WorkloadError` naming the first such job; ``drop``
            (counted); ``clip``: its size becomes the machine's. The machine is the
            ``platform`` given to the loader, else the header's MaxProcs, else its
            MaxNodes, else there is no check.
    """

    procs_field: ProcsField = ProcsField.ALLOCATED
    overrun: Overrun = Overrun.EXTEND
    nonpositive_run: NonpositiveRun = NonpositiveRun.DROP
    too_wide: TooWide = TooWide.ERROR

    def __post_init__(self) -> None:
        for name, kind in (
            ("procs_field", ProcsField),
            ("overrun", Overrun),
            ("nonpositive_run", NonpositiveRun),
            ("too_wide", TooWide),
        ):
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, kind(value))
            except ValueError:
                allowed = ", ".join(m.value for m in kind)
                raise ConfigError(f"{name} must be one of {allowed}, got {value!r}") from None


#: The default rules (every option at its default).
DEFAULT_RULES = LoadRules()


@dataclass
class _State:
    """The table being resolved plus what each rule did."""

    table: Columns
    lines: np.ndarray
    counts: dict[str, int]
    notes: list[str]
    #: Each rule's note with ``{n}`` for its count (a streamed load adds counts up).
    templates: dict[str, str] = field(default_factory=dict)

    def keep(self, mask: np.ndarray) -> None:
        if not mask.all():
            self.table.keep_rows(mask)
        self.lines = self.lines[mask]

    def record(self, key: str, count: int, note: str) -> None:
        self.counts[key] = count
        self.templates[key] = note
        if count:
            self.notes.append(note.format(n=count))


def _workload_name(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".swf"):
        name = name.removesuffix(suffix)
    return name or "workload"


def _resolve_procs(s: _State, rule: ProcsField) -> None:
    alloc = s.table["allocated_procs"]
    req = s.table["requested_procs"]
    alloc = np.where(alloc > 0, alloc, np.nan)  # 0 processors is as good as missing
    req = np.where(req > 0, req, np.nan)
    if rule is ProcsField.ALLOCATED:
        procs = np.where(np.isnan(alloc), req, alloc)
    elif rule is ProcsField.REQUESTED:
        procs = np.where(np.isnan(req), alloc, req)
    else:
        procs = np.fmax(alloc, req)  # fmax ignores a NaN on one side
    s.table["procs"] = procs
    ok = ~np.isnan(procs)
    s.record("no_procs", int((~ok).sum()), "dropped {n} jobs with no processor count")
    s.keep(ok)


def _resolve_run(s: _State, rule: NonpositiveRun) -> None:
    run = s.table["run_time"]
    bad = ~(run > 0)  # also catches NaN (missing)
    n = int(bad.sum())
    if rule is NonpositiveRun.DROP:
        s.record(
            "nonpositive_run",
            n,
            "dropped {n} jobs with run time <= 0 or missing (nonpositive_run=drop)",
        )
        s.keep(~bad)
    else:
        s.record(
            "nonpositive_run",
            n,
            "set the run time of {n} jobs with run time <= 0 or missing to 1 s"
            " (nonpositive_run=one)",
        )
        s.table["run_time"] = np.where(bad, 1.0, run)


def _resolve_overrun(s: _State, rule: Overrun) -> None:
    run = s.table["run_time"]
    req = s.table["requested_time"]
    unset = ~(req > 0)
    s.record(
        "requested_time_filled",
        int(unset.sum()),
        "set the requested time of {n} jobs with none (or <= 0) to their run time",
    )
    req = np.where(unset, run, req)
    over = run > req
    n = int(over.sum())
    if rule is Overrun.EXTEND:
        s.record(
            "overrun",
            n,
            "raised the requested time of {n} jobs to their longer run time (overrun=extend)",
        )
        req = np.where(over, run, req)
    elif rule is Overrun.KILL:
        s.record(
            "overrun", n, "cut the run time of {n} jobs to their requested time (overrun=kill)"
        )
        run = np.where(over, req, run)
    else:
        s.record(
            "overrun", n, "kept {n} jobs whose run time exceeds their requested time (overrun=keep)"
        )
    s.table["run_time"] = run
    s.table["requested_time"] = req


class _Source(Protocol):
    """What the rules read of a trace: its header and its file."""

    @property
    def header(self) -> SwfHeader: ...

    @property
    def path(self) -> str: ...


def _machine(trace: _Source, platform: Platform | None) -> tuple[int | None, str]:
    if platform is not None:
        return platform.procs, f"platform {platform.describe()}"
    if trace.header.max_procs is not None:
        return trace.header.max_procs, f"MaxProcs {trace.header.max_procs}"
    if trace.header.max_nodes is not None:
        return trace.header.max_nodes, f"MaxNodes {trace.header.max_nodes}"
    return None, ""


def _too_wide_mask(procs: np.ndarray, size: int, platform: Platform | None) -> np.ndarray:
    if platform is None:
        return procs > size
    # Ask the platform itself (its allocation mode decides), once per distinct size.
    wide = [p for p in np.unique(procs).tolist() if not platform.fits(int(p))]
    return np.isin(procs, wide)


def _resolve_too_wide(s: _State, rule: TooWide, trace: _Source, platform: Platform | None) -> None:
    size, machine = _machine(trace, platform)
    if size is None:
        s.counts["too_wide"] = 0
        return
    procs = s.table["procs"]
    wide = _too_wide_mask(procs, size, platform)
    n = int(wide.sum())
    if n and rule is TooWide.ERROR:
        i = int(np.flatnonzero(wide)[0])
        job = int(s.table["job_id"][i])
        raise WorkloadError(
            f"{trace.path}:{int(s.lines[i])}: job {job} asks for {int(procs[i])} processors but "
            f"the machine has {size} ({machine}); {n} jobs are too wide. "
            "Use --too-wide drop|clip (LoadRules(too_wide='drop'|'clip')) to load anyway."
        )
    if rule is TooWide.DROP:
        s.record(
            "too_wide", n, f"dropped {{n}} jobs wider than the machine ({machine}) (too_wide=drop)"
        )
        s.keep(~wide)
    else:
        s.record(
            "too_wide",
            n,
            f"clipped {{n}} jobs to the machine size {size} ({machine}) (too_wide=clip)",
        )
        s.table["procs"] = np.where(wide, size, procs)


def _check_limit(limit: int | None) -> None:
    if limit is None:
        return
    if isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 0:
        raise ConfigError(f"limit must be an integer >= 0 or None, got {limit!r}")


def _apply_limit(s: _State, limit: int | None, trace: SwfTrace) -> None:
    """Note what ``limit`` left out (``trace`` is already cut by :func:`_limited`)."""
    if limit is None:
        return
    if not trace.complete:
        s.record(
            "limit",
            trace.skipped,
            f"kept the first {int(limit)} jobs of the trace (at least {{n}} data lines "
            "left out after them, limit; the rest of the file was not read)",
        )
    else:
        s.record(
            "limit",
            trace.skipped,
            f"kept the first {int(limit)} jobs of the trace ({{n}} data lines left out "
            "after them, limit)",
        )


def _kept_lines(trace: SwfTrace, rules: LoadRules, platform: Platform | None) -> np.ndarray:
    """The file lines of the jobs the rules keep (a too-wide job counts as dropped here;
    the load itself still refuses it if it lies before the cut)."""
    if rules.too_wide is TooWide.ERROR:
        rules = replace(rules, too_wide=TooWide.DROP)
    s = _State(Columns(trace.columns), np.asarray(trace.line_numbers), {}, [])
    apply_rules(s, rules, trace, platform)
    return s.lines


def _head(trace: SwfTrace, rows: int) -> SwfTrace:
    """``trace``'s first ``rows`` data lines; the others join the lines left out."""
    if rows == len(trace):
        return trace
    return SwfTrace(
        table=trace.columns.rows(slice(0, rows)),
        header=trace.header,
        path=trace.path,
        line_numbers=np.asarray(trace.line_numbers)[:rows],
        skipped=trace.skipped + len(trace) - rows,
        complete=trace.complete,
    )


def _cut(
    trace: SwfTrace, limit: int, rules: LoadRules, platform: Platform | None
) -> tuple[SwfTrace | None, int]:
    """``trace`` cut after the line of its ``limit``-th kept job (None if it holds fewer
    kept jobs and more data lines follow it in the file), and its kept jobs."""
    kept = _kept_lines(trace, rules, platform)
    if len(kept) >= limit:
        last = int(kept[limit - 1]) if limit else 0
        rows = int(np.searchsorted(np.asarray(trace.line_numbers), last, side="right"))
        return _head(trace, rows), len(kept)
    if trace.skipped == 0 and trace.complete:
        return trace, len(kept)  # the whole file holds fewer jobs
    return None, len(kept)


def _limited(
    source: str | os.PathLike[str] | SwfTrace,
    limit: int,
    rules: LoadRules,
    platform: Platform | None,
) -> SwfTrace:
    """The data lines up to the ``limit``-th job the rules keep, read from the file's
    start with the reader's ``limit`` (never the whole of a long file).

    A read of ``n`` lines that keeps ``k < limit`` jobs is followed by one of ``2n``
    (few rereads however many lines the rules drop). Should that longer read refuse a
    line, the line may lie after the cut, so reading falls back to adding exactly the
    ``limit - k`` lines that could complete the jobs; those never pass the line of the
    ``limit``-th kept job, so an error then is one the load would meet anyway.
    """
    if isinstance(source, SwfTrace):
        return _cut(source, limit, rules, platform)[0] or source
    n, careful = limit, False
    known: tuple[int, int] | None = None  # (lines read, jobs kept) by the last good read
    while True:
        try:
            trace = read_swf(source, limit=n)
        except WorkloadFormatError:
            if known is None or careful:
                raise
            careful = True
            n = known[0] + limit - known[1]
            continue
        cut, kept = _cut(trace, limit, rules, platform)
        if cut is not None:
            return cut
        known = (n, kept)
        n = n + limit - kept if careful else max(2 * n, n + limit - kept)


#: A loaded workload's columns: the required ones, then every other SWF field.
COLUMNS: tuple[str, ...] = (
    "job_id",
    "submit_time",
    "run_time",
    "procs",
    "requested_time",
    *(f for f in SWF_FIELDS if f not in ("job_id", "submit_time", "run_time", "requested_time")),
)


def apply_rules(s: _State, rules: LoadRules, trace: _Source, platform: Platform | None) -> None:
    """The rules after ``limit``, in order, on the table of ``s`` (a whole trace or a chunk)."""
    has_submit = ~np.isnan(s.table["submit_time"])
    s.record("missing_submit", int((~has_submit).sum()), "dropped {n} jobs with no submit time")
    s.keep(has_submit)
    _resolve_procs(s, rules.procs_field)
    _resolve_run(s, rules.nonpositive_run)
    _resolve_overrun(s, rules.overrun)
    _resolve_too_wide(s, rules.too_wide, trace, platform)
    s.counts["jobs"] = len(s.table)


def load_workload_with_report(
    source: str | os.PathLike[str] | SwfTrace,
    *,
    rules: LoadRules = DEFAULT_RULES,
    platform: Platform | None = None,
    limit: int | None = None,
) -> tuple[Workload, dict[str, int]]:
    """Like :func:`load_workload`, also returning how many jobs each rule touched.

    Returns:
        The workload and counts: ``lines`` (data lines parsed), ``limit`` (left out by
        ``limit``: a lower bound when the file was too long to count them all, see
        :func:`~cosched.workload.swf.read_swf`), ``missing_submit``, ``no_procs``,
        ``nonpositive_run``, ``requested_time_filled``, ``overrun``, ``too_wide`` and
        ``jobs`` (loaded).
    """
    _check_limit(limit)
    if limit is not None:
        trace = _limited(source, int(limit), rules, platform)
    elif isinstance(source, SwfTrace):
        trace = source
    else:
        trace = read_swf(source)
    # The rules replace columns and never write into one: the trace's arrays are shared.
    s = _State(Columns(trace.columns), np.asarray(trace.line_numbers), {"lines": len(trace)}, [])
    _apply_limit(s, limit, trace)
    apply_rules(s, rules, trace, platform)
    w = Workload.from_table(
        s.table.select(COLUMNS),
        name=_workload_name(trace.path),
        max_procs=trace.header.max_procs,
        max_nodes=trace.header.max_nodes,
        header=dict(trace.header.raw),
        notes=tuple(s.notes),
    )
    return w, s.counts


def load_workload(
    source: str | os.PathLike[str] | SwfTrace,
    *,
    rules: LoadRules = DEFAULT_RULES,
    platform: Platform | None = None,
    limit: int | None = None,
) -> Workload:
    """Load an SWF trace as a workload ready to simulate.

    Submit times are kept as in the trace (not rebased; see
    :func:`cosched.workload.transforms.rebase`).

    Args:
        source: an SWF file (plain or gzip) or an already read :class:`SwfTrace`.
        rules: how to resolve questionable jobs (default ``LoadRules()``; see there).
        platform: the machine for the too-wide check; by default the header's MaxProcs,
            else MaxNodes.
        limit: keep only the first ``limit`` jobs (file order) that the rules keep;
            the trace is read from its start only as far as they need.

    Returns:
        The workload: the required columns plus every other SWF field under its SWF
        name, ``name`` the file name without ``.swf``/``.gz``, ``max_procs`` and
        ``max_nodes`` from the header, ``header`` the raw header facts, and one note
        per rule that changed anything.

    Raises:
        WorkloadFormatError: the file is malformed (see :func:`read_swf`).
        WorkloadError: a job is wider than the machine and ``too_wide`` is ``error``.
        ConfigError: ``limit`` is not an integer >= 0.
    """
    return load_workload_with_report(source, rules=rules, platform=platform, limit=limit)[0]
