"""The gang (Ousterhout) matrix that gang scheduling and FCS share: ``MPL`` rows of jobs,
one cell per node (``I[n, G[S_GSCOL] + r]``), jobs per row in ``G[G_GSR + r]``.
:func:`next_gang_row` is the slot rotation (gang quanta and FCS heartbeats), and
:func:`next_slot` turns it at the end of a slot;
:func:`row_cells` finds a row's free cells for a new job.
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.events import push
from cosched.timesharing.kernel.layout import (
    EV_SLOT,
    F_MPL,
    F_NNODES,
    G_GSR,
    R_GSQ,
    S_GSACTIVE,
    S_GSCOL,
    S_TICKING,
    S_TMPB,
    State,
)


@njit
def row_cells(S: State, r: int, procs: int) -> int:
    """The free cells of gang row ``r``; the first ``procs`` of their nodes go to
    ``G[G[S_TMPB]:]``."""
    out = S.G[S.G[S_TMPB] :]
    col = S.G[S_GSCOL] + r
    c = 0
    for n in range(S.G[F_NNODES]):
        if S.I[n, col] < 0:
            if c < procs:
                out[c] = n
            c += 1
    return c


@njit
def next_gang_row(S: State) -> int:
    """The gang matrix's next non-empty row after the active one (the active row when it
    is the only one), or -1 when every row is empty."""
    mpl = S.G[F_MPL]
    anyrow = False
    for r in range(mpl):
        if S.G[G_GSR + r] != 0:
            anyrow = True
            break
    if not anyrow:
        return -1
    active = S.G[S_GSACTIVE]
    for d in range(1, mpl + 1):
        r = (active + d) % mpl
        if S.G[G_GSR + r] > 0:
            return r
    return active


@njit
def next_slot(S: State, t: float) -> int:
    """At the end of a slot (gang quantum or FCS heartbeat) at ``t``: the next row to run
    (:func:`next_gang_row`) with the end of its slot scheduled, or -1 with the slot clock
    stopped when every row is empty."""
    nxt = next_gang_row(S)
    if nxt < 0:
        S.G[S_TICKING] = 0
        return nxt
    push(S, t + S.GF[R_GSQ], EV_SLOT, -1, 0)
    return nxt
