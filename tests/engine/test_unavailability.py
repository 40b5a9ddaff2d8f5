"""Capacity removed over time (Platform.unavailable): hand cases and the invariants of
every registered policy on random workloads."""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.engine import Simulation
from cosched.engine.invariants import verify_schedule, verify_unavailability
from cosched.errors import ConfigError, InvariantError
from cosched.platform import Platform
from cosched.policies import all_policies, make_policy, policy_class
from cosched.policies.requirements import MachineFlags, build_platform, supply_profiles
from cosched.testing import run_policy
from cosched.workload.job import Workload
from tests.strategies import workloads


def _jobs(rows: list[tuple[float, float, int]]) -> Workload:
    """Jobs ``(submit, run, procs)`` with exact requests."""
    return Workload.from_table(
        pd.DataFrame(
            {
                "job_id": range(1, len(rows) + 1),
                "submit_time": [r[0] for r in rows],
                "run_time": [r[1] for r in rows],
                "requested_time": [r[1] for r in rows],
                "procs": [r[2] for r in rows],
            }
        ),
        name="hand",
    )


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_a_drain_takes_units_as_they_come_free_and_gives_them_back_at_its_end(
    policy: str,
) -> None:
    # 4 units; from t=5 to t=500, 3 are removed. Job 1 (2 units, 0-100) keeps running;
    # at 5 the 2 free units are drained, at 100 one of job 1's: 1 unit is left, so
    # jobs 2 and 3 (2 units each) wait until 500, when all 4 come back and both start.
    w = _jobs([(0.0, 100.0, 2), (10.0, 100.0, 2), (20.0, 100.0, 2)])
    p = Platform(nodes=4, unavailable=((5.0, 500.0, 3),))
    r = Simulation(w, p, make_policy(policy), check=True).run()
    assert r.jobs["start_time"].tolist() == [0.0, 500.0, 500.0]


def test_a_job_that_fits_the_remaining_units_starts_during_the_interval() -> None:
    # 4 units, 2 removed from 0 to 1000: a 2-unit job starts at once, a second at its
    # end (100), and a 3-unit job waits for the end of the interval.
    w = _jobs([(0.0, 100.0, 2), (0.0, 100.0, 3), (0.0, 100.0, 2)])
    p = Platform(nodes=4, unavailable=((0.0, 1000.0, 2),))
    r = Simulation(w, p, make_policy("easy"), check=True).run()
    # EASY: job 2 (3 units) is the head with no shadow time until the units return;
    # job 3 backfills at 100.
    assert r.jobs["start_time"].tolist() == [0.0, 1000.0, 100.0]


def test_overlapping_intervals_add_up_to_at_most_the_machine() -> None:
    p = Platform(nodes=4, unavailable=((0.0, 10.0, 3), (5.0, 20.0, 3)))
    assert [p.removed_at(t) for t in (0.0, 5.0, 10.0, 20.0)] == [3, 4, 3, 0]


@pytest.mark.parametrize(
    ("item", "match"),
    [((5.0, 5.0, 1), "start < end"), ((0.0, 1.0, 0), "integer >= 1"), ((0.0,), "start, end")],
)
def test_bad_intervals_are_refused_by_field(item: Any, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        Platform(nodes=4, unavailable=(item,))


def test_the_check_rebuilt_from_the_results_can_fail() -> None:
    # A schedule made without the interval breaks it: job 2 starts on removed units.
    w = _jobs([(0.0, 100.0, 2), (10.0, 100.0, 2)])
    r = Simulation(w, Platform(nodes=4), make_policy("fcfs")).run()
    with pytest.raises(InvariantError, match="unavailable"):
        verify_unavailability(r.jobs, Platform(nodes=4, unavailable=((5.0, 500.0, 3),)))


NAMES = list(all_policies())


@st.composite
def intervals(draw: st.DrawFn, capacity: int) -> tuple[tuple[float, float, int], ...]:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        a = float(draw(st.integers(0, 1500)))
        out.append((a, a + float(draw(st.integers(1, 800))), draw(st.integers(1, capacity))))
    return tuple(out)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_policy_starts_a_job_on_removed_capacity(name: str, data: st.DataObject) -> None:
    cls = policy_class(name)
    base, _ = build_platform(cls.requires, MachineFlags(nodes=data.draw(st.integers(1, 8))), None)
    w = data.draw(workloads(max_procs=base.procs, max_jobs=20))
    w, _ = supply_profiles(cls.requires, w, seed=data.draw(st.integers(0, 2**16)))
    gone = data.draw(intervals(base.capacity))
    if base.shared:  # jobs placed on named nodes: refused with a clear error
        with pytest.raises(ConfigError, match="unshared"):
            dataclasses.replace(base, unavailable=gone)
        return
    platform = dataclasses.replace(base, unavailable=gone)
    try:
        r = run_policy(cls(), w, platform)  # the engine checks its own count each pass
    except Exception as exc:  # a family that places jobs on named nodes refuses it
        assert "named nodes" in str(exc), exc
        return
    verify_schedule(r.jobs, capacity=platform.capacity, exact_rates=False)
    verify_unavailability(r.jobs, platform)
