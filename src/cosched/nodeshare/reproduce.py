"""``cosched reproduce nodeshare``: the evaluation of the malleable-coscheduling paper.

Traces: the paper's Cab trace (1,158 x 16, ~700,000 jobs) is not available. We use
RICC-2010-2 (1,024 nodes x 8 cores, 447,794 jobs, the only large multi-node trace here
with four non-overlapping 100,000-job windows after a start-up skip): windows of jobs
40,000-139,999, 140,000-239,999, 240,000-339,999 and 340,000-439,999 (the paper
skipped 50,000 jobs; 40,000 is the most that leaves room for four windows). A job's base
configuration keeps its RICC node count, ``n = ceil(procs / 8)``, as ``(n x 16)`` on the
paper's 1,158 x 16 machine (its work in node-seconds, hence the load, is kept).

Every cell (trace, policy variant, seed, nodes) is written to ``out/cells/ID.json``
atomically when it ends; a rerun skips finished cells. Coscheduling runs use five seeds
(the seed draws the job profiles) and report the median by mean turnaround, as the
paper does; FCFS and EASY do not depend on the profile and run once.
"""

from __future__ import annotations

import functools
import json
import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cosched.engine.simulation import Simulation
from cosched.errors import ConfigError
from cosched.metrics import summarize
from cosched.nodeshare import outputs
from cosched.platform import Platform
from cosched.policies.base import make_policy
from cosched.workload import LoadRules, load_workload
from cosched.workload.job import Workload
from cosched.workload.profiles.nodeshare import annotate_nodeshare
from cosched.workload.transforms import filter_jobs, window

__all__ = ["PAPER", "TRACE", "Cell", "cell_summary", "grid", "prepare", "run", "run_cell"]

TRACES = Path(
    os.environ.get(
        "COSCHED_TRACES", Path(__file__).resolve().parents[3] / ".." / "shared" / "traces"
    )
)
TRACE = TRACES / "RICC-2010-2.swf.gz"
TRACE_CORES = 8  # RICC cores per node (header MaxProcs 8192 / MaxNodes 1024)
NODES, CORES, CAP = 1158, 16, 3
WINDOW_STARTS = (40_000, 140_000, 240_000, 340_000)
SEEDS = (1, 2, 3, 4, 5)
NODE_SWEEP = (500, 700, 900, 1100, 1158, 1400, 1700, 2000)
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "fcfs": ("fcfs", {}),
    "easy": ("easy", {"window": 150}),
    "cosched": ("nodeshare", {}),
    "combined": ("nodeshare-easy", {}),
    "Max_One_High": ("nodeshare", {"restriction": "Max_One_High"}),
    "High_Rq_Low": ("nodeshare", {"restriction": "High_Rq_Low"}),
    "Max_One_HM": ("nodeshare", {"restriction": "Max_One_HM"}),
    "no_degraded": ("nodeshare", {"degraded": False}),
    "at_start": ("nodeshare", {"rates": "at-start"}),
    "no_speedup": ("nodeshare", {"speedup_half": 1.0, "speedup_quarter": 1.0}),
    "fig3": ("nodeshare", {}),  # FIG3 parameters, filled in below
}
#: Interference parameters calibrated to the paper's Figure 3 (execution-time changes
#: only; never turnaround) by ``scripts/fit_nodeshare_fig3.py`` on Trace1, seed 1: memory
#: speedups 1.075 / 1.10 at half / a quarter of the cores, victim weights x 0.1.
FIG3: dict[str, Any] = {
    "speedup_half": 1.075,
    "speedup_quarter": 1.10,
    "victim_low": 0.005,
    "victim_moderate": 0.015,
    "victim_high": 0.03,
}
VARIANTS["fig3"] = ("nodeshare", FIG3)
# The paper's other experiments under the calibrated interference too ("X_fig3").
VARIANTS["combined_fig3"] = ("nodeshare-easy", FIG3)
for _r in ("Max_One_High", "High_Rq_Low", "Max_One_HM"):
    VARIANTS[f"{_r}_fig3"] = ("nodeshare", {**FIG3, "restriction": _r})
VARIANTS["no_degraded_fig3"] = ("nodeshare", {**FIG3, "degraded": False})
VARIANTS["at_start_fig3"] = ("nodeshare", {**FIG3, "rates": "at-start"})
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


def grid(quick: bool) -> list[Cell]:
    """Every cell of the reproduction (quick: Trace1's first 10,000 jobs, 3 seeds)."""
    jobs = 10_000 if quick else 100_000
    seeds = SEEDS[:3] if quick else SEEDS
    traces = (0,) if quick else range(len(WINDOW_STARTS))
    sweep = (700, 1158, 2000) if quick else NODE_SWEEP
    out: list[Cell] = []

    def add(trace: int, variant: str, nodes: int, many: tuple[int, ...]) -> None:
        is_baseline = VARIANTS[variant][0] in ("fcfs", "easy")
        for seed in (0,) if is_baseline else many:
            out.append(Cell(trace, variant, seed, nodes, jobs))

    for t in traces:
        for v in ("fcfs", "easy", "cosched", "combined"):
            add(t, v, NODES, seeds)
    for v in ("Max_One_High", "High_Rq_Low", "Max_One_HM", "no_degraded", "at_start"):
        add(0, v, NODES, seeds)
    for v in ("no_speedup",):
        add(0, v, NODES, seeds)
    for t in traces:  # the Figure-3-calibrated interference, every window
        add(t, "fig3", NODES, seeds)
    for n in sweep:
        if n != NODES:
            for v in ("fcfs", "easy", "cosched"):
                add(0, v, n, seeds)
    for t in traces:
        add(t, "combined_fig3", NODES, seeds)
    for v in ("Max_One_High", "High_Rq_Low", "Max_One_HM", "no_degraded", "at_start"):
        add(0, f"{v}_fig3", NODES, seeds)
    for n in sweep:
        if n != NODES:
            add(0, "fig3", n, seeds)
    return out


@functools.lru_cache(maxsize=4)
def _window(trace: int, jobs: int) -> Workload:
    if not TRACE.exists():
        raise ConfigError(f"the RICC trace is needed at {TRACE}")
    w = load_workload(TRACE, rules=LoadRules(too_wide="drop"))
    w = window(w, WINDOW_STARTS[trace], jobs)
    t = w.table.copy()
    # Keep RICC's node count n as the base configuration (n x 16) of the 16-core machine.
    t["procs"] = (np.ceil(t["procs"].to_numpy() / TRACE_CORES) * CORES).astype(np.int64)
    return w.replace_table(t, f"procs = ceil(procs / {TRACE_CORES}) x {CORES} (node count kept)")


def prepare(trace: int, jobs: int, seed: int) -> Workload:
    """Trace window ``trace`` (0-based) with the node-sharing profile drawn from ``seed``."""
    return annotate_nodeshare(_window(trace, jobs), rng=np.random.default_rng(seed))


def cell_summary(jobs: Any, nodes: int) -> dict[str, float]:
    """Core metrics of one run on ``nodes`` x 16.

    Utilization is in node units (``capacity=nodes``; the engine's ``occupancy`` column
    makes a shared job count the cores it really holds). The offered load divides the
    work in core-seconds (``procs`` = n x 16) by the machine's cores, not its nodes.
    """
    return summarize(jobs, capacity=nodes, capacity_procs=nodes * CORES)


def run_cell(cell: Cell) -> dict[str, Any]:
    """Simulate one cell; the record (``diagnostic`` holds the wall-clock numbers)."""
    w = prepare(cell.trace, cell.jobs, max(cell.seed, 1))
    # The node sweep goes below the widest job (Trace1 has jobs of up to 1,024 nodes):
    # jobs wider than the machine are dropped (after the profiles were drawn, so the
    # other jobs keep theirs) and counted in the record.
    fits = w.table["procs"].to_numpy() <= cell.nodes * CORES
    dropped = int((~fits).sum())
    if dropped:
        w = filter_jobs(w, fits)
    name, params = VARIANTS[cell.variant]
    policy = make_policy(name, **params)
    platform = Platform(nodes=cell.nodes, cores=CORES, allocation="nodes", max_jobs_per_node=CAP)
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


def _store(path: Path, rec: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(rec, sort_keys=True))
    os.replace(tmp, path)


def _run_grid(out: Path, cells: list[Cell], workers: int, say: Callable[[str], None]) -> None:
    store = out / "cells"
    store.mkdir(parents=True, exist_ok=True)
    todo = [c for c in cells if not (store / f"{c.id}.json").exists()]
    say(f"nodeshare: {len(cells) - len(todo)} of {len(cells)} cells already done")
    if workers <= 1:
        for k, c in enumerate(todo, 1):
            _store(store / f"{c.id}.json", run_cell(c))
            say(f"  [{k}/{len(todo)}] {c.id}")
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_cell, c): c for c in todo}
        for k, fut in enumerate(as_completed(futures), 1):
            c = futures[fut]
            _store(store / f"{c.id}.json", fut.result())
            say(f"  [{k}/{len(todo)}] {c.id}")


def _median(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """The seed with the median mean turnaround (the paper's choice)."""
    ordered = sorted(recs, key=lambda r: (r["mean_turnaround"], r["seed"]))
    return ordered[(len(ordered) - 1) // 2]


def run(
    out: Path, *, quick: bool, workers: int, progress: Callable[[str], None] | None = None
) -> Path:
    """Run (or resume) the grid and write ``out/report.md`` and ``out/summary.json``."""
    from cosched.nodeshare.report import write_report

    say = progress or (lambda _m: None)
    out = Path(out)
    cells = grid(quick)
    _run_grid(out, cells, max(int(workers), 1), say)
    recs = [json.loads((out / "cells" / f"{c.id}.json").read_text()) for c in cells]
    groups: dict[tuple[int, str, int], list[dict[str, Any]]] = {}
    for r in recs:
        groups.setdefault((r["trace"], r["variant"], r["nodes"]), []).append(r)
    chosen = {k: _median(v) for k, v in sorted(groups.items())}
    summary = []
    for (trace, variant, nodes), r in chosen.items():
        row = {k: v for k, v in r.items() if k not in ("turnaround", "diagnostic", "cell")}
        seeds = [g["mean_turnaround"] for g in groups[(trace, variant, nodes)]]
        row["seeds"] = len(seeds)
        row["cv_mean_turnaround"] = (
            statistics.pstdev(seeds) / statistics.mean(seeds) if len(seeds) > 1 else 0.0
        )
        summary.append(row)
    (out / "summary.json").write_text(json.dumps(summary, sort_keys=True, indent=1) + "\n")
    return write_report(out, chosen, groups, quick=quick)
