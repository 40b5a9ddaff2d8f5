"""The layout of the model's state: every column of the two tables, every slot of the
globals, the codes the kernel speaks in, and :class:`State` itself.

The state is arrays only, so that the kernel compiles once per machine (numba's
``cache=True``): two tables ``I`` (int64) and ``F`` (float64) whose rows are the nodes,
then the processes (a process's id is its row), then the jobs; globals and parameters
``G`` / ``GF`` (the CPU-event tree is a region of ``G``); the event heap ``HT`` (times)
and ``HI`` (sequence number, kind, object, version), ordered by (time, sequence); the
message FIFO ``MT`` (times) and ``MI`` (sequence number, receiver, side), live between
``G[S_MHEAD]`` and ``G[S_MTAIL]``. Every name here is a plain module constant, which
numba folds into the compiled code.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

INF = np.inf
EPS = 1e-12

# Process states, phases of an iteration, and event kinds.
READY, RUNNING, IO, BLOCKED, DONE = 0, 1, 2, 3, 4
P_COMPUTE, P_SEND, P_RECV = 0, 1, 2
P_IOCPU = 3  # an I/O that holds the CPU (TSParams.io_holds_cpu): P_REM is what is left
EV_CPU, EV_ARRIVE, EV_IODONE, EV_RAISE, EV_SLOT = 0, 1, 2, 3, 4
EV_NOISE = 5  # a PE's daemon steals the CPU (TSParams.noise_period; object: the PE)
# EV_ARRIVE in the heap (NIC contention, TSParams.nic_bandwidth): object the receiver,
# version its side, plus ARR_AT_NIC while the message has reached the receiving
# interface and waits to be deposited.
ARR_AT_NIC = 2

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
# NIC contention (TSParams.nic_bandwidth), on an interface's first PE: when its
# sending side is free, and when it ends its last deposit into an endpoint.
N_TXF, N_RXF = 14, 15
N_IOCPU = 16  # CPU seconds of I/O that held the CPU (TSParams.io_holds_cpu)
K_NF = 17
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
F_NICPES = K_SI + 22  # PEs sharing one network interface (TSParams.nic_pes)
F_IOHOLD = K_SI + 23  # an iteration's I/O holds the CPU (TSParams.io_holds_cpu)
G_GSR = K_SI + 24  # G[G_GSR + r]: jobs in gang row r; then TMP and the arrival queue
#: The draw index of a process's starting counter (F_CNT0): above any iteration's skew
#: draw (one per iteration), below the rank's offset (2^40) in skew_unit.
CNT0_DRAW = 1 << 39
# Scalar float state GF[...], then parameters, then the quanta by level.
S_NOW, S_WIN0, S_WIN1, S_WINCOMP, S_ERRT, S_STALET = range(6)
S_WINWORK = 6  # the dedicated work the processes' computing stands for, by the last submit
K_SF = 7
R_LATENCY, R_CS, R_GSCS, R_GSQ, R_INTR, R_QM, R_EC, R_SPIN, R_TICK = range(K_SF, K_SF + 9)
R_RAISE, R_QTOP, R_HORIZON = range(K_SF + 9, K_SF + 12)
R_CST, R_DCT, R_FT, R_CLS, R_NM = range(K_SF + 12, K_SF + 17)  # FCS thresholds, costs
R_HZ = K_SF + 17  # Linux 2.4's timer frequency
R_NPER, R_NDUR = K_SF + 18, K_SF + 19  # OS noise: period (0: none) and duration
R_WAKE = K_SF + 20  # a blocked process's wake-up beyond the interrupt (TSParams.wake_cost)
# The time a message holds a network interface's sending side, and then the receiving
# side's (msg_size / nic_bandwidth; 0: no contention, messages in the FIFO).
R_NICOCC = K_SF + 21
R_COMM = K_SF + 22  # FCS: the monitoring's cost per synchronous communication (fcs_comm_cost)
G_QU = K_SF + 23
WAIT_SPIN, WAIT_BLOCK, WAIT_YIELD = 0, 1, 2
# FCS process classes (P_KLASS; a new process is CS) and node modes (N_MODE).
CL_CS, CL_F, CL_DC = 0, 1, 2
MODE_LOCAL, MODE_CS = 0, 1
ARR_NONE, ARR_INTERRUPT, ARR_PERIODIC = 0, 1, 2

# Kernel return codes.
RET_DONE, RET_HORIZON, RET_GROW, RET_INVARIANT, RET_BACKWARDS, RET_OVERFLOW = range(6)
ERR_HEAP = 99


#: A column or vector of the state tables: int64 (``I``, ``G``, ``HI``, ``MI``).
Ints = npt.NDArray[np.int64]
#: A column or vector of the state tables: float64 (``F``, ``GF``, ``HT``, ``MT``).
Floats = npt.NDArray[np.float64]


class State(NamedTuple):
    """The whole state of a run, handed to every kernel function as ``S``.

    A named tuple of arrays (numba passes it to compiled functions as a tuple of array
    views; a class with methods or a numba ``jitclass`` would not be cached or would
    cost reference counting on the hot path).
    """

    #: integer table: nodes, then processes, then jobs (columns ``N_``, ``P_``, ``J_``)
    I: Ints  # noqa: E741 - ``S.I``: the integer table
    #: float table, the same rows (the float columns ``N_``, ``P_``, ``J_``)
    F: Floats
    #: integer globals ``S_``, flags ``F_``, gang rows, TMP, the queue, CPU-event tree
    G: Ints
    #: float globals ``S_``, parameters ``R_``, quanta by level, the tree's times
    GF: Floats
    #: event heap: times
    HT: Floats
    #: event heap: sequence number, kind, object, version per event
    HI: Ints
    #: message FIFO: times
    MT: Floats
    #: message FIFO: sequence number, receiver, side per message
    MI: Ints
