"""A three-job machine small enough to schedule by hand (tests/gym)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

#: 4 processors. Job 1: 2 procs, 100 s from t=0; job 2: 4 procs, 50 s from t=10; job 3:
#: 1 proc, 10 s from t=20 (requested times equal to run times).
#:
#: In submit order without backfilling (FCFS): job 1 runs 0-100, job 2 waits for the
#: whole machine, 100-150, job 3 behind it, 150-160. Bounded slowdowns (10 s bound):
#: 100/100 = 1, (90 + 50)/50 = 2.8, (130 + 10)/10 = 14; mean 17.8 / 3.
#: Job 3 first whenever it may pass job 2 (shortest first re-chosen at each event, or
#: EASY: it ends at 30, before job 2's reservation at 100): job 3 runs 20-30, bounded
#: slowdowns 1, 2.8, 1.
SMALL_SWF = """; MaxProcs: 4
; MaxNodes: 4
1 0 -1 100 2 -1 -1 2 100 -1 1 7 -1 -1 -1 -1 -1 -1
2 10 -1 50 4 -1 -1 4 50 -1 1 8 -1 -1 -1 -1 -1 -1
3 20 -1 10 1 -1 -1 1 10 -1 1 7 -1 -1 -1 -1 -1 -1
"""

FCFS_STARTS = [0.0, 100.0, 150.0]
JOB3_FIRST_STARTS = [0.0, 100.0, 20.0]


@pytest.fixture
def small_swf(tmp_path: Path) -> Path:
    path = tmp_path / "small.swf"
    path.write_text(SMALL_SWF)
    return path


def check_registered_env(env_id: str, **options: object) -> None:
    """gymnasium's checker on the registered environment ``env_id`` over 40 jobs."""
    import gymnasium  # optional: the tests that call this skip without it
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(env_id, jobs=40, **options)
    with warnings.catch_warnings():
        # The time features have no upper bound (waits grow without one): a Box to inf.
        warnings.filterwarnings("ignore", message=".*maximum value is infinity.*")
        check_env(env.unwrapped)
