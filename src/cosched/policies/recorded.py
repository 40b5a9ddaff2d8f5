"""The schedule the machine really ran, replayed: the reference a simulated policy is
compared with (``cosched validate``).

Each job starts at its recorded start (``recorded_start``, from the trace's wait; see
:mod:`cosched.workload.profiles.recorded`, which also drops and counts jobs without
one). The simulated machine may not hold the recorded schedule at every instant: the
log's machine had more processors than the header says, the loader extended or dropped
jobs, or the trace was cut. The engine forbids over-commitment, so a job that does not
fit at its recorded start starts at the first later instant when it fits; jobs that are
due are taken in the order of their recorded starts, first fit (a narrow job recorded
later may pass a delayed wide one). Every such delay is counted in the diagnostics
(``recorded_delayed_jobs``, ``recorded_delay_mean``, ``recorded_delay_max``), so the
replay says how faithful it was. ``recorded_before_submit`` counts jobs whose recorded
start precedes their (moved) submission, e.g. after ``--load`` scaled the arrivals: the
replay is then no longer the log's schedule.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from cosched.engine.decisions import Decision, Start, WakeUp
from cosched.engine.view import SystemView
from cosched.policies.base import Policy
from cosched.policies.requirements import Requirements
from cosched.workload.job import Job

__all__ = ["Recorded"]


@dataclass(kw_only=True)
class Recorded(Policy):
    """Replay each job's logged start; a job the machine cannot hold then starts when it fits."""

    name = "recorded"
    family = "reference"
    idle_passes = False
    requires = Requirements(
        profile_columns=("recorded_start",), annotator="recorded", random_profiles=False
    )

    _future: list[tuple[float, int]] = field(default_factory=list, init=False, repr=False)
    _due: list[tuple[float, int]] = field(default_factory=list, init=False, repr=False)
    _delayed: int = field(default=0, init=False, repr=False)
    _delay_sum: float = field(default=0.0, init=False, repr=False)
    _delay_max: float = field(default=0.0, init=False, repr=False)
    _early: int = field(default=0, init=False, repr=False)

    def on_submit(self, job: Job, view: SystemView) -> None:
        recorded = float(job.extra["recorded_start"])
        if recorded < job.submit_time:  # the arrivals were moved (e.g. --load scaling)
            self._early += 1
        heapq.heappush(self._future, (recorded, job.index))

    def schedule(self, view: SystemView) -> list[Decision]:
        now = view.now
        while self._future and self._future[0][0] <= now:
            heapq.heappush(self._due, heapq.heappop(self._future))
        free = view.free
        out: list[Decision] = []
        waiting: list[tuple[float, int]] = []
        for due, index in sorted(self._due):
            size = view.sizes[index]
            if size > free:
                waiting.append((due, index))
                continue
            free -= size
            out.append(Start(view.job(index)))
            if now > due:
                self._count_delay(now - due)
        self._due = waiting
        if self._future:
            out.append(WakeUp(self._future[0][0]))
        return out

    def _count_delay(self, delay: float) -> None:
        self._delayed += 1
        self._delay_sum += delay
        self._delay_max = max(self._delay_max, delay)

    def diagnostics(self) -> dict[str, float]:
        mean = self._delay_sum / self._delayed if self._delayed else 0.0
        return {
            "recorded_delayed_jobs": float(self._delayed),
            "recorded_delay_mean": mean,
            "recorded_delay_max": self._delay_max,
            "recorded_before_submit": float(self._early),
        }

    def assumptions(self) -> list[str]:
        return [
            "recorded: each job starts at its logged start (submit + wait); one the simulated "
            "machine cannot hold then starts as soon as it fits (counted: recorded_delayed_jobs)"
        ]
