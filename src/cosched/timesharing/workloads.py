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

__all__ = [
    "APP_KINDS",
    "DYNAMIC_KINDS",
    "DYNAMIC_MIXES",
    "LOAD_BY",
    "SAGE_GRAIN",
    "SAGE_SLOW",
    "bsp_jobs",
    "dynamic_workload",
    "jobs_table",
    "make_workload",
    "whole_nodes",
]


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
    jobs: Sequence[tuple[float, ...]],
    *,
    params: TSParams | None = None,
    ring: bool = False,
) -> Workload:
    """BSP jobs on a chain or a ring of tasks (the FCS paper's building block, section 3:
    "a nearest-neighbor, ring pattern").

    Each tuple is ``(submit_time, run_time, procs, grain, imbalance, parity[, block,
    period])``: every iteration a task computes ``grain`` seconds (``grain * imbalance``
    for the ranks r with ``(r // block) % period == parity``: a fixed per-process load
    imbalance; by default block 1 and period 2, alternating ranks, parity 0 even or 1
    odd; block 4 gives alternating 4-way nodes, period 4 one rank in four), then
    exchanges one message with each neighbour (one latency of ``params``): on a chain the
    first and last ranks have one neighbour, on a ring (``ring=True``) they are each
    other's, so every rank has two.
    ``run_time`` is the balanced job's time alone, ``n_iter * (grain + L)``. A grain far
    above the FCS DC threshold (1 s) makes a job that hardly communicates.

    Returns:
        The workload, with the ``dcs_*`` columns (no I/O) and ``imbalance``,
        ``imbalance_parity``, ``imbalance_block``, ``imbalance_period`` and ``ring``
        (1 or 0).
    """
    lat = (TSParams() if params is None else params).latency
    rows = []
    for k, job in enumerate(jobs, start=1):
        if len(job) not in (6, 8):
            raise ConfigError(f"bsp job {k}: 6 or 8 fields expected (got {len(job)})")
        submit, run, procs, grain, imb, parity = job[:6]
        block, period = (int(job[6]), int(job[7])) if len(job) == 8 else (1, 2)
        if not grain > 0 or not imb > 0 or block < 1 or period < 1 or not 0 <= parity < period:
            raise ConfigError(
                f"bsp job {k}: grain and imbalance must be > 0, block and period >= 1 and "
                f"0 <= parity < period (got {grain!r}, {imb!r}, {parity!r}, {block}, {period})"
            )
        t_iter = grain + lat
        rows.append(
            (k, float(submit), float(run), int(procs), float(run), 0, grain / t_iter, 0.0,
             lat / t_iter, float(imb), int(parity), block, period)
        )  # fmt: skip
    cols = ["job_id", "submit_time", "run_time", "procs", "requested_time", "dcs_job_type",
            "dcs_comp", "dcs_io", "dcs_comm", "imbalance", "imbalance_parity",
            "imbalance_block", "imbalance_period"]  # fmt: skip
    table = pd.DataFrame(rows, columns=cols)
    table["dcs_skew"] = 0.0
    table["ring"] = int(ring)
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


#: SAGE's skeleton (FCS paper, section 4): one rank in four computes ``SAGE_SLOW`` x the
#: ``SAGE_GRAIN`` of the others (8 ms against 1.5 ms), which wait for it.
SAGE_GRAIN = 1.5e-3
SAGE_SLOW = 8e-3 / SAGE_GRAIN

#: The dynamic workload's job kinds (FCS paper, section 5.1: "the same synthetic
#: application as the previous section, but with different job sizes and run times as
#: determined by the model, and with different granularity and communication pattern,
#: chosen randomly"): name -> (grain in seconds, slow multiplier, period of the slow
#: ranks), the multiplier None for section 3.2's ``2 + 2 L / grain`` (the job alone takes
#: twice its balanced block). Ours, one third each: the 1 ms building block balanced (CS
#: under FCS), the same block with the imbalance of section 3.2 on alternating ranks (its
#: fast ranks F, its slow ranks DC), and a coarse 50 ms block (DC: 50 ms of computation
#: per communication is above F_thresh).
DYNAMIC_KINDS: dict[str, tuple[float, float | None, int]] = {
    "fine": (1e-3, 1.0, 2),
    "imbalanced": (1e-3, None, 2),
    "coarse": (50e-3, 1.0, 2),
}
#: The readings of section 5.1's "different granularity and communication pattern,
#: chosen randomly" (docs/timesharing-fidelity.md, "The dynamic workload's job mix"): name -> a
#: kinds table like :data:`DYNAMIC_KINDS`, each kind drawn with equal probability.
#: ``equal`` is :data:`DYNAMIC_KINDS` (the default); ``grains``: balanced jobs of 1, 5,
#: 20 and 50 ms granularity (the granularity random, the pattern not); ``spread``: the
#: same four granularities, each balanced or with section 3.2's imbalance (both random,
#: eight kinds); ``no-fine``: :data:`DYNAMIC_KINDS` without its fine balanced jobs (half
#: imbalanced, half coarse: every job leaves time for another to fill).
DYNAMIC_MIXES: dict[str, dict[str, tuple[float, float | None, int]]] = {
    "equal": DYNAMIC_KINDS,
    "grains": {f"g{ms}": (ms * 1e-3, 1.0, 2) for ms in (1, 5, 20, 50)},
    "spread": {
        f"{kind}{ms}": (ms * 1e-3, mult, 2)
        for ms in (1, 5, 20, 50)
        for kind, mult in (("balanced", 1.0), ("imbalanced", None))
    },
    "no-fine": {k: DYNAMIC_KINDS[k] for k in ("imbalanced", "coarse")},
}
#: How :func:`dynamic_workload` sets the offered load: the two readings of the FCS
#: paper (section 5.1 scales arrival times, section 5.2 says run times).
LOAD_BY = ("arrivals", "runtimes")

#: Figure 9's set: SWEEP3D and SAGE skeletons (section 4), half each.
APP_KINDS: dict[str, tuple[float, float | None, int]] = {
    "sweep3d": (1e-3, 1.0, 2),
    "sage": (SAGE_GRAIN, SAGE_SLOW, 4),
}


def dynamic_workload(
    n_jobs: int,
    *,
    rng: np.random.Generator,
    pes: int = 32,
    load: float = 0.5,
    max_run: float = 300.0,
    time_scale: float = 1.0,
    params: TSParams | None = None,
    kinds: dict[str, tuple[float, float | None, int]] | None = None,
    load_by: str = "arrivals",
) -> Workload:
    """The FCS paper's dynamic workload (section 5.1): Lublin jobs of BSP kinds.

    Sizes, run times and arrivals from the Lublin model for ``pes`` processors (the
    paper's "accurate workload model [7, 15]"), run times clipped at ``max_run`` seconds
    and divided by ``time_scale``; each job's kind drawn from ``kinds`` (default
    :data:`DYNAMIC_KINDS`; :data:`APP_KINDS` for Figure 9's set) with equal probability.
    ``requested_time`` is the job's run time in isolation (an imbalanced job's slow
    ranks set its pace: ``n_iter x slow x grain``), and the arrivals are scaled so that
    the offered load, ``sum(isolated run time x size) / (pes x last arrival)``, is
    ``load`` (section 5.1's definition).

    ``load_by`` says how the load is set (:data:`LOAD_BY`): ``"arrivals"`` scales the
    arrival times (section 5.1: "by multiplying job-arrival times by a constant");
    ``"runtimes"`` scales the arrivals to offered load 1 and multiplies every run time
    by ``load`` (section 5.2: "by multiplying run times of jobs by a load factor"). The
    draws are the same either way, so the two readings see the same jobs.

    Returns:
        The ``bsp_jobs`` workload with ``requested_time`` the isolated run time and a
        ``kind`` column.
    """
    if not max_run > 0 or not time_scale > 0:
        raise ConfigError(f"max_run and time_scale must be > 0 (got {max_run!r}, {time_scale!r})")
    if load_by not in LOAD_BY:
        raise ConfigError(f"load_by must be one of {', '.join(LOAD_BY)} (got {load_by!r})")
    p = TSParams() if params is None else params
    table = DYNAMIC_KINDS if kinds is None else kinds
    w = generate_lublin(n_jobs, nodes=pes, rng=rng)
    t = w.table.copy()
    run = np.minimum(t["run_time"].to_numpy(dtype=float), float(max_run)) / time_scale
    names = list(table)
    picks = rng.integers(0, len(names), size=n_jobs)
    t["run_time"] = run
    t["requested_time"] = run
    t["submit_time"] = (t["submit_time"] - t["submit_time"].iloc[0]) / time_scale
    by_runs = load_by == "runtimes"
    w = scale_to_load(Workload.from_table(t, name="lublin"), 1.0 if by_runs else load, pes)
    if by_runs:
        t = w.table.copy()
        t["run_time"] = t["run_time"] * load
        t["requested_time"] = t["run_time"]
        w = Workload.from_table(t, name="lublin")
    lat = p.latency
    rows = []
    for submit, iso, procs, k in zip(
        w.table["submit_time"], w.table["run_time"], w.table["procs"], picks, strict=True
    ):
        grain, mult, period = table[names[int(k)]]
        slow = (2 + 2 * lat / grain if mult is None else mult) if procs > 1 else 1.0
        # alone, the slow ranks set the pace (their neighbours' messages wait for them):
        # n_iter iterations of slow x grain, n_iter = block / (grain + L)
        # (section 3.2's multiplier: exactly twice, footnote 4)
        pace = 2.0 if mult is None and slow != 1.0 else max(1.0, slow * grain / (grain + lat))
        rows.append((float(submit), float(iso / pace), int(procs), grain, slow, 1, 1, period))
    out = bsp_jobs(rows, params=p).table.copy()
    out["requested_time"] = w.table["run_time"].to_numpy(dtype=float)
    out["kind"] = [names[int(k)] for k in picks]
    return Workload.from_table(out, name=f"fcs-dynamic{pes}")


def whole_nodes(w: Workload, node_pes: int) -> Workload:
    """A batch workload on whole nodes of ``node_pes`` PEs, as a workload of nodes.

    Under batch scheduling (MPL 1) a job that is given whole nodes holds
    ``ceil(procs / node_pes)`` of them for its run time alone, whatever it does inside;
    the spare PEs of its last node idle. That schedule is the schedule of a machine of
    ``pes / node_pes`` single-CPU units on which each job is ``ceil(procs / node_pes)``
    ranks wide and runs the same isolated time, which is what this returns: the job's
    rank count divided, and a job that shrinks to one rank made a serial job of its
    isolated time (``requested_time``: a lone rank does not wait for neighbours, so it
    would otherwise run its block's computation only). Jobs of two ranks or more keep
    their kind: alone they run the same time on any width of two or more (the slow
    ranks set the pace, every message takes one latency).

    Only for batch runs: under time sharing a node's PEs are scheduled one by one.

    Raises:
        ConfigError: ``node_pes`` is not an integer >= 1.
    """
    if not isinstance(node_pes, int) or node_pes < 1:
        raise ConfigError(f"node_pes must be an integer >= 1 (got {node_pes!r})")
    t = w.table.copy()
    procs = t["procs"].to_numpy(dtype=np.int64)
    nodes = -(-procs // node_pes)
    lone = (nodes == 1) & (procs > 1)
    t["procs"] = nodes
    t.loc[lone, "run_time"] = t.loc[lone, "requested_time"]
    if "imbalance" in t.columns:
        t.loc[lone, "imbalance"] = 1.0
    return Workload.from_table(t, name=f"{w.name}/nodes{node_pes}")
