"""Unavailability read from a log: when jobs that fit waited while the machine stood idle.

A log in SWF records when each job started, not when the machine was down, drained or
reserved for others. The fit (:mod:`cosched.experiments.fit`) reads such intervals from
the log by two declared rules, and replays them as capacity removed
(:attr:`Platform.unavailable <cosched.platform.machine.Platform.unavailable>`, drains).

**The fit part's rule** (:func:`blocked_intervals`, reads the fit part's recorded starts).
Over the fit part's recorded schedule, before the first held-out submission (so that
every job holding units then is a fit-part job), between two consecutive events
(submission, start or end), the units idle are the capacity less those the running jobs
hold, and the *eligible* queued jobs are those submitted and not yet started whose user
would stay within the fit part's user peaks (:func:`cosched.experiments.fit.user_peaks`)
by starting: a job its user's running limit held is not evidence of lost capacity. The
stretch is *blocked* when the smallest eligible queued job fits the idle units: no
scheduler that starts what fits and what its user may start leaves it waiting. Blocked
stretches that last :data:`MIN_OUTAGE` or longer become unavailability; each of their
segments removes ``idle - smallest + 1`` units, the least that leaves every eligible
queued job unable to start, as the log shows, and the segments are joined into pieces
of at least :data:`MIN_SEGMENT` that remove the most of theirs (:func:`pieces`).
Shorter stretches are the scheduler's own latency (its cycle), left to the score's
tolerance.

**The held-out part's rule** (:func:`gap_intervals`, reads submissions only, never a
held-out recorded start). Users cannot submit to a machine that is down, so a long gap
between submissions marks an outage. The threshold is learnt on the fit part: the
longest gap between consecutive fit-part submissions that overlaps no interval the
first rule found there (every longer fit-part gap overlapped one). A held-out gap longer
than the threshold (and than :data:`MIN_OUTAGE`) removes, from the last submission
before it to the first after it, the most units any fit-part interval overlapping a gap
removed. When no fit-part gap overlapped an interval the held-out part gets none.

The rejected alternative was one rule for both parts read from the recorded starts:
the held-out score would then be computed against intervals read from the very starts it
grades.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MIN_OUTAGE",
    "MIN_SEGMENT",
    "Unavailability",
    "blocked_intervals",
    "gap_intervals",
    "infer",
    "pieces",
]

#: The shortest blocked stretch (s) read as unavailability: an hour, the score's own
#: tolerance for a start (``--within``'s default).
MIN_OUTAGE = 3600.0
#: The shortest interval (s) the fit part's rule reads: a blocked stretch's segments
#: (one between any two events) are joined into pieces at least this long
#: (:func:`pieces`). A minute is Slurm's default ``sched_interval``, the period of its
#: main scheduling loop: a change of the idle units shorter than a scheduler's cycle is
#: not one the machine's scheduler acted on. On KTH-SP2, SDSC-SP2 and HPC2N the
#: segments shorter than that are 45 %, 60 % and 62 % of all and remove 3.6 %, 3.7 % and
#: 3.1 % of the unit-seconds (``scripts/outage_segments.py``; docs/validate.md, "The
#: outage rule's pieces").
MIN_SEGMENT = 60.0

Interval = tuple[float, float, int]


@dataclass(frozen=True)
class Unavailability:
    """What the two rules read.

    Attributes:
        fit: the fit part's intervals (:func:`blocked_intervals`).
        held: the held-out part's intervals (:func:`gap_intervals`).
        threshold: the submission gap (s) above which the held-out part reads an outage
            (``inf``: none).
        units: the units each held-out interval removes (0: none).
    """

    fit: tuple[Interval, ...]
    held: tuple[Interval, ...]
    threshold: float
    units: int

    @property
    def intervals(self) -> tuple[Interval, ...]:
        """Both parts' intervals."""
        return (*self.fit, *self.held)


def blocked_intervals(
    submit: np.ndarray,
    start: np.ndarray,
    run: np.ndarray,
    size: np.ndarray,
    capacity: int,
    until: float,
    user: np.ndarray | None = None,
    peaks: tuple[int, int] | None = None,
    procs: np.ndarray | None = None,
) -> list[Interval]:
    """The fit part's intervals (see the module): ``submit``, ``start``, ``run`` and
    ``size`` (units) of the fit-part jobs, read before ``until`` (the first held-out
    submission); ``user``, ``peaks`` (most jobs, most processors one user held) and
    ``procs`` exclude jobs their user's limit held."""
    submit = np.asarray(submit, dtype=np.float64)
    start = np.asarray(start, dtype=np.float64)
    end = start + np.asarray(run, dtype=np.float64)
    sizes = np.asarray(size, dtype=np.int64).tolist()
    times = np.unique(np.concatenate([submit, start, end]))
    times = times[times < until].tolist()
    if len(times) < 2:
        return []
    users: list[float] = np.asarray(user, dtype=np.float64).tolist() if user is not None else []
    nprocs: list[int] = np.asarray(procs, dtype=np.int64).tolist() if procs is not None else []
    limited = user is not None and peaks is not None and procs is not None
    max_jobs, max_procs = peaks if peaks is not None else (0, 0)
    by_submit = np.argsort(submit, kind="stable").tolist()
    by_start = np.argsort(start, kind="stable").tolist()
    by_end = np.argsort(end, kind="stable").tolist()
    sub_t, start_t, end_t = submit.tolist(), start.tolist(), end.tolist()
    n = len(sub_t)
    i_sub = i_start = i_end = 0
    used = 0
    started = [False] * n
    queue: list[tuple[int, int]] = []  # (size, job) of submitted jobs, started ones stale
    held_jobs: dict[float, int] = {}
    held_procs: dict[float, int] = {}
    segments: list[Interval] = []

    def eligible(j: int) -> bool:
        if not limited:
            return True
        u = users[j]
        if u != u:  # no user: never limited
            return True
        p = held_procs.get(u, 0)
        if held_jobs.get(u, 0) + 1 > max_jobs:
            return False
        return p + nprocs[j] <= max_procs or p == 0

    def hold(j: int, sign: int) -> None:
        if not limited:
            return
        u = users[j]
        if u == u:
            held_jobs[u] = held_jobs.get(u, 0) + sign
            held_procs[u] = held_procs.get(u, 0) + sign * nprocs[j]

    for a, b in itertools.pairwise(times):
        while i_end < n and end_t[by_end[i_end]] <= a:
            j = by_end[i_end]
            i_end += 1
            if start_t[j] < end_t[j]:  # a job of zero run time never held units
                used -= sizes[j]
                hold(j, -1)
        while i_start < n and start_t[by_start[i_start]] <= a:
            j = by_start[i_start]
            i_start += 1
            started[j] = True
            if end_t[j] > a:
                used += sizes[j]
                hold(j, 1)
        while i_sub < n and sub_t[by_submit[i_sub]] <= a:
            j = by_submit[i_sub]
            i_sub += 1
            if not started[j]:
                heapq.heappush(queue, (sizes[j], j))
        while queue and started[queue[0][1]]:
            heapq.heappop(queue)
        idle = capacity - used
        if not queue or queue[0][0] > idle:
            continue
        # The smallest eligible queued job that fits, if any (ineligible ones set aside).
        aside: list[tuple[int, int]] = []
        smallest = -1
        while queue and queue[0][0] <= idle:
            item = heapq.heappop(queue)
            if started[item[1]]:
                continue
            aside.append(item)
            if eligible(item[1]):
                smallest = item[0]
                break
        for item in aside:
            heapq.heappush(queue, item)
        if smallest >= 0:
            segments.append((a, b, idle - smallest + 1))
    return _stretches(segments)


def pieces(run: list[Interval]) -> list[Interval]:
    """A blocked stretch's contiguous segments joined into pieces of at least
    :data:`MIN_SEGMENT`: segments are joined in time order until the piece lasts that
    long, a shorter remainder at the stretch's end joins the last piece, and each piece
    removes the most any of its segments removed (so that nothing its segments left
    waiting can start in it); adjacent pieces removing the same units are one."""
    out: list[Interval] = []
    for a, b, units in run:
        if out and out[-1][1] - out[-1][0] < MIN_SEGMENT:
            pa, _, pu = out[-1]
            out[-1] = (pa, b, max(pu, units))
        else:
            out.append((a, b, units))
    if len(out) > 1 and out[-1][1] - out[-1][0] < MIN_SEGMENT:
        _, lb, lu = out.pop()
        pa, _, pu = out[-1]
        out[-1] = (pa, lb, max(pu, lu))
    merged: list[Interval] = []
    for piece in out:
        if merged and merged[-1][2] == piece[2]:
            merged[-1] = (merged[-1][0], piece[1], piece[2])
        else:
            merged.append(piece)
    return merged


def _stretches(segments: list[Interval]) -> list[Interval]:
    """Runs of contiguous segments lasting :data:`MIN_OUTAGE` or more, each cut into
    :func:`pieces`."""
    out: list[Interval] = []
    run: list[Interval] = []

    def close() -> None:
        if run and run[-1][1] - run[0][0] >= MIN_OUTAGE:
            out.extend(pieces(run))

    for seg in segments:
        if run and run[-1][1] != seg[0]:
            close()
            run = []
        run.append(seg)
    close()
    return out


def gap_intervals(
    fit_submit: np.ndarray,
    held_submit: np.ndarray,
    fit_intervals: list[Interval],
) -> tuple[list[Interval], float, int]:
    """The held-out part's intervals (see the module), its gap threshold and units."""
    fit_submit = np.sort(np.asarray(fit_submit, dtype=np.float64))
    gaps = list(zip(fit_submit[:-1].tolist(), fit_submit[1:].tolist(), strict=True))

    ivs = sorted(fit_intervals)
    ends = np.maximum.accumulate(np.array([iv[1] for iv in ivs])) if ivs else np.zeros(0)

    reach = ends.tolist()  # the latest end among the intervals up to each one

    def overlapping(a: float, b: float) -> list[Interval]:
        out = []
        for i in range(bisect.bisect_right(reach, a), len(ivs)):  # no copy of the rest
            iv = ivs[i]
            if iv[0] >= b:
                break
            if iv[1] > a:
                out.append(iv)
        return out

    quiet = [b - a for a, b in gaps if not overlapping(a, b)]
    threshold = max([MIN_OUTAGE, *quiet])
    hit = [iv for a, b in gaps if b - a > threshold for iv in overlapping(a, b)]
    if not hit:
        return [], float("inf"), 0
    units = max(iv[2] for iv in hit)
    held = np.sort(np.asarray(held_submit, dtype=np.float64))
    if fit_submit.size:
        held = np.concatenate([fit_submit[-1:], held])
    out = [
        (float(a), float(b), units)
        for a, b in zip(held[:-1].tolist(), held[1:].tolist(), strict=True)
        if b - a > threshold
    ]
    return out, threshold, units


def infer(
    submit: np.ndarray,
    start: np.ndarray,
    run: np.ndarray,
    size: np.ndarray,
    capacity: int,
    k: int,
    user: np.ndarray | None = None,
    peaks: tuple[int, int] | None = None,
    procs: np.ndarray | None = None,
) -> Unavailability:
    """Both rules on a log sorted by submit time whose first ``k`` jobs are the fit
    part: the fit part's from its recorded starts, the held-out part's from the
    submissions alone (``start[k:]`` is never read)."""
    submit = np.asarray(submit, dtype=np.float64)
    until = float(submit[k]) if k < submit.size else float("inf")
    cut = slice(0, k)
    fit = blocked_intervals(
        submit[cut],
        np.asarray(start, dtype=np.float64)[cut],
        np.asarray(run, dtype=np.float64)[cut],
        np.asarray(size)[cut],
        capacity,
        until,
        None if user is None else np.asarray(user, dtype=np.float64)[cut],
        peaks,
        None if procs is None else np.asarray(procs)[cut],
    )
    held, threshold, units = gap_intervals(submit[cut], submit[k:], fit)
    return Unavailability(tuple(fit), tuple(held), threshold, units)
