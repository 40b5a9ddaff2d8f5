"""A reference implementation of the node book with buckets in a dict, their order in a
sorted list, kept to check the array version against: a straightforward reference for
the differential tests of :class:`cosched.nodeshare.placement.NodeBook` (same fits,
nodes and plans); and :func:`place_on_both`, one step of such a test."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from itertools import islice
from typing import Any

from cosched.nodeshare.configurations import Configuration
from cosched.nodeshare.interference import InterferenceModel
from cosched.nodeshare.placement import _BASE, NodeBook, Plan


class ReferenceBook:
    """Free cores and sensitivity classes per node, bucketed by state; built from the
    arguments of :class:`NodeBook` (``pad`` aside)."""

    def __init__(
        self, nodes: int, cores: int, cap: int, model: InterferenceModel, restriction: str
    ) -> None:
        NodeBook._rules(self, nodes, cores, cap, model, restriction)  # type: ignore[arg-type]
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
        """Algorithm 1's choice as a plain Python loop (the book calls the kernel
        ``choose``): the smallest factor, the first on ties."""
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

    # The capacity test reads the book only through usable_free: the book's own code
    # serves both books.
    blocked_by_capacity = NodeBook.blocked_by_capacity

    def first_node(self, sensitivity: int, cores: int) -> int:
        """The node a placement of ``cores`` per node takes first, or -1."""
        got = self._take(sensitivity, 1, cores)
        return got[0] if got else -1


def place_on_both(
    book: Any,
    other: Any,
    idx: int,
    cls: int,
    configs: Sequence[Configuration],
    coeffs: Sequence[tuple[float, float]],
    running: list[tuple[int, tuple[int, ...], int, int]],
    asks: int = 1,
) -> None:
    """Job ``idx`` of class ``cls`` asked of two books ``asks`` times (``book`` first):
    both must give the same fits and best placement over ``configs``; that placement
    is made on both and its ``(job, nodes, cores, class)`` appended to ``running``."""
    want = None
    for _ in range(asks):
        assert list(book.fits(cls, configs)) == list(other.fits(cls, configs))
        got, want = book.best(cls, configs, coeffs), other.best(cls, configs, coeffs)
        assert got == want
    if want is not None:
        book.add(idx, want.nodes, want.config.cores, cls)
        other.add(idx, want.nodes, want.config.cores, cls)
        running.append((idx, want.nodes, want.config.cores, cls))
