"""Invariants of every LOMARC variant with pairing, on random workloads (hypothesis)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.engine import Simulation
from cosched.engine.invariants import verify_schedule
from cosched.engine.view import SystemView
from cosched.lomarc.policies import VARIANTS, Lomarc, lomarc_platform
from cosched.policies.base import make_policy
from cosched.workload.job import Workload
from tests.lomarc.helpers import workload

PROFILES = st.sampled_from(
    [
        (0, 0.8, 0.1, 0.1, 2.0),
        (0, 0.6, 0.05, 0.35, 1.4),
        (0, 0.7, 0.2, 0.1, 1.4),
        (1, 0.3, 0.55, 0.15, 2.0),
        (1, 0.2, 0.45, 0.35, 1.4),
        (2, 0.3, 0.15, 0.55, 2.0),
        (2, 0.45, 0.1, 0.45, 1.4),
    ]
)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Workload, int]:
    nodes = draw(st.integers(1, 10))
    n = draw(st.integers(1, 20))
    rows = []
    over = []
    t = 0.0
    for _ in range(n):
        over.append(draw(st.sampled_from([1.0, 1.0, 1.5, 4.0])))
        t += draw(st.sampled_from([0, 0, 1, 30, 600, 4000]))
        size = draw(st.integers(1, nodes))
        run = float(draw(st.sampled_from([20, 59, 61, 900, 3601, 5000, 20000])))
        mem = draw(st.sampled_from([0.1, 0.3, 0.5, 0.6, 0.9]))
        rows.append((t, size, run, draw(PROFILES), mem))
    return workload(rows, over), nodes


def check_nodes(view: SystemView) -> None:
    """Two jobs a node at most, each on one slot of the node's two."""
    for node in range(view.platform.nodes):
        on = view.jobs_on(node)
        assert len(on) <= 2
        assert view.free_slots(node) == 2 - len(on)


def check_rates(policy: Lomarc, view: SystemView, new: Mapping[int, float]) -> None:
    """After the rate model's update, every running job runs at 1 / its worst slowdown."""
    model = policy._profiles
    for job in view.running:
        worst = 1.0
        for node, _ in view.placement(job):
            for other in view.jobs_on(node):
                if other != job.index:
                    worst = max(worst, model.slowdown(job, view.job(other)))
        assert new.get(job.index, view.rate(job)) == pytest.approx(1.0 / worst)


def run_checked(w: Workload, nodes: int, name: str, **params: Any) -> Any:
    policy = make_policy(name, **params)
    assert isinstance(policy, Lomarc)
    inner = policy.schedule

    def schedule(view: SystemView) -> Any:
        check_nodes(view)
        return inner(view)

    policy.schedule = schedule  # type: ignore[method-assign]
    sim = Simulation(w, lomarc_platform(nodes), policy, check=True)
    if sim.rate_model is not None:
        update = sim.rate_model.update

        def checked(view: SystemView, started: Any, finished: Any) -> Mapping[int, float]:
            new = update(view, started, finished)
            check_rates(policy, view, new)
            return new

        sim.rate_model.update = checked  # type: ignore[method-assign]
    return sim.run().jobs, policy


@pytest.mark.parametrize("name", [*VARIANTS.values(), "lomarc"])
@settings(max_examples=25, deadline=None)
@given(case=cases(), weak=st.booleans())
def test_pairing_invariants(name: str, case: tuple[Workload, int], weak: bool) -> None:
    w, nodes = case
    params = {} if weak else {"weak_spare": None}
    jobs, policy = run_checked(w, nodes, name, **params)
    # Every job starts once and ends once, never before submission; at most two jobs
    # (two slots) per node, so at most 2 x nodes units of jobs at once.
    verify_schedule(jobs, capacity=2 * nodes, exact_rates=name == "lomarc-pss")
    execution = (jobs["end_time"] - jobs["start_time"]).to_numpy()
    run = jobs["run_time"].to_numpy()
    # Without MAX_SLOWDOWN (AC) the bound is a paging pair's: sl_mem, plus at most 2
    # for the shared parts under the printed formula (2 x the sum of the overlaps).
    extra = 2.0 if policy.slowdown == "printed" else 0.0
    limit = policy.max_slowdown or policy.mem_slowdown + extra
    assert (execution >= run - 1e-6).all()
    assert (execution <= run * limit + 1e-6).all()
    # The funnel of Table 5 only narrows.
    f = policy.funnel
    assert f.medium_long >= f.size_ok >= f.memory_ok >= f.matchable >= f.slowdown_ok


@settings(max_examples=25, deadline=None)
@given(case=cases())
def test_pss_is_easy_with_priorities(case: tuple[Workload, int]) -> None:
    w, nodes = case
    mine = Simulation(w, lomarc_platform(nodes), make_policy("lomarc-pss")).run().jobs
    easy = Simulation(w, lomarc_platform(nodes), make_policy("easy", order="priority")).run().jobs
    cols = ["start_time", "end_time"]
    np.testing.assert_array_equal(mine[cols].to_numpy(), easy[cols].to_numpy())
