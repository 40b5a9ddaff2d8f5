"""Flexible coscheduling (FCS paper, section 2): classes and the heartbeat.

A new process starts as CS in its cell of the matrix (:func:`fcs_start`). At the end
of its slot it is classified CS, F or DC by its granularity and compute per
communication (Algorithm 2, :func:`fcs_reclassify`). Every heartbeat
(:func:`fcs_slot`, the machine manager's multi-context-switch) each node applies
Algorithm 1 to the next row (:func:`fcs_enter`): a CS process runs alone for the whole
slot, polling; otherwise the local scheduler runs the F and DC processes with
spin-block, the slot's F process first. On SMP nodes under Linux 2.4 a node's PEs
settle their modes together (:func:`linux_fcs_modes`).
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.choice import fcs_slot_f, pick_fcs, requeue
from cosched.timesharing.kernel.cpu import charge, fold, inbox_waiting, resched
from cosched.timesharing.kernel.dispatch import dispatch
from cosched.timesharing.kernel.layout import (
    CL_CS,
    CL_DC,
    CL_F,
    DONE,
    F_CSLOCAL,
    F_CSMIN,
    F_HBCLOCK,
    F_LINUX,
    F_NNODES,
    F_SMP,
    F_TCRUN,
    F_TOP,
    F_TSMAX,
    G_QU,
    INF,
    MODE_CS,
    MODE_LOCAL,
    N_ACT,
    N_CUR,
    N_IDLE,
    N_LAST,
    N_MODE,
    N_NPROCS,
    N_OVH,
    N_PL,
    P_BLOCKED_T,
    P_CCOMM,
    P_COMPUTE_T,
    P_CPU,
    P_CSLOTS,
    P_INRECV,
    P_KLASS,
    P_LEVEL,
    P_NODE,
    P_QKEY,
    P_QLEFT,
    P_REM,
    P_SPIN_T,
    P_SPINNING,
    P_STATE,
    P_SWITCHES,
    P_TCOMM,
    P_TCPU0,
    P_TSLOTS,
    P_TWAIT0,
    R_CLS,
    R_CST,
    R_DCT,
    R_FT,
    R_GSCS,
    R_NM,
    R_QTOP,
    R_SPIN,
    READY,
    RUNNING,
    S_GSACTIVE,
    S_GSCOL,
    S_QC,
    State,
)
from cosched.timesharing.kernel.matrix import next_slot


@njit
def linux_fcs_modes(S: State, t: float) -> None:
    """FCS heartbeat with one run queue per node, before Algorithm 1 runs on each PE:
    every PE takes its mode for the new slot (CS: its slot's process is CS), and a
    running process that may not run on now leaves its PE (a CS process outside its own
    slot and PE, one whose own PE holds a CS slot, the PE's CS slot's other processes),
    so that no PE picks from the queue by the old slot's modes."""
    PI = S.I
    col = S.G[S_GSCOL] + S.G[S_GSACTIVE]
    for n in range(S.G[F_NNODES]):
        S.I[n, N_MODE] = fcs_mode(S, n)
    for n in range(S.G[F_NNODES]):
        cur = S.I[n, N_CUR]
        if cur < 0:
            continue
        if S.I[n, N_MODE] == MODE_CS:
            stay = cur == S.I[n, col]
        else:
            h = PI[cur, P_NODE]
            stay = PI[cur, P_KLASS] != CL_CS and S.I[h, N_MODE] == MODE_LOCAL
        if not stay:
            fold(S, n, t)
            requeue(S, cur, True)
            if S.F[cur, P_QLEFT] == INF:
                S.F[cur, P_QLEFT] = S.GF[G_QU + PI[cur, P_LEVEL]]
            S.I[n, N_CUR] = -1
            S.F[n, N_IDLE] = t


@njit
def fcs_start(S: State, n: int, p: int, row: int, t: float) -> None:
    """FCS: a new process (class CS) joins node ``n``'s cell of ``row``; it runs now if
    its row is the active one (whatever ran there is suspended)."""
    PI = S.I
    PI[p, P_LEVEL] = S.G[F_TOP]
    S.F[p, P_QLEFT] = S.GF[R_QTOP]
    PI[p, P_KLASS] = CL_CS
    qc = S.G[S_QC] + 1
    S.G[S_QC] = qc
    PI[p, P_QKEY] = -qc if S.G[F_LINUX] else qc  # Linux: the head of the run queue
    if row != S.G[S_GSACTIVE]:
        if S.G[F_CSLOCAL] and S.I[n, N_CUR] < 0:
            dispatch(S, n, t)  # an idle local slot may run it
            resched(S, n, t)
        return
    cur = S.I[n, N_CUR]
    if cur >= 0:
        requeue(S, cur, True)
        S.I[n, N_CUR] = -1
    S.I[n, N_MODE] = MODE_CS
    S.F[p, P_QLEFT] = INF
    S.I[n, N_CUR] = p
    S.I[n, N_LAST] = p
    PI[p, P_STATE] = RUNNING
    ovh = S.F[n, N_OVH]
    S.F[n, N_ACT] = ovh if ovh > t else t
    resched(S, n, t)


@njit
def fcs_reset(S: State, p: int) -> None:
    """FCS: restart a process's measurements (class change or age expiration)."""
    S.F[p, P_TCPU0] = S.F[p, P_COMPUTE_T]
    S.F[p, P_TCOMM] = 0.0
    S.F[p, P_TWAIT0] = S.F[p, P_SPIN_T] + S.F[p, P_BLOCKED_T]
    S.I[p, P_CCOMM] = 0


@njit
def fcs_reclassify(S: State, n: int, p: int) -> None:
    """Algorithm 2 of the FCS paper, for a process whose assigned slot just ended.

    Granularity ``g = (T_cpu + T_comm) / C_comm`` and compute per communication
    ``T_cpu / C_comm`` over the measurements since the last reset (a process that
    completed no blocking communication has infinite granularity: DC). T_comm is the
    wall time of the completed receives, or with ``F_TCRUN`` the seconds spent spinning,
    polling or blocked (a block counted when it ends), not those suspended or ready.
    With ``F_HBCLOCK`` it runs for every process at every heartbeat.
    """
    PI = S.I
    cs = PI[p, P_CSLOTS] + 1
    ts = PI[p, P_TSLOTS] + 1
    PI[p, P_CSLOTS] = cs
    PI[p, P_TSLOTS] = ts
    if cs < S.G[F_CSMIN]:
        return
    c = PI[p, P_CCOMM]
    tcpu = S.F[p, P_COMPUTE_T] - S.F[p, P_TCPU0]
    tcomm = S.F[p, P_TCOMM]
    if S.G[F_TCRUN]:
        tcomm = S.F[p, P_SPIN_T] + S.F[p, P_BLOCKED_T] - S.F[p, P_TWAIT0]
    g = INF
    tbar = INF
    if c > 0:
        g = (tcpu + tcomm) / c
        tbar = tcpu / c
    old = PI[p, P_KLASS]
    age = ts % S.G[F_TSMAX] == 0
    if age or g < S.GF[R_CST]:
        new = CL_CS
    elif g < S.GF[R_DCT] and tbar < S.GF[R_FT]:
        new = CL_F
    else:
        new = CL_DC
    if new != old:
        PI[p, P_KLASS] = new
        PI[p, P_CSLOTS] = 0
        S.F[p, P_QLEFT] = S.GF[G_QU + PI[p, P_LEVEL]]
    if new != old or age:
        fcs_reset(S, p)


@njit
def fcs_run(S: State, n: int, p: int, t: float) -> None:
    """Put ``p`` on node ``n``'s CPU at a heartbeat (the heartbeat pays the switch)."""
    S.I[n, N_CUR] = p
    S.I[n, N_LAST] = p
    S.I[p, P_CPU] = n
    S.I[p, P_STATE] = RUNNING
    S.I[p, P_SWITCHES] += 1
    ovh = S.F[n, N_OVH]
    S.F[n, N_ACT] = ovh if ovh > t else t
    if S.I[p, P_INRECV] and inbox_waiting(S, p) > 0:
        S.F[p, P_REM] = 0.0
    elif S.I[n, N_MODE] == MODE_LOCAL and S.I[p, P_SPINNING] and S.F[p, P_REM] == INF:
        S.F[p, P_REM] = S.GF[R_SPIN]


@njit
def fcs_mode(S: State, n: int) -> int:
    """Node ``n``'s mode in the active slot: CS if the slot's process is a live CS
    process (it runs alone, polling), else local."""
    sp = S.I[n, S.G[S_GSCOL] + S.G[S_GSACTIVE]]
    if sp >= 0 and S.I[sp, P_KLASS] == CL_CS and S.I[sp, P_STATE] != DONE:
        return MODE_CS
    return MODE_LOCAL


@njit
def fcs_enter(S: State, n: int, t: float) -> None:
    """Algorithm 1 of the FCS paper on node ``n`` for the new active slot: a CS
    process runs alone for the whole slot, polling; otherwise the local scheduler runs
    the DC and F processes with spin-block, the slot's F process first."""
    PI = S.I
    sp = S.I[n, S.G[S_GSCOL] + S.G[S_GSACTIVE]]
    cur = S.I[n, N_CUR]
    if fcs_mode(S, n) == MODE_CS:
        S.I[n, N_MODE] = MODE_CS
        S.F[sp, P_QLEFT] = INF
        if cur == sp:
            return
        if cur >= 0:
            requeue(S, cur, True)
            S.I[n, N_CUR] = -1
        if PI[sp, P_STATE] == READY:
            fcs_run(S, n, sp, t)
        return
    S.I[n, N_MODE] = MODE_LOCAL
    if cur >= 0 and (PI[cur, P_KLASS] == CL_CS or S.F[cur, P_QLEFT] == INF):
        requeue(S, cur, True)
        if S.F[cur, P_QLEFT] == INF:
            S.F[cur, P_QLEFT] = S.GF[G_QU + PI[cur, P_LEVEL]]
        S.I[n, N_CUR] = -1
        cur = -1
    if S.G[F_LINUX] and cur >= 0:
        PI[cur, P_STATE] = READY  # Linux: it competes in its place (no spurious epoch)
        best = pick_fcs(S, n, t)
        PI[cur, P_STATE] = RUNNING
    else:
        best = pick_fcs(S, n, t)
    if best < 0 or best == cur:
        return
    if cur >= 0:
        if best != fcs_slot_f(S, n):
            return  # the running DC or F process keeps the CPU
        requeue(S, cur, True)
    fcs_run(S, n, best, t)


@njit
def fcs_slot(S: State, t: float) -> None:
    """FCS heartbeat (the machine manager's multi-context-switch, every quantum): the
    ending slot's processes are reclassified (Algorithm 2; with ``F_HBCLOCK`` every live
    process, its age counted in heartbeats), then every node applies Algorithm 1 to the
    next non-empty row."""
    nxt = next_slot(S, t)
    if nxt < 0:
        return
    active = S.G[S_GSACTIVE]
    col = S.G[S_GSCOL]
    for n in range(S.G[F_NNODES]):
        if S.I[n, N_NPROCS] == 0 and S.I[n, N_CUR] < 0:
            continue
        fold(S, n, t)
        if S.G[F_HBCLOCK]:
            for a in range(S.I[n, N_NPROCS]):
                fcs_reclassify(S, n, S.I[n, N_PL + a])
                charge(S, n, t, S.GF[R_CLS], 1)
            continue
        p = S.I[n, col + active]
        if p >= 0 and S.I[p, P_STATE] != DONE:
            fcs_reclassify(S, n, p)
            charge(S, n, t, S.GF[R_CLS], 1)
    S.G[S_GSACTIVE] = nxt
    smp = S.G[F_SMP] > 1
    if smp:
        linux_fcs_modes(S, t)
    for n in range(S.G[F_NNODES]):
        if S.I[n, N_NPROCS] == 0 and S.I[n, N_CUR] < 0:
            continue
        fcs_enter(S, n, t)
        charge(S, n, t, S.GF[R_NM], 1)
        if nxt != active:
            charge(S, n, t, S.GF[R_GSCS], 0)
        resched(S, n, t)
    if smp:  # a PE left idle while its node's queue holds a runnable process takes it
        for n in range(S.G[F_NNODES]):
            if S.I[n, N_CUR] < 0 and S.I[n, N_MODE] == MODE_LOCAL:
                dispatch(S, n, t)
                resched(S, n, t)
