"""Strict first come, first served (or strict in any queue order)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from cosched.engine.compiled import CompiledPass
from cosched.engine.decisions import Decision, Start
from cosched.engine.view import SystemView
from cosched.policies.base import Policy, check_choice
from cosched.policies.easy import EASY_PASS, EasyParams, baseline_arguments
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

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """FCFS's pass on arrays (EASY's with a window of 0); not a subclass's."""
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


def _fcfs_arguments(policy: Fcfs, sim: Simulation) -> EasyParams | None:
    return baseline_arguments(policy, sim, 0)


#: FCFS's pass: EASY's (:data:`cosched.policies.easy.EASY_PASS`) with a backfill window
#: of 0 jobs, the site's rules included.
FCFS_PASS = replace(EASY_PASS, name="fcfs", arguments=_fcfs_arguments)
