"""The numbers of a comparison, as pure functions of per-job tables and result rows.

Nothing here runs a simulation: the report is rebuilt from the store alone.

* :func:`ci95`: mean and the half-width of its 95% confidence interval over seeds
  (Student's t with n - 1 degrees of freedom); one run gives a half-width of 0 and is
  marked as such (a deterministic policy has nothing to vary);
* :func:`summary_table`: per policy, the mean over seeds of each metric with its CI;
* :func:`over_time`: utilization and queue length on a time grid;
* :func:`job_ratios`: per job, turnaround under a policy over turnaround under the
  reference, with the job's class;
* :func:`busiest_day`: the 24-hour window with the most busy unit-seconds;
* :func:`break_even`: where a curve crosses a level (linear interpolation).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from cosched.metrics.summary import JobClasses, outcomes

__all__ = [
    "SUMMARY_METRICS",
    "break_even",
    "busiest_day",
    "ci95",
    "job_ratios",
    "over_time",
    "summary_table",
]

#: (metric key, label, unit) of the summary table, in order.
SUMMARY_METRICS: tuple[tuple[str, str, str], ...] = (
    ("mean_wait", "mean wait", "h"),
    ("median_wait", "median wait", "h"),
    ("p95_wait", "95th pct wait", "h"),
    ("mean_turnaround", "mean turnaround", "h"),
    ("median_turnaround", "median turnaround", "h"),
    ("p95_turnaround", "95th pct turnaround", "h"),
    ("mean_bounded_slowdown", "mean bounded slowdown", ""),
    ("median_bounded_slowdown", "median bounded slowdown", ""),
    ("p95_bounded_slowdown", "95th pct bounded slowdown", ""),
    ("utilization", "utilization", ""),
    ("throughput", "throughput", "jobs/h"),
)


def ci95(values: Sequence[float]) -> tuple[float, float, int]:
    """``(mean, half-width of the 95% CI, n)`` over seeds (half-width 0 when n == 1):
    :func:`cosched.experiments.stats.mean_ci` with a zero interval for one run."""
    from cosched.experiments.stats import mean_ci

    ci = mean_ci([v for v in values if v is not None])
    return ci.mean, (0.0 if ci.n == 1 else ci.half), ci.n


def summary_table(results: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Per arm (rows in ``order``): ``<metric>``, ``<metric>_ci`` and ``seeds``.

    Args:
        results: one row per finished run: ``arm`` (or ``policy``) and the metrics.
        order: the arms, in the order to show them.
    """
    col = "arm" if "arm" in results else "policy"
    rows = []
    for policy in order:
        part = results[results[col] == policy]
        row: dict[str, float | str] = {"policy": policy, "seeds": float(len(part))}
        for key, _, _ in SUMMARY_METRICS:
            if key not in part:
                continue
            mean, half, _ = ci95(part[key].tolist())
            row[key], row[f"{key}_ci"] = mean, half
        rows.append(row)
    return pd.DataFrame(rows)


def over_time(
    jobs: pd.DataFrame, capacity: float, *, points: int = 200
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, utilization, queued jobs)`` over ``points`` equal bins from the first submit
    to the last end: ``t`` is each bin's middle, utilization the bin's mean (busy
    unit-seconds in the bin over ``capacity`` x its length, counting what each job holds:
    ``occupancy`` when the run recorded it, else ``size``), queued jobs at its middle.
    """
    submit = jobs["submit_time"].to_numpy(dtype=float)
    start = jobs["start_time"].to_numpy(dtype=float)
    end = jobs["end_time"].to_numpy(dtype=float)
    held = (jobs["occupancy"] if "occupancy" in jobs else jobs["size"]).to_numpy(dtype=float)
    edges = np.linspace(submit.min(), end.max(), points + 1)
    t = (edges[:-1] + edges[1:]) / 2
    queued = np.searchsorted(np.sort(submit), t, side="right") - np.searchsorted(
        np.sort(start), t, side="right"
    )
    # Busy unit-seconds before each edge: sum of held x (time run by then), in chunks.
    area = np.zeros(len(edges))
    for k in range(0, len(jobs), 20_000):
        s, e, h = start[k : k + 20_000], end[k : k + 20_000], held[k : k + 20_000]
        ran = np.clip(edges[:, None] - s[None, :], 0.0, (e - s)[None, :])
        area += ran @ h
    width = np.diff(edges)
    util = np.diff(area) / (capacity * np.where(width > 0, width, 1.0))
    return t, util, queued.astype(float)


def job_ratios(
    jobs: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    capacity_procs: int,
    classes: JobClasses,
    tau: float = 10.0,
) -> pd.DataFrame:
    """Per job: ``ratio`` = turnaround under ``jobs`` / under ``reference``, with classes.

    Both tables must hold the same jobs (matched by ``job_id``).
    """
    a = outcomes(jobs, tau=tau).set_index("job_id")
    b = outcomes(reference, tau=tau).set_index("job_id").loc[a.index]
    labels = classes.label(a["procs"].to_numpy(), a["run_time"].to_numpy(), capacity_procs)
    out = pd.DataFrame(
        {
            "ratio": a["turnaround"].to_numpy() / np.maximum(b["turnaround"].to_numpy(), 1e-9),
            "duration_class": labels["duration_class"].to_numpy(),
            "width_class": labels["width_class"].to_numpy(),
        },
        index=a.index,
    )
    return out


def winners_losers(ratios: pd.DataFrame, *, margin: float = 0.05) -> pd.DataFrame:
    """Per class: jobs, share faster (ratio < 1 - margin), share slower (> 1 + margin),
    median ratio."""
    g = ratios.groupby(["duration_class", "width_class"], observed=False)["ratio"]
    table = pd.DataFrame(
        {
            "jobs": g.size(),
            "faster": g.apply(lambda r: float((r < 1 - margin).mean()) if len(r) else math.nan),
            "slower": g.apply(lambda r: float((r > 1 + margin).mean()) if len(r) else math.nan),
            "median_ratio": g.median(),
        }
    )
    return table.reset_index()


def busiest_day(jobs: pd.DataFrame, *, length: float = 86400.0) -> tuple[float, float]:
    """The ``length``-second window (starting at a job start) with the most busy
    unit-seconds inside it; the whole schedule if it is shorter."""
    start = jobs["start_time"].to_numpy(dtype=float)
    end = jobs["end_time"].to_numpy(dtype=float)
    held = (jobs["occupancy"] if "occupancy" in jobs else jobs["size"]).to_numpy(dtype=float)
    lo, hi = float(start.min()), float(end.max())
    if hi - lo <= length:
        return lo, hi
    candidates = np.unique(start)
    if len(candidates) > 2000:  # a coarse grid is enough to find the busiest day
        candidates = np.linspace(lo, hi - length, 2000)
    best, best_t = -1.0, lo
    for t0 in candidates:
        t1 = t0 + length
        area = float((held * np.clip(np.minimum(end, t1) - np.maximum(start, t0), 0, None)).sum())
        if area > best:
            best, best_t = area, float(t0)
    return best_t, best_t + length


def break_even(xs: Sequence[float], ys: Sequence[float], level: float) -> float | None:
    """The first x at which the piecewise-linear curve (xs, ys) crosses ``level``
    (None if it never does)."""
    for (x0, y0), (x1, y1) in zip(
        zip(xs, ys, strict=True), zip(xs[1:], ys[1:], strict=True), strict=False
    ):
        if (y0 - level) == 0:
            return float(x0)
        if (y0 - level) * (y1 - level) < 0:
            return float(x0 + (level - y0) * (x1 - x0) / (y1 - y0))
    if ys and ys[-1] == level:
        return float(xs[-1])
    return None


def class_means(
    tables: Mapping[str, Sequence[pd.DataFrame]],
    *,
    capacity_procs: int,
    classes: JobClasses,
    tau: float = 10.0,
) -> pd.DataFrame:
    """Mean turnaround and bounded slowdown per policy and class, pooled over seeds."""
    from cosched.metrics.summary import by_class

    rows = []
    for policy, runs in tables.items():
        parts = [by_class(j, capacity_procs=capacity_procs, tau=tau, classes=classes) for j in runs]
        t = pd.concat(parts).groupby(["duration_class", "width_class"], observed=False)
        mean = t[["mean_wait_time", "mean_turnaround", "mean_bounded_slowdown"]].mean()
        mean["jobs"] = t["jobs"].mean()
        mean = mean.reset_index()
        mean.insert(0, "policy", policy)
        rows.append(mean)
    return pd.concat(rows, ignore_index=True)
