"""``cosched validate`` and the schedule comparison it prints, checked by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.metrics.validate import ScheduleComparison, binned_level, compare_schedules, judge

FIX = Path(__file__).resolve().parents[1] / "workload" / "fixtures"


def _table(starts: list[float]) -> pd.DataFrame:
    n = len(starts)
    return pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit_time": np.zeros(n),
            "start_time": np.array(starts, dtype=float),
            "end_time": np.array(starts, dtype=float) + 100.0,
            "procs": np.ones(n, dtype=np.int64),
            "size": np.ones(n, dtype=np.int64),
            "run_time": np.full(n, 100.0),
            "requested_time": np.full(n, 100.0),
        }
    )


def test_identical_schedules_match_fully() -> None:
    t = _table([0, 10, 5000])
    c = compare_schedules(t, t, capacity=4)
    assert (c.ks_statistic, c.within_share) == (0.0, 1.0)
    assert c.recorded["mean_wait"] == c.simulated["mean_wait"] == 5010 / 3


def test_ks_and_within_an_hour_by_hand() -> None:
    # Recorded waits 0, 0, 0, 0; simulated 0, 3600, 3601, 7200. Within an hour: the first
    # two (gap 0 and 3600 s). KS: the empirical CDFs differ most just above 0: 1 vs 1/4.
    c = compare_schedules(_table([0, 0, 0, 0]), _table([0, 3600, 3601, 7200]), capacity=4)
    assert c.within_share == 0.5
    assert c.ks_statistic == pytest.approx(0.75)
    assert c.simulated["mean_wait"] == pytest.approx((3600 + 3601 + 7200) / 4)


@pytest.mark.parametrize(
    ("ks", "within", "level"),
    [
        (0.05, 0.95, "close"),
        (0.10, 0.80, "close"),  # both bounds are inclusive
        (0.11, 0.95, "loose"),  # the CDFs 11 points apart somewhere
        (0.05, 0.79, "loose"),  # one job in five and a bit off by over an hour
        (0.25, 0.50, "loose"),
        (0.26, 0.95, "poor"),
        (0.05, 0.49, "poor"),
        (0.413, 0.478, "poor"),  # the SDSC-SP2 log imported from sacct, under EASY
    ],
)
def test_the_judgement_thresholds(ks: float, within: float, level: str) -> None:
    cmp = ScheduleComparison({}, {}, ks, 0.0, within, 3600.0)
    j = judge(cmp)
    assert j.level == level
    assert f"KS {ks:.3f}" in j.why and "close needs KS <= 0.1 and >= 80%" in j.why


def test_binned_level_integrates_the_step_function() -> None:
    # A 2-processor job on [5, 15) and a 1-processor job on [0, 30), bins of 0-10-20-40:
    # (10 + 2 x 5) / 10 = 2, (10 + 2 x 5) / 10 = 2, 10 / 20 = 0.5.
    got = binned_level(
        np.array([5.0, 0.0]),
        np.array([15.0, 30.0]),
        np.array([2.0, 1.0]),
        np.array([0.0, 10.0, 20.0, 40.0]),
    )
    assert got.tolist() == [2.0, 2.0, 0.5]


def test_validate_on_a_sacct_dump_prints_the_check_and_draws_the_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fig = tmp_path / "v.png"
    args = ["validate", str(FIX / "sacct_cases.txt"), "--policy", "easy", "--figure", str(fig)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "does the simulated baseline look like your machine?" in out
    # 8 jobs ran; on the log's own peak of 69 CPUs every recorded start fits. The
    # recorded waits are at most 1800 s and EASY never waits longer than the log did
    # here, so every simulated start is within an hour of the recorded one.
    assert "8 jobs with a recorded start" in out
    assert "cannot hold 0 jobs at their logged start" in out
    assert "started within 3600 s of the recorded start  1.0000" in out
    assert "\njudgement " in out and "\nmeaning   " in out
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
