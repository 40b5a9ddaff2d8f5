"""Gang scheduling: a job's processes enter their matrix row (:func:`gang_start`), and
at the end of every gang quantum every node switches to the next non-empty row, paying
the gang switch (:func:`gang_slot`). Under FCS the same two events start the process in
its cell and run the heartbeat (:mod:`.fcs`).
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.cpu import charge, fold, inbox_waiting, resched
from cosched.timesharing.kernel.events import push
from cosched.timesharing.kernel.fcs import fcs_slot, fcs_start
from cosched.timesharing.kernel.layout import (
    EV_SLOT,
    F_FCS,
    F_NNODES,
    G_GSR,
    INF,
    J_NPROCS,
    J_P0,
    J_ROW,
    N_ACT,
    N_BUSY,
    N_CUR,
    N_LAST,
    N_NPROCS,
    N_OVH,
    N_PL,
    P_INRECV,
    P_NODE,
    P_QLEFT,
    P_REM,
    P_STATE,
    P_SWITCHES,
    R_GSCS,
    R_GSQ,
    READY,
    RUNNING,
    S_GSACTIVE,
    S_GSCOL,
    S_TICKING,
    State,
)
from cosched.timesharing.kernel.matrix import next_slot


@njit
def gang_start(S: State, i: int, t: float) -> None:
    """Put a job's processes (``i``: its row) into its matrix row; they run now if
    the row is active."""
    row = S.I[i, J_ROW]
    S.G[G_GSR + row] += 1
    if not S.G[S_TICKING]:
        S.G[S_TICKING] = 1
        S.G[S_GSACTIVE] = row
        push(S, t + S.GF[R_GSQ], EV_SLOT, -1, 0)
    p0 = S.I[i, J_P0]
    for p in range(p0, p0 + S.I[i, J_NPROCS]):
        n = S.I[p, P_NODE]
        fold(S, n, t)
        S.I[n, S.G[S_GSCOL] + row] = p
        c = S.I[n, N_NPROCS]
        S.I[n, N_PL + c] = p
        S.I[n, N_NPROCS] = c + 1
        S.I[n, N_BUSY] += 1
        S.F[p, P_QLEFT] = INF
        S.I[p, P_STATE] = READY
        if S.G[F_FCS]:
            fcs_start(S, n, p, row, t)
            continue
        if row == S.G[S_GSACTIVE] and S.I[n, N_CUR] < 0:
            S.I[n, N_CUR] = p
            S.I[n, N_LAST] = p
            S.I[p, P_STATE] = RUNNING
            ovh = S.F[n, N_OVH]
            S.F[n, N_ACT] = ovh if ovh > t else t
            resched(S, n, t)


@njit
def gang_slot(S: State, t: float) -> None:
    """End of a gang quantum: every node switches to the next non-empty row."""
    if S.G[F_FCS]:
        fcs_slot(S, t)
        return
    nxt = next_slot(S, t)
    if nxt < 0:
        return
    active = S.G[S_GSACTIVE]
    if nxt == active:
        return
    S.G[S_GSACTIVE] = nxt
    cost = S.GF[R_GSCS]
    PI = S.I
    for n in range(S.G[F_NNODES]):
        if S.I[n, N_NPROCS] == 0:
            continue
        fold(S, n, t)
        old = S.I[n, N_CUR]
        if old >= 0:
            PI[old, P_STATE] = READY
        S.I[n, N_CUR] = -1
        charge(S, n, t, cost, 0)
        p = S.I[n, S.G[S_GSCOL] + nxt]
        if p >= 0 and PI[p, P_STATE] == READY:
            S.I[n, N_CUR] = p
            S.I[n, N_LAST] = p
            PI[p, P_STATE] = RUNNING
            PI[p, P_SWITCHES] += 1
            S.F[n, N_ACT] = S.F[n, N_OVH]
            if PI[p, P_INRECV] and inbox_waiting(S, p) > 0:
                S.F[p, P_REM] = 0.0
        resched(S, n, t)
