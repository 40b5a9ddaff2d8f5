"""A task's program: per iteration compute, I/O, send one message to each neighbour and
receive one from each (a job's ranks form a chain, or a ring when its ``J_RING`` says
so).

:func:`activity_done` moves a running process through its phases; :func:`receive`
consumes the messages present and spins, blocks or yields for a missing one, by scheme
(:func:`spin_expired` when the spin budget runs out); :func:`leave` frees the CPU,
:func:`finish` ends a task and :func:`end_job` a job, which lets the front start the
next.
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.cpu import charge, fold
from cosched.timesharing.kernel.dispatch import boost, dispatch, request_preempt
from cosched.timesharing.kernel.draws import factor
from cosched.timesharing.kernel.events import push, push_msg
from cosched.timesharing.kernel.front import try_start
from cosched.timesharing.kernel.layout import (
    BLOCKED,
    DONE,
    EPS,
    EV_IODONE,
    F_FCS,
    F_IOHOLD,
    F_SMP,
    F_WAIT,
    G_GSR,
    G_QU,
    INF,
    IO,
    J_DONE,
    J_END,
    J_NPROCS,
    J_P0,
    J_ROW,
    MODE_CS,
    N_BUSY,
    N_CUR,
    N_FORCE,
    N_IDLE,
    N_MODE,
    N_NPROCS,
    N_PL,
    N_PRE,
    N_TARGET,
    P_CCOMM,
    P_COMPUTE,
    P_INBOX0,
    P_INRECV,
    P_IO_T,
    P_IOCPU,
    P_IT,
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
    P_RECEIVED,
    P_RECV,
    P_REM,
    P_SEND,
    P_SENT,
    P_SPINNING,
    P_STATE,
    P_TBLOCK,
    P_TCOMM,
    P_TRECV,
    P_WAITING,
    P_YIELDED,
    R_COMM,
    R_EC,
    R_LATENCY,
    R_NICOCC,
    R_QM,
    R_SPIN,
    S_GSCOL,
    S_JB,
    S_RECEIVED,
    S_RUNNING,
    S_SENT,
    WAIT_BLOCK,
    State,
)
from cosched.timesharing.kernel.nic import nic_send, pb_candidate, set_speed


@njit
def send(S: State, p: int, q: int, side: int, t: float, arrive_t: float, contend: bool) -> None:
    """Process ``p``'s message at ``t`` to its neighbour ``q``, onto ``q``'s ``side``:
    through the network interface when it is contended (``contend``), else arriving at
    ``arrive_t``."""
    if contend:
        nic_send(S, p, q, side, t)
    else:
        push_msg(S, arrive_t, q, side)
    S.I[p, P_SENT] += 1
    S.G[S_SENT] += 1


@njit
def activity_done(S: State, n: int, p: int, t: float) -> None:
    """The running process finished its compute phase, a held I/O, a send, or a spin."""
    PI = S.I
    PF = S.F
    ph = PI[p, P_PHASE]
    if ph == P_COMPUTE:
        jio = PF[p, P_JIO]
        io = jio * factor(S, p) if jio > 0 else 0.0
        PI[p, P_PHASE] = P_SEND
        PF[p, P_REM] = 0.0
        if io > 0:
            PF[p, P_IO_T] += io
            if S.G[F_IOHOLD]:  # the I/O holds the CPU: one more activity (resched)
                PI[p, P_PHASE] = P_IOCPU
                PF[p, P_REM] = io
                return
            PI[p, P_STATE] = IO
            push(S, t + io, EV_IODONE, p, 0)
            leave(S, n, t)
            return
        ph = P_SEND
    elif ph == P_IOCPU:
        PI[p, P_PHASE] = P_SEND
        ph = P_SEND
    if ph == P_SEND:
        left = PI[p, P_NBR0]
        right = PI[p, P_NBR1]
        ts = t
        cost = S.GF[R_COMM]
        if cost > 0.0 and S.G[F_FCS] and (left >= 0 or right >= 0):
            # FCS's monitoring notes the synchronous operation's start (TSParams.
            # fcs_comm_cost): its CPU time, then the messages leave.
            charge(S, n, t, cost, 1)
            ts = t + cost
        arrive_t = ts + S.GF[R_LATENCY]
        contend = S.GF[R_NICOCC] > 0.0
        if left >= 0:
            send(S, p, left, 1, ts, arrive_t, contend)
        if right >= 0:
            send(S, p, right, 0, ts, arrive_t, contend)
        PI[p, P_PHASE] = P_RECV
        PI[p, P_INRECV] = 1
        PF[p, P_TRECV] = ts
        PI[p, P_WAITING] = 0 if left >= 0 else 1
        PF[p, P_REM] = S.GF[R_SPIN]
        PI[p, P_YIELDED] = 0
    receive(S, n, p, t)


@njit
def receive(S: State, n: int, p: int, t: float) -> None:
    """Consume available messages; spin, block or yield for a missing one."""
    PI = S.I
    PF = S.F
    while PI[p, P_WAITING] >= 0:
        s = PI[p, P_WAITING]
        if PI[p, P_NBR0 + s] < 0:
            PI[p, P_WAITING] = 1 if s == 0 else -1
            continue
        if PI[p, P_INBOX0 + s] > 0:
            PI[p, P_INBOX0 + s] -= 1
            PI[p, P_RECEIVED] += 1
            S.G[S_RECEIVED] += 1
            PI[p, P_WAITING] = 1 if s == 0 else -1
            PF[p, P_REM] = S.GF[R_SPIN]
            PI[p, P_YIELDED] = 0
            continue
        if PF[p, P_REM] > EPS:
            PI[p, P_SPINNING] = 1
            return
        spin_expired(S, n, p, t)
        return
    PI[p, P_SPINNING] = 0
    PI[p, P_INRECV] = 0
    if S.G[F_FCS] and (PI[p, P_NBR0] >= 0 or PI[p, P_NBR1] >= 0):
        # One blocking communication (the receives from both sides, back to back; a
        # task without neighbours makes none).
        PF[p, P_TCOMM] += t - PF[p, P_TRECV]
        PI[p, P_CCOMM] += 1
    PI[p, P_IT] += 1
    if PI[p, P_IT] >= PI[p, P_NITER]:
        finish(S, n, p, t)
        return
    PI[p, P_PHASE] = P_COMPUTE
    PF[p, P_REM] = PF[p, P_JCOMP] * factor(S, p)


@njit
def spin_expired(S: State, n: int, p: int, t: float) -> None:
    """The spin budget ran out: block (SB) or yield (SY); FCS polls on in a CS slot."""
    PI = S.I
    if S.G[F_FCS] and S.I[n, N_MODE] == MODE_CS:
        PI[p, P_SPINNING] = 1
        S.F[p, P_REM] = INF
        return
    if S.G[F_WAIT] == WAIT_BLOCK:
        PI[p, P_SPINNING] = 0
        PI[p, P_STATE] = BLOCKED
        S.F[p, P_TBLOCK] = t
        charge(S, n, t, S.GF[R_QM], 2)
        leave(S, n, t)
        return
    PI[p, P_SPINNING] = 1
    S.F[p, P_REM] = INF
    PI[p, P_YIELDED] = 1
    k = S.I[n, N_NPROCS]
    low = -1
    for a in range(k):
        q = S.I[n, N_PL + a]
        if q != p and PI[q, P_STATE] != DONE:
            lv = PI[q, P_LEVEL]
            if low < 0 or lv < low:
                low = lv
    if low >= 0:
        lv = low - 1
        if lv < 0:
            lv = 0
        PI[p, P_LEVEL] = lv
        S.F[p, P_QLEFT] = S.GF[G_QU + lv]
    cost = S.GF[R_EC] * k + 2 * S.GF[R_QM]
    charge(S, n, t, cost, 2)
    cand = pb_candidate(S, n, True)
    if cand >= 0:
        boost(S, cand)
        request_preempt(S, n, t, -1)


@njit
def leave(S: State, n: int, t: float) -> None:
    """The running process gave up the CPU (I/O, block, end)."""
    S.I[n, N_CUR] = -1
    if S.G[F_SMP] > 1:
        S.F[n, N_IDLE] = t
    S.F[n, N_PRE] = INF
    S.I[n, N_FORCE] = 0
    S.I[n, N_TARGET] = -1
    dispatch(S, n, t)


@njit
def finish(S: State, n: int, p: int, t: float) -> None:
    """A task did its last iteration; the job ends with its last task."""
    PI = S.I
    PI[p, P_STATE] = DONE
    PI[p, P_SPINNING] = 0
    j = S.G[S_JB] + PI[p, P_JOB]
    S.I[j, J_DONE] += 1
    fold(S, n, t)
    h = PI[p, P_NODE]  # its home PE's list (``n`` runs it: h unless a node-wide queue)
    k = S.I[h, N_NPROCS]
    NPL = S.I
    a = 0
    while NPL[h, N_PL + a] != p:
        a += 1
    for b in range(a, k - 1):
        NPL[h, N_PL + b] = NPL[h, N_PL + b + 1]
    NPL[h, N_PL + k - 1] = -1
    S.I[h, N_NPROCS] = k - 1
    set_speed(S, h)
    leave(S, n, t)
    if S.I[j, J_DONE] == S.I[j, J_NPROCS]:
        end_job(S, j, t)


@njit
def end_job(S: State, j: int, t: float) -> None:
    """Free the job's cells and start queued jobs (``j`` is the job's row)."""
    S.F[j, J_END] = t
    S.G[S_RUNNING] -= 1
    row = S.I[j, J_ROW]
    p0 = S.I[j, J_P0]
    for p in range(p0, p0 + S.I[j, J_NPROCS]):
        node = S.I[p, P_NODE]
        S.I[node, N_BUSY] -= 1
        if row >= 0:
            S.I[node, S.G[S_GSCOL] + row] = -1
    if row >= 0:
        S.G[G_GSR + row] -= 1
    try_start(S, t)
