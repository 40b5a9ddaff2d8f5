"""Who runs next on a node, by its local scheduler; nothing here switches a CPU.

:func:`pick` asks the node's scheduler: the multi-level feedback queue
(:func:`mlfq_choice`: the highest level, then the queue order kept by
:func:`requeue`), FCS's local scheduler outside a CS slot (:func:`pick_fcs`:
Algorithm 1 of the FCS paper, the active slot's F process first), or Linux 2.4's
(:func:`linux_choice`: the best goodness, with a new epoch by :func:`linux_recalc` when
every runnable counter is spent).
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.cpu import fold, resched
from cosched.timesharing.kernel.layout import (
    CL_CS,
    CL_F,
    F_CSLOCAL,
    F_FALL,
    F_FCS,
    F_FPRE,
    F_LINUX,
    F_NTT,
    F_SMP,
    MODE_LOCAL,
    N_CUR,
    N_MODE,
    N_NPROCS,
    N_PL,
    P_CNT,
    P_KLASS,
    P_LEVEL,
    P_QKEY,
    P_STATE,
    READY,
    S_GSACTIVE,
    S_GSCOL,
    S_QC,
    State,
)
from cosched.timesharing.kernel.linux import linux_best, linux_first


@njit
def requeue(S: State, p: int, head: bool) -> None:
    """Make ``p`` ready at the head or tail of its level's queue."""
    S.I[p, P_STATE] = READY
    qc = S.G[S_QC] + 1
    S.G[S_QC] = qc
    S.I[p, P_QKEY] = -qc if head else qc


@njit
def pick(S: State, n: int, t: float) -> int:
    """The ready process at the head of the highest non-empty level (-1: none)."""
    if S.G[F_FCS]:
        return pick_fcs(S, n, t)
    if S.G[F_LINUX]:
        return linux_choice(S, n, False, t)
    return mlfq_choice(S, n, False)


@njit
def mlfq_choice(S: State, n: int, skip_cs: bool) -> int:
    """The multi-level feedback queue's choice among node ``n``'s ready processes:
    the highest level, then the lowest queue key (``skip_cs``: CS processes left out)."""
    PI = S.I
    best = -1
    bl = -1
    bk = 0
    for k in range(S.I[n, N_NPROCS]):
        q = S.I[n, N_PL + k]
        if PI[q, P_STATE] == READY and not (skip_cs and PI[q, P_KLASS] == CL_CS):
            lv = PI[q, P_LEVEL]
            if lv > bl or (lv == bl and PI[q, P_QKEY] < bk):
                best = q
                bl = lv
                bk = PI[q, P_QKEY]
    return best


@njit
def fcs_slot_f(S: State, n: int) -> int:
    """FCS: the process of the active slot on node ``n`` if it is F (else -1)."""
    sp = S.I[n, S.G[S_GSCOL] + S.G[S_GSACTIVE]]
    if sp >= 0 and S.I[sp, P_KLASS] == CL_F:
        return sp
    return -1


@njit
def fcs_ready_f(S: State, n: int) -> int:
    """FCS with ``F_FALL``: the ready F process of PE ``n``'s run queue (the processes of
    its node's PEs in local slots) that was queued first (-1: none)."""
    PI = S.I
    best = -1
    bk = 0
    m0 = linux_first(S, n)
    for m in range(m0, m0 + S.G[F_SMP]):
        if S.I[m, N_MODE] != MODE_LOCAL:
            continue
        for k in range(S.I[m, N_NPROCS]):
            q = S.I[m, N_PL + k]
            ready_f = PI[q, P_STATE] == READY and PI[q, P_KLASS] == CL_F
            if ready_f and (best < 0 or PI[q, P_QKEY] < bk):
                best = q
                bk = PI[q, P_QKEY]
    return best


@njit
def fcs_wake_favoured(S: State, n: int, q: int) -> bool:
    """FCS with ``F_FPRE``: does the woken ``q`` preempt PE ``n``'s runner? The active
    slot's F process does; with ``F_FALL`` so does any F process, unless an F process
    runs."""
    if not S.G[F_FPRE]:
        return False
    if q == fcs_slot_f(S, n):
        return True
    cur = S.I[n, N_CUR]
    return (
        bool(S.G[F_FALL])
        and S.I[q, P_KLASS] == CL_F
        and not (cur >= 0 and S.I[cur, P_KLASS] == CL_F)
    )


@njit
def pick_fcs(S: State, n: int, t: float) -> int:
    """FCS's local scheduler (Algorithm 1, outside a CS slot): the active slot's F
    process first if ready (with ``F_FALL``, failing it, any ready F process of the run
    queue: :func:`fcs_ready_f`), else the MLFQ's choice among the DC and F processes (a
    CS process runs only in its own slot; with ``F_CSLOCAL`` in any slot but an F
    one)."""
    PI = S.I
    sp = fcs_slot_f(S, n)
    if not (sp >= 0 and PI[sp, P_STATE] == READY) and S.G[F_SMP] > 1:
        sp = linux_node_f(S, n)  # one run queue: another PE's slot F process
    f = sp if sp >= 0 and PI[sp, P_STATE] == READY else -1
    if f < 0 and S.G[F_FALL]:
        f = fcs_ready_f(S, n)
    if f >= 0:
        if S.G[F_LINUX] and PI[f, P_CNT] <= 0:
            linux_recalc(S, n, t)  # it may run only with ticks left: a new epoch
        return f
    skip_cs = S.G[F_CSLOCAL] == 0 or sp >= 0
    if S.G[F_LINUX]:
        return linux_choice(S, n, skip_cs, t)
    return mlfq_choice(S, n, skip_cs)


@njit
def linux_recalc(S: State, n: int, t: float) -> None:
    """A new epoch on PE ``n``'s run queue at ``t``: every process of its node
    (``for_each_task``) gets counter / 2 + NICE_TO_TICKS (integer halving, as ``counter
    >> 1``). The processes running on the node's other PEs are charged their ticks to
    ``t`` first, and their PEs' events follow their new counters."""
    m0 = linux_first(S, n)
    smp = S.G[F_SMP]
    if smp > 1:
        for m in range(m0, m0 + smp):
            if m != n and S.I[m, N_CUR] >= 0:
                fold(S, m, t)
    for m in range(m0, m0 + smp):
        for k in range(S.I[m, N_NPROCS]):
            q = S.I[m, N_PL + k]
            S.I[q, P_CNT] = (S.I[q, P_CNT] >> 1) + S.G[F_NTT]
    if smp > 1:
        for m in range(m0, m0 + smp):
            if m != n and S.I[m, N_CUR] >= 0:
                resched(S, m, t)


@njit
def linux_node_f(S: State, n: int) -> int:
    """FCS with one run queue per node: the first ready F process of an active local
    slot on another PE of ``n``'s node (-1: none); the node manager prioritizes it over
    all other processes of the queue (Algorithm 1)."""
    m0 = linux_first(S, n)
    for m in range(m0, m0 + S.G[F_SMP]):
        if m != n:
            sp = fcs_slot_f(S, m)
            if sp >= 0 and S.I[sp, P_STATE] == READY:
                return sp
    return -1


@njit
def linux_choice(S: State, n: int, skip_cs: bool, t: float) -> int:
    """schedule()'s choice among node ``n``'s ready processes (-1: none); when every
    one has spent its counter, a new epoch first."""
    best, g = linux_best(S, n, skip_cs)
    if best >= 0 and g == 0:
        linux_recalc(S, n, t)
        best, g = linux_best(S, n, skip_cs)
    return best
