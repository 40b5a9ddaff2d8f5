"""Which jobs of a placement-aware run shared a node with another job.

A job *shared a node* when, for some positive length of time while it ran, another job
held a slot on one of its nodes. The measure tells the mechanisms apart in a comparison
(``cosched compare``): node sharing that really co-located jobs, LOMARC's pairs on a
processor, against a run where a family's gain came from something else (a job run
on fewer processors, or never beside another job at all).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["placement_columns", "shared_node"]


def placement_columns(
    jobs: pd.DataFrame, placements: Mapping[int, Sequence[tuple[int, int]]]
) -> dict[str, np.ndarray]:
    """Per-job columns of a placement-aware run: ``shared_node`` (:func:`shared_node`)
    and ``nodes_used``, the number of distinct nodes the job ran on (0 for a job
    without a placement)."""
    start = jobs["start_time"].to_numpy(dtype=float)
    end = jobs["end_time"].to_numpy(dtype=float)
    used = np.zeros(len(jobs), dtype=np.int64)
    for i, placement in placements.items():
        used[i] = len({node for node, _ in placement})
    return {"shared_node": shared_node(start, end, placements), "nodes_used": used}


def shared_node(
    start: np.ndarray,
    end: np.ndarray,
    placements: Mapping[int, Sequence[tuple[int, int]]],
) -> np.ndarray:
    """Per job (by index), whether another job held a slot on one of its nodes during
    an interval of positive length while it ran.

    Two runs on a node overlap when one starts strictly before the other ends (an end
    and a start at one instant do not). On each node, with the intervals sorted by
    start, interval ``k`` overlaps an earlier one exactly when the largest end before it
    exceeds its start, and a later one exactly when the next start is before its end.

    Args:
        start, end: each job's start and end times (job index ``i`` at position ``i``).
        placements: ``{job index: ((node, slots), ...)}`` of a placement-aware run.
    """
    out = np.zeros(len(start), dtype=bool)
    owners = list(placements)
    counts = [len(placements[i]) for i in owners]
    nodes = np.fromiter(
        (node for i in owners for node, _ in placements[i]), dtype=np.int64, count=sum(counts)
    )
    if nodes.size == 0:
        return out
    job = np.repeat(np.asarray(owners, dtype=np.int64), counts)
    s = np.asarray(start, dtype=float)[job]
    e = np.asarray(end, dtype=float)[job]
    run = e > s  # an instant overlaps nothing for a positive length of time
    nodes, s, e, job = nodes[run], s[run], e[run], job[run]
    if nodes.size == 0:
        return out
    o = np.lexsort((e, s, nodes))
    g, s, e, job = nodes[o] - nodes.min(), s[o], e[o], job[o]
    n = e.size
    # The running maximum of the ends within each node, exactly: the maximum of
    # node x n + rank of the end, read back as the end it ranks.
    by_end = np.argsort(e, kind="stable")
    erank = np.empty(n, dtype=np.int64)
    erank[by_end] = np.arange(n)
    hi = e[by_end][np.maximum.accumulate(g * n + erank) - g * n]
    same_prev = np.zeros(n, dtype=bool)
    same_prev[1:] = g[1:] == g[:-1]
    before = np.zeros(n, dtype=bool)
    before[1:] = same_prev[1:] & (hi[:-1] > s[1:])
    after = np.zeros(n, dtype=bool)
    after[:-1] = same_prev[1:] & (s[1:] < e[:-1])
    out[job[before | after]] = True
    return out
