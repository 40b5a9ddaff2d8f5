"""Co-located execution: progress rates of jobs that share nodes.

Two jobs on one node both progress at ``1 / sl_AB`` (the slowdown model). A job that
spans nodes with different partners, or with partners on only some of its nodes,
progresses at the rate of its slowest node: a loosely synchronous parallel job waits
for its slowest process. When a partner ends, the rate is recomputed from the
partners left, so a job alone on all its nodes returns to full speed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from cosched.engine.view import SystemView
from cosched.lomarc.slowdown import Profile, SlowdownModel, profile_of
from cosched.workload.job import Job

__all__ = ["PairRates", "Profiles"]


class Profiles:
    """Job profiles and pair slowdowns, computed once per job and per pair."""

    __slots__ = ("_known", "_pairs", "_profiles", "_table", "model")

    def __init__(self, model: SlowdownModel) -> None:
        self.model = model
        self._profiles: dict[int, Profile] = {}
        self._pairs: dict[tuple[int, int], float] = {}
        self._table = np.zeros((7, 0))
        self._known = np.zeros(0, dtype=bool)

    def table(self, indices: np.ndarray, jobs: Sequence[Job]) -> np.ndarray:
        """The profiles of the jobs ``indices`` as columns of a ``(7, len(indices))``
        array, rows (index, class, cpu, net, disk, mem, cpu_slowdown) (for vectorised
        screens; each job's row is read from its profile once)."""
        if self._known.size < len(jobs):
            n = len(jobs)
            table, known = np.zeros((7, n)), np.zeros(n, dtype=bool)
            table[:, : self._known.size] = self._table
            known[: self._known.size] = self._known
            self._table, self._known = table, known
        table, known = self._table, self._known
        for i in indices[~known[indices]].tolist():
            p = self.of(jobs[i])
            table[:, i] = (p.index, p.cls, p.cpu, p.net, p.disk, p.mem, p.cpu_slowdown)
            known[i] = True
        return table[:, indices]

    def of(self, job: Job) -> Profile:
        """The profile of ``job`` (from its ``lomarc_*`` fields)."""
        p = self._profiles.get(job.index)
        if p is None:
            p = self._profiles[job.index] = profile_of(job.index, job.extra)
        return p

    def slowdown(self, a: Job, b: Job) -> float:
        """The pair's slowdown (cached; symmetric)."""
        key = (a.index, b.index) if a.index < b.index else (b.index, a.index)
        sl = self._pairs.get(key)
        if sl is None:
            sl = self._pairs[key] = self.model.slowdown(self.of(a), self.of(b))
        return sl


class PairRates:
    """The :class:`~cosched.engine.RateModel` of LOMARC: rates from pair slowdowns."""

    def __init__(self, profiles: Profiles) -> None:
        self.profiles = profiles
        self._nodes: dict[int, tuple[int, ...]] = {}  # running job -> its nodes

    def rate_of(self, view: SystemView, job: Job) -> float:
        """The rate of a running job: 1 / the largest slowdown over its nodes."""
        worst = 1.0
        me = job.index
        for node in self._nodes[me]:
            for other in view.jobs_on(node):
                if other != me:
                    sl = self.profiles.slowdown(job, view.job(other))
                    if sl > worst:
                        worst = sl
        return 1.0 / worst

    def update(
        self, view: SystemView, started: Sequence[Job], finished: Sequence[Job]
    ) -> Mapping[int, float]:
        """New rates of the running jobs that share a node with a job started or ended."""
        touched: set[int] = set()
        for job in finished:
            touched.update(self._nodes.pop(job.index, ()))
        for job in started:
            nodes = tuple(node for node, _ in view.placement(job))
            self._nodes[job.index] = nodes
            touched.update(nodes)
        affected: set[int] = set()
        for node in touched:
            affected.update(view.jobs_on(node))
        out: dict[int, float] = {}
        for idx in sorted(affected):
            job = view.job(idx)
            rate = self.rate_of(view, job)
            if rate != view.rate(job):
                out[idx] = rate
        return out
