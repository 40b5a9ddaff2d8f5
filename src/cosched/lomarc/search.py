"""One scheduling pass's state and the two partner searches (queue and running jobs).

:class:`PassState` holds what one pass of :class:`~cosched.lomarc.policies.Lomarc`
changes: the empty nodes left, the jobs started (on top of the engine's node ledger,
which the pass reads through the view), their estimated ends (adjusted for the
slowdowns of the pairs formed in this pass) and the EASY reservation. The searches
apply the rules of :mod:`cosched.lomarc.matching` and the partner heuristics of
:mod:`cosched.lomarc.heuristics` (:data:`PARTNER_HEURISTICS`, :class:`PartnerHeuristic`
and :func:`pair_ends`, of :mod:`cosched.lomarc.slowdown`, are named here too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from cosched.engine.decisions import Decision, Start, on_nodes
from cosched.engine.view import SystemView
from cosched.lomarc.heuristics import PARTNER_HEURISTICS, PartnerHeuristic
from cosched.lomarc.matching import prefix_inverse
from cosched.lomarc.slowdown import pair_ends
from cosched.policies.reservation import Reservation, node_reservation
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.lomarc.policies import Lomarc

__all__ = [
    "PARTNER_HEURISTICS",
    "PartnerHeuristic",
    "PassState",
    "pair_ends",
    "queue_match",
    "running_match",
]

_UNSEEN: Any = object()
_SCREEN_CACHE = 200_000


class PassState:
    """The state of one scheduling pass (see the module docstring)."""

    def __init__(
        self,
        policy: Lomarc,
        view: SystemView,
        queue: Sequence[Job],
        order: np.ndarray | None = None,
    ) -> None:
        self.policy = policy
        self.view = view
        self.queue = queue
        #: the queue's job indices as an array (``queue[k].index == order[k]``).
        self.order = order if order is not None else np.array([j.index for j in queue], np.intp)
        self.now = view.now
        self.sizes = view.sizes
        self.nodes = view.platform.nodes
        self.free = view.empty_nodes()
        self.added: dict[int, list[int]] = {}  # node -> jobs started on it in this pass
        self.taken: set[int] = set()
        self.decisions: list[Decision] = []
        self.queued_units = int(view.columns.size[self.order].sum())
        self.end: dict[int, float] = {}
        self.reservation = Reservation(math.inf, 0)
        self._hosts: list[tuple[Job, list[int]]] | None = None
        self._running: list[tuple[Job, list[int]]] | None = None
        self._max_solo = -1
        self._rts: tuple[list[float], list[float]] | None = None
        #: per queue position: the pull-up terms of the response heuristic (riding).
        self.pull_cache: dict[int, tuple[float, int, tuple[float, float, float, float], float]] = {}

    def jobs_on(self, node: int) -> tuple[int, ...]:
        """The jobs on ``node``: the engine's ledger plus this pass's starts."""
        added = self.added.get(node)
        on = self.view.jobs_on(node)
        return on + tuple(added) if added else on

    def size(self, job: Job) -> int:
        """Nodes ``job`` takes."""
        return self.sizes[job.index]

    def end_of(self, idx: int) -> float:
        """Estimated end of a running job or of a job started in this pass."""
        end = self.end.get(idx)
        return end if end is not None else self.view.estimated_end(self.view.job(idx))

    # -- starting jobs ------------------------------------------------------------------

    def _place(self, job: Job, nodes: Sequence[int]) -> None:
        for node in nodes:
            self.added.setdefault(node, []).append(job.index)
        self.decisions.append(Start(job, on_nodes(nodes, 1)))
        self.taken.add(job.index)
        self.queued_units -= self.size(job)

    def start(self, job: Job, nodes: Sequence[int], est: float) -> None:
        """Start ``job`` alone on ``nodes`` (the first empty nodes)."""
        self._place(job, nodes)
        self.free = self.free[len(nodes) :]
        self.end[job.index] = self.now + est

    def start_pair(self, host: Job, partner: Job, nodes: Sequence[int], sl: float) -> None:
        """Start ``partner`` on the first of ``host``'s nodes (both start now)."""
        self._place(partner, nodes[: self.size(partner)])
        th, tp = pair_ends(self.view.estimate(host), self.view.estimate(partner), sl)
        self.end[host.index] = self.now + th
        self.end[partner.index] = self.now + tp

    def pair_end(self, est: float, partner: Job, sl: float) -> float:
        """When the last of a pair started now ends."""
        return self.now + max(pair_ends(est, self.view.estimate(partner), sl))

    def remaining(self, host: Job) -> float:
        """A running job's remaining estimated work at full speed."""
        rate = self.view.rate(host) if host.index not in self.end else 1.0
        return max(self.end_of(host.index) - self.now, 0.0) * rate

    def ride_ends(self, host: Job, cur: Job, sl: float) -> tuple[float, float]:
        """Estimated ends of ``host`` and ``cur`` if ``cur`` rides on ``host`` now."""
        th, tc = pair_ends(self.remaining(host), self.view.estimate(cur), sl)
        return max(self.end_of(host.index), self.now + th), self.now + tc

    def ride(self, cur: Job, host: Job, nodes: Sequence[int], sl: float) -> None:
        """Start ``cur`` on ``nodes`` of the running ``host``."""
        end_h, end_c = self.ride_ends(host, cur, sl)
        self._place(cur, nodes)
        self.end[host.index] = end_h
        self.end[cur.index] = end_c
        hosts = self.hosts()
        for k, (job, solo) in enumerate(hosts):
            if job is host:
                left = [n for n in solo if n not in set(nodes)]
                hosts[k] = (job, left)
                break

    def running_nodes(self) -> list[tuple[Job, list[int]]]:
        """The running jobs (start order) with their nodes, read from the engine's
        ledger once per pass (the shadow time and the hosts both walk them)."""
        if self._running is None:
            placement = self.view.placement
            self._running = [
                (job, [node for node, _ in placement(job)]) for job in self.view.running
            ]
        return self._running

    def hosts(self) -> list[tuple[Job, list[int]]]:
        """Eligible running jobs with their nodes that hold no partner (once per pass)."""
        if self._hosts is None:
            eligible, est = self.policy._rules.eligible, self.view.estimates
            count = self._node_counts()
            self._hosts = []
            for job, nodes in self.running_nodes():
                if not eligible(est[job.index]):
                    continue
                solo = [n for n in nodes if count[n] == 1]
                if solo:
                    self._hosts.append((job, solo))
            self._max_solo = max((len(solo) for _, solo in self._hosts), default=0)
        return self._hosts

    def _node_counts(self) -> list[int]:
        """Jobs on each node: the engine's ledger plus this pass's starts."""
        count = [0] * self.nodes
        for _, nodes in self.running_nodes():
            for node in nodes:
                count[node] += 1
        for node, jobs in self.added.items():
            count[node] += len(jobs)
        return count

    @property
    def hosts_known(self) -> bool:
        """Whether :meth:`hosts` has been taken (it is taken once per pass)."""
        return self._hosts is not None

    def max_solo(self) -> int:
        """The most unpartnered nodes any eligible running job has (an upper bound)."""
        self.hosts()
        return self._max_solo

    def response_times(self) -> tuple[list[float], list[float]]:
        """Perfect-packing response times of the queue as it stood at the pass start.

        ``rts[p]`` is the work of jobs ``0..p`` over the node count; ``inv[p]`` is
        the sum of ``1 / max(rts[q], bound)`` for ``q < p``. Computed once per pass:
        the jobs started during the pass stay counted, a small overestimate.
        """
        if self._rts is None:
            cols, order = self.view.columns, self.order
            # accumulate adds in order, as a running sum does.
            rts = np.add.accumulate(cols.estimate[order] * cols.size[order] / self.nodes)
            self._rts = (rts.tolist(), prefix_inverse(rts, self.policy.bound))
        return self._rts

    # -- EASY reservation ---------------------------------------------------------------

    def compute_shadow(self, head: Job) -> None:
        """The head's shadow time and extra nodes, node by node.

        A node becomes empty when the last of its jobs ends (estimated ends, with this
        pass's starts and slowdowns); EASY's rule over nodes
        (:func:`~cosched.policies.reservation.node_reservation`) gives the shadow time
        and the extra nodes (all those empty by then beyond the head's need).
        """
        empty_at = [-math.inf] * self.nodes
        override, est_end = self.end, self.view.estimated_end
        for job, nodes in self.running_nodes():
            # An end in the past counts as now (node_reservation), so the engine's
            # estimated end (at least now) serves for the raw one.
            end = override.get(job.index)
            if end is None:
                end = est_end(job)
            for node in nodes:
                if end > empty_at[node]:
                    empty_at[node] = end
        for node, jobs in self.added.items():
            for idx in jobs:
                end = override[idx]
                if end > empty_at[node]:
                    empty_at[node] = end
        occupied = np.array([e for e in empty_at if e > -math.inf])
        self.reservation = Reservation(
            *node_reservation(occupied, free=len(self.free), need=self.size(head), now=self.now)
        )

    @property
    def shadow(self) -> float:
        """The head's shadow time (infinite before :meth:`compute_shadow`)."""
        return self.reservation.shadow

    def backfill_ok(self, end: float, size: int) -> bool:
        """EASY's test: ends by the shadow time or uses only extra nodes."""
        return self.reservation.fits(end, size)

    def use_backfill(self, end: float, size: int) -> None:
        """Consume extra nodes for a backfilled job that ends after the shadow time."""
        self.reservation.take(end, size)


def _candidates(ps: PassState, k: int) -> list[tuple[int, Job]]:
    """Queued jobs behind position ``k`` not started yet, with their queue positions."""
    taken, queue = ps.taken, ps.queue
    return [(p, queue[p]) for p in range(k + 1, len(queue)) if queue[p].index not in taken]


def queue_match(policy: Lomarc, ps: PassState, k: int) -> tuple[Job, float] | None:
    """The best partner for ``ps.queue[k]`` among the queued jobs behind it (Figure 4).

    Fills the Table 5 funnel. With the first-match heuristic the scan stops at the
    first survivor, so its funnel counts are partial.
    """
    cur = ps.queue[k]
    view, rules, profiles, funnel = ps.view, policy._rules, policy._profiles, policy.funnel
    cands = _candidates(ps, k)
    if policy.search == "adjacent":
        cands = cands[:1]
    funnel.searches += 1
    funnel.queue += len(ps.queue) - len(ps.taken)
    a = profiles.of(cur)
    sa = ps.size(cur)
    heuristic = PARTNER_HEURISTICS[policy.heuristic]
    first = heuristic.first_match
    survivors: list[tuple[int, Job, float]] = []
    for pos, b in cands:
        if not rules.eligible(view.estimate(b)):
            continue
        funnel.medium_long += 1
        if ps.size(b) > sa:
            continue
        funnel.size_ok += 1
        sl = rules.screen(a, profiles.of(b), funnel)
        if sl is None:
            continue
        survivors.append((pos, b, sl))
        if first:
            break
    if not survivors:
        return None
    choice = heuristic.choose(policy, ps, k, survivors)
    if choice < 0:
        return None
    funnel.selected += 1
    funnel.position += choice + 1
    _, partner, sl = survivors[choice]
    return partner, sl


def running_match(
    policy: Lomarc, ps: PassState, k: int, *, backfill: bool
) -> tuple[Job, tuple[int, ...], float] | None:
    """The best running job for ``ps.queue[k]`` to ride on (Figure 2).

    A host qualifies with at least as many unpartnered nodes as the job needs. While
    backfilling, riding must not make nodes the reservation counts on (ending by the
    shadow time) end later than it.
    """
    cur = ps.queue[k]
    rules, profiles = policy._rules, policy._profiles
    sc = ps.size(cur)
    a = profiles.of(cur)
    heuristic = PARTNER_HEURISTICS[policy.heuristic]
    best: tuple[Job, tuple[int, ...], float] | None = None
    best_profit = 0.0
    if sc > ps.max_solo():
        return None
    # Screens are pure functions of the two profiles; a queued job meets the same
    # running jobs pass after pass, so they are remembered (bounded by clearing).
    screens = policy._screens
    if len(screens) > _SCREEN_CACHE:
        screens.clear()
    for host, solo in ps.hosts():
        if len(solo) < sc:
            continue
        pair = (cur.index, host.index)
        sl = screens.get(pair, _UNSEEN)
        if sl is _UNSEEN:
            sl = screens[pair] = rules.screen(a, profiles.of(host), None)
        if sl is None:
            continue
        if backfill and ps.end_of(host.index) <= ps.shadow < max(ps.ride_ends(host, cur, sl)):
            continue
        nodes = tuple(solo[:sc])
        if heuristic.first_match:
            return host, nodes, sl
        profit = heuristic.ride_profit(policy, ps, k, host, sl)
        if profit > best_profit:
            best, best_profit = (host, nodes, sl), profit
    return best
