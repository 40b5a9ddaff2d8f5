"""Hand-computed schedules for the batch baselines."""

from __future__ import annotations

import pytest

from cosched import simulate
from cosched.platform import Platform
from cosched.workload.job import Workload

# 100 processors; (submit, procs, run = request): the case that separates
# EASY (one reservation, for the head) from conservative (a reservation for every job).
SEPARATING = [(0, 70, 100), (1, 80, 100), (2, 90, 100), (50, 20, 250)]


def ends(policy: str, rows: list, procs: int = 100, **params: object) -> list[float]:
    w = Workload.from_jobs(rows)
    r = simulate(w, Platform.of_procs(procs), policy, check=True, **params)
    return r.jobs["end_time"].tolist()


def test_fcfs_separating_case() -> None:
    # Strictly in order: 0-100, 100-200, 200-300, then the 20-proc job 300-550.
    assert ends("fcfs", SEPARATING) == [100, 200, 300, 550]


def test_easy_separating_case() -> None:
    # At t=50: running job 1 (70 procs, ends 100); head is job 2 (80 procs) with shadow
    # 100 and extra 100 - 80 = 20 units. Job 3 (90) does not fit; job 4 (20 procs, to
    # t=300) fits the 30 free units and uses only the 20 extra ones, so it backfills.
    # Job 2 runs 100-200; job 3 needs 90 but job 4 holds 20 until 300: it runs 300-400.
    assert ends("easy", SEPARATING) == [100, 200, 400, 300]


def test_conservative_separating_case() -> None:
    # Job 3 holds a reservation at 200-300 for 90 procs; job 4 (20 procs, 250 s)
    # would overlap it, so it reserves after: 300-550.
    assert ends("conservative", SEPARATING) == [100, 200, 300, 550]


def test_conservative_compresses_after_early_finish() -> None:
    # 10 procs. A: 10 procs, runs 10 s but requests 100. B (submit 1): 10 procs, 50 s
    # reserved at 100. C (submit 2): 5 procs, 20 s, reserved at 150 (after B).
    # A ends at 10: compression moves B to 10 (ends 60) and C to 60 (ends 80), never later.
    rows = [(0, 10, 10, 100), (1, 10, 50, 50), (2, 5, 20, 20)]
    assert ends("conservative", rows, procs=10) == [10, 60, 80]


def test_conservative_backfills_into_hole() -> None:
    # 10 procs. A runs 0-100 on 6 procs; B (8 procs) reserves 100-200; C (4 procs,
    # 50 s) fits beside A now and ends before B's reservation: it starts at 1.
    rows = [(0, 6, 100), (1, 8, 100), (1, 4, 50)]
    assert ends("conservative", rows, procs=10) == [100, 200, 51]


def test_easy_window_zero_is_fcfs() -> None:
    assert ends("easy", SEPARATING, window=0) == ends("fcfs", SEPARATING)


def test_easy_backfills_by_estimates_by_default() -> None:
    # 10 procs. A: 6 procs, runs 10 s, requests 100. B (head): 8 procs, 10 s. C: 4 procs,
    # 50 s. By requested times B's shadow is 100 (extra 2), and C, ending at 52, backfills
    # at 2; B then waits for C and runs 52-62.
    rows = [(0, 6, 10, 100), (1, 8, 10, 10), (2, 4, 50, 50)]
    assert ends("easy", rows, procs=10) == [10, 62, 52]


def test_easy_with_exact_run_times() -> None:
    # Same jobs, exact estimates: B's shadow is 10; C would end at 52 > 10 and needs
    # 4 > 2 extra procs, so it does not backfill. B runs 10-20, C 20-70.
    w = Workload.from_jobs([(0, 6, 10, 100), (1, 8, 10, 10), (2, 4, 50, 50)])
    r = simulate(w, Platform.of_procs(10), "easy", estimates="exact", check=True)
    assert r.jobs["end_time"].tolist() == [10, 20, 70]


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_all_jobs_run_alone_on_empty_machine(policy: str) -> None:
    rows = [(0, 4, 10), (100, 4, 10), (200, 4, 10)]
    assert ends(policy, rows, procs=4) == [10, 110, 210]


def test_node_allocation_rounds_up_to_whole_nodes() -> None:
    # 4 nodes x 4 cores; two 5-core jobs need 2 nodes each and fit together; a third waits.
    w = Workload.from_jobs([(0, 5, 10), (0, 5, 10), (0, 5, 10)])
    r = simulate(w, Platform(4, 4, "nodes"), "fcfs", check=True)
    assert r.jobs["end_time"].tolist() == [10, 10, 20]
    # In cores allocation all three (15 of 16 cores) fit at once.
    r = simulate(w, Platform(4, 4, "cores"), "fcfs", check=True)
    assert r.jobs["end_time"].tolist() == [10, 10, 10]


def test_easy_extra_counts_every_job_ending_at_the_shadow_time() -> None:
    # 33 procs. A (5 procs) runs 0-243. B (29 procs) is the head: free 28, shadow 243.
    # C (4 procs, 188 s) backfills at 55 and ends exactly at 243. At 105, D (1 proc, 1 s)
    # ends in time; E (1 proc, 139 s) runs past the shadow but fits the extra units:
    # at 243 both A and C end, so 24 + 5 + 4 = 33 units are free, 4 beyond B's 29.
    rows = [(0, 5, 243), (5, 29, 1), (55, 4, 188), (105, 1, 1), (105, 1, 139)]
    w = Workload.from_jobs(rows)
    r = simulate(w, Platform.of_procs(33), "easy", check=True)
    assert r.jobs["start_time"].tolist() == [0, 243, 55, 105, 105]
