"""The narrow protocol between coupled scheduling domains (Algorithm 1's remote calls).

Algorithm 1 of the coupled-systems paper calls four functions on the *remote* machine:
``getMateJobId``, ``getMateStatus``, ``tryStartMate`` and ``startJob``. Every call a
domain makes to another goes through :class:`Peer`, a protocol of exactly those four
operations on plain values (job ids, a status string, a bool), so that a later transport
(a socket, an RPC) can stand in for :class:`LocalLink`, the in-process link used by the
simulator. Nothing else crosses between domains: no job records, no views.

Fault tolerance lives at this boundary: a link whose remote end is down answers
``mate_id`` with None (line 2 of Algorithm 1 "returns nothing"), and a mate the remote
does not know, or that has already started or failed, is ``UNKNOWN`` or ``RUNNING``;
in every such case the local job starts alone and never waits.

The other protocol here is the clock's: :class:`Member`, a domain as the
:class:`~cosched.coupled.coordinator.Coordinator` drives it (advance, pass, state, and
the batched forms that spare round trips: steps, windows of quiet instants, idle
instants), with :class:`LocalMember` for a domain of this process and the ``domain_*``
functions that both it and a serve process run on their domain.
"""

from __future__ import annotations

import enum
import math
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

if TYPE_CHECKING:
    from cosched.coupled.domain import Domain
    from cosched.engine.simulation import SimulationResult
    from cosched.workload.job import Workload

__all__ = [
    "LocalLink",
    "LocalMember",
    "MateStatus",
    "Member",
    "MemberState",
    "Peer",
    "domain_idle",
    "domain_quiet",
    "domain_state",
    "domain_waits",
    "domain_window",
    "last_arrival",
]


class MateStatus(enum.StrEnum):
    """What a remote domain says about a mate job."""

    #: the mate holds its nodes and starts as soon as asked.
    HOLDING = "holding"
    #: the mate is submitted and waiting in the remote queue.
    QUEUING = "queuing"
    #: the mate is not submitted yet.
    UNSUBMITTED = "unsubmitted"
    #: the mate has started (or finished): there is nothing left to synchronise with.
    RUNNING = "running"
    #: the remote does not know the job, or the job failed.
    UNKNOWN = "unknown"


class Peer(Protocol):
    """The remote domain as one domain sees it: the four calls of Algorithm 1."""

    def mate_id(self, job_id: int, mate_id: int) -> int | None:
        """The remote mate's id of local job ``job_id`` (None: remote down or no mate).

        ``mate_id`` is what the local side believes; the remote confirms it.
        """
        ...

    def mate_status(self, mate_id: int) -> MateStatus:
        """The remote mate's status."""
        ...

    def try_start_mate(self, mate_id: int) -> bool:
        """Run one extra scheduling pass remotely; True only if the mate started."""
        ...

    def start_mate(self, mate_id: int) -> None:
        """Start the remote mate now (it holds its nodes)."""
        ...

    def try_hold_mate(self, mate_id: int) -> bool:
        """Run one extra pass remotely in which the mate, if ready, holds its units; True
        only if it holds now (for jobs with mates on several machines)."""
        ...


class LocalLink:
    """An in-process :class:`Peer`: direct calls into another :class:`Domain`.

    The link is cut while either end is down (an outage cuts both directions).

    Args:
        remote: the domain at the other end.
        origin: the domain that uses this link (the remote checks that the mate's
            recorded partner is on this domain).
    """

    def __init__(self, remote: Domain, origin: Domain) -> None:
        self.remote = remote
        self.origin = origin

    @property
    def cut(self) -> bool:
        """Whether either end is down."""
        return self.remote.down or self.origin.down

    def mate_id(self, job_id: int, mate_id: int) -> int | None:
        """See :meth:`Peer.mate_id`."""
        if self.cut:
            return None
        return self.remote.confirm_mate(mate_id, self.origin.name, job_id)

    def mate_status(self, mate_id: int) -> MateStatus:
        """See :meth:`Peer.mate_status`."""
        if self.cut:
            return MateStatus.UNKNOWN
        return self.remote.status(mate_id)

    def try_start_mate(self, mate_id: int) -> bool:
        """See :meth:`Peer.try_start_mate`."""
        if self.cut:
            return False
        return self.remote.try_start(mate_id)

    def start_mate(self, mate_id: int) -> None:
        """See :meth:`Peer.start_mate`."""
        if not self.cut:
            self.remote.start_holding(mate_id)

    def try_hold_mate(self, mate_id: int) -> bool:
        """See :meth:`Peer.try_hold_mate`."""
        if self.cut:
            return False
        return self.remote.try_hold(mate_id)


class MemberState(NamedTuple):
    """What the clock needs to know about one domain between instants."""

    #: when the domain's next event is due (inf: none).
    next_time: float
    #: jobs submitted so far.
    submitted: int
    #: jobs started so far.
    started: int
    #: jobs running now.
    running: int
    #: jobs waiting in the queue (holders included).
    queued: int
    #: jobs holding units.
    holding: int
    #: jobs in the domain's workload.
    total: int
    #: before this time no pass of the domain calls a peer (no paired job is queued and
    #: none arrives earlier); -inf: its next pass may, inf: none ever will.
    quiet: float = -math.inf


class Member(Protocol):
    """A domain as the clock drives it: in this process (:class:`LocalMember`) or in
    another one (:class:`cosched.coupled.remote.RemoteMember`).

    Every call but :meth:`state` may raise
    :class:`~cosched.coupled.coordinator.MemberDownError`; the coordinator then treats
    the domain as down from that instant on.
    """

    name: str

    def state(self) -> MemberState:
        """The domain's counters and next event time (cached by remote members)."""
        ...

    def refresh(self) -> None:
        """Bring :meth:`state` up to date (a round trip for a remote member)."""
        ...

    def advance(self, t: float) -> None:
        """Handle the events due at ``t`` with coscheduling gated."""
        ...

    def run_pass(self) -> None:
        """One coscheduling pass now."""
        ...

    def step(self, t: float | None, run_pass: bool) -> None:
        """:meth:`advance` to ``t`` (None: stay), then a pass if ``run_pass``; a remote
        member sends it without waiting (:meth:`state` reads the answer)."""
        ...

    def pass_at(self, t: float, advance: bool, behind: Mapping[str, Member]) -> list[str]:
        """At instant ``t``: :meth:`advance` to ``t`` if ``advance``, then one pass.

        ``behind`` are the other domains not advanced to ``t`` yet. Each of them that
        the pass calls must reach ``t`` first (with its owed idle instants): a remote
        member's peer brings itself there on the first call (``sync``), a local member
        advances them all before its pass. The names of those brought to ``t``.
        """
        ...

    def run_ahead(self, until: float, behind: Mapping[str, Member]) -> list[float]:
        """Run the domain's instants before ``until`` and before the next event of every
        domain in ``behind`` (which changes only when a pass calls it), each as
        :meth:`pass_at` with ``behind`` would; their times. Valid while no other
        domain has an event before ``until``: then only this domain's passes act.
        Afterwards the others count the instants they were not brought to as idle
        ones."""
        ...

    def window(self, until: float) -> None:
        """Run the domain's own instants before ``until`` alone (see
        :func:`domain_window`); :meth:`window_times` gives them, :meth:`state` the
        state after them."""
        ...

    def window_times(self) -> list[float]:
        """The instants the last :meth:`window` ran."""
        ...

    def idle(self, n: int, t: float) -> None:
        """``n`` instants at which the domain has no event, the last at ``t`` (see
        :func:`domain_idle`; they change no field of :meth:`state`, so a remote member
        may send them with its next request)."""
        ...

    def notify(self, name: str, down: bool) -> None:
        """Domain ``name`` went down or came back: holders are re-checked next pass."""
        ...

    def finish(self) -> SimulationResult:
        """The domain's result (see :meth:`Domain.finish`)."""
        ...

    def waits(self) -> list[tuple[str, str | None, int | None]]:
        """Per holding job: the line of :meth:`Domain.waits`, the peer and the mate id."""
        ...

    def blocked(self, job_id: int) -> str:
        """See :meth:`Domain.blocked`."""
        ...

    @property
    def capacity(self) -> int:
        """Allocation units of the machine."""
        ...

    @property
    def release_period(self) -> float | None:
        """The domain's release period (for the deadlock hint)."""
        ...

    @property
    def last_arrival(self) -> float:
        """When the domain's last job arrives (-inf: no jobs)."""
        ...


class LocalMember:
    """A :class:`Domain` in this process, driven by direct calls.

    Args:
        domain: the domain.
        quiet: compute :attr:`MemberState.quiet` (a look at every queued job) in
            :meth:`state`; only a batching coordinator reads it.
    """

    def __init__(self, domain: Domain, *, quiet: bool = False) -> None:
        self.domain = domain
        self.name = domain.name
        self._quiet = quiet
        self._times: list[float] = []

    def state(self) -> MemberState:
        """See :meth:`Member.state` (``quiet`` is computed only if asked at creation)."""
        return domain_state(self.domain, quiet=self._quiet)

    def refresh(self) -> None:
        """Nothing to do: :meth:`state` reads the domain."""

    def advance(self, t: float) -> None:
        """See :meth:`Member.advance`."""
        self.domain.gated = True
        self.domain.sim.advance(t)

    def run_pass(self) -> None:
        """See :meth:`Member.run_pass`."""
        self.domain.extra_pass()

    def step(self, t: float | None, run_pass: bool) -> None:
        """See :meth:`Member.step`."""
        if t is not None:
            self.advance(t)
        if run_pass:
            self.run_pass()

    def pass_at(self, t: float, advance: bool, behind: Mapping[str, Member]) -> list[str]:
        """See :meth:`Member.pass_at` (here every domain behind advances first)."""
        for peer in behind.values():
            peer.advance(t)
        if advance:
            self.advance(t)
        self.run_pass()
        return list(behind)

    def run_ahead(self, until: float, behind: Mapping[str, Member]) -> list[float]:
        """See :meth:`Member.run_ahead` (every domain behind advances at each instant)."""
        times: list[float] = []
        sim = self.domain.sim
        while (t := sim.next_time()) < _first(until, behind):
            self.pass_at(t, True, behind)
            times.append(t)
        return times

    def window(self, until: float) -> None:
        """See :meth:`Member.window`."""
        self._times = domain_window(self.domain, until)

    def window_times(self) -> list[float]:
        """See :meth:`Member.window_times`."""
        return self._times

    def idle(self, n: int, t: float) -> None:
        """See :meth:`Member.idle`."""
        domain_idle(self.domain, n, t)

    def notify(self, name: str, down: bool) -> None:
        """See :meth:`Member.notify`."""
        if name == self.name:
            self.domain.down = down
        self.domain.recheck = True

    def finish(self) -> SimulationResult:
        """See :meth:`Member.finish`."""
        return self.domain.finish()

    def waits(self) -> list[tuple[str, str | None, int | None]]:
        """See :meth:`Member.waits`."""
        return domain_waits(self.domain)

    def blocked(self, job_id: int) -> str:
        """See :meth:`Member.blocked`."""
        return self.domain.blocked(job_id)

    @property
    def capacity(self) -> int:
        """See :meth:`Member.capacity`."""
        return self.domain.view.capacity

    @property
    def release_period(self) -> float | None:
        """See :meth:`Member.release_period`."""
        return self.domain.release_period

    @property
    def last_arrival(self) -> float:
        """See :meth:`Member.last_arrival`."""
        return last_arrival(self.domain.workload)


def _first(until: float, behind: Mapping[str, Member]) -> float:
    """The earliest of ``until`` and the next events of ``behind``."""
    return min([until, *(p.state().next_time for p in behind.values())])


def domain_state(d: Domain, *, quiet: bool = True) -> MemberState:
    """The :class:`MemberState` of a domain in this process (``quiet`` left at -inf
    unless asked for: it looks at every queued job)."""
    v = d.view
    return MemberState(
        d.sim.next_time(),
        len(d.submitted),
        v.started_count,
        v.n_running,
        len(v.queue),
        len(v.holding),
        len(d.workload),
        domain_quiet(d) if quiet else -math.inf,
    )


#: Per domain: its paired jobs' (submit time, index), in submit order, and how many of
#: them are known to be submitted (see :func:`domain_quiet`).
_PAIRED: weakref.WeakKeyDictionary[Domain, tuple[list[tuple[float, int]], list[int]]] = (
    weakref.WeakKeyDictionary()
)


def domain_quiet(d: Domain) -> float:
    """Before which time no pass of ``d`` calls a peer (see :attr:`MemberState.quiet`).

    A pass calls a peer only for a queued job with mates that the local policy makes
    ready (holders are hidden from it), for a holder released at the end of its
    release period (it holds again), or after an outage change (``recheck``). So with
    no such job queued and no re-check due, the passes stay local until the next
    paired job arrives or the first hold ends; and a domain's state changes only by its
    own events or by a peer's call, so domains that are all quiet until ``q`` can each
    run their instants before ``q`` alone (:func:`domain_window`).
    """
    if not d.enabled:
        return math.inf
    if d.recheck:
        return -math.inf
    holding = d.view.holding
    for job in d.view.queue:
        if job.index not in holding and d.mates(job.index):
            return -math.inf
    paired = _PAIRED.get(d)
    if paired is None:
        # Workloads are sorted by submit time: index order is arrival order.
        submit = np.asarray(d.workload.columns["submit_time"], dtype=np.float64)
        paired = ([(float(submit[i]), i) for i in range(len(submit)) if d.mates(i)], [0])
        _PAIRED[d] = paired
    order, done = paired
    k = done[0]
    while k < len(order) and order[k][1] in d.submitted:
        k += 1
    done[0] = k
    quiet = order[k][0] if k < len(order) else math.inf
    # Holders call their mates again when released.
    return min(quiet, d.next_release())


def last_arrival(workload: Workload) -> float:
    """When the workload's last job arrives (-inf: no jobs)."""
    submit = workload.columns["submit_time"]
    return float(submit[-1]) if len(submit) else -math.inf


def domain_window(d: Domain, until: float) -> list[float]:
    """Run ``d``'s own instants before ``until`` as the coordinator would, alone; their
    times.

    Each is what :class:`Coordinator` does at an instant where ``d`` has an event:
    advance with coscheduling gated, then one pass. Valid only while every domain is
    quiet until ``until`` (:func:`domain_quiet`): no pass then calls a peer, so the
    domains' instants do not depend on each other (the others' instants reach ``d`` as
    :func:`domain_idle`).
    """
    times: list[float] = []
    sim = d.sim
    while (t := sim.next_time()) < until:
        d.gated = True
        sim.advance(t)
        d.extra_pass()
        times.append(t)
    return times


def domain_idle(d: Domain, n: int, t: float) -> None:
    """``n`` instants of other domains at which ``d`` has no event, the last at ``t``.

    Such an advance handles no event and its gated pass does nothing, so only the
    engine's pass count and clock change: ``n`` advances to ``t`` leave ``d`` as the
    ``n`` advances to their own times would.
    """
    d.gated = True
    for _ in range(n):
        d.sim.advance(t)


def domain_waits(d: Domain) -> list[tuple[str, str | None, int | None]]:
    """See :meth:`Member.waits`."""
    out: list[tuple[str, str | None, int | None]] = []
    for line, idx in zip(d.waits(), sorted(d.view.holding), strict=True):
        mates = d.mates(idx)
        if len(mates) == 1:
            ((name, mate),) = mates.items()
            out.append((line, name, mate))
        else:
            out.append((line, None, None))
    return out
