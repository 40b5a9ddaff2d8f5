"""The node-sharing family in the experiment framework: the evaluation of the
malleable-coscheduling paper (the grid: ``cosched/experiments/specs/nodeshare.toml``).

Traces: the paper's Cab trace (1,158 x 16, ~700,000 jobs) is not available. We use
RICC-2010-2 (1,024 nodes x 8 cores, 447,794 jobs, the only large multi-node trace here
with four non-overlapping 100,000-job windows after a start-up skip): windows of jobs
40,000-139,999, 140,000-239,999, 240,000-339,999 and 340,000-439,999 (the paper
skipped 50,000 jobs; 40,000 is the most that leaves room for four windows). A job's base
configuration keeps its RICC node count, ``n = ceil(procs / 8)``, as ``(n x 16)`` on the
paper's 1,158 x 16 machine (its work in node-seconds, hence the load, is kept).

A cell is (trace window, policy variant, nodes, window size) and a seed. Coscheduling
runs use five seeds (the seed draws the job profiles); the report shows the median seed
by mean turnaround, as the paper does, and the intervals over seeds; FCFS and EASY do
not depend on the profile and run once (seed 0, whose profiles are drawn with seed 1).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cosched.engine.simulation import Simulation
from cosched.errors import ConfigError
from cosched.experiments.model import CellEnv, Scalar, require
from cosched.experiments.traces import find_trace
from cosched.metrics import summarize
from cosched.nodeshare import outputs
from cosched.nodeshare.interference import scaled_victims
from cosched.platform import Platform
from cosched.platform.machine import Allocation
from cosched.policies.base import make_policy
from cosched.workload import LoadRules, load_workload
from cosched.workload.job import Workload
from cosched.workload.loader import TooWide, load_workload_with_report
from cosched.workload.profiles.nodeshare import annotate_nodeshare
from cosched.workload.transforms import filter_jobs, window

if TYPE_CHECKING:
    import pandas as pd

    from cosched.experiments.store import CellResult

__all__ = [
    "PAPER",
    "TRACE",
    "Cell",
    "cell_summary",
    "check",
    "prepare",
    "prepare_cab",
    "run_cell",
    "simulate_cell",
]

#: The trace, by archive name (found by :func:`cosched.experiments.traces.find_trace`).
TRACE = "RICC-2010-2.swf.gz"
TRACE_CORES = 8  # RICC cores per node (header MaxProcs 8192 / MaxNodes 1024)
NODES, CORES, CAP = 1158, 16, 3
WINDOW_STARTS = (40_000, 140_000, 240_000, 340_000)
SEEDS = (1, 2, 3, 4, 5)
NODE_SWEEP = (500, 700, 900, 1100, 1158, 1400, 1700, 2000)
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "fcfs": ("fcfs", {}),
    "easy": ("easy", {"window": 150}),
    "easy_nowindow": ("easy", {}),
    "cosched": ("nodeshare", {}),
    "combined": ("nodeshare-easy", {}),
    "Max_One_High": ("nodeshare", {"restriction": "Max_One_High"}),
    "High_Rq_Low": ("nodeshare", {"restriction": "High_Rq_Low"}),
    "Max_One_HM": ("nodeshare", {"restriction": "Max_One_HM"}),
    "no_degraded": ("nodeshare", {"degraded": False}),
    "at_start": ("nodeshare", {"rates": "at-start"}),
    "no_speedup": ("nodeshare", {"speedup_half": 1.0, "speedup_quarter": 1.0}),
}
#: The coscheduling variants run under the default interference preset (``fig3``, fitted
#: to the paper's Figure 3 by ``docs/studies/fit_nodeshare_fig3.py``) are also run under the
#: prior guesses as ``X_prior`` (``cosched`` -> ``prior``), the sensitivity arm.
PRIOR: dict[str, Any] = {"interference": "prior"}
VARIANTS["prior"] = ("nodeshare", PRIOR)
for _v in ("combined", "Max_One_High", "High_Rq_Low", "Max_One_HM", "no_degraded", "at_start"):
    _name, _params = VARIANTS[_v]
    VARIANTS[f"{_v}_prior"] = (_name, {**_params, **PRIOR})
#: The paper's published numbers (Cab, Trace1 unless said otherwise).
PAPER: dict[str, Any] = {
    "cosched_vs_easy_turnaround": "1% to 18% lower (14% or more on four of five traces)",
    "cosched_vs_fcfs_turnaround": "over 80% lower",
    "combined_vs_cosched": "under 3% better",
    "table1": {
        "easy vs fcfs": [-16187, -1.09, 1.0, 1.0, 1.89],
        "fcfs vs cosched": [-9799.0, -1.008, 1.09, 1.68, 29805],
        "easy vs cosched": [-10856, -1.02, 1.05, 1.34, 6631.6],
    },
    "execution": {
        "sped_up": 45285,
        "slowed_down": 48879,
        "unchanged": 5836,
        "slowed_over_1.2": "a little over 6%",
        "slowed_over_2": 588,
        "slowed_over_3": 226,
        "slowed_over_4": 1,
        "slowed_over_5": 0,
    },
    "table2": {"with degraded": [5805, 7595], "without degraded": [41664, 25671]},
    "degraded_used": {
        "No_Restrict": 6106,
        "Max_One_High": 9121,
        "High_Rq_Low": 12880,
        "Max_One_HM": 18825,
    },
}


@dataclass(frozen=True)
class Cell:
    """One simulation: a trace window, a policy variant, a seed and a node count."""

    trace: int
    variant: str
    seed: int
    nodes: int
    jobs: int

    @property
    def id(self) -> str:
        """A file-name-safe identity."""
        return f"t{self.trace + 1}-{self.variant}-s{self.seed}-n{self.nodes}-j{self.jobs}"


@functools.lru_cache(maxsize=4)
def _window(trace: int, jobs: int, path: Path) -> Workload:
    start = WINDOW_STARTS[trace]
    rules = LoadRules(too_wide=TooWide.DROP)
    # An SWF trace lists its jobs in submit order (the format's definition), so the
    # window lies in its first lines: read that many and 2% more (for the jobs the
    # rules drop), and the whole file only if they hold too few jobs and it has more.
    w, counts = load_workload_with_report(path, rules=rules, limit=(start + jobs) * 51 // 50)
    if len(w) < start + jobs and counts.get("limit"):
        w = load_workload(path, rules=rules)
    w = window(w, start, jobs)
    # Keep RICC's node count n as the base configuration (n x 16) of the 16-core machine.
    procs = (np.ceil(w.columns["procs"] / TRACE_CORES) * CORES).astype(np.int64)
    return w.with_columns(
        {"procs": procs}, f"procs = ceil(procs / {TRACE_CORES}) x {CORES} (node count kept)"
    )


def prepare(trace: int, jobs: int, seed: int, path: Path | None = None) -> Workload:
    """Trace window ``trace`` (0-based) with the node-sharing profile drawn from ``seed``.

    ``path`` is the RICC trace (default: found by name, see
    :func:`~cosched.experiments.traces.find_trace`).
    """
    where = find_trace(TRACE) if path is None else Path(path)
    return annotate_nodeshare(_window(trace, jobs, where), rng=np.random.default_rng(seed))


#: The Cab stand-in's window ``t`` (0-based) is drawn from ``default_rng([CAB_SEED, t])``.
CAB_SEED = 2014


@functools.lru_cache(maxsize=4)
def _cab(trace: int, jobs: int, load: float, single_share: float, sigma: float) -> Workload:
    # Imported here: the stand-in's draws build a pandas table, and a RICC cell loads no
    # pandas (tests/nodeshare/test_reproduce.py).
    from cosched.workload.models.cab import cab_standin

    rng = np.random.default_rng([CAB_SEED, trace])
    return cab_standin(rng, load=load, single_share=single_share, jobs=jobs, sigma=sigma)


def prepare_cab(
    trace: int, jobs: int, seed: int, load: float, single_share: float, sigma: float = 1.0
) -> Workload:
    """The Cab stand-in's window ``trace`` (0-based; :mod:`cosched.workload.models.cab`)
    at ``load``, ``single_share`` and run-time shape ``sigma``, with the node-sharing
    profile drawn from ``seed``.

    The window's jobs depend on ``trace``, ``load``, ``single_share`` and ``sigma``
    only, the profiles on ``seed`` only, as for a RICC window.
    """
    return annotate_nodeshare(
        _cab(trace, jobs, load, single_share, sigma), rng=np.random.default_rng(seed)
    )


def cell_summary(jobs: pd.DataFrame, nodes: int) -> dict[str, float]:
    """Core metrics of one run on ``nodes`` x 16.

    Utilization is in node units (``capacity=nodes``; the engine's ``occupancy`` column
    makes a shared job count the cores it really holds). The offered load divides the
    work in core-seconds (``procs`` = n x 16) by the machine's cores, not its nodes.
    """
    return summarize(jobs, capacity=nodes, capacity_procs=nodes * CORES)


def simulate_cell(
    cell: Cell,
    path: Path | None = None,
    extra: Mapping[str, Any] | None = None,
    workload: Workload | None = None,
) -> dict[str, Any]:
    """Simulate one cell; the record (``diagnostic`` holds the wall-clock numbers).

    ``extra`` adds policy parameters to the variant's (a study's interference values,
    e.g. ``victim_low``); the record's ``params`` show them. ``workload`` replaces the
    RICC window (a profiled Cab stand-in window, :func:`prepare_cab`).
    """
    w = prepare(cell.trace, cell.jobs, max(cell.seed, 1), path) if workload is None else workload
    # The node sweep goes below the widest job (Trace1 has jobs of up to 1,024 nodes):
    # jobs wider than the machine are dropped (after the profiles were drawn, so the
    # other jobs keep theirs) and counted in the record.
    fits = w.columns["procs"] <= cell.nodes * CORES
    dropped = int((~fits).sum())
    if dropped:
        w = filter_jobs(w, fits)
    name, params = VARIANTS[cell.variant]
    params = {**params, **(extra or {})}
    policy = make_policy(name, **params)
    platform = Platform(
        nodes=cell.nodes, cores=CORES, allocation=Allocation.NODES, max_jobs_per_node=CAP
    )
    t0 = time.perf_counter()
    jobs = Simulation(w, platform, policy).run().jobs
    wall = time.perf_counter() - t0
    rec: dict[str, Any] = {
        "cell": cell.id,
        "trace": cell.trace + 1,
        "variant": cell.variant,
        "policy": name,
        "params": params,
        "seed": cell.seed,
        "nodes": cell.nodes,
        "jobs": cell.jobs,
        "dropped_too_wide": dropped,
    }
    rec.update(cell_summary(jobs, cell.nodes))
    rec["execution"] = outputs.execution_changes(jobs)
    rec["diagnostic"] = {"wall_s": wall}
    if hasattr(policy, "stats"):
        st = policy.stats()
        rec["blocked"] = outputs.blocked_counts(st["blocked"])
        rec["configurations"] = outputs.configuration_counts(st["chosen"])
        rec["diagnostic"].update(outputs.placement_time(st, len(jobs)))
    rec["turnaround"] = (jobs["end_time"] - jobs["submit_time"]).tolist()
    return rec


def check(params: Mapping[str, Scalar]) -> None:
    """Refuse a configuration the cell function cannot run (before anything runs).

    Raises:
        ConfigError: naming the parameter.
    """
    require(params, "nodeshare", ("trace", "variant", "nodes", "window_jobs"))
    if params["variant"] not in VARIANTS:
        raise ConfigError(
            f"'variant' must be one of {', '.join(VARIANTS)}, got {params['variant']!r}"
        )
    if params["trace"] not in range(1, len(WINDOW_STARTS) + 1):
        raise ConfigError(f"'trace' must be 1 to {len(WINDOW_STARTS)}, got {params['trace']!r}")
    for key in ("nodes", "window_jobs"):
        v = params[key]
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ConfigError(f"{key!r} must be an integer >= 1, got {v!r}")
    source = params.get("workload", "ricc")
    if source not in ("ricc", "cab"):
        raise ConfigError(f"'workload' must be 'ricc' or 'cab', got {source!r}")
    cab_keys = ("load", "single_share", "sigma")
    if source == "cab":
        for key in cab_keys[:2]:
            if key not in params:
                raise ConfigError(f"the nodeshare cell on workload 'cab' needs {key!r}")
        _number(params, "load", 0.0, math.inf, low_open=True)
        _number(params, "single_share", 0.0, 1.0)
        if "sigma" in params:
            _number(params, "sigma", 0.0, math.inf, low_open=True)
    else:
        for key in cab_keys:
            if key in params:
                raise ConfigError(f"{key!r} is a parameter of workload 'cab' only")
    if "strength" in params:
        _number(params, "strength", 0.0, math.inf)


def _number(
    params: Mapping[str, Scalar], key: str, low: float, high: float, low_open: bool = False
) -> None:
    v = params[key]
    ok = isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
    x = float(v) if ok else math.nan  # type: ignore[arg-type]
    if not ok or x < low or x > high or (low_open and x == low):
        side = "(" if low_open else "["
        raise ConfigError(f"{key!r} must be a number in {side}{low:g}, {high:g}], got {v!r}")


def _strength(params: Mapping[str, Scalar]) -> dict[str, float] | None:
    """The victim weights of the cell's ``strength`` (None: the variant's own)."""
    k = params.get("strength")
    return None if k is None else scaled_victims(float(k))  # type: ignore[arg-type]


_NOT_METRICS = ("cell", "trace", "variant", "params", "seed", "nodes", "execution",
                "diagnostic", "blocked", "configurations", "turnaround")  # fmt: skip


def run_cell(params: Mapping[str, Scalar], seed: int, env: CellEnv) -> CellResult:
    """The spec's cell function.

    Metrics are flat (``execution.*``, ``blocked.*``, ``configurations.*``); the per-job
    turnaround is the per-cell table ``turnaround``; the wall-clock diagnostics stay
    beside the cell file (``Store.info``), never in the results.
    """
    cell = Cell(
        int(params["trace"]) - 1,  # type: ignore[arg-type]
        str(params["variant"]),
        seed,
        int(params["nodes"]),  # type: ignore[arg-type]
        int(params["window_jobs"]),  # type: ignore[arg-type]
    )
    if params.get("workload", "ricc") == "cab":
        rec = simulate_cell(
            cell,
            extra=_strength(params),
            workload=prepare_cab(
                cell.trace,
                cell.jobs,
                max(seed, 1),
                float(params["load"]),  # type: ignore[arg-type]
                float(params["single_share"]),  # type: ignore[arg-type]
                float(params.get("sigma", 1.0)),  # type: ignore[arg-type]
            ),
        )
    else:
        rec = simulate_cell(cell, env.trace(TRACE), extra=_strength(params))
    metrics: dict[str, Any] = {k: v for k, v in rec.items() if k not in _NOT_METRICS}
    for group in ("execution", "blocked", "configurations"):
        metrics |= {f"{group}.{k}": v for k, v in rec.get(group, {}).items()}
    # Not at import: preparing and simulating a cell need neither pandas nor the store.
    import pandas as pd

    from cosched.experiments.store import CellResult

    table = pd.DataFrame({"turnaround": np.asarray(rec["turnaround"], dtype=np.float64)})
    return CellResult(metrics, {"turnaround": table}, info={"diagnostic": rec["diagnostic"]})
