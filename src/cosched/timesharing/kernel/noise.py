"""OS noise: a periodic daemon on every PE.

A named reading (docs/design/families.md, "OS noise is a periodic daemon per PE"): every
PE runs a daemon that takes the CPU for ``noise_duration`` every ``noise_period``, at
``N_NPH + k * noise_period``
(the phase drawn per PE from the run's generator), charged as an interrupt: the
running process (computing, spinning or polling) is delayed by it, its quantum and
spin budget untouched; a process that becomes ready during it starts after it. The
daemons sleep while no job runs (a hit then takes nothing), so that a run ends.
"""

from __future__ import annotations

import numpy as np

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.cpu import charge, fold, resched
from cosched.timesharing.kernel.events import push
from cosched.timesharing.kernel.layout import (
    EV_NOISE,
    F_NNODES,
    N_NK,
    N_NPH,
    R_NDUR,
    R_NPER,
    S_RUNNING,
    State,
)


@njit
def noise_arm(S: State, t: float) -> None:
    """A job starts at ``t``: wake every sleeping daemon, at its first hit after ``t``."""
    per = S.GF[R_NPER]
    for n in range(S.G[F_NNODES]):
        if S.I[n, N_NK] >= 0:
            continue
        ph = S.F[n, N_NPH]
        k = int(np.floor((t - ph) / per)) + 1
        if k < 0:
            k = 0
        while ph + k * per <= t:
            k += 1
        S.I[n, N_NK] = k
        push(S, ph + k * per, EV_NOISE, n, 0)


@njit
def noise(S: State, n: int, t: float) -> None:
    """PE ``n``'s daemon runs: charge its CPU time, then sleep to its next hit; with no
    job running, it sleeps until the next job starts (nothing charged)."""
    if not S.G[S_RUNNING]:
        S.I[n, N_NK] = -1
        return
    fold(S, n, t)
    charge(S, n, t, S.GF[R_NDUR], 1)
    resched(S, n, t)
    k = S.I[n, N_NK] + 1
    S.I[n, N_NK] = k
    push(S, S.F[n, N_NPH] + k * S.GF[R_NPER], EV_NOISE, n, 0)
