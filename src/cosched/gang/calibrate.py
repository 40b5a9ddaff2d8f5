"""Calibrating the job-level gang model against the process-level GS.

The job-level model (:class:`~cosched.gang.policies.Gang`) lets a job progress at its
share of the round; the process-level model (:func:`cosched.timesharing.simulate`
with ``scheme="GS"``) simulates every process, message, I/O and gang switch. Both run
the dynamic coscheduling paper's workloads at the scale the process level handles
(:func:`cosched.timesharing.make_workload`: Lublin jobs on 32 single-CPU nodes, typed
J1..J6, time-scaled). Here:

* :func:`compare` runs both on one workload (same Ousterhout matrix: ``mpl`` rows, first
  fit, FCFS with the head blocking, no alternate scheduling, the same quantum and gang
  switch cost) and returns the per-job response times side by side;
* :func:`efficiencies` measures, per job type, the efficiency (work per second of
  slot) that makes the job level's execution times match the process level's: on a
  dedicated machine (MPL 1) what skew, I/O and message waits cost; at the MPL of use
  also what whole quanta cost (a job's row idles to the end of the slot when the job
  ends or waits, and a new job waits for its row's turn), which a fluid share does
  not see;
* :func:`with_efficiency` writes those into the ``gang_efficiency`` column the
  job-level model multiplies rates by, for the types whose error is large.

The calibration workload and the evaluation workload are different draws (seeds), so
the reported error after calibration is out of sample. Nothing applies the fitted
efficiencies by default: an SWF trace has no job types, so on a trace the job-level
gang model runs uncalibrated (docs/gang.md, "Calibration against the process level:
not done").
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from cosched.engine.simulation import Simulation
from cosched.errors import ConfigError
from cosched.gang.policies import EFFICIENCY_COLUMN, Gang
from cosched.platform import Platform
from cosched.workload.job import Workload

__all__ = ["compare", "efficiencies", "errors", "with_efficiency"]

TYPE_COLUMN = "dcs_job_type"


def _params(params: object | None) -> object:
    from cosched.timesharing import TSParams

    return TSParams() if params is None else params


def _process_level(
    workload: Workload, *, nodes: int, mpl: int, seed: int, params: object | None
) -> pd.DataFrame:
    from cosched.timesharing import simulate as ts_simulate

    r = ts_simulate(
        workload,
        scheme="GS",
        nodes=nodes,
        mpl=mpl,
        rng=np.random.default_rng(seed),
        params=_params(params),  # type: ignore[arg-type]
    )
    if r.unfinished:
        raise ConfigError(f"process-level GS left {r.unfinished} job(s) unfinished")
    return r.jobs.set_index("job_id")


def _job_level(workload: Workload, *, nodes: int, mpl: int, params: object) -> pd.DataFrame:
    policy = Gang(
        mpl=mpl,
        packing="first-fit",
        alternate=False,
        backfill=False,
        quantum=float(params.gs_quantum),  # type: ignore[attr-defined]
        switch_cost=float(params.gs_context_switch),  # type: ignore[attr-defined]
    )
    platform = Platform(nodes, 1, mpl=max(mpl, 2))
    return Simulation(workload, platform, policy).run().jobs.set_index("job_id")


def _by_type(workload: Workload, jobs: pd.DataFrame) -> pd.Series:
    """Sum of execution times (end - start) per job type."""
    types = workload.table.set_index("job_id")[TYPE_COLUMN]
    execution = jobs["end_time"] - jobs["start_time"]
    return execution.groupby(types.reindex(jobs.index).to_numpy()).sum()


def efficiencies(
    workload: Workload,
    *,
    nodes: int = 32,
    mpl: int = 1,
    seed: int = 0,
    params: object | None = None,
    rounds: int = 8,
) -> dict[int, float]:
    """Per job type, the efficiency that makes the job level's execution times match
    the process level's GS on ``workload`` at ``mpl``.

    At MPL 1 (a dedicated machine) this is ``sum(run_time) / sum(end - start)`` per
    type. At a higher MPL it is fitted: starting from 1, each round multiplies a type's
    efficiency by the square root of (job-level / process-level) total execution time
    of that type, for ``rounds`` rounds, and the efficiencies of the round whose worst
    type was closest are returned. The square root damps the feedback (a slower type
    also slows the jobs sharing its processors), with which the undamped update
    oscillates; the damped one still wanders by several percent, because a small change
    of rates reorders starts in a FCFS queue. An efficiency above 1 means the process
    level ran the type faster than its nominal run time (skew draws can).

    Args:
        workload: jobs with the ``dcs_*`` columns (``make_workload`` or ``jobs_table``).
        nodes: the process-level machine (single-CPU nodes).
        mpl: rows of the matrix in both models.
        seed: seed of the process level's skew draws.
        params: :class:`~cosched.timesharing.TSParams` (the paper's defaults if None).
        rounds: fitting rounds above MPL 1 (at MPL 1 one step is exact).
    """
    if TYPE_COLUMN not in workload.table:
        raise ConfigError(f"workload {workload.name!r} has no {TYPE_COLUMN} column")
    if not isinstance(rounds, int) or rounds < 1:
        raise ConfigError(f"rounds must be an integer >= 1, got {rounds!r}")
    p = _params(params)
    target = _by_type(workload, _process_level(workload, nodes=nodes, mpl=mpl, seed=seed, params=p))
    eta = {int(k): 1.0 for k in target.index}
    if mpl == 1:
        got = _by_type(workload, _job_level(workload, nodes=nodes, mpl=1, params=p))
        return {k: float(got[k] / target[k]) for k in eta}
    best: tuple[float, dict[int, float]] = (math.inf, eta)
    for _ in range(rounds):
        got = _by_type(
            workload, _job_level(with_efficiency(workload, eta), nodes=nodes, mpl=mpl, params=p)
        )
        ratio = {k: float(got[k] / target[k]) for k in eta}
        worst = max(abs(math.log(r)) for r in ratio.values())
        if worst < best[0]:
            best = (worst, eta)
        eta = {k: eta[k] * math.sqrt(ratio[k]) for k in eta}
    return best[1]


def with_efficiency(
    workload: Workload, eta: Mapping[int, float], *, threshold: float = 0.0
) -> Workload:
    """``workload`` with ``gang_efficiency`` set per job type from ``eta``.

    Types whose efficiency is within ``threshold`` of 1 (the job-level model's error
    from it is small) keep 1; types missing from ``eta`` keep 1.
    """
    if TYPE_COLUMN not in workload.table:
        raise ConfigError(f"workload {workload.name!r} has no {TYPE_COLUMN} column")
    for kind, value in eta.items():
        if not (np.isfinite(value) and value > 0):
            raise ConfigError(f"efficiency of job type {kind} must be positive, got {value!r}")
    kinds = workload.table[TYPE_COLUMN].to_numpy()
    col = np.array(
        [eta.get(int(k), 1.0) if abs(1 - eta.get(int(k), 1.0)) > threshold else 1.0 for k in kinds]
    )
    return workload.replace_table(
        workload.table.assign(**{EFFICIENCY_COLUMN: col}),
        note=f"{EFFICIENCY_COLUMN} per job type from the process level",
    )


def compare(
    workload: Workload,
    *,
    nodes: int = 32,
    mpl: int = 2,
    seed: int = 0,
    params: object | None = None,
    eta: Mapping[int, float] | None = None,
    threshold: float = 0.0,
) -> pd.DataFrame:
    """Per-job response (end - submit) at the process level (GS) and the job level.

    Args:
        eta: per-type efficiencies (:func:`efficiencies`); if given, the job level also
            runs with them (types within ``threshold`` of 1 keep 1).

    Returns:
        One row per job: ``job_id, job_type, run_time, procs, response_process,
        response_job, execution_process, execution_job`` and, with ``eta``,
        ``response_calibrated``.
    """
    p = _params(params)
    pl = _process_level(workload, nodes=nodes, mpl=mpl, seed=seed, params=p)
    jl = _job_level(workload, nodes=nodes, mpl=mpl, params=p)
    t = workload.table.set_index("job_id")
    if eta is not None:
        cal = _job_level(
            with_efficiency(workload, eta, threshold=threshold), nodes=nodes, mpl=mpl, params=p
        )
    out = pd.DataFrame(
        {
            "job_type": t[TYPE_COLUMN].astype(int),
            "run_time": t["run_time"],
            "procs": t["procs"],
            "response_process": pl["end_time"] - pl["submit_time"],
            "response_job": jl["end_time"] - jl["submit_time"],
            "execution_process": pl["end_time"] - pl["start_time"],
            "execution_job": jl["end_time"] - jl["start_time"],
        }
    )
    if eta is not None:
        out["response_calibrated"] = cal["end_time"] - cal["submit_time"]
    return out.reset_index()


def errors(table: pd.DataFrame) -> pd.DataFrame:
    """Relative error of the job level's mean response against the process level's,
    overall and per job type: ``(mean job - mean process) / mean process`` (and the
    same for ``response_calibrated`` when the table has it)."""
    rows = []
    groups = [("all", table), *((f"J{k}", g) for k, g in table.groupby("job_type"))]
    for label, g in groups:
        pl, jl = g["response_process"].mean(), g["response_job"].mean()
        row = {
            "type": label,
            "jobs": len(g),
            "mean_response_process": pl,
            "mean_response_job": jl,
            "error": (jl - pl) / pl,
        }
        if "response_calibrated" in g:
            cal = g["response_calibrated"].mean()
            row["mean_response_calibrated"] = cal
            row["error_calibrated"] = (cal - pl) / pl
        rows.append(row)
    return pd.DataFrame(rows)
