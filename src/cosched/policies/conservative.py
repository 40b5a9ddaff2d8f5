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
from typing import TYPE_CHECKING, Literal, NamedTuple

import numpy as np

from cosched.engine.compiled import CompiledPass
from cosched.engine.decisions import Decision, Start, WakeUp
from cosched.engine.loop import Floats, Instant, Ints, Jobs, Table
from cosched.engine.view import SystemView
from cosched.policies._profile_kernels import add, advance, coalesce, compress, reserve
from cosched.policies.base import Policy, check_choice
from cosched.policies.limits import SiteRules
from cosched.policies.profile import Profile
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation

__all__ = ["OVERRUN_GRACE", "ConservativeBackfilling"]

#: Seconds after "now" at which an overrunning job's units are expected back.
OVERRUN_GRACE = 1.0


@dataclass(kw_only=True)
class ConservativeBackfilling(Policy):
    """Conservative backfilling: a reservation for every queued job, compressed on early ends.

    Attributes:
        order: the order in which jobs take and compress reservations (submit or sjf).
        max_jobs_per_user: most jobs one user runs at once (None: no limit).
        max_procs_per_user: most processors one user's running jobs hold (None: no limit).

    With a limit, every pass plans afresh, as Slurm's backfill does each cycle: in
    order, each job its user may start takes the earliest start the running jobs and
    the earlier plans leave, and starts if that is now; a job whose user is at a limit
    takes no reservation (:mod:`cosched.policies.limits`).
    """

    name = "conservative"
    order: Literal["submit", "sjf"] = "submit"
    max_jobs_per_user: int | None = None
    max_procs_per_user: int | None = None
    _site: SiteRules = field(init=False, repr=False)
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
        self._site = SiteRules.of(self)

    def assumptions(self) -> list[str]:
        return self._site.notes()

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """Conservative backfilling's pass on arrays (:func:`conservative_pass`); not a
        subclass's."""
        return CONSERVATIVE_PASS if cls is ConservativeBackfilling else None

    def on_submit(self, job: Job, view: SystemView) -> None:
        self._fresh.append(job)

    def on_finish(self, job: Job, view: SystemView) -> None:
        self._ended.append((self._planned_end.pop(job.index), view.sizes[job.index]))

    def schedule(self, view: SystemView) -> list[Decision]:
        fresh, self._fresh = self._fresh, []
        ended, self._ended = self._ended, []
        if self._site.limited:
            return self._plan_afresh(view)
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

    def _plan_afresh(self, view: SystemView) -> list[Decision]:
        """The pass with user limits (see the class): plan every eligible job afresh."""
        now, free, sizes, est = view.now, view.free, view.sizes, view.estimates
        held = self._site.holding(view)
        profile = self._rebuild(view, reservations=False)
        res = self.reservations
        res.clear()
        out: list[Decision] = []
        following = math.inf
        for job in self._in_order(view, view.queue):
            i = job.index
            if not held.allows(job):
                continue
            start = profile.reserve(*self._of(view, [i]))[0]
            if start <= now and sizes[i] <= free:
                free -= sizes[i]
                held.take(job)
                self._planned_end[i] = now + est[i]
                out.append(Start(job))
                continue
            res[i] = float(start)
            following = min(following, float(start))
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

    def _rebuild(self, view: SystemView, reservations: bool = True) -> Profile:
        now = view.now
        releases = [
            (end if end > now else now + OVERRUN_GRACE, size) for end, _, size in view.releases()
        ]
        if view.unavailable:  # units out of the machine come back when their drain ends
            releases = sorted([*releases, *view.returns()])
        profile = Profile(now, view.free, releases)
        if not reservations:
            return profile
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


# -- the compiled pass (cosched.engine.loop) ---------------------------------------------


class ConservativeStore(NamedTuple):
    """Conservative backfilling's per-job arrays (its compiled pass changes them in
    place)."""

    reserved: Floats  #: each queued job's reserved start (NaN: none)
    planned: Floats  #: each running job's planned (estimated) end
    ended_at: Floats  #: planned ends of the jobs that completed at this instant ...
    ended_units: Ints  #: ... and their sizes
    pick_jobs: Ints  #: the jobs a pass hands to the profile kernels ...
    pick_units: Ints  #: ... their sizes, estimates and reserved starts
    pick_durations: Floats
    pick_starts: Floats


class ConservativeState(NamedTuple):
    """What conservative backfilling's compiled pass keeps between passes."""

    ended: int  #: how many jobs completed at this instant
    times: Floats  #: the profile's segment starts ...
    free: Ints  #: ... and free units (grown as needed), the first ``segments`` in use
    segments: int
    built: bool  #: whether the first pass built the profile
    last_wake: float  #: the last wake-up asked for
    delayed: int  #: reservations moved later (none without overruns)
    sjf: bool  #: reserve and compress in the ``sjf`` order (else in submit order)


class ConservativeParams(NamedTuple):
    """Conservative's compiled pass's parameters."""

    sjf: bool = False  #: reserve and compress in the ``sjf`` order (else in submit order)


def conservative_init(
    jobs: Jobs, capacity: int, params: ConservativeParams
) -> tuple[ConservativeStore, ConservativeState]:
    n = jobs.submit.shape[0]
    f8, i8 = np.float64, np.int64
    store = ConservativeStore(
        np.full(n, np.nan), np.zeros(n, dtype=f8), np.empty(n, dtype=f8),
        np.empty(n, dtype=i8), np.empty(n, dtype=i8), np.empty(n, dtype=i8),
        np.empty(n, dtype=f8), np.empty(n, dtype=f8),
    )  # fmt: skip
    state = ConservativeState(
        0, np.zeros(64, dtype=f8), np.zeros(64, dtype=i8), 0, False, -math.inf, 0, params.sjf
    )
    return store, state


def conservative_ended(
    store: ConservativeStore, s: ConservativeState, jobs: Jobs, j: int, now: float
) -> ConservativeState:
    store.ended_at[s.ended] = store.planned[j]
    store.ended_units[s.ended] = jobs.size[j]
    return ConservativeState(
        s.ended + 1, s.times, s.free, s.segments, s.built, s.last_wake, s.delayed, s.sjf
    )


def by_estimate(pj: Ints, pu: Ints, pd: Floats, ps: Floats, m: int) -> None:
    """The first ``m`` picks (jobs, sizes, estimates, starts; in submit order) sorted by
    estimate, ties in submit order: the ``sjf`` order."""
    perm = np.argsort(pd[:m], kind="mergesort")
    j2 = pj[:m][perm]
    u2 = pu[:m][perm]
    d2 = pd[:m][perm]
    s2 = ps[:m][perm]
    pj[:m] = j2
    pu[:m] = u2
    pd[:m] = d2
    ps[:m] = s2


def grow_profile(times: Floats, free: Ints, n: int, need: int) -> tuple[Floats, Ints]:
    """Profile arrays with room for ``need`` more segments (the same ones if they have
    it)."""
    cap = times.shape[0]
    if n + need <= cap:
        return times, free
    cap = max(n + need, 2 * cap)
    t2 = np.zeros(cap, dtype=np.float64)
    f2 = np.zeros(cap, dtype=np.int64)
    t2[:n] = times[:n]
    f2[:n] = free[:n]
    return t2, f2


def conservative_pass(
    st: ConservativeStore, s: ConservativeState, jobs: Jobs, queue: Ints, chosen: Ints, at: Instant
) -> tuple[ConservativeState, int, int, int, float]:
    """:meth:`ConservativeBackfilling.schedule` on arrays, for
    workloads in which no job outlives its estimate (so the profile is never rebuilt
    and no reservation is delayed).

    The first pass builds the profile (the units free now); later passes drop the past,
    give back the units of jobs that ended before their estimate (in completion
    order), compress the reservations in queue order (``sjf``: by estimate) and
    coalesce; then the arrivals are reserved in order (``sjf``: by estimate); then the
    jobs whose reservation has come start, in queue order, and a wake-up is asked for
    at the next reservation if no event would bring it. The profile kernels are the
    policy's own (:mod:`cosched.policies._profile_kernels`).
    """
    size, est = jobs.size, jobs.est
    head, tail, fresh, free, now = at.head, at.tail, at.fresh, at.free, at.now
    res, planned = st.reserved, st.planned
    pj, pu, pd, ps = st.pick_jobs, st.pick_units, st.pick_durations, st.pick_starts
    times, pfree, pn, delayed = s.times, s.free, s.segments, s.delayed
    if not s.built:  # nothing runs yet at the first instant: the free units
        pn = 1
        times[0] = now
        pfree[0] = free
    else:
        pn = advance(times, pfree, pn, now)
        for k in range(s.ended):
            if st.ended_at[k] > now:
                times, pfree = grow_profile(times, pfree, pn, 2)
                pn = add(times, pfree, pn, now, st.ended_at[k] - now, st.ended_units[k])
        if s.ended > 0:
            m = 0
            for r in range(head, fresh):
                j = queue[r]
                if res[j] == res[j]:  # queued and reserved (not started)
                    pj[m] = j
                    pu[m] = size[j]
                    pd[m] = est[j]
                    ps[m] = res[j]
                    m += 1
            if m > 0:
                if s.sjf and m > 1:
                    by_estimate(pj, pu, pd, ps, m)
                times, pfree = grow_profile(times, pfree, pn, 4 * m)
                pn, moved = compress(times, pfree, pn, now, pu[:m], pd[:m], ps[:m])
                delayed += moved
                for k in range(m):
                    res[pj[k]] = ps[k]
            pn = coalesce(times, pfree, pn)
    m = tail - fresh
    if m > 0:
        for k in range(m):
            j = queue[fresh + k]
            pj[k] = j
            pu[k] = size[j]
            pd[k] = est[j]
        if s.sjf and m > 1:
            by_estimate(pj, pu, pd, ps, m)
        times, pfree = grow_profile(times, pfree, pn, 2 * m)
        pn = reserve(times, pfree, pn, pu[:m], pd[:m], ps[:m])
        for k in range(m):
            res[pj[k]] = ps[k]
    # start the jobs whose reservation has come (the queue compacted on the way)
    following = math.inf
    k = 0
    w = head
    for r in range(head, tail):
        j = queue[r]
        if res[j] <= now and size[j] <= free:
            free -= size[j]
            res[j] = np.nan
            planned[j] = now + est[j]
            chosen[k] = j
            k += 1
            continue
        if res[j] < following:
            following = res[j]
        queue[w] = j
        w += 1
    wake = math.nan
    last_wake = s.last_wake
    if now < following < math.inf and following != last_wake:
        last_wake = following
        wake = following
    state = ConservativeState(0, times, pfree, pn, True, last_wake, delayed, s.sjf)
    return state, head, w, k, wake


def conservative_report(
    store: ConservativeStore, s: ConservativeState, out: Ints, fout: Floats
) -> None:
    out[0] = s.delayed


def _conservative_arguments(
    policy: ConservativeBackfilling, sim: Simulation
) -> ConservativeParams | None:
    _, run, est, _ = sim.columns
    if (run > est).any():  # overruns: the policy's rebuilds
        return None
    if policy._site.active:  # user limits: the policy's plans afresh
        return None
    return ConservativeParams(sjf=policy.order == "sjf")


def _conservative_absorb(
    policy: ConservativeBackfilling, counters: list[int], floats: list[float], table: Table
) -> None:
    policy.delayed = counters[0]


CONSERVATIVE_PASS = CompiledPass(
    name="conservative",
    init=conservative_init,
    schedule=conservative_pass,
    ended=conservative_ended,
    report=conservative_report,
    arguments=_conservative_arguments,
    params=ConservativeParams,
    absorb=_conservative_absorb,
    helpers=(grow_profile, by_estimate),
    depends=(add, advance, coalesce, compress, reserve),
    idle_passes=True,
    always_compiled=True,
    reports=1,
)
