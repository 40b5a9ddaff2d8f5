"""The readings the LOMARC paper leaves open, on hand cases: how a node running two
jobs counts in utilization (node-busy, the default, against the hardware-thread share).
The memory-slowdown combinations are in test_slowdown.py."""

from __future__ import annotations

import pandas as pd
import pytest

from cosched.engine import Simulation
from cosched.errors import ConfigError
from cosched.lomarc.diagnostics import (
    TAU,
    bounded_slowdown_executed,
    executed_efficiency,
    run_metrics,
    thread_share_utilization,
    utilization_efficiency,
)
from cosched.lomarc.experiment import (
    PRESET_VARIANTS,
    cell_workload,
    under_metric_reading,
    under_preset,
)
from cosched.lomarc.policies import lomarc_platform
from cosched.metrics.summary import node_busy_seconds, outcomes
from cosched.policies.base import make_policy


def _jobs(*spans: tuple[float, float]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "submit_time": [0.0] * len(spans),
            "start_time": [s for s, _ in spans],
            "end_time": [e for _, e in spans],
            "size": [1] * len(spans),
        }
    )


def test_two_jobs_paired_for_ten_seconds_on_one_node() -> None:
    # One node, two jobs on it from 0 to 10 s, makespan 10 s. Node-busy: the node held a
    # job for 10 s of 10 -> 100%. Thread share: 2 jobs x 1 thread x 10 s over 2 threads
    # x 1 node x 10 s -> 100%.
    jobs = _jobs((0.0, 10.0), (0.0, 10.0))
    placements = {0: ((0, 1),), 1: ((0, 1),)}
    assert node_busy_seconds(jobs, placements) / (1 * 10.0) == pytest.approx(1.0)
    assert thread_share_utilization(jobs, 1) == pytest.approx(1.0)


def test_a_lone_job_fills_half_the_threads() -> None:
    # One job alone on the node for the whole 10 s: node-busy 100%, thread share
    # 1 x 10 / (2 x 1 x 10) = 50%.
    jobs = _jobs((0.0, 10.0))
    assert node_busy_seconds(jobs, {0: ((0, 1),)}) / 10.0 == pytest.approx(1.0)
    assert thread_share_utilization(jobs, 1) == pytest.approx(0.5)


def test_a_partner_for_half_the_time() -> None:
    # A runs 0-10 s, B joins it on the same node at 5 s: node-busy 100%, thread share
    # (10 + 5) / (2 x 10) = 75%; on a 2-node machine (the second node idle) half each.
    jobs = _jobs((0.0, 10.0), (5.0, 10.0))
    placements = {0: ((0, 1),), 1: ((0, 1),)}
    assert node_busy_seconds(jobs, placements) / 10.0 == pytest.approx(1.0)
    assert thread_share_utilization(jobs, 1) == pytest.approx(0.75)
    assert thread_share_utilization(jobs, 2) == pytest.approx(0.375)


@pytest.mark.parametrize("policy", ["lomarc-pss", "lomarc-ac", "lomarc-r"])
def test_thread_share_is_the_slot_share_on_lomarcs_machine(policy: str) -> None:
    # On two slots a node in node allocation, the core utilization counts each job's
    # slots: the same quantity as the thread share, by another route.
    w = cell_workload("paper-alpha", "W3", "M1", 0, 200)
    result = Simulation(w, lomarc_platform(128), make_policy(policy)).run()
    out = run_metrics(result, 128)
    assert out["thread_share_utilization"] == pytest.approx(out["utilization"], rel=1e-12)
    assert out["thread_share_utilization"] <= out["node_busy_utilization"] + 1e-12
    if policy == "lomarc-pss":  # one job a node: exactly half the threads of busy nodes
        assert out["thread_share_utilization"] == pytest.approx(
            out["node_busy_utilization"] / 2, rel=1e-12
        )


def test_efficiency_read_with_the_time_run() -> None:
    # Two jobs of 10 s each at full speed, paired on one node at slowdown 1.6: both run
    # 0-16 s, makespan 16 s. E (t_i at full speed) = (10 + 10) / (1 x 16) = 1.25;
    # E-executed (t_i as run) = (16 + 16) / (1 x 16) = 2, twice the thread share (1).
    jobs = _jobs((0.0, 16.0), (0.0, 16.0)).assign(run_time=[10.0, 10.0])
    assert utilization_efficiency(jobs, 1) == pytest.approx(1.25)
    assert executed_efficiency(jobs, 1) == pytest.approx(2.0)
    assert executed_efficiency(jobs, 1) == pytest.approx(2 * thread_share_utilization(jobs, 1))


def test_bounded_response_read_with_the_time_run() -> None:
    # A job of 100 s at full speed waits 50 s and runs paired at 1.6 (50-210 s): response
    # 210 s, 210 / 100 = 2.1 by default, 210 / 160 = 1.3125 with the time it ran. A
    # 10 s job run at once: 10 / max(10, 60) -> bounded to 1 under both. Means: 1.55 and
    # 1.15625.
    jobs = _jobs((50.0, 210.0), (0.0, 10.0)).assign(run_time=[100.0, 10.0])
    default = outcomes(jobs, tau=TAU)["bounded_slowdown"].mean()
    assert default == pytest.approx((2.1 + 1.0) / 2)
    assert bounded_slowdown_executed(jobs) == pytest.approx((1.3125 + 1.0) / 2)
    rows = pd.DataFrame(
        {
            "mean_bounded_slowdown": [default],
            "mean_bounded_slowdown_executed": [bounded_slowdown_executed(jobs)],
            "utilization_efficiency": [1.25],
            "executed_efficiency": [2.0],
        }
    )
    read = under_metric_reading(rows, "bounded-executed")
    assert read is not None
    assert read["mean_bounded_slowdown"].iloc[0] == pytest.approx(1.15625)
    read = under_metric_reading(rows, "E-executed")
    assert read is not None
    assert read["utilization_efficiency"].iloc[0] == pytest.approx(2.0)


def test_memory_presets_change_only_ac() -> None:
    # Every variant but AC refuses a pair whose memory needs sum above 1, so a memory
    # reading cannot change it: the reason the memory presets run AC alone.
    w = cell_workload("paper-alpha", "W3", "M1", 0, 300)
    for name in ("lomarc-u1", "lomarc-am", "lomarc-n", "lomarc-r"):
        ends = {
            s: Simulation(w, lomarc_platform(128), make_policy(name, slowdown=s))
            .run()
            .jobs["end_time"]
            for s in ("overlap", "overlap-add", "overlap-excess")
        }
        assert ends["overlap"].equals(ends["overlap-add"]) and ends["overlap"].equals(
            ends["overlap-excess"]
        )
    assert PRESET_VARIANTS["overlap-add"] == PRESET_VARIANTS["overlap-excess"] == ("AC",)


def test_a_memory_preset_keeps_the_other_variants_default_runs() -> None:
    rows = pd.DataFrame(
        {
            "variant": ["PSS", "AC", "L-R", "AC-overlap-add", "AC-printed", "L-R-printed"],
            "mean_turnaround": [10.0, 8.0, 7.0, 12.0, 11.0, 6.0],
        }
    )
    p = under_preset(rows, "overlap-add")
    assert dict(zip(p["variant"], p["mean_turnaround"], strict=True)) == {
        "PSS": 10.0,
        "AC": 12.0,
        "L-R": 7.0,
    }


def test_the_thread_share_reading_judges_the_other_column() -> None:
    rows = pd.DataFrame(
        {"node_busy_utilization": [0.9, 0.8], "thread_share_utilization": [0.45, 0.7]}
    )
    read = under_metric_reading(rows, "thread-share")
    assert read is not None
    assert list(read["node_busy_utilization"]) == [0.45, 0.7]
    assert list(rows["node_busy_utilization"]) == [0.9, 0.8]  # the runs untouched
    assert under_metric_reading(rows[["node_busy_utilization"]], "thread-share") is None
    with pytest.raises(ConfigError, match="metric reading"):
        under_metric_reading(rows, "cores")
