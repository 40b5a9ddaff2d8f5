"""The fast path's event loop for conservative backfilling, over job columns.

:func:`conservative_loop` does what the general engine does with
:class:`~cosched.policies.conservative.ConservativeBackfilling` (submit order), step for
step, on the same profile kernels (:mod:`cosched.policies._profile_kernels`) called with
the same arguments in the same order, so the schedules are the same bit for bit:

* every instant (completions, submissions, then one pass; the policy passes also when
  the queue is empty, and at the wake-ups it asks for);
* the first pass builds the profile (the units free now); later passes drop the past
  (``advance``), give back the units of jobs that ended before their estimate (``add``
  from now to the planned end, in completion order), compress the reservations in queue
  order and ``coalesce``; then the arrivals are reserved in order (``reserve``); then
  the jobs whose reservation has come start, in queue order, and a wake-up is asked for
  at the next reservation if no event would bring it.

Only for workloads in which no job outlives its estimate (run time <= estimate): then
no running job is ever past its estimated end, so the policy never rebuilds its profile
after the first pass and never delays a reservation; the fast path checks this and
leaves the other workloads to the general loop. Compiled with numba like the profile
kernels (``cache=True``); with ``NUMBA_DISABLE_JIT=1`` it runs as plain Python.
"""

from __future__ import annotations

import math

import numpy as np

from cosched.policies._profile_kernels import _jit, add, advance, coalesce, compress, reserve

__all__ = ["conservative_loop"]


@_jit
def _grow(times: np.ndarray, free: np.ndarray, n: int, need: int) -> tuple[np.ndarray, np.ndarray]:
    """Arrays with room for ``need`` more segments (the same ones if they have it)."""
    cap = times.shape[0]
    if n + need <= cap:
        return times, free
    cap = max(n + need, 2 * cap)
    t2 = np.zeros(cap, dtype=np.float64)
    f2 = np.zeros(cap, dtype=np.int64)
    t2[:n] = times[:n]
    f2[:n] = free[:n]
    return t2, f2


@_jit
def conservative_loop(
    submit: np.ndarray,
    run: np.ndarray,
    est: np.ndarray,
    size: np.ndarray,
    capacity: int,
    start: np.ndarray,
    end: np.ndarray,
    stats: np.ndarray,
) -> None:
    """Simulate conservative backfilling (submit order); fills ``start`` and ``end``.

    ``stats`` receives ``[passes, decisions, started, delayed]``.
    """
    n = submit.shape[0]
    queue = np.empty(n, dtype=np.int64)
    res = np.full(n, np.nan)  # reserved start of each queued job (NaN: none)
    planned = np.zeros(n, dtype=np.float64)  # planned end of each running job
    heap_t = np.empty(n, dtype=np.float64)
    heap_s = np.empty(n, dtype=np.int64)
    heap_i = np.empty(n, dtype=np.int64)
    wakes = np.empty(n + 1, dtype=np.float64)  # a min-heap of wake-up times
    ended_t = np.empty(n, dtype=np.float64)
    ended_s = np.empty(n, dtype=np.int64)
    sel_s = np.empty(n, dtype=np.int64)
    sel_d = np.empty(n, dtype=np.float64)
    sel_t = np.empty(n, dtype=np.float64)
    sel_i = np.empty(n, dtype=np.int64)
    times = np.zeros(64, dtype=np.float64)
    pfree = np.zeros(64, dtype=np.int64)
    pn = 0
    have_profile = False
    free = capacity
    nxt = 0
    qh = 0
    qt = 0
    nheap = 0
    nwake = 0
    seq = 0
    last_wake = -math.inf
    passes = 0
    decisions = 0
    started = 0
    delayed = 0
    inf = math.inf
    while True:
        t = submit[nxt] if nxt < n else inf
        if nheap > 0 and heap_t[0] < t:
            t = heap_t[0]
        if nwake > 0 and wakes[0] < t:
            t = wakes[0]
        if t == inf:
            break
        now = t
        # -- completions, in (end, start order) --
        ne = 0
        while nheap > 0 and heap_t[0] <= now:
            j = heap_i[0]
            nheap -= 1
            if nheap > 0:
                lt = heap_t[nheap]
                ls = heap_s[nheap]
                li = heap_i[nheap]
                p = 0
                while True:
                    c = 2 * p + 1
                    if c >= nheap:
                        break
                    if c + 1 < nheap and (
                        heap_t[c + 1] < heap_t[c]
                        or (heap_t[c + 1] == heap_t[c] and heap_s[c + 1] < heap_s[c])
                    ):
                        c += 1
                    if heap_t[c] < lt or (heap_t[c] == lt and heap_s[c] < ls):
                        heap_t[p] = heap_t[c]
                        heap_s[p] = heap_s[c]
                        heap_i[p] = heap_i[c]
                        p = c
                    else:
                        break
                heap_t[p] = lt
                heap_s[p] = ls
                heap_i[p] = li
            free += size[j]
            ended_t[ne] = planned[j]
            ended_s[ne] = size[j]
            ne += 1
        # -- submissions --
        fresh = qt
        while nxt < n and submit[nxt] <= now:
            queue[qt] = nxt
            qt += 1
            nxt += 1
        # -- wake-ups due --
        while nwake > 0 and wakes[0] <= now:
            nwake -= 1
            if nwake > 0:
                lw = wakes[nwake]
                p = 0
                while True:
                    c = 2 * p + 1
                    if c >= nwake:
                        break
                    if c + 1 < nwake and wakes[c + 1] < wakes[c]:
                        c += 1
                    if wakes[c] < lw:
                        wakes[p] = wakes[c]
                        p = c
                    else:
                        break
                wakes[p] = lw
        passes += 1
        # -- the policy's pass --
        if not have_profile:
            # nothing runs yet at the first instant: the profile is the free units
            have_profile = True
            pn = 1
            times[0] = now
            pfree[0] = free
        else:
            pn = advance(times, pfree, pn, now)
            for k in range(ne):
                if ended_t[k] > now:
                    times, pfree = _grow(times, pfree, pn, 2)
                    pn = add(times, pfree, pn, now, ended_t[k] - now, ended_s[k])
            if ne > 0:
                m = 0
                for r in range(qh, fresh):
                    j = queue[r]
                    if res[j] == res[j]:  # queued and reserved (not started)
                        sel_i[m] = j
                        sel_s[m] = size[j]
                        sel_d[m] = est[j]
                        sel_t[m] = res[j]
                        m += 1
                if m > 0:
                    times, pfree = _grow(times, pfree, pn, 4 * m)
                    pn, moved = compress(times, pfree, pn, now, sel_s[:m], sel_d[:m], sel_t[:m])
                    delayed += moved
                    for k in range(m):
                        res[sel_i[k]] = sel_t[k]
                pn = coalesce(times, pfree, pn)
        m = qt - fresh
        if m > 0:
            for k in range(m):
                j = queue[fresh + k]
                sel_s[k] = size[j]
                sel_d[k] = est[j]
            times, pfree = _grow(times, pfree, pn, 2 * m)
            pn = reserve(times, pfree, pn, sel_s[:m], sel_d[:m], sel_t[:m])
            for k in range(m):
                res[queue[fresh + k]] = sel_t[k]
        # -- start the jobs whose reservation has come (queue compacted on the way) --
        following = inf
        w = qh
        for r in range(qh, qt):
            j = queue[r]
            if res[j] <= now and size[j] <= free:
                free -= size[j]
                res[j] = np.nan
                planned[j] = now + est[j]
                decisions += 1
                started += 1
                start[j] = now
                end[j] = now + run[j]
                seq += 1
                c = nheap
                nheap += 1
                et = end[j]
                while c > 0:
                    p = (c - 1) // 2
                    if et < heap_t[p] or (et == heap_t[p] and seq < heap_s[p]):
                        heap_t[c] = heap_t[p]
                        heap_s[c] = heap_s[p]
                        heap_i[c] = heap_i[p]
                        c = p
                    else:
                        break
                heap_t[c] = et
                heap_s[c] = seq
                heap_i[c] = j
                continue
            if res[j] < following:
                following = res[j]
            queue[w] = j
            w += 1
        qt = w
        if now < following < inf and following != last_wake:
            last_wake = following
            decisions += 1
            if nwake == wakes.shape[0]:
                bigger = np.empty(2 * nwake, dtype=np.float64)
                bigger[:nwake] = wakes
                wakes = bigger
            c = nwake
            nwake += 1
            while c > 0:
                p = (c - 1) // 2
                if following < wakes[p]:
                    wakes[c] = wakes[p]
                    c = p
                else:
                    break
            wakes[c] = following
    stats[0] = passes
    stats[1] = decisions
    stats[2] = started
    stats[3] = delayed
