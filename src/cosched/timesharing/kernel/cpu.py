"""CPU accounting and each node's one pending CPU event.

A node has at most one pending CPU event: the running process's activity is advanced
as a whole (a compute phase, or a spin up to its budget) by :func:`fold`, overheads
(switches, interrupts, queue moves) are charged by :func:`charge`, and
:func:`resched` puts the node's event at the earliest of activity end, quantum expiry,
a pending preemption tick or a pending periodic-boost tick. The 1 ms scheduler tick is
never an event by itself.

An FCS poller's spin end in its CS slot changes nothing but its own node
(:func:`lazy_ok`): it stays out of the tree (``N_LAZY``) and is handled, in its place by
(time, sequence number), when something next touches the node (:func:`fold` and
:func:`resched` call :func:`lazy_resolve`) or at the end of the run
(:func:`lazy_flush`), and counted as an event then.
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.events import cpu_replaced, cpu_update, due_by, next_seq, next_tick
from cosched.timesharing.kernel.layout import (
    ARR_PERIODIC,
    EPS,
    F_ARRIVAL,
    F_FCS,
    F_LINUX,
    F_NNODES,
    INF,
    MODE_CS,
    N_ACT,
    N_CHECK,
    N_COMPUTE,
    N_CS,
    N_CUR,
    N_DUE,
    N_INTR,
    N_IOCPU,
    N_LAZY,
    N_MODE,
    N_NPROCS,
    N_OVH,
    N_PB,
    N_PL,
    N_PRE,
    N_QUEUE,
    N_SPEED,
    N_SPIN,
    P_COMPUTE_T,
    P_INBOX0,
    P_INRECV,
    P_IOCPU,
    P_NBR0,
    P_PHASE,
    P_QLEFT,
    P_RECV,
    P_REM,
    P_SPIN_T,
    P_SPINNING,
    P_STATE,
    P_WAITING,
    READY,
    S_BEYOND,
    S_CURSEQ,
    S_IMM,
    S_IMMSEQ,
    S_LAZYN,
    S_P2,
    S_TREEB,
    S_TREEF,
    State,
)
from cosched.timesharing.kernel.linux import linux_expiry, linux_ticks


@njit
def fold(S: State, n: int, t: float) -> None:
    """Account the running process's activity from the node's ``act`` to ``t``."""
    if S.I[n, N_LAZY]:
        lazy_resolve(S, n, t)
    fold_acct(S, n, t)


@njit
def fold_acct(S: State, n: int, t: float) -> None:
    """:func:`fold` itself (the node has no lazy spin end pending)."""
    NF = S.F
    p = S.I[n, N_CUR]
    if p < 0:
        return
    a = NF[n, N_ACT]
    ovh = NF[n, N_OVH]
    if ovh > a:
        a = ovh
    if t > a:
        dt = t - a
        PF = S.F
        if S.I[p, P_SPINNING]:
            PF[p, P_SPIN_T] += dt
            NF[n, N_SPIN] += dt
            PF[p, P_REM] -= dt
        else:
            w = dt * NF[n, N_SPEED]
            if S.I[p, P_PHASE] == P_IOCPU:  # an I/O holding the CPU: not useful work
                NF[n, N_IOCPU] += w
            else:
                PF[p, P_COMPUTE_T] += w
                NF[n, N_COMPUTE] += w
            NF[n, N_CHECK] += dt - w
            PF[p, P_REM] -= w
        PF[p, P_QLEFT] -= dt
        NF[n, N_ACT] = t
        if S.G[F_LINUX]:
            linux_ticks(S, p, a, t)


@njit
def charge(S: State, n: int, t: float, cost: float, kind: int) -> None:
    """Overhead of ``cost`` seconds from ``t`` (kind 0: switch, 1: interrupt, 2: queue)."""
    if cost <= 0:
        return
    NF = S.F
    if S.I[n, N_CUR] >= 0:
        fold(S, n, t)
    ovh = NF[n, N_OVH]
    ovh = (ovh if ovh > t else t) + cost
    NF[n, N_OVH] = ovh
    NF[n, N_ACT] = ovh
    if kind == 0:
        NF[n, N_CS] += cost
    elif kind == 1:
        NF[n, N_INTR] += cost
    else:
        NF[n, N_QUEUE] += cost


@njit
def inbox_waiting(S: State, q: int) -> int:
    """Messages present on the side ``q`` waits for (after its receive, side -1: side 1)."""
    return S.I[q, P_INBOX0 + (S.I[q, P_WAITING] & 1)]


@njit
def resched(S: State, n: int, t: float) -> None:
    """Replace the node's pending CPU event by the next one that matters.

    When the next event falls at the time of the pending one, the pending event is
    kept, with its sequence number (the handler reads the node's state, not the event).
    """
    NI = S.I
    NF = S.F
    PI = S.I
    if NI[n, N_LAZY]:
        lazy_resolve(S, n, t)
    p = NI[n, N_CUR]
    if p < 0:
        if NF[n, N_DUE] != INF:
            cpu_replaced(S, NF[n, N_DUE])
            NF[n, N_DUE] = INF
            if S.G[S_IMM] == n + 1:
                S.G[S_IMM] = 0
            cpu_update(S, n)
        return
    spinning = PI[p, P_SPINNING]
    if S.G[F_ARRIVAL] == ARR_PERIODIC and NF[n, N_PB] == INF:
        for k in range(NI[n, N_NPROCS]):
            q = S.I[n, N_PL + k]
            if PI[q, P_STATE] == READY and q != p:
                if PI[q, P_INRECV]:
                    if inbox_waiting(S, q) > 0:
                        NF[n, N_PB] = next_tick(S, t)
                        break
                elif spinning:
                    NF[n, N_PB] = next_tick(S, t)
                    break
    a = NF[n, N_ACT]
    ovh = NF[n, N_OVH]
    if ovh > a:
        a = ovh
    if a < t:
        a = t
    rem = S.F[p, P_REM]
    te = a + rem if spinning else a + rem / NF[n, N_SPEED]
    tq = linux_expiry(S, n, p) if S.G[F_LINUX] else a + S.F[p, P_QLEFT]
    if tq < te:
        te = tq
    x = NF[n, N_PRE]
    if x < te:
        te = x
    x = NF[n, N_PB]
    if x < te:
        te = x
    if te < a:
        te = a
    old = NF[n, N_DUE]
    if te == old:
        return
    if old < INF:
        cpu_replaced(S, old)
        if S.G[S_IMM] == n + 1:
            S.G[S_IMM] = 0
    NF[n, N_DUE] = te
    if te < INF:
        seq = next_seq(S)
        if te == t and S.G[S_IMM] == 0 and not due_by(S, t):
            # Due now, after every pending event: it is the next event of all. The loop
            # takes it from S_IMM; the tree keeps the node's replaced event (later than
            # now) until the node's next change replays its path.
            S.G[S_IMM] = n + 1
            S.G[S_IMMSEQ] = seq
            return
        S.G[S.G[S_TREEB] + 3 * S.G[S_P2] + n] = seq  # the node's leaf
        if spinning and S.G[F_FCS] and lazy_ok(S, n, p, te):
            NI[n, N_LAZY] = 1
            if S.GF[S.G[S_TREEF] + S.G[S_P2] + n] != INF:
                NF[n, N_DUE] = INF  # the tree shows no event for the node
                cpu_update(S, n)
                NF[n, N_DUE] = te
            return
    cpu_update(S, n)


@njit
def lazy_ok(S: State, n: int, p: int, te: float) -> bool:
    """Is node ``n``'s new CPU event at ``te`` a CS poller's spin end that changes
    nothing but its own node and process (FCS: the spin budget runs out in a CS slot
    and the process polls on)?

    Then the event is kept out of the tree (``N_LAZY``): it is handled when something
    next touches the node (:func:`lazy_resolve`, from :func:`fold` and
    :func:`resched`), or at the end of the run, and counted as an event then. Its
    handling is predicted here from the node's state, which nothing changes until that
    touch: the accounting of ``fold`` to ``te`` leaves the spin budget at most ``EPS``,
    the receive still waits for a message that is not there, and the following
    ``resched`` finds no event (no tick, boost or quantum pending).
    """
    NF = S.F
    PI = S.I
    if S.I[n, N_MODE] != MODE_CS or S.G[F_ARRIVAL] == ARR_PERIODIC or S.G[F_LINUX]:
        return False
    if NF[n, N_PRE] != INF or NF[n, N_PB] != INF or S.F[p, P_QLEFT] != INF:
        return False
    s = PI[p, P_WAITING]
    if PI[p, P_PHASE] != P_RECV or not PI[p, P_INRECV] or s < 0:
        return False
    if PI[p, P_NBR0 + s] < 0 or PI[p, P_INBOX0 + s] > 0:
        return False
    a = NF[n, N_ACT]
    ovh = NF[n, N_OVH]
    if ovh > a:
        a = ovh
    if te < ovh - EPS:
        return False
    rem = S.F[p, P_REM]
    if te > a:
        rem -= te - a
    return rem <= EPS


@njit
def lazy_resolve(S: State, n: int, t: float) -> None:
    """Something touches node ``n`` at ``t`` while its lazy spin end is pending: handle
    the spin end first if it came earlier by (time, sequence number), else put it in
    the tree, where the single heap had it."""
    S.I[n, N_LAZY] = 0
    te = S.F[n, N_DUE]
    sq = S.G[S.G[S_TREEB] + 3 * S.G[S_P2] + n]
    if te < t or (te == t and sq < S.G[S_CURSEQ]):
        lazy_expire(S, n, te)
    else:
        cpu_update(S, n)


@njit
def lazy_expire(S: State, n: int, te: float) -> None:
    """Node ``n``'s lazy spin end at ``te``, as ``node_event`` handles it (see
    :func:`lazy_ok`): account to ``te``; the process polls on."""
    p = S.I[n, N_CUR]
    fold_acct(S, n, te)
    S.I[p, P_SPINNING] = 1
    S.F[p, P_REM] = INF
    S.F[n, N_DUE] = INF
    S.G[S_LAZYN] += 1


@njit
def lazy_flush(S: State, horizon: float, now: float) -> float:
    """End of a run: handle the lazy spin ends due by ``horizon`` (the single heap
    would have); the time of the last event, ``now`` or later."""
    for n in range(S.G[F_NNODES]):
        if S.I[n, N_LAZY]:
            te = S.F[n, N_DUE]
            if te <= horizon:
                S.I[n, N_LAZY] = 0
                lazy_expire(S, n, te)
                if te > now:
                    now = te
            else:
                S.G[S_BEYOND] = 1  # still pending: a horizon stop
    return now
