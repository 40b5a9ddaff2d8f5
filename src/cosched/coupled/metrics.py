"""Metrics of a coupled run (section V-C of the coupled-systems paper).

Per machine, on the job table of :meth:`Domain.finish`:

* the core schedule metrics of :func:`cosched.metrics.summarize` (``mean_wait``,
  ``mean_bounded_slowdown``, ``utilization``...), plus ``mean_slowdown``, the paper's
  unbounded slowdown (wait + run) / run;
* ``mean_sync_time``: the paper's "extra time a job has to wait for its mate", measured
  per paired job as start time minus the time its scheduler first made it ready, and
  averaged over the machine's paired jobs;
* ``lost_node_hours``: service units lost to holding, the sum over jobs of held time x
  units held, in unit-hours (node-hours when the machine allocates whole nodes);
  ``lost_share`` is that over the machine's capacity x makespan;
* ``partition_waste``: on a machine allocated in partitions, the share of capacity x
  makespan that jobs' partitions held beyond their need (0 otherwise).

:func:`verify_sync` checks the coscheduling guarantee on a finished run: every paired
job started at the same instant as its mate, unless one of them started alone because
the link was down or the mate was gone.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cosched.coupled.coordinator import CoupledResult
from cosched.coupled.errors import CoupledError
from cosched.metrics.summary import summarize

__all__ = [
    "CORE_METRICS",
    "coupled_metrics",
    "machine_metrics",
    "verify_group_sync",
    "verify_sync",
]

#: The metric names reported per machine (summary.json keys).
CORE_METRICS: tuple[str, ...] = (
    "jobs",
    "mean_wait",
    "median_wait",
    "p95_wait",
    "max_wait",
    "mean_turnaround",
    "mean_bounded_slowdown",
    "mean_slowdown",
    "utilization",
    "makespan",
    "paired_jobs",
    "mean_sync_time",
    "max_sync_time",
    "started_alone",
    "holds",
    "yields",
    "lost_node_hours",
    "lost_share",
    "partition_waste",
)


def machine_metrics(jobs: pd.DataFrame, *, capacity: int, tau: float = 10.0) -> dict[str, float]:
    """The metrics of one machine of a coupled run (see the module docstring).

    Args:
        jobs: the machine's job table (with the coscheduling columns).
        capacity: the machine's allocation units.
        tau: bound of the bounded slowdown, in seconds.
    """
    s = summarize(jobs, capacity=capacity, tau=tau)
    out = {k: s[k] for k in CORE_METRICS if k in s}
    wait = jobs["start_time"] - jobs["submit_time"]
    run = jobs["run_time"]
    out["mean_slowdown"] = float(((wait + run) / run).mean()) if len(jobs) else math.nan
    paired = jobs["coupled_mate"].to_numpy() >= 0 if "coupled_mate" in jobs else np.zeros(0, bool)
    sync = jobs["sync_time"].to_numpy()[paired] if paired.any() else np.zeros(0)
    out["paired_jobs"] = float(paired.sum())
    out["mean_sync_time"] = float(sync.mean()) if sync.size else 0.0
    out["max_sync_time"] = float(sync.max()) if sync.size else 0.0
    out["started_alone"] = float(jobs["started_alone"].sum()) if "started_alone" in jobs else 0.0
    out["holds"] = float(jobs["holds"].sum()) if "holds" in jobs else 0.0
    out["yields"] = float(jobs["yields"].sum()) if "yields" in jobs else 0.0
    held = jobs["held_time"].to_numpy() if "held_time" in jobs else np.zeros(len(jobs))
    lost = float(np.dot(held, jobs["size"].to_numpy()))
    out["lost_node_hours"] = lost / 3600.0
    span = out.get("makespan", math.nan)
    out["lost_share"] = lost / (capacity * span) if span and span > 0 else 0.0
    out["partition_waste"] = s.get("partition_waste", 0.0)
    return {k: out[k] for k in CORE_METRICS}


def coupled_metrics(result: CoupledResult, *, tau: float = 10.0) -> dict[str, dict[str, float]]:
    """:func:`machine_metrics` of every machine, by domain name."""
    return {
        name: machine_metrics(r.jobs, capacity=result.capacities[name], tau=tau)
        for name, r in result.results.items()
    }


def _check_mate(
    a: str,
    jid: int,
    start: float,
    b: str,
    theirs: pd.DataFrame,
    mate: int,
    back: str,
    tol: float,
) -> None:
    """Raise CoupledError unless job ``jid`` of machine ``a``, started at ``start``, and
    its mate ``mate`` on machine ``b`` (``theirs``: ``b``'s jobs by id, naming their own
    mates in column ``back``) name each other and started within ``tol`` of each other
    (a mate that started alone is exempt)."""
    if mate not in theirs.index or back not in theirs or int(theirs.at[mate, back]) != jid:
        raise CoupledError(f"{a} job {jid}: mate {mate} on {b} does not name it back")
    if bool(theirs.at[mate, "started_alone"]):
        return
    other = float(theirs.at[mate, "start_time"])
    if not abs(start - other) <= tol:
        raise CoupledError(
            f"{a} job {jid} started at t={start:g} but its mate {b} job {mate} at t={other:g}"
        )


def verify_sync(result: CoupledResult, *, tol: float = 0.0) -> None:
    """Raise CoupledError unless every paired job started at the same instant as its mate.

    Pairs in which either job started alone (link down, mate gone) are exempt; the
    other mates must name each other.
    """
    for a, b in result.links:
        if a not in result.results or b not in result.results:
            continue  # a domain lost for good (named in result.faults): nothing to compare
        ja, jb = result.results[a].jobs, result.results[b].jobs
        if "coupled_mate" not in ja:
            continue
        pa = ja[ja["coupled_mate"] >= 0]
        pb = jb.set_index("job_id")
        for jid, mate, start, alone in zip(
            pa["job_id"].tolist(),
            pa["coupled_mate"].tolist(),
            pa["start_time"].tolist(),
            pa["started_alone"].tolist(),
            strict=True,
        ):
            if not alone:  # else a mate down, gone or unknown there: nothing to check
                _check_mate(a, jid, start, b, pb, mate, "coupled_mate", tol)


def verify_group_sync(result: CoupledResult, *, tol: float = 0.0) -> None:
    """Raise CoupledError unless every job with mates on several machines (the
    ``coupled_mate@NAME`` columns) started at the same instant as each of its mates.

    A job that started alone (a mate's machine down, a mate gone) is exempt, and so is
    a mate that started alone; the other mates must name each other back.
    """
    prefix = "coupled_mate@"
    tables = {name: r.jobs.set_index("job_id") for name, r in result.results.items()}
    for name, jobs in tables.items():
        cols = [c for c in jobs.columns if str(c).startswith(prefix)]
        for col in cols:
            other = str(col)[len(prefix) :]
            if other not in tables:
                continue  # lost for good, named in result.faults
            back = f"{prefix}{name}"
            ot = tables[other]
            rows = jobs[(jobs[col] >= 0) & ~jobs["started_alone"]]
            for jid, mate, start in zip(
                rows.index.tolist(), rows[col].tolist(), rows["start_time"].tolist(), strict=True
            ):
                _check_mate(name, jid, start, other, ot, mate, back, tol)
