"""Strict first come, first served (or strict in any queue order)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cosched.engine.decisions import Decision, Start
from cosched.engine.view import SystemView
from cosched.policies.base import Policy, check_choice
from cosched.policies.orders import ORDERS, ordered

__all__ = ["Fcfs"]


@dataclass(kw_only=True)
class Fcfs(Policy):
    """Start queued jobs in order until the first one that does not fit; no backfilling.

    Attributes:
        order: queue order (submit, sjf, wfp, priority).
        aging_time: aging period in seconds for the priority order (None: mean wait).
    """

    name = "fcfs"
    idle_passes = False
    order: Literal["submit", "sjf", "wfp", "priority"] = "submit"
    aging_time: float | None = None

    def __post_init__(self) -> None:
        check_choice(self.name, "order", self.order, tuple(ORDERS))

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
