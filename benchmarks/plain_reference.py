"""A deliberately plain batch scheduling simulator: the yardstick for cosched's speed.

Textbook FCFS, EASY and conservative backfilling in one file of standard-library
Python (no numpy, no pandas), written to give the same schedules as cosched with its
default loader rules, so that the two can be timed side by side on the same work::

    python benchmarks/plain_reference.py TRACE.swf.gz easy jobs.csv

It reads the SWF trace (plain or gzip), applies cosched's default rules (processors:
field 5, else field 8; jobs with no submit time, no processors or a run time <= 0
dropped; a missing requested time becomes the run time, a shorter one is raised to it),
simulates on a pool of MaxProcs processors and writes ``job_id,start_time,end_time``.

Event order at one instant, as in cosched: completions, then submissions, then one
scheduling pass. EASY: start the queue in submit order while the head fits; the blocked
head gets a reservation at its shadow time (the earliest estimated end at which enough
processors are free); a later job starts now if it fits and ends (by its requested
time) by the shadow time or uses only the extra processors. Conservative: every queued
job, in submit order, is given the earliest start at which it fits the profile of
estimated ends and earlier reservations when it arrives; when a job ends, every queued
job, in submit order, moves to the earliest start it can now have (never later than
the one it had); a job starts when its reservation comes.
"""

from __future__ import annotations

import gzip
import heapq
import sys
from typing import NamedTuple


class Job(NamedTuple):
    id: int
    submit: float
    run: float
    procs: int
    req: float


def read_trace(path: str) -> tuple[list[Job], int]:
    """The jobs (sorted by submit time, ties in file order) and MaxProcs."""
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    max_procs = 0
    jobs = []
    for raw in data.decode("latin-1").splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith(";"):
            key, _, value = line[1:].partition(":")
            if key.strip() == "MaxProcs" and value.split():
                max_procs = int(value.split()[0])
            continue
        f = line.split()
        submit, run = float(f[1]), float(f[3])
        alloc, reqp, req = float(f[4]), float(f[7]), float(f[8])
        procs = alloc if alloc > 0 else reqp
        if submit < 0 or procs <= 0 or run <= 0:
            continue
        if req <= 0 or run > req:
            req = run
        jobs.append(Job(int(f[0]), submit, run, int(procs), req))
    jobs.sort(key=lambda j: j.submit)  # stable: ties keep file order
    return jobs, max_procs


def simulate(jobs: list[Job], capacity: int, policy: str) -> dict[int, tuple[float, float]]:
    """Start and end of every job under ``policy`` (fcfs, easy or conservative)."""
    schedule: dict[int, tuple[float, float]] = {}
    queue: list[int] = []  # indices into jobs, submit order
    running: dict[int, float] = {}  # index -> estimated end
    ends: list[tuple[float, int]] = []  # (real end, index)
    reserved: dict[int, float] = {}  # conservative: index -> reserved start
    free = capacity
    nxt = 0
    n = len(jobs)
    inf = float("inf")
    while nxt < n or ends or reserved:
        wake = min((r for r in reserved.values()), default=inf)
        t = min(jobs[nxt].submit if nxt < n else inf, ends[0][0] if ends else inf)
        if wake < t:
            t = wake
        ended = False
        while ends and ends[0][0] <= t:
            _, i = heapq.heappop(ends)
            free += jobs[i].procs
            del running[i]
            ended = True
        fresh = []
        while nxt < n and jobs[nxt].submit <= t:
            queue.append(nxt)
            fresh.append(nxt)
            nxt += 1
        if policy == "conservative":
            starts = conservative_pass(jobs, queue, running, reserved, free, t, fresh, ended)
        else:
            starts = easy_pass(jobs, queue, running, free, t, backfill=policy == "easy")
        if starts:
            chosen = set(starts)
            queue = [i for i in queue if i not in chosen]
            for i in starts:
                j = jobs[i]
                free -= j.procs
                running[i] = t + j.req
                heapq.heappush(ends, (t + j.run, i))
                schedule[j.id] = (t, t + j.run)
    return schedule


def easy_pass(
    jobs: list[Job], queue: list[int], running: dict[int, float], free: int, now: float,
    *, backfill: bool,
) -> list[int]:  # fmt: skip
    starts = []
    k = 0
    while k < len(queue) and jobs[queue[k]].procs <= free:
        free -= jobs[queue[k]].procs
        starts.append(queue[k])
        k += 1
    if k == len(queue) or not backfill:
        return starts
    head = jobs[queue[k]]
    releases = sorted(
        [(max(end, now), jobs[i].procs) for i, end in running.items()]
        + [(now + jobs[i].req, jobs[i].procs) for i in starts]
    )
    avail, shadow = free, None
    for end, procs in releases:
        if shadow is not None and end > shadow:
            break
        avail += procs
        if shadow is None and avail >= head.procs:
            shadow = end
    assert shadow is not None
    extra = avail - head.procs
    for i in queue[k + 1 :]:
        j = jobs[i]
        if j.procs > free:
            continue
        in_time = now + j.req <= shadow
        if in_time or j.procs <= extra:
            free -= j.procs
            if not in_time:
                extra -= j.procs
            starts.append(i)
    return starts


def conservative_pass(
    jobs: list[Job],
    queue: list[int],
    running: dict[int, float],
    reserved: dict[int, float],
    free: int,
    now: float,
    fresh: list[int],
    ended: bool,
) -> list[int]:
    # The profile of free processors: running jobs by estimated end, less reservations.
    times = [now]
    level = [free]
    for end, procs in sorted((max(e, now), jobs[i].procs) for i, e in running.items()):
        if end == times[-1]:
            level[-1] += procs
        else:
            times.append(end)
            level.append(level[-1] + procs)
    for i, start in reserved.items():
        _reserve(times, level, max(start, now), max(start, now) + jobs[i].req, jobs[i].procs)
    if ended:  # compression: in queue order, each job moves to its earliest slot
        for i in queue:
            if i in reserved and i not in fresh:
                j = jobs[i]
                old = max(reserved[i], now)
                _reserve(times, level, old, old + j.req, -j.procs)
                reserved[i] = _earliest(times, level, j)
                _reserve(times, level, reserved[i], reserved[i] + j.req, j.procs)
    for i in fresh:  # arrivals, in submit order, take the earliest slot
        j = jobs[i]
        reserved[i] = _earliest(times, level, j)
        _reserve(times, level, reserved[i], reserved[i] + j.req, j.procs)
    starts = []
    for i in queue:
        if reserved[i] <= now and jobs[i].procs <= free:
            free -= jobs[i].procs
            del reserved[i]
            starts.append(i)
    return starts


def _earliest(times: list[float], level: list[int], j: Job) -> float:
    """The earliest breakpoint from which ``j`` fits the profile for its requested time."""
    for a in range(len(times)):
        if level[a] < j.procs:
            continue
        stop = times[a] + j.req
        b = a
        while b < len(times) and times[b] < stop and level[b] >= j.procs:
            b += 1
        if b == len(times) or times[b] >= stop:
            return times[a]
    raise AssertionError("a job larger than the machine")


def _reserve(times: list[float], level: list[int], start: float, end: float, procs: int) -> None:
    """Take ``procs`` from the profile over [start, end)."""
    for t in (start, end):
        k = _find(times, t)
        if times[k] != t:
            times.insert(k + 1, t)
            level.insert(k + 1, level[k])
    for k in range(len(times)):
        if start <= times[k] < end:
            level[k] -= procs


def _find(times: list[float], t: float) -> int:
    """Index of the last breakpoint at or before ``t``."""
    lo, hi = 0, len(times) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if times[mid] <= t:
            lo = mid
        else:
            hi = mid - 1
    return lo


def main(argv: list[str]) -> int:
    if len(argv) != 4 or argv[2] not in ("fcfs", "easy", "conservative"):
        print(__doc__.splitlines()[4].strip(), file=sys.stderr)
        return 2
    jobs, capacity = read_trace(argv[1])
    schedule = simulate(jobs, capacity, argv[2])
    with open(argv[3], "w") as out:
        out.write("job_id,start_time,end_time\n")
        for j in jobs:
            start, end = schedule[j.id]
            out.write(f"{j.id},{start:.17g},{end:.17g}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
