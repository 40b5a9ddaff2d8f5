"""Strict first come, first served (or strict in any queue order)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from cosched.engine.compiled import CompiledPass
from cosched.engine.decisions import Decision, Start
from cosched.engine.view import SystemView
from cosched.policies.easy import EASY_PASS, EasyParams, baseline_arguments
from cosched.policies.limits import SitePolicy
from cosched.policies.orders import ordered

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation

__all__ = ["Fcfs"]


@dataclass(kw_only=True)
class Fcfs(SitePolicy):
    """Start queued jobs in order until the first one that does not fit; no backfilling.

    Its parameters, the queue order, user limits and fair-share, are the site's rules
    (:class:`~cosched.policies.limits.SitePolicy`).
    A job whose user is at a limit is passed over, not waited for
    (:mod:`cosched.policies.limits`).
    """

    name = "fcfs"
    idle_passes = False

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
