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
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from cosched.engine.compiled import CompiledPass
from cosched.engine.decisions import Decision, Start
from cosched.engine.loop import Floats, Instant, Ints, Jobs, Table
from cosched.engine.view import SystemView
from cosched.policies.base import check_range
from cosched.policies.limits import FAIRSHARE_MAX_AGE, SitePolicy, UserLimits
from cosched.policies.orders import ordered
from cosched.policies.reservation import (
    Reservation,
    _release_slot,
    admit,
    drop_release,
    insert_release,
    reservation,
    shadow_walk,
    window_next,
)
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation
    from cosched.policies.fcfs import Fcfs

__all__ = ["EASY_PASS", "EasyBackfilling", "baseline_arguments", "shadow_time"]


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
class EasyBackfilling(SitePolicy):
    """EASY backfilling: one reservation for the queue head, extra-units rule.

    Attributes:
        order: queue order (submit, sjf, wfp, priority, queue) for both the head and the scan.
        window: how many queued jobs behind the head are considered for backfilling
            (None: all; hpc-coscheduling-malleable-configurations.txt uses 150).

    The other parameters, the user limits and fair-share, are the site's rules
    (:class:`~cosched.policies.limits.SitePolicy`).

    A job whose user is at a limit is passed over: it is never the head and holds no
    reservation; the head is the first job its user may start that does not fit
    (:mod:`cosched.policies.limits`).
    """

    name = "easy"
    idle_passes = False
    window: int | None = None
    # Incremental state for the submit order: what the last pass left unchanged.
    _fresh: list[Job] = field(default_factory=list, init=False, repr=False)
    _epoch: int = field(default=-1, init=False, repr=False)
    _head: int = field(default=-1, init=False, repr=False)
    _res: Reservation = field(default_factory=lambda: Reservation(0.0, 0), init=False, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.window is not None:
            check_range(self.name, "window", self.window, low=0, integer=True)

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """EASY's pass on arrays (:func:`easy_pass`); not a subclass's."""
        return EASY_PASS if cls is EasyBackfilling else None

    def on_submit(self, job: Job, view: SystemView) -> None:
        self._fresh.append(job)
        super().on_submit(job, view)

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
#
# One pass for EASY and FCFS (EASY with a backfill window of 0 jobs), plain or under the
# site's rules: a queue order, per-user limits, fair-share and unavailability. With none
# of them the pass is EASY's incremental one below; with any, every pass is a full one
# over the live queue sorted in the order (the general loop's pass with the rules on).

#: The orders the compiled pass runs (``priority`` runs the general loop), by code.
ORDER_CODES = {"submit": 0, "sjf": 1, "wfp": 2, "queue": 3, "fairshare": 4}
_SJF, _WFP, _QUEUE, _FAIRSHARE = 1, 2, 3, 4
# The site's integers (EasyStore.site): the order, the limits (-1: none), the
# unavailability's steps, whether any rule is on, the users submitted so far, the
# running set the fair-share usage was rebuilt for (completions, starts), the starts so
# far, the last step of the unavailability a wake-up was asked for, the user slots and
# the wake-ups asked.
_ORDER, _MAXJ, _MAXP, _STEPS, _ACTIVE, _USERS, _KEY_ENDS, _KEY_STARTS = 0, 1, 2, 3, 4, 5, 6, 7
_STARTS, _ASKED, _SLOTS, _WAKES = 8, 9, 10, 11
# The site's reals (EasyStore.fsite): the fair-share half-life, weight and maximum age,
# the instant the finished usage is decayed to, and the reference instant of the
# running jobs' usage.
_HALF, _WEIGHT, _MAXAGE, _AT, _REF = 0, 1, 2, 3, 4
# The per-job columns (Jobs.table) with the site's rules: the user's slot (-1: none),
# the processors asked for and the queue's rank (inf: none).
_USER, _PROCS, _RANK = 0, 1, 2


class EasyStore(NamedTuple):
    """The running jobs sorted by (estimated end, job), the first ``running`` entries,
    and the site's rules (arrays of length 0 when they are off); the pass changes them in
    place."""

    ends: Floats  #: estimated ends
    jobs: Ints  #: job indices
    site: Ints  #: the site's integers (i8; see ``_ORDER`` ...)
    fsite: Floats  #: the site's reals (f8; see ``_HALF`` ...)
    cand: Ints  #: the live queue in the pass's order (i8, scratch)
    key: Floats  #: the order's keys (f8, scratch)
    ujobs: Ints  #: running jobs per user slot (i8)
    uprocs: Ints  #: processors they hold (i8)
    seen: Ints  #: users submitted so far (i8, 0 or 1 per slot)
    done: Floats  #: finished jobs' usage per slot, decayed to ``fsite[_AT]`` (f8)
    rprocs: Floats  #: running jobs' processors per slot (f8)
    rdecayed: Floats  #: and their decayed starts (f8; :class:`~cosched.policies.limits.FairShare`)
    mix: Floats  #: each slot's usage at the pass (f8, scratch)
    nxt: Ints  #: the running jobs in start order: next (i8, slot ``n``: the first)
    prv: Ints  #: and previous (slot ``n``: the last)
    gone_t: Floats  #: when the units removed change (f8)
    gone_v: Ints  #: units removed from then on (i8)


class EasyState(NamedTuple):
    """What EASY's compiled pass keeps between passes."""

    running: int  #: how many jobs run
    epoch: int  #: the completions counted at the last full pass
    blocked: int  #: the head that pass left (-1: none)
    shadow: float  #: its reservation
    extra: int
    window: int  #: the backfill window (-1: the whole queue; 0: FCFS)


_NO_INTS = np.empty(0, dtype=np.int64)
_NO_FLOATS = np.empty(0, dtype=np.float64)


class EasyParams(NamedTuple):
    """EASY's (and FCFS's) compiled pass's parameters."""

    window: int = -1  #: the backfill window (-1: the whole queue; 0: FCFS)
    order: int = 0  #: the queue order's code (:data:`ORDER_CODES`)
    max_jobs: int = -1  #: most running jobs per user (-1: none)
    max_procs: int = -1  #: most processors per user (-1: none)
    half_life: float = 1.0  #: fair-share usage's half-life (s)
    weight: float = 0.0  #: fair-share's weight
    max_age: float = 1.0  #: fair-share's age cap (:data:`FAIRSHARE_MAX_AGE`)
    gone_t: Floats = _NO_FLOATS  #: the unavailability's steps: when the units removed change
    gone_v: Ints = _NO_INTS  #: and the units removed from then on


def easy_init(jobs: Jobs, capacity: int, params: EasyParams) -> tuple[EasyStore, EasyState]:
    """The store and first state of EASY's pass under ``params`` (the site's rules and
    the unavailability's steps included)."""
    n = jobs.submit.shape[0]
    order = max(params.order, 0)
    steps = params.gone_t.shape[0]
    site = np.zeros(12, dtype=np.int64)
    site[_ORDER] = order
    site[_MAXJ] = params.max_jobs
    site[_MAXP] = params.max_procs
    site[_STEPS] = steps
    site[_ACTIVE] = order > 0 or site[_MAXJ] > 0 or site[_MAXP] > 0 or steps > 0
    site[_KEY_ENDS] = -1
    site[_ASKED] = -1
    slots = 0
    if site[_ACTIVE] and jobs.table.shape[1] > _USER:
        for j in range(n):
            slots = max(slots, int(jobs.table[j, _USER]) + 1)
    site[_SLOTS] = slots
    fsite = np.zeros(5, dtype=np.float64)
    fsite[_HALF] = params.half_life
    fsite[_WEIGHT] = params.weight
    fsite[_MAXAGE] = params.max_age
    gone_t = params.gone_t.copy()
    gone_v = params.gone_v.copy()
    m = n if site[_ACTIVE] else 0
    f = n if order == _FAIRSHARE else 0
    nxt = np.full(f + 1, f, dtype=np.int64)
    store = EasyStore(
        np.empty(n, dtype=np.float64), np.empty(n, dtype=np.int64), site, fsite,
        np.empty(m, dtype=np.int64), np.empty(m, dtype=np.float64),
        np.zeros(slots, dtype=np.int64), np.zeros(slots, dtype=np.int64),
        np.zeros(slots, dtype=np.int64), np.zeros(slots, dtype=np.float64),
        np.zeros(slots, dtype=np.float64), np.zeros(slots, dtype=np.float64),
        np.zeros(slots, dtype=np.float64), nxt, nxt.copy(), gone_t, gone_v,
    )  # fmt: skip
    return store, EasyState(0, -1, -1, 0.0, 0, params.window)


def _decay_to(store: EasyStore, now: float) -> None:
    """The finished usage decayed to ``now`` (:meth:`FairShare._decay_to
    <cosched.policies.limits.FairShare>`)."""
    fs = store.fsite
    if now != fs[_AT]:
        factor = 2.0 ** (-(now - fs[_AT]) / fs[_HALF])
        done = store.done
        for u in range(done.shape[0]):
            done[u] *= factor
        fs[_AT] = now


def _site_ended(store: EasyStore, table: Table, start: Floats, j: int, now: float) -> None:
    """The site's rules' part of a completion: the user's running counts, the fair-share
    usage charged (:meth:`FairShare.finished <cosched.policies.limits.FairShare>`)."""
    site = store.site
    u = int(table[j, _USER])
    if u >= 0 and (site[_MAXJ] > 0 or site[_MAXP] > 0):
        store.ujobs[u] -= 1
        store.uprocs[u] -= int(table[j, _PROCS])
    if site[_ORDER] == _FAIRSHARE:
        nxt, prv = store.nxt, store.prv
        a = prv[j]
        b = nxt[j]
        nxt[a] = b
        prv[b] = a
        if u >= 0:
            _decay_to(store, now)
            lam = math.log(2.0) / store.fsite[_HALF]
            p = table[j, _PROCS]
            a = start[j]
            store.done[u] += p / lam * (math.exp(-lam * (now - now)) - math.exp(-lam * (now - a)))


def easy_ended(store: EasyStore, s: EasyState, jobs: Jobs, j: int, now: float) -> EasyState:
    start, table = jobs.start, jobs.table
    running = drop_release(store.ends, store.jobs, s.running, start[j] + jobs.est[j], j)
    if store.site[_ACTIVE]:
        _site_ended(store, table, start, j, now)
    return EasyState(running, s.epoch, s.blocked, s.shadow, s.extra, s.window)


def easy_pass(
    store: EasyStore, s: EasyState, jobs: Jobs, queue: Ints, chosen: Ints, at: Instant
) -> tuple[EasyState, int, int, int, float]:
    """:meth:`EasyBackfilling.schedule` on arrays (and :meth:`Fcfs.schedule
    <cosched.policies.fcfs.Fcfs.schedule>`, a window of 0 jobs).

    A full pass starts jobs in order while the head fits, then gives the head its
    reservation (:func:`shadow_walk`) and backfills the rest of the queue (or
    ``window`` jobs of it) in order (:func:`admit`). With no window, when no job ended
    since the last full pass and that pass left a head, the pass is incremental: only
    the jobs that arrived now are tried against the kept reservation. Under the site's
    rules, :func:`site_pass`.
    """
    size, est, start, table, submit = jobs.size, jobs.est, jobs.start, jobs.table, jobs.submit
    if store.site[_ACTIVE]:
        cols = (size, est, start, table, submit)
        return site_pass(store, s, cols, queue, chosen, at)
    head, tail, free, epoch, now = at.head, at.tail, at.free, at.epoch, at.now
    ends, ids = store.ends, store.jobs
    running, blocked, shadow, extra, window = s.running, s.blocked, s.shadow, s.extra, s.window
    seen_epoch = s.epoch
    k = 0
    if window < 0 and seen_epoch == epoch and blocked >= 0:
        r = at.fresh
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
        if blocked < 0 or window == 0:
            state = EasyState(running, seen_epoch, blocked, shadow, extra, window)
            return state, head, tail, k, math.nan
        shadow, extra = shadow_walk(ends, ids, running, size, free, size[blocked], now)
        r = head + 1
    # backfill queue[r:tail] in order against (shadow, extra), compacting it
    w = r
    seen = 0
    while True:
        j, r, w, seen = window_next(queue, r, tail, w, seen, window, start)
        if j < 0:
            break
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


def _allowed(store: EasyStore, table: Table, j: int) -> bool:
    """Whether ``j``'s user stays within the limits if it starts
    (:meth:`UserLimits.allows <cosched.policies.limits.UserLimits.allows>`)."""
    site = store.site
    u = int(table[j, _USER])
    if u < 0:
        return True
    if site[_MAXJ] > 0 and store.ujobs[u] + 1 > site[_MAXJ]:
        return False
    if site[_MAXP] <= 0:
        return True
    held = store.uprocs[u]
    return held + int(table[j, _PROCS]) <= site[_MAXP] or held == 0


def _take(store: EasyStore, table: Table, j: int) -> None:
    """A start under the site's rules: the user's counts, the running jobs in start
    order."""
    site = store.site
    u = int(table[j, _USER])
    if u >= 0 and (site[_MAXJ] > 0 or site[_MAXP] > 0):
        store.ujobs[u] += 1
        store.uprocs[u] += int(table[j, _PROCS])
    if site[_ORDER] == _FAIRSHARE:
        nxt, prv = store.nxt, store.prv
        last = nxt.shape[0] - 1
        a = prv[last]
        nxt[a] = j
        prv[j] = a
        nxt[j] = last
        prv[last] = j
    site[_STARTS] += 1


def _removed_at(gone_t: Floats, gone_v: Ints, steps: int, now: float) -> tuple[int, int]:
    """The units the unavailability removes at ``now`` and the first step after it."""
    lo = 0
    hi = steps
    while lo < hi:  # the first step later than now
        mid = (lo + hi) // 2
        if gone_t[mid] <= now:
            lo = mid + 1
        else:
            hi = mid
    return (gone_v[lo - 1] if lo > 0 else 0), lo


def _fairshare_keys(
    store: EasyStore, table: Table, submit: Floats, start: Floats, q: int, epoch: int, now: float
) -> None:
    """``-priority`` of the first ``q`` jobs of ``cand`` into ``key``
    (:meth:`FairShare.ordered <cosched.policies.limits.FairShare.ordered>`, the same
    operations in the same order)."""
    site, fs, cand, key = store.site, store.fsite, store.cand, store.key
    lam = math.log(2.0) / fs[_HALF]
    _decay_to(store, now)
    rprocs, rdecayed = store.rprocs, store.rdecayed
    if site[_KEY_ENDS] != epoch or site[_KEY_STARTS] != site[_STARTS]:
        for u in range(rprocs.shape[0]):
            rprocs[u] = 0.0
            rdecayed[u] = 0.0
        nxt = store.nxt
        last = nxt.shape[0] - 1
        j = nxt[last]
        while j != last:
            u = int(table[j, _USER])
            if u >= 0:
                p = table[j, _PROCS]
                rprocs[u] += p
                rdecayed[u] += p * math.exp(-lam * (now - start[j]))
            j = nxt[j]
        site[_KEY_ENDS] = epoch
        site[_KEY_STARTS] = site[_STARTS]
        fs[_REF] = now
    e = math.exp(-lam * (now - fs[_REF]))
    mix, done = store.mix, store.done
    total = 0.0
    for u in range(mix.shape[0]):
        mix[u] = done[u] + (rprocs[u] - e * rdecayed[u]) / lam
        total += mix[u]
    share = 1.0 / max(site[_USERS], 1)
    weight, max_age = fs[_WEIGHT], fs[_MAXAGE]
    for r in range(q):
        j = cand[r]
        u = int(table[j, _USER])
        norm = 0.0
        if total > 0 and u >= 0:
            norm = mix[u] / total
        age = min((now - submit[j]) / max_age, 1.0)
        key[r] = -(age + weight * 2.0 ** (-norm / share))


def site_pass(
    store: EasyStore,
    s: EasyState,
    cols: tuple[Ints, Floats, Floats, Table, Floats],
    queue: Ints,
    chosen: Ints,
    at: Instant,
) -> tuple[EasyState, int, int, int, float]:
    """A full pass under the site's rules (the general loop's :meth:`EasyBackfilling.
    schedule` and :meth:`Fcfs.schedule <cosched.policies.fcfs.Fcfs.schedule>` with
    them): the live queue sorted in the order (ties by submit order), a job whose user
    is at a limit passed over (never the head), the units the unavailability removes
    now out of the free ones (``min(removed, free)``: drained as they came free) and
    back at their step in the head's reservation; a wake-up asked for at the next step
    of the unavailability."""
    size, est, start, table, submit = cols
    head, tail, free, epoch, now = at.head, at.tail, at.free, at.epoch, at.now
    site, cand, key = store.site, store.cand, store.key
    order, window, steps = site[_ORDER], s.window, site[_STEPS]
    if order == _FAIRSHARE:  # the users submitted so far
        for r in range(at.fresh, tail):
            u = int(table[queue[r], _USER])
            if u >= 0 and store.seen[u] == 0:
                store.seen[u] = 1
                site[_USERS] += 1
    drained = 0
    after = 0
    if steps > 0:
        removed, after = _removed_at(store.gone_t, store.gone_v, steps, now)
        drained = min(removed, free)
        free -= drained
    w = head  # the live queue, in submit order: drop the jobs earlier passes started
    for r in range(head, tail):
        j = queue[r]
        if start[j] != start[j]:
            queue[w] = j
            w += 1
    tail = w
    q = tail - head
    for r in range(q):
        cand[r] = queue[head + r]
    if order != 0 and q > 1:
        if order == _FAIRSHARE:
            _fairshare_keys(store, table, submit, start, q, epoch, now)
        else:
            for r in range(q):
                j = cand[r]
                if order == _SJF:
                    key[r] = est[j]
                elif order == _WFP:
                    key[r] = -(((now - submit[j]) / est[j]) ** 3.0) * size[j]
                else:
                    key[r] = table[j, _RANK]
        perm = np.argsort(key[:q], kind="mergesort")
        for r in range(q):
            cand[r] = queue[head + perm[r]]
    elif order == _FAIRSHARE:  # the usage is decayed and rebuilt at every pass
        _fairshare_keys(store, table, submit, start, q, epoch, now)
    limited = site[_MAXJ] > 0 or site[_MAXP] > 0
    ends, ids = store.ends, store.jobs
    running = s.running
    blocked = -1
    k = 0
    r = 0
    while r < q:  # start in order while the head fits
        j = cand[r]
        r += 1
        if limited and not _allowed(store, table, j):
            continue
        if size[j] > free:
            blocked = j
            break
        free -= size[j]
        chosen[k] = j
        k += 1
        running = insert_release(ends, ids, running, now + est[j], j)
        _take(store, table, j)
    shadow, extra = s.shadow, s.extra
    if blocked >= 0 and window != 0:
        if drained > 0:
            shadow, extra = _shadow_returns(store, running, size, free, size[blocked], now, drained)
        else:
            shadow, extra = shadow_walk(ends, ids, running, size, free, size[blocked], now)
        seen = 0
        while r < q:  # backfill the rest (or window jobs of it) in order
            j = cand[r]
            r += 1
            if window >= 0 and seen >= window:
                break
            seen += 1
            if limited and not _allowed(store, table, j):
                continue
            ok = False
            if size[j] <= free:
                ok, extra = admit(now + est[j], size[j], shadow, extra)
            if ok:
                free -= size[j]
                chosen[k] = j
                k += 1
                running = insert_release(ends, ids, running, now + est[j], j)
                _take(store, table, j)
    wake = math.nan
    if after < steps and after > site[_ASKED]:
        wake = store.gone_t[after]
        site[_ASKED] = after
        site[_WAKES] += 1
    return EasyState(running, epoch, blocked, shadow, extra, window), head, tail, k, wake


def _shadow_returns(
    store: EasyStore, count: int, size: Ints, free: int, need: int, now: float, drained: int
) -> tuple[float, int]:
    """:func:`shadow_walk` over the running jobs' ends merged with the instants at which
    the ``drained`` units out of the machine come back (:meth:`Simulation.returns
    <cosched.engine.simulation.Simulation.returns>`)."""
    ends, ids, gone_t, gone_v = store.ends, store.jobs, store.gone_t, store.gone_v
    steps = gone_t.shape[0]
    _, step = _removed_at(gone_t, gone_v, steps, now)
    left = drained
    avail = free
    shadow = now
    found = False
    a = 0
    while True:
        te = math.inf
        if a < count:
            te = max(ends[a], now)
        tr = math.inf
        back = 0
        while step < steps and left > 0:
            if gone_v[step] < left:
                tr = gone_t[step]
                back = left - gone_v[step]
                break
            step += 1
        if te == math.inf and tr == math.inf:
            break
        if te <= tr:
            e = te
            units = size[ids[a]]
            a += 1
        else:
            e = tr
            units = back
            left = gone_v[step]
            step += 1
        if found and e > shadow:
            break
        avail += units
        if not found and avail >= need:
            found = True
            shadow = e
    return shadow, avail - need


def easy_report(store: EasyStore, state: EasyState, out: Ints, fout: Floats) -> None:
    """The wake-ups the pass asked for at the unavailability's steps (the engine does
    not count them as decisions: the general loop wakes there on its own)."""
    out[0] = store.site[_WAKES]


def site_table(policy: EasyBackfilling | Fcfs, sim: Simulation) -> np.ndarray:
    """The per-job columns the site's rules read (none without them): each job's user
    slot (users numbered by first job, -1: none), processors asked for and queue rank
    (inf: none)."""
    cols = sim.workload.columns
    n = sim.n_jobs
    if not _site_on(policy, sim):
        return np.zeros((n, 0))
    out = np.empty((n, 3))
    nan = np.full(n, np.nan)
    users = np.asarray(cols["user_id"], dtype=np.float64) if "user_id" in cols else nan
    known = users == users
    slot = np.full(n, -1.0)
    if known.any():
        _, first, inverse = np.unique(users[known], return_index=True, return_inverse=True)
        rank = np.argsort(np.argsort(first, kind="stable"), kind="stable")
        slot[known] = rank[inverse]
    out[:, _USER] = slot
    out[:, _PROCS] = np.asarray(cols["procs"], dtype=np.float64)
    ranks = np.asarray(cols["queue"], dtype=np.float64) if "queue" in cols else np.full(n, np.nan)
    out[:, _RANK] = np.where(ranks == ranks, ranks, math.inf)
    return out


def _site_on(policy: EasyBackfilling | Fcfs, sim: Simulation) -> bool:
    return (
        policy.order != "submit"
        or policy.max_jobs_per_user is not None
        or policy.max_procs_per_user is not None
        or bool(sim.platform.unavailable)
    )


def baseline_arguments(
    policy: EasyBackfilling | Fcfs, sim: Simulation, window: int
) -> EasyParams | None:
    """The compiled pass's parameters for an EASY or FCFS instance (``window``: EASY's
    backfill window, -1 the whole queue, 0 none), or None for the ``priority`` order
    (the general loop)."""
    code = ORDER_CODES.get(policy.order)
    if code is None:
        return None
    times, removed = sim.platform.unavailability_steps()
    half = float(getattr(policy, "fairshare_half_life", 1.0))
    weight = float(getattr(policy, "fairshare_weight", 0.0))
    return EasyParams(
        window, code,
        -1 if policy.max_jobs_per_user is None else int(policy.max_jobs_per_user),
        -1 if policy.max_procs_per_user is None else int(policy.max_procs_per_user),
        half, weight, FAIRSHARE_MAX_AGE,
        np.asarray(times, dtype=np.float64), np.asarray(removed, dtype=np.int64),
    )  # fmt: skip


def _easy_arguments(policy: EasyBackfilling, sim: Simulation) -> EasyParams | None:
    return baseline_arguments(policy, sim, -1 if policy.window is None else int(policy.window))


EASY_PASS = CompiledPass(
    name="easy",
    init=easy_init,
    schedule=easy_pass,
    ended=easy_ended,
    report=easy_report,
    arguments=_easy_arguments,
    params=EasyParams,
    table=site_table,
    helpers=(
        _release_slot,
        insert_release,
        drop_release,
        shadow_walk,
        admit,
        window_next,
        _decay_to,
        _site_ended,
        _allowed,
        _take,
        _removed_at,
        _fairshare_keys,
        _shadow_returns,
        site_pass,
    ),
    drains=True,
    reports=1,
)
