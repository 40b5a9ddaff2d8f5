"""The process model: a task's compute / I/O / send / receive loop, the NIC that
deposits messages into endpoints, and the reactions of each scheme (spin, block, yield;
interrupt, periodic boost). A mixin of :class:`cosched.timesharing.engine.TimeSharingSim`.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from cosched.timesharing.model import (
    BLOCKED,
    DONE,
    EPS,
    EV_ARRIVE,
    EV_IODONE,
    INF,
    IO,
    P_COMPUTE,
    P_RECV,
    P_SEND,
    READY,
    RUNNING,
    JobState,
    Node,
    Proc,
)

if TYPE_CHECKING:
    from cosched.timesharing.params import SchemeFlags, TSParams

__all__ = ["ProcessMixin"]

_heappush = heapq.heappush


class ProcessMixin:
    """Process-level behaviour of the simulator (see the module docstring)."""

    if TYPE_CHECKING:  # provided by TimeSharingSim
        p: TSParams
        flags: SchemeFlags
        nodes: list[Node]
        heap: list[tuple[float, int, int, object, int]]
        seq: int
        qc: int
        sent: int
        received: int
        running: int
        gs_rows: list[int]
        gs_active: int
        latency: float
        spin_budget: float
        periodic: bool
        interrupts: bool
        quanta: list[float]
        qm_cost: float
        top: int
        q_top: float

        def fold(self, n: Node, t: float) -> None: ...
        def charge(self, n: Node, t: float, cost: float, kind: str) -> None: ...
        def resched(self, n: Node, t: float) -> None: ...
        def request_preempt(self, n: Node, t: float, target: Proc | None = None) -> None: ...
        def boost(self, n: Node, p: Proc) -> None: ...
        def requeue(self, p: Proc, head: bool) -> None: ...
        def dispatch(self, n: Node, t: float) -> None: ...
        def try_start(self, t: float) -> None: ...
        def push(self, t: float, kind: int, obj: object, ver: int = 0) -> None: ...
        def next_tick(self, t: float) -> float: ...

    # ---------------------------------------------------------- the program
    def activity_done(self, n: Node, p: Proc, t: float) -> None:
        """The running process finished its compute phase, a send, or a spin."""
        ph = p.phase
        if ph == P_COMPUTE:
            job = p.job
            io = job.io * p.factor() if job.io > 0 else 0.0
            p.phase = P_SEND
            p.rem = 0.0
            if io > 0:
                p.state = IO
                p.io_time += io
                self.push(t + io, EV_IODONE, p)
                self.leave(n, t)
                return
            ph = P_SEND
        nbr = p.nbr
        if ph == P_SEND:
            arrive_t = t + self.latency
            heap = self.heap
            left, right = nbr
            # The message lands on the neighbour's side facing p.
            if left is not None:
                self.seq += 1
                _heappush(heap, (arrive_t, self.seq, EV_ARRIVE, left, 1))
                p.sent += 1
                self.sent += 1
            if right is not None:
                self.seq += 1
                _heappush(heap, (arrive_t, self.seq, EV_ARRIVE, right, 0))
                p.sent += 1
                self.sent += 1
            p.phase = P_RECV
            p.in_recv = True
            p.waiting = 0 if left is not None else 1
            p.rem = self.spin_budget
            p.yielded = False
        self.receive(n, p, t)

    def receive(self, n: Node, p: Proc, t: float) -> None:
        """Consume available messages; spin, block or yield for a missing one."""
        nbr = p.nbr
        inbox = p.inbox
        while p.waiting >= 0:
            s = p.waiting
            if nbr[s] is None:
                p.waiting = 1 if s == 0 else -1
                continue
            if inbox[s] > 0:
                inbox[s] -= 1
                p.received += 1
                self.received += 1
                p.waiting = 1 if s == 0 else -1
                p.rem = self.spin_budget
                p.yielded = False
                continue
            if p.rem > EPS:
                p.spinning = True
                return
            self.spin_expired(n, p, t)
            return
        p.spinning = False
        p.in_recv = False
        p.it += 1
        job = p.job
        if p.it >= job.n_iter:
            self.finish(n, p, t)
            return
        p.phase = P_COMPUTE
        p.rem = job.comp * p.factor()

    def spin_expired(self, n: Node, p: Proc, t: float) -> None:
        """The spin budget ran out: block (SB) or yield (SY)."""
        if self.flags.wait == "block":
            p.spinning = False
            p.state = BLOCKED
            p.t_block = t
            self.charge(n, t, self.p.queue_move, "queue")
            self.leave(n, t)
            return
        # Yield: drop below every other process, boost a candidate, keep spinning.
        p.spinning = True
        p.rem = INF
        p.yielded = True
        others = [q.level for q in n.procs if q is not p and q.state != DONE]
        if others:
            p.level = max(0, min(others) - 1)
            p.qleft = self.quanta[p.level]
        cost = self.p.endpoint_check * len(n.procs) + 2 * self.p.queue_move
        self.charge(n, t, cost, "queue")
        cand = self.pb_candidate(n, rule2=True)
        if cand is not None:
            self.boost(n, cand)
            self.request_preempt(n, t)

    def leave(self, n: Node, t: float) -> None:
        """The running process gave up the CPU (I/O, block, end)."""
        n.cur = None
        n.pre_at = INF
        n.force = False
        n.target = None
        self.dispatch(n, t)

    def finish(self, n: Node, p: Proc, t: float) -> None:
        """A task did its last iteration; the job ends with its last task."""
        p.state = DONE
        p.spinning = False
        job = p.job
        job.done_tasks += 1
        self.fold(n, t)
        n.procs.remove(p)
        self.set_speed(n)
        self.leave(n, t)
        if job.done_tasks == len(job.procs):
            self.end_job(job, t)

    def end_job(self, job: JobState, t: float) -> None:
        """Free the job's cells and start queued jobs."""
        job.end = t
        self.running -= 1
        for p in job.procs:
            node = self.nodes[p.node]
            node.busy -= 1
            if job.row >= 0:
                node.gs_row[job.row] = None
        if job.row >= 0:
            self.gs_rows[job.row] -= 1
        self.try_start(t)

    def set_speed(self, n: Node) -> None:
        """PB polls every endpoint every tick: a constant share of the CPU."""
        if self.periodic:
            n.speed = max(0.0, 1.0 - len(n.procs) * self.p.endpoint_check / self.p.tick)

    # ---------------------------------------------------------------- network
    def arrive(self, q: Proc, side: int, t: float) -> None:
        """The NIC deposits a message into ``q``'s endpoint and reacts per scheme."""
        q.inbox[side] += 1
        n = self.nodes[q.node]
        if q.state == RUNNING:
            if q.in_recv and q.waiting == side and q.spinning:
                self.fold(n, t)
                q.rem = 0.0
                self.resched(n, t)
            return
        if q.state == BLOCKED and q.waiting == side:
            # SB family: the NIC interrupts the host, which wakes and boosts q.
            self.charge(n, t, self.p.interrupt, "intr")
            q.blocked_time += t - q.t_block
            q.state = READY
            self.boost(n, q)
            self.qc += 1
            q.qkey = -self.qc
            self.charge(n, t, self.p.queue_move, "queue")
            if self.interrupts:
                self.request_preempt(n, t, q)
            elif n.cur is None or q.level > n.cur.level:
                self.request_preempt(n, t)
            self.resched(n, t)
            return
        if self.interrupts and q.state in (READY, IO):
            # DCS: the receiver is not scheduled; interrupt and boost it.
            self.charge(n, t, self.p.interrupt + self.p.queue_move, "intr")
            self.boost(n, q)
            if q.state == READY:
                self.request_preempt(n, t, q)
            self.resched(n, t)
            return
        if self.periodic:
            self.resched(n, t)

    def io_done(self, p: Proc, t: float) -> None:
        """An I/O finished: the process wakes with a boost (or resumes in its slot)."""
        n = self.nodes[p.node]
        if self.flags.gang:
            p.state = READY
            if n.cur is None and n.gs_row[self.gs_active] is p:
                n.cur = n.last = p
                p.state = RUNNING
                n.act = n.ovh if n.ovh > t else t
                self.resched(n, t)
            return
        # requeue(p, head=True) then boost(n, p), inlined
        p.state = READY
        p.level = top = self.top
        p.qleft = self.q_top
        self.qc += 2
        p.qkey = -self.qc
        cur = n.cur
        if cur is None:
            # An idle CPU has no queue to reorder: the process resumes at once (and
            # without a context switch if it was the last to run here).
            self.dispatch(n, t)
            self.resched(n, t)
            return
        # Another process holds the CPU: the boost reorders the queues.
        self.charge(n, t, self.qm_cost, "queue")
        if top > cur.level:
            nt = self.next_tick(t)
            if nt < n.pre_at:
                n.pre_at = nt
        self.resched(n, t)

    # ------------------------------------------------------------ periodic boost
    def pb_candidate(self, n: Node, rule2: bool) -> Proc | None:
        """PB heuristic: round robin from the running process; first a receiver
        whose message is present, else (``rule2``) a ready process not in a receive."""
        procs = n.procs
        k = len(procs)
        cur = n.cur
        try:
            start = procs.index(cur)  # type: ignore[arg-type]
        except ValueError:
            start = n.rr % max(k, 1)
        order = procs[start:] + procs[:start] if start else procs
        for q in order:
            if q is not cur and q.state == READY and q.in_recv and q.inbox[q.waiting] > 0:
                return q
        if rule2:
            for q in order:
                if q is not cur and q.state == READY and not q.in_recv:
                    return q
        return None

    def pb_tick(self, n: Node, t: float) -> None:
        """The PB kernel thread: boost the heuristic's candidate, preempt at once."""
        cur = n.cur
        rule2 = cur is not None and cur.spinning
        cand = self.pb_candidate(n, rule2)
        if cand is None:
            return
        n.rr = n.procs.index(cand)
        self.charge(n, t, self.qm_cost, "queue")
        # boost(n, cand), inlined
        cand.level = self.top
        cand.qleft = self.q_top
        if cand.state == READY:
            self.qc += 1
            cand.qkey = -self.qc
        n.pre_at = t
        n.force = True
        n.target = cand
