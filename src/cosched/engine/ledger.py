"""Which job holds which slots on which node, for families that place jobs on nodes.

A node has ``cores x mpl`` *slots* (``mpl`` is the multiprogramming level: hardware
threads or time shares per core) and at most ``max_jobs_per_node`` jobs. A placement
is a tuple of ``(node, slots)`` pairs. The ledger also answers the count view the
batch policies use: free units are *empty nodes* in node allocation (a count-based job
takes whole nodes to itself) and free slots in core allocation.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from cosched.platform import Allocation, Platform

__all__ = ["NodeLedger", "Placement", "Placements"]

Placement = tuple[tuple[int, int], ...]


class Placements(Mapping[int, Placement]):
    """Where each job of a run ran, ``{job index: ((node, slots), ...)}`` in start
    order, kept as flat arrays: a compiled loop's result (:mod:`cosched.engine.fastpath`).

    A job's tuple is built when it is read; the first read of every job (``items()``,
    ``values()``, equality) builds them all once. :meth:`entries` hands the arrays to
    readers that want them flat (the node-busy utilization,
    :func:`cosched.metrics.summary.node_busy_seconds`), so a run that only measures
    builds no tuple. Rejected: building the dict of tuples after every compiled run
    (what the general loop's ledger holds): for KTH-SP2's 28,467 jobs under LOMARC that
    cost about 50 ms, then as much again to flatten it back for the metric.

    Args:
        jobs: the job indices in start order.
        bounds: ``jobs[i]``'s entries are ``nodes[bounds[i]:bounds[i + 1]]`` (length
            ``len(jobs) + 1``).
        nodes: each entry's node.
        slots: each entry's slots.
    """

    __slots__ = ("_dict", "_jobs", "bounds", "nodes", "slots")

    def __init__(
        self, jobs: ArrayLike, bounds: ArrayLike, nodes: ArrayLike, slots: ArrayLike
    ) -> None:
        self._jobs = np.asarray(jobs, dtype=np.int64)
        self.bounds = np.asarray(bounds, dtype=np.int64)
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.slots = np.asarray(slots, dtype=np.int64)
        self._dict: dict[int, Placement] | None = None

    def entries(self) -> tuple[np.ndarray, np.ndarray]:
        """Each entry's job and node (in start order, a job's entries together)."""
        return np.repeat(self._jobs, np.diff(self.bounds)), self.nodes

    def _built(self) -> dict[int, Placement]:
        got = self._dict
        if got is None:
            pairs = list(zip(self.nodes.tolist(), self.slots.tolist(), strict=True))
            b = self.bounds.tolist()
            got = self._dict = {
                j: tuple(pairs[b[i] : b[i + 1]]) for i, j in enumerate(self._jobs.tolist())
            }
        return got

    def __getitem__(self, job: int) -> Placement:
        return self._built()[job]

    def __iter__(self) -> Iterator[int]:
        return iter(self._jobs.tolist())

    def __len__(self) -> int:
        return int(self._jobs.size)

    def __repr__(self) -> str:
        return f"Placements({self._built()!r})"

    def __reduce__(self) -> tuple[type[Placements], tuple[np.ndarray, ...]]:
        return (Placements, (self._jobs, self.bounds, self.nodes, self.slots))


class NodeLedger:
    """Slots and jobs per node; checks and applies placements."""

    __slots__ = (
        "_by_node",
        "_empty",
        "_free",
        "_placed",
        "_total_free",
        "allocation",
        "max_jobs",
        "slots_per_node",
    )

    def __init__(self, platform: Platform) -> None:
        n = platform.nodes
        self.slots_per_node = platform.cores * platform.mpl
        self.max_jobs = platform.max_jobs_per_node or self.slots_per_node
        self.allocation = platform.allocation
        self._free = [self.slots_per_node] * n
        self._by_node: list[list[int]] = [[] for _ in range(n)]
        self._placed: dict[int, Placement] = {}
        self._empty = n
        self._total_free = n * self.slots_per_node

    # -- queries -------------------------------------------------------------------------

    @property
    def nodes(self) -> int:
        """Number of nodes."""
        return len(self._free)

    @property
    def free_units(self) -> int:
        """Units a count-based start can take: empty nodes, or usable free slots."""
        return self._empty if self.allocation is Allocation.NODES else self._total_free

    def free_slots(self, node: int) -> int:
        """Free slots on ``node``."""
        return self._free[node]

    def jobs_on(self, node: int) -> tuple[int, ...]:
        """Indices of the jobs placed on ``node``, in placement order."""
        return tuple(self._by_node[node])

    def empty_nodes(self) -> list[int]:
        """The nodes that hold no job, lowest-numbered first."""
        return [node for node, jobs in enumerate(self._by_node) if not jobs]

    def placement(self, idx: int) -> Placement:
        """Where job ``idx`` is placed (empty if it is not)."""
        return self._placed.get(idx, ())

    def problem(self, placement: Sequence[tuple[int, int]]) -> str | None:
        """Why ``placement`` cannot be applied now, or None if it can."""
        if not placement:
            return "empty placement"
        free, by_node, cap = self._free, self._by_node, self.max_jobs
        nodes = len(free)
        seen: set[int] = set()
        for node, slots in placement:
            if not 0 <= node < nodes:
                return f"node {node} does not exist"
            if node in seen:
                return f"node {node} appears twice"
            seen.add(node)
            if slots < 1:
                return f"takes {slots} slots on node {node}"
            if slots > free[node]:
                return f"node {node} has {free[node]} free slots, {slots} asked"
            if len(by_node[node]) >= cap:
                return f"node {node} already runs {cap} jobs (the cap)"
        return None

    def verify(self) -> str | None:
        """Recount everything from the placements; a description of the first mismatch."""
        used = [0] * len(self._free)
        count = [0] * len(self._free)
        for placement in self._placed.values():
            for node, slots in placement:
                used[node] += slots
                count[node] += 1
        for node, free in enumerate(self._free):
            if used[node] + free != self.slots_per_node or free < 0:
                return f"node {node}: {used[node]} slots used + {free} free"
            if count[node] > self.max_jobs or count[node] != len(self._by_node[node]):
                return f"node {node}: {count[node]} jobs (cap {self.max_jobs})"
        return None

    # -- changes -------------------------------------------------------------------------

    def place(self, idx: int, placement: Placement) -> None:
        """Give job ``idx`` its slots (call :meth:`problem` first)."""
        self._change(idx, placement, True)
        self._placed[idx] = placement

    def release(self, idx: int) -> Placement:
        """Take job ``idx``'s slots back; returns its placement."""
        placement = self._placed.pop(idx)
        self._change(idx, placement, False)
        return placement

    def _change(self, idx: int, placement: Placement, joins: bool) -> None:
        """Job ``idx`` joins (or leaves) the nodes of ``placement``. The total of usable
        free slots counts a node's free slots only while it is below the job cap."""
        free, by_node, cap = self._free, self._by_node, self.max_jobs
        total, empty = self._total_free, self._empty
        for node, slots in placement:
            jobs = by_node[node]
            left = free[node]
            before = len(jobs)
            if before < cap:
                total -= left
            if joins:
                if not before:
                    empty -= 1
                jobs.append(idx)
                left -= slots
                after = before + 1
            else:
                jobs.remove(idx)
                after = before - 1
                if not after:
                    empty += 1
                left += slots
            free[node] = left
            if after < cap:
                total += left
        self._total_free, self._empty = total, empty

    def first_fit(self, units: int) -> Placement:
        """A placement for a count-based job of ``units`` (see the module docstring).

        Node allocation: the lowest-numbered empty nodes, all slots. Core allocation:
        slots packed onto the lowest-numbered nodes that can still take a job.
        """
        out: list[tuple[int, int]] = []
        if self.allocation is Allocation.NODES:
            for node, jobs in enumerate(self._by_node):
                if not jobs:
                    out.append((node, self.slots_per_node))
                    if len(out) == units:
                        break
        else:
            left = units
            for node, free in enumerate(self._free):
                if free and len(self._by_node[node]) < self.max_jobs:
                    take = min(free, left)
                    out.append((node, take))
                    left -= take
                    if not left:
                        break
        return tuple(out)
