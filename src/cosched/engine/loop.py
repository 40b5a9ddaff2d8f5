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

The source is plain Python over numpy arrays:
:func:`~cosched.engine.compiled.bound_loop` binds a pass's functions into a copy of the
loop, compiled by numba or left as plain Python (the same source, the same results); the
flags :data:`IDLE_PASSES` and :data:`RATES` are
constants of each copy, so a loop without rate changes compiles none of their code.
Nothing here knows a policy.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Completions", "Jobs", "event_loop", "heap_pop", "heap_push"]


class Jobs(NamedTuple):
    """The job columns in submit order: inputs, the schedule the loop fills in, and the
    progress of the running jobs."""

    submit: Any  #: submit times (f8)
    run: Any  #: run times at rate 1 (f8)
    est: Any  #: what the scheduler believes run times are (f8)
    size: Any  #: units each job takes (i8)
    table: Any  #: the policy's own per-job columns, one row per job (f8, 2-D; may be 0
    #: wide): its inputs, and outputs it writes (handed back to its ``absorb``)
    start: Any  #: output: start times (f8, NaN until started)
    end: Any  #: output: end times (f8)
    order: Any  #: output: the jobs in start order (i8)
    placed: Any  #: output: the node of each unit a job ran on, ``size[j]`` from
    #: ``sum(size[:j])`` (i8; written by a pass that places its jobs, left as is by one
    #: that does not)
    rate: Any  #: progress rates of running jobs (f8; 1 unless the pass changes them)
    est_end: Any  #: when the scheduler believes each running job ends (f8; kept by a
    #: loop with rate changes, where it moves with the rate)


class Completions(NamedTuple):
    """The running jobs as a binary min-heap of (end, start sequence), with the job."""

    time: Any  #: end times (f8)
    seq: Any  #: start sequence numbers, the tie-break (i8)
    job: Any  #: job indices (i8)


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


def _wake_push(wakes: Any, n: int, t: float) -> Any:
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


def _wake_pop(wakes: Any, n: int) -> int:
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


def no_rates(
    store: Any,
    state: Any,
    jobs: Jobs,
    ended: Any,
    nended: int,
    chosen: Any,
    k: int,
    now: float,
    who: Any,
    rates: Any,
) -> tuple[Any, int]:
    """The rates hook of a pass whose jobs all run at rate 1: no change."""
    return state, 0


# The pass's functions and flags, bound in each copy of the loop
# (cosched.engine.compiled.bound_loop).
def policy_init(jobs: Jobs, capacity: int, iparams: Any, fparams: Any) -> tuple[Any, Any]:
    raise NotImplementedError  # pragma: no cover - replaced in every bound copy


def policy_ended(store: Any, state: Any, jobs: Jobs, j: int, now: float) -> Any:
    raise NotImplementedError  # pragma: no cover


def policy_pass(
    store: Any,
    state: Any,
    jobs: Jobs,
    queue: Any,
    head: int,
    tail: int,
    fresh: int,
    free: int,
    epoch: int,
    now: float,
    chosen: Any,
) -> tuple[Any, int, int, int, float]:
    raise NotImplementedError  # pragma: no cover


def policy_rates(
    store: Any,
    state: Any,
    jobs: Jobs,
    ended: Any,
    nended: int,
    chosen: Any,
    k: int,
    now: float,
    who: Any,
    rates: Any,
) -> tuple[Any, int]:
    raise NotImplementedError  # pragma: no cover


def policy_report(store: Any, state: Any, out: Any, fout: Any) -> None:
    raise NotImplementedError  # pragma: no cover


IDLE_PASSES = False
IDLE_CALLS = False
RATES = False


def event_loop(
    submit: Any,
    run: Any,
    est: Any,
    size: Any,
    table: Any,
    capacity: int,
    iparams: Any,
    fparams: Any,
    start: Any,
    end: Any,
    order: Any,
    placed: Any,
    stats: Any,
    fstats: Any,
) -> None:
    """Simulate the bound policy on the columns; fill ``start``, ``end`` and ``order``.

    Args:
        submit, run, est, size: per-job columns in submit order (``est``: what the
            scheduler believes; ``size`` in units).
        table: the policy's per-job inputs (one row per job, f8; 0 columns if none).
        capacity: units in the machine.
        iparams, fparams: the policy's parameters, as its ``init`` reads them.
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
    heap = Completions(
        np.empty(n + 1, dtype=np.float64),
        np.empty(n + 1, dtype=np.int64),
        np.empty(n + 1, dtype=np.int64),
    )
    ht, hs, hj = heap.time, heap.seq, heap.job
    queue = np.empty(n, dtype=np.int64)
    chosen = np.empty(n, dtype=np.int64)
    wakes = np.empty(16, dtype=np.float64)
    # With rate changes: the work done by each job at its last change, when that was,
    # the sequence number of its one live completion entry (the others are stale), the
    # jobs that ended at this instant and the pass's rate changes.
    m = n if RATES else 0
    done = np.zeros(m, dtype=np.float64)
    upd = np.zeros(m, dtype=np.float64)
    live = np.zeros(m, dtype=np.int64)
    ended = np.empty(m, dtype=np.int64)
    who = np.empty(m, dtype=np.int64)
    new_rates = np.empty(m, dtype=np.float64)
    store, state = policy_init(jobs, capacity, iparams, fparams)
    free = capacity
    nxt = 0  # the next job to arrive
    head = 0  # queue[head:tail]: the queued jobs (passes may leave started ones behind)
    tail = 0
    queued = 0  # jobs really queued
    nheap = 0
    nwake = 0
    seq = 0
    epoch = 0  # completions so far
    passes = 0
    decisions = 0
    started = 0
    changes = 0
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
            nheap = heap_pop(heap, nheap)
            if RATES:
                if s != live[j]:
                    continue  # re-planned since: a stale entry
                end[j] = now
                ended[nended] = j
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
            nwake = _wake_pop(wakes, nwake)
        k = 0
        if queued == 0 and IDLE_PASSES and not IDLE_CALLS:
            passes += 1  # counted, not called: the pass does nothing on an empty queue
            if not RATES or nended == 0:
                continue
        elif queued > 0 or IDLE_PASSES:
            passes += 1
            # -- the policy's pass, then its starts in decision order --
            state, head, tail, k, wake = policy_pass(
                store, state, jobs, queue, head, tail, fresh, free, epoch, now, chosen
            )
            for c in range(k):
                j = chosen[c]
                free -= size[j]
                queued -= 1
                start[j] = now
                order[started + c] = j
                seq += 1
                if RATES:
                    est_end[j] = now + est[j]
                    if nheap == ht.shape[0]:
                        heap = _heap_grow(heap)
                        ht, hs, hj = heap.time, heap.seq, heap.job
                    live[j] = seq
                    upd[j] = now
                else:
                    end[j] = now + run[j]
                nheap = heap_push(heap, nheap, now + run[j], seq, j)
            decisions += k
            started += k
            if wake == wake:  # a wake-up asked for (not NaN)
                decisions += 1
                wakes = _wake_push(wakes, nwake, wake)
                nwake += 1
        elif not RATES or nended == 0:
            continue
        if RATES:
            # -- rate changes: the pass's new rates, each job's completion re-planned --
            state, nr = policy_rates(
                store, state, jobs, ended, nended, chosen, k, now, who, new_rates
            )
            for c in range(nr):
                j = who[c]
                r = new_rates[c]
                done[j] += (now - upd[j]) * rate[j]
                upd[j] = now
                rate[j] = r
                seq += 1
                live[j] = seq
                if nheap == ht.shape[0]:
                    heap = _heap_grow(heap)
                    ht, hs, hj = heap.time, heap.seq, heap.job
                nheap = heap_push(heap, nheap, now + max(run[j] - done[j], 0.0) / r, seq, j)
                est_end[j] = now + max(est[j] - done[j], 0.0) / r
            changes += nr
    stats[0] = passes
    stats[1] = decisions
    stats[2] = started
    stats[3] = changes
    policy_report(store, state, stats[4:], fstats)
