"""Processes, nodes and jobs of the time-sharing model (plain slotted records).

A task (process) loops: compute, I/O, send one message to each nearest neighbour, then
receive one message from each neighbour (left, then right). Section 3.2 of the paper:
the ideal communication time of an iteration is the one-way latency L of a message, so
an iteration lasts ``L / comm`` and its compute and I/O parts are ``L * comp / comm``
and ``L * io / comm``; each is multiplied per task and iteration by
``1 + unif(-s/2, s/2)``. The iteration count is ``round(run_time * comm / L)`` so that a
job with s = 0 on dedicated nodes runs for its ``run_time``. A one-task job has no
neighbours: its compute and I/O shares are rescaled to fill the iteration.
"""

from __future__ import annotations

__all__ = ["BLOCKED", "DONE", "IO", "READY", "RUNNING", "JobState", "Node", "Proc", "skew_unit"]

INF = float("inf")
EPS = 1e-12
# Event kinds of the engine's heap.
EV_CPU, EV_ARRIVE, EV_IODONE, EV_RAISE, EV_SLOT = 0, 1, 2, 3, 4

# Process states.
READY = 0
RUNNING = 1
IO = 2
BLOCKED = 3
DONE = 4

# Phases of an iteration.
P_COMPUTE = 0
P_SEND = 1
P_RECV = 2

_MASK = (1 << 64) - 1


def skew_unit(seed: int, rank: int, k: int) -> float:
    """The ``k``-th uniform [0, 1) draw of task ``rank`` of a job with ``seed``.

    A counter-based generator (SplitMix64's finaliser of ``seed + rank * 2^40 + k``):
    a draw depends only on the job's seed (taken from the run's generator), the task
    and the draw's index, never on the order in which events consume draws, so the
    compiled kernel (:mod:`cosched.timesharing.kernel`) reproduces it bit for bit.
    """
    z = (seed + (rank << 40) + k + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    z ^= z >> 31
    return (z >> 11) * 2.0**-53


class JobState:
    """A running or finished job: its iteration plan and its processes."""

    __slots__ = (
        "comp",
        "done_tasks",
        "end",
        "idx",
        "io",
        "job_id",
        "n_iter",
        "procs",
        "row",
        "run_time",
        "seed",
        "skew",
        "start",
        "submit",
    )

    def __init__(
        self,
        idx: int,
        job_id: int,
        submit: float,
        run_time: float,
        n_tasks: int,
        shares: tuple[float, float, float],
        skew: float,
        latency: float,
        seed: int,
    ) -> None:
        comp, io, comm = shares
        self.idx = idx
        self.job_id = job_id
        self.submit = submit
        self.run_time = run_time
        self.skew = skew
        self.seed = seed
        t_iter = latency / comm
        if n_tasks == 1:
            # No neighbours: the communication share is spread over compute and I/O.
            comp, io = comp / (comp + io), io / (comp + io)
        self.comp = comp * t_iter
        self.io = io * t_iter
        self.n_iter = max(1, round(run_time / t_iter))
        self.procs: list[Proc] = []
        self.done_tasks = 0
        self.start = float("nan")
        self.end = float("nan")
        self.row = -1


class Proc:
    """One task of a job on one node.

    The per-process counters (compute, spin, blocked and I/O time, messages, context
    switches) are what FCS-style classification needs; ``klass`` is free for such a
    scheduler to set.
    """

    __slots__ = (
        "blocked_time",
        "compute_time",
        "draw_i",
        "in_recv",
        "inbox",
        "io_time",
        "it",
        "job",
        "klass",
        "level",
        "nbr",
        "node",
        "phase",
        "qkey",
        "qleft",
        "rank",
        "received",
        "rem",
        "sent",
        "spin_time",
        "spinning",
        "state",
        "switches",
        "t_block",
        "waiting",
        "yielded",
    )

    def __init__(self, job: JobState, rank: int, node: int) -> None:
        self.job = job
        self.rank = rank
        self.node = node
        self.state = READY
        self.phase = P_COMPUTE
        self.it = 0
        self.rem = 0.0
        self.spinning = False
        self.in_recv = False
        self.waiting = -1  # side awaited in a receive: 0 left, 1 right
        self.yielded = False
        self.level = 0
        self.qkey = 0
        self.qleft = 0.0
        # nbr[side] is the neighbour task; inbox[side] counts its unconsumed messages.
        self.nbr: list[Proc | None] = [None, None]
        self.inbox = [0, 0]
        self.draw_i = 0
        self.klass = 0
        self.compute_time = 0.0
        self.spin_time = 0.0
        self.io_time = 0.0
        self.blocked_time = 0.0
        self.t_block = 0.0
        self.sent = 0
        self.received = 0
        self.switches = 0

    def factor(self) -> float:
        """The next skew multiplier ``1 + unif(-s/2, s/2)``."""
        k = self.draw_i
        self.draw_i = k + 1
        job = self.job
        return 1.0 + job.skew * (skew_unit(job.seed, self.rank, k) - 0.5)


class Node:
    """One node: its processes, the running one, and the CPU's time accounts."""

    __slots__ = (
        "act",
        "busy",
        "cur",
        "due",
        "force",
        "gs_row",
        "idx",
        "last",
        "ovh",
        "pb_at",
        "pre_at",
        "procs",
        "rr",
        "speed",
        "t_check",
        "t_compute",
        "t_cs",
        "t_intr",
        "t_queue",
        "t_spin",
        "target",
        "ver",
    )

    def __init__(self, idx: int, mpl: int) -> None:
        self.idx = idx
        self.procs: list[Proc] = []
        self.cur: Proc | None = None
        self.last: Proc | None = None  # the process whose context the CPU holds
        self.act = 0.0  # time from which the running process's activity is accounted
        self.ovh = 0.0  # the CPU is busy with overhead until this time
        self.ver = 0
        self.due = INF  # time of the node's valid pending CPU event
        self.pre_at = float("inf")  # pending preemption at a tick
        self.pb_at = float("inf")  # pending periodic-boost check at a tick
        self.force = False
        self.target: Proc | None = None
        self.speed = 1.0
        self.rr = 0
        self.gs_row: list[Proc | None] = [None] * mpl
        self.busy = 0
        self.t_compute = 0.0
        self.t_spin = 0.0
        self.t_cs = 0.0
        self.t_intr = 0.0
        self.t_queue = 0.0
        self.t_check = 0.0
