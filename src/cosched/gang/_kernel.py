"""The built-in gang policies' pass, compiled: :data:`GANG_PASS
<cosched.gang.fast.GANG_PASS>` on the engine's event loop (:mod:`cosched.engine.loop`).

The loop does the engine's part (completions, submissions, the starts in decision
order, the rate changes); this pass does what :class:`~cosched.gang.policies.Gang`, its
:class:`~cosched.gang.matrix.Matrix` and its rate model do, step for step, so the
schedules, placements, rates, the suspension accounting and the engine's counters are
the same bit for bit as the general loop's (``tests/gang/test_fast.py`` holds it to
that):

* the Ousterhout matrix (rows x columns of job indices), each job's mask of the rows
  in which its columns are idle, updated on the jobs that share a column with a start
  or an end (:func:`_add`, :func:`_remove`);
* the pass: jobs in submit order while they fit a row (first fit or buddy), then the
  head's reservation in the row where it can start earliest (EASY's shadow walk per row
  over the running jobs' believed ends and this pass's starts) and backfilling behind
  it; when nothing ended since the last full pass and the head is the same, only the
  jobs that arrived now are tried (:func:`gang_pass`);
* the rates: each touched job's share of the round, and the seconds it was suspended
  and switched, integrated between changes (:func:`gang_rates`).

Where the Python pass remembers a failed or found placement within one pass, this pass
computes it again: a placement depends only on the matrix, so the result is the same.
This module imports no numba: run as plain Python, compiled by numba or loaded compiled
ahead of time, the same source gives the same schedules.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from cosched.policies.reservation import admit, window_next

if TYPE_CHECKING:
    from cosched.engine.loop import Bools, Floats, Instant, Ints, IntTable, Jobs, Table

__all__ = [
    "GangParams",
    "GangState",
    "GangStore",
    "gang_ended",
    "gang_init",
    "gang_pass",
    "gang_rates",
    "gang_report",
]

# Columns of the per-job table: inputs (memory per unit, efficiency factor), then the
# outputs the pass writes: seconds suspended, switches, the rank of the job's first
# accounting entry (-1: none), its row, its rank among starts.
MEM, ETA, SUSPENDED, SWITCHES, SETTLED, ROW, STARTED = range(7)
TABLE_COLUMNS = 7
#: Counters ``gang_report`` writes: the most rows in use at once.
REPORTS = 1


class GangParams(NamedTuple):
    """The gang pass's parameters: the policy's and the machine's."""

    rows: int  #: the matrix's rows (the multiprogramming level)
    columns: int  #: its columns (the machine's units)
    buddy: bool  #: buddy packing (else first fit)
    alternate: bool  #: a job also runs in the other rows where its columns are idle
    backfill: bool  #: backfill behind the head's reservation
    window: int  #: jobs behind the head tried for backfilling (-1: all)
    limited: bool  #: a memory limit per column is given
    cores: int  #: cores per node
    per_core: bool  #: the columns are cores (else nodes)
    slot: float  #: a round's slot: the quantum plus the switch cost
    efficiency: float  #: the share of a slot a job computes in
    memory_limit: float  #: memory per column (when ``limited``)


class GangStore(NamedTuple):
    """The pass's arrays, changed in place."""

    params: GangParams  #: the parameters
    table: Table  #: per-job inputs and outputs (the columns above)
    occ: IntTable  #: rows x columns of job indices (-1: idle)
    free: Ints  #: idle columns of each row
    mem_used: Floats  #: memory in use on each column
    row: Ints  #: each placed job's row
    cols: Ints  #: each job's columns, from off[j], ncols[j] of them
    off: Ints
    ncols: Ints
    poff: Ints  #: where each job's nodes go in Jobs.placed
    mask: Ints  #: per running job: the rows whose cells under its columns are idle
    acc: Table  #: per running job: since, suspended fraction, suspensions per second
    given: Floats  #: per running job: the last rate handed to the engine
    mark: Ints  #: per job: the stamp of the last scan that found it
    touched: Ints  #: the jobs whose share may have changed since the last rates
    tflag: Bools  #: per job: in ``touched``
    running: Ints  #: the running jobs, unordered
    rpos: Ints  #: each running job's position in ``running``
    pend: Floats  #: per job started in this pass: its believed end
    found: Ints  #: scratch: the jobs a scan found
    rel_t: Floats  #: scratch: releases' ends
    rel_j: Ints  #: scratch: releases' jobs
    w_avail: Ints  #: per row: the shadow walk's free units
    w_shadow: Floats  #: per row: its shadow time
    w_state: Ints  #: per row: 0 no shadow yet, 1 found, 2 passed it


class GangState(NamedTuple):
    """The pass's scalars, replaced at each call."""

    used: int  #: bit mask of the rows holding a job
    every: bool  #: the rows in use changed: every running job's share is new
    dirty: bool  #: a job ended since the last full pass
    head: int  #: the head the last full pass left (-1: none)
    res_row: int  #: the reservation's row (-1: none)
    shadow: float
    extra: int
    ntouched: int
    nrunning: int
    stamp: int
    rows_seen: int
    nsettled: int
    nstarted: int


def _popcount(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


def _block(size: int) -> int:
    """Buddy packing's block width: the power of two at least ``size``."""
    w = 1
    while w < size:
        w <<= 1
    return w


def _cyclic_runs(mask: int, used: int, rows: int) -> int:
    """:func:`cosched.gang.matrix.cyclic_runs`: maximal runs of set bits of ``mask``
    among the rows of ``used``, taken cyclically."""
    count = 0
    all_set = True
    first = -1
    last = -1
    prev = -1
    runs = 0
    for r in range(rows):
        if not (used >> r) & 1:
            continue
        b = (mask >> r) & 1
        if count == 0:
            first = b
        else:
            if b and not prev:
                runs += 1
        if not b:
            all_set = False
        prev = b
        last = b
        count += 1
    if count == 0:
        return 0
    if all_set:
        return 1
    if first and not last:  # the first row's run starts the cycle
        runs += 1
    return runs


def _fit(
    pr: GangParams, free: Ints, occ: IntTable, mused: Floats, size: int, mem: float
) -> tuple[int, int]:
    """``Matrix.fit``: the row of a placement of ``size`` columns (-1: none) and, for
    buddy packing, its block's first column (``free``, ``occ``, ``mused``: the store's
    ``free``, ``occ`` and ``mem_used``). A cell is open when it is idle and, under a
    memory limit, its column has room."""
    rows, n, limit = pr.rows, pr.columns, pr.memory_limit
    limited = pr.limited and mem > 0
    if pr.buddy:
        width = _block(size)
        for r in range(rows):
            if free[r] < size:
                continue
            for a in range(0, n, width):
                b = min(a + width, n)
                if b - a < size:
                    continue
                fits = True
                for c in range(a, b):
                    if occ[r, c] >= 0 or (limited and mused[c] + mem > limit):
                        fits = False
                        break
                if fits:
                    return r, a
        return -1, 0
    for r in range(rows):
        if free[r] < size:
            continue
        if not limited:
            return r, 0
        cnt = 0
        for c in range(n):
            if occ[r, c] < 0 and mused[c] + mem <= limit:
                cnt += 1
                if cnt >= size:
                    return r, 0
    return -1, 0


def _width(pr: GangParams, size: int, a: int) -> int:
    """Columns a placement of ``size`` takes (buddy: the block's, cut at the end)."""
    if pr.buddy:
        return min(a + _block(size), pr.columns) - a  # type: ignore[no-any-return]
    return size


def _scan(
    occ: IntTable, cols: Ints, mark: Ints, found: Ints, lo: int, hi: int, j: int, stamp: int
) -> int:
    """The jobs in any row on ``j``'s columns (``cols[lo:hi]``; other than ``j``) into
    ``found``; their count (``Matrix._others``; the order does not matter to its
    users)."""
    nf = 0
    for q in range(lo, hi):
        c = cols[q]
        for r in range(occ.shape[0]):
            x = occ[r, c]
            if x >= 0 and x != j and mark[x] != stamp:
                mark[x] = stamp
                found[nf] = x
                nf += 1
    return nf


def _touch(tflag: Bools, touched: Ints, x: int, nt: int) -> int:
    """Job ``x`` into the store's ``touched`` (flagged in ``tflag``); their count."""
    if not tflag[x]:
        tflag[x] = True
        touched[nt] = x
        nt += 1
    return nt


def _settle(t: Table, acc: Table, j: int, now: float, nsettled: int) -> int:
    """``Gang._settle``: job ``j``'s suspended seconds and switches up to ``now`` (``t``,
    ``acc``: the store's ``table`` and ``acc``)."""
    if t[j, SETTLED] < 0:
        t[j, SETTLED] = nsettled
        nsettled += 1
    dt = now - acc[j, 0]
    if dt > 0:
        t[j, SUSPENDED] += dt * acc[j, 1]
        t[j, SWITCHES] += dt * acc[j, 2]
    acc[j, 0] = now
    return nsettled


def _start(
    st: GangStore, s: GangState, placed: Ints, j: int, size: int, r: int, a: int, now: float
) -> GangState:
    """``Gang._start`` with ``Matrix.add``: job ``j`` of ``size`` units into row ``r``
    (``placed``: :attr:`Jobs.placed <cosched.engine.loop.Jobs.placed>`)."""
    pr = st.params
    mem = st.table[j, MEM]
    occ, cols, o = st.occ, st.cols, st.off[j]
    if pr.buddy:
        w = _width(pr, size, a)
        for q in range(w):
            cols[o + q] = a + q
    else:
        limited = pr.limited and mem > 0
        mused, limit = st.mem_used, pr.memory_limit
        w = 0
        c = 0
        while w < size:
            if occ[r, c] < 0 and (not limited or mused[c] + mem <= limit):
                cols[o + w] = c
                w += 1
            c += 1
    st.ncols[j] = w
    stamp = s.stamp + 1
    nf = _scan(occ, cols, st.mark, st.found, o, o + w, j, stamp)
    for q in range(o, o + w):
        occ[r, cols[q]] = j
    st.free[r] -= w
    used = s.used | (1 << r)
    if mem:
        for q in range(o, o + size):
            st.mem_used[cols[q]] += mem
    st.row[j] = r
    busy = 0
    found, row, mask = st.found, st.row, st.mask
    for f in range(nf):
        busy |= 1 << row[found[f]]
    mask[j] = (((1 << pr.rows) - 1) & ~busy) | (1 << r)
    clear = ~(1 << r)
    nt = s.ntouched
    tflag, touched = st.tflag, st.touched
    for f in range(nf):
        x = found[f]
        mask[x] &= clear
        nt = _touch(tflag, touched, x, nt)
    nt = _touch(tflag, touched, j, nt)
    # accounting, the running set, the outputs
    st.acc[j, 0] = now
    st.acc[j, 1] = 0.0
    st.acc[j, 2] = 0.0
    st.given[j] = 1.0
    st.rpos[j] = s.nrunning
    st.running[s.nrunning] = j
    t = st.table
    t[j, ROW] = r
    t[j, STARTED] = s.nstarted
    p = st.poff[j]
    per_core, cores = pr.per_core, pr.cores
    for q in range(size):
        c = cols[o + q]
        placed[p + q] = c // cores if per_core else c
    return GangState(
        used, s.every or used != s.used, s.dirty, s.head, s.res_row, s.shadow, s.extra,
        nt, s.nrunning + 1, stamp, s.rows_seen, s.nsettled, s.nstarted + 1,
    )  # fmt: skip


def gang_init(jobs: Jobs, capacity: int, params: GangParams) -> tuple[GangStore, GangState]:
    n = jobs.submit.shape[0]
    rows, columns = params.rows, params.columns
    size = jobs.size
    off = np.zeros(n + 1, dtype=np.int64)
    poff = np.zeros(n + 1, dtype=np.int64)
    for j in range(n):
        room = _block(size[j]) if params.buddy else size[j]
        off[j + 1] = off[j] + min(room, columns)
        poff[j + 1] = poff[j] + size[j]
    t = jobs.table
    for j in range(n):
        t[j, SUSPENDED] = 0.0
        t[j, SWITCHES] = 0.0
        t[j, SETTLED] = -1.0
        t[j, ROW] = -1.0
        t[j, STARTED] = -1.0
    store = GangStore(
        params,
        t,
        np.full((rows, columns), -1, dtype=np.int64),
        np.full(rows, columns, dtype=np.int64),
        np.zeros(columns, dtype=np.float64),
        np.full(n, -1, dtype=np.int64),
        np.zeros(off[n] + 1, dtype=np.int64),
        off,
        np.zeros(n, dtype=np.int64),
        poff,
        np.zeros(n, dtype=np.int64),
        np.zeros((n, 3), dtype=np.float64),
        np.ones(n, dtype=np.float64),
        np.zeros(n, dtype=np.int64),
        np.empty(n, dtype=np.int64),
        np.zeros(n, dtype=np.bool_),
        np.empty(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.full(n, math.nan),
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=np.float64),
        np.empty(n, dtype=np.int64),
        np.zeros(rows, dtype=np.int64),
        np.zeros(rows, dtype=np.float64),
        np.zeros(rows, dtype=np.int64),
    )
    return store, GangState(0, False, True, -1, -1, 0.0, 0, 0, 0, 0, 0, 0, 0)


def gang_ended(st: GangStore, s: GangState, jobs: Jobs, j: int, now: float) -> GangState:
    """``Gang.on_finish`` with ``Matrix.remove``."""
    nsettled = _settle(st.table, st.acc, j, now, s.nsettled)
    r = st.row[j]
    o, w = st.off[j], st.ncols[j]
    occ, cols = st.occ, st.cols
    for q in range(o, o + w):
        occ[r, cols[q]] = -1
    st.free[r] += w
    used = s.used
    if st.free[r] == st.params.columns:
        used &= ~(1 << r)
    mem = st.table[j, MEM]
    if mem:
        for q in range(o, o + jobs.size[j]):
            st.mem_used[cols[q]] -= mem
    st.row[j] = -1
    stamp = s.stamp + 1
    nf = _scan(occ, cols, st.mark, st.found, o, o + w, j, stamp)
    bit = 1 << r
    nt = s.ntouched
    tflag, touched = st.tflag, st.touched
    for f in range(nf):
        x = st.found[f]
        idle = True
        for q in range(st.off[x], st.off[x] + st.ncols[x]):
            if occ[r, cols[q]] >= 0:
                idle = False
                break
        if idle:
            st.mask[x] |= bit
        nt = _touch(tflag, touched, x, nt)
    # out of the running set
    last = st.running[s.nrunning - 1]
    p = st.rpos[j]
    st.running[p] = last
    st.rpos[last] = p
    return GangState(
        used, s.every or used != s.used, True, s.head, s.res_row, s.shadow, s.extra,
        nt, s.nrunning - 1, stamp, s.rows_seen, nsettled, s.nstarted,
    )  # fmt: skip


def _reserve(
    st: GangStore, s: GangState, start: Floats, est_end: Floats, need: int, now: float
) -> GangState:
    """``Gang._reserve``: the head's shadow walk in every row over the running jobs'
    believed ends (this pass's starts at their estimate times the rows in use), the
    earliest row kept. The order of equal ends does not matter (a walk counts every end
    at its shadow time), nor does it to the early stop."""
    rows = st.params.rows
    nr = s.nrunning
    rel_t, rel_j = st.rel_t, st.rel_j
    for q in range(nr):
        x = st.running[q]
        rel_j[q] = x
        # a job started in this pass is not yet started in the loop's columns
        rel_t[q] = est_end[x] if start[x] == start[x] else st.pend[x]
    order = np.argsort(rel_t[:nr], kind="mergesort")
    avail, shadow, state = st.w_avail, st.w_shadow, st.w_state
    for r in range(rows):
        avail[r] = st.free[r]
        shadow[r] = now
        state[r] = 1 if st.free[r] >= need else 0
    passed = False
    for q in range(nr):
        x = rel_j[order[q]]
        r = st.row[x]
        if state[r] == 2:
            continue
        e = rel_t[order[q]]
        if e < now:
            e = now
        if state[r] == 1 and e > shadow[r]:
            state[r] = 2
            passed = True
        else:
            avail[r] += st.ncols[x]
            if state[r] == 0 and avail[r] >= need:
                state[r] = 1
                shadow[r] = e
        if passed:
            stop = True
            for r2 in range(rows):
                if state[r2] == 1:
                    stop = False
                    break
            if stop:
                break
    best = -1
    for r in range(rows):
        if state[r] != 0 and (best < 0 or shadow[r] < shadow[best]):
            best = r
    if best < 0:  # every row frees all its columns eventually
        return s
    return GangState(
        s.used, s.every, s.dirty, s.head, best, shadow[best], avail[best] - need,
        s.ntouched, s.nrunning, s.stamp, s.rows_seen, s.nsettled, s.nstarted,
    )  # fmt: skip


def _max_free(free: Ints) -> int:
    """The most idle columns of any row (``free``: the store's)."""
    m = free[0]
    for r in range(1, free.shape[0]):
        if free[r] > m:
            m = free[r]
    return m  # type: ignore[no-any-return]


def _backfill(
    st: GangStore,
    s: GangState,
    size: Ints,
    est: Floats,
    start: Floats,
    placed: Ints,
    queue: Ints,
    r: int,
    last: int,
    now: float,
    chosen: Ints,
    k: int,
) -> tuple[GangState, int, int]:
    """``Gang._backfill`` over ``queue[r:last]`` (the first ``window`` of them, if
    set), compacting it; the state, the queue's new end and the number chosen."""
    pr = st.params
    window, limited = pr.window, pr.limited
    free, occ, mused = st.free, st.occ, st.mem_used
    table = st.table
    too_big = _max_free(free) + 1
    w = r
    seen = 0
    while True:
        j, r, w, seen = window_next(queue, r, last, w, seen, window, start)
        if j < 0:
            break
        sz = size[j]
        row = -1
        a = 0
        if sz < too_big:
            row, a = _fit(pr, free, occ, mused, sz, table[j, MEM])
            if row < 0 and not limited:
                too_big = sz
        ok = row >= 0
        if ok and row == s.res_row:
            rows = _popcount(s.used | (1 << row))
            ok, extra = admit(now + est[j] * rows, _width(pr, sz, a), s.shadow, s.extra)
            s = GangState(
                s.used, s.every, s.dirty, s.head, s.res_row, s.shadow, extra,
                s.ntouched, s.nrunning, s.stamp, s.rows_seen, s.nsettled, s.nstarted,
            )  # fmt: skip
        if not ok:
            queue[w] = j
            w += 1
            continue
        s = _start(st, s, placed, j, sz, row, a, now)
        chosen[k] = j
        k += 1
        mf = _max_free(free) + 1
        if mf < too_big:
            too_big = mf
    return s, w, k


def gang_pass(
    st: GangStore, s: GangState, jobs: Jobs, queue: Ints, chosen: Ints, at: Instant
) -> tuple[GangState, int, int, int, float]:
    """``Gang.schedule`` on arrays (see the module)."""
    head, tail, fresh, now = at.head, at.tail, at.fresh, at.now
    pr = st.params
    k = 0
    backfill = pr.backfill
    while head < tail and jobs.start[queue[head]] == jobs.start[queue[head]]:
        head += 1  # pragma: no cover - the queue holds no started job
    if head == tail:
        return s, head, tail, 0, math.nan
    if not s.dirty and queue[head] == s.head:
        # Nothing ended since the last full pass and the head is the same: it still
        # does not fit, nor do the earlier candidates; only arrivals are new.
        if not backfill or s.res_row < 0:
            return s, head, tail, 0, math.nan
        if pr.window < 0:
            if fresh < tail:  # no arrival: nothing to try (spares the call)
                s, tail, k = _backfill(
                    st, s, jobs.size, jobs.est, jobs.start, jobs.placed, queue, fresh, tail,
                    now, chosen, 0,
                )  # fmt: skip
            return s, head, tail, k, math.nan
    s = GangState(
        s.used, s.every, False, s.head, -1, s.shadow, s.extra,
        s.ntouched, s.nrunning, s.stamp, s.rows_seen, s.nsettled, s.nstarted,
    )  # fmt: skip
    blocked = -1
    est = jobs.est
    while head < tail:  # start in order while the head fits
        j = queue[head]
        row, a = _fit(pr, st.free, st.occ, st.mem_used, jobs.size[j], st.table[j, MEM])
        if row < 0:
            blocked = j
            break
        head += 1
        s = _start(st, s, jobs.placed, j, jobs.size[j], row, a, now)
        chosen[k] = j
        k += 1
        rows = _popcount(s.used)
        st.pend[j] = now + est[j] * (rows if rows > 1 else 1)
    s = GangState(
        s.used, s.every, s.dirty, blocked, -1, s.shadow, s.extra,
        s.ntouched, s.nrunning, s.stamp, s.rows_seen, s.nsettled, s.nstarted,
    )  # fmt: skip
    if blocked < 0 or not backfill:
        return s, head, tail, k, math.nan
    s = _reserve(st, s, jobs.start, jobs.est_end, jobs.size[blocked], now)
    if head + 1 < tail:  # a job behind the head to try (an empty range: spare the call)
        s, tail, k = _backfill(
            st, s, jobs.size, jobs.est, jobs.start, jobs.placed, queue, head + 1, tail, now,
            chosen, k,
        )  # fmt: skip
    return s, head, tail, k, math.nan


def _share(
    used: int,
    mask: int,
    row: int,
    eta: float,
    nrows: int,
    alternate: bool,
    slot: float,
    efficiency: float,
) -> tuple[float, float, float]:
    """``Gang.share``: the rate, suspended fraction and suspensions per second of a
    running job (its ``mask``, ``row`` and efficiency factor ``eta``; ``nrows``,
    ``alternate``, ``slot``, ``efficiency``: the parameters); numbers only."""
    rows = _popcount(used)
    s = _popcount(mask & used) if alternate else 1
    if rows <= 1 or s >= rows:
        return eta, 0.0, 0.0
    mine = mask if alternate else 1 << row
    runs = _cyclic_runs(mine & used, used, nrows)
    cycle = rows * slot
    return s / rows * efficiency * eta, (rows - s) / rows, runs / cycle


def gang_rates(
    st: GangStore, s: GangState, jobs: Jobs, turn: Ints, who: Ints, rates: Floats, at: Instant
) -> tuple[GangState, int]:
    """``Gang._new_rates``, after an instant at which a job started or ended: the
    touched jobs' shares (every running job's when the rows in use changed), in index
    order, and those whose rate changed."""
    if at.started == 0 and at.ended == 0:
        return s, 0
    now = at.now
    rows_seen = max(s.rows_seen, _popcount(s.used))
    todo = st.found
    nt = 0
    if s.every:
        for q in range(s.nrunning):
            todo[q] = st.running[q]
        nt = s.nrunning
        for q in range(s.ntouched):
            st.tflag[st.touched[q]] = False
    else:
        for q in range(s.ntouched):
            x = st.touched[q]
            st.tflag[x] = False
            if st.row[x] >= 0:  # still running
                todo[nt] = x
                nt += 1
    order = todo[:nt]
    order.sort()  # in place: the scratch is not needed again in this call
    acc, given, table, mask, row = st.acc, st.given, st.table, st.mask, st.row
    pr = st.params
    nrows, alternate, slot, efficiency = pr.rows, pr.alternate, pr.slot, pr.efficiency
    nsettled = s.nsettled
    m = 0
    for q in range(nt):
        x = order[q]
        rate, frac, sw = _share(
            s.used, mask[x], row[x], table[x, ETA], nrows, alternate, slot, efficiency
        )
        if frac != acc[x, 1] or sw != acc[x, 2]:
            nsettled = _settle(table, acc, x, now, nsettled)
            acc[x, 1] = frac
            acc[x, 2] = sw
        if given[x] != rate:
            given[x] = rate
            who[m] = x
            rates[m] = rate
            m += 1
    state = GangState(
        s.used, False, s.dirty, s.head, s.res_row, s.shadow, s.extra,
        0, s.nrunning, s.stamp, rows_seen, nsettled, s.nstarted,
    )  # fmt: skip
    return state, m


def gang_report(st: GangStore, s: GangState, out: Ints, fout: Floats) -> None:
    """The most rows in use at once (the per-job accounting is in the table)."""
    out[0] = s.rows_seen
