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


def test_the_coscheduling_variant_runs_from_the_command_line(tmp_path: Path) -> None:
    # One file, not installed: the family's requirements build the shared machine and
    # draw the node-sharing profiles; the queue is shortest-estimate first.
    import pandas as pd

    from cosched.cli.main import main

    out = tmp_path / "jobs.csv"
    ref = f"{EXAMPLES / 'nodeshare_sjf.py'}:NodeshareSjf"
    assert main(["run", "--policy", ref, "--cores", "4", "--jobs-out", str(out)]) == 0
    jobs = pd.read_csv(out)
    assert len(jobs) == 300
    verify_schedule(jobs, capacity=10**9, exact_rates=False)  # after submit, ends once
