"""Strict first come, first served (or strict in any queue order)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from cosched.engine.compiled import CompiledPass, NoParams
from cosched.engine.decisions import Decision, Start
from cosched.engine.loop import Floats, Ints, Jobs
from cosched.engine.view import SystemView
from cosched.policies.base import Policy, check_choice
from cosched.policies.limits import SITE_ORDERS, SiteRules
from cosched.policies.orders import ordered
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation

__all__ = ["Fcfs"]


@dataclass(kw_only=True)
class Fcfs(Policy):
    """Start queued jobs in order until the first one that does not fit; no backfilling.

    Attributes:
        order: queue order (submit, sjf, wfp, priority, queue, fairshare).
        aging_time: aging period in seconds for the priority order (None: mean wait).
        max_jobs_per_user: most jobs one user runs at once (None: no limit).
        max_procs_per_user: most processors one user's running jobs hold (None: no limit).
        fairshare_half_life: half-life in seconds of the usage the fairshare order decays.
        fairshare_weight: weight of the fair-share factor against the age factor.

    A job whose user is at a limit is passed over, not waited for
    (:mod:`cosched.policies.limits`).
    """

    name = "fcfs"
    idle_passes = False
    order: Literal["submit", "sjf", "wfp", "priority", "queue", "fairshare"] = "submit"
    aging_time: float | None = None
    max_jobs_per_user: int | None = None
    max_procs_per_user: int | None = None
    fairshare_half_life: float = 7 * 86400.0
    fairshare_weight: float = 1.0
    _site: SiteRules = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_choice(self.name, "order", self.order, SITE_ORDERS)
        self._site = SiteRules.of(self)

    def on_submit(self, job: Job, view: SystemView) -> None:
        self._site.submitted(job)

    def on_finish(self, job: Job, view: SystemView) -> None:
        self._site.finished(job, view)

    def assumptions(self) -> list[str]:
        return self._site.notes()

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """FCFS's pass on arrays (:func:`fcfs_pass`); not a subclass's."""
        return FCFS_PASS if cls is Fcfs else None

    def schedule(self, view: SystemView) -> list[Decision]:
        free = view.free
        sizes = view.sizes
        out: list[Decision] = []
        site = self._site
        if site.active:
            queue = site.queue(view, self.order, self.aging_time)
            held = site.holding(view)
            for job in queue:
                if not held.allows(job):
                    continue
                size = sizes[job.index]
                if size > free:
                    break
                free -= size
                held.take(job)
                out.append(Start(job))
            return out
        queue = view.queue if self.order == "submit" else ordered(view, self.order, self.aging_time)
        for job in queue:
            size = sizes[job.index]
            if size > free:
                break
            free -= size
            out.append(Start(job))
        return out


# -- the compiled pass (cosched.engine.loop) ---------------------------------------------


def fcfs_init(jobs: Jobs, capacity: int, params: NoParams) -> tuple[int, int]:
    """FCFS keeps nothing between passes."""
    return 0, 0


def fcfs_ended(store: int, state: int, jobs: Jobs, j: int, now: float) -> int:
    return state


def fcfs_pass(
    store: int,
    state: int,
    jobs: Jobs,
    queue: Ints,
    head: int,
    tail: int,
    fresh: int,
    free: int,
    epoch: int,
    now: float,
    chosen: Ints,
) -> tuple[int, int, int, int, float]:
    """:meth:`Fcfs.schedule` with the submit order, on arrays: start queued jobs in
    order until the first one that does not fit."""
    size = jobs.size
    k = 0
    while head < tail:
        j = queue[head]
        if size[j] > free:
            break
        head += 1
        free -= size[j]
        chosen[k] = j
        k += 1
    return state, head, tail, k, math.nan


def fcfs_report(store: int, state: int, out: Ints, fout: Floats) -> None:
    """FCFS has no counters of its own."""


def _fcfs_arguments(policy: Fcfs, sim: Simulation) -> NoParams | None:
    return NoParams() if policy.order == "submit" and not policy._site.active else None


FCFS_PASS = CompiledPass(
    name="fcfs",
    init=fcfs_init,
    schedule=fcfs_pass,
    ended=fcfs_ended,
    report=fcfs_report,
    arguments=_fcfs_arguments,
)
