"""Several domains on one simulated clock.

At each instant (the earliest event of any domain, or an outage change) the
coordinator works in two phases:

1. every domain's simulation advances to the instant with its coscheduling gated:
   completions and submissions are handled, and the engine's own pass does nothing.
   So when a domain's pass calls another domain (mate status, try-start), the other
   one already knows about everything that happened at this instant, and its clock
   reads the same time: a job and its mate start at the same simulated instant;
2. each domain that had an event (all of them at an outage change) runs one
   coscheduling pass, in the order the domains were given.

When nothing is due anywhere but jobs are queued, every domain gets one more pass
(a scheduler's periodic iteration); if that starts nothing the run ends with a
:class:`CoupledDeadlockError` naming the holding jobs and what they wait for (the
hold-hold deadlock of Figure 2), or a :class:`CoupledError` for any other stall. Hold
releases that keep failing with nothing running and nothing left to arrive are the
same deadlock and end the same way, so a run never hangs.

For domains in other processes every call is a round trip, so the coordinator can
batch its calls (``batch``): while no domain can call a peer (each state says until
when: :func:`~cosched.coupled.protocol.domain_quiet`), every domain runs its own
instants up to that time alone, in one call. Otherwise each domain with an event
advances and passes in one call, and a domain behind the instant reaches it on the
first call a pass makes to it (:meth:`Member.pass_at`), or counts it as an idle
instant if none does; and while only one domain has events (the others' next events
are later), it runs them one after another in one call (:meth:`Member.run_ahead`),
the others following it the same way. The schedules, counters and instants are those
of the instant-by-instant run.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from cosched.coupled.domain import Domain
from cosched.coupled.errors import CoupledDeadlockError, CoupledError
from cosched.coupled.protocol import (
    LocalLink,
    LocalMember,
    Member,
    MemberState,
)
from cosched.engine.simulation import SimulationResult
from cosched.errors import ConfigError

__all__ = [
    "Coordinator",
    "CoupledResult",
    "Fault",
    "LocalMember",
    "Member",
    "MemberDownError",
    "MemberState",
    "Outage",
    "run_coupled",
]


@dataclass(frozen=True)
class Outage:
    """A domain unreachable for coscheduling during ``[start, end)``.

    While down, its peers get no answer (Algorithm 1's ``getMateJobId`` returns
    nothing) and it gets none from them: paired jobs on both sides start alone. Its
    own jobs keep running and its local scheduler keeps scheduling, so nothing is
    lost; coordination resumes at ``end``.
    """

    domain: str
    start: float
    end: float = math.inf


class MemberDownError(CoupledError):
    """A domain served by another process did not answer (dead, hung or cut off)."""

    def __init__(self, name: str, why: str) -> None:
        self.name = name
        self.why = why
        super().__init__(f"domain {name!r} is unreachable: {why}")


class Fault(TypedDict):
    """One event of a run with domains in other processes."""

    #: ``down`` (stopped answering the driver), ``rejoin`` (back after a restart),
    #: ``lost`` (down at the end), ``timeout`` (a domain's call to a peer timed out).
    event: str
    #: the domain it happened to (for ``timeout``: the domain that made the call).
    domain: str
    #: the simulated instant.
    time: float
    #: what was seen (the timeout, the error, how long it was down).
    why: str


@dataclass(frozen=True)
class CoupledResult:
    """The outcome of a coupled run.

    Attributes:
        results: each domain's result (job table with the coscheduling columns, see
            :meth:`Domain.finish`), by domain name, in the given order; a domain lost
            for good (its process died and never came back) has none.
        capacities: allocation units of each domain's machine.
        links: the linked domain pairs.
        stats: coordinator counters (instants, retries).
        faults: what happened to the domains served by other processes, in order (see
            :class:`Fault`); empty for an in-process run.
    """

    results: Mapping[str, SimulationResult]
    capacities: Mapping[str, int]
    links: tuple[tuple[str, str], ...] = ()
    stats: Mapping[str, int] = field(default_factory=dict)
    faults: tuple[Fault, ...] = ()


class Coordinator:
    """Runs coupled domains on one clock.

    Args:
        domains: the machines, in the order their passes run at an instant: domains of
            this process, or :class:`Member` s (domains in other processes).
        outages: periods during which a domain is unreachable.
        on_instant: called with the instant's time after each instant (tests and
            progress reports); a remote transport also uses it to let a restarted
            domain rejoin. Not called inside a window (see ``batch``).
        batch: spare calls to the members (each is a round trip for a domain in
            another process): at an instant where no pass can call a peer every member
            advances and passes in one call; while every domain is quiet
            (:attr:`MemberState.quiet`) each runs its instants alone up to the end of
            the quiet time, in one call
            (:func:`~cosched.coupled.protocol.domain_window`); at other instants each
            domain with an event advances and passes in one call
            (:meth:`Member.pass_at`), and while one domain alone has events it runs
            them in one call (:meth:`Member.run_ahead`). The schedules, the counters
            and the instants are the same as without.
    """

    #: Simulated seconds of the first window; halved or doubled to keep windows near
    #: :data:`WINDOW_INSTANTS` instants (each window is one request to a remote member).
    WINDOW_SPAN = 86400.0
    WINDOW_SPAN_MAX = 30 * 86400.0
    WINDOW_INSTANTS = 2000

    def __init__(
        self,
        domains: Sequence[Domain | Member],
        *,
        outages: Sequence[Outage] = (),
        on_instant: Callable[[Coordinator, float], None] | None = None,
        batch: bool = False,
    ) -> None:
        names = [d.name for d in domains]
        if len(set(names)) != len(names) or not names:
            raise ConfigError(f"domain names must be unique and non-empty, got {names}")
        self.members: list[Member] = [
            LocalMember(d, quiet=batch) if isinstance(d, Domain) else d for d in domains
        ]
        self._local = {d.name: d for d in domains if isinstance(d, Domain)}
        self._by_name = {m.name: m for m in self.members}
        for o in outages:
            if o.domain not in self._by_name:
                raise ConfigError(f"outage of unknown domain {o.domain!r} (domains: {names})")
            if not (o.start >= 0 and o.end > o.start):
                raise ConfigError(f"outage must have 0 <= start < end, got {o}")
        # (time, order, domain, down?) so that simultaneous changes apply in input order.
        self._changes: list[tuple[float, int, str, bool]] = []
        for k, o in enumerate(outages):
            self._changes.append((o.start, 2 * k, o.domain, True))
            if math.isfinite(o.end):
                self._changes.append((o.end, 2 * k + 1, o.domain, False))
        heapq.heapify(self._changes)
        self._stats = {"instants": 0, "retries": 0}
        self._links: list[tuple[str, str]] = []
        self._on_instant = on_instant
        #: members unreachable since a call to them failed (name -> time).
        self.lost: dict[str, float] = {}
        self.faults: list[Fault] = []
        self.now = 0.0
        #: members that came back since the last instant (all of them pass next).
        self._rejoined = False
        self.batch = batch
        self._span = self.WINDOW_SPAN

    @property
    def domains(self) -> list[Domain]:
        """The domains of this process (all of them for an in-process run)."""
        return list(self._local.values())

    def pair(self, a: str, b: str) -> None:
        """Link domains ``a`` and ``b``: each sends the calls about its mates to the other."""
        da, db = self._domain(a), self._domain(b)
        da.connect(b, LocalLink(db, da))
        db.connect(a, LocalLink(da, db))
        self._links.append((a, b))

    def linked(self, a: str, b: str) -> None:
        """Record that ``a`` and ``b`` are linked by a transport (for the result)."""
        self._links.append((a, b))

    def _domain(self, name: str) -> Domain:
        try:
            return self._local[name]
        except KeyError:
            known = list(self._by_name)
            raise ConfigError(f"no domain {name!r} in this process (domains: {known})") from None

    # -- members that fail ----------------------------------------------------------------

    def _live(self) -> list[Member]:
        return [m for m in self.members if m.name not in self.lost]

    def _call(self, member: Member, method: str, *args: Any) -> tuple[bool, Any]:
        """``member.method(*args)``; ``(False, None)`` (the member is down) if it failed."""
        if member.name in self.lost:
            return False, None
        try:
            return True, getattr(member, method)(*args)
        except MemberDownError as exc:
            self.mark_down(member.name, exc.why)
            return False, None

    def mark_down(self, name: str, why: str) -> None:
        """Domain ``name`` stopped answering: the others treat it as down from now on."""
        if name in self.lost:
            return
        self.lost[name] = self.now
        self.faults.append({"event": "down", "domain": name, "time": self.now, "why": why})
        for m in self._live():
            self._call(m, "notify", name, True)
        self._rejoined = True

    def rejoin(self, name: str, member: Member) -> None:
        """A restarted domain is back (already caught up to :attr:`now`)."""
        since = self.lost.pop(name)
        self.members = [member if m.name == name else m for m in self.members]
        self._by_name[name] = member
        self.faults.append(
            {"event": "rejoin", "domain": name, "time": self.now, "why": f"down since {since:g}"}
        )
        for m in self._live():
            self._call(m, "notify", name, False)
        self._rejoined = True

    # -- the clock ------------------------------------------------------------------------

    def run(self) -> CoupledResult:
        """Simulate until every job of every domain has finished."""
        idle = 0
        last = -math.inf
        for m in self._live():
            self._call(m, "refresh")
        while True:
            states = self._states()
            live = self._live()
            due = [states[m.name].next_time for m in live]
            t = min(due, default=math.inf)
            change = self._changes[0][0] if self._changes else math.inf
            if change < t:
                t = change
            if t == math.inf:
                if not any(states[m.name].queued for m in live):
                    break
                if self._retry():
                    continue
                raise self._stuck(last)
            active = [m for m, when in zip(live, due, strict=True) if when == t]
            if change == t:
                self._apply_changes(t)
                active = live
            alone = change > t and not self._rejoined and not self.lost
            if self._rejoined:
                self._rejoined = False
                active = live
            if self.batch and alone:
                # A window resets the idle count: it must end before all jobs have
                # arrived (the run cannot be frozen before: see _frozen).
                arrivals = max(m.last_arrival for m in live)
                quiet = min(s.quiet for s in states.values())
                if min(quiet, arrivals) > t:
                    last = self._window(min(quiet, arrivals, change, t + self._span))
                    idle = 0
                    continue
                if len(active) == 1 and arrivals > t:
                    # The others have no event before their next time: until then
                    # only the active domain's passes can change anything.
                    others = [states[m.name].next_time for m in live if m is not active[0]]
                    last = self._ahead(active[0], min(*others, arrivals, change, t + self._span))
                    idle = 0
                    continue
            mark = self._progress()
            if self.batch and alone:
                self._step(t, active, states)
            else:
                self._instant(t, active)
            stuck = self._progress() == mark and self._frozen()
            idle = idle + 1 if stuck else 0
            if idle > 2 * self._holders() + 4:
                raise self._stuck(t)
            last = t
            if self._on_instant is not None:
                self._on_instant(self, t)
        results = {}
        caps = {}
        for m in self._live():
            ok, res = self._call(m, "finish")
            if ok:
                results[m.name] = res
                caps[m.name] = m.capacity
        for name, since in self.lost.items():
            self.faults.append(
                {"event": "lost", "domain": name, "time": since, "why": "never came back"}
            )
        return CoupledResult(
            results, caps, tuple(self._links), dict(self._stats), tuple(self.faults)
        )

    def _instant(self, t: float, active: Sequence[Member]) -> None:
        self._stats["instants"] += 1
        self.now = t
        for m in self._live():
            self._call(m, "advance", t)
        self._passes(active)

    def _step(self, t: float, active: Sequence[Member], states: Mapping[str, MemberState]) -> None:
        """:meth:`_instant` in fewer calls (``batch``): if no pass at ``t`` can call a
        peer, every member advances and passes in one call, all at once; otherwise the
        active ones advance and pass in order, one call each, and a domain behind the
        instant is brought to it by the first call a pass makes to it (or, if none
        does, counts the instant as an idle one)."""
        self._stats["instants"] += 1
        self.now = t
        live = self._live()
        if all(states[m.name].quiet > t for m in active):
            for m in live:
                if m in active:
                    self._call(m, "step", t, True)
                else:
                    self._call(m, "idle", 1, t)
            return
        behind = {m.name: m for m in live}
        for m in active:
            others = {n: p for n, p in behind.items() if n != m.name}
            ok, synced = self._call(m, "pass_at", t, m.name in behind, others)
            behind.pop(m.name, None)
            for name in synced if ok else ():
                behind.pop(name, None)
        for m in behind.values():
            self._call(m, "idle", 1, t)

    def _ahead(self, lead: Member, until: float) -> float:
        """``lead`` runs its instants before ``until`` and before any other domain's
        next event, each as :meth:`_step` would (the others behind until a pass calls
        them: :meth:`Member.run_ahead`); the time of the last instant."""
        behind = {m.name: m for m in self._live() if m is not lead}
        ok, times = self._call(lead, "run_ahead", until, behind)
        if ok and times:
            self._stats["instants"] += len(times)
            self.now = times[-1]
        return self.now

    def _window(self, until: float) -> float:
        """Every live domain runs its own instants before ``until`` alone (all quiet
        until then: no pass calls a peer), then gets the others' instants as idle ones;
        the time of the last instant."""
        live = self._live()
        for m in live:
            self._call(m, "window", until)
        own: dict[str, list[float]] = {}
        for m in live:
            ok, times = self._call(m, "window_times")
            if ok:
                own[m.name] = times
        instants = sorted(set().union(*own.values()))
        last = instants[-1] if instants else self.now
        for m in self._live():
            n = len(instants) - len(own.get(m.name, instants))
            if n:
                self._call(m, "idle", n, last)
        self._stats["instants"] += len(instants)
        self.now = last
        if len(instants) > 2 * self.WINDOW_INSTANTS:
            self._span /= 2
        elif len(instants) < self.WINDOW_INSTANTS // 2:
            self._span = min(2 * self._span, self.WINDOW_SPAN_MAX)
        return last

    def _passes(self, active: Sequence[Member]) -> None:
        for m in active:
            self._call(m, "run_pass")
        for m in self._live():
            self._call(m, "refresh")

    def _retry(self) -> bool:
        """One more pass everywhere; True if it started anything."""
        self._stats["retries"] += 1
        before = sum(s.started for s in self._states().values())
        self._passes(self._live())
        return sum(s.started for s in self._states().values()) > before

    def _apply_changes(self, t: float) -> None:
        while self._changes and self._changes[0][0] <= t:
            _, _, name, down = heapq.heappop(self._changes)
            for m in self._live():
                self._call(m, "notify", name, down)

    def _progress(self) -> tuple[int, ...]:
        """Changes only when a job arrives, starts or ends somewhere."""
        return tuple(
            x for s in self._states().values() for x in (s.submitted, s.started, s.running)
        )

    def _frozen(self) -> bool:
        """Jobs wait, nothing runs, nothing is left to arrive: only releases can change things."""
        states = list(self._states().values())
        return (
            any(s.queued for s in states)
            and all(s.running == 0 and s.submitted == s.total for s in states)
            and not self._changes
        )

    def _states(self) -> dict[str, MemberState]:
        """Every live domain's state (reading a remote one's pending answer)."""
        out = {}
        for m in self._live():
            ok, st = self._call(m, "state")
            if ok:
                out[m.name] = st
        return {n: st for n, st in out.items() if n not in self.lost}

    def _holders(self) -> int:
        return sum(s.holding for s in self._states().values())

    def _stuck(self, t: float) -> CoupledError:
        waits: list[str] = []
        for m in self._live():
            for line, peer_name, mate in m.waits():
                peer = self._by_name.get(peer_name or "")
                why = ""
                if peer is not None and mate is not None and peer.name not in self.lost:
                    why = f" ({peer.blocked(mate)})"
                waits.append(line + why)
        if waits:
            no_release = [m.name for m in self._live() if m.release_period is None]
            hint = (
                f"periodic release is disabled on {', '.join(no_release)}; set "
                "release_period to break hold-hold deadlocks"
                if no_release
                else "periodic releases did not break it"
            )
            return CoupledDeadlockError(t, waits, hint)
        queued = ", ".join(f"{n}: {s.queued}" for n, s in self._states().items())
        return CoupledError(f"coupled run stalled at t={t:g} with jobs queued ({queued})")


def run_coupled(
    domains: Sequence[Domain],
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    outages: Sequence[Outage] = (),
) -> CoupledResult:
    """Pair the domains (by default the first two) and run them to the end.

    Args:
        domains: the machines.
        pairs: which domains are linked (default: the first with the second).
        outages: periods during which a domain is unreachable.
    """
    coord = Coordinator(domains, outages=outages)
    if pairs is None:
        pairs = [(domains[0].name, domains[1].name)] if len(domains) >= 2 else []
    for a, b in pairs:
        coord.pair(a, b)
    return coord.run()
