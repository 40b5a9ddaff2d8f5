"""The event loop: :func:`run_kernel` takes the events of the three queues and the jobs'
submissions in (time, sequence number) order and hands each to its handler
(:func:`node_event` for a node's CPU event), checks the per-node invariants when asked
(:func:`check_all`), records the steady-state window at the last submission
(:func:`snapshot`), and returns when done, at the horizon, or when the heap or the FIFO
needs room (the caller grows them and calls again).
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.cpu import fold, lazy_flush, resched
from cosched.timesharing.kernel.dispatch import dispatch, expire, linux_expire, preempt, raise_all
from cosched.timesharing.kernel.events import cpu_update, next_event, pop
from cosched.timesharing.kernel.front import try_start
from cosched.timesharing.kernel.gang import gang_slot
from cosched.timesharing.kernel.layout import (
    ARR_AT_NIC,
    EPS,
    ERR_HEAP,
    EV_ARRIVE,
    EV_IODONE,
    EV_NOISE,
    EV_RAISE,
    F_CHECK,
    F_LINUX,
    F_NNODES,
    F_SMP,
    INF,
    J_COMP,
    J_IO,
    J_NPROCS,
    J_SUB,
    N_CHECK,
    N_COMPUTE,
    N_CS,
    N_CUR,
    N_DUE,
    N_INTR,
    N_IOCPU,
    N_NPROCS,
    N_OVH,
    N_PB,
    N_PL,
    N_PRE,
    N_QUEUE,
    N_SPIN,
    P_CNT,
    P_COMPUTE_T,
    P_CPU,
    P_JOB,
    P_QLEFT,
    P_REM,
    P_STATE,
    R_HORIZON,
    R_LATENCY,
    RET_BACKWARDS,
    RET_DONE,
    RET_GROW,
    RET_HORIZON,
    RET_INVARIANT,
    RET_OVERFLOW,
    RUNNING,
    S_BEYOND,
    S_CURSEQ,
    S_ERR,
    S_ERRNODE,
    S_ERRT,
    S_EVENTS,
    S_HSIZE,
    S_I,
    S_IMM,
    S_IMMSEQ,
    S_JB,
    S_LAZYN,
    S_MHEAD,
    S_MTAIL,
    S_NEXTPROC,
    S_NOW,
    S_P2,
    S_QB,
    S_QTAIL,
    S_STALET,
    S_TREEB,
    S_WIN0,
    S_WIN1,
    S_WINCOMP,
    S_WINWORK,
    State,
)
from cosched.timesharing.kernel.nic import arrive, io_done, nic_in, pb_tick
from cosched.timesharing.kernel.noise import noise
from cosched.timesharing.kernel.programs import activity_done


@njit
def node_event(S: State, n: int, t: float) -> None:
    """The node's CPU event: overhead end, activity end, quantum, tick."""
    NF = S.F
    cur = S.I[n, N_CUR]
    ovh = NF[n, N_OVH]
    fold(S, n, t)
    if t < ovh - EPS:
        resched(S, n, t)
        return
    if cur < 0:
        dispatch(S, n, t)
    else:
        te = t + EPS
        if NF[n, N_PB] <= te:
            NF[n, N_PB] = INF
            pb_tick(S, n, t)
            if NF[n, N_PRE] <= te:
                NF[n, N_PRE] = INF
                preempt(S, n, t)
        elif NF[n, N_PRE] <= te:
            NF[n, N_PRE] = INF
            preempt(S, n, t)
        elif S.F[cur, P_REM] <= EPS:
            activity_done(S, n, cur, t)
        elif S.G[F_LINUX]:
            if S.I[cur, P_CNT] <= 0:
                linux_expire(S, n, t)
        elif S.F[cur, P_QLEFT] <= EPS:
            expire(S, n, cur, t)
    resched(S, n, t)


@njit
def check_all(S: State, t: float) -> bool:
    """The per-node invariants: at most one running process, the node's current one,
    and CPU busy time within wall time. False (and the node and code in G) if broken."""
    for n in range(S.G[F_NNODES]):
        cur = S.I[n, N_CUR]
        running = 0
        first = -1
        m0 = n - n % S.G[F_SMP]  # the processes of its run queue (its node's PEs)
        for m in range(m0, m0 + S.G[F_SMP]):
            for a in range(S.I[m, N_NPROCS]):
                q = S.I[m, N_PL + a]
                if S.I[q, P_STATE] == RUNNING and S.I[q, P_CPU] == n:
                    running += 1
                    if first < 0:
                        first = q
        if running > 1 or (running == 1 and first != cur):
            S.G[S_ERRNODE] = n
            S.G[S_ERR] = 1
            return False
        if cur >= 0 and (S.I[cur, P_STATE] != RUNNING or S.I[cur, P_CPU] != n):
            S.G[S_ERRNODE] = n
            S.G[S_ERR] = 2
            return False
        NF = S.F
        busy = NF[n, N_COMPUTE] + NF[n, N_SPIN] + NF[n, N_CS] + NF[n, N_INTR]
        busy = busy + NF[n, N_QUEUE] + NF[n, N_CHECK] + NF[n, N_IOCPU]
        lim = t if t > NF[n, N_OVH] else NF[n, N_OVH]
        if busy > lim + 1e-9:
            S.G[S_ERRNODE] = n
            S.G[S_ERR] = 3
            return False
    return True


@njit
def snapshot(S: State, t: float) -> None:
    """Compute seconds done by the last submission (for the steady-state share), and the
    dedicated work they stand for: each process's compute seconds times its job's
    dedicated iteration (compute + I/O + one message latency if it has neighbours) over
    the iteration's compute (the job's run time x tasks, pro rata its computing)."""
    total = 0.0
    for n in range(S.G[F_NNODES]):
        fold(S, n, t)
    for n in range(S.G[F_NNODES]):
        total += S.F[n, N_COMPUTE]
    S.GF[S_WINCOMP] = total
    work = 0.0
    for p in range(S.G[F_NNODES], S.G[S_NEXTPROC]):
        j = S.G[S_JB] + S.I[p, P_JOB]
        comp = S.F[j, J_COMP]
        if comp > 0:
            ded = comp + S.F[j, J_IO]
            if S.I[j, J_NPROCS] > 1:
                ded += S.GF[R_LATENCY]
            work += S.F[p, P_COMPUTE_T] * ded / comp
    S.GF[S_WINWORK] = work
    S.GF[S_WIN0] = S.F[S.G[S_JB], J_SUB]
    S.GF[S_WIN1] = t


@njit
def stop_at(S: State, now: float, events: int) -> None:
    """Save the loop's clock and count, with the lazy spin ends handled (the kernel is
    about to return)."""
    S.GF[S_NOW] = now
    S.G[S_EVENTS] = events + S.G[S_LAZYN]
    S.G[S_LAZYN] = 0


@njit
def run_kernel(S: State, margin: int) -> int:
    """Run until done, the horizon, or the heap or the message FIFO has fewer than
    ``margin`` free slots.

    Returns one of ``RET_*``; on ``RET_GROW`` the caller enlarges the heap and the FIFO
    and calls again (the state is consistent between events, so the run resumes
    exactly). On ``RET_DONE`` and ``RET_HORIZON``, ``GF[S_NOW]`` is the time of the
    last event, counting replaced CPU events (``cpu_replaced``).
    """
    SI = S.G
    SF = S.GF
    jb = SI[S_JB]
    submits = S.F[jb:, J_SUB]  # jobs are the last rows
    nsub = submits.shape[0]
    horizon = S.GF[R_HORIZON]
    check = S.G[F_CHECK] != 0
    cap = S.HT.shape[0]
    mcap = S.MT.shape[0]
    now = SF[S_NOW]
    events = SI[S_EVENTS]
    ret = RET_HORIZON
    while True:
        i = SI[S_I]
        ts = submits[i] if i < nsub else INF
        stop = ts if ts < horizon else horizon
        th = INF
        while True:
            imm = SI[S_IMM]
            if imm:
                t = now
                src = 4
            else:
                t, src = next_event(S)
            th = t
            if src == 0 or t >= ts or t > stop:
                break
            if SI[S_HSIZE] + margin > cap or SI[S_MTAIL] - SI[S_MHEAD] + margin > mcap:
                stop_at(S, now, events)
                return RET_GROW
            if check:
                if t < now:
                    stop_at(S, now, events)
                    SF[S_ERRT] = t
                    return RET_BACKWARDS
                if not check_all(S, t):
                    stop_at(S, t, events)
                    return RET_INVARIANT
            now = t
            events += 1
            if SI[S_ERR] == ERR_HEAP:
                break
            to = -1  # a message to deposit into this process's endpoint ``side``
            side = 0
            if src == 4:
                n = imm - 1
                SI[S_IMM] = 0
                SI[S_CURSEQ] = SI[S_IMMSEQ]
                S.F[n, N_DUE] = INF
                node_event(S, n, t)
                if S.F[n, N_DUE] == INF:
                    cpu_update(S, n)
            elif src == 3:
                # The tree still shows the event while the node handles it; the node's
                # new event (resched) replays its path, or this does if it has none.
                n = SI[SI[S_TREEB] + 1]
                SI[S_CURSEQ] = SI[SI[S_TREEB] + 2 * SI[S_P2] + 1]
                S.F[n, N_DUE] = INF
                node_event(S, n, t)
                if S.F[n, N_DUE] == INF:
                    cpu_update(S, n)
            elif src == 2:
                h = SI[S_MHEAD]
                q = S.MI[h, 1]
                side = S.MI[h, 2]
                SI[S_CURSEQ] = S.MI[h, 0]
                if h + 1 == SI[S_MTAIL]:
                    SI[S_MHEAD] = 0
                    SI[S_MTAIL] = 0
                else:
                    SI[S_MHEAD] = h + 1
                to = q
            else:
                kind = S.HI[0, 1]
                obj = S.HI[0, 2]
                ver = S.HI[0, 3]
                SI[S_CURSEQ] = S.HI[0, 0]
                pop(S)
                if kind == EV_IODONE:
                    io_done(S, obj, t)
                elif kind == EV_RAISE:
                    raise_all(S, t)
                elif kind == EV_NOISE:
                    noise(S, obj, t)
                elif kind == EV_ARRIVE:  # NIC contention: messages go through the heap
                    side = ver - ARR_AT_NIC if ver >= ARR_AT_NIC else ver
                    if ver < ARR_AT_NIC or nic_in(S, obj, side, t):
                        to = obj
                else:
                    gang_slot(S, t)
            if to >= 0:  # one call site: the message handler is inlined once
                arrive(S, to, side, t)
        if SI[S_ERR] == ERR_HEAP:
            stop_at(S, now, events)
            return RET_OVERFLOW
        if ts == INF and th == INF:
            ret = RET_HORIZON if SI[S_BEYOND] else RET_DONE
            break
        if ts <= th:
            if ts > horizon:
                break
            if SI[S_HSIZE] + margin > cap or SI[S_MTAIL] - SI[S_MHEAD] + margin > mcap:
                stop_at(S, now, events)
                return RET_GROW
            now = ts
            SI[S_CURSEQ] = -1  # before every event due at ts
            while i < nsub and submits[i] == ts:
                SI[SI[S_QB] + SI[S_QTAIL]] = i
                SI[S_QTAIL] += 1
                i += 1
            SI[S_I] = i
            if i == nsub:
                snapshot(S, ts)
            try_start(S, ts)
            continue
        break
    now = lazy_flush(S, horizon, now)
    if ret == RET_DONE and SI[S_BEYOND]:
        ret = RET_HORIZON
    if SF[S_STALET] > now:
        now = SF[S_STALET]
    stop_at(S, now, events)
    return ret


@njit
def fold_all(S: State, t: float) -> None:
    """Account every node's running process up to ``t`` (end of run)."""
    for n in range(S.G[F_NNODES]):
        fold(S, n, t)
