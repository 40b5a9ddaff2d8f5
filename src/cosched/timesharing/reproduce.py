"""Reproduction of dynamic-coscheduling-cluster-simulation.txt (Figures 3-5, Tables 4-5).

``cosched reproduce dyncosched [--quick] --out DIR`` runs the grid below and writes
``DIR/report.md`` (with PNG figures) and ``DIR/summary.json``. Every scheme of one
configuration sees the same workload and the same skew draws (common random numbers).

Time scale (see docs/timesharing.md): Lublin jobs of at most 32 tasks, run times
clipped at ``MAX_RUN`` s and then divided, with the inter-arrival times, by
``TIME_SCALE``; messages are ``MSG_FACTOR`` x 4,096 bytes so iterations are
``MSG_FACTOR`` times coarser than the paper's (the latency is linear in size, so the
compute / I/O / communication shares are unchanged). All OS costs keep the paper's
values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cosched.timesharing.engine import simulate
from cosched.timesharing.metrics import ts_summary
from cosched.timesharing.params import SCHEMES, TSParams
from cosched.timesharing.workloads import make_workload

__all__ = ["FULL", "MAX_RUN", "MSG_FACTOR", "QUICK", "TIME_SCALE", "Cell", "Grid", "run"]

NODES = 32
TIME_SCALE = 400.0
MAX_RUN = 1000.0
MSG_FACTOR = 16
SEED = 20020601
#: Horizon of a run, in multiples of (submit span + longest job): beyond it the
#: scheme is saturated and the unfinished jobs are reported.
HORIZON_FACTOR = 4.0


@dataclass(frozen=True)
class Grid:
    """The size of the reproduction."""

    jobs: int
    loads: tuple[float, ...]
    base_load: float
    mpls: tuple[int, ...]


# Offered load counts run_time x procs, which includes the I/O and communication
# shares; with MPL > 1 other processes fill those gaps, so loads above 1 are
# sustainable by the efficient schemes.
QUICK = Grid(jobs=300, loads=(0.6, 1.2, 1.8), base_load=1.0, mpls=(2, 5))
FULL = Grid(
    jobs=1000,
    loads=(0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    base_load=1.0,
    mpls=(2, 5, 16),
)

#: Table 5 variants: (label, changes to TSParams).
OVERHEADS_GS: tuple[tuple[str, dict[str, float]], ...] = (
    ("Q=200ms, CS=2ms", {}),
    ("Q=100ms, CS=1ms", {"gs_quantum": 0.1, "gs_context_switch": 1e-3}),
    ("Q=100ms, CS=2ms", {"gs_quantum": 0.1}),
)
OVERHEADS_DCS: tuple[tuple[str, dict[str, float]], ...] = (
    ("CS=200us, I=50us", {}),
    ("CS=100us, I=25us", {"context_switch": 100e-6, "interrupt": 25e-6}),
    ("CS=100us, I=50us", {"context_switch": 100e-6}),
)
TABLE5_SCHEMES = ("GS", "SB", "DCS", "DCS-SB", "PB-SB", "PB")


@dataclass(frozen=True)
class Cell:
    """One simulation: a workload configuration, a scheme, and parameter changes."""

    workload: str
    load: float
    skew: float
    mpl: int
    scheme: str
    variant: str = ""
    changes: tuple[tuple[str, float], ...] = ()

    @property
    def key(self) -> str:
        """A stable, readable identity."""
        v = f"/{self.variant}" if self.variant else ""
        return f"{self.workload}/load={self.load:g}/s={self.skew:g}/mpl={self.mpl}/{self.scheme}{v}"

    def seed(self) -> int:
        """Seed of the workload and skew draws.

        It depends on the workload name only: every scheme, load, skew, MPL and cost
        variant of one workload sees the same jobs (the load only rescales the
        arrivals) and the same skew draws, so differences come from the variable.
        """
        wl = int(self.workload[2:])
        return int(np.random.SeedSequence([SEED, wl]).generate_state(1)[0])


def cells(grid: Grid) -> list[Cell]:
    """Every cell of the grid, without duplicates, in a fixed order."""
    out: list[Cell] = []
    b = grid.base_load
    for load in grid.loads:  # Figure 3
        out += [Cell("WL7", load, 0.2, 5, s) for s in SCHEMES]
    for wl in ("WL4", "WL5", "WL2", "WL3"):  # Figure 4 (and MPL 5 of Table 4)
        out += [Cell(wl, b, 0.2, 5, s) for s in SCHEMES]
    for wl in ("WL2", "WL4", "WL5"):  # Table 4
        for mpl in grid.mpls:
            if mpl != 5 and not (wl == "WL2" and mpl == 16):
                out += [Cell(wl, b, 0.2, mpl, s) for s in SCHEMES]
    out += [Cell("WL4", b, 1.5, 5, s) for s in SCHEMES]  # Figure 5
    for s in TABLE5_SCHEMES:  # Table 5
        variants = OVERHEADS_GS if s == "GS" else OVERHEADS_DCS
        for label, ch in variants[1:]:
            out.append(Cell("WL5", b, 0.2, 5, s, label, tuple(sorted(ch.items()))))
    seen: set[str] = set()
    uniq = []
    for c in out:
        if c.key not in seen:
            seen.add(c.key)
            uniq.append(c)
    return uniq


def run_cell(cell: Cell, n_jobs: int, msg_factor: int = MSG_FACTOR) -> dict[str, Any]:
    """Simulate one cell (messages of ``msg_factor`` x 4,096 bytes); its record."""
    seed = cell.seed()
    w = make_workload(
        n_jobs,
        rng=np.random.default_rng(seed),
        nodes=NODES,
        workload=cell.workload,
        skew=cell.skew,
        load=cell.load,
        time_scale=TIME_SCALE,
        max_run=MAX_RUN,
    )
    params = TSParams(msg_size=4096.0 * msg_factor).with_(**dict(cell.changes))
    t = w.table
    horizon = HORIZON_FACTOR * float(t["submit_time"].max() + t["run_time"].max())
    r = simulate(
        w,
        scheme=cell.scheme,
        nodes=NODES,
        mpl=cell.mpl,
        rng=np.random.default_rng(seed + 1),
        params=params,
        horizon=horizon,
    )
    m = ts_summary(r, nodes=NODES, mpl=cell.mpl)
    m["offered_load"] = cell.load
    rec: dict[str, Any] = {
        "key": cell.key,
        "workload": cell.workload,
        "load": cell.load,
        "skew": cell.skew,
        "mpl": cell.mpl,
        "scheme": cell.scheme,
        "variant": cell.variant,
        "horizon": horizon,
    }
    rec.update({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in m.items()})
    return rec


def _run_one(args: tuple[Cell, int, int]) -> dict[str, Any]:
    return run_cell(*args)


def run(
    out: Path,
    *,
    quick: bool,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
    msg_factor: int = MSG_FACTOR,
) -> Path:
    """Run the reproduction and write ``out/report.md`` and ``out/summary.json``.

    Args:
        out: output folder (created).
        quick: the reduced grid (:data:`QUICK`) instead of :data:`FULL`.
        workers: parallel processes.
        progress: called with a line per finished cell.
        msg_factor: message size in units of 4,096 bytes (1 = the paper's grain; the
            default :data:`MSG_FACTOR` is the documented coarser grain).

    Returns:
        The report's path.
    """
    from cosched.timesharing.report import write_report

    grid = QUICK if quick else FULL
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    todo = cells(grid)
    records: list[dict[str, Any]] = []
    args = [(c, grid.jobs, msg_factor) for c in todo]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            for i, rec in enumerate(ex.map(_run_one, args)):
                records.append(rec)
                if progress:
                    progress(f"[{i + 1}/{len(todo)}] {rec['key']}")
    else:
        for i, a in enumerate(args):
            records.append(_run_one(a))
            if progress:
                progress(f"[{i + 1}/{len(todo)}] {records[-1]['key']}")
    summary = {
        "reproduction": "dyncosched",
        "quick": quick,
        "nodes": NODES,
        "jobs_per_run": grid.jobs,
        "time_scale": TIME_SCALE,
        "max_run": MAX_RUN,
        "msg_size": 4096 * msg_factor,
        "records": sorted(records, key=lambda r: r["key"]),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return write_report(out, summary, grid)
