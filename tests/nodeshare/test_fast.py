"""The compiled node-sharing pass (nodeshare/_pass.py) on the engine's loop against the
general loop.

Both paths must give the same run bit for bit: start and end times, occupancy, the
nodes and cores each job ran on (in start order), the engine's counters (passes,
decisions, rate changes), the policy's records (``chosen``, ``blocked`` in the order it
fills them, ``place_calls``), the diagnostics and the paper's outputs built from them.
``Simulation(fast=False)`` forces the general loop. The fast suite runs the pass as
plain Python (the same source numba compiles), calling the node-sharing kernels compiled
as the general loop does (``CompiledPass.plain_calls``), and once with their source too;
the slow test runs it compiled ahead of time.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.engine import Simulation, fastpath
from cosched.engine.view import SystemView
from cosched.errors import ConfigError
from cosched.nodeshare import fast as ns_fast
from cosched.nodeshare import outputs
from cosched.nodeshare.policies import Coscheduling, CoschedulingBackfill
from cosched.platform import Platform
from cosched.policies.base import make_policy
from cosched.workload.job import Workload
from cosched.workload.profiles.nodeshare import annotate_nodeshare
from cosched.workload.sources import open_workload
from tests.nodeshare.test_invariants import mixed_workload
from tests.passes import KTH, NEEDS_KTH, both, use_built_loop
from tests.strategies import workloads

OPTIONS: dict[str, Any] = {
    "restriction": st.sampled_from(["No_Restrict", "Max_One_High", "High_Rq_Low", "Max_One_HM"]),
    "degraded": st.booleans(),
    "rates": st.sampled_from(["dynamic", "at-start"]),
    "interference": st.sampled_from(["fig3", "prior"]),
    "victim_high": st.sampled_from([0.0, 0.3, 1.0]),
    "pressure_low": st.sampled_from([0.0, 0.5, 2.0]),
    "speedup_half": st.sampled_from([1.0, 1.2]),
}


def assert_same(general: Any, compiled: Any) -> None:
    (a, pa), (b, pb) = general, compiled
    assert list(a.jobs.columns) == list(b.jobs.columns)
    for col in a.jobs.columns:
        x, y = np.asarray(a.jobs[col]), np.asarray(b.jobs[col])
        assert x.tobytes() == y.tobytes(), col
    assert list(a.placements.items()) == list(b.placements.items())
    assert a.stats == b.stats
    assert list(pa.chosen.items()) == list(pb.chosen.items())
    assert list(pa.blocked.items()) == list(pb.blocked.items())
    assert pa.place_calls == pb.place_calls
    assert pb.place_ns == 0  # the compiled pass does not time its placements
    assert a.diagnostics == b.diagnostics
    assert outputs.execution_changes(a.jobs) == outputs.execution_changes(b.jobs)
    assert outputs.blocked_counts(pa.blocked) == outputs.blocked_counts(pb.blocked)
    assert outputs.configuration_counts(pa.chosen) == outputs.configuration_counts(pb.chosen)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Workload, Platform]:
    """A random annotated workload on a random shared machine."""
    nodes = draw(st.integers(1, 6))
    cores = draw(st.sampled_from([1, 2, 4, 16]))
    cap = draw(st.sampled_from([1, 2, 3, 3]))
    base = draw(workloads(max_procs=nodes * cores, max_jobs=30))
    seed = draw(st.integers(0, 2**16))
    w = annotate_nodeshare(base, rng=np.random.default_rng(seed))
    return w, Platform(nodes=nodes, cores=cores, allocation="nodes", max_jobs_per_node=cap)


def _params(data: st.DataObject, name: str) -> dict[str, Any]:
    keys = data.draw(st.sets(st.sampled_from(sorted(OPTIONS))), label="options")
    params = {k: data.draw(OPTIONS[k], label=k) for k in sorted(keys)}
    if name == "nodeshare-easy":
        params["window"] = data.draw(st.sampled_from([0, 1, 2, 5, 150]), label="window")
    return params


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), data=st.data(), easy=st.booleans())
def test_compiled_pass_equals_general_loop(
    case: tuple[Workload, Platform], data: st.DataObject, easy: bool
) -> None:
    """Random workloads and machines, both policies, a random subset of the options."""
    w, platform = case
    name = "nodeshare-easy" if easy else "nodeshare"
    assert_same(*both(w, platform, name, **_params(data, name)))


@pytest.mark.parametrize("name", ["nodeshare", "nodeshare-easy"])
@pytest.mark.parametrize("rates", ["dynamic", "at-start"])
def test_a_busy_machine(name: str, rates: str) -> None:
    """200 jobs on 4 nodes of 16 cores, three jobs a node: shared nodes, heads blocked by
    capacity, backfilling."""
    w, platform = mixed_workload()
    general, compiled = both(w, platform, name, rates=rates)
    assert_same(general, compiled)
    assert "capacity" in set(compiled[1].blocked.values())


def test_the_kernels_source_in_the_plain_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain loop with the kernels' Python source (no compiled call at all) gives the
    general loop's runs too."""
    from cosched.nodeshare import policies

    source = dataclasses.replace(ns_fast.NODESHARE_PASS, name="nodeshare_source", plain_calls=None)
    monkeypatch.setattr(policies._NodeShareBase, "compiled_pass", classmethod(lambda cls: source))
    w, platform = mixed_workload()
    w = Workload.from_table(w.table.iloc[:80])
    assert_same(*both(w, platform, "nodeshare"))
    assert_same(*both(w, platform, "nodeshare-easy", rates="at-start"))


def test_general_loop_for_variants_checks_and_bad_columns() -> None:
    """A user's subclass, an instance with plan or commit replaced, check=True, a rate
    model that is not the policy's own, and workloads the pass does not take keep the
    general loop (which names a job without profiles)."""
    w, platform = mixed_workload()
    calls: list[float] = []

    class Mine(Coscheduling):
        name = ""

        def schedule(self, view: SystemView) -> Any:
            calls.append(view.now)
            return super().schedule(view)

    assert fastpath.eligible(Simulation(w, platform, Mine())) is None
    replaced = CoschedulingBackfill()
    replaced.plan = replaced.plan  # type: ignore[method-assign]
    assert fastpath.eligible(Simulation(w, platform, replaced)) is None
    assert fastpath.eligible(Simulation(w, platform, Coscheduling(), check=True)) is None
    other = Coscheduling().rate_model()
    assert fastpath.eligible(Simulation(w, platform, Coscheduling(), rate_model=other)) is None
    bad = Workload.from_table(w.table.assign(ns_mem_sensitivity=3))
    assert fastpath.eligible(Simulation(bad, platform, Coscheduling())) is None
    bare = Workload.from_jobs([(0.0, 16, 10.0, 10.0)])
    sim = Simulation(bare, platform, make_policy("nodeshare-easy"))
    assert fastpath.eligible(sim) is None
    with pytest.raises(ConfigError, match="ns_mem_sensitivity"):
        sim.run()
    for cls in (Coscheduling, CoschedulingBackfill):
        assert fastpath.eligible(Simulation(w, platform, cls())) is not None


@NEEDS_KTH
def test_a_trace_prefix() -> None:
    """The first 400 jobs of KTH-SP2 (100 single-core nodes, as ``cosched run`` sets it
    up) and the same on 25 nodes of 4 cores, both policies."""
    w = annotate_nodeshare(open_workload(str(KTH), limit=400), rng=np.random.default_rng(0))
    one = Platform(100, 1, allocation="nodes", max_jobs_per_node=3)
    assert_same(*both(w, one, "nodeshare"))
    assert_same(*both(w, one, "nodeshare-easy", rates="at-start"))
    four = Platform(25, 4, allocation="nodes", max_jobs_per_node=3)
    assert_same(*both(w, four, "nodeshare-easy", restriction="High_Rq_Low"))


@pytest.mark.slow
@NEEDS_KTH
def test_the_loop_compiled_ahead_of_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's loop with the node-sharing pass bound, compiled ahead of time (what
    a run of 10,000 jobs or more loads), gives the general loop's runs too."""
    use_built_loop(ns_fast.NODESHARE_PASS, "nodeshare", monkeypatch)
    w = annotate_nodeshare(open_workload(str(KTH), limit=6000), rng=np.random.default_rng(0))
    one = Platform(100, 1, allocation="nodes", max_jobs_per_node=3)
    assert_same(*both(w, one, "nodeshare"))
    assert_same(*both(w, one, "nodeshare-easy"))
    sixteen = Platform(7, 16, allocation="nodes", max_jobs_per_node=3)
    assert_same(*both(w, sixteen, "nodeshare", rates="at-start", restriction="Max_One_HM"))
    assert_same(*both(w, sixteen, "nodeshare-easy", window=20, interference="prior"))
