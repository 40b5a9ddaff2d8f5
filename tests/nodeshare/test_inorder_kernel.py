"""nodeshare's pass as one kernel call against its loop through plan() and commit()."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from cosched.engine.simulation import Simulation
from cosched.nodeshare import policies as ns
from cosched.platform import Platform
from cosched.workload.job import Workload
from tests.nodeshare.test_invariants import assert_same_runs, cases, mixed_workload


class _Loop(ns.Coscheduling):
    """nodeshare through its loop of Python methods (a subclass, as a user's variant:
    it does not take the one-kernel pass)."""

    name = ""


def _both(w: Workload, platform: Platform, **params: object):
    runs = []
    for cls in (_Loop, ns.Coscheduling):
        policy = cls(**params)
        runs.append((Simulation(w, platform, policy, check=True).run(), policy))
    return runs


def _same(runs) -> None:
    (a, pa), (b, pb) = runs
    assert_same_runs(a, pa, b, pb)
    assert pa.place_calls == pb.place_calls


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_kernel_pass_schedules_as_the_loop(case):
    # The built-in policy (one kernel call per pass, heads blocked by capacity skipped,
    # ends of unshared jobs touching no rate) against the loop through plan() and
    # commit(): the same starts, ends, placements, configurations, blocked record,
    # placement attempts and engine counters (rate changes included), bit for bit.
    w, platform, params = case
    _same(_both(w, platform, **params))


def test_kernel_pass_on_a_busy_machine() -> None:
    # 200 jobs of 1 to 63 cores on 4 nodes of 16 cores: nodes shared by up to three
    # jobs, heads blocked by capacity (the passes the kernel call is skipped for).
    w, platform = mixed_workload()
    runs = _both(w, platform)
    _same(runs)
    blocked = runs[1][1].blocked
    assert "capacity" in set(blocked.values())
