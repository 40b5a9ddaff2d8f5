"""Checks of a finished schedule that do not trust the engine.

:func:`verify_schedule` rebuilds machine usage from the outcome table alone and
raises :class:`~cosched.errors.InvariantError` on the first broken rule, naming the
job and the time. Tests run it on every policy over random workloads.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from cosched.engine.ledger import Placement
from cosched.errors import InvariantError
from cosched.platform import Platform

__all__ = ["peak_usage", "verify_placements", "verify_schedule", "verify_unavailability"]


def peak_usage(jobs: pd.DataFrame) -> tuple[int, float]:
    """The most units in use at once, and the first time it happens.

    A job holds its units over ``[start, end)``: at equal times releases come first.
    """
    starts = jobs["start_time"].to_numpy()
    ends = jobs["end_time"].to_numpy()
    size = jobs["size"].to_numpy()
    times = np.concatenate([ends, starts])
    delta = np.concatenate([-size, size])
    kind = np.concatenate([np.zeros(len(ends)), np.ones(len(starts))])
    order = np.lexsort((kind, times))
    usage = np.cumsum(delta[order])
    if usage.size == 0:
        return 0, 0.0
    k = int(np.argmax(usage))
    return int(usage[k]), float(times[order][k])


def verify_schedule(
    jobs: pd.DataFrame, *, capacity: int, exact_rates: bool = True, tol: float = 1e-6
) -> None:
    """Raise InvariantError unless the schedule is feasible.

    Rules: every job has one finite start and end; no job starts before it is
    submitted; end >= start; with ``exact_rates`` (every rate 1.0), end - start equals
    the run time; units in use never exceed ``capacity``.
    """
    start = jobs["start_time"].to_numpy()
    end = jobs["end_time"].to_numpy()
    ids = jobs["job_id"].to_numpy()
    if jobs["job_id"].duplicated().any():
        raise InvariantError(f"job ids appear twice: {ids[jobs['job_id'].duplicated()][:5]}")
    _first_bad(~np.isfinite(start) | ~np.isfinite(end), ids, "never started or never ended")
    _first_bad(start < jobs["submit_time"].to_numpy() - tol, ids, "started before submission")
    _first_bad(end < start - tol, ids, "ended before it started")
    if exact_rates:
        run = jobs["run_time"].to_numpy()
        _first_bad(
            np.abs((end - start) - run) > tol * np.maximum(1.0, run),
            ids,
            "ran for other than its run time at rate 1",
        )
    peak, when = peak_usage(jobs)
    if peak > capacity:
        raise InvariantError(f"t={when:g}: {peak} units in use, capacity {capacity}")


def verify_unavailability(jobs: pd.DataFrame, platform: Platform) -> None:
    """Raise InvariantError if a job starts on capacity the platform's unavailability
    intervals remove (:attr:`Platform.unavailable
    <cosched.platform.machine.Platform.unavailable>`).

    A job starting at ``t`` needs its units free after the removed ones are out: the
    units in use just after ``t`` (jobs with ``start <= t < end``) are at most the
    capacity less :meth:`Platform.removed_at(t) <cosched.platform.machine.Platform.removed_at>`.
    Rebuilt from the outcome table alone.
    """
    start = jobs["start_time"].to_numpy(dtype=np.float64)
    end = jobs["end_time"].to_numpy(dtype=np.float64)
    size = jobs["size"].to_numpy(dtype=np.int64)
    times, removed = platform.unavailability_steps()
    for t in np.unique(start):
        used = int(size[(start <= t) & (end > t)].sum())
        k = int(np.searchsorted(times, t, side="right")) - 1
        room = platform.capacity - (int(removed[k]) if k >= 0 else 0)
        if used > room:
            raise InvariantError(
                f"t={t:g}: a job started with {used} units in use, {room} of the machine's "
                f"{platform.capacity} available (the rest unavailable)"
            )


def verify_placements(
    jobs: pd.DataFrame, placements: Mapping[int, Placement], platform: Platform
) -> None:
    """Raise InvariantError if a node ever holds more slots or jobs than it has.

    Rebuilds each node's use over time from the outcome table (row ``i`` is the job of
    index ``i``) and the recorded placements alone: a job holds its slots over
    ``[start, end)``; a node has ``cores x mpl`` slots and takes at most
    ``max_jobs_per_node`` jobs (every slot a job, when there is no cap).
    """
    slots_per_node = platform.cores * platform.mpl
    cap = platform.max_jobs_per_node or slots_per_node
    start = jobs["start_time"].to_numpy()
    end = jobs["end_time"].to_numpy()
    events: dict[int, list[tuple[float, int, int, int]]] = {}
    for idx, placement in placements.items():
        for node, slots in placement:
            if not 0 <= node < platform.nodes:
                raise InvariantError(f"job index {idx} placed on node {node}, which does not exist")
            node_events = events.setdefault(node, [])
            node_events.append((float(end[idx]), 0, -slots, -1))
            node_events.append((float(start[idx]), 1, slots, 1))
    for node, node_events in events.items():
        used = held = 0
        for t, _, slots, jobs_delta in sorted(node_events):
            used += slots
            held += jobs_delta
            if used > slots_per_node or held > cap:
                raise InvariantError(
                    f"t={t:g}: node {node} holds {used} slots of {slots_per_node} and "
                    f"{held} jobs (cap {cap})"
                )


def _first_bad(mask: np.ndarray, ids: np.ndarray, what: str) -> None:
    if mask.any():
        raise InvariantError(f"job {int(ids[np.argmax(mask)])} {what}")
