"""The example family of docs/writing-a-family.md (examples/colocate): its rule by hand,
its compiled pass against its policy, and the package installed as a plugin."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.engine import fastpath
from cosched.engine.simulation import Simulation
from cosched.platform import Allocation, Platform
from cosched.workload.job import Workload
from tests.conformance.test_plugins import install, run_by_name

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "examples" / "colocate"


@pytest.fixture(scope="module")
def colocate() -> Iterator[Any]:
    """The example's module, imported from its source folder (not installed)."""
    sys.path.insert(0, str(PACKAGE / "src"))
    try:
        import cosched_colocate

        yield cosched_colocate
    finally:
        sys.path.remove(str(PACKAGE / "src"))


def _machine(nodes: int, cores: int, cap: int) -> Platform:
    return Platform(nodes, cores, Allocation.CORES, max_jobs_per_node=cap)


def test_small_jobs_share_the_fullest_node_and_whole_nodes_stay_free(colocate: Any) -> None:
    # 2 nodes of 4 cores, two jobs a node: job 0 (2 cores) takes node 0; job 1 (2 cores)
    # goes to the fullest node with room, node 0 (2 free against 4); node 0 now holds
    # two jobs, so job 2 (2 cores) takes node 1, and job 3 (4 cores) waits for cores.
    w = Workload.from_jobs([(0.0, 2, 10.0, 10.0)] * 3 + [(0.0, 4, 10.0, 10.0)])
    for check in (True, False):  # the general loop, then the compiled pass's loop
        result = Simulation(w, _machine(2, 4, 2), colocate.PackPairs(), check=check).run()
        assert dict(result.placements) == {
            0: ((0, 2),), 1: ((0, 2),), 2: ((1, 2),), 3: ((0, 4),)
        }  # fmt: skip
        assert list(result.jobs["start_time"]) == [0.0, 0.0, 0.0, 10.0]


@st.composite
def cases(draw: st.DrawFn) -> tuple[Workload, Platform]:
    nodes, cores, cap = draw(st.integers(1, 5)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    rows, t = [], 0
    for _ in range(draw(st.integers(1, 30))):
        t += draw(st.sampled_from([0, 0, 1, 7, 100]))
        run = draw(st.integers(1, 200))
        rows.append((float(t), draw(st.integers(1, nodes * cores)), float(run), float(run)))
    return Workload.from_jobs(rows), _machine(nodes, cores, cap)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_the_compiled_pass_is_the_policys_rule(colocate: Any, case: Any) -> None:
    w, platform = case
    fast = Simulation(w, platform, colocate.PackPairs())
    assert fastpath.eligible(fast) is not None
    general = Simulation(w, platform, colocate.PackPairs(), check=True).run()
    got = fast.run()
    pd.testing.assert_frame_equal(general.jobs, got.jobs, check_exact=True)
    assert dict(general.placements) == dict(got.placements)


def test_the_family_installed_as_a_plugin_runs_by_name_and_in_compare(tmp_path: Path) -> None:
    env = install(PACKAGE, tmp_path)
    families, jobs = run_by_name("pack-pairs", env, tmp_path)
    assert families["pack-pairs"] == "colocate"
    assert jobs == 300
    code = (
        "from cosched.compare.study import control_steps, default_policies\n"
        "print(default_policies()[-1], control_steps('colocate')[0][0])\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip
    assert shown.stdout.split() == ["pack-pairs", "sharing"]


@pytest.mark.slow
def test_the_compiled_loop_runs_the_example_as_its_plain_loop_does(
    colocate: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cosched.testing import machine_for
    from cosched.workload.sources import open_workload

    w, platform = machine_for(colocate.PackPairs, open_workload("bundled:example"), nodes=16)
    plain = Simulation(w, platform, colocate.PackPairs()).run()
    monkeypatch.setattr(fastpath, "COMPILE_FROM", 0)  # numba's loop, compiled just in time
    compiled = Simulation(w, platform, colocate.PackPairs()).run()
    pd.testing.assert_frame_equal(plain.jobs, compiled.jobs, check_exact=True)
    assert dict(plain.placements) == dict(compiled.placements)
