"""Linux 2.4's scheduler: the counter and goodness rules.

The FCS paper's nodes ran Red Hat Linux 7.3 (kernel 2.4.18). Its scheduler, by the
rules of kernel/sched.c and kernel/timer.c (docs/design/families.md, "Linux 2.4's rules
and their sources"):
every process has a counter of timer ticks; each tick (1/HZ) takes one from the
running process, and at 0 it must reschedule; ``schedule()`` runs the runnable
process of the highest goodness (counter + 20 - nice, + 1 for the process whose
memory map is loaded, 0 when the counter is spent), the first in the run queue on a
tie (a woken process goes to the head); when every runnable process's counter is
spent, a new epoch gives every process, sleeping ones included,
``counter / 2 + NICE_TO_TICKS(nice)``, so that a process that sleeps often comes
back with more; a woken process preempts the running one at once when its goodness
is higher. Nice is 0, and a tick that falls during a context switch or an interrupt
is charged to no process. By default every PE has its own queue and epochs (the
processes are bound to PEs); with ``F_SMP`` > 1 the PEs of a node (``F_SMP``
consecutive PEs) share one run queue and one epoch, as an SMP kernel's do: any PE of
the node runs any of its processes, goodness adds PROC_CHANGE_PENALTY (``F_PEN``) on
the PE a process ran on last, and a process that becomes runnable looks for a PE by
``reschedule_idle()`` (:func:`.dispatch.linux_place`; docs/design/families.md, "Linux
2.4's rules and their sources").

This module holds the rules that read or set a process's counter and goodness and
nothing else: what a tick takes (:func:`linux_ticks`), when the counter runs out
(:func:`linux_expiry`), goodness and the best runnable process. Linux's choice with its
epochs is in :mod:`.choice`; its ``schedule()``, wake-up and ``reschedule_idle()``, which
switch CPUs, are in :mod:`.dispatch`.
"""

from __future__ import annotations

import numpy as np

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.draws import skew_unit
from cosched.timesharing.kernel.layout import (
    CL_CS,
    CNT0_DRAW,
    F_FCS,
    F_PEN,
    F_SMP,
    MODE_CS,
    MODE_LOCAL,
    N_ACT,
    N_LAST,
    N_MODE,
    N_NPROCS,
    N_OVH,
    N_PL,
    P_CNT,
    P_CPU,
    P_KLASS,
    P_QKEY,
    P_STATE,
    R_HZ,
    READY,
    State,
)


@njit
def linux_start_counter(seed: int, rank: int, ntt: int) -> int:
    """The starting counter of task ``rank`` of a job with ``seed`` under
    ``linux_random_counter``: uniform in 1 .. ``ntt``, a draw of its own (index
    :data:`CNT0_DRAW`, never one of the skew's)."""
    return 1 + int(skew_unit(seed, rank, CNT0_DRAW) * ntt)


@njit
def linux_tick_of(S: State, t: float) -> int:
    """The index of the last timer tick at or before ``t`` (tick k falls at k / HZ)."""
    return int(np.floor(t * S.GF[R_HZ] + 1e-6))


@njit
def linux_ticks(S: State, p: int, a: float, t: float) -> None:
    """``p`` ran from ``a`` to ``t``: each tick in (a, t] takes one from its counter."""
    k = linux_tick_of(S, t) - linux_tick_of(S, a)
    if k > 0:
        c = S.I[p, P_CNT] - k
        S.I[p, P_CNT] = c if c > 0 else 0


@njit
def linux_expiry(S: State, n: int, p: int) -> float:
    """The tick at which the running ``p`` spends its counter (its accounting, which
    skips overheads, resumes at the node's ``act`` or at the end of the overhead)."""
    a = S.F[n, N_ACT]
    ovh = S.F[n, N_OVH]
    if ovh > a:
        a = ovh
    return (linux_tick_of(S, a) + S.I[p, P_CNT]) / S.GF[R_HZ]


@njit
def linux_goodness(S: State, n: int, q: int) -> int:
    """goodness() on PE ``n``: 0 for a spent counter, else counter + 20 (nice 0),
    + PROC_CHANGE_PENALTY if ``q`` ran last on ``n`` (``F_PEN``: 0 with one queue per
    PE), + 1 if ``q``'s memory map is the PE's (the process that ran last: no switch)."""
    c = S.I[q, P_CNT]
    if c <= 0:
        return 0
    pen = S.G[F_PEN] if S.I[q, P_CPU] == n else 0
    return c + 20 + pen + (1 if q == S.I[n, N_LAST] else 0)


@njit
def linux_first(S: State, n: int) -> int:
    """The first PE of ``n``'s node: the PEs sharing its run queue are ``F_SMP``
    consecutive ones."""
    return n - n % S.G[F_SMP]


@njit
def linux_best(S: State, n: int, skip_cs: bool) -> tuple[int, int]:
    """schedule()'s pass on PE ``n`` over its run queue (the processes of its node's
    PEs): the ready process of the highest goodness (the queue's first on a tie: the
    lowest queue key) and its goodness; (-1, -1) if none (``skip_cs``: FCS's CS
    processes left out; under FCS a process whose own PE holds a CS slot is suspended by
    the node manager)."""
    PI = S.I
    best = -1
    bg = -1
    bk = 0
    m0 = linux_first(S, n)
    for m in range(m0, m0 + S.G[F_SMP]):
        if S.G[F_FCS] and S.I[m, N_MODE] != MODE_LOCAL:
            continue
        for k in range(S.I[m, N_NPROCS]):
            q = S.I[m, N_PL + k]
            if PI[q, P_STATE] == READY and not (skip_cs and PI[q, P_KLASS] == CL_CS):
                g = linux_goodness(S, n, q)
                if g > bg or (g == bg and PI[q, P_QKEY] < bk):
                    best = q
                    bg = g
                    bk = PI[q, P_QKEY]
    return best, bg


@njit
def linux_free(S: State, n: int) -> bool:
    """May PE ``n``'s local scheduler run a process of the run queue (FCS: not while
    the node manager holds it for a CS slot)?"""
    return not (S.G[F_FCS] and S.I[n, N_MODE] == MODE_CS)
