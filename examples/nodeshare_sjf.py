"""A node-sharing variant in one file: the paper's coscheduler, queue shortest first.

It reuses the family (malleable configurations, Algorithm 1's best fit, the
interference model, the requirements) and changes only the queue order::

    cosched run ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz \\
        --policy examples/nodeshare_sjf.py:NodeshareSjf --limit 3000
"""

from __future__ import annotations

from dataclasses import dataclass

from cosched.engine import Decision, SystemView
from cosched.nodeshare.policies import Coscheduling


@dataclass(kw_only=True)
class NodeshareSjf(Coscheduling):
    """Node sharing with the queue in shortest-estimate-first order."""

    name = "nodeshare-sjf"

    def schedule(self, view: SystemView) -> list[Decision]:
        out: list[Decision] = []
        for job in sorted(view.queue, key=lambda j: (view.estimate(j), j.index)):
            plan = self.plan(job, view)
            if plan is None:
                break
            out.append(self.commit(job, plan))
        return out
