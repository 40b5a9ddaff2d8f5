"""One conformance suite over the whole registry (and the example plugin file).

Every policy found by ``cosched policies`` gets, for free: the engine invariants on
random workloads (hypothesis), determinism, pickling, a run from the command line and
a run in a two-worker sweep. The last tests show that each check can fail, with
deliberately broken policies.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.cli.main import main
from cosched.engine import Start, SystemView
from cosched.errors import InvariantError
from cosched.experiments.sweep import run_sweep, spec_from_dict
from cosched.platform import Platform
from cosched.policies import Policy, all_policies, policy_class
from cosched.policies.requirements import MachineFlags, build_platform, supply_profiles
from cosched.testing import (
    ConformanceError,
    check_deterministic,
    check_feasible,
    check_picklable,
    machine_for,
)
from cosched.workload.sources import open_workload
from tests.strategies import workloads

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_REF = f"{ROOT / 'examples' / 'largest_first.py'}:LargestFirst"
VARIANT_REF = f"{ROOT / 'examples' / 'nodeshare_sjf.py'}:NodeshareSjf"
NAMES = [*all_policies(), EXAMPLE_REF, VARIANT_REF]


def _cls(name: str) -> type[Policy]:
    return policy_class(name)


def _fields(name: str) -> set[str]:
    cls = _cls(name)
    return {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()


def _example_case(cls: type[Policy], jobs: int = 120) -> tuple[Any, Platform]:
    w = open_workload("bundled:example", limit=jobs)
    return machine_for(cls, w, nodes=64, seed=1)


@st.composite
def cases(draw: st.DrawFn, cls: type[Policy], partitioned: bool = False) -> tuple[Any, Platform]:
    """Up to 20 jobs with the profiles ``cls`` needs, on 1 to 8 nodes or, ``partitioned``,
    on a machine allocated in 1 to 4 partitions of 1, 2 or 4 units (a Blue Gene/P's
    midplanes)."""
    if partitioned:
        block = draw(st.sampled_from([1, 2, 4]))
        flags = MachineFlags(nodes=block * draw(st.integers(1, 4)))
        base, _ = build_platform(cls.requires, flags, None)
        platform = Platform(base.nodes, base.cores, base.allocation, partition=block)
    else:
        flags = MachineFlags(nodes=draw(st.integers(1, 8)))
        platform, _ = build_platform(cls.requires, flags, None)
    w = draw(workloads(max_procs=platform.procs, max_jobs=20))
    w, _ = supply_profiles(cls.requires, w, seed=draw(st.integers(0, 2**16)))
    return w, platform


@pytest.mark.parametrize("name", NAMES, ids=lambda n: Path(n).name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_invariants_on_random_workloads(name: str, data: st.DataObject) -> None:
    cls = _cls(name)
    w, platform = data.draw(cases(cls))
    check_feasible(cls, w, platform)


#: Policies that run on an unshared machine: partitions are whole blocks, never shared.
UNSHARED = [n for n in NAMES if not _cls(n).requires.shared]


def test_every_unshared_policy_is_tried_on_the_partitioned_machine() -> None:
    # The batch baselines and the learned policy; the sharing families (LOMARC, node
    # sharing, gang) place several jobs on a node, which a partition never is.
    assert {"fcfs", "easy", "conservative", "learned", "recorded"} <= set(UNSHARED)


@pytest.mark.parametrize("name", UNSHARED, ids=lambda n: Path(n).name)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_invariants_on_a_partitioned_machine(name: str, data: st.DataObject) -> None:
    cls = _cls(name)
    w, platform = data.draw(cases(cls, partitioned=True))
    result = check_feasible(cls, w, platform)
    need = platform.needed_array(result.jobs["procs"].to_numpy())
    size = result.jobs["size"].to_numpy()
    assert (size >= need).all()
    assert (result.jobs["wasted"].to_numpy() == size - need).all()


#: The registered policies that take per-user running limits (cosched.policies.limits).
LIMITED = [n for n in all_policies() if {"max_jobs_per_user", "max_procs_per_user"} <= _fields(n)]


def _site_params(name: str, draw: Any, procs: int) -> dict[str, Any]:
    """Random per-user limits, and the fairshare order where the policy offers it."""
    params: dict[str, Any] = {
        "max_jobs_per_user": draw(st.integers(1, 3)),
        "max_procs_per_user": draw(st.integers(1, procs)),
    }
    if "fairshare_half_life" in _fields(name):
        params["order"] = draw(st.sampled_from(["submit", "fairshare"]))
        params["fairshare_half_life"] = draw(st.sampled_from([10.0, 3600.0]))
    return params


def test_the_baselines_take_user_limits() -> None:
    assert {"fcfs", "easy", "conservative"} <= set(LIMITED)


@pytest.mark.parametrize("name", LIMITED)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_invariants_with_user_limits_on_random_workloads(name: str, data: st.DataObject) -> None:
    cls = _cls(name)
    platform = Platform(nodes=data.draw(st.integers(1, 8)), cores=data.draw(st.integers(1, 2)))
    w = data.draw(workloads(max_procs=platform.procs, max_jobs=20, users=3))
    params = _site_params(name, data.draw, platform.procs)
    check_feasible(cls, w, platform, **params)
    check_deterministic(cls, w, platform, **params)
    check_picklable(cls, w, platform, **params)


@pytest.mark.parametrize("name", NAMES, ids=lambda n: Path(n).name)
def test_deterministic(name: str) -> None:
    cls = _cls(name)
    check_deterministic(cls, *_example_case(cls))


@pytest.mark.parametrize("name", NAMES, ids=lambda n: Path(n).name)
def test_picklable(name: str) -> None:
    cls = _cls(name)
    check_picklable(cls, *_example_case(cls, jobs=60))


@pytest.mark.parametrize("name", NAMES, ids=lambda n: Path(n).name)
def test_runs_from_the_command_line(name: str, tmp_path: Path) -> None:
    out = tmp_path / "jobs.csv"
    args = ["run", "bundled:example", "--policy", name, "--limit", "80", "--jobs-out", str(out)]
    assert main(args) == 0
    assert len(pd.read_csv(out)) == 80


def test_every_policy_runs_in_a_two_worker_sweep(tmp_path: Path) -> None:
    spec = spec_from_dict(
        {
            "name": "registry",
            "workloads": [{"kind": "swf", "path": "bundled:example", "limit": 60}],
            "policies": [{"name": n} for n in NAMES],
        },
        root=ROOT,
    )
    table = run_sweep(spec, tmp_path / "store", workers=2)
    assert list(table["status"]) == ["ok"] * len(NAMES)
    assert (table["jobs"] == 60).all()


# -- each check can fail ----------------------------------------------------------------


@dataclass(kw_only=True)
class OverCommits(Policy, register=False):
    """Starts every queued job at once, whether it fits or not."""

    name = "broken-overcommit"

    def schedule(self, view: SystemView) -> list[Start]:
        return [Start(job) for job in view.queue]


@dataclass(kw_only=True)
class Flaky(Policy, register=False):
    """Alternates between two queue orders from one run to the next."""

    name = "broken-flaky"
    runs: ClassVar[Any] = itertools.count()
    _flip: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        self._flip = next(Flaky.runs) % 2 == 1

    def schedule(self, view: SystemView) -> list[Start]:
        free, out = view.free, []
        queue = sorted(view.queue, key=lambda j: j.index, reverse=self._flip)
        for job in queue:
            if view.size(job) <= free:
                free -= view.size(job)
                out.append(Start(job))
        return out


@dataclass(kw_only=True)
class Unpicklable(Policy, register=False):
    """Keeps a lambda, which pickle cannot store."""

    name = "broken-unpicklable"
    _key: Any = field(default_factory=lambda: lambda j: j.index, init=False)

    def schedule(self, view: SystemView) -> list[Start]:
        free, out = view.free, []
        for job in sorted(view.queue, key=self._key):
            if view.size(job) > free:
                break
            free -= view.size(job)
            out.append(Start(job))
        return out


def test_the_feasibility_check_fails_on_overcommitment() -> None:
    with pytest.raises(ConformanceError, match="broken-overcommit"):
        check_feasible(OverCommits, *_example_case(OverCommits))


def test_the_determinism_check_fails_on_a_flaky_policy() -> None:
    with pytest.raises(ConformanceError, match="not deterministic"):
        check_deterministic(Flaky, *_example_case(Flaky))


def test_the_pickling_check_fails_on_an_unpicklable_policy() -> None:
    with pytest.raises(ConformanceError, match="cannot be pickled"):
        check_picklable(Unpicklable, *_example_case(Unpicklable, jobs=30))


def test_the_placement_recount_catches_an_overfull_node() -> None:
    # Not trusting the engine: two jobs on node 0's only slot at the same time.
    from cosched.engine.invariants import verify_placements

    jobs = pd.DataFrame({"start_time": [0.0, 5.0], "end_time": [10.0, 20.0]})
    platform = Platform(2, 1, "nodes", mpl=1, max_jobs_per_node=2)
    with pytest.raises(InvariantError, match="node 0"):
        verify_placements(jobs, {0: ((0, 1),), 1: ((0, 1),)}, platform)
    verify_placements(jobs, {0: ((0, 1),), 1: ((1, 1),)}, platform)
