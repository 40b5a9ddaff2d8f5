"""The examples run as tests, so they never drift from the library."""

from __future__ import annotations

import runpy
from pathlib import Path

from cosched.engine.invariants import verify_schedule

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_largest_first_example_runs_and_registers() -> None:
    module = runpy.run_path(str(EXAMPLES / "largest_first.py"))
    summary = module["main"]()
    assert summary["jobs"] == 300
    assert 0 < summary["utilization"] <= 1


def test_largest_first_schedule_is_feasible() -> None:
    from cosched import simulate
    from cosched.platform import Platform
    from cosched.workload import load_workload
    from cosched.workload.sources import bundled_path

    runpy.run_path(str(EXAMPLES / "largest_first.py"))
    w = load_workload(bundled_path())
    r = simulate(w, Platform.of_procs(64), "largest-first")
    verify_schedule(r.jobs, capacity=64)
