"""Golden matching decisions on small hand-built queues (exact estimates)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from cosched.engine import Simulation
from cosched.errors import ConfigError
from cosched.lomarc.policies import lomarc_platform
from cosched.platform import Platform
from cosched.policies.base import make_policy
from cosched.workload.job import Workload
from tests.lomarc.helpers import CPU_GOOD, CPU_POOR, DISK, NET, workload


def run(w: Workload, nodes: int, name: str = "lomarc-u1", **params: Any) -> pd.DataFrame:
    """The schedule under ``params``; the slowdown formula is the ``overlap`` reading
    (the default) unless given (its hand values below are visible where the printed
    one's are 1)."""
    pol = make_policy(name, **{"slowdown": "overlap", **params})
    return Simulation(w, lomarc_platform(nodes), pol, check=True).run().jobs.set_index("job_id")


def test_match_in_queue_moves_ahead_and_rates_follow_slowdown() -> None:
    # Three long jobs at t=0 on 4 nodes. Job 2 (CPU-bound, poor CPU pairing with job 1)
    # is not matchable; job 3 (disk-bound) is, so it moves ahead of job 2 and rides
    # on job 1's nodes. Slowdown 1 + 1 * 0.3 + 0.1 + 0.1 = 1.5 (job 3's draw 2).
    w = workload(
        [
            (0, 4, 14400, CPU_POOR, 0.3),
            (0, 4, 7200, CPU_POOR, 0.3),
            (0, 4, 7200, DISK, 0.3),
        ]
    )
    jobs = run(w, 4)
    assert jobs.loc[3, "start_time"] == 0
    # Job 3: 7200 s of work at rate 1/1.5 -> ends at 10800. Job 1 did 7200 s of work by
    # then and runs the other 7200 s alone: ends at 18000.
    assert jobs.loc[3, "end_time"] == pytest.approx(10800)
    assert jobs.loc[1, "end_time"] == pytest.approx(18000)
    # Job 2 could not pair with job 1 and waits for empty nodes.
    assert jobs.loc[2, "start_time"] == pytest.approx(18000)


def test_pss_never_pairs() -> None:
    w = workload([(0, 4, 14400, CPU_POOR, 0.3), (0, 2, 7200, DISK, 0.3)])
    jobs = run(w, 4, "lomarc-pss")
    assert jobs.loc[2, "start_time"] == 14400
    assert (jobs["end_time"] - jobs["start_time"]).tolist() == [14400, 7200]


@pytest.mark.parametrize(
    ("second", "memory", "name"),
    [
        (DISK, 0.8, "memory sum over 1"),
        (NET, 0.3, "two network-bound jobs"),
        (CPU_POOR, 0.3, "two CPU-bound jobs that compete"),
    ],
)
@pytest.mark.parametrize(
    "variant", ["lomarc-u1", "lomarc-u2", "lomarc-r", "lomarc-fm", "lomarc-am"]
)
def test_non_matchable_pairs_are_never_paired(
    second: tuple[int, float, float, float, float], memory: float, name: str, variant: str
) -> None:
    first = NET if second is NET else CPU_POOR
    # Each job takes the whole machine: they overlap only if paired.
    w = workload(
        [(0, 4, 14400, first, 0.3), (0, 4, 7200, second, memory), (5, 4, 7200, second, memory)]
    )
    jobs = run(w, 4, variant)
    assert jobs.loc[2, "start_time"] >= jobs.loc[1, "end_time"], name
    assert (jobs["end_time"] - jobs["start_time"] == jobs["run_time"]).all()


def test_standard_cpu_pairs_only_cpu_with_disk() -> None:
    w = workload([(0, 4, 14400, CPU_GOOD, 0.3), (0, 4, 7200, NET, 0.3)])
    jobs = run(w, 4, "lomarc-n")
    assert jobs.loc[2, "start_time"] == 14400
    w = workload([(0, 4, 14400, CPU_GOOD, 0.3), (0, 4, 7200, DISK, 0.3)])
    jobs = run(w, 4, "lomarc-n")
    assert jobs.loc[2, "start_time"] == 0
    # Standard CPU: 1 + 0.3 + 0.1 + 0.1 = 1.5.
    assert jobs.loc[2, "end_time"] == pytest.approx(10800)


def test_weakly_loaded_machine_never_pairs() -> None:
    # 8 nodes, 4 requested: 4 <= 0.8 * 8, so each job runs alone on its own nodes.
    w = workload([(0, 2, 14400, CPU_POOR, 0.3), (0, 2, 7200, DISK, 0.3)])
    jobs = run(w, 8)
    assert (jobs["start_time"] == 0).all()
    assert (jobs["end_time"] - jobs["start_time"] == jobs["run_time"]).all()
    # Without the rule the same queue pairs (job 2 rides on job 1's nodes).
    jobs = run(w, 8, weak_spare=None)
    assert jobs.loc[2, "end_time"] == pytest.approx(10800)


def test_weakly_loaded_boundary() -> None:
    # 4 nodes, 4 requested: 4 > 0.8 * 4, so the machine is not weakly loaded.
    w = workload([(0, 2, 14400, CPU_POOR, 0.3), (0, 2, 7200, DISK, 0.3)])
    jobs = run(w, 4)
    assert jobs.loc[2, "end_time"] == pytest.approx(10800)


def test_short_jobs_are_never_paired() -> None:
    w = workload([(0, 4, 14400, CPU_POOR, 0.3), (10, 4, 60, DISK, 0.3)])
    jobs = run(w, 4)
    assert jobs.loc[2, "start_time"] == 14400


def test_match_against_running_job() -> None:
    # Job 2 arrives while job 1 holds every node; it rides on job 1's nodes.
    w = workload([(0, 4, 14400, CPU_POOR, 0.3), (10, 4, 7200, DISK, 0.3)])
    jobs = run(w, 4)
    assert jobs.loc[2, "start_time"] == 10
    assert jobs.loc[2, "end_time"] == pytest.approx(10 + 10800)
    # Job 1: 10 s alone, 10800 s at 1/1.5 (7200 s of work), then 7190 s alone.
    assert jobs.loc[1, "end_time"] == pytest.approx(18000)
    # Without matching against running jobs, job 2 waits.
    jobs = run(w, 4, running=False)
    assert jobs.loc[2, "start_time"] == 14400


def test_adjacent_match_only_looks_at_the_next_job() -> None:
    w = workload(
        [(0, 4, 14400, CPU_POOR, 0.3), (0, 2, 7200, CPU_POOR, 0.3), (0, 2, 7200, DISK, 0.3)]
    )
    jobs = run(w, 4, "lomarc-am")
    # Job 2, the adjacent one, does not match job 1, and AM looks no further.
    assert jobs.loc[1, "end_time"] == 14400
    assert jobs.loc[2, "start_time"] == jobs.loc[3, "start_time"] == 14400


def test_always_coschedule_pairs_anything() -> None:
    w = workload([(0, 4, 14400, NET, 0.6), (0, 4, 60, NET, 0.6)])
    jobs = run(w, 4, "lomarc-ac")
    assert jobs.loc[2, "start_time"] == 0
    # Memory does not fit: both run at 1 / 2.5 while together.
    assert jobs.loc[2, "end_time"] == pytest.approx(150)
    # As printed, sl_mem adds to the shared parts (job 2's CPU draw 2): 2 x 0.3 (CPU)
    # + 2 x 0.55 (network) + 2 x 0.15 (disk) + 2.5 = 4.5, so 60 s of work take 270 s.
    jobs = run(w, 4, "lomarc-ac", slowdown="printed")
    assert jobs.loc[2, "end_time"] == pytest.approx(270)


def test_printed_formula_lets_a_dissimilar_pair_run_at_full_speed() -> None:
    # The printed preset (section 4.1 as printed): CPU-bound (draw 2) with disk-bound
    # shares 0.3 CPU, 0.1 network, 0.1 disk: 2 x 0.3 + 2 x 0.1 + 2 x 0.1 = 1.0, so the
    # pair runs as fast as each job alone (the default overlap reading: 1.5, the first
    # test).
    w = workload(
        [(0, 4, 14400, CPU_POOR, 0.3), (0, 4, 7200, CPU_POOR, 0.3), (0, 4, 7200, DISK, 0.3)]
    )
    printed = make_policy("lomarc-u1", slowdown="printed")
    jobs = Simulation(w, lomarc_platform(4), printed, check=True).run()
    t = jobs.jobs.set_index("job_id")
    assert t.loc[3, "start_time"] == 0 and t.loc[3, "end_time"] == pytest.approx(7200)
    assert t.loc[1, "end_time"] == pytest.approx(14400)
    assert t.loc[2, "start_time"] == pytest.approx(14400)


def test_platform_and_parameters_are_checked() -> None:
    w = workload([(0, 1, 100, DISK, 0.3)])
    with pytest.raises(ConfigError, match="nodes allocation, mpl >= 2"):
        Simulation(w, Platform(nodes=4), make_policy("lomarc-u1"))
    with pytest.raises(ConfigError, match="heuristic"):
        make_policy("lomarc", heuristic="best")
    with pytest.raises(ConfigError, match="weak_spare"):
        make_policy("lomarc", weak_spare=1.5)


def test_u_gain_1_refuses_a_half_size_partner_at_slowdown_one_and_a_half() -> None:
    # U_gain,1 = (2 (2 / 1.5 - 1) - 2 (1 - 1 / 1.5)) ... / 4 = 0: no profit, no pair.
    w = workload([(0, 4, 14400, CPU_POOR, 0.3), (0, 2, 7200, DISK, 0.3)])
    assert run(w, 4).loc[2, "start_time"] == 14400
    # First match takes it; so does U_gain,1 when the slowdown is lower (good CPU
    # draw: 1 + 0.4 * 0.3 + 0.2 = 1.32).
    assert run(w, 4, "lomarc-fm").loc[2, "start_time"] == 0
    good_disk = (2, 0.3, 0.15, 0.55, 1.4)
    w = workload([(0, 4, 14400, CPU_POOR, 0.3), (0, 2, 7200, good_disk, 0.3)])
    jobs = run(w, 4)
    assert jobs.loc[2, "start_time"] == 0
    assert jobs.loc[2, "end_time"] == pytest.approx(7200 * 1.32)
