"""The compiled gang pass (gang/_kernel.py) on the engine's loop against the general loop.

Both paths must give the same run bit for bit: start and end times, occupancy, the
nodes each job ran on (in start order), the engine's counters (passes, decisions, rate
changes), the suspension accounting (in the order the policy fills it), the rows and
the diagnostics. ``Simulation(fast=False)`` forces the general loop. The fast suite
runs the pass as plain Python (the same source numba compiles); the slow test runs it
compiled ahead of time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.engine import Simulation, fastpath
from cosched.engine.view import SystemView
from cosched.gang import Gang, GangSlurm, gang_columns
from cosched.gang import fast as gang_fast
from cosched.platform import Platform
from cosched.workload.job import Workload
from cosched.workload.sources import open_workload
from tests.passes import KTH, NEEDS_KTH, both, use_built_loop
from tests.strategies import workloads

OPTIONS: dict[str, Any] = {
    "packing": st.sampled_from(["first-fit", "buddy"]),
    "alternate": st.booleans(),
    "backfill": st.booleans(),
    "window": st.sampled_from([None, 0, 1, 3]),
    "quantum": st.sampled_from([10.0, 30.0]),
    "switch_cost": st.sampled_from([0.0, 1.0, 2.5]),
    "memory_limit": st.sampled_from([None, 4.0, 10.0]),
    "job_memory": st.sampled_from([0.0, 1.0, 3.0]),
}


def assert_same(general: Any, compiled: Any) -> None:
    (a, pa), (b, pb) = general, compiled
    assert list(a.jobs.columns) == list(b.jobs.columns)
    for col in ("start_time", "end_time", "occupancy"):
        if col not in a.jobs:  # no occupancy on an unshared machine (one row)
            continue
        x, y = np.asarray(a.jobs[col]), np.asarray(b.jobs[col])
        assert np.array_equal(x, y, equal_nan=True), col
    assert list(a.placements.items()) == list(b.placements.items())
    assert a.stats == b.stats
    assert list(pa.suspended.items()) == list(pb.suspended.items())
    assert list(pa.switches.items()) == list(pb.switches.items())
    assert list(pa.row_of.items()) == list(pb.row_of.items())
    assert a.diagnostics == b.diagnostics
    ga, gb = gang_columns(a, pa), gang_columns(b, pb)
    assert ga.equals(gb)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Workload, Platform, int]:
    """A random workload (with memory and efficiency columns or not) on a random
    machine, and the rows."""
    nodes = draw(st.integers(1, 8))
    cores = draw(st.sampled_from([1, 1, 2, 4]))
    allocation = draw(st.sampled_from(["cores", "nodes"]))
    mpl = draw(st.integers(1, 4))
    procs = nodes * cores
    w = draw(workloads(max_procs=procs, max_jobs=30))
    n = len(w)
    extra: dict[str, Any] = {}
    if draw(st.booleans()):
        extra["gang_memory"] = draw(
            st.lists(st.sampled_from([0.0, 1.0, 2.0, 4.0]), min_size=n, max_size=n)
        )
    if draw(st.booleans()):
        extra["gang_efficiency"] = draw(
            st.lists(st.sampled_from([1.0, 0.5, 0.8, 1.25]), min_size=n, max_size=n)
        )
    if extra:
        w = Workload.from_table(w.table.assign(**extra))
    return w, Platform(nodes, cores, allocation, mpl=mpl), mpl


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), data=st.data())
def test_compiled_pass_equals_general_loop(
    case: tuple[Workload, Platform, int], data: st.DataObject
) -> None:
    """Random workloads and machines, a random subset of the options changed."""
    w, platform, mpl = case
    keys = data.draw(st.sets(st.sampled_from(sorted(OPTIONS))))
    params = {k: data.draw(OPTIONS[k], label=k) for k in sorted(keys)}
    if params.get("memory_limit") is not None:
        limit = params["memory_limit"]
        params["job_memory"] = min(params.get("job_memory", 0.0), limit)
        mem = w.columns.get("gang_memory")
        if mem is not None and (np.asarray(mem) > limit).any():
            params["memory_limit"] = None
    assert_same(*both(w, platform, "gang", mpl=mpl, **params))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), data=st.data())
def test_slurm_preset(case: tuple[Workload, Platform, int], data: st.DataObject) -> None:
    w, platform, mpl = case
    params = {
        "oversubscribe": mpl,
        "SchedulerTimeSlice": data.draw(st.sampled_from([30.0, 60.0])),
        "suspend_resume_cost": data.draw(st.sampled_from([0.0, 1.0])),
        "bf_window": data.draw(st.sampled_from([None, 2])),
    }
    assert_same(*both(w, platform, "gang-slurm", **params))


def test_general_loop_for_subclasses_checks_and_bad_columns() -> None:
    """A user's subclass keeps the Python interface; so do check=True, a rate model
    that is not the policy's own, and columns the policy refuses (it names the job)."""
    w = Workload.from_jobs([(0, 2, 100), (0, 2, 50), (5, 1, 10)])
    platform = Platform(2, 1, mpl=2)
    calls = []

    class Mine(Gang):
        def schedule(self, view: SystemView) -> Any:
            calls.append(view.now)
            return super().schedule(view)

    sim = Simulation(w, platform, Mine())
    assert fastpath.eligible(sim) is None
    sim.run()
    assert calls
    assert fastpath.eligible(Simulation(w, platform, Gang(), check=True)) is None
    rates = Gang().rate_model()
    assert fastpath.eligible(Simulation(w, platform, Gang(), rate_model=rates)) is None
    bad = Workload.from_table(w.table.assign(gang_efficiency=[1.0, 0.0, 1.0]))
    assert fastpath.eligible(Simulation(bad, platform, Gang())) is None
    big = Workload.from_table(w.table.assign(gang_memory=[1.0, 9.0, 1.0]))
    assert fastpath.eligible(Simulation(big, platform, Gang(memory_limit=5.0))) is None
    assert fastpath.eligible(Simulation(w, platform, GangSlurm(oversubscribe=2))) is not None


@NEEDS_KTH
def test_a_trace_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first 1,500 jobs of KTH-SP2 (100 single-core nodes), gang and gang-slurm, the
    pass as plain Python (compiling it is the slow test's)."""
    monkeypatch.setenv("COSCHED_FASTPATH_COMPILE_FROM", str(10**9))
    w = open_workload(str(KTH), limit=1500)
    assert_same(*both(w, Platform(100, 1, mpl=2), "gang", switch_cost=1.0))
    assert_same(*both(w, Platform(100, 1, mpl=4), "gang-slurm"))


@pytest.mark.slow
@NEEDS_KTH
def test_the_loop_compiled_ahead_of_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's loop with the gang pass bound, compiled ahead of time (what a run of
    10,000 jobs or more loads), gives the general loop's runs too."""
    use_built_loop(gang_fast.GANG_PASS, "gang", monkeypatch)
    w = open_workload(str(KTH), limit=6000)
    assert_same(*both(w, Platform(100, 1, mpl=2), "gang", switch_cost=1.0))
    assert_same(*both(w, Platform(100, 1, mpl=3), "gang", packing="buddy", alternate=False))
    assert_same(*both(w, Platform(100, 1, mpl=4), "gang-slurm", bf_window=10))
    mem = w.table.assign(gang_memory=np.where(np.arange(len(w)) % 3 == 0, 3.0, 1.0))
    assert_same(*both(Workload.from_table(mem), Platform(100, 1, mpl=3), "gang", memory_limit=5.0))
