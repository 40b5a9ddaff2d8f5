"""Algorithm 1's modified best fit, on a book of nodes grouped by state.

For each configuration of the job, the best set of usable nodes is the ``k`` nodes on
which the job itself runs fastest; among the configurations, the one with the shortest
estimated run time wins (ties: the paper's order). A node is usable when it has enough
free cores, is below the job cap and passes the restriction variant.

Speed. Under the interference model a node's effect on a newcomer depends only on the
sensitivity classes of the jobs on it (their summed pressure), so nodes are kept in
buckets by *state* (classes present, free cores). The best ``k`` nodes for a
configuration are the first ``k`` in buckets ordered by pressure; one placement scans a
few dozen buckets, not 1,158 nodes. Ties in pressure go to the bucket with the fewest
free cores (tightest fit), then to the node that entered its bucket first; the paper's
scan breaks such ties by node number instead (same run times, different nodes).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Literal

from cosched.errors import ConfigError
from cosched.nodeshare.configurations import Configuration
from cosched.nodeshare.interference import InterferenceModel

__all__ = [
    "RESTRICTIONS",
    "NodeBook",
    "Plan",
    "Restriction",
    "allowed",
    "decode",
    "encode",
]

Restriction = Literal["No_Restrict", "Max_One_High", "High_Rq_Low", "Max_One_HM"]
LOW, MODERATE, HIGH = 0, 1, 2
_BASE = 8  # counts per class fit in 3 bits (cap <= 7 jobs a node)
_CODES = _BASE**3


def encode(counts: Sequence[int]) -> int:
    """The state code of a node holding ``counts`` = (low, moderate, high) jobs."""
    lo, mo, hi = counts
    return lo + _BASE * mo + _BASE * _BASE * hi


def decode(code: int) -> tuple[int, int, int]:
    """(low, moderate, high) job counts of a node state code."""
    return code % _BASE, (code // _BASE) % _BASE, code // (_BASE * _BASE)


def _no_restrict(lo: int, mo: int, hi: int) -> bool:
    return True


def _max_one_high(lo: int, mo: int, hi: int) -> bool:
    return hi <= 1


def _high_rq_low(lo: int, mo: int, hi: int) -> bool:
    # A high job requires every other job on its node to be low.
    return hi == 0 or (hi == 1 and mo == 0)


def _max_one_hm(lo: int, mo: int, hi: int) -> bool:
    return hi + mo <= 1


#: variant -> rule on the node's (low, moderate, high) counts *after* the newcomer joins.
RESTRICTIONS: dict[str, Callable[[int, int, int], bool]] = {
    "No_Restrict": _no_restrict,
    "Max_One_High": _max_one_high,
    "High_Rq_Low": _high_rq_low,
    "Max_One_HM": _max_one_hm,
}


def allowed(restriction: str, code: int, sensitivity: int) -> bool:
    """Whether a job of ``sensitivity`` may join a node in state ``code``.

    An empty node is always allowed: restrictions only govern sharing.
    """
    counts = list(decode(code))
    if not any(counts):
        return True
    counts[sensitivity] += 1
    return RESTRICTIONS[restriction](*counts)


@dataclass(frozen=True, slots=True)
class Plan:
    """Where and how a job would run.

    Attributes:
        config: the chosen configuration.
        nodes: the nodes, in choice order.
        factor: estimated run time / base run time (1 / progress rate).
        coeffs: ``(a, b)`` of the job's factor in this configuration.
    """

    config: Configuration
    nodes: tuple[int, ...]
    factor: float
    coeffs: tuple[float, float]


class NodeBook:
    """Free cores and sensitivity classes per node, bucketed by state.

    Args:
        nodes: nodes in the machine.
        cores: cores per node.
        cap: most jobs a node may hold.
        model: the interference model (pressure and victim weights).
        restriction: the restriction variant (a key of :data:`RESTRICTIONS`).
    """

    def __init__(
        self, nodes: int, cores: int, cap: int, model: InterferenceModel, restriction: str
    ) -> None:
        if restriction not in RESTRICTIONS:
            raise ConfigError(
                f"restriction must be one of {', '.join(RESTRICTIONS)}, got {restriction!r}"
            )
        if not 1 <= cap < _BASE:
            raise ConfigError(f"max_jobs_per_node must be 1..{_BASE - 1}, got {cap}")
        self.nodes, self.cores, self.cap, self.model = nodes, cores, cap, model
        pr = model.pressure
        self.pressure_of = [
            lo * pr[0] + mo * pr[1] + hi * pr[2] for lo, mo, hi in map(decode, range(_CODES))
        ]
        self.jobs_of = [sum(decode(c)) for c in range(_CODES)]
        # ok[s][code]: may a job of class s join a node in state code (cap included).
        self.ok = [
            [self.jobs_of[c] < cap and allowed(restriction, c, s) for c in range(_CODES)]
            for s in range(3)
        ]
        self.code = [0] * nodes
        self.free = [cores] * nodes
        self.on_node: list[list[int]] = [[] for _ in range(nodes)]
        self.usable_free = nodes * cores  # free cores on nodes below the cap
        self._buckets: dict[tuple[int, int], dict[int, None]] = {
            (0, cores): dict.fromkeys(range(nodes))
        }
        self._order: list[tuple[float, int, int]] = [(0.0, cores, 0)]  # (pressure, free, code)
        #: bumped at every :meth:`add` and :meth:`remove` (a caller's caches key on it).
        self.version = 0

    # -- state changes -------------------------------------------------------------------

    def _move(self, node: int, code: int, free: int) -> None:
        old = (self.code[node], self.free[node])
        bucket = self._buckets[old]
        del bucket[node]
        if not bucket:
            del self._buckets[old]
            key = (self.pressure_of[old[0]], old[1], old[0])
            del self._order[bisect.bisect_left(self._order, key)]
        if self.jobs_of[old[0]] < self.cap:
            self.usable_free -= old[1]
        new = (code, free)
        got = self._buckets.get(new)
        if got is None:
            self._buckets[new] = got = {}
            bisect.insort(self._order, (self.pressure_of[code], free, code))
        bucket = got
        bucket[node] = None
        if self.jobs_of[code] < self.cap:
            self.usable_free += free
        self.code[node], self.free[node] = code, free

    def add(self, idx: int, nodes: Sequence[int], cores: int, sensitivity: int) -> None:
        """Record job ``idx`` of class ``sensitivity`` on ``nodes``, ``cores`` each."""
        self.version += 1
        step = _BASE**sensitivity
        for node in nodes:
            self._move(node, self.code[node] + step, self.free[node] - cores)
            self.on_node[node].append(idx)

    def remove(self, idx: int, nodes: Sequence[int], cores: int, sensitivity: int) -> None:
        """Take job ``idx`` off ``nodes``."""
        self.version += 1
        step = _BASE**sensitivity
        for node in nodes:
            self._move(node, self.code[node] - step, self.free[node] + cores)
            self.on_node[node].remove(idx)

    def empty_nodes(self) -> list[int]:
        """Nodes with no job, in bucket order."""
        return list(self._buckets.get((0, self.cores), ()))

    # -- placement -----------------------------------------------------------------------

    def co_pressure(self, nodes: Sequence[int], own: float) -> float:
        """Largest pressure of co-runners over ``nodes`` for a job exerting ``own``."""
        pressure_of, code = self.pressure_of, self.code
        return max(pressure_of[code[n]] for n in nodes) - own

    def _fit(self, sensitivity: int, need: int, cores: int) -> float | None:
        """Pressure on the worst of the best ``need`` usable nodes, or None if too few."""
        ok, buckets, got = self.ok[sensitivity], self._buckets, 0
        for pressure, free, code in self._order:
            if free >= cores and ok[code]:
                got += len(buckets[(code, free)])
                if got >= need:
                    return pressure
        return None

    def _take(self, sensitivity: int, need: int, cores: int) -> tuple[int, ...]:
        ok, buckets = self.ok[sensitivity], self._buckets
        out: list[int] = []
        for _, free, code in self._order:
            if free >= cores and ok[code]:
                out.extend(islice(buckets[(code, free)], need - len(out)))
                if len(out) == need:
                    break
        return tuple(out)

    def take(self, sensitivity: int, need: int, cores: int) -> tuple[int, ...]:
        """The ``need`` nodes a placement of ``cores`` per node for class ``sensitivity``
        takes now (the best first; fewer if too few are usable)."""
        return self._take(sensitivity, need, cores)

    def fits(
        self, sensitivity: int, configs: Sequence[Configuration]
    ) -> Sequence[tuple[int, float]]:
        """``(k, pressure)`` for each configuration ``configs[k]`` that fits now, with the
        pressure on the worst of its best nodes (in ``configs`` order)."""
        out = []
        for k, cfg in enumerate(configs):
            pressure = self._fit(sensitivity, cfg.nodes, cfg.cores)
            if pressure is not None:
                out.append((k, pressure))
        return out

    def best(
        self,
        sensitivity: int,
        configs: Sequence[Configuration],
        coeffs: Sequence[tuple[float, float]],
    ) -> Plan | None:
        """The fastest placement of a job over ``configs`` (Algorithm 1), or None."""
        victim = self.model.victim[sensitivity]
        best_k, best_factor = -1, float("inf")
        for k, pressure in self.fits(sensitivity, configs):
            a, b = coeffs[k]
            factor = a * (1.0 + victim * pressure) + b
            if factor < best_factor:
                best_k, best_factor = k, factor
        if best_k < 0:
            return None
        cfg = configs[best_k]
        nodes = self._take(sensitivity, cfg.nodes, cfg.cores)
        return Plan(cfg, nodes, best_factor, coeffs[best_k])

    def blocked_by_capacity(self, configs: Sequence[Configuration]) -> bool:
        """Whether too few cores are free in total for any configuration (else fragmentation).

        Only cores on nodes below the job cap count; restrictions count as fragmentation
        (the cores exist but not in usable form).
        """
        need = min(c.nodes * c.cores for c in configs)
        return self.usable_free < need
