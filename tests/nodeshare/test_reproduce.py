"""The reproduction's pieces on small inputs; trace tests skip without ../shared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cosched.errors import ConfigError
from cosched.experiments.model import Experiment
from cosched.experiments.reproductions import spec
from cosched.nodeshare import outputs
from cosched.nodeshare.experiment import TRACE, Cell, cell_summary, prepare, simulate_cell

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "traces"
needs_trace = pytest.mark.skipif(
    not (SHARED / TRACE).exists(), reason=f"{TRACE} not found in {SHARED} (../shared absent)"
)


def _jobs(turnaround):
    ta = np.asarray(turnaround, dtype=float)
    return pd.DataFrame({"job_id": np.arange(len(ta)), "submit_time": 0.0, "end_time": ta})


def test_negate_and_invert():
    r = outputs.turnaround_ratios(_jobs([10, 10, 30]), _jobs([5, 20, 30]))
    np.testing.assert_allclose(r, [2.0, -2.0, 1.0])
    q = outputs.ratio_quartiles(r)
    assert q["q0"] == -2.0 and q["q100"] == 2.0 and q["q50"] == 1.0
    with pytest.raises(ConfigError):
        outputs.turnaround_ratios(_jobs([1, 2]), _jobs([1]))


def test_execution_changes_and_counts():
    jobs = pd.DataFrame(
        {"start_time": [0.0] * 5, "end_time": [5.0, 10.0, 13.0, 20.0, 50.0], "run_time": [10.0] * 5}
    )
    c = outputs.execution_changes(jobs)
    assert (c["sped_up"], c["unchanged"], c["slowed_down"]) == (1, 1, 3)
    assert (c["slowed_over_1.2"], c["slowed_over_2"], c["slowed_over_5"]) == (3, 2, 1)
    chosen = {0: (0, False, 0.9), 1: (6, True, 3.0), 2: (4, True, 1.6)}
    cfg = outputs.configuration_counts(chosen)
    assert cfg["degraded"] == 2 and cfg["(4n x 1/4C)"] == 1
    assert outputs.blocked_counts({1: "capacity", 2: "capacity", 3: "fragmentation"}) == {
        "fragmentation": 1,
        "capacity": 2,
    }


def test_spec_has_the_paper_experiments():
    full = [t.columns for t in spec("nodeshare").tasks()]
    assert {c["trace"] for c in full} == {1, 2, 3, 4}
    assert {c["nodes"] for c in full} >= {500, 1158, 2000}
    cos = [c for c in full if c["variant"] == "cosched" and c["trace"] == 1 and c["nodes"] == 1158]
    assert len(cos) == 5
    assert len(full) == 231 and len(spec("nodeshare", quick=True).tasks()) == 64


@needs_trace
def test_windows_do_not_overlap_and_keep_node_counts():
    ids = [set(prepare(t, 2_000, 1, SHARED / TRACE).table["job_id"]) for t in range(2)]
    assert not ids[0] & ids[1]
    w = prepare(0, 2_000, 1, SHARED / TRACE)
    assert (w.table["procs"] % 16 == 0).all()
    assert w.table["ns_mem_sensitivity"].isin([0, 1, 2]).all()


@needs_trace
def test_jobs_wider_than_a_swept_machine_are_dropped_and_counted():
    w = prepare(0, 2_000, 1, SHARED / TRACE)
    widest = int(w.table["procs"].max()) // 16
    nodes = max(widest // 2, 1)
    want = int((w.table["procs"] > nodes * 16).sum())
    assert want > 0
    rec = simulate_cell(
        Cell(trace=0, variant="fcfs", seed=0, nodes=nodes, jobs=2_000), SHARED / TRACE
    )
    assert rec["dropped_too_wide"] == want
    assert rec["jobs"] == 2_000 - want  # the summary counts the jobs that ran


def test_cell_summary_loads_in_cores_and_uses_occupancy():
    # Two one-node jobs (16 cores) of 10 s submitted 10 s apart on a 1-node machine: the
    # offered load is 2 (in cores, not 32 = core-seconds / nodes); the second job holds
    # half a node (occupancy 0.5), so utilization is (10 + 5) / (1 x 20).
    jobs = pd.DataFrame(
        {
            "job_id": [0, 1],
            "submit_time": [0.0, 10.0],
            "start_time": [0.0, 10.0],
            "end_time": [10.0, 20.0],
            "procs": [16, 16],
            "size": [1, 1],
            "run_time": [10.0, 10.0],
            "occupancy": [1.0, 0.5],
        }
    )
    s = cell_summary(jobs, 1)
    assert s["offered_load"] == pytest.approx(2.0)
    assert s["utilization"] == pytest.approx(0.75)


def _cut_down(grid: list[dict[str, Any]], source: str) -> Experiment:
    """The nodeshare reproduction's spec on Trace1's first 1,500 jobs at 1158 nodes, with
    only the cells of ``grid``."""
    import tomllib

    from cosched.experiments.model import experiment_from_dict
    from cosched.experiments.reproductions import spec_text

    data = tomllib.loads(spec_text("nodeshare"))
    data.pop("quick")
    data["params"] = {"window_jobs": 1_500, "nodes": 1158}
    data["grid"] = grid
    return experiment_from_dict(data, source=source)


@needs_trace
def test_tiny_reproduction_report_and_resume(tmp_path: Path) -> None:
    from cosched.experiments.runner import run_experiment

    exp = _cut_down(
        [
            {"trace": 1, "variant": ["fcfs", "easy"], "seeds": [0]},
            {"trace": 1, "variant": "cosched", "seeds": [1, 2]},
        ],
        "tiny",
    )
    table = run_experiment(exp, tmp_path / "a", trace_dirs=[SHARED])
    assert (table["status"] == "ok").all() and len(table) == 4
    assert (table["jobs"] == 1_500).all()
    assert len(list((tmp_path / "a" / "turnaround").glob("*.parquet"))) == 4
    report = (tmp_path / "a" / "report.md").read_text()
    assert "| easy vs cosched | cosched |" in report  # Table 1 from the turnaround tables
    assert "| Trace1 | cosched |" in report
    # A second folder with one stored cell (its file and its table) runs the rest and
    # ends with the same bytes.
    kept = next((tmp_path / "a" / "cells").glob("*.parquet")).name
    for sub in ("cells", "turnaround"):
        (tmp_path / "b" / sub).mkdir(parents=True)
        (tmp_path / "b" / sub / kept).write_bytes((tmp_path / "a" / sub / kept).read_bytes())
    run_experiment(exp, tmp_path / "b", trace_dirs=[SHARED])
    for name in ("results.parquet", "report.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


@needs_trace
def test_a_cut_down_spec_reports_what_it_lacks_instead_of_failing(tmp_path: Path) -> None:
    # The spec's header invites editing a copy; without FCFS the tables (which compare
    # to FCFS and EASY) cannot be built, and the report says so instead of a traceback.
    from cosched.experiments.runner import run_experiment

    exp = _cut_down(
        [
            {"trace": 1, "variant": "easy", "seeds": [0]},
            {"trace": 1, "variant": "cosched", "seeds": [1]},
        ],
        "cut",
    )
    table = run_experiment(exp, tmp_path, trace_dirs=[SHARED])
    assert (table["status"] == "ok").all()
    report = (tmp_path / "report.md").read_text()
    assert "variant 'fcfs' on Trace1 at 1158 nodes, which this run does not have" in report
    assert "| fig1-vs-easy-T1 |" in report  # the claims present are still judged


@needs_trace
@pytest.mark.slow
def test_windows_read_from_the_first_lines_match_the_whole_trace():
    """``_window`` reads only the trace's first lines (the jobs are in submit order): each
    of the four windows is the one cut from the whole trace, column for column."""
    from cosched.nodeshare import experiment
    from cosched.workload import LoadRules, load_workload
    from cosched.workload.loader import TooWide
    from cosched.workload.transforms import window

    whole = load_workload(SHARED / TRACE, rules=LoadRules(too_wide=TooWide.DROP))
    for i, start in enumerate(experiment.WINDOW_STARTS):
        got = experiment._window(i, 20_000, SHARED / TRACE)
        want = window(whole, start, 20_000)
        assert len(got) == 20_000
        for col in ("job_id", "submit_time", "run_time", "requested_time"):
            np.testing.assert_array_equal(got.columns[col], want.columns[col])
        np.testing.assert_array_equal(
            got.columns["procs"], np.ceil(want.columns["procs"] / 8).astype(np.int64) * 16
        )


def loaded_on_the_bench_path(
    tmp_path: Path, policies: tuple[str, ...] = ("nodeshare-easy",), env: dict | None = None
) -> dict[str, bool]:
    """Whether pandas and numba were loaded by a child process that prepares a window
    and simulates it with each of ``policies``, as the bench does (on a small SWF file
    in place of the trace)."""
    import subprocess
    import sys

    lines = [
        f"{i} {i * 10} -1 {50 + i} {16 * (1 + i % 3)} -1 -1 {16 * (1 + i % 3)} 100 -1 1 1 1"
        " -1 1 -1 -1 -1"
        for i in range(1, 41)
    ]
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 64\n; MaxNodes: 8\n" + "\n".join(lines) + "\n")
    code = (
        "import sys\n"
        "from cosched.nodeshare import experiment as e\n"
        "e.WINDOW_STARTS = (0,)\n"
        "from cosched.engine.simulation import Simulation\n"
        "from cosched.platform import Platform\n"
        "from cosched.policies.base import make_policy\n"
        f"w = e.prepare(0, 30, 1, {str(path)!r})\n"
        "p = Platform(nodes=8, cores=16, allocation='nodes', max_jobs_per_node=3)\n"
        f"for name in {policies!r}:\n"
        "    r = Simulation(w, p, make_policy(name)).run()\n"
        "    assert r.stats['decisions'] == 30\n"
        "print('pandas' in sys.modules, 'numba' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    pandas, numba = out.stdout.split()
    return {"pandas": pandas == "True", "numba": numba == "True"}


def test_a_cell_is_prepared_and_simulated_without_pandas(tmp_path):
    """The bench's path (prepare a window, simulate it) loads no pandas: about 0.2 s of
    every run. (Reading the result's ``jobs`` as a DataFrame loads it, as it
    should.)"""
    assert not loaded_on_the_bench_path(tmp_path)["pandas"]


@needs_trace
def test_extra_policy_parameters_reach_the_policy() -> None:
    # The fig3 preset's own victim weights passed as extra: the same run, bit for bit;
    # ten times them (the prior preset's): the record names them and the runs differ.
    from cosched.nodeshare.interference import PRESETS

    fig3 = {k: v for k, v in PRESETS["fig3"].items() if k.startswith("victim_")}
    cell = Cell(0, "cosched", 1, 1158, 500)
    plain = simulate_cell(cell, SHARED / TRACE)
    same = simulate_cell(cell, SHARED / TRACE, extra=fig3)
    assert same["turnaround"] == plain["turnaround"] and plain["params"] == {}
    strong = {k: 10 * v for k, v in fig3.items()}
    harsh = simulate_cell(cell, SHARED / TRACE, extra=strong)
    assert harsh["params"] == strong and harsh["turnaround"] != plain["turnaround"]
