"""The fast path's FCFS and EASY loop as plain Python, for workloads too small to repay
loading numba.

It does step for step what :func:`cosched.engine._batch_kernels.batch_loop` does (the
source numba compiles; read its docstring for the semantics) with the standard
library's compiled containers instead of hand-written ones, which cost the
interpreter a loop iteration per element: the completion heap is ``heapq`` over
``(end, sequence, job)`` tuples, and EASY's running jobs sorted by ``(estimated end,
job)`` are one list kept sorted by ``bisect`` (a binary search and one ``insert`` or
``del`` in C, where the kernel shifts the arrays in a loop). A job leaves the sorted
list at the position the kernel's binary search finds for its key, as there. A
backfill pass stops once fewer units are free than the smallest job takes (the kernel
scans on without starting anything): the queue then keeps, past that point, entries of
jobs started earlier, which every loop skips, so no decision changes. The
schedules, pass counts and decision counts are the kernel's
(``tests/engine/test_fastpath.py`` runs both on the same workloads). Starting a job
is written out twice (in-order starts and backfills), as in the kernel: it is the hot
path, and a call per started job costs more than the six lines it would save.
"""

from __future__ import annotations

from bisect import bisect_left
from heapq import heappop, heappush

__all__ = ["plain_loop"]

FCFS = 0
EASY = 1


def plain_loop(
    submit: list[float],
    run: list[float],
    est: list[float],
    size: list[int],
    capacity: int,
    policy: int,
    window: int,
    start: list[float],
    end: list[float],
    stats: list[int],
) -> None:
    """Simulate FCFS (``policy`` 0) or EASY (1) with the submit order.

    Args:
        submit, run, est, size: per-job values in submit order (finite).
        capacity: units in the machine.
        window: EASY's backfill window (-1: the whole queue).
        start, end: outputs, one NaN per job on entry (filled in).
        stats: output ``[passes, decisions, started]``.
    """
    n = len(submit)
    free = capacity
    nxt = 0  # next job to arrive
    queue = [0] * n
    qh = 0  # queue[qh:qt] holds the queued jobs (and, lazily, some started ones)
    qt = 0
    queued = 0
    heap: list[tuple[float, int, int]] = []  # (end, sequence, job)
    seq = 0
    rel: list[tuple[float, int]] = []  # running jobs by (estimated end, job), EASY only
    easy = policy == EASY
    epoch = 0  # completions so far
    seen_epoch = -1  # epoch at EASY's last full pass
    head = -1  # the head that full pass left (-1: none)
    shadow = 0.0
    extra = 0
    passes = 0
    decisions = 0
    inf = float("inf")
    smallest = min(size, default=0)
    while True:
        now = submit[nxt] if nxt < n else inf
        if heap and heap[0][0] < now:
            now = heap[0][0]
        if now == inf:
            break
        # -- completions --
        while heap and heap[0][0] <= now:
            j = heappop(heap)[2]
            free += size[j]
            epoch += 1
            if easy:
                del rel[bisect_left(rel, (start[j] + est[j], j))]
        # -- submissions --
        fresh = qt
        while nxt < n and submit[nxt] <= now:
            queue[qt] = nxt
            qt += 1
            queued += 1
            nxt += 1
        if queued == 0:
            continue
        passes += 1
        if easy and window < 0 and seen_epoch == epoch and head >= 0:
            r = fresh  # the incremental pass: only the jobs that arrived now
        else:
            seen_epoch = epoch
            head = -1
            while qh < qt:  # start in order while the head fits
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
                start[j] = now
                e = end[j] = now + run[j]
                seq += 1
                heappush(heap, (e, seq, j))
                if easy:
                    key = (now + est[j], j)
                    rel.insert(bisect_left(rel, key), key)
            if head < 0 or not easy:
                continue
            # the head's shadow time and extra units
            need = size[head]
            avail = free
            found = False
            for e, i in rel:
                if e < now:
                    e = now
                if found and e > shadow:
                    break
                avail += size[i]
                if not found and avail >= need:
                    found = True
                    shadow = e
            extra = avail - need
            r = qh + 1
        # -- backfill queue[r:qt] in order against (shadow, extra) --
        last = qt
        w = r  # compaction: started jobs leave the queue
        seen = 0
        while r < last:
            if free < smallest:  # nothing left fits: the rest stays as it is
                if w < r:
                    queue[w : w + last - r] = queue[r:last]
                w += last - r
                break
            j = queue[r]
            r += 1
            if start[j] == start[j]:
                continue
            if window >= 0 and seen >= window:
                queue[w] = j
                w += 1
                continue
            seen += 1
            sj = size[j]
            if sj > free or (now + est[j] > shadow and sj > extra):
                queue[w] = j
                w += 1
                continue
            if now + est[j] > shadow:
                extra -= sj
            free -= sj
            queued -= 1
            decisions += 1
            start[j] = now
            e = end[j] = now + run[j]
            seq += 1
            heappush(heap, (e, seq, j))
            key = (now + est[j], j)
            rel.insert(bisect_left(rel, key), key)
        qt = w
    stats[0] = passes
    stats[1] = decisions
    stats[2] = decisions
