"""EASY backfilling (Mu'alem and Feitelson, IEEE TPDS 12(6), 2001).

Jobs start in queue order while they fit. When the head does not fit it gets a
reservation at its *shadow time*: the earliest time at which, by the estimated ends of
the running jobs, enough units are free. The *extra* units are those free at the shadow
time beyond what the head needs. The rest of the queue is then scanned in order, and a
job starts now if it fits in the free units and either ends (by its estimate) before the
shadow time or uses no more than the extra units (which it then consumes).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple

import numpy as np

from cosched.engine.compiled import CompiledPass
from cosched.engine.decisions import Decision, Start
from cosched.engine.loop import Floats, Ints, Jobs
from cosched.engine.view import SystemView
from cosched.policies.base import Policy, check_choice, check_range
from cosched.policies.limits import SITE_ORDERS, SiteRules, UserLimits
from cosched.policies.orders import ordered
from cosched.policies.reservation import (
    Reservation,
    _release_slot,
    admit,
    drop_release,
    insert_release,
    reservation,
    shadow_walk,
)
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation

__all__ = ["EasyBackfilling", "shadow_time"]


def shadow_time(
    view: SystemView, need: int, free: int, started: list[tuple[float, int, int]]
) -> tuple[float, int]:
    """The head's shadow time and the extra units at that time.

    Args:
        view: the system.
        need: units the head job needs.
        free: units free now (after this pass's starts).
        started: ``(estimated_end, index, size)`` of jobs started in this pass, sorted.
    """
    ends = ((end, size) for end, _, size in heapq.merge(view.releases(), started))
    if view.unavailable:  # units out of the machine come back when their drain ends
        ends = heapq.merge(ends, view.returns())
    return reservation(ends, free=free, need=need, now=view.now)


@dataclass(kw_only=True)
class EasyBackfilling(Policy):
    """EASY backfilling: one reservation for the queue head, extra-units rule.

    Attributes:
        order: queue order (submit, sjf, wfp, priority, queue) for both the head and the scan.
        window: how many queued jobs behind the head are considered for backfilling
            (None: all; hpc-coscheduling-malleable-configurations.txt uses 150).
        aging_time: aging period in seconds for the priority order (None: mean wait).
        max_jobs_per_user: most jobs one user runs at once (None: no limit).
        max_procs_per_user: most processors one user's running jobs hold (None: no limit).
        fairshare_half_life: half-life in seconds of the usage the fairshare order decays.
        fairshare_weight: weight of the fair-share factor against the age factor.

    A job whose user is at a limit is passed over: it is never the head and holds no
    reservation; the head is the first job its user may start that does not fit
    (:mod:`cosched.policies.limits`).
    """

    name = "easy"
    idle_passes = False
    order: Literal["submit", "sjf", "wfp", "priority", "queue", "fairshare"] = "submit"
    window: int | None = None
    aging_time: float | None = None
    max_jobs_per_user: int | None = None
    max_procs_per_user: int | None = None
    fairshare_half_life: float = 7 * 86400.0
    fairshare_weight: float = 1.0
    _site: SiteRules = field(init=False, repr=False)
    # Incremental state for the submit order: what the last pass left unchanged.
    _fresh: list[Job] = field(default_factory=list, init=False, repr=False)
    _epoch: int = field(default=-1, init=False, repr=False)
    _head: int = field(default=-1, init=False, repr=False)
    _res: Reservation = field(default_factory=lambda: Reservation(0.0, 0), init=False, repr=False)

    def __post_init__(self) -> None:
        check_choice(self.name, "order", self.order, SITE_ORDERS)
        if self.window is not None:
            check_range(self.name, "window", self.window, low=0, integer=True)
        self._site = SiteRules.of(self)

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """EASY's pass on arrays (:func:`easy_pass`); not a subclass's."""
        return EASY_PASS if cls is EasyBackfilling else None

    def on_submit(self, job: Job, view: SystemView) -> None:
        self._fresh.append(job)
        self._site.submitted(job)

    def on_finish(self, job: Job, view: SystemView) -> None:
        self._site.finished(job, view)

    def assumptions(self) -> list[str]:
        return self._site.notes()

    def schedule(self, view: SystemView) -> list[Decision]:
        fresh, self._fresh = self._fresh, []
        site = self._site
        if site.active:  # every pass is a full one: a start changes who may start
            self._epoch = view.epoch
            held = site.holding(view)
            return self._full_pass(view, site.queue(view, self.order, self.aging_time), held)
        # Incremental pass: with the submit order and nothing ended since the last pass,
        # the head, its shadow and the free units are unchanged, and every older job
        # already failed these same tests, so only arrivals need checking. Not with a
        # window: a backfill shifts the window and brings older jobs into it.
        if (
            self.order == "submit"
            and self.window is None
            and self._epoch == view.epoch
            and self._head >= 0
        ):
            return self._backfill_fresh(view, fresh)
        self._epoch = view.epoch
        if self.order == "submit":
            return self._full_pass(view, view.queue)
        return self._full_pass(view, ordered(view, self.order, self.aging_time))

    def _full_pass(
        self, view: SystemView, queue: object, held: UserLimits | None = None
    ) -> list[Decision]:
        sizes, est, now = view.sizes, view.estimates, view.now
        free = view.free
        out: list[Decision] = []
        started: list[tuple[float, int, int]] = []
        it = iter(queue)  # type: ignore[call-overload]
        head = None
        for job in it:
            if held is not None and not held.allows(job):
                continue
            size = sizes[job.index]
            if size > free:
                head = job
                break
            free -= size
            out.append(Start(job))
            if held is not None:
                held.take(job)
            started.append((now + est[job.index], job.index, size))
        self._head = -1
        if head is None:
            return out
        started.sort()
        shadow, extra = shadow_time(view, sizes[head.index], free, started)
        candidates = it if self.window is None else itertools.islice(it, self.window)
        self._head, self._res = head.index, Reservation(shadow, extra)
        self._backfill(view, candidates, free, out, held)
        return out

    def _backfill_fresh(self, view: SystemView, fresh: list[Job]) -> list[Decision]:
        """Only new arrivals can start: the head, free units and shadow are unchanged."""
        out: list[Decision] = []
        self._backfill(view, fresh, view.free, out)
        return out

    def _backfill(
        self,
        view: SystemView,
        jobs: Iterable[Job],
        free: int,
        out: list[Decision],
        held: UserLimits | None = None,
    ) -> None:
        """Start, in order, the jobs the reservation admits (appended to ``out``) and,
        with ``held``, whose users may start them."""
        sizes, est, now, admit = view.sizes, view.estimates, view.now, self._res.admit
        for job in jobs:
            size = sizes[job.index]
            if held is not None and not held.allows(job):
                continue
            if size <= free and admit(now + est[job.index], size):
                free -= size
                out.append(Start(job))
                if held is not None:
                    held.take(job)


# -- the compiled pass (cosched.engine.loop) ---------------------------------------------


class EasyStore(NamedTuple):
    """The running jobs sorted by (estimated end, job), the first ``running`` entries
    (EASY's compiled pass changes them in place)."""

    ends: Floats  #: estimated ends
    jobs: Ints  #: job indices


class EasyState(NamedTuple):
    """What EASY's compiled pass keeps between passes."""

    running: int  #: how many jobs run
    epoch: int  #: the completions counted at the last full pass
    blocked: int  #: the head that pass left (-1: none)
    shadow: float  #: its reservation
    extra: int
    window: int  #: the backfill window (-1: the whole queue)


class EasyParams(NamedTuple):
    """EASY's compiled pass's parameters."""

    window: int = -1  #: the backfill window (-1: the whole queue)


def easy_init(jobs: Jobs, capacity: int, params: EasyParams) -> tuple[EasyStore, EasyState]:
    n = jobs.submit.shape[0]
    store = EasyStore(np.empty(n, dtype=np.float64), np.empty(n, dtype=np.int64))
    return store, EasyState(0, -1, -1, 0.0, 0, params.window)


def easy_ended(store: EasyStore, s: EasyState, jobs: Jobs, j: int, now: float) -> EasyState:
    running = drop_release(store.ends, store.jobs, s.running, jobs.start[j] + jobs.est[j], j)
    return EasyState(running, s.epoch, s.blocked, s.shadow, s.extra, s.window)


def easy_pass(
    store: EasyStore,
    s: EasyState,
    jobs: Jobs,
    queue: Ints,
    head: int,
    tail: int,
    fresh: int,
    free: int,
    epoch: int,
    now: float,
    chosen: Ints,
) -> tuple[EasyState, int, int, int, float]:
    """:meth:`EasyBackfilling.schedule` with the submit order, on arrays.

    A full pass starts jobs in order while the head fits, then gives the head its
    reservation (:func:`shadow_walk`) and backfills the rest of the queue (or
    ``window`` jobs of it) in order (:func:`admit`). With no window, when no job ended
    since the last full pass and that pass left a head, the pass is incremental: only
    the jobs that arrived now are tried against the kept reservation.
    """
    size, est, start = jobs.size, jobs.est, jobs.start
    ends, ids = store.ends, store.jobs
    running, blocked, shadow, extra, window = s.running, s.blocked, s.shadow, s.extra, s.window
    seen_epoch = s.epoch
    k = 0
    if window < 0 and seen_epoch == epoch and blocked >= 0:
        r = fresh
    else:
        seen_epoch = epoch
        blocked = -1
        while head < tail:  # start in order while the head fits
            j = queue[head]
            if start[j] == start[j]:  # started by an earlier backfill (not NaN)
                head += 1
                continue
            if size[j] > free:
                blocked = j
                break
            head += 1
            free -= size[j]
            chosen[k] = j
            k += 1
            running = insert_release(ends, ids, running, now + est[j], j)
        if blocked < 0:
            state = EasyState(running, seen_epoch, -1, shadow, extra, window)
            return state, head, tail, k, math.nan
        shadow, extra = shadow_walk(ends, ids, running, size, free, size[blocked], now)
        r = head + 1
    # backfill queue[r:tail] in order against (shadow, extra), compacting it
    w = r
    seen = 0
    last = tail
    while r < last:
        j = queue[r]
        r += 1
        if start[j] == start[j]:
            continue
        if window >= 0 and seen >= window:
            queue[w] = j
            w += 1
            continue
        seen += 1
        ok = False
        if size[j] <= free:
            ok, extra = admit(now + est[j], size[j], shadow, extra)
        if not ok:
            queue[w] = j
            w += 1
            continue
        free -= size[j]
        chosen[k] = j
        k += 1
        running = insert_release(ends, ids, running, now + est[j], j)
    state = EasyState(running, seen_epoch, blocked, shadow, extra, window)
    return state, head, w, k, math.nan


def easy_report(store: EasyStore, state: EasyState, out: Ints, fout: Floats) -> None:
    """EASY has no counters of its own."""


def _easy_arguments(policy: EasyBackfilling, sim: Simulation) -> EasyParams | None:
    if policy.order != "submit" or policy._site.active:
        return None
    return EasyParams(window=-1 if policy.window is None else int(policy.window))


EASY_PASS = CompiledPass(
    name="easy",
    init=easy_init,
    schedule=easy_pass,
    ended=easy_ended,
    report=easy_report,
    arguments=_easy_arguments,
    params=EasyParams,
    helpers=(_release_slot, insert_release, drop_release, shadow_walk, admit),
)
