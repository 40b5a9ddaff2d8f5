"""Section 3.4's gang matrix by hand (docs/timesharing-fidelity.md, "Section 3.4's order,
written up"): the mixed set is the imbalanced pair of 3.2 (each alone 2 T) and the
balanced job of 3.1 (alone T), all as wide as the machine and submitted together.

Under GS each job holds every PE in its row's turn, so the rows take equal turns of the
quantum Q, each turn paying the gang switch c out of it (Q - c of work a turn, a
stretch S = Q / (Q - c)):

* a row per job (the default): job 3 has its T after 3 T of turns, the pair their 2 T
  after 3 T + 2 T = 5 T; with the switches, 3 T S and 5 T S;
* two rows (``mpl`` 2): the pair alternates to 4 T S, then job 3 runs alone (no
  switch) for T.

Whatever the matrix, the pair cannot both end before 2 T + 2 T = 4 T (each needs the
whole machine for 2 T), which is why the paper's GS row (jobs 1-2 at 185 s, 4 T = 240 s
at T = 60 s) is out of reach of any matrix of these jobs.
"""

from __future__ import annotations

import pytest

from cosched.errors import ConfigError
from cosched.experiments.model import CellEnv
from cosched.timesharing.fcs_experiment import run_cell
from cosched.timesharing.params import TSParams

T = 3.0  # the balanced job alone (s); the pair's jobs take 2 T
Q = 0.1  # section 3's time slice
C = TSParams().gs_context_switch  # the gang switch, 2 ms
MIXED = {"scenario": "mixed", "scheme": "GS", "nodes": 8, "job_time": T, "grain": 0.001,
         "quantum": Q, "cslots_min": 20, "block": 4}  # fmt: skip
S = Q / (Q - C)
#: A job's last turn ends anywhere within its quantum, and the rows' order shifts each
#: job's turns by up to one quantum: end times are the hand values to two quanta.
SLACK = 2 * Q


def ends(**extra: object) -> tuple[float, float, float]:
    out = run_cell({**MIXED, **extra}, 20031110, CellEnv())
    return out["job1_end"], out["job2_end"], out["job3_end"]


def test_a_row_per_job_ends_the_balanced_job_first_at_three_times_its_length() -> None:
    j1, j2, j3 = ends()
    assert j3 == pytest.approx(3 * T * S, abs=SLACK)
    for j in (j1, j2):
        assert j == pytest.approx(5 * T * S, abs=SLACK)
    assert j3 < min(j1, j2) - T  # the paper's GS row has job 3 last


def test_two_rows_keep_the_balanced_job_waiting_until_the_pair_ends() -> None:
    j1, j2, j3 = ends(mpl=2)
    for j in (j1, j2):
        assert j == pytest.approx(4 * T * S, abs=SLACK)
    # alone in the matrix, job 3 runs its T without switches
    assert j3 - max(j1, j2) == pytest.approx(T, abs=SLACK)


@pytest.mark.parametrize("mpl", [0, 2, 3])
def test_no_matrix_ends_the_imbalanced_pair_before_their_summed_work(mpl: int) -> None:
    j1, j2, _ = ends(mpl=mpl)
    assert max(j1, j2) >= 4 * T


def test_the_complementing_set_with_a_row_per_job_ends_the_short_jobs_first() -> None:
    # 3.3: two lone jobs of T and a communicating job of 3 T: the lone jobs after 3 T
    # of turns, job 3's last 2 T alone without switches (the paper's GS: 185 / 186 /
    # 308 s at T = 60 s)
    out = run_cell({**MIXED, "scenario": "complementing"}, 20031110, CellEnv())
    for k in (1, 2):
        assert out[f"job{k}_end"] == pytest.approx(3 * T * S, abs=SLACK)
    assert out["job3_end"] == pytest.approx(3 * T * S + 2 * T, abs=SLACK)


def test_the_gang_switch_reading_stretches_every_turn_by_hand() -> None:
    # 3.1's balanced pair in two rows: 2 T of work at Q / (Q - c); from the model's 2 ms
    # to section 4's fitted 8 ms the mean response grows by 2 T (S(8 ms) - S(2 ms)), the
    # rows' order (and so the rounding to a quantum) being the same in both runs
    cell = {**MIXED, "scenario": "balanced"}
    base = run_cell(cell, 20031110, CellEnv())["mean_response"]
    slow = run_cell({**cell, "gs_switch": 8e-3}, 20031110, CellEnv())["mean_response"]
    grow = 2 * T * (Q / (Q - 8e-3) - Q / (Q - C))
    assert slow - base == pytest.approx(grow, abs=0.02)
    with pytest.raises(ConfigError, match="'gs_switch'"):
        run_cell({**cell, "gs_switch": 0}, 20031110, CellEnv())


def test_a_negative_mpl_is_refused_naming_it() -> None:
    with pytest.raises(ConfigError, match="'mpl'"):
        run_cell({**MIXED, "mpl": -1}, 20031110, CellEnv())
