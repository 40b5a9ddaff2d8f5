"""The admission front and a job's start.

Queued jobs start in FCFS order while the head fits (:func:`try_start`), or by EASY
backfilling with ``F_EASY`` (:func:`easy_start`: the head's reservation at its shadow
time, from the running jobs' estimated ends; a later job starts if it ends by then or
leaves the head its nodes). :func:`place` chooses a job's cells (a gang row's free
cells, or the least loaded nodes that run fewer than MPL processes), and
:func:`start_job` builds its processes there.
"""

from __future__ import annotations

import numpy as np

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.choice import requeue
from cosched.timesharing.kernel.cpu import fold, resched
from cosched.timesharing.kernel.dispatch import linux_wake, request_preempt
from cosched.timesharing.kernel.draws import factor
from cosched.timesharing.kernel.events import push
from cosched.timesharing.kernel.gang import gang_start
from cosched.timesharing.kernel.layout import (
    EV_RAISE,
    F_CNT0,
    F_EASY,
    F_GANG,
    F_LINUX,
    F_MPL,
    F_NNODES,
    F_NTT,
    F_TOP,
    INF,
    J_BLOCK,
    J_COMP,
    J_DONE,
    J_END,
    J_EST,
    J_IO,
    J_NITER,
    J_NPROCS,
    J_P0,
    J_PARITY,
    J_PERIOD,
    J_PROCS,
    J_RING,
    J_ROW,
    J_RUN,
    J_SEED,
    J_SKEW,
    J_SLOW,
    J_START,
    J_STARTED,
    J_WCOMM,
    J_WCOMP,
    J_WIO,
    N_BUSY,
    N_CUR,
    N_NPROCS,
    N_PL,
    P_CNT,
    P_COMPUTE,
    P_CPU,
    P_JCOMP,
    P_JIO,
    P_JOB,
    P_LEVEL,
    P_NBR0,
    P_NBR1,
    P_NITER,
    P_NODE,
    P_PHASE,
    P_QLEFT,
    P_RANK,
    P_REM,
    P_SEED,
    P_SKEW,
    P_STATE,
    P_WAITING,
    R_LATENCY,
    R_NPER,
    R_QTOP,
    R_RAISE,
    READY,
    S_GSCOL,
    S_JB,
    S_NEXTPROC,
    S_QB,
    S_QHEAD,
    S_QTAIL,
    S_RUNNING,
    S_TICKING,
    S_TMPB,
    Floats,
    Ints,
    State,
)
from cosched.timesharing.kernel.linux import linux_start_counter
from cosched.timesharing.kernel.matrix import row_cells
from cosched.timesharing.kernel.nic import set_speed
from cosched.timesharing.kernel.noise import noise_arm


@njit
def place(S: State, procs: int) -> int:
    """Choose cells for a job of ``procs`` tasks (section 2.3 of the paper).

    Gang scheduling takes free cells of one matrix row (the first row that has enough);
    the other schemes take the ``procs`` least loaded nodes that run fewer than MPL
    processes (ties to the lower index). The nodes go to ``G[G[S_TMPB]:][:procs]``.
    Returns the row (-1 for the MLFQ schemes), or -2 if the job must wait.
    """
    N = S.G[F_NNODES]
    mpl = S.G[F_MPL]
    out = S.G[S.G[S_TMPB] :]
    if S.G[F_GANG]:
        for r in range(mpl):
            if row_cells(S, r, procs) >= procs:
                return r
        return -2
    free = 0
    for n in range(N):
        if S.I[n, N_BUSY] < mpl:
            free += 1
    if free < procs:
        return -2
    # the procs least-loaded nodes (ties: lower index), then sorted by index
    c = 0
    for b in range(mpl):
        for n in range(N):
            if S.I[n, N_BUSY] == b:
                out[c] = n
                c += 1
                if c == procs:
                    break
        if c == procs:
            break
    for a in range(1, procs):  # insertion sort of the chosen nodes by index
        x = out[a]
        b = a
        while b > 0 and out[b - 1] > x:
            out[b] = out[b - 1]
            b -= 1
        out[b] = x
    return -1


@njit
def try_start(S: State, t: float) -> None:
    """Start queued jobs in FCFS order while the head fits (with ``F_EASY``, EASY
    backfilling behind the head: :func:`easy_start`)."""
    si = S.G
    if si[F_EASY]:
        easy_start(S, t)
        return
    while si[S_QHEAD] < si[S_QTAIL]:
        i = si[si[S_QB] + si[S_QHEAD]]
        row = place(S, S.I[si[S_JB] + i, J_PROCS])
        if row == -2:
            return
        si[S_QHEAD] += 1
        start_job(S, i, row, t)


@njit
def easy_est_end(S: State, jr: int, t: float) -> float:
    """A running job's estimated end (start + ``J_EST``; ``t`` if already past)."""
    e = S.F[jr, J_START] + S.F[jr, J_EST]
    return e if e > t else t


@njit
def easy_shadow(S: State, t: float, k: int, free_at: Ints) -> tuple[float, int]:
    """EASY's reservation for a queue head of ``k`` tasks that does not fit now.

    The running jobs release their cells at their estimated ends (in that order, ties
    by job). Gang matrix: per row, the shadow time is the first end at which the row has
    ``k`` free cells; the earliest row is reserved (ties: the lower row), and
    ``free_at[n]`` is 1 where node ``n``'s cell of that row is free at the shadow time.
    Otherwise: the shadow time is the first end at which ``k`` nodes run fewer than MPL
    processes, and ``free_at[n]`` is node ``n``'s free process slots then. Every
    release at the shadow time counts. Returns ``(shadow, row)`` (row -1 off the gang).
    """
    jb = S.G[S_JB]
    n_jobs = S.I.shape[0] - jb
    N = S.G[F_NNODES]
    mpl = S.G[F_MPL]
    gang = S.G[F_GANG] != 0
    ends = np.empty(n_jobs)
    rows = np.empty(n_jobs, dtype=np.int64)
    m = 0
    for j in range(n_jobs):
        jr = jb + j
        if S.I[jr, J_STARTED] == 1 and S.F[jr, J_END] != S.F[jr, J_END]:  # running
            ends[m] = easy_est_end(S, jr, t)
            rows[m] = jr
            m += 1
    order = np.argsort(ends[:m], kind="mergesort")
    best = INF
    brow = -1
    n_rows = mpl if gang else 1
    for r in range(n_rows):
        for n in range(N):
            if gang:
                free_at[n] = 1 if S.I[n, S.G[S_GSCOL] + r] < 0 else 0
            else:
                free_at[n] = mpl - S.I[n, N_BUSY]
        shadow = INF
        for a in range(m):
            jr = rows[order[a]]
            e = ends[order[a]]
            if e > shadow:
                break
            if gang and S.I[jr, J_ROW] != r:
                continue
            p0 = S.I[jr, J_P0]
            for p in range(p0, p0 + S.I[jr, J_NPROCS]):
                free_at[S.I[p, P_NODE]] += 1
            if shadow == INF:
                c = 0
                for n in range(N):
                    if free_at[n] > 0:
                        c += 1
                if c >= k:
                    shadow = e
        if shadow < best:
            best = shadow
            brow = r
    if gang and brow >= 0:
        easy_free_at(S, brow, best, free_at, ends[:m], rows[:m])
    return best, (brow if gang else -1)


@njit
def easy_free_at(S: State, r: int, shadow: float, free_at: Ints, ends: Floats, rows: Ints) -> None:
    """Gang: ``free_at[n]`` = 1 where node ``n``'s cell of row ``r`` is free at ``shadow``."""
    for n in range(S.G[F_NNODES]):
        free_at[n] = 1 if S.I[n, S.G[S_GSCOL] + r] < 0 else 0
    for a in range(ends.shape[0]):
        jr = rows[a]
        if ends[a] <= shadow and S.I[jr, J_ROW] == r:
            p0 = S.I[jr, J_P0]
            for p in range(p0, p0 + S.I[jr, J_NPROCS]):
                free_at[S.I[p, P_NODE]] = 1


@njit
def easy_keeps(S: State, k_head: int, taken: int, free_at: Ints) -> bool:
    """Does the reservation survive a job on the ``taken`` nodes of ``G[G[S_TMPB]:]``
    still running at the shadow time (``k_head`` nodes with a free slot then)?"""
    tmp = S.G[S.G[S_TMPB] :]
    for a in range(taken):
        free_at[tmp[a]] -= 1
    c = 0
    for n in range(S.G[F_NNODES]):
        if free_at[n] > 0:
            c += 1
    for a in range(taken):
        free_at[tmp[a]] += 1
    return c >= k_head


@njit
def easy_place(
    S: State, t: float, jr: int, shadow: float, rrow: int, k_head: int, free_at: Ints
) -> int:
    """Cells for a job behind the head (as ``place``), if it does not delay the head's
    reservation: it ends by the shadow time by its estimate, or it leaves the head
    enough cells then (gang: or it goes to another row than the reserved one).
    Returns the row (-1 off the gang), or -2."""
    k = S.I[jr, J_PROCS]
    early = t + S.F[jr, J_EST] <= shadow
    if S.G[F_GANG]:
        for r in range(S.G[F_MPL]):
            if row_cells(S, r, k) < k:
                continue
            if early or r != rrow or easy_keeps(S, k_head, k, free_at):
                return r
        return -2
    row = place(S, k)
    if row == -2 or early or easy_keeps(S, k_head, k, free_at):
        return row
    return -2


@njit
def easy_start(S: State, t: float) -> None:
    """EASY backfilling in front of the engine (FCS paper, section 5.1): start the queue
    head while it fits; when it does not, reserve its start at the shadow time
    (:func:`easy_shadow`, by the running jobs' estimated ends) and start, in queue order,
    every later job that fits now without delaying it (:func:`easy_place`)."""
    si = S.G
    jb = si[S_JB]
    qb = si[S_QB]
    free_at = np.zeros(si[F_NNODES], dtype=np.int64)
    shadow = INF
    rrow = -1
    k_head = 0
    m = 0  # position behind the head (0: the head itself)
    while si[S_QHEAD] + m < si[S_QTAIL]:
        i = si[qb + si[S_QHEAD] + m]
        if m == 0:
            row = place(S, S.I[jb + i, J_PROCS])
            if row != -2:
                si[S_QHEAD] += 1
                start_job(S, i, row, t)
                continue
            k_head = S.I[jb + i, J_PROCS]
            shadow, rrow = easy_shadow(S, t, k_head, free_at)
            m = 1
            continue
        row = easy_place(S, t, jb + i, shadow, rrow, k_head, free_at)
        if row == -2:
            m += 1
            continue
        for a in range(si[S_QHEAD] + m, si[S_QTAIL] - 1):  # take it out of the queue
            si[qb + a] = si[qb + a + 1]
        si[S_QTAIL] -= 1
        start_job(S, i, row, t)
        shadow, rrow = easy_shadow(S, t, k_head, free_at)


@njit
def start_job(S: State, i: int, row: int, t: float) -> None:
    """Create job ``i``'s processes on the chosen nodes (from ``place``) and row."""
    PI = S.I
    PF = S.F
    tmp = S.G[S.G[S_TMPB] :]
    jr = S.G[S_JB] + i
    k = PI[jr, J_PROCS]
    comp = PF[jr, J_WCOMP]
    io = PF[jr, J_WIO]
    t_iter = S.GF[R_LATENCY] / PF[jr, J_WCOMM]
    if k == 1:
        comp, io = comp / (comp + io), io / (comp + io)
    jcomp = comp * t_iter
    jio = io * t_iter
    nit = max(1, int(np.rint(PF[jr, J_RUN] / t_iter)))
    PF[jr, J_COMP] = jcomp
    PF[jr, J_IO] = jio
    PI[jr, J_NITER] = nit
    PI[jr, J_DONE] = 0
    PI[jr, J_ROW] = row
    PI[jr, J_NPROCS] = k
    PI[jr, J_STARTED] = 1
    PF[jr, J_START] = t
    p0 = S.G[S_NEXTPROC]
    S.G[S_NEXTPROC] = p0 + k
    PI[jr, J_P0] = p0
    S.G[S_RUNNING] += 1
    if S.GF[R_NPER] > 0:
        noise_arm(S, t)
    slow = PF[jr, J_SLOW]
    parity = PI[jr, J_PARITY]
    blk = PI[jr, J_BLOCK]
    per = PI[jr, J_PERIOD]
    ring = PI[jr, J_RING] != 0 and k > 1
    for r in range(k):
        p = p0 + r
        PI[p, :] = 0
        PF[p, :] = 0.0
        PI[p, P_SEED] = PI[jr, J_SEED]
        PI[p, P_NITER] = nit
        PF[p, P_JCOMP] = jcomp * slow if (r // blk) % per == parity and slow != 1.0 else jcomp
        PF[p, P_JIO] = jio
        PF[p, P_SKEW] = PF[jr, J_SKEW]
        PI[p, P_JOB] = i
        PI[p, P_RANK] = r
        PI[p, P_NODE] = tmp[r]
        PI[p, P_CPU] = tmp[r]
        PI[p, P_STATE] = READY
        PI[p, P_PHASE] = P_COMPUTE
        PI[p, P_WAITING] = -1
        PI[p, P_NBR0] = p - 1 if r > 0 else (p0 + k - 1 if ring else -1)
        PI[p, P_NBR1] = p + 1 if r + 1 < k else (p0 if ring else -1)
        if S.G[F_LINUX]:
            ntt = S.G[F_NTT]
            PI[p, P_CNT] = linux_start_counter(PI[p, P_SEED], r, ntt) if S.G[F_CNT0] else ntt
    for r in range(k):
        p = p0 + r
        PF[p, P_REM] = PF[p, P_JCOMP] * factor(S, p)
    if S.G[F_GANG]:
        gang_start(S, jr, t)
        return
    if not S.G[S_TICKING] and not S.G[F_LINUX]:  # Linux has no periodic raise
        S.G[S_TICKING] = 1
        period = S.GF[R_RAISE]
        push(S, (np.floor(t / period) + 1.0) * period, EV_RAISE, -1, 0)
    top = S.G[F_TOP]
    for r in range(k):
        p = p0 + r
        n = PI[p, P_NODE]
        fold(S, n, t)
        S.I[n, N_BUSY] += 1
        c = S.I[n, N_NPROCS]
        S.I[n, N_PL + c] = p
        S.I[n, N_NPROCS] = c + 1
        set_speed(S, n)
        if S.G[F_LINUX]:  # a new process joins the run queue as a woken one does
            linux_wake(S, p, t, 0)
            resched(S, n, t)
            continue
        PI[p, P_LEVEL] = top
        PF[p, P_QLEFT] = S.GF[R_QTOP]
        requeue(S, p, False)
        cur = S.I[n, N_CUR]
        if cur < 0 or PI[p, P_LEVEL] > PI[cur, P_LEVEL]:
            request_preempt(S, n, t, -1)
        resched(S, n, t)
