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
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from cosched.coupled.domain import Domain
from cosched.coupled.errors import CoupledDeadlockError, CoupledError
from cosched.coupled.protocol import LocalLink
from cosched.engine.simulation import SimulationResult
from cosched.errors import ConfigError

__all__ = ["Coordinator", "CoupledResult", "Outage", "run_coupled"]


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


@dataclass(frozen=True)
class CoupledResult:
    """The outcome of a coupled run.

    Attributes:
        results: each domain's result (job table with the coscheduling columns, see
            :meth:`Domain.finish`), by domain name, in the given order.
        capacities: allocation units of each domain's machine.
        links: the linked domain pairs.
        stats: coordinator counters (instants, retries).
    """

    results: Mapping[str, SimulationResult]
    capacities: Mapping[str, int]
    links: tuple[tuple[str, str], ...] = ()
    stats: Mapping[str, int] = field(default_factory=dict)


class Coordinator:
    """Runs coupled domains on one clock.

    Args:
        domains: the machines, in the order their passes run at an instant.
        outages: periods during which a domain is unreachable.
    """

    def __init__(self, domains: Sequence[Domain], *, outages: Sequence[Outage] = ()) -> None:
        names = [d.name for d in domains]
        if len(set(names)) != len(names) or not names:
            raise ConfigError(f"domain names must be unique and non-empty, got {names}")
        self.domains = list(domains)
        self._by_name = {d.name: d for d in domains}
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

    def pair(self, a: str, b: str) -> None:
        """Link domains ``a`` and ``b``: each sends the calls about its mates to the other."""
        da, db = self._domain(a), self._domain(b)
        if da.peer is not None or db.peer is not None:
            raise ConfigError(f"a domain pairs with one other domain ({a!r}, {b!r})")
        da.connect(b, LocalLink(db, da))
        db.connect(a, LocalLink(da, db))
        self._links.append((a, b))

    def _domain(self, name: str) -> Domain:
        try:
            return self._by_name[name]
        except KeyError:
            raise ConfigError(f"no domain {name!r} (domains: {list(self._by_name)})") from None

    # -- the clock ------------------------------------------------------------------------

    def run(self) -> CoupledResult:
        """Simulate until every job of every domain has finished."""
        doms = self.domains
        idle = 0
        last = -math.inf
        while True:
            due = [d.sim.next_time() for d in doms]
            t = min(due)
            change = self._changes[0][0] if self._changes else math.inf
            if change < t:
                t = change
            if t == math.inf:
                if not any(len(d.view.queue) for d in doms):
                    break
                if self._retry():
                    continue
                raise self._stuck(last)
            active = [d for d, when in zip(doms, due, strict=True) if when == t]
            if change == t:
                self._apply_changes(t)
                active = doms
            mark = self._progress()
            self._instant(t, active)
            stuck = self._progress() == mark and self._frozen()
            idle = idle + 1 if stuck else 0
            if idle > 2 * self._holders() + 4:
                raise self._stuck(t)
            last = t
        results = {d.name: d.finish() for d in doms}
        caps = {d.name: d.view.capacity for d in doms}
        return CoupledResult(results, caps, tuple(self._links), dict(self._stats))

    def _instant(self, t: float, active: Sequence[Domain]) -> None:
        self._stats["instants"] += 1
        for d in self.domains:
            d.gated = True
            d.sim.advance(t)
        self._passes(active)

    def _passes(self, active: Sequence[Domain]) -> None:
        for d in self.domains:
            d.gated = False
        try:
            for d in active:
                d.sim.extra_pass()
        finally:
            for d in self.domains:
                d.gated = True

    def _retry(self) -> bool:
        """One more pass everywhere; True if it started anything."""
        self._stats["retries"] += 1
        before = sum(d.view.started_count for d in self.domains)
        self._passes(self.domains)
        return sum(d.view.started_count for d in self.domains) > before

    def _apply_changes(self, t: float) -> None:
        while self._changes and self._changes[0][0] <= t:
            _, _, name, down = heapq.heappop(self._changes)
            self._by_name[name].down = down
            for d in self.domains:
                d.recheck = True

    def _progress(self) -> tuple[int, ...]:
        """Changes only when a job arrives, starts or ends somewhere."""
        return tuple(
            x
            for d in self.domains
            for x in (len(d.submitted), d.view.started_count, d.view.n_running)
        )

    def _frozen(self) -> bool:
        """Jobs wait, nothing runs, nothing is left to arrive: only releases can change things."""
        doms = self.domains
        return (
            any(len(d.view.queue) for d in doms)
            and all(d.view.n_running == 0 and len(d.submitted) == len(d.workload) for d in doms)
            and not self._changes
        )

    def _holders(self) -> int:
        return sum(len(d.view.holding) for d in self.domains)

    def _stuck(self, t: float) -> CoupledError:
        waits: list[str] = []
        for d in self.domains:
            for line, idx in zip(d.waits(), sorted(d.view.holding), strict=True):
                mate = d.mate_of(d.view.job(idx))
                peer = self._by_name.get(d.peer_name or "")
                why = "" if peer is None or mate is None else f" ({peer.blocked(mate)})"
                waits.append(line + why)
        if waits:
            no_release = [d.name for d in self.domains if d.release_period is None]
            hint = (
                f"periodic release is disabled on {', '.join(no_release)}; set "
                "release_period to break hold-hold deadlocks"
                if no_release
                else "periodic releases did not break it"
            )
            return CoupledDeadlockError(t, waits, hint)
        queued = ", ".join(f"{d.name}: {len(d.view.queue)}" for d in self.domains)
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
