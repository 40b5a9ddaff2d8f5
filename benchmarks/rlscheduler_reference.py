"""A plain re-statement of RLScheduler's heuristic evaluation, to explain the cells of
``rlscheduler_baselines.py`` that cosched does not reproduce to the digit.

RLScheduler's evaluation loop (``HPCSimPickJobs.py``: ``schedule_curr_sequence_reset``,
``skip_for_resources_greedy``, ``moveforward_for_resources_backfill_greedy``,
``moveforward_for_job``), written again here from its description in docs/gym.md, in
standard-library Python. Its clock moves **one event at a time**: one arrival or one
job end, arrivals first when they are not later than the next end, and the heuristic
chooses (or the backfilling scan runs) between two events even when they share a time
stamp. cosched's engine, like most simulators, applies every event of an instant before
any decision. ``--instants`` makes this script do the same, everything else unchanged::

    python benchmarks/rlscheduler_reference.py --traces DIR            # event by event
    python benchmarks/rlscheduler_reference.py --traces DIR --instants # instant by instant

If the first reproduces the published figures and the second cosched's, the difference
between the two is the cause of the cells' differences (docs/gym.md).
"""

from __future__ import annotations

import argparse
import gzip
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from rlscheduler_baselines import (  # type: ignore[import-not-found]  # noqa: E402
    BACKFILLS,
    COLUMNS,
    ROWS,
    SEQUENCE,
    TRACES,
    starts,
)

Job = tuple[int, float, float, int, float]  # index, submit, run, procs, requested


def read_jobs(path: Path, positive: bool = False) -> list[Job]:
    """RLScheduler's ``job.py``: size max(fields 5, 8); a requested time of -1 is the run
    time as read, then a negative run time becomes 10 s and a run time of 0 drops the job
    (so a job with neither keeps a requested time of -1). ``positive``: a requested time
    that is not positive is the run time, as cosched's loader has it."""
    jobs: list[Job] = []
    with gzip.open(path, "rt") as lines:
        for line in lines:
            f = line.split()
            if not f or line.startswith(";"):
                continue
            run, req = float(f[3]), float(f[8])
            req = run if req == -1 else req
            run = 10.0 if run < 0 else run
            req = run if positive and req <= 0 else req
            if run > 0:
                jobs.append((len(jobs), float(f[1]), run, max(int(f[4]), int(f[7])), req))
    return jobs


def score(name: str, j: Job) -> float | tuple[float, float]:
    _, s, _, n, r = j
    if name == "fcfs":
        return s
    if name == "sjf":
        return (r, s)
    if name == "f1":
        return math.log10(r if r > 0 else 0.1) * n + 870 * math.log10(s if s > 0 else 0.1)
    wait = -1 - s  # a queued job's scheduled time is still -1
    if name == "wfp3-rlscheduler":
        return -((wait / r) ** 3) * n
    if name == "unicep-rlscheduler":
        return -(wait + 1e-15) / (math.log2(n + 1e-15) * r)
    raise ValueError(name)


class Sim:
    def __init__(self, jobs: list[Job], procs: int, instants: bool, by_index: bool) -> None:
        self.jobs, self.free, self.instants = jobs, procs, instants
        # The scan's order: submit time, ties kept in the queue's order (RLScheduler's
        # stable sort of a queue last sorted by the heuristic) or by trace order.
        self.scan_key = (lambda j: (j[1], j[0])) if by_index else (lambda j: j[1])
        self.now = jobs[0][1]
        self.queue: list[Job] = [jobs[0]]
        self.next = 1
        self.running: list[tuple[float, float, Job]] = []  # (end, start + requested, job)
        self.started: dict[int, float] = {}

    def start(self, j: Job) -> None:
        self.started[j[0]] = self.now
        self.free -= j[3]
        self.running.append((self.now + j[2], self.now + j[4], j))
        self.queue.remove(j)

    def event(self) -> None:
        """One arrival or one end (or, with ``instants``, every event of the next instant)."""
        release = min(e for e, _, _ in self.running) if self.running else math.inf
        arrival = self.jobs[self.next][1] if self.next < len(self.jobs) else math.inf
        t = min(release, arrival)
        while True:
            release = min(e for e, _, _ in self.running) if self.running else math.inf
            arrival = self.jobs[self.next][1] if self.next < len(self.jobs) else math.inf
            if arrival <= release and arrival <= t:
                self.now = max(self.now, arrival)
                self.queue.append(self.jobs[self.next])
                self.next += 1
            elif release <= t:
                self.now = max(self.now, release)
                k = min(range(len(self.running)), key=lambda i: self.running[i][0])
                self.free += self.running.pop(k)[2][3]
            else:
                return
            if not self.instants:
                return

    def wait_for(self, head: Job, backfill: bool) -> None:
        if backfill:
            free, shadow = self.free, self.now
            for _, req_end, j in sorted(self.running, key=lambda x: x[1]):
                free += j[3]
                shadow = req_end
                if free >= head[3]:
                    break
        while head[3] > self.free:
            if backfill:
                self.queue.sort(key=self.scan_key)
                for j in list(self.queue):
                    if self.now + j[4] < shadow and j[3] <= self.free:
                        self.start(j)
            self.event()

    def run(self, name: str, backfill: bool) -> float:
        while True:
            self.queue.sort(key=lambda j: score(name, j))
            head = self.queue[0]
            if head[3] > self.free:
                self.wait_for(head, backfill)
            self.start(head)
            while not self.queue and self.next < len(self.jobs):
                self.event()
            if not self.queue:
                break
        bsld = [
            max(1.0, (self.started[i] - s + run) / max(run, 10.0)) for i, s, run, _, _ in self.jobs
        ]
        return sum(bsld) / len(bsld)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=str(TRACES))
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--instants", action="store_true", help="all events of an instant first")
    parser.add_argument(
        "--scan-by-index", action="store_true", help="scan same-submit jobs in trace order"
    )
    parser.add_argument(
        "--positive-requested", action="store_true", help="no requested time <= 0 (cosched's)"
    )
    args = parser.parse_args()
    for name in args.rows.split(","):
        row = ROWS[name]
        jobs = read_jobs(Path(args.traces) / row.file, args.positive_requested)
        first = starts(row.slice or len(jobs))
        for backfill, title in BACKFILLS.items():
            published = dict(zip(COLUMNS, row.published[backfill], strict=True))
            cells = []
            for column, agent in COLUMNS.items():
                values = []
                for s in first:
                    sim = Sim(jobs[s : s + SEQUENCE], row.procs, args.instants, args.scan_by_index)
                    values.append(sim.run(agent, backfill != "none"))
                mean = sum(values) / len(values)
                cells.append(f"{column} {mean:.4f} ({mean - published[column]:+.2f})")
            print(f"{name}, {title.lower()}: " + "; ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
