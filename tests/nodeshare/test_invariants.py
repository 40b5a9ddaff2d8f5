"""Whole simulations of the coscheduling policies under hypothesis, with check=True."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.engine.invariants import verify_schedule
from cosched.engine.simulation import Simulation
from cosched.errors import ConfigError
from cosched.nodeshare.policies import Coscheduling, CoschedulingBackfill
from cosched.platform import Platform
from cosched.policies.base import make_policy
from cosched.workload.job import Workload
from cosched.workload.profiles.nodeshare import annotate_nodeshare
from tests.strategies import workloads

CORES = 16


class LedgerSpy(Coscheduling):
    """Coscheduling that checks node occupancy from the view at every pass."""

    name = ""

    def schedule(self, view):
        for node in range(view.platform.nodes):
            jobs = view.jobs_on(node)
            assert len(jobs) <= view.max_jobs_per_node
            used = sum(slots for j in jobs for n, slots in view.placement(view.job(j)) if n == node)
            assert used + view.free_slots(node) == CORES and used <= CORES
        return super().schedule(view)


def assert_same_runs(a, pa, b, pb) -> None:
    """Two nodeshare runs (result, policy) alike bit for bit: starts, ends, placements,
    configurations, engine counters, chosen and blocked records."""
    for col in ("start_time", "end_time"):
        assert a.jobs[col].to_numpy().tobytes() == b.jobs[col].to_numpy().tobytes()
    assert a.placements == b.placements
    assert a.stats == b.stats
    assert pa.chosen == pb.chosen
    assert pa.blocked == pb.blocked


def _factor_bounds(w: Workload, policy) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest run-time factor the model allows each job."""
    t = w.table
    m = policy._model
    cf, cp, dg = t["ns_comm_fraction"], t["ns_comm_penalty"], t["ns_degradation"]
    best = (1 - cf) / max(m.speedup.values()) + cf / (1 + cp)
    worst_press = 2 * max(m.pressure)
    worst = (1 - cf) * dg**2 * (1 + max(m.victim) * worst_press) + cf * (1 + cp) ** 2
    return best.to_numpy(), worst.to_numpy()


@st.composite
def cases(draw: st.DrawFn) -> tuple[Workload, Platform, dict[str, Any]]:
    """A run drawn (shared with the other nodeshare tests): up to 30 jobs with nodeshare
    profiles on 1 to 6 nodes of 16 cores, and the policies' settings."""
    nodes = draw(st.integers(1, 6))
    base = draw(workloads(max_procs=nodes * CORES, max_jobs=30))
    w = annotate_nodeshare(base, rng=np.random.default_rng(draw(st.integers(0, 2**16))))
    platform = Platform(nodes=nodes, cores=CORES, allocation="nodes", max_jobs_per_node=3)
    params = {
        "restriction": draw(
            st.sampled_from(["No_Restrict", "Max_One_High", "High_Rq_Low", "Max_One_HM"])
        ),
        "degraded": draw(st.booleans()),
        "rates": draw(st.sampled_from(["dynamic", "at-start"])),
    }
    return w, platform, params


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), combined=st.booleans())
def test_invariants(case, combined):
    w, platform, params = case
    cls = CoschedulingBackfill if combined else LedgerSpy
    policy = cls(**params)
    result = Simulation(w, platform, policy, check=True).run()
    jobs = result.jobs
    # Every job starts and ends exactly once, never before it is submitted.
    verify_schedule(jobs, capacity=10**9, exact_rates=False)
    assert len(policy.chosen) == len(jobs)
    factor = (jobs["end_time"] - jobs["start_time"]).to_numpy() / jobs["run_time"].to_numpy()
    low, high = _factor_bounds(w, policy)
    assert (factor >= low * (1 - 1e-6)).all() and (factor <= high * (1 + 1e-6)).all()
    if params["rates"] == "at-start":
        at_start = np.array([policy.chosen[i][2] for i in range(len(jobs))])
        np.testing.assert_allclose(factor, at_start, rtol=1e-6)
    if not params["degraded"]:
        assert not any(d for _, d, _ in policy.chosen.values())


def mixed_workload() -> tuple[Workload, Platform]:
    """200 jobs of 1 to 63 cores every 10 s, annotated, on 4 nodes (cap 3)."""
    rng = np.random.default_rng(3)
    rows = [
        (float(10 * i), int(rng.integers(1, 64)), float(rng.integers(1, 900)), 1e4)
        for i in range(200)
    ]
    w = annotate_nodeshare(Workload.from_jobs(rows), rng=np.random.default_rng(5))
    return w, Platform(nodes=4, cores=CORES, allocation="nodes", max_jobs_per_node=3)


def test_same_seed_same_schedule():
    w, platform = mixed_workload()
    runs = [
        Simulation(w, platform, make_policy(name)).run().jobs
        for name in ("nodeshare", "nodeshare", "nodeshare-easy", "nodeshare-easy")
    ]
    assert runs[0].equals(runs[1]) and runs[2].equals(runs[3])


def test_needs_profiles_and_a_shared_platform():
    w = Workload.from_jobs([(0.0, 16, 10.0, 10.0)])
    shared = Platform(nodes=2, cores=CORES, allocation="nodes", max_jobs_per_node=3)
    with pytest.raises(ConfigError, match="ns_mem_sensitivity"):
        Simulation(w, shared, make_policy("nodeshare")).run()
    with pytest.raises(ConfigError, match="nodes allocation, a job cap per node"):
        Simulation(w, Platform(nodes=2, cores=CORES), make_policy("nodeshare"))
    with pytest.raises(ConfigError, match="restriction"):
        make_policy("nodeshare", restriction="none")
