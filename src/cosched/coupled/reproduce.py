"""``cosched reproduce coupled``: Figures 3-10 of the coupled-systems paper.

Two studies on a compute machine (LLNL Atlas) coupled with an analysis machine (KTH
SP2), both scheduled by WFP with EASY backfilling, releasing held nodes every 20
minutes (see :mod:`cosched.coupled.workloads` for the traces and why):

* load (Figures 3-6): the analysis machine at offered load 0.25, 0.5 and 0.75; mates
  by submission within 2 minutes (the paper's rule);
* proportion (Figures 7-10): load 0.5; 2.5, 5, 10, 20 and 33% of the analysis jobs
  paired with the nearest compute job in submit time, ``seeds`` random draws each.

Each configuration runs HH, HY, YH, YY (compute scheme first) and a baseline without
coscheduling. A cell is written to ``out/cells/<key>.json`` atomically as soon as it
finishes and skipped when rerun, so a long reproduction never loses finished results.
``out/summary.json`` has one record per cell; ``out/report.md`` the figures and the
paper's findings beside cosched's.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from cosched.coupled.coordinator import CoupledResult, run_coupled
from cosched.coupled.domain import DEFAULT_RELEASE_PERIOD
from cosched.coupled.errors import CoupledDeadlockError
from cosched.coupled.metrics import coupled_metrics, verify_sync
from cosched.coupled.spec import DomainSpec
from cosched.coupled.workloads import (
    ANALYSIS_PLATFORM,
    ANALYSIS_TRACE,
    COMPUTE_PLATFORM,
    COMPUTE_TRACE,
    MONTH,
    analysis_workload,
    compute_workload,
    pair_nearest,
)
from cosched.errors import ConfigError
from cosched.workload.profiles.coupled import pair_workloads

__all__ = ["SCHEMES", "TRACES", "cells", "run", "run_cell"]

#: Where the traces are read from by default: the shared folder beside the repository
#: (``COSCHED_TRACES`` overrides it).
TRACES = Path(__file__).resolve().parents[4] / "shared" / "traces"
#: Scheme combinations, compute machine first; "base" is coscheduling off.
SCHEMES: dict[str, tuple[str, str]] = {
    "HH": ("hold", "hold"),
    "HY": ("hold", "yield"),
    "YH": ("yield", "hold"),
    "YY": ("yield", "yield"),
}
LOADS = (0.25, 0.5, 0.75)
PROPORTIONS = (0.025, 0.05, 0.1, 0.2, 0.33)
MACHINES = ("compute", "analysis")


def cells(*, quick: bool) -> list[dict[str, Any]]:
    """The grid: one dict per simulation, with a unique ``key``."""
    span = 10 * 86400.0 if quick else MONTH
    seeds = (1,) if quick else (1, 2, 3)
    out = []
    for load in LOADS:
        for scheme in ("base", *SCHEMES):
            out.append(
                {
                    "study": "load",
                    "load": load,
                    "proportion": None,
                    "scheme": scheme,
                    "seed": 0,
                    "span": span,
                }
            )
    for prop in PROPORTIONS:
        for seed in seeds:
            for scheme in SCHEMES:
                out.append(
                    {
                        "study": "proportion",
                        "load": 0.5,
                        "proportion": prop,
                        "scheme": scheme,
                        "seed": seed,
                        "span": span,
                    }
                )
    for c in out:
        x = c["load"] if c["study"] == "load" else c["proportion"]
        c["key"] = f"{c['study']}-{x:g}-{c['scheme']}-s{c['seed']}"
    return out


def run_cell(
    cell: dict[str, Any], traces: Path = TRACES, transport: str = "local"
) -> dict[str, Any]:
    """Simulate one cell; the record written to ``cells/<key>.json``.

    ``transport``: ``local`` (one process) or ``tcp`` (each machine its own serve
    process, see :mod:`cosched.coupled.transport`); the record is the same.
    """
    span = float(cell["span"])
    wc = compute_workload(traces, span=span)
    wa = analysis_workload(traces, load=float(cell["load"]), span=span)
    rng = np.random.default_rng(np.random.SeedSequence([int(cell["seed"]), 6]))
    if cell["proportion"] is None:
        wc, wa = pair_workloads(wc, wa, rng=rng)
    else:
        wc, wa = pair_nearest(wc, wa, proportion=float(cell["proportion"]), rng=rng)
    scheme = cell["scheme"]
    enabled = scheme != "base"
    sc, sa = SCHEMES.get(scheme, ("hold", "hold"))
    specs = [
        DomainSpec("compute", wc, COMPUTE_PLATFORM, scheme=sc, enabled=enabled),  # type: ignore[arg-type]
        DomainSpec("analysis", wa, ANALYSIS_PLATFORM, scheme=sa, enabled=enabled),  # type: ignore[arg-type]
    ]
    record: dict[str, Any] = {k: cell[k] for k in sorted(cell)}
    try:
        res = _simulate(specs, transport)
    except CoupledDeadlockError as exc:
        record.update(status="deadlock", error=str(exc))
        return record
    if res.faults:
        # Only over TCP: a domain process died or hung. The record names what happened;
        # a cell that lost a machine for good has no metrics to compare.
        record["faults"] = [dict(f) for f in res.faults]
        if any(f["event"] == "lost" for f in res.faults):
            record.update(status="lost", error="a machine's process was lost, see faults")
            return record
    if enabled:
        verify_sync(res)
    record.update(status="ok", sync_verified=enabled, machines=coupled_metrics(res))
    record["stats"] = {n: dict(r.stats) for n, r in res.results.items()}
    return record


def _simulate(specs: list[DomainSpec], transport: str) -> CoupledResult:
    if transport == "local":
        return run_coupled([s.build() for s in specs])
    if transport == "tcp":
        from cosched.coupled.transport import run_tcp

        return run_tcp(specs)
    raise ConfigError(f"transport must be 'local' or 'tcp', got {transport!r}")


def _write_json(path: Path, obj: Any) -> None:
    """Write atomically: a temporary file in the same folder, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(obj, f, indent=1, sort_keys=True, allow_nan=True)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _pending(grid: list[dict[str, Any]], store: Path) -> Iterator[dict[str, Any]]:
    for c in grid:
        if not (store / f"{c['key']}.json").exists():
            yield c


def _run_all(
    grid: list[dict[str, Any]],
    store: Path,
    traces: Path,
    workers: int,
    say: Callable[[str], None],
    transport: str = "local",
) -> None:
    todo = list(_pending(grid, store))
    say(f"coupled: {len(grid) - len(todo)} of {len(grid)} cells already done")
    if workers <= 1:
        for k, c in enumerate(todo, 1):
            _write_json(store / f"{c['key']}.json", run_cell(c, traces, transport))
            say(f"coupled: {k}/{len(todo)} {c['key']}")
        return
    with cf.ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_cell, c, traces, transport): c for c in todo}
        for k, fut in enumerate(cf.as_completed(futures), 1):
            c = futures[fut]
            _write_json(store / f"{c['key']}.json", fut.result())
            say(f"coupled: {k}/{len(todo)} {c['key']}")


def run(
    out: Path,
    *,
    quick: bool,
    workers: int,
    progress: Callable[[str], None] | None,
    traces: Path | None = None,
    transport: str = "local",
) -> Path:
    """Run the reproduction into ``out``; returns the path of ``report.md``.

    ``transport``: ``local`` or ``tcp`` (each machine its own process); same results.
    """
    from cosched.coupled.report import write_report

    if traces is None:
        traces = Path(os.environ.get("COSCHED_TRACES", TRACES))
    for name in (COMPUTE_TRACE, ANALYSIS_TRACE):
        if not (traces / name).exists():
            raise ConfigError(f"coupled reproduction needs {traces / name}")
    say = progress if progress is not None else (lambda _m: None)
    out = Path(out)
    grid = cells(quick=quick)
    store = out / "cells"
    if transport not in ("local", "tcp"):
        raise ConfigError(f"transport must be 'local' or 'tcp', got {transport!r}")
    _run_all(grid, store, traces, max(1, workers), say, transport)
    records = [json.loads((store / f"{c['key']}.json").read_text()) for c in grid]
    _write_json(out / "summary.json", records)
    report = write_report(out, records, quick=quick, settings=_settings(quick))
    say(f"coupled: report in {report}")
    return report


def _settings(quick: bool) -> dict[str, Any]:
    return {
        "compute": f"{COMPUTE_TRACE}, {COMPUTE_PLATFORM.nodes} nodes allocated whole",
        "analysis": f"{ANALYSIS_TRACE}, {ANALYSIS_PLATFORM.nodes} nodes",
        "span_days": 10 if quick else 30,
        "release_period_s": DEFAULT_RELEASE_PERIOD,
        "policy": "EASY backfilling with Cobalt's WFP order on both machines",
        "quick": quick,
    }


def mean_over_seeds(records: list[dict[str, Any]], study: str) -> dict[tuple[float, str], Any]:
    """``(x, scheme) -> {machine: {metric: mean over seeds}}`` for the finished cells."""
    groups: dict[tuple[float, str], list[dict[str, Any]]] = {}
    for r in records:
        if r["study"] != study or r.get("status") != "ok":
            continue
        x = r["load"] if study == "load" else r["proportion"]
        groups.setdefault((x, r["scheme"]), []).append(r["machines"])
    out: dict[tuple[float, str], Any] = {}
    for key, ms in groups.items():
        out[key] = {
            m: {k: float(np.mean([x[m][k] for x in ms])) for k in ms[0][m]} for m in MACHINES
        }
    return out


def finite(x: float) -> bool:
    """Whether ``x`` is a finite number."""
    return isinstance(x, int | float) and math.isfinite(x)
