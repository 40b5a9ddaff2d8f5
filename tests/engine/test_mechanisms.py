"""Engine mechanisms the coscheduling families build on: rates, placement, holds, stepping."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.engine import Hold, Release, Simulation, Start, SystemView, WakeUp, on_nodes
from cosched.engine.invariants import verify_schedule
from cosched.errors import ConfigError, PolicyDecisionError
from cosched.platform import Platform
from cosched.policies import Policy, make_policy
from cosched.workload.job import Job, Workload
from tests.strategies import workloads


class HalfSpeedWhenShared:
    """Every running job runs at half speed while two or more jobs run."""

    def update(
        self, view: SystemView, started: Sequence[Job], finished: Sequence[Job]
    ) -> Mapping[int, float]:
        rate = 0.5 if view.n_running >= 2 else 1.0
        return {j.index: rate for j in view.running}


def test_rates_replan_completions() -> None:
    # A runs alone 0-50 (50 s of work done), then at half speed with B: A's last 50 s
    # take 100 s (ends 150); B does 50 s of work by 150 and its last 50 s alone: 200.
    w = Workload.from_jobs([(0, 1, 100), (50, 1, 100)])
    sim = Simulation(w, Platform.of_procs(2), make_policy("fcfs"), rate_model=HalfSpeedWhenShared())
    r = sim.run()
    assert r.jobs["end_time"].tolist() == [150.0, 200.0]
    verify_schedule(r.jobs, capacity=2, exact_rates=False)
    assert r.stats["rate_changes"] == 3


def test_estimated_end_follows_rate() -> None:
    w = Workload.from_jobs([(0, 1, 100, 100), (50, 1, 100, 100)])
    seen: list[float] = []

    @dataclass(kw_only=True)
    class Spy(Policy):
        def schedule(self, view: SystemView) -> list[Any]:
            seen.extend(view.estimated_end(j) for j in view.running if j.index == 0)
            free, out = view.free, []
            for job in view.queue:
                if view.size(job) <= free:
                    free -= view.size(job)
                    out.append(Start(job))
            return out

    Simulation(w, Platform.of_procs(2), Spy(), rate_model=HalfSpeedWhenShared()).run()
    assert seen[0] == 100.0  # at t=50, before B starts and slows A
    assert seen[-1] == 150.0  # at t=150 (B's pass) the re-planned estimate


@dataclass(kw_only=True)
class Scripted(Policy):
    """Carries out a script of decisions: {time: [(kind, job index, placement)]}."""

    script: dict[float, list[tuple[str, int, Any]]] = field(default_factory=dict)

    def schedule(self, view: SystemView) -> list[Any]:
        out: list[Any] = []
        for kind, idx, arg in self.script.get(view.now, []):
            job = view.job(idx)
            if kind == "start":
                out.append(Start(job, arg))
            elif kind == "hold":
                out.append(Hold(job, arg))
            elif kind == "release":
                out.append(Release(job))
            elif kind == "wake":
                out.append(WakeUp(arg))
        return out


def shared() -> Platform:
    return Platform(nodes=2, cores=2, mpl=1, max_jobs_per_node=2)


def test_explicit_placement_and_cap() -> None:
    w = Workload.from_jobs([(0, 1, 10), (0, 1, 10), (0, 1, 10)])
    script = {0.0: [("start", 0, on_nodes([0])), ("start", 1, on_nodes([0]))]}
    script[0.0].append(("start", 2, on_nodes([1])))
    r = Simulation(w, shared(), Scripted(script=script), check=True).run()
    assert r.jobs["end_time"].tolist() == [10.0, 10.0, 10.0]
    capped = Platform(nodes=2, cores=4, max_jobs_per_node=2)
    script = {0.0: [("start", i, on_nodes([0])) for i in range(3)]}
    with pytest.raises(PolicyDecisionError, match="already runs 2 jobs"):
        Simulation(w, capped, Scripted(script=script)).run()


@pytest.mark.parametrize(
    ("placement", "message"),
    [
        (((0, 3),), "2 free slots, 3 asked"),
        (((5, 1),), "node 5 does not exist"),
        (((0, 1), (0, 1)), "appears twice"),
        ((), "empty placement"),
    ],
)
def test_bad_placements_are_refused(placement: Any, message: str) -> None:
    w = Workload.from_jobs([(0, 1, 10)])
    with pytest.raises(PolicyDecisionError, match=message):
        Simulation(w, shared(), Scripted(script={0.0: [("start", 0, placement)]})).run()


def test_placement_on_unshared_platform_is_refused() -> None:
    w = Workload.from_jobs([(0, 1, 10)])
    policy = Scripted(script={0.0: [("start", 0, on_nodes([0]))]})
    with pytest.raises(PolicyDecisionError, match="placement"):
        Simulation(w, Platform.of_procs(4), policy).run()


def test_hold_keeps_units_busy_then_starts_on_them() -> None:
    # 2 procs. Job 0 holds 2 procs from 0 to 30, then starts (ends 40). Job 1 (1 proc,
    # submitted at 5) cannot start before 40 although nothing runs before 30.
    w = Workload.from_jobs([(0, 2, 10), (5, 1, 10)])
    script = {
        0.0: [("hold", 0, None), ("wake", 0, 30.0)],
        30.0: [("start", 0, None)],
        40.0: [("start", 1, None)],
    }
    r = Simulation(w, Platform.of_procs(2), Scripted(script=script), check=True).run()
    assert r.jobs["start_time"].tolist() == [30.0, 40.0]
    assert r.jobs["held_time"].tolist() == [30.0, 0.0]


def test_release_gives_units_back() -> None:
    w = Workload.from_jobs([(0, 2, 10), (5, 1, 10)])
    script = {
        0.0: [("hold", 0, None)],
        5.0: [("release", 0, None), ("start", 1, None)],
        15.0: [("start", 0, None)],
    }
    r = Simulation(w, Platform.of_procs(2), Scripted(script=script), check=True).run()
    assert r.jobs["start_time"].tolist() == [15.0, 5.0]
    assert r.jobs["held_time"].tolist() == [5.0, 0.0]


def test_holding_twice_or_releasing_nothing_is_refused() -> None:
    w = Workload.from_jobs([(0, 1, 10)])
    with pytest.raises(PolicyDecisionError, match="already holds"):
        script = {0.0: [("hold", 0, None), ("hold", 0, None)]}
        Simulation(w, Platform.of_procs(2), Scripted(script=script)).run()
    with pytest.raises(PolicyDecisionError, match="holds no units"):
        Simulation(w, Platform.of_procs(2), Scripted(script={0.0: [("release", 0, None)]})).run()


def test_stall_is_reported_not_hung() -> None:
    w = Workload.from_jobs([(0, 1, 10)])
    with pytest.raises(PolicyDecisionError, match="stalled with 1 job"):
        Simulation(w, Platform.of_procs(2), Scripted()).run()


def test_starting_unqueued_or_too_wide_is_refused() -> None:
    w = Workload.from_jobs([(0, 2, 10), (0, 2, 10)])
    both = {0.0: [("start", 0, None), ("start", 1, None)]}
    with pytest.raises(PolicyDecisionError, match="needs 2 units, 0 free") as info:
        Simulation(w, Platform.of_procs(2), Scripted(script=both)).run()
    assert "job 2" in str(info.value) and "t=0" in str(info.value)
    twice = {0.0: [("start", 0, None), ("start", 0, None)]}
    with pytest.raises(PolicyDecisionError, match="not queued"):
        Simulation(w, Platform.of_procs(4), Scripted(script=twice)).run()


def test_stepping_two_simulations_on_one_clock_equals_running_each() -> None:
    wa = Workload.from_jobs([(0, 3, 50, 80), (10, 2, 20), (11, 4, 30)])
    wb = Workload.from_jobs([(5, 1, 40), (6, 2, 10), (30, 2, 5)])
    plat = Platform.of_procs(4)
    solo = [Simulation(w, plat, make_policy("easy")).run().jobs for w in (wa, wb)]
    sims = [Simulation(w, plat, make_policy("easy")) for w in (wa, wb)]
    while (t := min(s.next_time() for s in sims)) < float("inf"):
        for s in sims:
            if s.next_time() == t:
                s.advance(t)
    for s, alone in zip(sims, solo, strict=True):
        assert s.finish().jobs.equals(alone)


def test_a_simulation_runs_once() -> None:
    sim = Simulation(Workload.from_jobs([(0, 1, 1)]), Platform.of_procs(1), make_policy("fcfs"))
    sim.run()
    with pytest.raises(ConfigError):
        sim.run()


@dataclass(kw_only=True)
class RandomPlacement(Policy):
    """Places queued jobs on random nodes with random slot counts, when they fit."""

    def schedule(self, view: SystemView) -> list[Any]:
        rng: np.random.Generator = view.rng
        out: list[Any] = []
        free = [view.free_slots(n) for n in range(view.platform.nodes)]
        count = [len(view.jobs_on(n)) for n in range(view.platform.nodes)]
        for job in view.queue:
            usable = [n for n in range(len(free)) if free[n] and count[n] < view.max_jobs_per_node]
            if not usable:
                break
            k = int(rng.integers(1, len(usable) + 1))
            nodes = sorted(rng.choice(usable, size=k, replace=False).tolist())
            slots = int(rng.integers(1, min(free[n] for n in nodes) + 1))
            for n in nodes:
                free[n] -= slots
                count[n] += 1
            out.append(Start(job, on_nodes(nodes, slots)))
        return out


@settings(max_examples=80, deadline=None)
@given(
    nodes=st.integers(1, 6),
    cores=st.integers(1, 4),
    mpl=st.integers(1, 3),
    cap=st.one_of(st.none(), st.integers(1, 3)),
    w=workloads(max_procs=1),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_placements_never_overcommit_a_node(
    nodes: int, cores: int, mpl: int, cap: int | None, w: Workload, seed: int
) -> None:
    platform = Platform(nodes=nodes, cores=cores, mpl=mpl, max_jobs_per_node=cap)
    rng = np.random.default_rng(seed)
    sim = Simulation(w, platform, RandomPlacement(), rng=rng, check=True, placement=True)
    r = sim.run()  # check=True recounts every node's slots and jobs after each pass
    assert r.jobs["end_time"].notna().all()


@settings(max_examples=60, deadline=None)
@given(w=workloads(max_procs=4), name=st.sampled_from(["fcfs", "easy", "conservative"]))
def test_baselines_on_a_shared_platform_take_whole_free_nodes(w: Workload, name: str) -> None:
    platform = Platform(nodes=4, cores=2, allocation="nodes", mpl=2, max_jobs_per_node=2)
    r = Simulation(w, platform, make_policy(name), check=True).run()
    verify_schedule(r.jobs, capacity=platform.capacity)


def test_occupancy_counts_the_slots_a_spread_job_holds() -> None:
    # 2 nodes x 4 cores, node allocation: a 4-core job spread as 2 nodes x 2 cores holds
    # one node's worth of slots; alone for 10 s on 2 nodes, utilization is 1/2.
    w = Workload.from_jobs([(0, 4, 10)])
    platform = Platform(nodes=2, cores=4, allocation="nodes", max_jobs_per_node=2)
    script = {0.0: [("start", 0, on_nodes([0, 1], 2))]}
    r = Simulation(w, platform, Scripted(script=script), check=True).run()
    assert r.jobs["occupancy"].tolist() == [1.0]
    from cosched.metrics import summarize

    assert summarize(r.jobs, capacity=platform.capacity)["utilization"] == 0.5


def test_a_seed_gives_the_generator_default_rng_gives_and_none_is_seed_zero() -> None:
    w = Workload.from_jobs([(0.0, 1, 5.0, 5.0)])

    def draws(rng: object) -> list[int]:
        sim = Simulation(w, Platform(nodes=2), make_policy("fcfs"), rng=rng)  # type: ignore[arg-type]
        return sim.rng.integers(0, 10**9, 3).tolist()

    want = np.random.default_rng(7).integers(0, 10**9, 3).tolist()
    assert draws(7) == draws(np.int64(7)) == draws(np.random.default_rng(7)) == want
    assert draws(None) == np.random.default_rng(0).integers(0, 10**9, 3).tolist()
    given = np.random.default_rng(1)
    sim = Simulation(w, Platform(nodes=2), make_policy("fcfs"), rng=given)
    assert sim.rng is given
