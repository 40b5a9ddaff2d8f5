"""The compiled event loop: the engine's instants over job columns, with the policy's
pass plugged in.

:func:`event_loop` does what the general loop (:mod:`cosched.engine.simulation`) does,
step for step, for a policy that supplies a *compiled pass*
(:meth:`Policy.compiled_pass <cosched.policies.base.Policy.compiled_pass>`, a
:class:`CompiledPass`), so the schedules and counters are the same bit for bit
(``tests/engine/test_fastpath.py``, ``tests/lomarc/test_fast.py``):

* one instant at a time, at the earliest of the next submission, the next completion
  and the next wake-up;
* completions, in (end, start order), each told to the policy (``ended``); with rate
  changes, an entry of an earlier plan of a job is stale and only makes an instant;
* submissions, appended to the queue in submit order;
* wake-ups due, dropped;
* one scheduling pass (skipped when the queue is empty, unless the policy passes at
  every instant): the policy picks the jobs to start, in decision order, and may ask
  for a wake-up; the loop starts them (a job's end is ``start + run``, the engine's
  floating-point operation) and counts the decisions;
* for a pass with a ``rates`` hook, the rate changes it names, in its order, as
  :meth:`Simulation.set_rate <cosched.engine.simulation.Simulation.set_rate>` makes
  them: the work done so far kept, the completion re-planned at the new rate, the
  believed end (``est_end``) moved; asked after every pass, and after an instant
  without a pass at which jobs ended (the general loop asks its rate model then too).

The loop's state is named: the job columns (:class:`Jobs`: inputs, the policy's own
per-job inputs, outputs and progress), the completion heap (:class:`Completions`) and
the queue (an array of job indices with its live range ``queue[head:tail]``, which a
pass may compact). A policy's pass owns its own state, a named tuple it builds in
``init`` and returns, updated, from each call, and its fixed arrays (its *store*),
which it changes in place (kept apart from the state so that a pass does not hand
arrays back and forth: numba counts references to every array it returns, which would
cost EASY's loop some 15 %).

The source is plain Python over numpy arrays. :func:`event_loop_for` builds the loop
for one pass: the loop it returns closes over the pass's functions and calls them as
any function calls another, plain Python as it is, or compiled by numba
(:func:`~cosched.engine.compiled.bound_loop`; the same source, the same results). The
pass's functions' signatures are declared once here (:data:`Init`, :data:`Schedule`,
:data:`Ended`, :data:`Rates`, :data:`Report`; mypy checks every pass against them
through :class:`~cosched.engine.compiled.CompiledPass`), and so are the arrays they
take (:data:`Ints`, :data:`Floats`, :data:`Table`; for a pass's own arrays also
:data:`IntTable` and :data:`Bools`) and the instant's numbers (:class:`Instant`).
Whether the pass changes rates or passes at idle instants are constants of each loop,
so a loop without rate changes compiles none of their code.
Nothing here knows a policy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = [
    "Bools",
    "Completions",
    "Ended",
    "EventLoop",
    "Floats",
    "Init",
    "Instant",
    "IntTable",
    "Ints",
    "Jobs",
    "Rates",
    "Report",
    "Schedule",
    "Table",
    "event_loop_for",
    "heap_pop",
    "heap_push",
    "no_rates",
]

#: An int64 vector (C-contiguous where the loop builds it): job indices, sizes, counters.
Ints: TypeAlias = npt.NDArray[np.int64]
#: A float64 vector: times, rates, real-valued counters.
Floats: TypeAlias = npt.NDArray[np.float64]
#: A float64 matrix, one row per job: a pass's own per-job columns (also a pass's other
#: real-valued tables).
Table: TypeAlias = npt.NDArray[np.float64]
#: An int64 array of two or more dimensions: a pass's integer tables (rows of per-job or
#: per-node integers, a grid of job indices).
IntTable: TypeAlias = npt.NDArray[np.int64]
#: A bool array: a pass's per-job or per-node flags.
Bools: TypeAlias = npt.NDArray[np.bool_]


class Jobs(NamedTuple):
    """The job columns in submit order: inputs, the schedule the loop fills in, and the
    progress of the running jobs."""

    submit: Floats  #: submit times
    run: Floats  #: run times at rate 1
    est: Floats  #: what the scheduler believes run times are
    size: Ints  #: units each job takes
    table: Table  #: the policy's own per-job columns, one row per job (f8, 2-D; may be 0
    #: wide): its inputs, and outputs it writes (handed back to its ``absorb``)
    start: Floats  #: output: start times (NaN until started)
    end: Floats  #: output: end times
    order: Ints  #: output: the jobs in start order
    placed: Ints  #: output: the node of each unit a job ran on, ``size[j]`` from
    #: ``sum(size[:j])`` (written by a pass that places its jobs, left as is by one
    #: that does not)
    rate: Floats  #: progress rates of running jobs (1 unless the pass changes them)
    est_end: Floats  #: when the scheduler believes each running job ends (kept by a
    #: loop with rate changes, where it moves with the rate)


class Completions(NamedTuple):
    """The running jobs as a binary min-heap of (end, start sequence), with the job."""

    time: Floats  #: end times
    seq: Ints  #: start sequence numbers, the tie-break
    job: Ints  #: job indices


class Instant(NamedTuple):
    """The loop's numbers at one instant, as a pass's ``schedule`` and ``rates`` take
    them: numbers only (numba hands a record of numbers over as values, where it counts
    a reference to each array of a record at every call)."""

    now: float  #: the instant
    head: int  #: ``queue[head:tail]``: the queued jobs (a pass may leave started ones in)
    tail: int
    fresh: int  #: the jobs that arrived at this instant are ``queue[fresh:tail]``
    free: int  #: units free
    epoch: int  #: completions so far
    ended: int  #: jobs that ended at this instant: ``turn[:ended]`` (``rates``)
    started: int  #: jobs started at this instant: ``turn[ended:ended + started]``
    #: (``rates``; 0 for ``schedule``, which starts them)


# -- a pass's functions, declared once ---------------------------------------------------

#: A pass's fixed arrays (changed in place) and its state (replaced at each call).
Store = TypeVar("Store")
State = TypeVar("State")
#: A pass's parameters: a named tuple of numbers (and arrays), read by name.
Params = TypeVar("Params")

#: ``init(jobs, capacity, params) -> (store, state)``.
Init: TypeAlias = Callable[[Jobs, int, Params], tuple[Store, State]]
#: ``schedule(store, state, jobs, queue, chosen, at) -> (state, head, tail, k, wake)``:
#: one pass at ``at.now`` (see :class:`~cosched.engine.compiled.CompiledPass`).
Schedule: TypeAlias = Callable[
    [Store, State, Jobs, Ints, Ints, "Instant"], tuple[State, int, int, int, float]
]
#: ``ended(store, state, jobs, j, now) -> state``: job ``j`` completed.
Ended: TypeAlias = Callable[[Store, State, Jobs, int, float], State]
#: ``rates(store, state, jobs, turn, who, rates, at) -> (state, m)``: the rate changes
#: after the starts of an instant (see :class:`~cosched.engine.compiled.CompiledPass`).
Rates: TypeAlias = Callable[[Store, State, Jobs, Ints, Ints, Floats, "Instant"], tuple[State, int]]
#: ``report(store, state, out, fout)``: the pass's counters.
Report: TypeAlias = Callable[[Store, State, Ints, Floats], None]
#: The loop with a pass bound: ``loop(submit, run, est, size, table, capacity, params,
#: start, end, order, placed, stats, fstats)``.
EventLoop: TypeAlias = Callable[
    [Floats, Floats, Floats, Ints, Table, int, Any, Floats, Floats, Ints, Ints, Ints, Floats],
    None,
]


def heap_push(heap: Completions, n: int, t: float, s: int, j: int) -> int:
    """Push job ``j`` ending at ``t`` (sequence ``s``) on a heap of ``n``; the new size."""
    ht, hs, hj = heap.time, heap.seq, heap.job
    c = n
    while c > 0:
        p = (c - 1) // 2
        if t < ht[p] or (t == ht[p] and s < hs[p]):
            ht[c] = ht[p]
            hs[c] = hs[p]
            hj[c] = hj[p]
            c = p
        else:
            break
    ht[c] = t
    hs[c] = s
    hj[c] = j
    return n + 1


def heap_pop(heap: Completions, n: int) -> int:
    """Drop the root of a heap of ``n``; the new size."""
    ht, hs, hj = heap.time, heap.seq, heap.job
    n -= 1
    if n == 0:
        return 0
    lt = ht[n]
    ls = hs[n]
    lj = hj[n]
    p = 0
    while True:
        c = 2 * p + 1
        if c >= n:
            break
        if c + 1 < n and (ht[c + 1] < ht[c] or (ht[c + 1] == ht[c] and hs[c + 1] < hs[c])):
            c += 1
        if ht[c] < lt or (ht[c] == lt and hs[c] < ls):
            ht[p] = ht[c]
            hs[p] = hs[c]
            hj[p] = hj[c]
            p = c
        else:
            break
    ht[p] = lt
    hs[p] = ls
    hj[p] = lj
    return n


def _wake_push(wakes: Floats, n: int, t: float) -> Floats:
    """Push ``t`` on the wake-up min-heap of ``n`` (grown when full); the heap."""
    if n == wakes.shape[0]:
        bigger = np.empty(2 * n + 1, dtype=np.float64)
        bigger[:n] = wakes[:n]
        wakes = bigger
    c = n
    while c > 0:
        p = (c - 1) // 2
        if t < wakes[p]:
            wakes[c] = wakes[p]
            c = p
        else:
            break
    wakes[c] = t
    return wakes


def _wake_pop(wakes: Floats, n: int) -> int:
    """Drop the root of the wake-up heap of ``n``; the new size."""
    n -= 1
    if n == 0:
        return 0
    lw = wakes[n]
    p = 0
    while True:
        c = 2 * p + 1
        if c >= n:
            break
        if c + 1 < n and wakes[c + 1] < wakes[c]:
            c += 1
        if wakes[c] < lw:
            wakes[p] = wakes[c]
            p = c
        else:
            break
    wakes[p] = lw
    return n


def _heap_grow(heap: Completions) -> Completions:
    """The heap with twice the room (a loop with rate changes keeps stale entries)."""
    m = heap.time.shape[0]
    t = np.empty(2 * m + 1, dtype=np.float64)
    s = np.empty(2 * m + 1, dtype=np.int64)
    j = np.empty(2 * m + 1, dtype=np.int64)
    t[:m] = heap.time
    s[:m] = heap.seq
    j[:m] = heap.job
    return Completions(t, s, j)


def _scratch(
    n: int, rates: bool
) -> tuple[Completions, Ints, Ints, Floats, Floats, Floats, Ints, Ints, Ints, Floats]:
    """The loop's own arrays for ``n`` jobs: the completion heap, the queue, the pass's
    chosen jobs, the wake-up heap; and, with rate changes (``rates``; else empty), the
    work done by each job at its last change, when that was, the sequence number of its
    one live completion entry (the others are stale), the jobs that ended at an instant
    then those that started at it (``turn``: at most ``n``, each job ends once) and the
    pass's rate changes (the jobs and their new rates)."""
    m = n if rates else 0
    heap = Completions(
        np.empty(n + 1, dtype=np.float64),
        np.empty(n + 1, dtype=np.int64),
        np.empty(n + 1, dtype=np.int64),
    )
    return (
        heap,
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=np.int64),
        np.empty(16, dtype=np.float64),
        np.zeros(m, dtype=np.float64),
        np.zeros(m, dtype=np.float64),
        np.zeros(m, dtype=np.int64),
        np.empty(m, dtype=np.int64),
        np.empty(m, dtype=np.int64),
        np.empty(m, dtype=np.float64),
    )


def no_rates(
    store: object, state: State, jobs: Jobs, turn: Ints, who: Ints, rates: Floats, at: Instant
) -> tuple[State, int]:
    """The rates hook of a pass whose jobs all run at rate 1: no change."""
    return state, 0


def event_loop_for(
    init: Init[Params, Store, State],
    schedule: Schedule[Store, State],
    ended: Ended[Store, State],
    report: Report[Store, State],
    rates: Rates[Store, State] | None = None,
    *,
    idle_passes: bool = False,
    idle_calls: bool = True,
    callee: Callable[[Callable[..., Any]], Callable[..., Any]] = lambda f: f,
) -> EventLoop:
    """The event loop with a pass's functions bound: :func:`event_loop <event_loop_for>`
    calling ``init``, ``schedule``, ``ended``, ``rates`` (None: every job runs at rate
    1, and the loop makes no rate changes) and ``report``.

    ``idle_passes``: the pass runs at instants with an empty queue (each counts as a
    pass); with it, ``idle_calls``: such a pass calls ``schedule`` (False: the loop only
    counts it). The flags are constants of the loop returned, so that a loop without
    rate changes compiles none of their code.

    ``callee``: each function the loop calls (the pass's and the loop's own heap steps)
    as the loop calls it: itself, for the loop as plain Python; compiled and inlined,
    for the loop numba compiles (:func:`cosched.engine.compiled.bound_loop`).
    """
    policy_init, policy_pass = callee(init), callee(schedule)
    policy_ended, policy_report = callee(ended), callee(report)
    policy_rates = callee(no_rates if rates is None else rates)
    push, pop, grow = callee(heap_push), callee(heap_pop), callee(_heap_grow)
    wake_push, wake_pop, scratch = callee(_wake_push), callee(_wake_pop), callee(_scratch)
    RATES = rates is not None  # constants of each loop
    IDLE_PASSES = idle_passes
    IDLE_CALLS = idle_passes and idle_calls

    def event_loop(
        submit: Floats,
        run: Floats,
        est: Floats,
        size: Ints,
        table: Table,
        capacity: int,
        params: Params,
        start: Floats,
        end: Floats,
        order: Ints,
        placed: Ints,
        stats: Ints,
        fstats: Floats,
    ) -> None:
        """Simulate the bound policy on the columns; fill ``start``, ``end`` and ``order``.

        Args:
            submit, run, est, size: per-job columns in submit order (``est``: what the
                scheduler believes; ``size`` in units).
            table: the policy's per-job inputs (one row per job, f8; 0 columns if none).
            capacity: units in the machine.
            params: the pass's parameters (a named tuple), as its ``init`` reads them.
            start, end: outputs, NaN on entry.
            order: output, the jobs in start order.
            placed: output of a pass that places its jobs (:attr:`Jobs.placed`).
            stats: output ``[passes, decisions, started, rate changes, *the policy's
                counters]``.
            fstats: output, the policy's real-valued counters.
        """
        n = submit.shape[0]
        rate = np.ones(n, dtype=np.float64)
        est_end = np.full(n, np.nan)
        jobs = Jobs(submit, run, est, size, table, start, end, order, placed, rate, est_end)
        heap, queue, chosen, wakes, done, upd, live, turn, who, new_rates = scratch(n, RATES)
        ht, hs, hj = heap.time, heap.seq, heap.job
        store, state = policy_init(jobs, capacity, params)
        free = capacity
        nxt = 0  # the next job to arrive
        head = tail = 0  # queue[head:tail]: the queued jobs (a pass may leave started ones)
        queued = 0  # jobs really queued
        nheap = nwake = 0  # the heaps' sizes
        seq = 0  # the last start's or rate change's sequence number
        epoch = 0  # completions so far
        passes = decisions = started = changes = 0  # the engine's counters
        inf = math.inf
        while True:
            t = submit[nxt] if nxt < n else inf
            if nheap > 0 and ht[0] < t:
                t = ht[0]
            if nwake > 0 and wakes[0] < t:
                t = wakes[0]
            if t == inf:
                break
            now = t
            # -- completions, in (end, start order) --
            nended = 0
            while nheap > 0 and ht[0] <= now:
                j = hj[0]
                s = hs[0]
                nheap = pop(heap, nheap)
                if RATES:
                    if s != live[j]:
                        continue  # re-planned since: a stale entry
                    end[j] = now
                    turn[nended] = j
                nended += 1
                free += size[j]
                epoch += 1
                state = policy_ended(store, state, jobs, j, now)
            # -- submissions --
            fresh = tail  # the jobs arriving now are queue[fresh:tail]
            while nxt < n and submit[nxt] <= now:
                queue[tail] = nxt
                tail += 1
                queued += 1
                nxt += 1
            # -- wake-ups due --
            while nwake > 0 and wakes[0] <= now:
                nwake = wake_pop(wakes, nwake)
            k = 0
            if queued == 0 and IDLE_PASSES and not IDLE_CALLS:
                passes += 1  # counted, not called: the pass does nothing on an empty queue
                if not RATES or nended == 0:
                    continue
            elif queued > 0 or IDLE_PASSES:
                passes += 1
                # -- the policy's pass, then its starts in decision order --
                at = Instant(now, head, tail, fresh, free, epoch, nended, 0)
                state, head, tail, k, wake = policy_pass(store, state, jobs, queue, chosen, at)
                for c in range(k):
                    j = chosen[c]
                    free -= size[j]
                    queued -= 1
                    start[j] = now
                    order[started + c] = j
                    seq += 1
                    if RATES:
                        turn[nended + c] = j
                        est_end[j] = now + est[j]
                        if nheap == ht.shape[0]:
                            heap = grow(heap)
                            ht, hs, hj = heap.time, heap.seq, heap.job
                        live[j] = seq
                        upd[j] = now
                    else:
                        end[j] = now + run[j]
                    nheap = push(heap, nheap, now + run[j], seq, j)
                decisions += k
                started += k
                if wake == wake:  # a wake-up asked for (not NaN)
                    decisions += 1
                    wakes = wake_push(wakes, nwake, wake)
                    nwake += 1
            elif not RATES or nended == 0:
                continue
            if RATES:
                # -- rate changes: the pass's new rates, each job's completion re-planned --
                at = Instant(now, head, tail, fresh, free, epoch, nended, k)
                state, nr = policy_rates(store, state, jobs, turn, who, new_rates, at)
                for c in range(nr):
                    j = who[c]
                    r = new_rates[c]
                    done[j] += (now - upd[j]) * rate[j]
                    upd[j] = now
                    rate[j] = r
                    seq += 1
                    live[j] = seq
                    if nheap == ht.shape[0]:
                        heap = grow(heap)
                        ht, hs, hj = heap.time, heap.seq, heap.job
                    nheap = push(heap, nheap, now + max(run[j] - done[j], 0.0) / r, seq, j)
                    est_end[j] = now + max(est[j] - done[j], 0.0) / r
                changes += nr
        stats[0], stats[1], stats[2], stats[3] = passes, decisions, started, changes
        policy_report(store, state, stats[4:], fstats)

    return event_loop
