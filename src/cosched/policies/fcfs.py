"""Strict first come, first served (or strict in any queue order)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from cosched.engine.compiled import CompiledPass
from cosched.engine.decisions import Decision, Start
from cosched.engine.view import SystemView
from cosched.policies.base import Policy, check_choice
from cosched.policies.orders import ORDERS, ordered

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation

__all__ = ["Fcfs"]


@dataclass(kw_only=True)
class Fcfs(Policy):
    """Start queued jobs in order until the first one that does not fit; no backfilling.

    Attributes:
        order: queue order (submit, sjf, wfp, priority, queue).
        aging_time: aging period in seconds for the priority order (None: mean wait).
    """

    name = "fcfs"
    idle_passes = False
    order: Literal["submit", "sjf", "wfp", "priority", "queue"] = "submit"
    aging_time: float | None = None

    def __post_init__(self) -> None:
        check_choice(self.name, "order", self.order, tuple(ORDERS))

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """FCFS's pass on arrays (:func:`fcfs_pass`); not a subclass's."""
        return FCFS_PASS if cls is Fcfs else None

    def schedule(self, view: SystemView) -> list[Decision]:
        free = view.free
        sizes = view.sizes
        out: list[Decision] = []
        queue = view.queue if self.order == "submit" else ordered(view, self.order, self.aging_time)
        for job in queue:
            size = sizes[job.index]
            if size > free:
                break
            free -= size
            out.append(Start(job))
        return out


# -- the compiled pass (cosched.engine.loop) ---------------------------------------------


def fcfs_init(jobs: Any, capacity: int, iparams: Any, fparams: Any) -> tuple[int, int]:
    """FCFS keeps nothing between passes."""
    return 0, 0


def fcfs_ended(store: int, state: int, jobs: Any, j: int, now: float) -> int:
    return state


def fcfs_pass(
    store: int,
    state: int,
    jobs: Any,
    queue: Any,
    head: int,
    tail: int,
    fresh: int,
    free: int,
    epoch: int,
    now: float,
    chosen: Any,
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


def fcfs_report(store: int, state: int, out: Any, fout: Any) -> None:
    """FCFS has no counters of its own."""


def _fcfs_arguments(policy: Fcfs, sim: Simulation) -> tuple[list[int], list[float]] | None:
    return ([], []) if policy.order == "submit" else None


FCFS_PASS = CompiledPass(
    name="fcfs",
    init=fcfs_init,
    schedule=fcfs_pass,
    ended=fcfs_ended,
    report=fcfs_report,
    arguments=_fcfs_arguments,
)
