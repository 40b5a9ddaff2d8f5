"""The gang (Ousterhout) matrix that gang scheduling and FCS share: ``MPL`` rows of jobs,
one cell per node (``I[n, G[S_GSCOL] + r]``), jobs per row in ``G[G_GSR + r]``.
:func:`next_gang_row` is the slot rotation (gang quanta and FCS heartbeats);
:func:`row_cells` finds a row's free cells for a new job.
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.layout import (
    F_MPL,
    F_NNODES,
    G_GSR,
    S_GSACTIVE,
    S_GSCOL,
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
