"""RLScheduler's greedy backfilling and its heuristic scores, on cases worked by hand.

The rule (``backfill="rlscheduler"``, :mod:`cosched.gym.rules`): the head's shadow time
is fixed when it starts waiting, from the running jobs' start plus requested time; a
queued job starts if it fits now and now plus its requested time is strictly before the
shadow; there is no extra-units rule. Each trace below is one where EASY (shadow
recomputed at each pass, ends *by* the shadow admitted, extra units used) decides
otherwise; the agent is FCFS, no job is chosen past the head.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.gym import agents
from cosched.gym.policy import LearnedPolicy
from cosched.testing import machine_for, run_policy
from cosched.workload.sources import open_workload

HEADER = "; MaxProcs: 4\n; MaxNodes: 4\n"


def _swf(tmp_path: Path, jobs: list[tuple[int, int, int, int, int]]) -> Path:
    """``(id, submit, run, procs, requested)`` rows as an SWF file."""
    lines = [
        f"{i} {s} -1 {run} {n} -1 -1 {n} {req} -1 1 1 -1 -1 -1 -1 -1 -1"
        for i, s, run, n, req in jobs
    ]
    path = tmp_path / "t.swf"
    path.write_text(HEADER + "\n".join(lines) + "\n")
    return path


def _starts(path: Path, backfill: str) -> list[float]:
    w, platform = machine_for(LearnedPolicy, open_workload(str(path)), nodes=4)
    assert platform.capacity == 4
    policy = LearnedPolicy(slots=8, backfill=backfill)  # type: ignore[call-arg]
    return run_policy(policy, w, platform).job_columns["start_time"].tolist()


def test_no_extra_units_rule(tmp_path: Path) -> None:
    # A (2 procs, 0-100); B (3 procs) waits from t=10, shadow 100 (A's end), one extra
    # unit then. C (1 proc, 200 s) at t=20 ends at 220, after the shadow: EASY starts it
    # on the extra unit (B still starts at 100 with 3 of the 4), RLScheduler's rule does
    # not, and C starts at 100 beside B.
    path = _swf(tmp_path, [(1, 0, 100, 2, 100), (2, 10, 50, 3, 50), (3, 20, 200, 1, 200)])
    assert _starts(path, "easy") == [0.0, 100.0, 20.0]
    assert _starts(path, "rlscheduler") == [0.0, 100.0, 100.0]


@pytest.mark.parametrize(("requested", "rls_start"), [(80, 150.0), (79, 20.0)])
def test_a_job_must_end_strictly_before_the_shadow(
    tmp_path: Path, requested: int, rls_start: float
) -> None:
    # B needs the whole machine (no extra units); shadow 100. C at t=20 requesting 80 s
    # ends exactly at 100: EASY admits it (ends by the shadow), RLScheduler's rule does
    # not (20 + 80 < 100 is false); requesting 79 s, both start it at 20.
    jobs = [(1, 0, 100, 2, 100), (2, 10, 50, 4, 50), (3, 20, requested, 1, requested)]
    path = _swf(tmp_path, jobs)
    assert _starts(path, "easy") == [0.0, 100.0, 20.0]
    # Held back, C waits for B, which runs 100-150 on the whole machine.
    assert _starts(path, "rlscheduler") == [0.0, 100.0, rls_start]


def test_the_shadow_is_fixed_when_the_head_starts_waiting(tmp_path: Path) -> None:
    # A (1 proc, requests 1000 s, runs 50) and D (1 proc, 0-100) run; B (4 procs) waits
    # from t=10: by requested ends D frees 3 units at 100 and A the 4th at 1000, so the
    # shadow is 1000. A ends at 50. EASY recomputes: shadow 100 (D's end), no extra
    # unit, so C (1 proc, 200 s, at t=60) waits until B has run (100-150) and starts at
    # 150. RLScheduler's rule keeps 1000: C starts at 60 (60 + 200 < 1000) and B waits
    # for C's end at 260.
    jobs = [(1, 0, 50, 1, 1000), (2, 0, 100, 1, 100), (3, 10, 50, 4, 50), (4, 60, 200, 1, 200)]
    path = _swf(tmp_path, jobs)
    assert _starts(path, "easy") == [0.0, 0.0, 100.0, 150.0]
    assert _starts(path, "rlscheduler") == [0.0, 0.0, 260.0, 60.0]


def test_the_rule_from_the_command_line(tmp_path: Path) -> None:
    path = _swf(tmp_path, [(1, 0, 100, 2, 100), (2, 10, 50, 3, 50), (3, 20, 200, 1, 200)])
    out = tmp_path / "jobs.csv"
    argv = ["run", str(path), "--policy", "learned", "-P", "backfill=rlscheduler"]
    assert main([*argv, "--jobs-out", str(out)]) == 0
    assert pd.read_csv(out)["start_time"].tolist() == [0.0, 100.0, 100.0]


def test_an_unknown_backfill_lists_the_three(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "bundled:example", "--policy", "learned", "-P", "backfill=greedy"]
    assert main(argv) == 2
    assert "must be one of none, easy, rlscheduler, got 'greedy'" in capsys.readouterr().err


# -- the scores ------------------------------------------------------------------------

T, UNITS = 100.0, 10.0  # time_scale and machine units of the hand-made observations


def _obs(rows: list[tuple[int, float, float, float]]) -> dict[str, np.ndarray]:
    """An observation of jobs ``(units, requested s, wait s, submit s)``, 4 slots."""
    jobs = np.zeros((4, 6), dtype=np.float32)
    for k, (n, r, w, s) in enumerate(rows):
        jobs[k] = (n / UNITS, r / T, w / T, 0.0, s / T, 1.0)
    mask = np.zeros(4, dtype=np.int8)
    mask[: len(rows)] = 1
    return {
        "jobs": jobs,
        "machine": np.zeros(1, dtype=np.float32),
        "action_mask": mask,
        "scales": np.array([UNITS, T], dtype=np.float32),
    }


# (units, requested, wait, submit): slot 0 a one-unit job.
JOBS = [(1, 100.0, 50.0, 10.0), (4, 200.0, 100.0, 0.0), (2, 50.0, 60.0, 30.0)]


def test_wfp3_textbook_and_as_rlscheduler_scores_it() -> None:
    # (wait / r)^3 * n: 0.125, 0.5, 3.456 -> slot 2.
    assert agents.wfp3(_obs(JOBS)) == 2
    # With wait = -1 - submit the score ((1 + s) / r)^3 * n, smallest first:
    # 1.331e-3, 5e-7, 0.4766 -> slot 1.
    assert agents.wfp3_rlscheduler(_obs(JOBS)) == 1
    assert agents.AGENTS["wfp3-rlscheduler"] is agents.wfp3_rlscheduler


def test_unicep_textbook_and_as_rlscheduler_scores_it() -> None:
    # wait / (log2(n) * r): slot 0's log2(1 + 1e-15) is ~1.4e-15, so a waiting one-unit
    # job comes first; without it, 100 / (2 * 200) = 0.25 and 60 / (1 * 50) = 1.2.
    assert agents.unicep(_obs(JOBS)) == 0
    assert agents.unicep(_obs(JOBS[1:])) == 1
    # With wait = -1 - submit, (1 + s) / (log2(n) * r), smallest first: the one-unit job
    # comes last (~8e13); 1 / 400 = 0.0025 and 31 / 50 = 0.62 -> slot 1.
    assert agents.unicep_rlscheduler(_obs(JOBS)) == 1
    assert agents.unicep_rlscheduler(_obs([JOBS[0], JOBS[2]])) == 1
    assert agents.AGENTS["unicep-rlscheduler"] is agents.unicep_rlscheduler


def test_rlscheduler_scores_do_not_change_with_waiting() -> None:
    # Slot 1 waits 1000 s instead of 100: the textbook WFP3 turns to it,
    # (1000 / 200)^3 * 4 = 500 > 3.456; the scores as RLScheduler computes them do not
    # read the wait.
    later = [JOBS[0], (4, 200.0, 1000.0, 0.0), JOBS[2]]
    assert agents.wfp3(_obs(later)) == 1
    for agent in (agents.wfp3_rlscheduler, agents.unicep_rlscheduler):
        assert agent(_obs(JOBS)) == agent(_obs(later))
