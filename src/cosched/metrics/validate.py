"""How closely a simulated schedule matches the recorded one, as functions of two tables.

Both tables are per-job outcome tables (``job_id, submit_time, start_time, end_time,
procs, run_time``) of the same jobs in the same order: the ``recorded`` policy's replay
and a simulated policy's run. :func:`compare_schedules` gives the numbers of
``cosched validate``; :func:`binned_level` the utilization and queue length over time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from cosched.errors import ConfigError
from cosched.metrics.summary import JobClasses, summarize

__all__ = ["ScheduleComparison", "binned_level", "compare_schedules", "over_time", "peak_level"]


@dataclass(frozen=True)
class ScheduleComparison:
    """The recorded schedule beside a simulated one.

    Attributes:
        recorded: summary metrics of the recorded schedule (per class included).
        simulated: the same metrics of the simulated schedule.
        ks_statistic: two-sample Kolmogorov-Smirnov statistic between the two wait
            distributions (0: identical, 1: disjoint).
        ks_pvalue: its p-value (scipy's ``ks_2samp``, two-sided).
        within_share: share of jobs whose simulated start is within ``within`` seconds
            of the recorded one.
        within: that tolerance in seconds.
    """

    recorded: dict[str, float]
    simulated: dict[str, float]
    ks_statistic: float
    ks_pvalue: float
    within_share: float
    within: float


def compare_schedules(
    recorded: pd.DataFrame,
    simulated: pd.DataFrame,
    *,
    capacity: int,
    capacity_procs: int | None = None,
    classes: JobClasses | None = None,
    within: float = 3600.0,
) -> ScheduleComparison:
    """Compare two outcome tables of the same jobs.

    Raises:
        ConfigError: the tables do not hold the same jobs in the same order.
    """
    if len(recorded) != len(simulated) or not np.array_equal(
        recorded["job_id"].to_numpy(), simulated["job_id"].to_numpy()
    ):
        raise ConfigError("the recorded and simulated schedules do not hold the same jobs")
    if len(recorded) == 0:
        raise ConfigError("no job to compare")
    classes = classes or JobClasses()
    kw = {"capacity": capacity, "capacity_procs": capacity_procs, "classes": classes}
    rec_wait = (recorded["start_time"] - recorded["submit_time"]).to_numpy()
    sim_wait = (simulated["start_time"] - simulated["submit_time"]).to_numpy()
    ks = stats.ks_2samp(rec_wait, sim_wait)
    gap = np.abs(simulated["start_time"].to_numpy() - recorded["start_time"].to_numpy())
    return ScheduleComparison(
        recorded=summarize(recorded, **kw),  # type: ignore[arg-type]
        simulated=summarize(simulated, **kw),  # type: ignore[arg-type]
        ks_statistic=float(ks.statistic),
        ks_pvalue=float(ks.pvalue),
        within_share=float((gap <= within).mean()),
        within=within,
    )


def binned_level(
    begin: np.ndarray, end: np.ndarray, weight: np.ndarray, edges: np.ndarray
) -> np.ndarray:
    """Time-average, over each bin of ``edges``, of sum(weight) over intervals [begin, end).

    Exact for the step function (no sampling): the running level is integrated between
    events and the integral read at the bin edges.
    """
    times = np.concatenate([begin, end]).astype(np.float64)
    deltas = np.concatenate([weight, -weight]).astype(np.float64)
    order = np.argsort(times, kind="stable")
    times, deltas = times[order], deltas[order]
    level = np.cumsum(deltas)  # level from times[k] on
    area = np.concatenate([[0.0], np.cumsum(level[:-1] * np.diff(times))])  # at times[k]
    k = np.searchsorted(times, edges, side="right") - 1
    inside = k >= 0
    kk = np.clip(k, 0, None)
    at_edges = np.where(inside, area[kk] + level[kk] * (edges - times[kk]), 0.0)
    return np.diff(at_edges) / np.diff(edges)


def peak_level(begin: np.ndarray, end: np.ndarray, weight: np.ndarray) -> float:
    """Largest sum of ``weight`` over intervals [begin, end) open at once (an interval
    ending at t does not overlap one starting at t)."""
    if len(begin) == 0:
        return 0.0
    times = np.concatenate([begin, end]).astype(np.float64)
    deltas = np.concatenate([weight, -np.asarray(weight)]).astype(np.float64)
    order = np.lexsort((deltas, times))  # at a tie, ends (negative) first
    return float(np.cumsum(deltas[order]).max())


def over_time(jobs: pd.DataFrame, capacity_procs: int, edges: np.ndarray) -> pd.DataFrame:
    """Per bin: ``utilization`` (busy processors / capacity) and ``queue`` (mean jobs
    waiting), from an outcome table."""
    procs = jobs["procs"].to_numpy(dtype=np.float64)
    busy = binned_level(jobs["start_time"].to_numpy(), jobs["end_time"].to_numpy(), procs, edges)
    ones = np.ones(len(jobs))
    queue = binned_level(jobs["submit_time"].to_numpy(), jobs["start_time"].to_numpy(), ones, edges)
    return pd.DataFrame({"start": edges[:-1], "utilization": busy / capacity_procs, "queue": queue})
