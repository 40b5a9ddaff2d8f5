"""The node-sharing cell on the Cab stand-in, and the interference strength parameter."""

from __future__ import annotations

import pytest

from cosched.errors import ConfigError
from cosched.nodeshare.experiment import Cell, check, prepare_cab, simulate_cell
from cosched.nodeshare.interference import PRESETS, STRENGTH_RANGE, scaled_victims

BASE = {"trace": 1, "variant": "cosched", "nodes": 1158, "window_jobs": 100}


def test_strength_scales_the_fig3_victim_weights() -> None:
    # 0.005 / 0.015 / 0.03 (fig3) times 10 are the prior preset's 0.05 / 0.15 / 0.30.
    prior = PRESETS["prior"]
    got = scaled_victims(10.0)
    assert got == pytest.approx({k: prior[k] for k in got})
    assert scaled_victims(0.0) == {"victim_low": 0.0, "victim_moderate": 0.0, "victim_high": 0.0}
    with pytest.raises(ConfigError, match="strength must be a number >= 0"):
        scaled_victims(-1.0)


def test_the_strength_range_is_the_texts_bound_by_hand() -> None:
    # A high job (victim 0.03 k) beside two high co-runners (pressure 1.5 each, cap 3):
    # 1 + 0.03 k x 3 <= 5 (no job slowed more than 5x, paper line 244): k <= 4 / 0.09.
    assert pytest.approx((0.0, 44.444), abs=1e-3) == STRENGTH_RANGE


@pytest.mark.parametrize(
    ("extra", "word"),
    [
        ({"workload": "cab"}, "needs 'load'"),
        ({"workload": "cab", "load": 0.0, "single_share": 0.5}, r"'load' must be a number in \(0"),
        ({"workload": "cab", "load": 0.9, "single_share": 2}, r"'single_share' must be a number"),
        ({"workload": "swf"}, "'workload' must be 'ricc' or 'cab'"),
        ({"load": 0.9}, "'load' is a parameter of workload 'cab' only"),
        (
            {"workload": "cab", "load": 0.9, "single_share": 0.5, "sigma": 0},
            r"'sigma' must be a number in \(0",
        ),
        ({"strength": -0.5}, "'strength' must be a number"),
    ],
)
def test_bad_cab_parameters_are_refused_by_name(extra: dict[str, object], word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        check({**BASE, **extra})  # type: ignore[dict-item]


def test_a_cab_window_runs_and_keeps_its_jobs_across_profile_seeds() -> None:
    check({**BASE, "workload": "cab", "load": 0.8, "single_share": 0.5, "strength": 1.0})
    a, b = prepare_cab(0, 200, 1, 0.8, 0.5), prepare_cab(0, 200, 2, 0.8, 0.5)
    # Same jobs (the window's draw), other profiles (the seed's).
    assert a.table["run_time"].equals(b.table["run_time"])
    assert not a.table["ns_mem_sensitivity"].equals(b.table["ns_mem_sensitivity"])
    rec = simulate_cell(Cell(0, "cosched", 1, 1158, 200), workload=a)
    assert rec["jobs"] == 200 and rec["mean_turnaround"] > 0
