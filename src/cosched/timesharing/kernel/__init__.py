"""The process-level time-sharing model, written once: plain Python over arrays.

Every rule of the model lives in this package and only here: a task's program (compute, I/O, send
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
* contention at the network interface (a named reading, off by default): a message
  holds its sender's interface and then its receiver's for ``msg_size /
  nic_bandwidth`` each, queueing behind the messages of the interface's other
  processes (:func:`nic_send`, :func:`nic_in`); messages then go through the heap;
* a NIC interrupt (``interrupt``) when a message wakes a blocked process (SB family) or
  reaches a descheduled one (DCS); a wake-up from a block also costs ``wake_cost`` (a
  named reading, 0 by default: the kernel's wake-up path and the cache refill of a
  process that slept), charged with the interrupt;
* FCS's monitoring of each synchronous communication (``fcs_comm_cost``, a named
  reading, 0 by default), charged as an interrupt on the process's PE before its
  messages leave;
* a queue move (``queue_move``) when a process blocks, is woken by an interrupt, is
  boosted by PB or by an I/O completion while another process holds the CPU (a wake-up
  on an idle CPU reorders nothing), and twice per yield (SY), which also checks every
  endpoint of the node (``endpoint_check`` each);
* PB's endpoint poll every tick: ``procs * endpoint_check / tick`` of the CPU, charged
  as a constant slow-down of the running process.
* OS noise (a named reading, off by default): ``noise_duration`` every
  ``noise_period`` on every PE, at a phase of its own, charged as an interrupt
  (:func:`noise`).
* an iteration's I/O gives up the CPU (the process waits off the CPU; the default)
  or, under the named reading ``io_holds_cpu``, holds it for its duration like a
  compute phase (preemptible by quantum and priority as one), counted apart from
  compute (``N_IOCPU``).

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

State lives in the named tuple :class:`~.layout.State` (arrays only, so the kernel
compiles once per machine with ``cache=True``; :mod:`.layout` has every column): two
tables ``I`` (int64) and ``F`` (float64) whose rows are the nodes, then the processes
(a process's id is its row), then the jobs; globals and parameters ``G`` / ``GF``; the
event heap ``HT`` / ``HI``; the message FIFO ``MT`` / ``MI``. The kernel is resumable:
it returns when it needs a larger heap or FIFO, and the caller grows them and calls it
again.

The modules follow the model's parts; each imports only those listed before it (the
calls between the parts run one way, so the package has no import cycle):

* :mod:`.layout`: the columns, the codes and :class:`~.layout.State`;
* :mod:`.draws`: the per-task random draws (the skew);
* :mod:`.events`: the three event queues and their merge;
* :mod:`.linux`: Linux 2.4's counter and goodness rules;
* :mod:`.cpu`: CPU accounting, overheads and each node's pending CPU event;
* :mod:`.choice`: who runs next (the MLFQ, FCS's local scheduler, Linux 2.4);
* :mod:`.dispatch`: switches, preemption, quantum expiry, the raise, Linux's
  ``schedule()`` and ``reschedule_idle()``;
* :mod:`.matrix`: the gang matrix's rows and cells;
* :mod:`.fcs`: flexible coscheduling's classes and heartbeat;
* :mod:`.gang`: gang scheduling's rows and slots;
* :mod:`.noise`: the OS noise daemons;
* :mod:`.nic`: message arrival, I/O completion, periodic boost;
* :mod:`.front`: the FCFS and EASY admission front and a job's start;
* :mod:`.programs`: a task's program (compute, I/O, send, receive) and its end;
* :mod:`.loop`: the event loop and the invariant checks.

Every name a caller uses is re-exported here (``from cosched.timesharing import kernel
as K``; ``K.run_kernel``, ``K.N_CUR``). How numba compiles the functions, and why its
cache entries carry a hash of the whole package: :mod:`._jit`.
"""

from __future__ import annotations

from cosched.timesharing.kernel._jit import _NUMBA as _NUMBA
from cosched.timesharing.kernel.choice import fcs_ready_f as fcs_ready_f
from cosched.timesharing.kernel.choice import fcs_slot_f as fcs_slot_f
from cosched.timesharing.kernel.choice import fcs_wake_favoured as fcs_wake_favoured
from cosched.timesharing.kernel.choice import linux_choice as linux_choice
from cosched.timesharing.kernel.choice import linux_node_f as linux_node_f
from cosched.timesharing.kernel.choice import linux_recalc as linux_recalc
from cosched.timesharing.kernel.choice import mlfq_choice as mlfq_choice
from cosched.timesharing.kernel.choice import pick as pick
from cosched.timesharing.kernel.choice import pick_fcs as pick_fcs
from cosched.timesharing.kernel.choice import requeue as requeue
from cosched.timesharing.kernel.cpu import charge as charge
from cosched.timesharing.kernel.cpu import fold as fold
from cosched.timesharing.kernel.cpu import fold_acct as fold_acct
from cosched.timesharing.kernel.cpu import inbox_waiting as inbox_waiting
from cosched.timesharing.kernel.cpu import lazy_expire as lazy_expire
from cosched.timesharing.kernel.cpu import lazy_flush as lazy_flush
from cosched.timesharing.kernel.cpu import lazy_ok as lazy_ok
from cosched.timesharing.kernel.cpu import lazy_resolve as lazy_resolve
from cosched.timesharing.kernel.cpu import resched as resched
from cosched.timesharing.kernel.dispatch import boost as boost
from cosched.timesharing.kernel.dispatch import dispatch as dispatch
from cosched.timesharing.kernel.dispatch import expire as expire
from cosched.timesharing.kernel.dispatch import linux_expire as linux_expire
from cosched.timesharing.kernel.dispatch import linux_place as linux_place
from cosched.timesharing.kernel.dispatch import linux_schedule as linux_schedule
from cosched.timesharing.kernel.dispatch import linux_wake as linux_wake
from cosched.timesharing.kernel.dispatch import preempt as preempt
from cosched.timesharing.kernel.dispatch import raise_all as raise_all
from cosched.timesharing.kernel.dispatch import request_preempt as request_preempt
from cosched.timesharing.kernel.dispatch import switch_to as switch_to
from cosched.timesharing.kernel.draws import factor as factor
from cosched.timesharing.kernel.draws import skew_unit as skew_unit
from cosched.timesharing.kernel.events import cpu_replaced as cpu_replaced
from cosched.timesharing.kernel.events import cpu_update as cpu_update
from cosched.timesharing.kernel.events import due_by as due_by
from cosched.timesharing.kernel.events import next_event as next_event
from cosched.timesharing.kernel.events import next_seq as next_seq
from cosched.timesharing.kernel.events import next_tick as next_tick
from cosched.timesharing.kernel.events import pop as pop
from cosched.timesharing.kernel.events import push as push
from cosched.timesharing.kernel.events import push_msg as push_msg
from cosched.timesharing.kernel.fcs import fcs_enter as fcs_enter
from cosched.timesharing.kernel.fcs import fcs_mode as fcs_mode
from cosched.timesharing.kernel.fcs import fcs_reclassify as fcs_reclassify
from cosched.timesharing.kernel.fcs import fcs_reset as fcs_reset
from cosched.timesharing.kernel.fcs import fcs_run as fcs_run
from cosched.timesharing.kernel.fcs import fcs_slot as fcs_slot
from cosched.timesharing.kernel.fcs import fcs_start as fcs_start
from cosched.timesharing.kernel.fcs import linux_fcs_modes as linux_fcs_modes
from cosched.timesharing.kernel.front import easy_est_end as easy_est_end
from cosched.timesharing.kernel.front import easy_free_at as easy_free_at
from cosched.timesharing.kernel.front import easy_keeps as easy_keeps
from cosched.timesharing.kernel.front import easy_place as easy_place
from cosched.timesharing.kernel.front import easy_shadow as easy_shadow
from cosched.timesharing.kernel.front import easy_start as easy_start
from cosched.timesharing.kernel.front import place as place
from cosched.timesharing.kernel.front import start_job as start_job
from cosched.timesharing.kernel.front import try_start as try_start
from cosched.timesharing.kernel.gang import gang_slot as gang_slot
from cosched.timesharing.kernel.gang import gang_start as gang_start
from cosched.timesharing.kernel.layout import ARR_AT_NIC as ARR_AT_NIC
from cosched.timesharing.kernel.layout import ARR_INTERRUPT as ARR_INTERRUPT
from cosched.timesharing.kernel.layout import ARR_NONE as ARR_NONE
from cosched.timesharing.kernel.layout import ARR_PERIODIC as ARR_PERIODIC
from cosched.timesharing.kernel.layout import BLOCKED as BLOCKED
from cosched.timesharing.kernel.layout import CL_CS as CL_CS
from cosched.timesharing.kernel.layout import CL_DC as CL_DC
from cosched.timesharing.kernel.layout import CL_F as CL_F
from cosched.timesharing.kernel.layout import CNT0_DRAW as CNT0_DRAW
from cosched.timesharing.kernel.layout import DONE as DONE
from cosched.timesharing.kernel.layout import EPS as EPS
from cosched.timesharing.kernel.layout import ERR_HEAP as ERR_HEAP
from cosched.timesharing.kernel.layout import EV_ARRIVE as EV_ARRIVE
from cosched.timesharing.kernel.layout import EV_CPU as EV_CPU
from cosched.timesharing.kernel.layout import EV_IODONE as EV_IODONE
from cosched.timesharing.kernel.layout import EV_NOISE as EV_NOISE
from cosched.timesharing.kernel.layout import EV_RAISE as EV_RAISE
from cosched.timesharing.kernel.layout import EV_SLOT as EV_SLOT
from cosched.timesharing.kernel.layout import F_ARRIVAL as F_ARRIVAL
from cosched.timesharing.kernel.layout import F_CHECK as F_CHECK
from cosched.timesharing.kernel.layout import F_CNT0 as F_CNT0
from cosched.timesharing.kernel.layout import F_CSLOCAL as F_CSLOCAL
from cosched.timesharing.kernel.layout import F_CSMIN as F_CSMIN
from cosched.timesharing.kernel.layout import F_EASY as F_EASY
from cosched.timesharing.kernel.layout import F_FALL as F_FALL
from cosched.timesharing.kernel.layout import F_FCS as F_FCS
from cosched.timesharing.kernel.layout import F_FPRE as F_FPRE
from cosched.timesharing.kernel.layout import F_GANG as F_GANG
from cosched.timesharing.kernel.layout import F_HBCLOCK as F_HBCLOCK
from cosched.timesharing.kernel.layout import F_IOHOLD as F_IOHOLD
from cosched.timesharing.kernel.layout import F_LINUX as F_LINUX
from cosched.timesharing.kernel.layout import F_MPL as F_MPL
from cosched.timesharing.kernel.layout import F_NICPES as F_NICPES
from cosched.timesharing.kernel.layout import F_NNODES as F_NNODES
from cosched.timesharing.kernel.layout import F_NTT as F_NTT
from cosched.timesharing.kernel.layout import F_PEN as F_PEN
from cosched.timesharing.kernel.layout import F_SMP as F_SMP
from cosched.timesharing.kernel.layout import F_TCRUN as F_TCRUN
from cosched.timesharing.kernel.layout import F_TOP as F_TOP
from cosched.timesharing.kernel.layout import F_TSMAX as F_TSMAX
from cosched.timesharing.kernel.layout import F_WAIT as F_WAIT
from cosched.timesharing.kernel.layout import F_WPRE as F_WPRE
from cosched.timesharing.kernel.layout import G_GSR as G_GSR
from cosched.timesharing.kernel.layout import G_QU as G_QU
from cosched.timesharing.kernel.layout import INF as INF
from cosched.timesharing.kernel.layout import IO as IO
from cosched.timesharing.kernel.layout import J_BLOCK as J_BLOCK
from cosched.timesharing.kernel.layout import J_COMP as J_COMP
from cosched.timesharing.kernel.layout import J_DONE as J_DONE
from cosched.timesharing.kernel.layout import J_END as J_END
from cosched.timesharing.kernel.layout import J_EST as J_EST
from cosched.timesharing.kernel.layout import J_IO as J_IO
from cosched.timesharing.kernel.layout import J_NITER as J_NITER
from cosched.timesharing.kernel.layout import J_NPROCS as J_NPROCS
from cosched.timesharing.kernel.layout import J_P0 as J_P0
from cosched.timesharing.kernel.layout import J_PARITY as J_PARITY
from cosched.timesharing.kernel.layout import J_PERIOD as J_PERIOD
from cosched.timesharing.kernel.layout import J_PROCS as J_PROCS
from cosched.timesharing.kernel.layout import J_RING as J_RING
from cosched.timesharing.kernel.layout import J_ROW as J_ROW
from cosched.timesharing.kernel.layout import J_RUN as J_RUN
from cosched.timesharing.kernel.layout import J_SEED as J_SEED
from cosched.timesharing.kernel.layout import J_SKEW as J_SKEW
from cosched.timesharing.kernel.layout import J_SLOW as J_SLOW
from cosched.timesharing.kernel.layout import J_START as J_START
from cosched.timesharing.kernel.layout import J_STARTED as J_STARTED
from cosched.timesharing.kernel.layout import J_SUB as J_SUB
from cosched.timesharing.kernel.layout import J_WCOMM as J_WCOMM
from cosched.timesharing.kernel.layout import J_WCOMP as J_WCOMP
from cosched.timesharing.kernel.layout import J_WIO as J_WIO
from cosched.timesharing.kernel.layout import K_JF as K_JF
from cosched.timesharing.kernel.layout import K_JI as K_JI
from cosched.timesharing.kernel.layout import K_NF as K_NF
from cosched.timesharing.kernel.layout import K_PF as K_PF
from cosched.timesharing.kernel.layout import K_PI as K_PI
from cosched.timesharing.kernel.layout import K_SF as K_SF
from cosched.timesharing.kernel.layout import K_SI as K_SI
from cosched.timesharing.kernel.layout import MODE_CS as MODE_CS
from cosched.timesharing.kernel.layout import MODE_LOCAL as MODE_LOCAL
from cosched.timesharing.kernel.layout import N_ACT as N_ACT
from cosched.timesharing.kernel.layout import N_BUSY as N_BUSY
from cosched.timesharing.kernel.layout import N_CHECK as N_CHECK
from cosched.timesharing.kernel.layout import N_COMPUTE as N_COMPUTE
from cosched.timesharing.kernel.layout import N_CS as N_CS
from cosched.timesharing.kernel.layout import N_CUR as N_CUR
from cosched.timesharing.kernel.layout import N_DUE as N_DUE
from cosched.timesharing.kernel.layout import N_FORCE as N_FORCE
from cosched.timesharing.kernel.layout import N_IDLE as N_IDLE
from cosched.timesharing.kernel.layout import N_INTR as N_INTR
from cosched.timesharing.kernel.layout import N_IOCPU as N_IOCPU
from cosched.timesharing.kernel.layout import N_LAST as N_LAST
from cosched.timesharing.kernel.layout import N_LAZY as N_LAZY
from cosched.timesharing.kernel.layout import N_MODE as N_MODE
from cosched.timesharing.kernel.layout import N_NK as N_NK
from cosched.timesharing.kernel.layout import N_NPH as N_NPH
from cosched.timesharing.kernel.layout import N_NPROCS as N_NPROCS
from cosched.timesharing.kernel.layout import N_OVH as N_OVH
from cosched.timesharing.kernel.layout import N_PB as N_PB
from cosched.timesharing.kernel.layout import N_PL as N_PL
from cosched.timesharing.kernel.layout import N_PRE as N_PRE
from cosched.timesharing.kernel.layout import N_QUEUE as N_QUEUE
from cosched.timesharing.kernel.layout import N_RR as N_RR
from cosched.timesharing.kernel.layout import N_RXF as N_RXF
from cosched.timesharing.kernel.layout import N_SPEED as N_SPEED
from cosched.timesharing.kernel.layout import N_SPIN as N_SPIN
from cosched.timesharing.kernel.layout import N_TARGET as N_TARGET
from cosched.timesharing.kernel.layout import N_TXF as N_TXF
from cosched.timesharing.kernel.layout import N_VER as N_VER
from cosched.timesharing.kernel.layout import P_BLOCKED_T as P_BLOCKED_T
from cosched.timesharing.kernel.layout import P_CCOMM as P_CCOMM
from cosched.timesharing.kernel.layout import P_CNT as P_CNT
from cosched.timesharing.kernel.layout import P_COMPUTE as P_COMPUTE
from cosched.timesharing.kernel.layout import P_COMPUTE_T as P_COMPUTE_T
from cosched.timesharing.kernel.layout import P_CPU as P_CPU
from cosched.timesharing.kernel.layout import P_CSLOTS as P_CSLOTS
from cosched.timesharing.kernel.layout import P_DRAW as P_DRAW
from cosched.timesharing.kernel.layout import P_INBOX0 as P_INBOX0
from cosched.timesharing.kernel.layout import P_INBOX1 as P_INBOX1
from cosched.timesharing.kernel.layout import P_INRECV as P_INRECV
from cosched.timesharing.kernel.layout import P_IO_T as P_IO_T
from cosched.timesharing.kernel.layout import P_IOCPU as P_IOCPU
from cosched.timesharing.kernel.layout import P_IT as P_IT
from cosched.timesharing.kernel.layout import P_JCOMP as P_JCOMP
from cosched.timesharing.kernel.layout import P_JIO as P_JIO
from cosched.timesharing.kernel.layout import P_JOB as P_JOB
from cosched.timesharing.kernel.layout import P_KLASS as P_KLASS
from cosched.timesharing.kernel.layout import P_LEVEL as P_LEVEL
from cosched.timesharing.kernel.layout import P_NBR0 as P_NBR0
from cosched.timesharing.kernel.layout import P_NBR1 as P_NBR1
from cosched.timesharing.kernel.layout import P_NITER as P_NITER
from cosched.timesharing.kernel.layout import P_NODE as P_NODE
from cosched.timesharing.kernel.layout import P_PHASE as P_PHASE
from cosched.timesharing.kernel.layout import P_QKEY as P_QKEY
from cosched.timesharing.kernel.layout import P_QLEFT as P_QLEFT
from cosched.timesharing.kernel.layout import P_RANK as P_RANK
from cosched.timesharing.kernel.layout import P_RECEIVED as P_RECEIVED
from cosched.timesharing.kernel.layout import P_RECV as P_RECV
from cosched.timesharing.kernel.layout import P_REM as P_REM
from cosched.timesharing.kernel.layout import P_SEED as P_SEED
from cosched.timesharing.kernel.layout import P_SEND as P_SEND
from cosched.timesharing.kernel.layout import P_SENT as P_SENT
from cosched.timesharing.kernel.layout import P_SKEW as P_SKEW
from cosched.timesharing.kernel.layout import P_SPIN_T as P_SPIN_T
from cosched.timesharing.kernel.layout import P_SPINNING as P_SPINNING
from cosched.timesharing.kernel.layout import P_STATE as P_STATE
from cosched.timesharing.kernel.layout import P_SWITCHES as P_SWITCHES
from cosched.timesharing.kernel.layout import P_TBLOCK as P_TBLOCK
from cosched.timesharing.kernel.layout import P_TCOMM as P_TCOMM
from cosched.timesharing.kernel.layout import P_TCPU0 as P_TCPU0
from cosched.timesharing.kernel.layout import P_TRECV as P_TRECV
from cosched.timesharing.kernel.layout import P_TSLOTS as P_TSLOTS
from cosched.timesharing.kernel.layout import P_TWAIT0 as P_TWAIT0
from cosched.timesharing.kernel.layout import P_WAITING as P_WAITING
from cosched.timesharing.kernel.layout import P_YIELDED as P_YIELDED
from cosched.timesharing.kernel.layout import R_CLS as R_CLS
from cosched.timesharing.kernel.layout import R_COMM as R_COMM
from cosched.timesharing.kernel.layout import R_CS as R_CS
from cosched.timesharing.kernel.layout import R_CST as R_CST
from cosched.timesharing.kernel.layout import R_DCT as R_DCT
from cosched.timesharing.kernel.layout import R_EC as R_EC
from cosched.timesharing.kernel.layout import R_FT as R_FT
from cosched.timesharing.kernel.layout import R_GSCS as R_GSCS
from cosched.timesharing.kernel.layout import R_GSQ as R_GSQ
from cosched.timesharing.kernel.layout import R_HORIZON as R_HORIZON
from cosched.timesharing.kernel.layout import R_HZ as R_HZ
from cosched.timesharing.kernel.layout import R_INTR as R_INTR
from cosched.timesharing.kernel.layout import R_LATENCY as R_LATENCY
from cosched.timesharing.kernel.layout import R_NDUR as R_NDUR
from cosched.timesharing.kernel.layout import R_NICOCC as R_NICOCC
from cosched.timesharing.kernel.layout import R_NM as R_NM
from cosched.timesharing.kernel.layout import R_NPER as R_NPER
from cosched.timesharing.kernel.layout import R_QM as R_QM
from cosched.timesharing.kernel.layout import R_QTOP as R_QTOP
from cosched.timesharing.kernel.layout import R_RAISE as R_RAISE
from cosched.timesharing.kernel.layout import R_SPIN as R_SPIN
from cosched.timesharing.kernel.layout import R_TICK as R_TICK
from cosched.timesharing.kernel.layout import R_WAKE as R_WAKE
from cosched.timesharing.kernel.layout import READY as READY
from cosched.timesharing.kernel.layout import RET_BACKWARDS as RET_BACKWARDS
from cosched.timesharing.kernel.layout import RET_DONE as RET_DONE
from cosched.timesharing.kernel.layout import RET_GROW as RET_GROW
from cosched.timesharing.kernel.layout import RET_HORIZON as RET_HORIZON
from cosched.timesharing.kernel.layout import RET_INVARIANT as RET_INVARIANT
from cosched.timesharing.kernel.layout import RET_OVERFLOW as RET_OVERFLOW
from cosched.timesharing.kernel.layout import RUNNING as RUNNING
from cosched.timesharing.kernel.layout import S_BEYOND as S_BEYOND
from cosched.timesharing.kernel.layout import S_CURSEQ as S_CURSEQ
from cosched.timesharing.kernel.layout import S_ERR as S_ERR
from cosched.timesharing.kernel.layout import S_ERRNODE as S_ERRNODE
from cosched.timesharing.kernel.layout import S_ERRT as S_ERRT
from cosched.timesharing.kernel.layout import S_EVENTS as S_EVENTS
from cosched.timesharing.kernel.layout import S_GSACTIVE as S_GSACTIVE
from cosched.timesharing.kernel.layout import S_GSCOL as S_GSCOL
from cosched.timesharing.kernel.layout import S_HSIZE as S_HSIZE
from cosched.timesharing.kernel.layout import S_I as S_I
from cosched.timesharing.kernel.layout import S_IMM as S_IMM
from cosched.timesharing.kernel.layout import S_IMMSEQ as S_IMMSEQ
from cosched.timesharing.kernel.layout import S_JB as S_JB
from cosched.timesharing.kernel.layout import S_LAZYN as S_LAZYN
from cosched.timesharing.kernel.layout import S_MHEAD as S_MHEAD
from cosched.timesharing.kernel.layout import S_MTAIL as S_MTAIL
from cosched.timesharing.kernel.layout import S_NEXTPROC as S_NEXTPROC
from cosched.timesharing.kernel.layout import S_NOW as S_NOW
from cosched.timesharing.kernel.layout import S_P2 as S_P2
from cosched.timesharing.kernel.layout import S_QB as S_QB
from cosched.timesharing.kernel.layout import S_QC as S_QC
from cosched.timesharing.kernel.layout import S_QHEAD as S_QHEAD
from cosched.timesharing.kernel.layout import S_QTAIL as S_QTAIL
from cosched.timesharing.kernel.layout import S_RECEIVED as S_RECEIVED
from cosched.timesharing.kernel.layout import S_RUNNING as S_RUNNING
from cosched.timesharing.kernel.layout import S_SENT as S_SENT
from cosched.timesharing.kernel.layout import S_SEQ as S_SEQ
from cosched.timesharing.kernel.layout import S_STALE as S_STALE
from cosched.timesharing.kernel.layout import S_STALET as S_STALET
from cosched.timesharing.kernel.layout import S_TICKING as S_TICKING
from cosched.timesharing.kernel.layout import S_TMPB as S_TMPB
from cosched.timesharing.kernel.layout import S_TREEB as S_TREEB
from cosched.timesharing.kernel.layout import S_TREEF as S_TREEF
from cosched.timesharing.kernel.layout import S_WIN0 as S_WIN0
from cosched.timesharing.kernel.layout import S_WIN1 as S_WIN1
from cosched.timesharing.kernel.layout import S_WINCOMP as S_WINCOMP
from cosched.timesharing.kernel.layout import S_WINWORK as S_WINWORK
from cosched.timesharing.kernel.layout import WAIT_BLOCK as WAIT_BLOCK
from cosched.timesharing.kernel.layout import WAIT_SPIN as WAIT_SPIN
from cosched.timesharing.kernel.layout import WAIT_YIELD as WAIT_YIELD
from cosched.timesharing.kernel.layout import Floats as Floats
from cosched.timesharing.kernel.layout import Ints as Ints
from cosched.timesharing.kernel.layout import State as State
from cosched.timesharing.kernel.linux import linux_best as linux_best
from cosched.timesharing.kernel.linux import linux_expiry as linux_expiry
from cosched.timesharing.kernel.linux import linux_first as linux_first
from cosched.timesharing.kernel.linux import linux_free as linux_free
from cosched.timesharing.kernel.linux import linux_goodness as linux_goodness
from cosched.timesharing.kernel.linux import linux_start_counter as linux_start_counter
from cosched.timesharing.kernel.linux import linux_tick_of as linux_tick_of
from cosched.timesharing.kernel.linux import linux_ticks as linux_ticks
from cosched.timesharing.kernel.loop import check_all as check_all
from cosched.timesharing.kernel.loop import fold_all as fold_all
from cosched.timesharing.kernel.loop import node_event as node_event
from cosched.timesharing.kernel.loop import run_kernel as run_kernel
from cosched.timesharing.kernel.loop import snapshot as snapshot
from cosched.timesharing.kernel.loop import stop_at as stop_at
from cosched.timesharing.kernel.matrix import next_gang_row as next_gang_row
from cosched.timesharing.kernel.matrix import row_cells as row_cells
from cosched.timesharing.kernel.nic import arrive as arrive
from cosched.timesharing.kernel.nic import io_done as io_done
from cosched.timesharing.kernel.nic import nic_in as nic_in
from cosched.timesharing.kernel.nic import nic_send as nic_send
from cosched.timesharing.kernel.nic import pb_candidate as pb_candidate
from cosched.timesharing.kernel.nic import pb_tick as pb_tick
from cosched.timesharing.kernel.nic import set_speed as set_speed
from cosched.timesharing.kernel.noise import noise as noise
from cosched.timesharing.kernel.noise import noise_arm as noise_arm
from cosched.timesharing.kernel.programs import activity_done as activity_done
from cosched.timesharing.kernel.programs import end_job as end_job
from cosched.timesharing.kernel.programs import finish as finish
from cosched.timesharing.kernel.programs import leave as leave
from cosched.timesharing.kernel.programs import receive as receive
from cosched.timesharing.kernel.programs import spin_expired as spin_expired

__all__ = ["State", "run_kernel", "skew_unit"]
