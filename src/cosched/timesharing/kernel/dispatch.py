"""Giving a CPU to a process and taking it away.

:func:`switch_to` and :func:`dispatch` run the chosen process (paying the context
switch); a higher-priority process waits for the next tick (:func:`request_preempt`,
:func:`preempt`); the MLFQ demotes a process whose quantum expired (:func:`expire`),
moves a boosted one to the head of the top level (:func:`boost`) and raises every
process back to the top every second (:func:`raise_all`). Linux 2.4's side of the same
events: ``schedule()`` (:func:`linux_schedule`), a spent counter
(:func:`linux_expire`), a wake-up (:func:`linux_wake`) and ``reschedule_idle()``
(:func:`linux_place`).
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.choice import fcs_wake_favoured, linux_recalc, pick, requeue
from cosched.timesharing.kernel.cpu import charge, fold, inbox_waiting, resched
from cosched.timesharing.kernel.events import next_tick, push
from cosched.timesharing.kernel.layout import (
    CL_CS,
    DONE,
    EV_RAISE,
    F_FCS,
    F_GANG,
    F_LINUX,
    F_NNODES,
    F_SMP,
    F_TOP,
    F_WPRE,
    G_QU,
    INF,
    MODE_CS,
    MODE_LOCAL,
    N_ACT,
    N_CS,
    N_CUR,
    N_FORCE,
    N_IDLE,
    N_LAST,
    N_MODE,
    N_NPROCS,
    N_OVH,
    N_PL,
    N_PRE,
    N_TARGET,
    P_CPU,
    P_INRECV,
    P_KLASS,
    P_LEVEL,
    P_NODE,
    P_QKEY,
    P_QLEFT,
    P_REM,
    P_SPINNING,
    P_STATE,
    P_SWITCHES,
    R_CS,
    R_QM,
    R_QTOP,
    R_RAISE,
    R_SPIN,
    READY,
    RUNNING,
    S_GSACTIVE,
    S_GSCOL,
    S_QC,
    S_RUNNING,
    S_TICKING,
    S_TMPB,
    State,
)
from cosched.timesharing.kernel.linux import linux_first, linux_free, linux_goodness


@njit
def switch_to(S: State, n: int, p: int, t: float) -> None:
    """Give the CPU to ``p``."""
    NF = S.F
    PI = S.I
    if NF[n, N_ACT] < t:
        NF[n, N_ACT] = t
    S.I[n, N_CUR] = p
    PI[p, P_STATE] = RUNNING
    if S.G[F_SMP] > 1:  # with one queue per PE a process runs only on its own
        PI[p, P_CPU] = n
    cost = S.GF[R_CS] if p != S.I[n, N_LAST] else 0.0
    if cost > 0:
        PI[p, P_SWITCHES] += 1
    S.I[n, N_LAST] = p
    ovh = NF[n, N_OVH]
    if cost > 0:
        ovh = (ovh if ovh > t else t) + cost
        NF[n, N_OVH] = ovh
        NF[n, N_CS] += cost
    NF[n, N_ACT] = ovh if ovh > t else t
    if PI[p, P_INRECV] and inbox_waiting(S, p) > 0:
        S.F[p, P_REM] = 0.0
    elif S.G[F_FCS] and PI[p, P_SPINNING] and S.F[p, P_REM] == INF:
        S.F[p, P_REM] = S.GF[R_SPIN]  # it polled in a CS slot; here it spin-blocks


@njit
def dispatch(S: State, n: int, t: float) -> None:
    """The CPU is free: run the best ready process, if any (GS: none until the next
    slot; FCS in a CS slot: only the slot's process)."""
    S.I[n, N_CUR] = -1
    if S.G[F_GANG]:
        if not S.G[F_FCS]:
            return
        if S.I[n, N_MODE] == MODE_CS:
            sp = S.I[n, S.G[S_GSCOL] + S.G[S_GSACTIVE]]
            if sp >= 0 and S.I[sp, P_STATE] != DONE:
                if S.I[sp, P_STATE] == READY:
                    switch_to(S, n, sp, t)
                return
            S.I[n, N_MODE] = MODE_LOCAL  # the slot's process ended: the gap is local
    best = pick(S, n, t)
    if best >= 0:
        switch_to(S, n, best, t)


@njit
def request_preempt(S: State, n: int, t: float, target: int) -> None:
    """Preempt at the next tick (forced if ``target`` >= 0)."""
    if S.I[n, N_CUR] < 0:
        dispatch(S, n, t)
        return
    nt = next_tick(S, t)
    if nt < S.F[n, N_PRE]:
        S.F[n, N_PRE] = nt
    if target >= 0:
        S.I[n, N_FORCE] = 1
        S.I[n, N_TARGET] = target


@njit
def boost(S: State, p: int) -> None:
    """Move ``p`` to the head of the top level."""
    PI = S.I
    PI[p, P_LEVEL] = S.G[F_TOP]
    S.F[p, P_QLEFT] = S.GF[R_QTOP]
    if PI[p, P_STATE] == READY:
        qc = S.G[S_QC] + 1
        S.G[S_QC] = qc
        PI[p, P_QKEY] = -qc


@njit
def preempt(S: State, n: int, t: float) -> None:
    """The pending tick: preempt if forced or a higher-priority process is ready."""
    NI = S.I
    cur = NI[n, N_CUR]
    target = NI[n, N_TARGET] if NI[n, N_FORCE] else -1
    NI[n, N_FORCE] = 0
    NI[n, N_TARGET] = -1
    if cur < 0:
        dispatch(S, n, t)
        return
    if S.G[F_FCS] and NI[n, N_MODE] == MODE_CS:
        return  # a CS process is never preempted in its slot
    if S.G[F_LINUX]:
        linux_schedule(S, n, t)
        return
    if target < 0 or S.I[target, P_STATE] != READY:
        target = pick(S, n, t)
        if target < 0 or target == cur:
            return
        favoured = S.G[F_FCS] and fcs_wake_favoured(S, n, target)  # slot's F
        if S.I[target, P_LEVEL] <= S.I[cur, P_LEVEL] and not favoured:
            return
    fold(S, n, t)
    requeue(S, cur, True)
    switch_to(S, n, target, t)


@njit
def expire(S: State, n: int, p: int, t: float) -> None:
    """Quantum expiry: demote one level, to the tail, and pick again."""
    PI = S.I
    if S.G[F_FCS] and S.I[n, N_MODE] == MODE_CS:
        S.F[p, P_QLEFT] = INF  # a CS process keeps its whole slot
        return
    if PI[p, P_LEVEL] > 0:
        PI[p, P_LEVEL] -= 1
    S.F[p, P_QLEFT] = S.GF[G_QU + PI[p, P_LEVEL]]
    requeue(S, p, False)
    best = pick(S, n, t)
    if best == p:
        PI[p, P_STATE] = RUNNING
    else:
        switch_to(S, n, best, t)


@njit
def raise_all(S: State, t: float) -> None:
    """Every second: all processes back to the top level, keeping their order."""
    PI = S.I
    top = S.G[F_TOP]
    qtop = S.GF[R_QTOP]
    order = S.G[S.G[S_TMPB] :]
    for n in range(S.G[F_NNODES]):
        k = S.I[n, N_NPROCS]
        if k == 0:
            continue
        fold(S, n, t)
        # sort the node's processes by (-level, qkey): insertion sort (k <= MPL)
        for a in range(k):
            q = S.I[n, N_PL + a]
            b = a
            while b > 0:
                r = order[b - 1]
                if PI[r, P_LEVEL] < PI[q, P_LEVEL] or (
                    PI[r, P_LEVEL] == PI[q, P_LEVEL] and PI[r, P_QKEY] > PI[q, P_QKEY]
                ):
                    order[b] = r
                    b -= 1
                else:
                    break
            order[b] = q
        for a in range(k):
            q = order[a]
            PI[q, P_LEVEL] = top
            S.F[q, P_QLEFT] = qtop
            qc = S.G[S_QC] + 1
            S.G[S_QC] = qc
            PI[q, P_QKEY] = qc
        resched(S, n, t)
    if S.G[S_RUNNING]:
        push(S, t + S.GF[R_RAISE], EV_RAISE, -1, 0)
    else:
        S.G[S_TICKING] = 0


@njit
def linux_schedule(S: State, n: int, t: float) -> None:
    """schedule() with the running process still runnable (its counter spent, or a
    woken process's goodness above it): it competes in its place in the queue."""
    cur = S.I[n, N_CUR]
    S.I[cur, P_STATE] = READY
    best = pick(S, n, t)
    if best < 0 or best == cur:
        S.I[cur, P_STATE] = RUNNING
        return
    switch_to(S, n, best, t)
    if S.G[F_SMP] > 1:  # __schedule_tail(): the runnable ``cur`` looks for another PE
        linux_place(S, cur, t)


@njit
def linux_expire(S: State, n: int, t: float) -> None:
    """The running process's counter is spent. In an FCS CS slot the node manager has
    stopped every other process, so the slot's process is the only runnable one: a new
    epoch, and it runs on."""
    if S.G[F_FCS] and S.I[n, N_MODE] == MODE_CS:
        linux_recalc(S, n, t)
        return
    linux_schedule(S, n, t)


@njit
def linux_wake(S: State, q: int, t: float, queue_move: int) -> None:
    """wake_up_process(): ``q`` (ready) joins the head of the run queue and looks for a
    PE (:func:`linux_place`). The queue move is charged as under the MLFQ, on the PE
    ``q`` ran on last (``queue_move``): 2 always (a wake-up by the NIC's interrupt), 1
    when a process holds that PE (an I/O completion), 0 never (a new process)."""
    qc = S.G[S_QC] + 1
    S.G[S_QC] = qc
    S.I[q, P_QKEY] = -qc
    n = S.I[q, P_CPU]
    if queue_move == 2 or (queue_move == 1 and S.I[n, N_CUR] >= 0):
        charge(S, n, t, S.GF[R_QM], 2)
    linux_place(S, q, t)


@njit
def linux_place(S: State, q: int, t: float) -> None:
    """reschedule_idle(): the runnable ``q`` looks for a PE of its node. If the PE it
    ran on last is idle, that PE schedules now; else the idle PE that went idle first;
    else (``F_WPRE``) the PE whose running process ``q`` beats by the most goodness
    (``q``'s goodness on that PE minus the runner's, > 0) is preempted at once, after
    the overhead under way (FCS with ``F_FPRE``: failing that, the PE whose active slot
    is ``q``'s, if ``q`` is its F process). With one queue per PE this is the
    uniprocessor rule: an idle PE schedules, a busy one is preempted when ``q``'s
    goodness is the higher. Under FCS a CS process, or one whose PE holds a CS slot,
    runs only on its own PE in its own slot (Algorithm 1)."""
    PI = S.I
    h = PI[q, P_NODE]
    if S.G[F_FCS] and (PI[q, P_KLASS] == CL_CS or S.I[h, N_MODE] == MODE_CS):
        if S.I[h, N_CUR] < 0:
            dispatch(S, h, t)
            resched(S, h, t)
        return
    n = PI[q, P_CPU]
    if S.I[n, N_CUR] < 0 and linux_free(S, n):
        dispatch(S, n, t)
        resched(S, n, t)
        return
    m0 = linux_first(S, n)
    tgt = -1
    oldest = INF
    for m in range(m0, m0 + S.G[F_SMP]):
        if S.I[m, N_CUR] < 0 and linux_free(S, m) and S.F[m, N_IDLE] < oldest:
            oldest = S.F[m, N_IDLE]
            tgt = m
    if tgt >= 0:
        dispatch(S, tgt, t)
        resched(S, tgt, t)
        return
    if S.G[F_WPRE]:
        top = 0
        for m in range(m0, m0 + S.G[F_SMP]):
            cur = S.I[m, N_CUR]
            if cur >= 0 and linux_free(S, m):
                fold(S, m, t)  # the runner's counter at t
                prio = linux_goodness(S, m, q) - linux_goodness(S, m, cur)
                if prio > top:
                    top = prio
                    tgt = m
    if tgt < 0 and fcs_wake_favoured(S, h, q) and linux_free(S, h):
        tgt = h
    if tgt >= 0 and t < S.F[tgt, N_PRE]:
        S.F[tgt, N_PRE] = t
        resched(S, tgt, t)
