"""Conservative backfilling (Mu'alem and Feitelson, IEEE TPDS 12(6), 2001).

Every queued job holds a reservation: on arrival it takes the earliest start at which
its units stay free for its estimated run time, given the running jobs and all earlier
reservations. A job starts when its reservation comes. When a job ends before its
estimate, the schedule is *compressed*: in queue order, each job gives up its
reservation and takes the earliest start no later than the one it had, so no
reservation is ever delayed.

The one exception is a running job that outlives its estimate, possible only when the
trace is loaded with ``overrun=keep``: its units are then expected back one second
later, again and again, and reservations that depended on them move later (counted as
``delayed``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from cosched.engine.decisions import Decision, Start, WakeUp
from cosched.engine.view import SystemView
from cosched.policies.base import Policy, check_choice
from cosched.policies.profile import Profile
from cosched.workload.job import Job

__all__ = ["OVERRUN_GRACE", "ConservativeBackfilling"]

#: Seconds after "now" at which an overrunning job's units are expected back.
OVERRUN_GRACE = 1.0


@dataclass(kw_only=True)
class ConservativeBackfilling(Policy):
    """Conservative backfilling: a reservation for every queued job, compressed on early ends.

    Attributes:
        order: the order in which jobs take and compress reservations (submit or sjf).
    """

    name = "conservative"
    order: Literal["submit", "sjf"] = "submit"
    reservations: dict[int, float] = field(default_factory=dict, init=False, repr=False)
    delayed: int = field(default=0, init=False, repr=False)
    _fresh: list[Job] = field(default_factory=list, init=False, repr=False)
    _ended: list[tuple[float, int]] = field(default_factory=list, init=False, repr=False)
    _planned_end: dict[int, float] = field(default_factory=dict, init=False, repr=False)
    _wake: float = field(default=-math.inf, init=False, repr=False)
    _profile: Profile | None = field(default=None, init=False, repr=False)
    _epoch: int = field(default=-1, init=False, repr=False)
    _job_arrays: tuple[object, object, np.ndarray, np.ndarray] | None = field(
        default=None, init=False, repr=False
    )

    def __post_init__(self) -> None:
        check_choice(self.name, "order", self.order, ("submit", "sjf"))

    def on_submit(self, job: Job, view: SystemView) -> None:
        self._fresh.append(job)

    def on_finish(self, job: Job, view: SystemView) -> None:
        self._ended.append((self._planned_end.pop(job.index), view.sizes[job.index]))

    def schedule(self, view: SystemView) -> list[Decision]:
        fresh, self._fresh = self._fresh, []
        ended, self._ended = self._ended, []
        now = view.now
        profile = self._profile
        # Only ends since the last pass (no rate change, no overrun): patch the profile
        # with the units that came back early instead of rebuilding it.
        if profile is None or view.epoch - self._epoch != len(ended) or self._overrun(view):
            profile = self._profile = self._rebuild(view)
            self._compress(view, profile)
        else:
            profile.advance(now)
            for end, size in ended:
                if end > now:
                    profile.add(now, end - now, size)
            if ended:
                self._compress(view, profile)
                profile.coalesce()
        if fresh:
            idx = [job.index for job in self._in_order(view, fresh)]
            starts = profile.reserve(*self._of(view, idx))
            self.reservations.update(zip(idx, starts.tolist(), strict=True))
        self._epoch = view.epoch
        return self._due(view)

    def _due(self, view: SystemView) -> list[Decision]:
        """Start the jobs whose reservation has come; wake up for the next one.

        A reservation can fall at an instant when no job ends or arrives (compression
        moved it into a hole), so the policy asks for a pass then.
        """
        now, free, sizes, res = view.now, view.free, view.sizes, self.reservations
        out: list[Decision] = []
        following = math.inf
        for job in view.queue:
            i = job.index
            if res[i] <= now and sizes[i] <= free:
                free -= sizes[i]
                del res[i]
                self._planned_end[i] = now + view.estimates[i]
                out.append(Start(job))
            elif res[i] < following:
                following = res[i]
        if now < following < math.inf and following != self._wake:
            self._wake = following
            out.append(WakeUp(following))
        return out

    def _in_order(self, view: SystemView, jobs: Iterable[Job]) -> list[Job]:
        jobs = list(jobs)
        if self.order == "sjf":
            est = view.estimates
            jobs.sort(key=lambda j: (est[j.index], j.index))
        return jobs

    @staticmethod
    def _overrun(view: SystemView) -> bool:
        first = next(view.releases(), None)
        return first is not None and first[0] <= view.now

    def _rebuild(self, view: SystemView) -> Profile:
        now = view.now
        releases = [
            (end if end > now else now + OVERRUN_GRACE, size) for end, _, size in view.releases()
        ]
        profile = Profile(now, view.free, releases)
        sizes, est = view.sizes, view.estimates
        for i, start in self.reservations.items():
            profile.add(max(start, now), est[i], -sizes[i])
        return profile

    def _compress(self, view: SystemView, profile: Profile) -> None:
        """In queue order, move each reservation to the earliest start no later than it.

        The whole pass is one compiled call (:meth:`Profile.compress`): a job that
        cannot start earlier (no segment before its start has its units free) is
        skipped; the others give up their reservation and take the earliest start no
        later than the one they had (after an overrun, possibly a later one, counted in
        ``delayed``).
        """
        res = self.reservations
        if not res:
            return
        idx = [i for i in (j.index for j in view.queue) if i in res]
        if self.order == "sjf":
            e = view.estimates
            idx.sort(key=lambda i: (e[i], i))
        starts = np.array([res[i] for i in idx], dtype=np.float64)
        self.delayed += profile.compress(view.now, *self._of(view, idx), starts)
        res.update(zip(idx, starts.tolist(), strict=True))

    def _of(self, view: SystemView, idx: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Sizes and estimates of the jobs ``idx``, as arrays."""
        if not isinstance(view.sizes, list):
            # A streamed run keeps only the jobs in the system (cosched.engine.feed).
            s, e = view.sizes, view.estimates
            return (
                np.array([s[i] for i in idx], dtype=np.int64),
                np.array([e[i] for i in idx], dtype=np.float64),
            )
        sizes, est = self._arrays(view)
        sel = np.array(idx, dtype=np.int64)
        return sizes[sel], est[sel]

    def _arrays(self, view: SystemView) -> tuple[np.ndarray, np.ndarray]:
        """Sizes and estimates of every job as arrays (built once per simulation)."""
        cached = self._job_arrays
        if cached is None or cached[0] is not view.sizes or cached[1] is not view.estimates:
            cached = self._job_arrays = (
                view.sizes,
                view.estimates,
                np.asarray(view.sizes, dtype=np.int64),
                np.asarray(view.estimates, dtype=np.float64),
            )
        return cached[2], cached[3]
