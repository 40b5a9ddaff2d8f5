"""Node-busy seconds in one pass over a run's placements, compiled ahead of time.

:func:`node_busy` is :func:`cosched.metrics.summary.node_busy_seconds` for the common
case: placement entries whose jobs are in start order, with finite times that do not
run backwards, on nodes numbered from 0. It adds the same numbers in the same order
(each node's merged intervals, nodes in order of first appearance), so the sum is the
same double. The module is plain Python (it imports no numba); the ``busy`` group
declared here compiles :func:`node_busy` ahead of time (:mod:`cosched.compile`), and
:func:`~cosched.metrics.summary.node_busy_seconds` calls it only when that module is
built (it builds it for a run of :data:`BUILD_FROM` placement entries or more), else
its numpy form.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from cosched.compile import Group, register

__all__ = ["BUILD_FROM", "GROUP", "SIGNATURES", "UNSUITED", "node_busy", "self_check"]

#: What :func:`node_busy` returns when its entries are not the case it handles (jobs
#: out of start order, a time not finite, an end before its start): never a sum.
UNSUITED = -1.0


def node_busy(
    start: np.ndarray, end: np.ndarray, job_of: np.ndarray, nodes: np.ndarray, ids: int
) -> float:
    """Seconds during which each node held at least one job, summed over nodes.

    Args:
        start, end: each job's start and end.
        job_of, nodes: each placement entry's job and node, entries in the jobs' start
            order.
        ids: a bound on the node numbers (every node is in ``[0, ids)``).

    Returns:
        The sum, or :data:`UNSUITED` when the entries are not in start order or a time
        is not finite or runs backwards.
    """
    m = nodes.size
    rank = np.full(ids, -1, dtype=np.int64)  # each node's rank of first appearance
    ranked = 0
    for i in range(m):
        nd = nodes[i]
        if rank[nd] < 0:
            rank[nd] = ranked
            ranked += 1
    # Each node's slots for its merged intervals: at most one per entry, laid out node
    # after node in rank order (the order in which they are added up).
    first = np.zeros(ranked + 1, dtype=np.int64)
    for i in range(m):
        first[rank[nodes[i]] + 1] += 1
    for r in range(ranked):
        first[r + 1] += first[r]
    used = first[:ranked].copy()  # each node's next free slot
    lengths = np.empty(max(m, 1))
    lo = np.empty(ranked)  # each node's open interval
    hi = np.empty(ranked)
    opened = np.zeros(ranked, dtype=np.bool_)
    last = -np.inf
    for i in range(m):
        j = job_of[i]
        s = start[j]
        e = end[j]
        if not (np.isfinite(s) and np.isfinite(e)) or e < s or s < last:
            return UNSUITED
        last = s
        r = rank[nodes[i]]
        if not opened[r]:
            opened[r] = True
            lo[r] = s
            hi[r] = e
        elif s > hi[r]:  # a gap: the open interval ends
            lengths[used[r]] = hi[r] - lo[r]
            used[r] += 1
            lo[r] = s
            hi[r] = e
        elif e > hi[r]:
            hi[r] = e
    total = 0.0
    for r in range(ranked):
        lengths[used[r]] = hi[r] - lo[r]
        used[r] += 1
        for q in range(first[r], used[r]):
            total += lengths[q]
    return total


# -- compiled ahead of time (cosched.compile) --------------------------------------------

SIGNATURES = {"node_busy": "f8(f8[::1], f8[::1], i8[::1], i8[::1], i8)"}

#: The node-busy sum, built as one module.
GROUP = Group("busy", "_cosched_busy", (__name__,), f"{__name__}:self_check")
register(GROUP)

#: Placement entries from which a run's summary builds the module when it is missing:
#: the numpy form spends 13-18 ms on KTH-SP2 LOMARC's 218,025 entries, the compiled
#: one 5 ms (docs/performance.md); the build, 13.8 s once per machine (on the 2-core
#: development machine, shared).
BUILD_FROM = 100_000


def self_check(module: ModuleType) -> None:
    """The compiled node-busy sum gives its source's results on small cases."""
    # Three jobs on nodes 2 and 0: node 2 busy over [0, 7] and [9.5, 12], node 0 over
    # [1, 7]; then a job out of start order (not the kernel's case).
    start, end = np.array([0.0, 1.0, 9.5]), np.array([5.0, 7.0, 12.0])
    cases = (
        (np.array([0, 1, 1, 2]), np.array([2, 2, 0, 2]), 15.5),
        (np.array([1, 0]), np.array([0, 2]), -1.0),
    )
    for job_of, nodes, want in cases:
        got = module.node_busy(start, end, job_of, nodes, 3)
        if not got == node_busy(start, end, job_of, nodes, 3) == want:
            raise RuntimeError("the compiled node-busy sum differs from its source")
