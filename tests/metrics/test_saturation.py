"""The saturation point of a load sweep (docs/metrics.md), on hand-computed sweeps."""

from __future__ import annotations

import math

import pytest

from cosched.errors import ConfigError
from cosched.metrics.saturation import saturation_point


def test_mm1_sweep_saturates_where_response_passes_five_times_the_lightest() -> None:
    # M/M/1 with service rate 1: mean response 1 / (1 - rho). At rho = 0.1 it is 1/0.9;
    # five times that is 5/0.9 = 5.56, passed when 1 - rho < 0.18, i.e. above rho =
    # 0.82: bounded up to 0.8, not at 0.9 (R = 10).
    loads = [round(0.1 * k, 1) for k in range(1, 10)]
    s = saturation_point(loads, [1 / (1 - r) for r in loads], [0] * 9)
    assert (s.bounded_load, s.unbounded_load) == (0.8, 0.9)
    assert s.reference == pytest.approx(1 / 0.9)
    assert s.label() == "0.8-0.9"


def test_unfinished_jobs_mean_unbounded_and_order_does_not_matter() -> None:
    s = saturation_point([1.8, 0.6, 1.2], [1.3, 1.0, 1.1], [4, 0, 0])
    assert (s.bounded_load, s.unbounded_load) == (1.2, 1.8)
    # A bounded run above an unbounded one does not count: "stays bounded".
    s = saturation_point([0.6, 1.2, 1.8], [1.0, 9.0, 1.1], [0, 0, 0])
    assert (s.bounded_load, s.unbounded_load) == (0.6, 1.2)


def test_all_bounded_and_none_bounded() -> None:
    s = saturation_point([0.6, 1.2], [1.0, 4.9], [0, 0])
    assert s.bounded_load == 1.2 and math.isinf(s.unbounded_load) and s.label() == ">= 1.2"
    s = saturation_point([0.6, 1.2], [2.0, 3.0], [1, 0])
    assert math.isnan(s.bounded_load) and s.unbounded_load == 0.6 and s.label() == "< 0.6"
    s = saturation_point([0.6, 1.2], [1.0, 2.5], [0, 0], factor=2.0)
    assert (s.bounded_load, s.unbounded_load) == (0.6, 1.2)


def test_a_common_reference_catches_a_sweep_saturated_from_the_start() -> None:
    # Against itself, a policy whose response is already 20 at the lowest load stays
    # "bounded" (45 < 5 x 20); against a common reference of 2 (another policy's
    # response at that load), the bound is 10 and it is unbounded from the start.
    loads, resp = [0.4, 0.6, 0.8], [20.0, 30.0, 45.0]
    assert saturation_point(loads, resp, [0, 0, 0]).label() == ">= 0.8"
    s = saturation_point(loads, resp, [0, 0, 0], reference=2.0)
    assert s.label() == "< 0.4" and s.reference == 2.0
    s = saturation_point(loads, [2.0, 9.0, 11.0], [0, 0, 0], reference=2.0)
    assert (s.bounded_load, s.unbounded_load) == (0.6, 0.8)
    with pytest.raises(ConfigError, match="reference"):
        saturation_point(loads, resp, [0, 0, 0], reference=0.0)


def test_bad_sweeps_are_named() -> None:
    with pytest.raises(ConfigError, match="at least one"):
        saturation_point([], [], [])
    with pytest.raises(ConfigError, match="2 loads but 1 responses"):
        saturation_point([0.5, 1.0], [1.0], [0, 0])
    with pytest.raises(ConfigError, match="twice"):
        saturation_point([0.5, 0.5], [1.0, 1.0], [0, 0])
    with pytest.raises(ConfigError, match="finite and > 0"):
        saturation_point([0.0, 1.0], [1.0, 1.0], [0, 0])
    with pytest.raises(ConfigError, match="factor"):
        saturation_point([0.5], [1.0], [0], factor=1.0)
