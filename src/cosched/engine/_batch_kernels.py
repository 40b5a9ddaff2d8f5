"""The fast path's event loop for FCFS and EASY, over job columns.

One function, :func:`batch_loop`, runs a whole FCFS or EASY simulation (submit order)
on plain arrays: it does what the general engine (:mod:`cosched.engine.simulation`) does
with :class:`~cosched.policies.fcfs.Fcfs` or
:class:`~cosched.policies.easy.EasyBackfilling`, step for step, so the schedules are the
same bit for bit (the differential tests in ``tests/engine/test_fastpath.py`` hold it
to that):

* one instant at a time: completions, then submissions, then one scheduling pass,
  skipped when the queue is empty (both policies have ``idle_passes = False``);
* EASY's passes as in the policy: a *full* pass (start in order while the head fits,
  the head's shadow time and extra units from the running jobs' estimated ends, then
  the rest of the queue, or ``window`` jobs of it, backfilled in order), or, when no job
  ended since the last full pass and that pass left a head, the *incremental* pass that
  only tries the jobs that arrived at this instant against the kept reservation (whose
  extra units earlier backfills have consumed);
* a job's end is ``start + run`` and its estimated end ``start + estimate``, the same
  floating-point operations as the engine's.

The function allocates nothing: the caller passes every work array. It is written so
that numba can compile it (``cosched.engine._batch_jit``) and so that it also runs as
plain Python on lists, which is cheaper than importing numba for small workloads.
Nothing here may call another function: a compiled function could not call a plain one.
"""

from __future__ import annotations

from typing import Any

__all__ = ["batch_loop"]

FCFS = 0
EASY = 1


def batch_loop(
    submit: Any,
    run: Any,
    est: Any,
    size: Any,
    capacity: int,
    policy: int,
    window: int,
    start: Any,
    end: Any,
    queue: Any,
    heap_t: Any,
    heap_s: Any,
    heap_i: Any,
    rel_t: Any,
    rel_i: Any,
    stats: Any,
) -> None:
    """Simulate FCFS (``policy`` 0) or EASY (1) with the submit order.

    Args:
        submit, run, est, size: per-job columns in submit order (``est`` is what the
            scheduler believes: requested or exact run times; ``size`` in units).
        capacity: units in the machine.
        window: EASY's backfill window (-1: the whole queue).
        start, end: outputs, one entry per job (filled in).
        queue, heap_t, heap_s, heap_i, rel_t, rel_i: work arrays of length n.
        stats: output ``[passes, decisions, started]``.
    """
    n = len(submit)
    free = capacity
    nxt = 0  # next job to arrive
    qh = 0  # queue[qh:qt] holds the queued jobs (and, lazily, some started ones)
    qt = 0
    queued = 0  # jobs really queued
    nheap = 0
    seq = 0
    nrel = 0  # running jobs, sorted by (estimated end, index), EASY only
    epoch = 0  # completions so far
    seen_epoch = -1  # epoch at EASY's last full pass
    head = -1  # the head that full pass left (-1: none)
    shadow = 0.0
    extra = 0
    passes = 0
    decisions = 0
    started = 0
    inf = float("inf")
    while True:
        t = submit[nxt] if nxt < n else inf
        if nheap > 0 and heap_t[0] < t:
            t = heap_t[0]
        if t == inf:
            break
        now = t
        # -- completions (any order gives the same state) --
        while nheap > 0 and heap_t[0] <= now:
            j = heap_i[0]
            nheap -= 1
            if nheap > 0:
                # sift the last entry down from the root
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
            epoch += 1
            if policy == EASY:
                # drop (estimated end, j) from the sorted releases
                key = start[j] + est[j]
                lo = 0
                hi = nrel
                while lo < hi:
                    mid = (lo + hi) // 2
                    if rel_t[mid] < key or (rel_t[mid] == key and rel_i[mid] < j):
                        lo = mid + 1
                    else:
                        hi = mid
                for k in range(lo, nrel - 1):
                    rel_t[k] = rel_t[k + 1]
                    rel_i[k] = rel_i[k + 1]
                nrel -= 1
        # -- submissions --
        fresh = qt  # jobs arriving now are queue[fresh:qt]
        while nxt < n and submit[nxt] <= now:
            queue[qt] = nxt
            qt += 1
            queued += 1
            nxt += 1
        if queued == 0:
            continue
        passes += 1
        # -- the scheduling pass; a job is started where the policy decides it --
        incremental = policy == EASY and window < 0 and seen_epoch == epoch and head >= 0
        if incremental:
            r = fresh
            last = qt
        else:
            seen_epoch = epoch
            head = -1
            # start in order while the head fits
            while qh < qt:
                j = queue[qh]
                if start[j] == start[j]:  # started by an earlier backfill (not NaN)
                    qh += 1
                    continue
                if size[j] > free:
                    head = j
                    break
                qh += 1
                free -= size[j]
                queued -= 1
                decisions += 1
                started += 1
                start[j] = now
                end[j] = now + run[j]
                seq += 1
                # push (end, seq, j) on the completion heap
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
                if policy == EASY:
                    key = now + est[j]
                    lo = 0
                    hi = nrel
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if rel_t[mid] < key or (rel_t[mid] == key and rel_i[mid] < j):
                            lo = mid + 1
                        else:
                            hi = mid
                    for k in range(nrel, lo, -1):
                        rel_t[k] = rel_t[k - 1]
                        rel_i[k] = rel_i[k - 1]
                    rel_t[lo] = key
                    rel_i[lo] = j
                    nrel += 1
            if head < 0 or policy == FCFS:
                continue
            # the head's shadow time and extra units (releases in end order; ends in
            # the past, from jobs that outlive their estimate, count as now)
            need = size[head]
            avail = free
            found = False
            for k in range(nrel):
                e = rel_t[k]
                if e < now:
                    e = now
                if found and e > shadow:
                    break
                avail += size[rel_i[k]]
                if not found and avail >= need:
                    found = True
                    shadow = e
            extra = avail - need
            r = qh + 1
            last = qt
        # -- backfill queue[r:last] in order against (shadow, extra) --
        w = r  # compaction: started jobs leave the queue
        seen = 0
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
                et = now + est[j]
                if et <= shadow:
                    ok = True
                elif size[j] <= extra:
                    extra -= size[j]
                    ok = True
            if not ok:
                queue[w] = j
                w += 1
                continue
            free -= size[j]
            queued -= 1
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
            key = now + est[j]
            lo = 0
            hi = nrel
            while lo < hi:
                mid = (lo + hi) // 2
                if rel_t[mid] < key or (rel_t[mid] == key and rel_i[mid] < j):
                    lo = mid + 1
                else:
                    hi = mid
            for k in range(nrel, lo, -1):
                rel_t[k] = rel_t[k - 1]
                rel_i[k] = rel_i[k - 1]
            rel_t[lo] = key
            rel_i[lo] = j
            nrel += 1
        qt = w
    stats[0] = passes
    stats[1] = decisions
    stats[2] = started
