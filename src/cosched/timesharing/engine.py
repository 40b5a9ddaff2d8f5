"""The process-level discrete-event simulator (node MLFQ, NIC, schemes, gang matrix).

Speed comes from three choices. A node has at most one pending CPU event: the running
process's activity is advanced as a whole (a compute phase, or a spin up to its budget)
and the event falls at the earliest of activity end, quantum expiry, a pending
preemption tick or a pending periodic-boost tick; stale events carry an old version
and are skipped. The 1 ms scheduler tick is never an event by itself: a tick is only
scheduled when something at a higher priority (or a boost) is waiting. Periodic boost
(PB) polls every endpoint every tick; that cost is charged as a constant slow-down of
the running process (``1 - procs * endpoint_check / tick``) and a tick event is only
created when the heuristic would boost someone.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cosched.errors import ConfigError, InvariantError, UnknownNameError, WorkloadError
from cosched.timesharing.model import (
    EPS,
    EV_ARRIVE,
    EV_CPU,
    EV_IODONE,
    EV_RAISE,
    EV_SLOT,
    INF,
    READY,
    RUNNING,
    JobState,
    Node,
    Proc,
)
from cosched.timesharing.params import TSParams, scheme_flags
from cosched.timesharing.process import ProcessMixin
from cosched.workload.job import Workload

__all__ = ["TSResult", "TimeSharingSim", "check_inputs", "job_seeds", "simulate"]

_CPU, _ARRIVE, _IODONE, _RAISE, _SLOT = EV_CPU, EV_ARRIVE, EV_IODONE, EV_RAISE, EV_SLOT
_heappush = heapq.heappush
_floor = math.floor
_NEEDED = ("dcs_comp", "dcs_io", "dcs_comm", "dcs_skew")


def check_inputs(workload: Workload, nodes: int, mpl: int, rng: np.random.Generator) -> None:
    """Reject what neither engine can simulate, with the offending value named.

    Raises:
        ConfigError: ``nodes`` or ``mpl`` is not an integer >= 1, or ``rng`` is not a
            numpy Generator.
        WorkloadError: the workload lacks the ``dcs_*`` columns, has a job wider than
            the machine, or a non-positive communication share.
    """
    if not isinstance(nodes, int | np.integer) or nodes < 1:
        raise ConfigError(f"nodes must be an integer >= 1 (got {nodes!r})")
    if not isinstance(mpl, int | np.integer) or mpl < 1:
        raise ConfigError(f"mpl must be an integer >= 1 (got {mpl!r})")
    if not isinstance(rng, np.random.Generator):
        raise ConfigError(f"rng must be a numpy.random.Generator (got {type(rng).__name__})")
    t = workload.table
    missing = [c for c in _NEEDED if c not in t.columns]
    if missing:
        raise WorkloadError(
            f"workload {workload.name!r} lacks {missing}; annotate it with annotate_dyncosched"
        )
    if len(t) and int(t["procs"].max()) > nodes:
        raise WorkloadError(
            f"workload {workload.name!r} has a job of {int(t['procs'].max())} processes "
            f"for {nodes} nodes"
        )
    if len(t) and (t["dcs_comm"].to_numpy() <= 0).any():
        raise WorkloadError(f"workload {workload.name!r}: dcs_comm must be > 0")


def job_seeds(rng: np.random.Generator, n: int) -> np.ndarray:
    """The skew seed of each of ``n`` jobs (non-negative int64), drawn from ``rng``."""
    return rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)


@dataclass
class TSResult:
    """What a time-sharing run produced.

    Attributes:
        scheme: the scheme's name.
        jobs: one row per finished job (``job_id, submit_time, start_time, end_time,
            procs, size, run_time`` plus ``dedicated_time`` and the job type shares).
        nodes: per-node CPU seconds by category (compute, spin, context_switch,
            interrupt, queue, endpoint_check) and ``io_wait`` (process I/O seconds).
        end_time: simulated time at which the run stopped.
        events: events processed.
        messages_sent: messages sent by all processes.
        messages_received: messages consumed by receives.
        unfinished: jobs not finished when the run stopped (horizon reached).
        window: first and last submit time.
        window_compute: CPU seconds spent computing, on all nodes, by the last submit.
    """

    scheme: str
    jobs: pd.DataFrame
    nodes: pd.DataFrame
    end_time: float
    events: int
    messages_sent: int
    messages_received: int
    unfinished: int = 0
    window: tuple[float, float] = (0.0, 0.0)
    window_compute: float = 0.0


class TimeSharingSim(ProcessMixin):
    """One run of one scheme on one workload (see :func:`simulate`)."""

    def __init__(
        self,
        workload: Workload,
        *,
        scheme: str,
        nodes: int,
        mpl: int,
        rng: np.random.Generator,
        params: TSParams | None = None,
        check: bool = False,
    ) -> None:
        self.flags = scheme_flags(scheme)
        self.scheme = scheme
        check_inputs(workload, nodes, mpl, rng)
        self.p = TSParams() if params is None else params
        self.rng = rng
        self.check = check
        self.mpl = int(mpl)
        self.nodes = [Node(i, self.mpl) for i in range(int(nodes))]
        self._load(workload)
        self.top = int(self.p.levels) - 1
        self.quanta = self.p.quanta()
        self.q_top = self.quanta[self.top]
        self.latency = self.p.latency
        self.cs_cost = self.p.context_switch
        self.tick = self.p.tick
        self.qm_cost = self.p.queue_move
        self.spin_budget = self.p.spin_budget(self.flags.wait)
        self.periodic = self.flags.arrival == "periodic"
        self.interrupts = self.flags.arrival == "interrupt"
        self.heap: list[tuple[float, int, int, object, int]] = []
        self.seq = 0
        self.qc = 0
        self.t = 0.0
        self.events = 0
        self.sent = 0
        self.received = 0
        self.queue: deque[int] = deque()
        self.running = 0
        self.gs_active = 0
        self.gs_rows = [0] * self.mpl  # jobs per matrix row
        self.ticking = False
        self.window = (0.0, 0.0)
        self.window_compute = 0.0

    # ----------------------------------------------------------------- workload
    def _load(self, w: Workload) -> None:
        t = w.table
        self.w_id = t["job_id"].to_numpy().tolist()
        self.w_submit = t["submit_time"].to_numpy(dtype=float).tolist()
        self.w_run = t["run_time"].to_numpy(dtype=float).tolist()
        self.w_procs = t["procs"].to_numpy().astype(int).tolist()
        self.w_shares = list(
            zip(
                t["dcs_comp"].to_numpy(dtype=float).tolist(),
                t["dcs_io"].to_numpy(dtype=float).tolist(),
                t["dcs_comm"].to_numpy(dtype=float).tolist(),
                strict=True,
            )
        )
        self.w_skew = t["dcs_skew"].to_numpy(dtype=float).tolist()
        self.jobs: list[JobState | None] = [None] * len(t)
        # One seed per job for its skew draws, in job order (jobs start in FCFS order).
        self.job_seeds = job_seeds(self.rng, len(t)).tolist()

    # ------------------------------------------------------------------- events
    def push(self, t: float, kind: int, obj: object, ver: int = 0) -> None:
        """Add an event (ties keep insertion order, so runs are deterministic)."""
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, kind, obj, ver))

    def run(self, horizon: float = INF) -> TSResult:
        """Simulate until every job ended (or ``horizon`` simulated seconds)."""
        heap = self.heap
        pop = heapq.heappop
        submits = self.w_submit
        nsub = len(submits)
        i = 0
        done_all = False
        check = self.check
        node_event = self.node_event
        arrive = self.arrive
        io_done = self.io_done
        events = self.events
        now = self.t
        try:
            while True:
                ts = submits[i] if i < nsub else INF
                # Heap events strictly before the next submission (a submission at the
                # time of an event goes first), up to the horizon.
                stop = ts if ts < horizon else horizon
                while heap:
                    ev = heap[0]
                    t = ev[0]
                    if t >= ts or t > stop:
                        break
                    pop(heap)
                    kind = ev[2]
                    obj = ev[3]
                    if check:
                        if t < now:
                            raise InvariantError(f"event at {t} s after time {now} s")
                        self.t = t
                        self.check_all()
                    now = t
                    events += 1
                    if kind == _CPU:
                        if ev[4] == obj.ver:  # type: ignore[attr-defined]
                            obj.due = INF  # type: ignore[attr-defined]
                            node_event(obj, t)  # type: ignore[arg-type]
                    elif kind == _ARRIVE:
                        arrive(obj, ev[4], t)  # type: ignore[arg-type]
                    elif kind == _IODONE:
                        io_done(obj, t)  # type: ignore[arg-type]
                    elif kind == _RAISE:
                        self.raise_all(t)
                    else:
                        self.gs_slot(t)
                th = heap[0][0] if heap else INF
                if ts == INF and th == INF:
                    done_all = True
                    break
                if ts <= th:
                    if ts > horizon:
                        break
                    now = ts
                    self.t = ts
                    while i < nsub and submits[i] == ts:
                        self.queue.append(i)
                        i += 1
                    if i == nsub:
                        self.snapshot(ts)
                    self.try_start(ts)
                    continue
                # th < ts and th > horizon
                break
        finally:
            self.events = events
            self.t = now
        if done_all:
            # Periodic events (priority raise, gang slot) may outlive the last job.
            end = max((j.end for j in self.jobs if j is not None), default=self.t)
        else:
            end = min(self.t, horizon)
        return self.result(end)

    def snapshot(self, t: float) -> None:
        """Compute seconds done by the last submission (for the steady-state share)."""
        for n in self.nodes:
            self.fold(n, t)
        self.window_compute = sum(n.t_compute for n in self.nodes)
        self.window = (self.w_submit[0], t)

    # --------------------------------------------------------- CPU accounting
    def fold(self, n: Node, t: float) -> None:
        """Account the running process's activity from ``n.act`` to ``t``."""
        p = n.cur
        if p is None:
            return
        a = n.act
        ovh = n.ovh
        if ovh > a:
            a = ovh
        if t > a:
            dt = t - a
            if p.spinning:
                p.spin_time += dt
                n.t_spin += dt
                p.rem -= dt
            else:
                w = dt * n.speed
                p.compute_time += w
                n.t_compute += w
                n.t_check += dt - w
                p.rem -= w
            p.qleft -= dt
            n.act = t

    def charge(self, n: Node, t: float, cost: float, kind: str) -> None:
        """Make the CPU busy for ``cost`` seconds of overhead starting at ``t``."""
        if cost <= 0:
            return
        if n.cur is not None:
            self.fold(n, t)
        ovh = n.ovh
        ovh = (ovh if ovh > t else t) + cost
        n.ovh = ovh
        n.act = ovh
        if kind == "cs":
            n.t_cs += cost
        elif kind == "intr":
            n.t_intr += cost
        else:
            n.t_queue += cost

    def resched(self, n: Node, t: float) -> None:
        """Replace the node's pending CPU event by the next one that matters.

        When the next event falls at the time of the pending one, the pending event is
        kept (the handler reads the node's state, not the event): fewer heap pushes.
        """
        p = n.cur
        if p is None:
            if n.due != INF:
                n.ver += 1
                n.due = INF
            return
        spinning = p.spinning
        if self.periodic and n.pb_at == INF:
            # Would the PB heuristic boost someone at the next tick? (pb_candidate's test,
            # inlined because this runs on every event of a PB node.)
            for q in n.procs:
                if q.state == READY and q is not p:
                    if q.in_recv:
                        if q.inbox[q.waiting] > 0:
                            n.pb_at = self.next_tick(t)
                            break
                    elif spinning:
                        n.pb_at = self.next_tick(t)
                        break
        a = n.act
        ovh = n.ovh
        if ovh > a:
            a = ovh
        if a < t:
            a = t
        te = a + p.rem if spinning else a + p.rem / n.speed
        tq = a + p.qleft
        if tq < te:
            te = tq
        x = n.pre_at
        if x < te:
            te = x
        x = n.pb_at
        if x < te:
            te = x
        if te < a:
            # rem or qleft may be slightly negative (an expiry that fell at an activity
            # end is handled after it); an event never goes back in time.
            te = a
        if te == n.due:
            return
        v = n.ver + 1
        n.ver = v
        n.due = te
        if te < INF:
            self.seq += 1
            _heappush(self.heap, (te, self.seq, _CPU, n, v))

    def next_tick(self, t: float) -> float:
        """The first scheduler tick strictly after ``t``."""
        tick = self.tick
        return (_floor(t / tick + 1e-9) + 1) * tick

    # ------------------------------------------------------------- scheduling
    def requeue(self, p: Proc, head: bool) -> None:
        """Make ``p`` ready at the head or tail of its level's queue."""
        p.state = READY
        self.qc += 1
        p.qkey = -self.qc if head else self.qc

    def pick(self, n: Node) -> Proc | None:
        """The ready process at the head of the highest non-empty level."""
        best = None
        bl = -1
        bk = 0
        for q in n.procs:
            if q.state == READY:
                lv = q.level
                if lv > bl or (lv == bl and q.qkey < bk):
                    best, bl, bk = q, lv, q.qkey
        return best

    def switch_to(self, n: Node, p: Proc, t: float) -> None:
        """Give the CPU to ``p`` (the previous process was already requeued or left).

        A context switch is charged only when the CPU loads another process's context
        than the one it ran last: a process resuming on the CPU it left idle (after an
        I/O, a block) finds its context in place and pays nothing.
        """
        if n.act < t:
            n.act = t  # the previous process (if any) was folded up to t by the caller
        n.cur = p
        p.state = RUNNING
        # charge(n, t, context_switch, "cs"), inlined: its fold is a no-op here (the
        # new process's activity starts at or after t).
        cost = self.cs_cost if p is not n.last else 0.0
        if cost > 0:
            p.switches += 1
        n.last = p
        ovh = n.ovh
        if cost > 0:
            ovh = (ovh if ovh > t else t) + cost
            n.ovh = ovh
            n.t_cs += cost
        n.act = ovh if ovh > t else t
        if p.in_recv and p.inbox[p.waiting] > 0:
            p.rem = 0.0  # its message arrived while it was not running

    def dispatch(self, n: Node, t: float) -> None:
        """The CPU is free: run the best ready process, if any."""
        n.cur = None
        if self.flags.gang:
            return
        best = self.pick(n)
        if best is not None:
            self.switch_to(n, best, t)

    def request_preempt(self, n: Node, t: float, target: Proc | None = None) -> None:
        """Ask the scheduler to preempt at the next tick (forced if ``target`` is given)."""
        if n.cur is None:
            self.dispatch(n, t)
            return
        nt = self.next_tick(t)
        if nt < n.pre_at:
            n.pre_at = nt
        if target is not None:
            n.force = True
            n.target = target

    def boost(self, n: Node, p: Proc) -> None:
        """Move ``p`` to the head of the top level (a wake-up or a boost)."""
        p.level = self.top
        p.qleft = self.q_top
        if p.state == READY:
            self.qc += 1
            p.qkey = -self.qc

    def preempt(self, n: Node, t: float) -> None:
        """The pending tick: preempt if forced or a higher-priority process is ready."""
        cur = n.cur
        target = n.target if n.force else None
        n.force = False
        n.target = None
        if cur is None:
            self.dispatch(n, t)
            return
        if target is None or target.state != READY:
            target = self.pick(n)
            if target is None or target.level <= cur.level:
                return
        self.fold(n, t)
        self.requeue(cur, head=True)
        self.switch_to(n, target, t)

    def node_event(self, n: Node, t: float) -> None:
        """The node's CPU event: overhead end, activity end, quantum, tick."""
        cur = n.cur
        ovh = n.ovh
        self.fold(n, t)
        if t < ovh - EPS:
            self.resched(n, t)
            return
        if cur is None:
            self.dispatch(n, t)
        else:
            te = t + EPS
            if n.pb_at <= te:
                n.pb_at = INF
                self.pb_tick(n, t)
                if n.pre_at <= te:
                    n.pre_at = INF
                    self.preempt(n, t)
            elif n.pre_at <= te:
                n.pre_at = INF
                self.preempt(n, t)
            elif cur.rem <= EPS:
                self.activity_done(n, cur, t)
            elif cur.qleft <= EPS:
                self.expire(n, cur, t)
        self.resched(n, t)

    def expire(self, n: Node, p: Proc, t: float) -> None:
        """Quantum expiry: demote one level, to the tail, and pick again."""
        if p.level > 0:
            p.level -= 1
        p.qleft = self.quanta[p.level]
        self.requeue(p, head=False)
        best = self.pick(n)
        if best is p:
            p.state = RUNNING
        else:
            self.switch_to(n, best, t)  # type: ignore[arg-type]

    def raise_all(self, t: float) -> None:
        """Every second: all processes back to the top level, keeping their order."""
        for n in self.nodes:
            if not n.procs:
                continue
            self.fold(n, t)
            order = sorted(n.procs, key=lambda q: (-q.level, q.qkey))
            for q in order:
                q.level = self.top
                q.qleft = self.q_top
                self.qc += 1
                q.qkey = self.qc
            self.resched(n, t)
        if self.running:
            self.push(t + self.p.raise_period, _RAISE, None)
        else:
            self.ticking = False

    # ------------------------------------------------------------- job start
    def try_start(self, t: float) -> None:
        """Start queued jobs in FCFS order while the head fits."""
        from cosched.timesharing.placement import place

        while self.queue:
            i = self.queue[0]
            cells = place(self, self.w_procs[i])
            if cells is None:
                return
            self.queue.popleft()
            self.start_job(i, cells, t)

    def start_job(self, i: int, cells: tuple[int, list[int]], t: float) -> None:
        """Create the job's processes on the chosen nodes (and matrix row)."""
        row, where = cells
        job = JobState(
            i,
            int(self.w_id[i]),
            self.w_submit[i],
            self.w_run[i],
            len(where),
            self.w_shares[i],
            self.w_skew[i],
            self.latency,
            self.job_seeds[i],
        )
        job.start = t
        job.row = row
        self.jobs[i] = job
        self.running += 1
        procs = [Proc(job, r, node) for r, node in enumerate(where)]
        for r, p in enumerate(procs):
            p.nbr[0] = procs[r - 1] if r > 0 else None
            p.nbr[1] = procs[r + 1] if r + 1 < len(procs) else None
            p.rem = job.comp * p.factor()
        job.procs = procs
        if self.flags.gang:
            from cosched.timesharing.placement import gang_start

            gang_start(self, job, t)
            return
        if not self.ticking:
            self.ticking = True
            period = self.p.raise_period
            self.push((math.floor(t / period) + 1) * period, _RAISE, None)
        for p in procs:
            n = self.nodes[p.node]
            self.fold(n, t)
            n.busy += 1
            n.procs.append(p)
            self.set_speed(n)
            p.level = self.top
            p.qleft = self.q_top
            self.requeue(p, head=False)
            if n.cur is None or p.level > n.cur.level:
                self.request_preempt(n, t)
            self.resched(n, t)

    def gs_slot(self, t: float) -> None:
        """Gang scheduling: the global quantum ended; switch every node's row."""
        from cosched.timesharing.placement import gang_slot

        gang_slot(self, t)

    # ---------------------------------------------------------------- checks
    def check_all(self) -> None:
        """Check every node (used with ``check=True``; slow)."""
        for n in self.nodes:
            self.check_node(n)

    def check_node(self, n: Node) -> None:
        """Raise InvariantError if the node runs more than one process."""
        running = [p for p in n.procs if p.state == RUNNING]
        if len(running) > 1 or (running and running[0] is not n.cur):
            raise InvariantError(f"node {n.idx}: {len(running)} running processes")
        if n.cur is not None and n.cur.state != RUNNING:
            raise InvariantError(f"node {n.idx}: current process is not running")
        busy = n.t_compute + n.t_spin + n.t_cs + n.t_intr + n.t_queue + n.t_check
        if busy > max(self.t, n.ovh) + 1e-9:
            raise InvariantError(f"node {n.idx}: busy {busy} s exceeds wall time {self.t} s")

    def result(self, end: float) -> TSResult:
        """Collect the per-job and per-node tables."""
        from cosched.timesharing.metrics import build_result

        return build_result(self, end)


def simulate(
    workload: Workload,
    *,
    scheme: str,
    nodes: int = 32,
    mpl: int = 5,
    rng: np.random.Generator,
    params: TSParams | None = None,
    horizon: float = INF,
    check: bool = False,
    engine: str = "compiled",
) -> TSResult:
    """Simulate ``workload`` under one time-sharing scheme.

    Args:
        workload: jobs with the ``dcs_*`` columns of ``annotate_dyncosched``.
        scheme: one of :data:`cosched.timesharing.params.SCHEMES`.
        nodes: number of nodes (one CPU each).
        mpl: multiprogramming level (matrix rows for GS, processes per node otherwise).
        rng: the source of every random draw (skew).
        params: costs and constants (the paper's defaults if None).
        horizon: stop after this many simulated seconds.
        check: verify the one-running-process-per-CPU invariant after every event.
        engine: ``compiled`` (numba kernel, :mod:`cosched.timesharing.kernel`) or
            ``reference`` (this module's :class:`TimeSharingSim`); bit-identical results.

    Returns:
        The run's :class:`TSResult`.
    """
    if engine == "compiled":
        from cosched.timesharing.compiled import CompiledSim

        return CompiledSim(
            workload, scheme=scheme, nodes=nodes, mpl=mpl, rng=rng, params=params, check=check
        ).run(horizon)
    if engine != "reference":
        raise UnknownNameError("time-sharing engine", str(engine), ("compiled", "reference"))
    return TimeSharingSim(
        workload, scheme=scheme, nodes=nodes, mpl=mpl, rng=rng, params=params, check=check
    ).run(horizon)
