"""The ``recorded`` reference policy: each job at its logged start, by hand."""

from __future__ import annotations

import pandas as pd

from cosched.engine.simulation import simulate
from cosched.platform import Platform
from cosched.policies.recorded import Recorded
from cosched.policies.requirements import supply_profiles
from cosched.workload.job import Workload


def _workload(rows: list[tuple[float, float, float, int]]) -> Workload:
    """Jobs as ``(submit, wait, run, procs)``; a wait of -1 is "not recorded"."""
    t = pd.DataFrame(rows, columns=["submit_time", "wait_time", "run_time", "procs"])
    t["wait_time"] = t["wait_time"].where(t["wait_time"] >= 0)
    t["requested_time"] = t["run_time"]
    t.insert(0, "job_id", range(1, len(t) + 1))
    return Workload.from_table(t)


def _run(w: Workload, procs: int) -> tuple[list[float], dict[str, float], Workload]:
    w, _ = supply_profiles(Recorded.requires, w)
    policy = Recorded()
    result = simulate(w, Platform(procs, 1), policy)
    return result.jobs["start_time"].tolist(), dict(result.diagnostics), w


def test_each_job_starts_at_its_recorded_start() -> None:
    # On 4 processors: job 1 (2 procs) recorded at 0 + 10, job 2 (2 procs) at 5 + 0,
    # job 3 (4 procs) at 6 + 200, after both ended (110 and 55).
    starts, diag, _ = _run(_workload([(0, 10, 100, 2), (5, 0, 50, 2), (6, 200, 10, 4)]), 4)
    assert starts == [10.0, 5.0, 206.0]
    assert diag["recorded_delayed_jobs"] == 0


def test_a_recorded_start_the_machine_cannot_hold_waits_and_is_counted() -> None:
    # Job 1 takes all 4 processors 0..100; job 2 was recorded at 50 (the log's machine
    # was larger): it starts at 100, 50 s late. Job 3 (1 proc, recorded at 120) is on time.
    starts, diag, _ = _run(_workload([(0, 0, 100, 4), (0, 50, 10, 2), (20, 100, 5, 1)]), 4)
    assert starts == [0.0, 100.0, 120.0]
    assert diag == {
        "recorded_delayed_jobs": 1.0,
        "recorded_delay_mean": 50.0,
        "recorded_delay_max": 50.0,
        "recorded_before_submit": 0.0,
    }


def test_a_narrow_job_due_later_passes_a_delayed_wide_one() -> None:
    # 4 processors: job 1 (3 procs) 0..100; job 2 (4 procs) recorded at 10 cannot fit;
    # job 3 (1 proc) recorded at 20 fits beside job 1 and starts on time.
    starts, diag, _ = _run(_workload([(0, 0, 100, 3), (0, 10, 10, 4), (0, 20, 10, 1)]), 4)
    assert starts == [0.0, 100.0, 20.0]
    assert diag["recorded_delayed_jobs"] == 1


def test_jobs_without_a_recorded_start_are_dropped_and_counted() -> None:
    starts, _, w = _run(_workload([(0, 0, 10, 1), (1, -1, 10, 1), (2, 3, 10, 1)]), 4)
    assert starts == [0.0, 5.0]
    assert w.table["job_id"].tolist() == [1, 3]
    assert any("dropped 1 jobs with no recorded start" in n for n in w.notes)


def test_a_workload_recording_no_start_replays_arrivals() -> None:
    # No wait at all (a generated workload): recorded start = submission; on 2
    # processors the second 2-proc job waits for the first (counted as delayed).
    starts, diag, w = _run(_workload([(0, -1, 10, 2), (1, -1, 10, 2)]), 2)
    assert starts == [0.0, 10.0]
    assert diag["recorded_delayed_jobs"] == 1
    assert any("records no start times" in n for n in w.notes)


def test_recorded_starts_before_moved_arrivals_are_counted() -> None:
    w, _ = supply_profiles(Recorded.requires, _workload([(0, 10, 5, 1), (100, 0, 5, 1)]))
    t = w.table.copy()
    t["submit_time"] = [20.0, 100.0]  # job 1's arrival moved after its recorded start 10
    result = simulate(w.replace_table(t), Platform(2, 1), Recorded())
    assert result.jobs["start_time"].tolist() == [20.0, 100.0]
    assert result.diagnostics["recorded_before_submit"] == 1.0
