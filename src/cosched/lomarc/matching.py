"""Finding a partner for a job: matchable rules, heuristics and the search (Figures 4, 5).

Terms (paper section 5): the *current* job A is the one being scheduled; a *candidate*
B is a queued job (matching in the queue: B moves ahead and runs on part of A's nodes)
or a running job (A then runs on part of B's nodes). A candidate survives, in this
order, the filters of Table 5: medium or long job, ``size_B <= size_A`` (the partner
rides on the other job's nodes), memory fit, matchable classes, slowdown <= the limit.
Among the survivors the heuristic picks the one of largest positive profit (or the
first survivor, for "first match").

Heuristics (section 5.2), with S sizes, T estimated run times and sl the pair slowdown:

* ``u1``: U_gain,1 = (min(S)(2/sl - 1) - |S_A - S_B|(1 - 1/sl)) min(T)/max(T) / max(S);
* ``u2``: U_gain,2, the same without the time ratio;
* ``response``: the response-time impact of Figure 5 (see :func:`response_impact`);
* ``first``: the first survivor in queue order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from cosched.lomarc.slowdown import (
    CLASS_CPU,
    CLASS_DISK,
    FORMULAS,
    OVERLAP_ADD,
    OVERLAP_EXCESS,
    PRINTED,
    Profile,
    SlowdownModel,
    shared_cost,
)
from cosched.policies.orders import SHORT_MAX

__all__ = [
    "HEURISTICS",
    "ArrivalStats",
    "Funnel",
    "Heuristic",
    "MatchRules",
    "classes_match",
    "expected_arrivals",
    "matchable",
    "may_screen",
    "response_impact",
    "u_gain",
]

Heuristic = Literal["u1", "u2", "response", "first"]
HEURISTICS: tuple[str, ...] = ("u1", "u2", "response", "first")


def matchable(a: Profile, b: Profile, model: SlowdownModel) -> bool:
    """Figure 4's rules plus the CPU rules of sections 5.1 and 6.1.

    Memory needs must sum to at most 1. On a hyperthreaded CPU the two jobs must be of
    different classes, or both CPU-bound with CPU parts that go well together (a poor
    CPU pairing, slowdown 2, is never coscheduled: section 6.1). On a standard CPU only
    a CPU-bound job with a disk-bound job (section 5.1).
    """
    if a.mem + b.mem > 1.0:
        return False
    return classes_match(a.cls, b.cls, model.cpu_factor(a, b), model.hyperthreaded)


def classes_match(a_cls: float, b_cls: float, cpu_factor: float, hyperthreaded: bool) -> bool:
    """The class part of :func:`matchable` (plain arithmetic, so the compiled loop of
    :mod:`cosched.lomarc._kernel` calls it too)."""
    if hyperthreaded:
        if a_cls == CLASS_CPU and b_cls == CLASS_CPU:
            return cpu_factor < 2.0
        return a_cls != b_cls
    return (a_cls == CLASS_CPU and b_cls == CLASS_DISK) or (
        a_cls == CLASS_DISK and b_cls == CLASS_CPU
    )


def u_gain(sa: float, ta: float, sb: float, tb: float, sl: float, timed: bool) -> float:
    """U_gain,1 (``timed``) or U_gain,2: the relative utilization gain of a pair."""
    gain = (min(sa, sb) * (2.0 / sl - 1.0) - abs(sa - sb) * (1.0 - 1.0 / sl)) / max(sa, sb)
    if timed:
        gain *= min(ta, tb) / max(ta, tb)
    return gain


@dataclass(slots=True)
class ArrivalStats:
    """Running averages of the arrivals, for the one-level prediction of Figure 5.

    The paper takes "average work" from the workload model; we learn it online from
    the jobs submitted so far (work = estimate x size), so a policy never looks ahead.
    """

    count: int = 0
    first: float = 0.0
    last: float = 0.0
    short_count: int = 0
    short_work: float = 0.0
    long_work: float = 0.0

    def add(self, submit: float, estimate: float, size: int) -> None:
        """Record one arrival."""
        if self.count == 0:
            self.first = submit
        self.count += 1
        self.last = submit
        work = estimate * size
        if estimate <= SHORT_MAX:
            self.short_count += 1
            self.short_work += work
        else:
            self.long_work += work

    def expected(self, horizon: float) -> tuple[float, float, float, float]:
        """Expected (short arrivals, their mean work, medium/long arrivals, mean work)."""
        return expected_arrivals(
            self.count, self.first, self.last, self.short_count, self.short_work,
            self.long_work, horizon,
        )  # fmt: skip


def expected_arrivals(
    count: int,
    first: float,
    last: float,
    short_count: int,
    short_work: float,
    long_work: float,
    horizon: float,
) -> tuple[float, float, float, float]:
    """:meth:`ArrivalStats.expected` from the statistics' fields (plain arithmetic, so
    the compiled loop of :mod:`cosched.lomarc._kernel` calls it too)."""
    span = last - first
    if count < 2 or span <= 0:
        return 0.0, 0.0, 0.0, 0.0
    n = horizon * (count - 1) / span
    p_short = short_count / count
    long_count = count - short_count
    w_short = short_work / short_count if short_count else 0.0
    w_long = long_work / long_count if long_count else 0.0
    return n * p_short, w_short, n * (1.0 - p_short), w_long


def response_impact(
    ti: float,
    si: float,
    tj: float,
    sj: float,
    sl: float,
    n_nodes: int,
    rt_i: float,
    rt_j: float,
    push_inv: float,
    n_push: int,
    pull_inv: float,
    n_pull: int,
    future: tuple[float, float, float, float],
    bound: float,
    queue_ahead: float = 0.0,
) -> float:
    """The response-time impact of pairing job i with job j (Figure 5), our reading.

    Response times are relative from now under perfect packing: a queued job's is the
    work (estimate x size) of itself and everything ahead of it in the queue, divided
    by the node count, bounded below by ``bound`` seconds (the paper's relative
    bounded response time uses 60 s). ``delay`` is the extra node-time of the pair over
    job i alone, per node; ``improvement`` is the node-time the pair saves over running
    i and j one after the other (Figure 5's first ``response_decrease``). Push-down jobs
    (between i and j) and predicted short arrivals (which queue ahead) each lose
    ``delay`` / their response time; job j gains its wait; pull-up jobs (behind j) and
    predicted medium/long arrivals each gain ``improvement`` / their response time.
    Figure 5 divides the net by ``n_push - n_pull`` (zero or negative for most
    candidates); we divide by the number of jobs counted, a mean relative change.

    Args:
        ti, si, tj, sj: estimates and sizes of job i (current) and j (candidate).
        sl: the pair slowdown.
        n_nodes: machine size.
        rt_i: job i's response time from now (bounded).
        rt_j: job j's response time from now in the original order (unbounded).
        push_inv: sum over push-down jobs of 1 / their bounded response time.
        n_push: number of push-down jobs.
        pull_inv: the same sum over pull-up jobs.
        n_pull: number of pull-up jobs.
        future: :meth:`ArrivalStats.expected` over the queue's horizon.
        bound: lower bound of response times, seconds.
        queue_ahead: work of the queue ahead of a predicted arrival, per node: 0 when an
            arrival's response time is its own work alone (Figure 5's literal
            ``response_time = jobn.runtime * jobn.size / n_nodes``), the whole queue's
            when it queues behind every waiting job (the ``+=`` of the loops above it).
    """
    pair_time = min(ti, tj) * (sl - 1.0) + max(ti, tj)
    delay = (pair_time * max(si, sj) - ti * si) / n_nodes
    improvement = tj * sj / n_nodes - delay
    increase = delay / rt_i + delay * push_inv
    moved = (rt_j - tj * sl * sj / n_nodes) / max(rt_j, bound)
    decrease = moved + improvement * pull_inv
    n_short, w_short, n_long, w_long = future
    if n_short > 0:
        increase += n_short * delay / max(queue_ahead + w_short / n_nodes, bound)
    if n_long > 0:
        decrease += n_long * improvement / max(queue_ahead + w_long / n_nodes, bound)
    count = 2 + n_push + n_pull + n_short + n_long
    return (decrease - increase) / count


@dataclass(slots=True)
class Funnel:
    """Table 5 diagnostics: sums over the searches in the waiting queue.

    Attributes:
        searches: number of searches in the queue.
        queue: sum of queue lengths at the searches.
        medium_long: candidates that are medium or long jobs.
        size_ok: ... that also are no larger than the current job.
        memory_ok: ... that also fit in memory with it.
        matchable: ... that also are of matchable classes.
        slowdown_ok: ... whose pair slowdown is also within the limit.
        selected: searches that selected a partner.
        position: sum of the 1-based positions of the selected partners among the
            candidates left after every constraint.
    """

    searches: int = 0
    queue: int = 0
    medium_long: int = 0
    size_ok: int = 0
    memory_ok: int = 0
    matchable: int = 0
    slowdown_ok: int = 0
    selected: int = 0
    position: int = 0

    def averages(self) -> dict[str, float]:
        """Per-search averages (the position per selection), NaN when undefined."""
        nan = float("nan")
        s = self.searches
        out = {
            "searches": float(s),
            "avg_queue_length": self.queue / s if s else nan,
            "avg_medium_long": self.medium_long / s if s else nan,
            "avg_size_ok": self.size_ok / s if s else nan,
            "avg_memory_fit": self.memory_ok / s if s else nan,
            "avg_matchable": self.matchable / s if s else nan,
            "avg_slowdown_ok": self.slowdown_ok / s if s else nan,
            "avg_selected_position": self.position / self.selected if self.selected else nan,
        }
        out["selected"] = float(self.selected)
        return out


@dataclass(frozen=True, slots=True)
class MatchRules:
    """Which candidates a policy variant accepts.

    Attributes:
        model: the slowdown model (kind of CPU).
        max_slowdown: MAX_SLOWDOWN, or None for no limit (AC).
        check_match: apply memory fit and matchable classes (False for AC).
        medium_long_only: only medium and long jobs are paired.
    """

    model: SlowdownModel
    max_slowdown: float | None = 1.6
    check_match: bool = True
    medium_long_only: bool = True

    def eligible(self, estimate: float) -> bool:
        """Whether a job of this estimate may be paired at all."""
        return not self.medium_long_only or estimate > SHORT_MAX

    def screen(self, a: Profile, b: Profile, funnel: Funnel | None) -> float | None:
        """The pair slowdown if ``b`` passes memory, class and slowdown rules, else None.

        Counts the memory, matchable and slowdown stages into ``funnel`` if given.
        """
        model = self.model
        if self.check_match:
            if a.mem + b.mem > 1.0:
                return None
            if funnel is not None:
                funnel.memory_ok += 1
            if not matchable(a, b, model):
                return None
            if funnel is not None:
                funnel.matchable += 1
        elif funnel is not None:
            funnel.memory_ok += 1
            funnel.matchable += 1
        sl = model.slowdown(a, b)
        if self.max_slowdown is not None and sl > self.max_slowdown:
            return None
        if funnel is not None:
            funnel.slowdown_ok += 1
        return sl


def may_screen(rules: MatchRules, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which pairs (column of ``a``, column of ``b``) may pass :meth:`MatchRules.screen`,
    and their slowdowns.

    ``a`` and ``b`` are :meth:`~cosched.lomarc.rates.Profiles.table` columns; the result
    is an ``(a.shape[1], b.shape[1])`` boolean matrix, a superset of the pairs ``screen``
    accepts (the same arithmetic, with the slowdown limit widened by 1e-9 against
    rounding), so a pair it refuses is one ``screen`` refuses; the exact test still
    decides the rest. The slowdowns are :meth:`SlowdownModel.slowdown`'s arithmetic.
    """
    a_idx, a_cls, a_cpu, a_net, a_disk, a_mem, a_cs = (r[:, None] for r in a)
    b_idx, b_cls, b_cpu, b_net, b_disk, b_mem, b_cs = (r[None, :] for r in b)
    model = rules.model
    over = a_mem + b_mem > 1.0
    ok = np.ones((a.shape[1], b.shape[1]), dtype=bool)
    if model.hyperthreaded:
        cf = np.where(a_idx > b_idx, a_cs, b_cs)
    else:
        cf = np.full(ok.shape, model.standard_cpu_factor)
    if rules.check_match:
        ok &= ~over
        if model.hyperthreaded:
            both_cpu = (a_cls == CLASS_CPU) & (b_cls == CLASS_CPU)
            ok &= np.where(both_cpu, cf < 2.0, a_cls != b_cls)
        else:
            ok &= ((a_cls == CLASS_CPU) & (b_cls == CLASS_DISK)) | (
                (a_cls == CLASS_DISK) & (b_cls == CLASS_CPU)
            )
    m_io = np.minimum(a_net, b_net) + np.minimum(a_disk, b_disk)
    code = FORMULAS.index(model.formula)
    sl = shared_cost(cf, np.minimum(a_cpu, b_cpu), m_io, code == PRINTED)
    mem = model.mem_slowdown
    if code == PRINTED:
        sl = np.maximum(1.0, np.where(over, sl + mem, sl))
    elif code == OVERLAP_ADD:
        sl = np.where(over, sl + mem, sl)
    elif code == OVERLAP_EXCESS:
        sl = np.where(over, sl + (mem - 1.0), sl)
    else:
        sl = np.where(over, np.maximum(sl, mem), sl)
    if rules.max_slowdown is not None:
        ok &= ~(sl > rules.max_slowdown + 1e-9)  # NaN passes, as in screen
    return ok, sl


def prefix_inverse(values: Sequence[float] | np.ndarray, bound: float) -> list[float]:
    """``out[k] = sum(1 / max(v, bound) for v in values[:k])`` (length n + 1).

    Summed in order (``np.add.accumulate``), as a running sum does.
    """
    inv = 1.0 / np.maximum(np.asarray(values, dtype=np.float64), bound)
    return [0.0, *np.add.accumulate(inv).tolist()]
