"""The network and I/O, and each scheme's reaction to them.

The NIC deposits a message into the receiver's endpoint (:func:`arrive`): a spinning
receiver sees it at once; a blocked one is woken by an interrupt (SB family); DCS
interrupts for a descheduled receiver and boosts it. An I/O completion makes its
process ready (:func:`io_done`). Periodic boost (PB) polls every endpoint every tick
(:func:`pb_tick`, :func:`pb_candidate`), a constant share of the CPU
(:func:`set_speed`).

Contention at the network interface (a named reading, ``TSParams.nic_bandwidth``; off by
default, when every message takes one latency and waits in the FIFO): the PEs of an
interface (``nic_pes``) share it, and a message holds its sending side for
``occ = msg_size / nic_bandwidth`` from when that side is free (:func:`nic_send`), reaches
the receiving interface one latency after it started, and is deposited into the endpoint
when the receiving side has ended its last deposit and ``occ`` more (:func:`nic_in`), in
the order messages reach it. Both are compiled out of line (the default's hot path
pays one test per send). A message alone takes one latency; two sent at once by
processes of one interface arrive ``occ`` apart. A message between PEs of one interface
does not cross it (one latency).
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.choice import fcs_wake_favoured
from cosched.timesharing.kernel.cpu import charge, fold, inbox_waiting, resched
from cosched.timesharing.kernel.dispatch import boost, dispatch, linux_wake, request_preempt
from cosched.timesharing.kernel.events import next_tick, push
from cosched.timesharing.kernel.layout import (
    ARR_AT_NIC,
    ARR_INTERRUPT,
    ARR_PERIODIC,
    BLOCKED,
    EV_ARRIVE,
    F_ARRIVAL,
    F_FCS,
    F_GANG,
    F_LINUX,
    F_NICPES,
    F_TOP,
    IO,
    MODE_CS,
    N_ACT,
    N_CUR,
    N_FORCE,
    N_LAST,
    N_MODE,
    N_NPROCS,
    N_OVH,
    N_PL,
    N_PRE,
    N_RR,
    N_RXF,
    N_SPEED,
    N_TARGET,
    N_TXF,
    P_BLOCKED_T,
    P_CPU,
    P_INBOX0,
    P_INRECV,
    P_LEVEL,
    P_NODE,
    P_QKEY,
    P_QLEFT,
    P_REM,
    P_SPINNING,
    P_STATE,
    P_TBLOCK,
    P_WAITING,
    R_EC,
    R_INTR,
    R_LATENCY,
    R_NICOCC,
    R_QM,
    R_QTOP,
    R_TICK,
    R_WAKE,
    READY,
    RUNNING,
    S_GSACTIVE,
    S_GSCOL,
    S_QC,
    State,
)


@njit
def set_speed(S: State, n: int) -> None:
    """PB polls every endpoint every tick: a constant share of the CPU."""
    if S.G[F_ARRIVAL] == ARR_PERIODIC:
        v = 1.0 - S.I[n, N_NPROCS] * S.GF[R_EC] / S.GF[R_TICK]
        S.F[n, N_SPEED] = v if v > 0.0 else 0.0


@njit
def nic_send(S: State, p: int, q: int, side: int, t: float) -> None:
    """Process ``p`` sends a message to ``q``'s endpoint ``side`` at ``t`` through its
    interface: it holds the sending side for ``R_NICOCC`` from when that side is free,
    and reaches the receiving interface one latency after it started (:func:`nic_in`)."""
    k = S.G[F_NICPES]
    a = (S.I[p, P_CPU] // k) * k
    b = (S.I[q, P_NODE] // k) * k
    lat = S.GF[R_LATENCY]
    if a == b:  # within one interface's PEs: it does not cross the interface
        push(S, t + lat, EV_ARRIVE, q, side)
        return
    tx = S.F[a, N_TXF]
    start = t if tx < t else tx
    S.F[a, N_TXF] = start + S.GF[R_NICOCC]
    push(S, start + lat, EV_ARRIVE, q, side + ARR_AT_NIC)


@njit
def nic_in(S: State, q: int, side: int, t: float) -> bool:
    """A message for ``q``'s endpoint ``side`` reaches its interface at ``t``: True if
    it is deposited now (the receiving side ended its last deposit ``R_NICOCC`` ago or
    more; the caller calls :func:`arrive`), else it is deposited, and arrives, when that
    side has ended it and ``R_NICOCC`` more."""
    b = (S.I[q, P_NODE] // S.G[F_NICPES]) * S.G[F_NICPES]
    rx = S.F[b, N_RXF] + S.GF[R_NICOCC]
    if rx <= t:
        S.F[b, N_RXF] = t
        return True
    S.F[b, N_RXF] = rx
    push(S, rx, EV_ARRIVE, q, side)
    return False


@njit
def arrive(S: State, q: int, side: int, t: float) -> None:
    """The NIC deposits a message into ``q``'s endpoint and reacts per scheme."""
    PI = S.I
    PI[q, P_INBOX0 + side] += 1
    n = PI[q, P_CPU]  # the PE it runs on, or ran on last (its home but under SMP)
    st = PI[q, P_STATE]
    arrival = S.G[F_ARRIVAL]
    if st == RUNNING:
        if PI[q, P_INRECV] and PI[q, P_WAITING] == side and PI[q, P_SPINNING]:
            fold(S, n, t)
            S.F[q, P_REM] = 0.0
            resched(S, n, t)
        return
    if st == BLOCKED and PI[q, P_WAITING] == side:
        charge(S, n, t, S.GF[R_INTR] + S.GF[R_WAKE], 1)
        S.F[q, P_BLOCKED_T] += t - S.F[q, P_TBLOCK]
        PI[q, P_STATE] = READY
        if S.G[F_LINUX]:
            linux_wake(S, q, t, 2)
            resched(S, n, t)
            return
        boost(S, q)
        qc = S.G[S_QC] + 1
        S.G[S_QC] = qc
        PI[q, P_QKEY] = -qc
        charge(S, n, t, S.GF[R_QM], 2)
        cur = S.I[n, N_CUR]
        if arrival == ARR_INTERRUPT:
            request_preempt(S, n, t, q)
        elif cur < 0 or PI[q, P_LEVEL] > PI[cur, P_LEVEL] or fcs_wake_favoured(S, n, q):
            request_preempt(S, n, t, -1)
        resched(S, n, t)
        return
    if arrival == ARR_INTERRUPT and st in (READY, IO):
        charge(S, n, t, S.GF[R_INTR] + S.GF[R_QM], 1)
        boost(S, q)
        if PI[q, P_STATE] == READY:
            request_preempt(S, n, t, q)
        resched(S, n, t)
        return
    if arrival == ARR_PERIODIC:
        resched(S, n, t)


@njit
def io_done(S: State, p: int, t: float) -> None:
    """An I/O finished: the process wakes with a boost (or resumes in its slot)."""
    PI = S.I
    NF = S.F
    n = PI[p, P_NODE]
    if S.G[F_GANG] and (not S.G[F_FCS] or S.I[n, N_MODE] == MODE_CS):
        PI[p, P_STATE] = READY
        if S.I[n, N_CUR] < 0 and S.I[n, S.G[S_GSCOL] + S.G[S_GSACTIVE]] == p:
            S.I[n, N_CUR] = p
            S.I[n, N_LAST] = p
            PI[p, P_CPU] = n
            PI[p, P_STATE] = RUNNING
            ovh = NF[n, N_OVH]
            NF[n, N_ACT] = ovh if ovh > t else t
            resched(S, n, t)
        return
    PI[p, P_STATE] = READY
    if S.G[F_LINUX]:
        linux_wake(S, p, t, 1)
        resched(S, PI[p, P_CPU], t)
        return
    top = S.G[F_TOP]
    PI[p, P_LEVEL] = top
    S.F[p, P_QLEFT] = S.GF[R_QTOP]
    qc = S.G[S_QC] + 2
    S.G[S_QC] = qc
    PI[p, P_QKEY] = -qc
    cur = S.I[n, N_CUR]
    if cur < 0:
        dispatch(S, n, t)
        resched(S, n, t)
        return
    fold(S, n, t)  # resched reads the runner's activity as of t (a free queue move
    charge(S, n, t, S.GF[R_QM], 2)  # does not fold it)
    if top > PI[cur, P_LEVEL]:
        nt = next_tick(S, t)
        if nt < NF[n, N_PRE]:
            NF[n, N_PRE] = nt
    resched(S, n, t)


@njit
def pb_candidate(S: State, n: int, rule2: bool) -> int:
    """PB heuristic: round robin from the running process (-1: none)."""
    PI = S.I
    k = S.I[n, N_NPROCS]
    cur = S.I[n, N_CUR]
    start = -1
    for a in range(k):
        if S.I[n, N_PL + a] == cur:
            start = a
            break
    if start < 0:
        start = S.I[n, N_RR] % (k if k > 1 else 1)
    for a in range(k):
        q = S.I[n, N_PL + (start + a) % k]
        if q != cur and PI[q, P_STATE] == READY and PI[q, P_INRECV] and inbox_waiting(S, q) > 0:
            return q
    if rule2:
        for a in range(k):
            q = S.I[n, N_PL + (start + a) % k]
            if q != cur and PI[q, P_STATE] == READY and not PI[q, P_INRECV]:
                return q
    return -1


@njit
def pb_tick(S: State, n: int, t: float) -> None:
    """The PB kernel thread: boost the heuristic's candidate, preempt at once."""
    cur = S.I[n, N_CUR]
    rule2 = cur >= 0 and S.I[cur, P_SPINNING] != 0
    cand = pb_candidate(S, n, rule2)
    if cand < 0:
        return
    for a in range(S.I[n, N_NPROCS]):
        if S.I[n, N_PL + a] == cand:
            S.I[n, N_RR] = a
            break
    charge(S, n, t, S.GF[R_QM], 2)
    S.I[cand, P_LEVEL] = S.G[F_TOP]
    S.F[cand, P_QLEFT] = S.GF[R_QTOP]
    if S.I[cand, P_STATE] == READY:
        qc = S.G[S_QC] + 1
        S.G[S_QC] = qc
        S.I[cand, P_QKEY] = -qc
    S.F[n, N_PRE] = t
    S.I[n, N_FORCE] = 1
    S.I[n, N_TARGET] = cand
