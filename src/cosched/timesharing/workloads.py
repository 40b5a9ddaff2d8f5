"""Workloads for the time-sharing model: hand-made job lists and scaled Lublin jobs.

The paper's LLNL model is not available; the reproduction uses Lublin jobs on a
32-node machine (sizes capped at 32) with the dynamic-coscheduling job types. Because
a process-level simulation costs events per message, the run times and arrival times
are divided by ``time_scale`` (the offered load is unchanged); see docs/timesharing.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from cosched.errors import ConfigError
from cosched.timesharing.params import TSParams
from cosched.workload.job import Workload
from cosched.workload.models.lublin import generate_lublin
from cosched.workload.profiles.dyncosched import JOB_TYPES, annotate_dyncosched
from cosched.workload.transforms import scale_to_load

__all__ = ["bsp_jobs", "jobs_table", "make_workload"]


def jobs_table(jobs: Sequence[tuple[float, float, int, int]], *, skew: float = 0.0) -> Workload:
    """A workload from ``(submit_time, run_time, procs, job_type)`` tuples.

    Args:
        jobs: one tuple per job; ``job_type`` is 1..6 (J1..J6 of Table 2).
        skew: the task skewness s of every job (fraction).

    Returns:
        The workload with the ``dcs_*`` columns.
    """
    rows = []
    for k, (submit, run, procs, jt) in enumerate(jobs, start=1):
        if jt not in JOB_TYPES:
            raise ConfigError(f"job_type must be one of {sorted(JOB_TYPES)} (got {jt!r})")
        comp, io, comm = JOB_TYPES[jt]
        rows.append((k, float(submit), float(run), int(procs), float(run), jt, comp, io, comm))
    cols = [
        "job_id",
        "submit_time",
        "run_time",
        "procs",
        "requested_time",
        "dcs_job_type",
        "dcs_comp",
        "dcs_io",
        "dcs_comm",
    ]
    table = pd.DataFrame(rows, columns=cols)
    table["dcs_skew"] = float(skew)
    return Workload.from_table(table, name="jobs")


def bsp_jobs(
    jobs: Sequence[tuple[float, float, int, float, float, int]],
    *,
    params: TSParams | None = None,
) -> Workload:
    """BSP jobs on a chain of tasks (the FCS paper's building block, section 3).

    Each tuple is ``(submit_time, run_time, procs, grain, imbalance, parity)``: every
    iteration a task computes ``grain`` seconds (``grain * imbalance`` for the ranks of
    ``parity``, 0 even or 1 odd: a fixed per-process load imbalance), then exchanges one
    message with each neighbour (one latency of ``params``). ``run_time`` is the
    balanced job's time alone, ``n_iter * (grain + L)``. A grain far above the FCS DC
    threshold (1 s) makes a job that hardly communicates.

    Returns:
        The workload, with the ``dcs_*`` columns (no I/O) and ``imbalance``,
        ``imbalance_parity``.
    """
    lat = (TSParams() if params is None else params).latency
    rows = []
    for k, (submit, run, procs, grain, imb, parity) in enumerate(jobs, start=1):
        if not grain > 0 or not imb > 0 or parity not in (0, 1):
            raise ConfigError(
                f"bsp job {k}: grain and imbalance must be > 0 and parity 0 or 1 "
                f"(got {grain!r}, {imb!r}, {parity!r})"
            )
        t_iter = grain + lat
        rows.append(
            (k, float(submit), float(run), int(procs), float(run), 0, grain / t_iter, 0.0,
             lat / t_iter, float(imb), int(parity))
        )  # fmt: skip
    cols = ["job_id", "submit_time", "run_time", "procs", "requested_time", "dcs_job_type",
            "dcs_comp", "dcs_io", "dcs_comm", "imbalance", "imbalance_parity"]  # fmt: skip
    table = pd.DataFrame(rows, columns=cols)
    table["dcs_skew"] = 0.0
    return Workload.from_table(table, name="bsp")


def make_workload(
    n_jobs: int,
    *,
    rng: np.random.Generator,
    nodes: int = 32,
    workload: str = "WL7",
    skew: float = 0.2,
    load: float = 0.5,
    time_scale: float = 1.0,
    max_run: float | None = None,
) -> Workload:
    """Lublin jobs of at most ``nodes`` tasks, typed, at an offered load, time-scaled.

    Args:
        n_jobs: number of jobs.
        rng: the source of every draw.
        nodes: machine size (job sizes are capped to it).
        workload: "WL1" .. "WL8".
        skew: task skewness s.
        load: offered load ``sum(run_time * procs) / (nodes * submit span)``.
        time_scale: run times and inter-arrival times are divided by it.
        max_run: clip run times to this many (unscaled) seconds first, so that a small
            sample is not dominated by one job of the model's heavy tail.

    Returns:
        The annotated workload.
    """
    if not time_scale > 0:
        raise ConfigError(f"time_scale must be > 0 (got {time_scale!r})")
    w = generate_lublin(n_jobs, nodes=nodes, rng=rng)
    t = w.table.copy()
    if max_run is not None:
        t["run_time"] = np.minimum(t["run_time"], float(max_run))
    t["run_time"] = t["run_time"] / time_scale
    t["requested_time"] = t["run_time"]
    t["submit_time"] = (t["submit_time"] - t["submit_time"].iloc[0]) / time_scale
    w = Workload.from_table(t, name=f"lublin{nodes}/{time_scale:g}")
    w = scale_to_load(w, load, nodes)
    return annotate_dyncosched(w, rng=rng, workload=workload, skew=skew)
