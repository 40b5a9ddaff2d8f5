"""The partner heuristics of section 5.2 by name (:data:`PARTNER_HEURISTICS`): how
:class:`~cosched.lomarc.policies.Lomarc` chooses a partner among the candidates that
pass the rules, in the queue and among the running jobs.

Apart from the searches (:mod:`cosched.lomarc.search`), which only the general loop
runs: a policy checks its ``heuristic`` against this registry when it is made, and the
built-in variants then run the compiled pass, which does not import the searches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from cosched.lomarc.matching import response_impact, u_gain

if TYPE_CHECKING:
    from cosched.lomarc.policies import Lomarc
    from cosched.lomarc.search import PassState
    from cosched.workload.job import Job

__all__ = ["PARTNER_HEURISTICS", "FirstMatch", "PartnerHeuristic", "ResponseImpact", "UGain"]

_NO_FUTURE = (0.0, 0.0, 0.0, 0.0)


def _future(policy: Lomarc, horizon: float) -> tuple[float, float, float, float]:
    return policy._arrivals.expected(horizon) if policy.predict else _NO_FUTURE


class PartnerHeuristic(Protocol):
    """How a partner is chosen among the candidates that pass the rules (section 5.2).

    Registered in :data:`PARTNER_HEURISTICS` under the name the ``heuristic``
    parameter of :class:`~cosched.lomarc.policies.Lomarc` takes; a new heuristic is one
    class with these three members, added to that dict.
    """

    #: Take the first survivor (queue order / running-job order) without scoring.
    first_match: bool

    def choose(
        self, policy: Lomarc, ps: PassState, k: int, survivors: Sequence[tuple[int, Job, float]]
    ) -> int:
        """Index in ``survivors`` (queue position, job, pair slowdown) of the partner of
        ``ps.queue[k]``, or -1 for none."""
        ...

    def ride_profit(self, policy: Lomarc, ps: PassState, k: int, host: Job, sl: float) -> float:
        """Profit of starting ``ps.queue[k]`` on the running ``host`` at slowdown ``sl``
        (only a positive profit is taken; the largest wins)."""
        ...


class UGain:
    """U_gain,1 (``timed``: weighted by min(T)/max(T)) or U_gain,2 (section 5.2)."""

    first_match = False

    def __init__(self, *, timed: bool) -> None:
        self.timed = timed

    def choose(
        self, policy: Lomarc, ps: PassState, k: int, survivors: Sequence[tuple[int, Job, float]]
    ) -> int:
        view, cur = ps.view, ps.queue[k]
        sa, ta = ps.size(cur), view.estimate(cur)
        choice, best = -1, 0.0
        for n, (_, b, sl) in enumerate(survivors):
            profit = u_gain(sa, ta, ps.size(b), view.estimate(b), sl, timed=self.timed)
            if profit > best:
                choice, best = n, profit
        return choice

    def ride_profit(self, policy: Lomarc, ps: PassState, k: int, host: Job, sl: float) -> float:
        cur = ps.queue[k]
        th, sh = ps.remaining(host), ps.size(host)
        return u_gain(sh, th, ps.size(cur), ps.view.estimate(cur), sl, timed=self.timed)


class FirstMatch:
    """The first candidate that passes the rules (L-FM, AC, AM)."""

    first_match = True

    def choose(
        self, policy: Lomarc, ps: PassState, k: int, survivors: Sequence[tuple[int, Job, float]]
    ) -> int:
        return 0

    def ride_profit(self, policy: Lomarc, ps: PassState, k: int, host: Job, sl: float) -> float:
        return 1.0


class ResponseImpact:
    """The response-time impact of Figure 5 (L-R; :func:`response_impact`)."""

    first_match = False

    def choose(
        self, policy: Lomarc, ps: PassState, k: int, survivors: Sequence[tuple[int, Job, float]]
    ) -> int:
        """``k`` and the survivors' positions index the queue as it stood at the pass
        start (see :meth:`PassState.response_times`)."""
        bound = policy.bound
        rts, inv = ps.response_times()
        last = len(rts) - 1
        future = _future(policy, rts[last])
        view = ps.view
        cur = ps.queue[k]
        ti, si = view.estimate(cur), ps.size(cur)
        choice, best = -1, 0.0
        for m, (p, b, sl) in enumerate(survivors):
            profit = response_impact(
                ti=ti, si=si, tj=view.estimate(b), sj=ps.size(b), sl=sl,
                n_nodes=ps.nodes, rt_i=max(rts[k], bound), rt_j=rts[p],
                push_inv=inv[p] - inv[k + 1], n_push=p - k - 1,
                pull_inv=inv[last + 1] - inv[p + 1], n_pull=last - p,
                future=future, bound=bound, queue_ahead=_ahead(policy, rts),
            )  # fmt: skip
            if profit > best:
                choice, best = m, profit
        return choice

    def ride_profit(self, policy: Lomarc, ps: PassState, k: int, host: Job, sl: float) -> float:
        pull = ps.pull_cache.get(k)
        if pull is None:
            pull = ps.pull_cache[k] = _pull_up(policy, ps, k)
        rt_c, n_pull, future, pull_inv = pull
        cur = ps.queue[k]
        th, sh = ps.remaining(host), ps.size(host)
        return response_impact(
            ti=th, si=sh, tj=ps.view.estimate(cur), sj=ps.size(cur), sl=sl, n_nodes=ps.nodes,
            rt_i=max(th, policy.bound), rt_j=rt_c, push_inv=0.0, n_push=0,
            pull_inv=pull_inv, n_pull=n_pull, future=future, bound=policy.bound,
            queue_ahead=_ahead(policy, ps.response_times()[0]),
        )  # fmt: skip


def _ahead(policy: Lomarc, rts: Sequence[float]) -> float:
    """Per-node work queued ahead of a predicted arrival, by the ``arrivals`` reading."""
    return rts[-1] if policy.arrivals == "queue" and rts else 0.0


#: The partner heuristics by the name the ``heuristic`` parameter takes.
PARTNER_HEURISTICS: dict[str, PartnerHeuristic] = {
    "u1": UGain(timed=True),
    "u2": UGain(timed=False),
    "response": ResponseImpact(),
    "first": FirstMatch(),
}


def _pull_up(
    policy: Lomarc, ps: PassState, k: int
) -> tuple[float, int, tuple[float, float, float, float], float]:
    """Response time of the riding job, and the pull-up jobs behind it."""
    rts, inv = ps.response_times()
    last = len(rts) - 1
    return rts[k], last - k, _future(policy, rts[last]), inv[last + 1] - inv[k + 1]
