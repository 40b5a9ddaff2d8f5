"""Figure 3's utilization, "the percentage of time that the system actually spends in
useful work" (the dynamic coscheduling paper's line 760), under its two readings:
the jobs' dedicated work done (``work_share``, the default) and their computing only
(``compute_share``). Hand cases on one node."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.experiments.model import CellEnv
from cosched.experiments.reproductions import spec
from cosched.families import readings
from cosched.timesharing import TSParams, jobs_table, simulate
from cosched.timesharing.experiment import USEFUL, check, run_cell
from cosched.timesharing.metrics import ts_summary
from cosched.workload.profiles.dyncosched import JOB_TYPES

L = 185.48e-6  # Table 3's one-way latency of 4,096 bytes
# Job type J3 (35% compute, 35% I/O, 30% communication): a one-task job has no
# neighbours, so an iteration of L / 0.3 is half compute, then half I/O.
T_ITER = L / 0.3
RUN = 200 * T_ITER
# No switch or queue cost: the CPU's time is the jobs' compute alone.
FREE = {"context_switch": 0.0, "queue_move": 0.0}


def _summary(jobs_at_zero: int, close: float) -> dict[str, float]:
    """One node at MPL 2: ``jobs_at_zero`` J3 one-task jobs submitted at 0, and one more
    submitted at ``close``, which ends the arrival window [0, close]."""
    jobs = [(0.0, RUN, 1, 3)] * jobs_at_zero + [(close, RUN, 1, 3)]
    r = simulate(
        jobs_table(jobs),
        scheme="Local",
        nodes=1,
        mpl=2,
        rng=np.random.default_rng(0),
        params=TSParams(**FREE),
    )
    return ts_summary(r, nodes=1, mpl=2)


def test_one_job_alone_the_readings_differ_by_its_compute_share() -> None:
    # Window [0, 10.25 T_ITER]: ten whole iterations and a quarter (half of the eleventh
    # iteration's compute phase). Computed: 10 x T/2 + T/4 = 5.25 T, so compute_share =
    # 5.25 / 10.25. Each compute second of a job that computes half its dedicated time
    # stands for 2 s of its work: work_share = 10.5 / 10.25. They differ by 5.25 / 10.25.
    m = _summary(1, 10.25 * T_ITER)
    assert m["compute_share"] == pytest.approx(5.25 / 10.25, rel=1e-9)
    assert m["work_share"] == pytest.approx(10.5 / 10.25, rel=1e-9)
    assert m["work_share"] - m["compute_share"] == pytest.approx(5.25 / 10.25, rel=1e-9)


def test_two_jobs_overlapping_io_with_compute_do_two_seconds_of_work_a_second() -> None:
    # Two such jobs: one's I/O (half an iteration) overlaps the other's compute, so the
    # CPU computes without a gap: compute_share 1. Each compute second stands for 2 s of
    # a job's dedicated work: work_share 2, above 100% (a reading of work, not of a
    # time share: the paper's own ceilings, 57% and 77%, do not reach it).
    m = _summary(2, 50.25 * T_ITER)
    assert m["compute_share"] == pytest.approx(1.0, rel=1e-9)
    assert m["work_share"] == pytest.approx(2.0, rel=1e-9)


def test_the_cell_reports_the_reading_it_names_and_refuses_others() -> None:
    base = {"workload": "WL3", "load": 0.5, "skew": 0.2, "mpl": 5, "scheme": "SB",
            "n_jobs": 12, "msg_factor": 1}  # fmt: skip
    assert set(USEFUL) == {"work", "compute"}
    work = run_cell(base, 1, CellEnv())
    assert work["useful_share"] == work["work_share"]  # the default reading
    compute = run_cell(base | {"useful": "compute"}, 1, CellEnv())
    assert compute["useful_share"] == compute["compute_share"]
    # WL3 is all J3 jobs: every compute second stands for 1 / 0.35 s of work (a job of
    # one task: 1 / 0.5), so the work share lies between 1 / 0.35 and 2 times the other.
    assert 2.0 <= work["work_share"] / work["compute_share"] <= 1 / 0.35 + 1e-9
    with pytest.raises(ConfigError, match="'useful' must be one of work, compute"):
        check(base | {"useful": "busy"})


def test_the_reproduction_reads_work_and_the_compute_reading_names_the_other() -> None:
    # The spec's every cell reads the jobs' dedicated work (the text's reading: GS's
    # computing share cannot reach the paper's 57% on WL7, whose mean compute share is
    # (35 + 35 + 35 + 90 + 35 + 65) / 6 = 49.2%).
    assert sum(JOB_TYPES[k][0] for k in range(1, 7)) / 6 == pytest.approx(0.4917, abs=1e-4)
    assert {t.columns["useful"] for t in spec("dyncosched", quick=True).tasks()} == {"work"}
    by_name = {m.name: m for m in readings("dyncosched")}
    assert by_name["dyncosched-compute"].reading == "useful=compute"
    assert by_name["dyncosched-load-half"].reading == "load_scale=0.5"


def test_load_scale_multiplies_the_offered_load_and_must_be_positive() -> None:
    base = {"workload": "WL4", "load": 1.0, "skew": 0.2, "mpl": 5, "scheme": "GS",
            "n_jobs": 12, "msg_factor": 1}  # fmt: skip
    out = run_cell(base | {"load_scale": 0.5}, 1, CellEnv())
    assert out["offered_load"] == 0.5
    with pytest.raises(ConfigError, match="'load_scale' must be > 0"):
        check(base | {"load_scale": 0})
