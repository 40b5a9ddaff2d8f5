"""The process-level time-sharing model, written once: plain Python over arrays.

Every rule of the model lives here and only here: a task's program (compute, I/O, send
one message to each neighbour, receive one from each; a job's ranks form a chain, or a
ring when its ``J_RING`` says so), the NIC that deposits
messages into endpoints, each scheme's reaction (spin, block or yield; interrupt,
periodic boost), the node's multi-level feedback queue and the gang matrix, and what
each mechanism costs. numba compiles these functions (cached on disk); with
``NUMBA_DISABLE_JIT=1`` the same source runs as ordinary Python, so it can be stepped
through in a debugger (``tests/timesharing/test_kernel.py`` checks that both give the
same bits). :class:`cosched.timesharing.engine.TimeSharingSim` builds the arrays and
collects the results.

The job model (section 3.2 of dynamic-coscheduling-cluster-simulation.txt): the ideal
communication time of an iteration is the one-way latency L of a message, so an
iteration lasts ``L / comm`` and its compute and I/O parts are ``L * comp / comm`` and
``L * io / comm``; each is multiplied per task and iteration by ``1 + unif(-s/2, s/2)``
(:func:`skew_unit`). The iteration count is ``round(run_time * comm / L)`` so that a job
with s = 0 on dedicated nodes runs for its ``run_time``; a one-task job has no
neighbours, and its compute and I/O shares are rescaled to fill the iteration.

What costs CPU time, and when (Table 3 of the paper for the values):

* a context switch (``context_switch``) when a CPU loads another process's context than
  the one it ran last (a process resuming on the CPU it left idle pays nothing);
* a gang switch (``gs_context_switch``) on every node at the end of every gang quantum
  that changes the active row;
* a NIC interrupt (``interrupt``) when a message wakes a blocked process (SB family) or
  reaches a descheduled one (DCS); a wake-up from a block also costs ``wake_cost`` (a
  named reading, 0 by default: the kernel's wake-up path and the cache refill of a
  process that slept), charged with the interrupt;
* a queue move (``queue_move``) when a process blocks, is woken by an interrupt, is
  boosted by PB or by an I/O completion while another process holds the CPU (a wake-up
  on an idle CPU reorders nothing), and twice per yield (SY), which also checks every
  endpoint of the node (``endpoint_check`` each);
* PB's endpoint poll every tick: ``procs * endpoint_check / tick`` of the CPU, charged
  as a constant slow-down of the running process.
* OS noise (a named reading, off by default): ``noise_duration`` every
  ``noise_period`` on every PE, at a phase of its own, charged as an interrupt
  (:func:`noise`).

Speed comes from four choices. A node has at most one pending CPU event: the running
process's activity is advanced as a whole (a compute phase, or a spin up to its budget)
and the event falls at the earliest of activity end, quantum expiry, a pending
preemption tick or a pending periodic-boost tick. The 1 ms scheduler tick is never an
event by itself: a tick is only scheduled when something at a higher priority (or a
boost) is waiting, and a PB tick only when the heuristic would boost someone. Events
are kept in three queues by kind, merged by (time, sequence number), which is one order
for all events: the nodes' CPU events in a tournament tree over the nodes (replacing a
node's event is one walk up the tree), messages in a FIFO (every message takes the same
latency, so arrivals are due in the order they were sent), and the rest (I/O
completions, the raise, the gang slot) in a binary heap. Every event takes a sequence
number from one counter when it is scheduled, so the merged order is the order of a
single heap of all events. And numba compiles the kernel without reference counting.

Two kinds of CPU event skip the tree. One due now when nothing else
is due now is the next event of all (every later event takes a larger sequence number),
so the loop takes it from the slot ``G[S_IMM]`` (a poller woken by its message, a
process back from I/O in its coscheduled slot). And an FCS poller's spin end in its CS
slot changes nothing but its own node (``lazy_ok``): it stays out of the tree
(``N_LAZY``) and is handled, in its place by (time, sequence number), when something
next touches the node (``fold`` and ``resched`` call ``lazy_resolve``) or at the end of
the run, and counted as an event then.

A CPU event that is replaced before it falls is counted in ``G[S_STALE]`` (and its time
in ``GF[S_STALET]``) if it falls within the horizon: the model's event count and last
event time are those of a single heap that kept replaced events and skipped them when
they came up (what the recorded results hold).

State lives in the named tuple :class:`State` (arrays only, so the kernel compiles once
per machine with ``cache=True``): two tables ``I`` (int64) and ``F`` (float64) whose
rows are the nodes, then the processes (a process's id is its row), then the jobs;
globals and parameters ``G`` / ``GF`` (the CPU-event tree is a region of ``G``); the
event heap ``HT`` (times) and ``HI`` (sequence number, kind, object, version), ordered
by (time, sequence); the message FIFO ``MT`` (times) and ``MI`` (sequence number,
receiver, side), live between ``G[S_MHEAD]`` and ``G[S_MTAIL]``. The kernel is
resumable: it returns when it needs a larger heap or FIFO, and the caller grows them
and calls it again.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

try:  # pragma: no cover - numba is a dependency; plain Python still works (slowly)
    from numba import config
    from numba import njit as _njit

    #: numba's options for every kernel function (``_nrt`` is not in numba's stubs).
    _OPTIONS: dict[str, Any] = {"cache": True, "error_model": "numpy", "_nrt": False}
    #: Functions compiled out of line: the entry points, what runs at most once per
    #: job, slot or second, and Linux 2.4's reschedule_idle (a call only ``linux24``
    #: pays). Every other function is inlined into its callers.
    _OUT_OF_LINE = frozenset(
        ("run_kernel", "fold_all", "raise_all", "gang_slot", "fcs_slot", "fcs_enter",
         "start_job", "try_start", "place", "gang_start", "fcs_start", "end_job",
         "check_all", "snapshot", "lazy_flush", "linux_place", "linux_fcs_modes",
         "noise_arm")
    )  # fmt: skip

    #: Functions that allocate scratch arrays (the EASY front's reservation, run once
    #: per admission attempt): compiled out of line with numba's reference counting on.
    _ALLOCATING = frozenset(("easy_start", "easy_shadow"))

    def njit(f: Any) -> Any:
        """Compile ``f`` (cached on disk) without numba's reference counting, inlined
        into its callers unless it is in ``_OUT_OF_LINE`` (``_ALLOCATING``: with
        reference counting, out of line).

        The kernel allocates nothing: it only reads and writes the arrays it is handed.
        With the runtime's reference counting on (numba's default), every function that
        takes an array out of the state tuple pays a call to increment and one to
        decrement its owner's count. And a call passes the state tuple as some sixty
        machine words on the stack, so the hot path is compiled as one function
        (``forceinline``: LLVM's ``alwaysinline``). Both give the same bits, faster
        (docs/performance.md, "A faster process-level kernel").
        """
        if f.__name__ in _ALLOCATING:
            return _njit(f, **{**_OPTIONS, "_nrt": True})
        return _njit(f, **_OPTIONS, forceinline=f.__name__ not in _OUT_OF_LINE)

    _NUMBA = not getattr(config, "DISABLE_JIT", False)

except ImportError:  # pragma: no cover

    def njit(f: Any) -> Any:
        return f

    _NUMBA = False


__all__ = ["State", "run_kernel", "skew_unit"]

INF = np.inf
EPS = 1e-12

# Process states, phases of an iteration, and event kinds.
READY, RUNNING, IO, BLOCKED, DONE = 0, 1, 2, 3, 4
P_COMPUTE, P_SEND, P_RECV = 0, 1, 2
EV_CPU, EV_ARRIVE, EV_IODONE, EV_RAISE, EV_SLOT = 0, 1, 2, 3, 4
EV_NOISE = 5  # a PE's daemon steals the CPU (TSParams.noise_period; object: the PE)

# All rows of the two tables ``I`` (int64) and ``F`` (float64): nodes are rows
# 0..N-1, processes the next P rows (a process's id is its row), jobs the next J rows
# (job i is row ``G[S_JB] + i``). Columns depend on the kind of row.
# Node integer columns; the node's process list and its gang cells follow.
N_CUR, N_VER, N_FORCE, N_TARGET, N_RR, N_BUSY, N_NPROCS, N_LAST, N_MODE = range(9)
N_LAZY = 9  # 1: the node's CPU event is a CS poller's spin end kept out of the tree
# The index k of the PE's next noise hit, at N_NPH + k * noise_period (-1: the daemon
# sleeps: no event pending; TSParams.noise_period).
N_NK = 10
N_PL = 11  # I[n, N_PL + k]: k-th process of node n; I[n, G[S_GSCOL] + r]: gang row r
# Node float columns.
N_ACT, N_OVH, N_DUE, N_PRE, N_PB, N_SPEED = range(6)
N_COMPUTE, N_SPIN, N_CS, N_INTR, N_QUEUE, N_CHECK = range(6, 12)
N_IDLE = 12  # when the PE's process last left it (Linux's last_schedule, for idle PEs)
N_NPH = 13  # the phase of the PE's noise daemon, in [0, noise_period)
K_NF = 14
# Process integer columns (P_SEED and P_NITER copy the job's, for the hot path).
P_JOB, P_RANK, P_NODE, P_STATE, P_PHASE, P_IT, P_SPINNING, P_INRECV = range(8)
P_WAITING, P_YIELDED, P_LEVEL, P_QKEY, P_NBR0, P_NBR1, P_INBOX0, P_INBOX1 = range(8, 16)
P_DRAW, P_KLASS, P_SENT, P_RECEIVED, P_SWITCHES, P_SEED, P_NITER = range(16, 23)
# FCS (section 2 of the FCS paper): slots in the current class, assigned slots since
# start, blocking communications completed since the last reset.
P_CSLOTS, P_TSLOTS, P_CCOMM = range(23, 26)
# Linux 2.4 (``F_LINUX``): the process's counter, in timer ticks.
P_CNT = 26
# The PE the process runs on or ran on last (Linux's ``p->processor``); its home PE
# (``P_NODE``: placement, gang cell) unless a node-wide run queue moved it.
P_CPU = 27
K_PI = 28
# Process float columns (P_JCOMP, P_JIO, P_SKEW copy the job's).
P_REM, P_QLEFT, P_COMPUTE_T, P_SPIN_T, P_IO_T, P_BLOCKED_T, P_TBLOCK = range(7)
P_JCOMP, P_JIO, P_SKEW = range(7, 10)
# FCS: time waiting in blocking receives and compute seconds at the last reset; the
# time the current receive began.
P_TCOMM, P_TCPU0, P_TRECV = range(10, 13)
P_TWAIT0 = 13  # FCS: spin + blocked seconds at the last reset (F_TCRUN's T_comm)
K_PF = 14
# Job integer columns.
J_NITER, J_DONE, J_ROW, J_NPROCS, J_P0, J_STARTED, J_PROCS, J_SEED, J_PARITY = range(9)
# The imbalance pattern: rank r computes J_SLOW times more when
# (r // J_BLOCK) % J_PERIOD == J_PARITY (block 1, period 2: alternating ranks; block 4:
# alternating 4-way nodes; period 4: one rank in four).
J_BLOCK, J_PERIOD = 9, 10
# 1: the job's ranks form a ring (the last and the first are neighbours); 0: a chain.
J_RING = 11
K_JI = 12
# Job float columns.
J_COMP, J_IO, J_START, J_END, J_SUB, J_RUN, J_WCOMP, J_WIO, J_WCOMM, J_SKEW = range(10)
J_SLOW = 10  # compute multiplier of the job's ranks of parity J_PARITY (imbalance)
J_EST = 11  # EASY front: the estimated run time (the request times the MPL)
K_JF = 12
# Scalar integer state G[...].
S_SEQ, S_QC, S_EVENTS, S_SENT, S_RECEIVED, S_RUNNING, S_GSACTIVE, S_TICKING = range(8)
S_HSIZE, S_NEXTPROC, S_QHEAD, S_QTAIL, S_I, S_ERR, S_ERRNODE = range(8, 15)
S_JB, S_GSCOL, S_TMPB, S_QB = range(15, 19)  # where jobs, gang cells, TMP, Q start
# The message FIFO's live range, replaced CPU events counted (and whether one fell
# beyond the horizon), where the CPU-event tree starts in G and in GF, and its number of
# leaves (a power of two >= the nodes).
S_MHEAD, S_MTAIL, S_STALE, S_BEYOND, S_TREEB, S_TREEF, S_P2 = range(19, 26)
# A node whose CPU event is due now and is the next event of all, kept out of the tree
# (node + 1; 0: none; see resched).
S_IMM = 26
# The sequence number of the event being handled (-1: a submission); lazy spin ends
# handled since the loop last saved its count (see lazy_ok).
S_CURSEQ, S_LAZYN = 27, 28
S_IMMSEQ = 29  # the sequence number of the S_IMM event
K_SI = 30
# Flags, in G after the scalars.
F_GANG, F_WAIT, F_ARRIVAL, F_TOP, F_MPL, F_CHECK, F_NNODES = range(K_SI, K_SI + 7)
F_FCS, F_CSMIN, F_TSMAX = range(K_SI + 7, K_SI + 10)
F_EASY = K_SI + 10  # admission by EASY backfilling instead of FCFS (see easy_start)
F_FPRE = K_SI + 11  # FCS: a woken F process of the active slot preempts (TSParams.fcs_f_preempt)
# The local scheduler is Linux 2.4's (TSParams.local "linux24"), and its NICE_TO_TICKS(0).
F_LINUX, F_NTT = K_SI + 12, K_SI + 13
# Linux 2.4 on SMP nodes: PEs per node sharing one run queue (1: one queue per PE),
# PROC_CHANGE_PENALTY (0 with one PE per queue), and whether a woken process may
# preempt a busy PE of its node (reschedule_idle; 1 always with one PE per queue).
F_SMP, F_PEN, F_WPRE = K_SI + 14, K_SI + 15, K_SI + 16
F_HBCLOCK = K_SI + 17  # FCS: every heartbeat ages every process (TSParams.fcs_slot_clock)
F_TCRUN = K_SI + 18  # FCS: T_comm counts spin and blocked time only (TSParams.fcs_tcomm)
F_CSLOCAL = K_SI + 19  # FCS: CS processes run in local slots but F ones (fcs_cs_local)
F_FALL = K_SI + 20  # FCS: every F process goes before DC ones in local slots (fcs_f_all)
F_CNT0 = K_SI + 21  # Linux 2.4: a process starts with a random counter (linux_random_counter)
G_GSR = K_SI + 22  # G[G_GSR + r]: jobs in gang row r; then TMP and the arrival queue
#: The draw index of a process's starting counter (F_CNT0): above any iteration's skew
#: draw (one per iteration), below the rank's offset (2^40) in skew_unit.
CNT0_DRAW = 1 << 39
# Scalar float state GF[...], then parameters, then the quanta by level.
S_NOW, S_WIN0, S_WIN1, S_WINCOMP, S_ERRT, S_STALET = range(6)
K_SF = 6
R_LATENCY, R_CS, R_GSCS, R_GSQ, R_INTR, R_QM, R_EC, R_SPIN, R_TICK = range(K_SF, K_SF + 9)
R_RAISE, R_QTOP, R_HORIZON = range(K_SF + 9, K_SF + 12)
R_CST, R_DCT, R_FT, R_CLS, R_NM = range(K_SF + 12, K_SF + 17)  # FCS thresholds, costs
R_HZ = K_SF + 17  # Linux 2.4's timer frequency
R_NPER, R_NDUR = K_SF + 18, K_SF + 19  # OS noise: period (0: none) and duration
R_WAKE = K_SF + 20  # a blocked process's wake-up beyond the interrupt (TSParams.wake_cost)
G_QU = K_SF + 21
WAIT_SPIN, WAIT_BLOCK, WAIT_YIELD = 0, 1, 2
# FCS process classes (P_KLASS; a new process is CS) and node modes (N_MODE).
CL_CS, CL_F, CL_DC = 0, 1, 2
MODE_LOCAL, MODE_CS = 0, 1
ARR_NONE, ARR_INTERRUPT, ARR_PERIODIC = 0, 1, 2

# Kernel return codes.
RET_DONE, RET_HORIZON, RET_GROW, RET_INVARIANT, RET_BACKWARDS, RET_OVERFLOW = range(6)
ERR_HEAP = 99

#: The state: tables ``I``/``F``, globals ``G``/``GF``, event heap ``HT`` (times) and
#: ``HI`` (sequence number, kind, object, version per event), message FIFO ``MT``
#: (times) and ``MI`` (sequence number, receiver, side per message).
State = namedtuple("State", ["I", "F", "G", "GF", "HT", "HI", "MT", "MI"])


# ---------------------------------------------------------------------- random
@njit
def skew_unit(seed: int, rank: int, k: int) -> float:
    """The ``k``-th uniform [0, 1) draw of task ``rank`` of a job with ``seed``.

    A counter-based generator (SplitMix64's finaliser of ``seed + rank * 2^40 + k``, in
    wrapping uint64 arithmetic): a draw depends only on the job's seed (taken from the
    run's generator), the task and the draw's index, never on the order in which events
    consume draws.
    """
    z = np.uint64(seed) + (np.uint64(rank) << np.uint64(40)) + np.uint64(k)
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * 2.0**-53


@njit
def factor(S: Any, p: int) -> float:
    """The next skew multiplier ``1 + unif(-s/2, s/2)`` of process ``p``."""
    k = S.I[p, P_DRAW]
    S.I[p, P_DRAW] = k + 1
    u = skew_unit(S.I[p, P_SEED], S.I[p, P_RANK], k)
    return 1.0 + S.F[p, P_SKEW] * (u - 0.5)


# ------------------------------------------------------------------------ heap
@njit
def _move(HT: Any, HI: Any, i: int, j: int) -> None:
    """Copy heap entry ``j`` to slot ``i``."""
    HT[i] = HT[j]
    for c in range(4):
        HI[i, c] = HI[j, c]


@njit
def _put(HT: Any, HI: Any, i: int, t: float, seq: int, kind: int, obj: int, ver: int) -> None:
    """Write an event into heap slot ``i``."""
    HT[i] = t
    HI[i, 0] = seq
    HI[i, 1] = kind
    HI[i, 2] = obj
    HI[i, 3] = ver


@njit
def next_seq(S: Any) -> int:
    """The next sequence number: every event takes one when scheduled, whatever its
    queue, so (time, sequence) orders all events as one heap would."""
    seq = S.G[S_SEQ] + 1
    S.G[S_SEQ] = seq
    return seq


@njit
def push(S: Any, t: float, kind: int, obj: int, ver: int) -> None:
    """Add an event; ties keep insertion order (the sequence number)."""
    si = S.G
    seq = next_seq(S)
    HT = S.HT
    HI = S.HI
    i = si[S_HSIZE]
    if i >= HT.shape[0]:  # cannot happen with the caller's margin; never write past
        si[S_ERR] = ERR_HEAP
        return
    si[S_HSIZE] = i + 1
    while i > 0:
        par = (i - 1) >> 1
        pt = HT[par]
        if pt < t or (pt == t and HI[par, 0] < seq):
            break
        _move(HT, HI, i, par)
        i = par
    _put(HT, HI, i, t, seq, kind, obj, ver)


@njit
def pop(S: Any) -> None:
    """Remove the earliest event (read it from index 0 first)."""
    si = S.G
    HT = S.HT
    HI = S.HI
    n = si[S_HSIZE] - 1
    si[S_HSIZE] = n
    if n == 0:
        return
    t = HT[n]
    seq = HI[n, 0]
    kind = HI[n, 1]
    obj = HI[n, 2]
    ver = HI[n, 3]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        r = c + 1
        if r < n and (HT[r] < HT[c] or (HT[r] == HT[c] and HI[r, 0] < HI[c, 0])):
            c = r
        if HT[c] < t or (HT[c] == t and HI[c, 0] < seq):
            _move(HT, HI, i, c)
            i = c
        else:
            break
    _put(HT, HI, i, t, seq, kind, obj, ver)


@njit
def push_msg(S: Any, t: float, q: int, side: int) -> None:
    """A message for process ``q`` (``side`` 0: from its left neighbour, 1: right)
    arrives at ``t``: append it to the FIFO (arrivals are due in sending order)."""
    si = S.G
    seq = next_seq(S)
    MT = S.MT
    MI = S.MI
    tail = si[S_MTAIL]
    if tail >= MT.shape[0]:  # compact: move the live range to the front
        head = si[S_MHEAD]
        if head == 0:  # cannot happen with the caller's margin; never write past
            si[S_ERR] = ERR_HEAP
            return
        for k in range(head, tail):
            MT[k - head] = MT[k]
            for c in range(3):
                MI[k - head, c] = MI[k, c]
        tail -= head
        si[S_MHEAD] = 0
    MT[tail] = t
    MI[tail, 0] = seq
    MI[tail, 1] = q
    MI[tail, 2] = side
    si[S_MTAIL] = tail + 1


@njit
def cpu_update(S: Any, n: int) -> None:
    """Node ``n``'s CPU event changed: replay the tree's matches on its path to the root.

    The tree has ``P2`` leaves (leaf ``P2 + n`` is node ``n``; the leaves past the last
    node never have an event) and node ``k`` holds the first event of its subtree by
    (time, sequence number): its node ``G[S_TREEB + k]`` (-1: none), sequence number
    ``G[S_TREEB + 2 * P2 + k]`` and time ``GF[S_TREEF + k]`` (INF: none), so node 1
    holds the earliest CPU event of all. The matches are branch-free selections; the
    indices are unsigned, so that the compiled walk skips negative-index handling.
    """
    G = S.G
    GF = S.GF
    one = np.uint64(1)
    tw = np.uint64(G[S_TREEB])
    p2 = np.uint64(G[S_P2])
    ts = tw + p2 + p2
    tt = np.uint64(G[S_TREEF])
    k = p2 + np.uint64(n)
    # The path's first event so far, carried up (only the siblings are read).
    t = S.F[n, N_DUE]
    sq = G[ts + k]
    w = n
    GF[tt + k] = t
    while k > one:
        o = k ^ one
        to = GF[tt + o]
        so = G[ts + o]
        wo = G[tw + o]
        # the sibling comes first if earlier (on a full tie: if it is the left one)
        other = (to < t) | ((to == t) & ((so < sq) | ((so == sq) & ((k & one) == one))))
        t = to if other else t
        sq = so if other else sq
        w = wo if other else w
        k >>= one
        GF[tt + k] = t
        G[ts + k] = sq
        G[tw + k] = w


@njit
def cpu_replaced(S: Any, old: float) -> None:
    """A pending CPU event due at ``old`` was replaced: count it as the single heap of
    earlier versions did (it sat there and was skipped when it came up, if it came up
    within the horizon)."""
    if old <= S.GF[R_HORIZON]:
        S.G[S_STALE] += 1
        if old > S.GF[S_STALET]:
            S.GF[S_STALET] = old
    else:
        S.G[S_BEYOND] = 1  # it would still be in the heap at the end: a horizon stop


# ----------------------------------------------------------- CPU accounting
@njit
def fold(S: Any, n: int, t: float) -> None:
    """Account the running process's activity from the node's ``act`` to ``t``."""
    if S.I[n, N_LAZY]:
        lazy_resolve(S, n, t)
    fold_acct(S, n, t)


@njit
def fold_acct(S: Any, n: int, t: float) -> None:
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
            PF[p, P_COMPUTE_T] += w
            NF[n, N_COMPUTE] += w
            NF[n, N_CHECK] += dt - w
            PF[p, P_REM] -= w
        PF[p, P_QLEFT] -= dt
        NF[n, N_ACT] = t
        if S.G[F_LINUX]:
            linux_ticks(S, p, a, t)


@njit
def charge(S: Any, n: int, t: float, cost: float, kind: int) -> None:
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
def next_tick(S: Any, t: float) -> float:
    """The first scheduler tick strictly after ``t``."""
    tick = S.GF[R_TICK]
    return (np.floor(t / tick + 1e-9) + 1.0) * tick


@njit
def inbox_waiting(S: Any, q: int) -> int:
    """Messages present on the side ``q`` waits for (after its receive, side -1: side 1)."""
    return S.I[q, P_INBOX0 + (S.I[q, P_WAITING] & 1)]


@njit
def resched(S: Any, n: int, t: float) -> None:
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
def lazy_ok(S: Any, n: int, p: int, te: float) -> bool:
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
def lazy_resolve(S: Any, n: int, t: float) -> None:
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
def lazy_expire(S: Any, n: int, te: float) -> None:
    """Node ``n``'s lazy spin end at ``te``, as ``node_event`` handles it (see
    :func:`lazy_ok`): account to ``te``; the process polls on."""
    p = S.I[n, N_CUR]
    fold_acct(S, n, te)
    S.I[p, P_SPINNING] = 1
    S.F[p, P_REM] = INF
    S.F[n, N_DUE] = INF
    S.G[S_LAZYN] += 1


@njit
def lazy_flush(S: Any, horizon: float, now: float) -> float:
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


@njit
def due_by(S: Any, t: float) -> bool:
    """Is an event of the heap, the message FIFO or the CPU-event tree due at ``t`` or
    earlier (the tree may still show the event being handled)?"""
    G = S.G
    if G[S_HSIZE] > 0 and S.HT[0] <= t:
        return True
    h = G[S_MHEAD]
    if h < G[S_MTAIL] and S.MT[h] <= t:
        return True
    return S.GF[G[S_TREEF] + 1] <= t


# -------------------------------------------------------------- scheduling
@njit
def requeue(S: Any, p: int, head: bool) -> None:
    """Make ``p`` ready at the head or tail of its level's queue."""
    S.I[p, P_STATE] = READY
    qc = S.G[S_QC] + 1
    S.G[S_QC] = qc
    S.I[p, P_QKEY] = -qc if head else qc


@njit
def pick(S: Any, n: int, t: float) -> int:
    """The ready process at the head of the highest non-empty level (-1: none)."""
    if S.G[F_FCS]:
        return pick_fcs(S, n, t)
    if S.G[F_LINUX]:
        return linux_choice(S, n, False, t)
    return mlfq_choice(S, n, False)


@njit
def mlfq_choice(S: Any, n: int, skip_cs: bool) -> int:
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
def fcs_slot_f(S: Any, n: int) -> int:
    """FCS: the process of the active slot on node ``n`` if it is F (else -1)."""
    sp = S.I[n, S.G[S_GSCOL] + S.G[S_GSACTIVE]]
    if sp >= 0 and S.I[sp, P_KLASS] == CL_F:
        return sp
    return -1


@njit
def fcs_ready_f(S: Any, n: int) -> int:
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
def fcs_wake_favoured(S: Any, n: int, q: int) -> bool:
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
def pick_fcs(S: Any, n: int, t: float) -> int:
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
def switch_to(S: Any, n: int, p: int, t: float) -> None:
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
def dispatch(S: Any, n: int, t: float) -> None:
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
def request_preempt(S: Any, n: int, t: float, target: int) -> None:
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
def boost(S: Any, p: int) -> None:
    """Move ``p`` to the head of the top level."""
    PI = S.I
    PI[p, P_LEVEL] = S.G[F_TOP]
    S.F[p, P_QLEFT] = S.GF[R_QTOP]
    if PI[p, P_STATE] == READY:
        qc = S.G[S_QC] + 1
        S.G[S_QC] = qc
        PI[p, P_QKEY] = -qc


@njit
def preempt(S: Any, n: int, t: float) -> None:
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
def node_event(S: Any, n: int, t: float) -> None:
    """The node's CPU event: overhead end, activity end, quantum, tick."""
    NF = S.F
    cur = S.I[n, N_CUR]
    ovh = NF[n, N_OVH]
    fold(S, n, t)
    if t < ovh - EPS:
        resched(S, n, t)
        return
    if cur < 0:
        dispatch(S, n, t)
    else:
        te = t + EPS
        if NF[n, N_PB] <= te:
            NF[n, N_PB] = INF
            pb_tick(S, n, t)
            if NF[n, N_PRE] <= te:
                NF[n, N_PRE] = INF
                preempt(S, n, t)
        elif NF[n, N_PRE] <= te:
            NF[n, N_PRE] = INF
            preempt(S, n, t)
        elif S.F[cur, P_REM] <= EPS:
            activity_done(S, n, cur, t)
        elif S.G[F_LINUX]:
            if S.I[cur, P_CNT] <= 0:
                linux_expire(S, n, t)
        elif S.F[cur, P_QLEFT] <= EPS:
            expire(S, n, cur, t)
    resched(S, n, t)


@njit
def expire(S: Any, n: int, p: int, t: float) -> None:
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
def raise_all(S: Any, t: float) -> None:
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


# ------------------------------------------------------------ Linux 2.4's scheduler
# The FCS paper's nodes ran Red Hat Linux 7.3 (kernel 2.4.18). Its scheduler, by the
# rules of kernel/sched.c and kernel/timer.c (docs/design/families.md, "Linux 2.4's rules
# and their sources"):
# every process has a counter of timer ticks; each tick (1/HZ) takes one from the
# running process, and at 0 it must reschedule; ``schedule()`` runs the runnable
# process of the highest goodness (counter + 20 - nice, + 1 for the process whose
# memory map is loaded, 0 when the counter is spent), the first in the run queue on a
# tie (a woken process goes to the head); when every runnable process's counter is
# spent, a new epoch gives every process, sleeping ones included,
# ``counter / 2 + NICE_TO_TICKS(nice)``, so that a process that sleeps often comes
# back with more; a woken process preempts the running one at once when its goodness
# is higher. Nice is 0, and a tick that falls during a context switch or an interrupt
# is charged to no process. By default every PE has its own queue and epochs (the
# processes are bound to PEs); with ``F_SMP`` > 1 the PEs of a node (``F_SMP``
# consecutive PEs) share one run queue and one epoch, as an SMP kernel's do: any PE of
# the node runs any of its processes, goodness adds PROC_CHANGE_PENALTY (``F_PEN``) on
# the PE a process ran on last, and a process that becomes runnable looks for a PE by
# ``reschedule_idle()`` (:func:`linux_place`; docs/design/families.md, "Linux 2.4's rules and their
# sources").
@njit
def linux_start_counter(seed: int, rank: int, ntt: int) -> int:
    """The starting counter of task ``rank`` of a job with ``seed`` under
    ``linux_random_counter``: uniform in 1 .. ``ntt``, a draw of its own (index
    :data:`CNT0_DRAW`, never one of the skew's)."""
    return 1 + int(skew_unit(seed, rank, CNT0_DRAW) * ntt)


@njit
def linux_tick_of(S: Any, t: float) -> int:
    """The index of the last timer tick at or before ``t`` (tick k falls at k / HZ)."""
    return int(np.floor(t * S.GF[R_HZ] + 1e-6))


@njit
def linux_ticks(S: Any, p: int, a: float, t: float) -> None:
    """``p`` ran from ``a`` to ``t``: each tick in (a, t] takes one from its counter."""
    k = linux_tick_of(S, t) - linux_tick_of(S, a)
    if k > 0:
        c = S.I[p, P_CNT] - k
        S.I[p, P_CNT] = c if c > 0 else 0


@njit
def linux_expiry(S: Any, n: int, p: int) -> float:
    """The tick at which the running ``p`` spends its counter (its accounting, which
    skips overheads, resumes at the node's ``act`` or at the end of the overhead)."""
    a = S.F[n, N_ACT]
    ovh = S.F[n, N_OVH]
    if ovh > a:
        a = ovh
    return (linux_tick_of(S, a) + S.I[p, P_CNT]) / S.GF[R_HZ]


@njit
def linux_goodness(S: Any, n: int, q: int) -> int:
    """goodness() on PE ``n``: 0 for a spent counter, else counter + 20 (nice 0),
    + PROC_CHANGE_PENALTY if ``q`` ran last on ``n`` (``F_PEN``: 0 with one queue per
    PE), + 1 if ``q``'s memory map is the PE's (the process that ran last: no switch)."""
    c = S.I[q, P_CNT]
    if c <= 0:
        return 0
    pen = S.G[F_PEN] if S.I[q, P_CPU] == n else 0
    return c + 20 + pen + (1 if q == S.I[n, N_LAST] else 0)


@njit
def linux_first(S: Any, n: int) -> int:
    """The first PE of ``n``'s node: the PEs sharing its run queue are ``F_SMP``
    consecutive ones."""
    return n - n % S.G[F_SMP]


@njit
def linux_best(S: Any, n: int, skip_cs: bool) -> tuple[int, int]:
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
def linux_recalc(S: Any, n: int, t: float) -> None:
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
def linux_node_f(S: Any, n: int) -> int:
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
def linux_choice(S: Any, n: int, skip_cs: bool, t: float) -> int:
    """schedule()'s choice among node ``n``'s ready processes (-1: none); when every
    one has spent its counter, a new epoch first."""
    best, g = linux_best(S, n, skip_cs)
    if best >= 0 and g == 0:
        linux_recalc(S, n, t)
        best, g = linux_best(S, n, skip_cs)
    return best


@njit
def linux_schedule(S: Any, n: int, t: float) -> None:
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
def linux_expire(S: Any, n: int, t: float) -> None:
    """The running process's counter is spent. In an FCS CS slot the node manager has
    stopped every other process, so the slot's process is the only runnable one: a new
    epoch, and it runs on."""
    if S.G[F_FCS] and S.I[n, N_MODE] == MODE_CS:
        linux_recalc(S, n, t)
        return
    linux_schedule(S, n, t)


@njit
def linux_wake(S: Any, q: int, t: float, queue_move: int) -> None:
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
def linux_free(S: Any, n: int) -> bool:
    """May PE ``n``'s local scheduler run a process of the run queue (FCS: not while
    the node manager holds it for a CS slot)?"""
    return not (S.G[F_FCS] and S.I[n, N_MODE] == MODE_CS)


@njit
def linux_place(S: Any, q: int, t: float) -> None:
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


@njit
def linux_fcs_modes(S: Any, t: float) -> None:
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


# ---------------------------------------------------------------- the program
@njit
def activity_done(S: Any, n: int, p: int, t: float) -> None:
    """The running process finished its compute phase, a send, or a spin."""
    PI = S.I
    PF = S.F
    ph = PI[p, P_PHASE]
    if ph == P_COMPUTE:
        jio = PF[p, P_JIO]
        io = jio * factor(S, p) if jio > 0 else 0.0
        PI[p, P_PHASE] = P_SEND
        PF[p, P_REM] = 0.0
        if io > 0:
            PI[p, P_STATE] = IO
            PF[p, P_IO_T] += io
            push(S, t + io, EV_IODONE, p, 0)
            leave(S, n, t)
            return
        ph = P_SEND
    if ph == P_SEND:
        arrive_t = t + S.GF[R_LATENCY]
        left = PI[p, P_NBR0]
        right = PI[p, P_NBR1]
        if left >= 0:
            push_msg(S, arrive_t, left, 1)
            PI[p, P_SENT] += 1
            S.G[S_SENT] += 1
        if right >= 0:
            push_msg(S, arrive_t, right, 0)
            PI[p, P_SENT] += 1
            S.G[S_SENT] += 1
        PI[p, P_PHASE] = P_RECV
        PI[p, P_INRECV] = 1
        PF[p, P_TRECV] = t
        PI[p, P_WAITING] = 0 if left >= 0 else 1
        PF[p, P_REM] = S.GF[R_SPIN]
        PI[p, P_YIELDED] = 0
    receive(S, n, p, t)


@njit
def receive(S: Any, n: int, p: int, t: float) -> None:
    """Consume available messages; spin, block or yield for a missing one."""
    PI = S.I
    PF = S.F
    while PI[p, P_WAITING] >= 0:
        s = PI[p, P_WAITING]
        if PI[p, P_NBR0 + s] < 0:
            PI[p, P_WAITING] = 1 if s == 0 else -1
            continue
        if PI[p, P_INBOX0 + s] > 0:
            PI[p, P_INBOX0 + s] -= 1
            PI[p, P_RECEIVED] += 1
            S.G[S_RECEIVED] += 1
            PI[p, P_WAITING] = 1 if s == 0 else -1
            PF[p, P_REM] = S.GF[R_SPIN]
            PI[p, P_YIELDED] = 0
            continue
        if PF[p, P_REM] > EPS:
            PI[p, P_SPINNING] = 1
            return
        spin_expired(S, n, p, t)
        return
    PI[p, P_SPINNING] = 0
    PI[p, P_INRECV] = 0
    if S.G[F_FCS] and (PI[p, P_NBR0] >= 0 or PI[p, P_NBR1] >= 0):
        # One blocking communication (the receives from both sides, back to back; a
        # task without neighbours makes none).
        PF[p, P_TCOMM] += t - PF[p, P_TRECV]
        PI[p, P_CCOMM] += 1
    PI[p, P_IT] += 1
    if PI[p, P_IT] >= PI[p, P_NITER]:
        finish(S, n, p, t)
        return
    PI[p, P_PHASE] = P_COMPUTE
    PF[p, P_REM] = PF[p, P_JCOMP] * factor(S, p)


@njit
def spin_expired(S: Any, n: int, p: int, t: float) -> None:
    """The spin budget ran out: block (SB) or yield (SY); FCS polls on in a CS slot."""
    PI = S.I
    if S.G[F_FCS] and S.I[n, N_MODE] == MODE_CS:
        PI[p, P_SPINNING] = 1
        S.F[p, P_REM] = INF
        return
    if S.G[F_WAIT] == WAIT_BLOCK:
        PI[p, P_SPINNING] = 0
        PI[p, P_STATE] = BLOCKED
        S.F[p, P_TBLOCK] = t
        charge(S, n, t, S.GF[R_QM], 2)
        leave(S, n, t)
        return
    PI[p, P_SPINNING] = 1
    S.F[p, P_REM] = INF
    PI[p, P_YIELDED] = 1
    k = S.I[n, N_NPROCS]
    low = -1
    for a in range(k):
        q = S.I[n, N_PL + a]
        if q != p and PI[q, P_STATE] != DONE:
            lv = PI[q, P_LEVEL]
            if low < 0 or lv < low:
                low = lv
    if low >= 0:
        lv = low - 1
        if lv < 0:
            lv = 0
        PI[p, P_LEVEL] = lv
        S.F[p, P_QLEFT] = S.GF[G_QU + lv]
    cost = S.GF[R_EC] * k + 2 * S.GF[R_QM]
    charge(S, n, t, cost, 2)
    cand = pb_candidate(S, n, True)
    if cand >= 0:
        boost(S, cand)
        request_preempt(S, n, t, -1)


@njit
def leave(S: Any, n: int, t: float) -> None:
    """The running process gave up the CPU (I/O, block, end)."""
    S.I[n, N_CUR] = -1
    if S.G[F_SMP] > 1:
        S.F[n, N_IDLE] = t
    S.F[n, N_PRE] = INF
    S.I[n, N_FORCE] = 0
    S.I[n, N_TARGET] = -1
    dispatch(S, n, t)


@njit
def finish(S: Any, n: int, p: int, t: float) -> None:
    """A task did its last iteration; the job ends with its last task."""
    PI = S.I
    PI[p, P_STATE] = DONE
    PI[p, P_SPINNING] = 0
    j = S.G[S_JB] + PI[p, P_JOB]
    S.I[j, J_DONE] += 1
    fold(S, n, t)
    h = PI[p, P_NODE]  # its home PE's list (``n`` runs it: h unless a node-wide queue)
    k = S.I[h, N_NPROCS]
    NPL = S.I
    a = 0
    while NPL[h, N_PL + a] != p:
        a += 1
    for b in range(a, k - 1):
        NPL[h, N_PL + b] = NPL[h, N_PL + b + 1]
    NPL[h, N_PL + k - 1] = -1
    S.I[h, N_NPROCS] = k - 1
    set_speed(S, h)
    leave(S, n, t)
    if S.I[j, J_DONE] == S.I[j, J_NPROCS]:
        end_job(S, j, t)


@njit
def end_job(S: Any, j: int, t: float) -> None:
    """Free the job's cells and start queued jobs (``j`` is the job's row)."""
    S.F[j, J_END] = t
    S.G[S_RUNNING] -= 1
    row = S.I[j, J_ROW]
    p0 = S.I[j, J_P0]
    for p in range(p0, p0 + S.I[j, J_NPROCS]):
        node = S.I[p, P_NODE]
        S.I[node, N_BUSY] -= 1
        if row >= 0:
            S.I[node, S.G[S_GSCOL] + row] = -1
    if row >= 0:
        S.G[G_GSR + row] -= 1
    try_start(S, t)


@njit
def set_speed(S: Any, n: int) -> None:
    """PB polls every endpoint every tick: a constant share of the CPU."""
    if S.G[F_ARRIVAL] == ARR_PERIODIC:
        v = 1.0 - S.I[n, N_NPROCS] * S.GF[R_EC] / S.GF[R_TICK]
        S.F[n, N_SPEED] = v if v > 0.0 else 0.0


# ------------------------------------------------------------------- network
@njit
def arrive(S: Any, q: int, side: int, t: float) -> None:
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
def io_done(S: Any, p: int, t: float) -> None:
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
    charge(S, n, t, S.GF[R_QM], 2)
    if top > PI[cur, P_LEVEL]:
        nt = next_tick(S, t)
        if nt < NF[n, N_PRE]:
            NF[n, N_PRE] = nt
    resched(S, n, t)


# ------------------------------------------------------------ periodic boost
@njit
def pb_candidate(S: Any, n: int, rule2: bool) -> int:
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
def pb_tick(S: Any, n: int, t: float) -> None:
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


# ------------------------------------------------------------------- OS noise
# A named reading (docs/design/families.md, "OS noise is a periodic daemon per PE"): every
# PE runs a daemon that takes the CPU for ``noise_duration`` every ``noise_period``, at
# ``N_NPH + k * noise_period``
# (the phase drawn per PE from the run's generator), charged as an interrupt: the
# running process (computing, spinning or polling) is delayed by it, its quantum and
# spin budget untouched; a process that becomes ready during it starts after it. The
# daemons sleep while no job runs (a hit then takes nothing), so that a run ends.
@njit
def noise_arm(S: Any, t: float) -> None:
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
def noise(S: Any, n: int, t: float) -> None:
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


# ------------------------------------------------------------------ job start
@njit
def place(S: Any, procs: int) -> int:
    """Choose cells for a job of ``procs`` tasks (section 2.3 of the paper).

    Gang scheduling takes free cells of one matrix row (the first row that has enough);
    the other schemes take the ``procs`` least loaded nodes that run fewer than MPL
    processes (ties to the lower index). The nodes go to ``G[G[S_TMPB]:][:procs]``.
    Returns the row (-1 for the MLFQ schemes), or -2 if the job must wait.
    """
    N = S.G[F_NNODES]
    mpl = S.G[F_MPL]
    out = S.G[S.G[S_TMPB] :]
    if S.G[F_GANG]:
        for r in range(mpl):
            if row_cells(S, r, procs) >= procs:
                return r
        return -2
    free = 0
    for n in range(N):
        if S.I[n, N_BUSY] < mpl:
            free += 1
    if free < procs:
        return -2
    # the procs least-loaded nodes (ties: lower index), then sorted by index
    c = 0
    for b in range(mpl):
        for n in range(N):
            if S.I[n, N_BUSY] == b:
                out[c] = n
                c += 1
                if c == procs:
                    break
        if c == procs:
            break
    for a in range(1, procs):  # insertion sort of the chosen nodes by index
        x = out[a]
        b = a
        while b > 0 and out[b - 1] > x:
            out[b] = out[b - 1]
            b -= 1
        out[b] = x
    return -1


@njit
def row_cells(S: Any, r: int, procs: int) -> int:
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
def try_start(S: Any, t: float) -> None:
    """Start queued jobs in FCFS order while the head fits (with ``F_EASY``, EASY
    backfilling behind the head: :func:`easy_start`)."""
    si = S.G
    if si[F_EASY]:
        easy_start(S, t)
        return
    while si[S_QHEAD] < si[S_QTAIL]:
        i = si[si[S_QB] + si[S_QHEAD]]
        row = place(S, S.I[si[S_JB] + i, J_PROCS])
        if row == -2:
            return
        si[S_QHEAD] += 1
        start_job(S, i, row, t)


# ------------------------------------------------------- EASY admission front
@njit
def easy_est_end(S: Any, jr: int, t: float) -> float:
    """A running job's estimated end (start + ``J_EST``; ``t`` if already past)."""
    e = S.F[jr, J_START] + S.F[jr, J_EST]
    return e if e > t else t


@njit
def easy_shadow(S: Any, t: float, k: int, free_at: Any) -> Any:
    """EASY's reservation for a queue head of ``k`` tasks that does not fit now.

    The running jobs release their cells at their estimated ends (in that order, ties
    by job). Gang matrix: per row, the shadow time is the first end at which the row has
    ``k`` free cells; the earliest row is reserved (ties: the lower row), and
    ``free_at[n]`` is 1 where node ``n``'s cell of that row is free at the shadow time.
    Otherwise: the shadow time is the first end at which ``k`` nodes run fewer than MPL
    processes, and ``free_at[n]`` is node ``n``'s free process slots then. Every
    release at the shadow time counts. Returns ``(shadow, row)`` (row -1 off the gang).
    """
    jb = S.G[S_JB]
    n_jobs = S.I.shape[0] - jb
    N = S.G[F_NNODES]
    mpl = S.G[F_MPL]
    gang = S.G[F_GANG] != 0
    ends = np.empty(n_jobs)
    rows = np.empty(n_jobs, dtype=np.int64)
    m = 0
    for j in range(n_jobs):
        jr = jb + j
        if S.I[jr, J_STARTED] == 1 and S.F[jr, J_END] != S.F[jr, J_END]:  # running
            ends[m] = easy_est_end(S, jr, t)
            rows[m] = jr
            m += 1
    order = np.argsort(ends[:m], kind="mergesort")
    best = INF
    brow = -1
    n_rows = mpl if gang else 1
    for r in range(n_rows):
        for n in range(N):
            if gang:
                free_at[n] = 1 if S.I[n, S.G[S_GSCOL] + r] < 0 else 0
            else:
                free_at[n] = mpl - S.I[n, N_BUSY]
        shadow = INF
        for a in range(m):
            jr = rows[order[a]]
            e = ends[order[a]]
            if e > shadow:
                break
            if gang and S.I[jr, J_ROW] != r:
                continue
            p0 = S.I[jr, J_P0]
            for p in range(p0, p0 + S.I[jr, J_NPROCS]):
                free_at[S.I[p, P_NODE]] += 1
            if shadow == INF:
                c = 0
                for n in range(N):
                    if free_at[n] > 0:
                        c += 1
                if c >= k:
                    shadow = e
        if shadow < best:
            best = shadow
            brow = r
    if gang and brow >= 0:
        easy_free_at(S, brow, best, free_at, ends[:m], rows[:m])
    return best, (brow if gang else -1)


@njit
def easy_free_at(S: Any, r: int, shadow: float, free_at: Any, ends: Any, rows: Any) -> None:
    """Gang: ``free_at[n]`` = 1 where node ``n``'s cell of row ``r`` is free at ``shadow``."""
    for n in range(S.G[F_NNODES]):
        free_at[n] = 1 if S.I[n, S.G[S_GSCOL] + r] < 0 else 0
    for a in range(ends.shape[0]):
        jr = rows[a]
        if ends[a] <= shadow and S.I[jr, J_ROW] == r:
            p0 = S.I[jr, J_P0]
            for p in range(p0, p0 + S.I[jr, J_NPROCS]):
                free_at[S.I[p, P_NODE]] = 1


@njit
def easy_keeps(S: Any, k_head: int, taken: int, free_at: Any) -> bool:
    """Does the reservation survive a job on the ``taken`` nodes of ``G[G[S_TMPB]:]``
    still running at the shadow time (``k_head`` nodes with a free slot then)?"""
    tmp = S.G[S.G[S_TMPB] :]
    for a in range(taken):
        free_at[tmp[a]] -= 1
    c = 0
    for n in range(S.G[F_NNODES]):
        if free_at[n] > 0:
            c += 1
    for a in range(taken):
        free_at[tmp[a]] += 1
    return c >= k_head


@njit
def easy_place(
    S: Any, t: float, jr: int, shadow: float, rrow: int, k_head: int, free_at: Any
) -> int:
    """Cells for a job behind the head (as ``place``), if it does not delay the head's
    reservation: it ends by the shadow time by its estimate, or it leaves the head
    enough cells then (gang: or it goes to another row than the reserved one).
    Returns the row (-1 off the gang), or -2."""
    k = S.I[jr, J_PROCS]
    early = t + S.F[jr, J_EST] <= shadow
    if S.G[F_GANG]:
        for r in range(S.G[F_MPL]):
            if row_cells(S, r, k) < k:
                continue
            if early or r != rrow or easy_keeps(S, k_head, k, free_at):
                return r
        return -2
    row = place(S, k)
    if row == -2 or early or easy_keeps(S, k_head, k, free_at):
        return row
    return -2


@njit
def easy_start(S: Any, t: float) -> None:
    """EASY backfilling in front of the engine (FCS paper, section 5.1): start the queue
    head while it fits; when it does not, reserve its start at the shadow time
    (:func:`easy_shadow`, by the running jobs' estimated ends) and start, in queue order,
    every later job that fits now without delaying it (:func:`easy_place`)."""
    si = S.G
    jb = si[S_JB]
    qb = si[S_QB]
    free_at = np.zeros(si[F_NNODES], dtype=np.int64)
    shadow = INF
    rrow = -1
    k_head = 0
    m = 0  # position behind the head (0: the head itself)
    while si[S_QHEAD] + m < si[S_QTAIL]:
        i = si[qb + si[S_QHEAD] + m]
        if m == 0:
            row = place(S, S.I[jb + i, J_PROCS])
            if row != -2:
                si[S_QHEAD] += 1
                start_job(S, i, row, t)
                continue
            k_head = S.I[jb + i, J_PROCS]
            shadow, rrow = easy_shadow(S, t, k_head, free_at)
            m = 1
            continue
        row = easy_place(S, t, jb + i, shadow, rrow, k_head, free_at)
        if row == -2:
            m += 1
            continue
        for a in range(si[S_QHEAD] + m, si[S_QTAIL] - 1):  # take it out of the queue
            si[qb + a] = si[qb + a + 1]
        si[S_QTAIL] -= 1
        start_job(S, i, row, t)
        shadow, rrow = easy_shadow(S, t, k_head, free_at)


@njit
def start_job(S: Any, i: int, row: int, t: float) -> None:
    """Create job ``i``'s processes on the chosen nodes (from ``place``) and row."""
    PI = S.I
    PF = S.F
    tmp = S.G[S.G[S_TMPB] :]
    jr = S.G[S_JB] + i
    k = PI[jr, J_PROCS]
    comp = PF[jr, J_WCOMP]
    io = PF[jr, J_WIO]
    t_iter = S.GF[R_LATENCY] / PF[jr, J_WCOMM]
    if k == 1:
        comp, io = comp / (comp + io), io / (comp + io)
    jcomp = comp * t_iter
    jio = io * t_iter
    nit = max(1, int(np.rint(PF[jr, J_RUN] / t_iter)))
    PF[jr, J_COMP] = jcomp
    PF[jr, J_IO] = jio
    PI[jr, J_NITER] = nit
    PI[jr, J_DONE] = 0
    PI[jr, J_ROW] = row
    PI[jr, J_NPROCS] = k
    PI[jr, J_STARTED] = 1
    PF[jr, J_START] = t
    p0 = S.G[S_NEXTPROC]
    S.G[S_NEXTPROC] = p0 + k
    PI[jr, J_P0] = p0
    S.G[S_RUNNING] += 1
    if S.GF[R_NPER] > 0:
        noise_arm(S, t)
    slow = PF[jr, J_SLOW]
    parity = PI[jr, J_PARITY]
    blk = PI[jr, J_BLOCK]
    per = PI[jr, J_PERIOD]
    ring = PI[jr, J_RING] != 0 and k > 1
    for r in range(k):
        p = p0 + r
        PI[p, :] = 0
        PF[p, :] = 0.0
        PI[p, P_SEED] = PI[jr, J_SEED]
        PI[p, P_NITER] = nit
        PF[p, P_JCOMP] = jcomp * slow if (r // blk) % per == parity and slow != 1.0 else jcomp
        PF[p, P_JIO] = jio
        PF[p, P_SKEW] = PF[jr, J_SKEW]
        PI[p, P_JOB] = i
        PI[p, P_RANK] = r
        PI[p, P_NODE] = tmp[r]
        PI[p, P_CPU] = tmp[r]
        PI[p, P_STATE] = READY
        PI[p, P_PHASE] = P_COMPUTE
        PI[p, P_WAITING] = -1
        PI[p, P_NBR0] = p - 1 if r > 0 else (p0 + k - 1 if ring else -1)
        PI[p, P_NBR1] = p + 1 if r + 1 < k else (p0 if ring else -1)
        if S.G[F_LINUX]:
            ntt = S.G[F_NTT]
            PI[p, P_CNT] = linux_start_counter(PI[p, P_SEED], r, ntt) if S.G[F_CNT0] else ntt
    for r in range(k):
        p = p0 + r
        PF[p, P_REM] = PF[p, P_JCOMP] * factor(S, p)
    if S.G[F_GANG]:
        gang_start(S, jr, t)
        return
    if not S.G[S_TICKING] and not S.G[F_LINUX]:  # Linux has no periodic raise
        S.G[S_TICKING] = 1
        period = S.GF[R_RAISE]
        push(S, (np.floor(t / period) + 1.0) * period, EV_RAISE, -1, 0)
    top = S.G[F_TOP]
    for r in range(k):
        p = p0 + r
        n = PI[p, P_NODE]
        fold(S, n, t)
        S.I[n, N_BUSY] += 1
        c = S.I[n, N_NPROCS]
        S.I[n, N_PL + c] = p
        S.I[n, N_NPROCS] = c + 1
        set_speed(S, n)
        if S.G[F_LINUX]:  # a new process joins the run queue as a woken one does
            linux_wake(S, p, t, 0)
            resched(S, n, t)
            continue
        PI[p, P_LEVEL] = top
        PF[p, P_QLEFT] = S.GF[R_QTOP]
        requeue(S, p, False)
        cur = S.I[n, N_CUR]
        if cur < 0 or PI[p, P_LEVEL] > PI[cur, P_LEVEL]:
            request_preempt(S, n, t, -1)
        resched(S, n, t)


@njit
def gang_start(S: Any, i: int, t: float) -> None:
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
def next_gang_row(S: Any) -> int:
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
def gang_slot(S: Any, t: float) -> None:
    """End of a gang quantum: every node switches to the next non-empty row."""
    if S.G[F_FCS]:
        fcs_slot(S, t)
        return
    nxt = next_gang_row(S)
    if nxt < 0:
        S.G[S_TICKING] = 0
        return
    active = S.G[S_GSACTIVE]
    push(S, t + S.GF[R_GSQ], EV_SLOT, -1, 0)
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


# ------------------------------------------------------ flexible coscheduling
@njit
def fcs_start(S: Any, n: int, p: int, row: int, t: float) -> None:
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
def fcs_reset(S: Any, p: int) -> None:
    """FCS: restart a process's measurements (class change or age expiration)."""
    S.F[p, P_TCPU0] = S.F[p, P_COMPUTE_T]
    S.F[p, P_TCOMM] = 0.0
    S.F[p, P_TWAIT0] = S.F[p, P_SPIN_T] + S.F[p, P_BLOCKED_T]
    S.I[p, P_CCOMM] = 0


@njit
def fcs_reclassify(S: Any, n: int, p: int) -> None:
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
def fcs_run(S: Any, n: int, p: int, t: float) -> None:
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
def fcs_mode(S: Any, n: int) -> int:
    """Node ``n``'s mode in the active slot: CS if the slot's process is a live CS
    process (it runs alone, polling), else local."""
    sp = S.I[n, S.G[S_GSCOL] + S.G[S_GSACTIVE]]
    if sp >= 0 and S.I[sp, P_KLASS] == CL_CS and S.I[sp, P_STATE] != DONE:
        return MODE_CS
    return MODE_LOCAL


@njit
def fcs_enter(S: Any, n: int, t: float) -> None:
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
def fcs_slot(S: Any, t: float) -> None:
    """FCS heartbeat (the machine manager's multi-context-switch, every quantum): the
    ending slot's processes are reclassified (Algorithm 2; with ``F_HBCLOCK`` every live
    process, its age counted in heartbeats), then every node applies Algorithm 1 to the
    next non-empty row."""
    nxt = next_gang_row(S)
    if nxt < 0:
        S.G[S_TICKING] = 0
        return
    active = S.G[S_GSACTIVE]
    push(S, t + S.GF[R_GSQ], EV_SLOT, -1, 0)
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


# -------------------------------------------------------------- checks, loop
@njit
def check_all(S: Any, t: float) -> bool:
    """The per-node invariants: at most one running process, the node's current one,
    and CPU busy time within wall time. False (and the node and code in G) if broken."""
    for n in range(S.G[F_NNODES]):
        cur = S.I[n, N_CUR]
        running = 0
        first = -1
        m0 = n - n % S.G[F_SMP]  # the processes of its run queue (its node's PEs)
        for m in range(m0, m0 + S.G[F_SMP]):
            for a in range(S.I[m, N_NPROCS]):
                q = S.I[m, N_PL + a]
                if S.I[q, P_STATE] == RUNNING and S.I[q, P_CPU] == n:
                    running += 1
                    if first < 0:
                        first = q
        if running > 1 or (running == 1 and first != cur):
            S.G[S_ERRNODE] = n
            S.G[S_ERR] = 1
            return False
        if cur >= 0 and (S.I[cur, P_STATE] != RUNNING or S.I[cur, P_CPU] != n):
            S.G[S_ERRNODE] = n
            S.G[S_ERR] = 2
            return False
        NF = S.F
        busy = NF[n, N_COMPUTE] + NF[n, N_SPIN] + NF[n, N_CS] + NF[n, N_INTR]
        busy = busy + NF[n, N_QUEUE] + NF[n, N_CHECK]
        lim = t if t > NF[n, N_OVH] else NF[n, N_OVH]
        if busy > lim + 1e-9:
            S.G[S_ERRNODE] = n
            S.G[S_ERR] = 3
            return False
    return True


@njit
def snapshot(S: Any, t: float) -> None:
    """Compute seconds done by the last submission (for the steady-state share)."""
    total = 0.0
    for n in range(S.G[F_NNODES]):
        fold(S, n, t)
    for n in range(S.G[F_NNODES]):
        total += S.F[n, N_COMPUTE]
    S.GF[S_WINCOMP] = total
    S.GF[S_WIN0] = S.F[S.G[S_JB], J_SUB]
    S.GF[S_WIN1] = t


@njit
def next_event(S: Any) -> tuple[float, int]:
    """The earliest event of the three queues by (time, sequence number): its time and
    its queue (0: none, 1: the heap, 2: the message FIFO, 3: a node's CPU event)."""
    G = S.G
    t = INF
    src = 0
    sq = 0
    if G[S_HSIZE] > 0:
        t = S.HT[0]
        sq = S.HI[0, 0]
        src = 1
    h = G[S_MHEAD]
    if h < G[S_MTAIL]:
        x = S.MT[h]
        xs = S.MI[h, 0]
        if src == 0 or x < t or (x == t and xs < sq):
            t = x
            sq = xs
            src = 2
    x = S.GF[G[S_TREEF] + 1]
    if x < INF:
        xs = G[G[S_TREEB] + 2 * G[S_P2] + 1]
        if src == 0 or x < t or (x == t and xs < sq):
            t = x
            src = 3
    return t, src


@njit
def stop_at(S: Any, now: float, events: int) -> None:
    """Save the loop's clock and count, with the lazy spin ends handled (the kernel is
    about to return)."""
    S.GF[S_NOW] = now
    S.G[S_EVENTS] = events + S.G[S_LAZYN]
    S.G[S_LAZYN] = 0


@njit
def run_kernel(S: Any, margin: int) -> int:
    """Run until done, the horizon, or the heap or the message FIFO has fewer than
    ``margin`` free slots.

    Returns one of ``RET_*``; on ``RET_GROW`` the caller enlarges the heap and the FIFO
    and calls again (the state is consistent between events, so the run resumes
    exactly). On ``RET_DONE`` and ``RET_HORIZON``, ``GF[S_NOW]`` is the time of the
    last event, counting replaced CPU events (``cpu_replaced``).
    """
    SI = S.G
    SF = S.GF
    jb = SI[S_JB]
    submits = S.F[jb:, J_SUB]  # jobs are the last rows
    nsub = submits.shape[0]
    horizon = S.GF[R_HORIZON]
    check = S.G[F_CHECK] != 0
    cap = S.HT.shape[0]
    mcap = S.MT.shape[0]
    now = SF[S_NOW]
    events = SI[S_EVENTS]
    ret = RET_HORIZON
    while True:
        i = SI[S_I]
        ts = submits[i] if i < nsub else INF
        stop = ts if ts < horizon else horizon
        th = INF
        while True:
            imm = SI[S_IMM]
            if imm:
                t = now
                src = 4
            else:
                t, src = next_event(S)
            th = t
            if src == 0 or t >= ts or t > stop:
                break
            if SI[S_HSIZE] + margin > cap or SI[S_MTAIL] - SI[S_MHEAD] + margin > mcap:
                stop_at(S, now, events)
                return RET_GROW
            if check:
                if t < now:
                    stop_at(S, now, events)
                    SF[S_ERRT] = t
                    return RET_BACKWARDS
                if not check_all(S, t):
                    stop_at(S, t, events)
                    return RET_INVARIANT
            now = t
            events += 1
            if SI[S_ERR] == ERR_HEAP:
                break
            if src == 4:
                n = imm - 1
                SI[S_IMM] = 0
                SI[S_CURSEQ] = SI[S_IMMSEQ]
                S.F[n, N_DUE] = INF
                node_event(S, n, t)
                if S.F[n, N_DUE] == INF:
                    cpu_update(S, n)
            elif src == 3:
                # The tree still shows the event while the node handles it; the node's
                # new event (resched) replays its path, or this does if it has none.
                n = SI[SI[S_TREEB] + 1]
                SI[S_CURSEQ] = SI[SI[S_TREEB] + 2 * SI[S_P2] + 1]
                S.F[n, N_DUE] = INF
                node_event(S, n, t)
                if S.F[n, N_DUE] == INF:
                    cpu_update(S, n)
            elif src == 2:
                h = SI[S_MHEAD]
                q = S.MI[h, 1]
                side = S.MI[h, 2]
                SI[S_CURSEQ] = S.MI[h, 0]
                if h + 1 == SI[S_MTAIL]:
                    SI[S_MHEAD] = 0
                    SI[S_MTAIL] = 0
                else:
                    SI[S_MHEAD] = h + 1
                arrive(S, q, side, t)
            else:
                kind = S.HI[0, 1]
                obj = S.HI[0, 2]
                SI[S_CURSEQ] = S.HI[0, 0]
                pop(S)
                if kind == EV_IODONE:
                    io_done(S, obj, t)
                elif kind == EV_RAISE:
                    raise_all(S, t)
                elif kind == EV_NOISE:
                    noise(S, obj, t)
                else:
                    gang_slot(S, t)
        if SI[S_ERR] == ERR_HEAP:
            stop_at(S, now, events)
            return RET_OVERFLOW
        if ts == INF and th == INF:
            ret = RET_HORIZON if SI[S_BEYOND] else RET_DONE
            break
        if ts <= th:
            if ts > horizon:
                break
            if SI[S_HSIZE] + margin > cap or SI[S_MTAIL] - SI[S_MHEAD] + margin > mcap:
                stop_at(S, now, events)
                return RET_GROW
            now = ts
            SI[S_CURSEQ] = -1  # before every event due at ts
            while i < nsub and submits[i] == ts:
                SI[SI[S_QB] + SI[S_QTAIL]] = i
                SI[S_QTAIL] += 1
                i += 1
            SI[S_I] = i
            if i == nsub:
                snapshot(S, ts)
            try_start(S, ts)
            continue
        break
    now = lazy_flush(S, horizon, now)
    if ret == RET_DONE and SI[S_BEYOND]:
        ret = RET_HORIZON
    if SF[S_STALET] > now:
        now = SF[S_STALET]
    stop_at(S, now, events)
    return ret


@njit
def fold_all(S: Any, t: float) -> None:
    """Account every node's running process up to ``t`` (end of run)."""
    for n in range(S.G[F_NNODES]):
        fold(S, n, t)
