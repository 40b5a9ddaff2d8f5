"""An example policy package: shortest-estimate-first without backfilling."""

from __future__ import annotations

from dataclasses import dataclass

from cosched.engine import Start, SystemView
from cosched.policies import Policy

__all__ = ["ShortestFirst"]


@dataclass(kw_only=True)
class ShortestFirst(Policy):
    """Start queued jobs shortest estimate first, until one does not fit."""

    name = "shortest-first"

    def schedule(self, view: SystemView) -> list[Start]:
        free, out = view.free, []
        for job in sorted(view.queue, key=lambda j: (view.estimate(j), j.index)):
            if view.size(job) > free:
                break
            free -= view.size(job)
            out.append(Start(job))
        return out
