"""Per-job outputs: cosched's CSV and Parquet, Batsim's jobs.csv (read by evalys), SWF."""

from __future__ import annotations

import itertools
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.metrics import outcomes
from cosched.outputs import assign_resources, interval_set
from cosched.platform import Platform
from cosched.workload.swf import read_swf

matplotlib.use("Agg")


def test_interval_sets_by_hand() -> None:
    assert interval_set([8, 0, 1, 2, 3]) == "0-3 8"
    assert interval_set([5]) == "5"
    assert interval_set([]) == ""


def test_a_pool_run_gets_the_lowest_free_processors_ends_before_starts() -> None:
    # 4 processors: A and B start at 0 (2 each); B ends at 5 and C (2) starts at 5.
    jobs = pd.DataFrame(
        {
            "job_id": [1, 2, 3],
            "start_time": [0.0, 0.0, 5.0],
            "end_time": [10.0, 5.0, 10.0],
            "size": [2, 2, 2],
        }
    )
    held = assign_resources(jobs, Platform.of_procs(4))
    assert [interval_set(h) for h in held] == ["0-1", "2-3", "2-3"]


def test_placements_become_slots_on_their_nodes() -> None:
    # 2 nodes x 2 cores; job 0 takes one core on each node, job 1 the other core of node 1.
    jobs = pd.DataFrame(
        {"job_id": [1, 2], "start_time": [0.0, 0.0], "end_time": [4.0, 4.0], "size": [2, 1]}
    )
    platform = Platform(2, 2, "nodes", max_jobs_per_node=2)
    held = assign_resources(jobs, platform, {0: ((0, 1), (1, 1)), 1: ((1, 1),)})
    assert [interval_set(h) for h in held] == ["0 2", "3"]


def _never_shared(table: pd.DataFrame) -> None:
    """No resource id is held by two jobs at once (from the written file alone)."""
    spans: dict[int, list[tuple[float, float]]] = {}
    for row in table.itertuples():
        for part in str(row.allocated_resources).split():
            lo, _, hi = part.partition("-")
            for r in range(int(lo), int(hi or lo) + 1):
                spans.setdefault(r, []).append((row.starting_time, row.finish_time))
    for r, s in spans.items():
        s.sort()
        for (_, end), (start, _) in itertools.pairwise(s):
            assert start >= end - 1e-9, f"resource {r} shared"


def test_evalys_loads_a_node_sharing_run_and_draws_its_gantt(tmp_path: Path) -> None:
    from evalys.jobset import JobSet

    out = tmp_path / "jobs.csv"
    args = ["run", "--policy", "nodeshare", "--cores", "4", "--limit", "120"]
    assert main([*args, "--jobs-out", str(out), "--jobs-format", "batsim"]) == 0
    table = pd.read_csv(out)
    assert len(table) == 120
    _never_shared(table)
    js = JobSet.from_csv(str(out))
    assert len(js.df) == 120
    assert js.MaxProcs <= 64  # 16 nodes x 4 cores: the bundled example's 64 processors
    import matplotlib.pyplot as plt

    js.gantt(title="nodeshare")  # evalys draws on a figure of its own
    plt.gcf().savefig(tmp_path / "gantt.png")
    plt.close("all")
    assert (tmp_path / "gantt.png").stat().st_size > 1000


def test_a_batsim_layout_of_a_pool_run_never_shares_a_processor(tmp_path: Path) -> None:
    out = tmp_path / "jobs.csv"
    assert main(["run", "--jobs-out", str(out), "--jobs-format", "batsim"]) == 0
    table = pd.read_csv(out)
    _never_shared(table)
    sizes = [sum(1 for _ in _ids(a)) for a in table["allocated_resources"]]
    assert sizes == list(table["requested_number_of_resources"])


def _ids(text: str) -> list[int]:
    out = []
    for part in text.split():
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


@pytest.mark.parametrize(("policy", "exact"), [("easy", True), ("nodeshare", False)])
def test_a_written_swf_schedule_reads_back_with_its_times(
    tmp_path: Path, policy: str, exact: bool
) -> None:
    csv, swf = tmp_path / "jobs.csv", tmp_path / "schedule.swf"
    base = ["run", "--policy", policy, "--cores", "4"] if policy != "easy" else ["run"]
    assert main([*base, "--jobs-out", str(csv)]) == 0
    assert main([*base, "--jobs-out", str(swf)]) == 0
    jobs = pd.read_csv(csv)
    back = read_swf(swf).table
    start = back["submit_time"] + back["wait_time"]
    end = start + back["run_time"]
    assert list(back["job_id"]) == list(jobs["job_id"])
    if exact:  # a schedule without rates has whole-second times: identical
        assert (start.to_numpy() == jobs["start_time"].to_numpy()).all()
        assert (end.to_numpy() == jobs["end_time"].to_numpy()).all()
    else:  # SWF holds whole seconds
        assert np.abs(start.to_numpy() - jobs["start_time"].to_numpy()).max() <= 0.5
        assert np.abs(end.to_numpy() - jobs["end_time"].to_numpy()).max() <= 0.5


def test_csv_times_are_integers_when_whole_and_parquet_equals_the_table(tmp_path: Path) -> None:
    csv, pq = tmp_path / "jobs.csv", tmp_path / "jobs.parquet"
    assert main(["run", "--jobs-out", str(csv)]) == 0
    assert main(["run", "--jobs-out", str(pq)]) == 0
    first = csv.read_text().splitlines()[1].split(",")
    assert all("." not in v for v in first[:4])  # job_id, submit, start, end as integers
    a = pd.read_csv(csv)
    b = pd.read_parquet(pq)
    assert list(a.columns) == list(b.columns) == list(outcomes(b).columns)
    np.testing.assert_array_equal(a["end_time"].to_numpy(dtype=float), b["end_time"].to_numpy())
