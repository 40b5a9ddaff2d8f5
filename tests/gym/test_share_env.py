"""The coscheduling environment: Gymnasium's checks, its modes as the family's policies,
the environment and ``learned-nodeshare`` as one scheduler."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the environments need gymnasium (cosched[gym])")


from cosched.cli.main import main
from cosched.engine import SimulationResult, simulate
from cosched.gym import agents, share
from cosched.gym.share import LearnedNodeShare
from cosched.gym.share_env import NodeShareEnv
from cosched.policies import make_policy
from cosched.workload.job import Workload
from tests.gym.conftest import check_registered_env


def _play(env: NodeShareEnv, agent: Callable[..., int], **reset: object) -> SimulationResult:
    obs, _ = env.reset(**reset)  # type: ignore[arg-type]
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        obs, _, done, _, _ = env.step(agent(obs))
    assert env.result is not None
    return env.result


def _same(a: SimulationResult, b: SimulationResult) -> bool:
    cols = ("start_time", "end_time")
    return all(np.array_equal(a.job_columns[c], b.job_columns[c]) for c in cols)


@pytest.mark.parametrize("options", [{}, {"commit": "event", "slots": 4, "releases": 2}])
def test_gymnasium_env_checker_passes(options: dict) -> None:
    check_registered_env("cosched.gym.share_env:cosched/NodeShare-v0", **options)


def test_first_come_shared_is_the_nodeshare_policy() -> None:
    env = NodeShareEnv("bundled:example", jobs=None, nodes=16)
    got = _play(env, share.fcfs_shared)
    want = simulate(env.workload, env.platform, make_policy("nodeshare"))
    assert _same(got, want)
    assert dict(got.placements) == dict(want.placements)


def test_first_come_alone_is_fcfs_and_never_shares_a_node_at_start() -> None:
    env = NodeShareEnv("bundled:example", jobs=None, nodes=16)
    got = _play(env, share.fcfs_alone)
    assert _same(got, simulate(env.workload, env.platform, make_policy("fcfs")))
    start, end = got.job_columns["start_time"], got.job_columns["end_time"]
    for j, placement in got.placements.items():
        nodes = {node for node, _ in placement}
        assert all(slots == env.platform.cores for _, slots in placement)  # base (n x C)
        for k, other in got.placements.items():
            if k != j and start[k] <= start[j] < end[k]:
                assert not nodes & {node for node, _ in other}, (j, k)


@pytest.mark.parametrize("commit", ["head", "event"])
@pytest.mark.parametrize(
    "name", ["fcfs_shared", "fcfs_alone", "shared_unless_slower", "sjf_shared"]
)
def test_the_environment_and_the_policy_schedule_alike(commit: str, name: str) -> None:
    agent = getattr(share, name, None) or share.in_mode(agents.sjf, 1)
    ref = f"cosched.gym.share:{name}" if hasattr(share, name) else None
    env = NodeShareEnv("bundled:example", jobs=120, nodes=16, commit=commit, slots=8)
    got = _play(env, agent, seed=5)
    policy = LearnedNodeShare(agent=ref or agent, commit=commit, slots=8)  # type: ignore[arg-type]
    assert env.result is not None
    w = env.workload.rows(slice(env.start, env.start + 120), "the episode's window")
    assert _same(got, simulate(w, env.platform, policy))


def test_a_mode_outside_the_mask_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "bad_agent.py"
    agent.write_text("def act(obs):\n    return 2 * 40\n")
    argv = ["run", "--policy", "learned-nodeshare", "-P", f"agent={agent}:act", "--limit", "30"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "chose 80, outside the action mask (allowed: 0..1)" in err


def test_the_policy_runs_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "jobs.csv"
    argv = ["run", "--policy", "learned-nodeshare", "-P", "agent=cosched.gym.share:fcfs_alone",
            "-P", "slots=8", "--limit", "60", "--jobs-out", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert len(out.read_text().splitlines()) == 61


def _two_high_jobs() -> Workload:
    """Two one-node jobs of 100 s at t=0, both of high memory sensitivity, communication
    fraction 0.1, penalty 0, degradation 1.5 per halving."""
    import pandas as pd

    table = pd.DataFrame(
        {
            "job_id": [1, 2],
            "submit_time": [0.0, 0.0],
            "run_time": [100.0, 100.0],
            "requested_time": [100.0, 100.0],
            "procs": [2, 2],
            "ns_mem_sensitivity": [2, 2],
            "ns_comm_fraction": [0.1, 0.1],
            "ns_comm_penalty": [0.0, 0.0],
            "ns_degradation": [1.5, 1.5],
        }
    )
    return Workload.from_table(table, name="two-high")


def test_the_mode_decides_the_co_location_and_the_rates_by_hand() -> None:
    # Two nodes of 2 cores (the fig3 preset: memory speedup 1.075 at half a node's
    # cores, victim weight 0.03 and pressure 1.5 for the high class). A job of base
    # (1 x 2) has a = (1 - f) d^h / speedup, b = f (1 + p)^log2(m):
    #   (1 x 2), its base:            a = 0.9,           b = 0.1, factor 1.0
    #   (2 x 1), spread, not degraded: a = 0.9 / 1.075,  b = 0.1, factor 0.937 alone
    #   (1 x 1), degraded:             a = 0.9 * 1.5 / 1.075, b = 0.1, factor 1.356
    spread = 0.9 / 1.075
    env = NodeShareEnv(_two_high_jobs(), jobs=None, nodes=2, cores=2, slots=2)
    # Both shared: job 1 spreads over both nodes (0.937 < 1.0), job 2 can only spread
    # beside it (no node has 2 free cores); each then runs beside the other, at
    # factor a (1 + 0.03 x 1.5) + b.
    obs, _ = env.reset()
    assert obs["jobs"][0, 7] == pytest.approx(spread + 0.1, rel=1e-6)  # shared_factor
    env.step(1)  # slot 0, shared
    _, _, done, _, _ = env.step(1)  # slot 0 (job 2 now), shared
    assert done and env.result is not None
    ends = env.result.job_columns["end_time"]
    both = spread * (1 + 0.03 * 1.5) + 0.1
    assert ends.tolist() == pytest.approx([100 * both, 100 * both], rel=1e-12)
    assert all(len(p) == 2 for p in env.result.placements.values())
    # Job 1 alone takes a whole node at its base; job 2, shared, takes the other node at
    # its base (factor 1.0 beats 1.356 degraded; spreading needs a free core on both).
    env.reset()
    env.step(0)  # slot 0, alone
    _, _, done, _, _ = env.step(1)
    assert done and env.result is not None
    assert env.result.job_columns["end_time"].tolist() == pytest.approx([100.0, 100.0], rel=1e-12)
    nodes = [{n for n, _ in p} for p in env.result.placements.values()]
    assert len(nodes[0] | nodes[1]) == 2 and not nodes[0] & nodes[1]
