"""The batch environment: Gymnasium's checks, FCFS as cosched's ``fcfs``, rewards,
masks and observations by hand, determinism by seed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the environments need gymnasium (cosched[gym])")

import gymnasium

from cosched.engine import simulate
from cosched.errors import ConfigError
from cosched.gym import agents
from cosched.gym.batch import BatchEnv
from cosched.gym.observation import TIME_SCALE, user_hash
from cosched.policies import make_policy
from tests.gym.conftest import FCFS_STARTS, JOB3_FIRST_STARTS, check_registered_env

T = TIME_SCALE


def _play(env: BatchEnv, agent: Callable[..., int], **reset: object) -> tuple[list[float], dict]:
    obs, info = env.reset(**reset)  # type: ignore[arg-type]
    rewards, done = [], False
    while not done:
        obs, reward, done, truncated, info = env.step(agent(obs))
        assert not truncated
        rewards.append(float(reward))
    return rewards, info


def _starts(env: BatchEnv) -> list[float]:
    assert env.result is not None
    return env.result.job_columns["start_time"].tolist()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"backfill": "easy"},
        {"backfill": "rlscheduler"},
        {"commit": "event"},
        {"reward": "wait", "reward_at": "step"},
        {"reward": "utilization", "slots": 4, "releases": 0},
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults",
)
def test_gymnasium_env_checker_passes(options: dict) -> None:
    check_registered_env("cosched.gym.batch:cosched/Batch-v0", **options)


def test_fcfs_agent_gives_exactly_the_fcfs_policys_schedule() -> None:
    env = BatchEnv("bundled:example", jobs=None, backfill="none", commit="head")
    _play(env, agents.fcfs, seed=0)
    direct = simulate(env.workload, env.platform, make_policy("fcfs"))
    assert env.result is not None
    assert np.array_equal(direct.job_columns["start_time"], env.result.job_columns["start_time"])
    assert np.array_equal(direct.job_columns["end_time"], env.result.job_columns["end_time"])


def test_the_hand_calculated_schedules(small_swf: Path) -> None:
    env = BatchEnv(str(small_swf), jobs=None)
    _play(env, agents.fcfs)
    assert _starts(env) == FCFS_STARTS
    # Shortest first, committed: job 2 is chosen alone at t=10 and holds the head.
    _play(env, agents.sjf)
    assert _starts(env) == FCFS_STARTS
    # Shortest first re-chosen at each event: job 3 passes job 2 at t=20.
    event = BatchEnv(str(small_swf), jobs=None, commit="event")
    _play(event, agents.sjf)
    assert _starts(event) == JOB3_FIRST_STARTS
    # FCFS with EASY behind the head: job 3 ends at 30 <= job 2's shadow time 100.
    easy = BatchEnv(str(small_swf), jobs=None, backfill="easy")
    _play(easy, agents.fcfs)
    assert _starts(easy) == JOB3_FIRST_STARTS


def test_rewards_per_step_and_per_trajectory(small_swf: Path) -> None:
    step = BatchEnv(str(small_swf), jobs=None, reward="bsld", reward_at="step")
    rewards, info = _play(step, agents.fcfs)
    # One decision per job; each step pays the bounded slowdown of the jobs it started.
    assert rewards == pytest.approx([-1 / 3, -2.8 / 3, -14 / 3], rel=1e-12)
    assert info["metrics"]["mean_bounded_slowdown"] == pytest.approx(17.8 / 3, rel=1e-12)
    traj = BatchEnv(str(small_swf), jobs=None, reward="bsld", reward_at="trajectory")
    rewards, _ = _play(traj, agents.fcfs)
    assert rewards == pytest.approx([0.0, 0.0, -17.8 / 3], rel=1e-12)
    wait = BatchEnv(str(small_swf), jobs=None, reward="wait", reward_at="step")
    rewards, _ = _play(wait, agents.fcfs)
    assert rewards == pytest.approx([0.0, -90 / 3, -130 / 3], rel=1e-12)
    # Busy processor-seconds 2*100 + 4*50 + 1*10 = 410 over 4 processors x 160 s.
    util = BatchEnv(str(small_swf), jobs=None, reward="utilization")
    rewards, _ = _play(util, agents.fcfs)
    assert rewards[-1] == pytest.approx(410 / 640, rel=1e-12)


def test_mask_and_observation_at_a_decision(small_swf: Path) -> None:
    env = BatchEnv(str(small_swf), jobs=None, commit="event", slots=3, releases=2)
    obs, info = env.reset()
    assert info["time"] == 0.0 and obs["action_mask"].tolist() == [1, 0, 0]
    obs, _, _, _, info = env.step(0)  # job 1 starts; job 2 is next, alone, at t=10
    assert info["time"] == 10.0 and obs["action_mask"].tolist() == [1, 0, 0]
    obs, _, _, _, info = env.step(0)  # job 2 does not fit: the choice lapses at t=20
    assert info["time"] == 20.0
    assert obs["action_mask"].tolist() == [1, 1, 0]
    assert np.array_equal(info["action_mask"], obs["action_mask"])
    assert env.action_masks().tolist() == [True, True, False]
    jobs = obs["jobs"]  # size, estimate, wait, user, submit, fits
    want = [
        [4 / 4, 50 / T, 10 / T, user_hash(8), 10 / T, 0.0],
        [1 / 4, 10 / T, 0.0, user_hash(7), 20 / T, 1.0],
        [0.0] * 6,
    ]
    assert jobs.tolist() == np.array(want, dtype=np.float32).tolist()
    # Half the machine free; job 1 (2 procs) expected to end at 100, 80 s from now.
    machine = np.array([2 / 4, 80 / T, 2 / 4, 0.0, 0.0], dtype=np.float32)
    assert obs["machine"].tolist() == machine.tolist()
    assert obs["scales"].tolist() == [4.0, T]


def test_an_action_on_an_empty_slot_waits_for_the_next_event(small_swf: Path) -> None:
    env = BatchEnv(str(small_swf), jobs=None, slots=3)
    env.reset()
    _, _, _, _, info = env.step(2)  # slot 2 holds no job at t=0: wait for job 2 at t=10
    assert info["waited"] and info["time"] == 10.0 and info["started"] == 0


def test_same_seed_same_trajectory_and_schedule() -> None:
    def run(seed: int) -> tuple[int, list[float], list[float]]:
        env = BatchEnv("bundled:example", jobs=60, backfill="easy")
        rewards, info = _play(env, agents.wfp3, seed=seed)
        return info["start"], rewards, _starts(env)

    a, b = run(7), run(7)
    assert a == b
    # The start is drawn from gymnasium's generator for the seed, over [0, 300 - 60].
    rng, _ = gymnasium.utils.seeding.np_random(7)
    assert a[0] == int(rng.integers(0, 241))


def test_a_given_start_fixes_the_window() -> None:
    env = BatchEnv("bundled:example", jobs=10)
    _, info = env.reset(options={"start": 5})
    assert info["start"] == 5
    ids = env.workload.columns["job_id"][5:15].tolist()
    _play(env, agents.fcfs, options={"start": 5})
    assert env.result is not None
    assert env.result.job_columns["job_id"].tolist() == ids


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"commit": "later"}, "commit must be one of head, event"),
        ({"backfill": "conservative"}, "backfill must be one of none, easy"),
        ({"reward": "makespan"}, "reward must be one of bsld, wait, utilization"),
        ({"reward": "utilization", "reward_at": "step"}, "use reward_at='trajectory'"),
        ({"jobs": 301}, "more than the workload's 300 jobs"),
        ({"slots": 0}, "slots must be an integer >= 1"),
    ],
)
def test_bad_options_are_named(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        BatchEnv("bundled:example", **kwargs)


def test_step_after_the_end_asks_for_reset(small_swf: Path) -> None:
    env = BatchEnv(str(small_swf), jobs=None)
    _play(env, agents.fcfs)
    with pytest.raises(ConfigError, match="call reset"):
        env.step(0)


@pytest.mark.parametrize("commit", ["head", "event"])
@pytest.mark.parametrize("backfill", ["none", "easy", "rlscheduler"])
def test_every_observation_of_an_episode_is_in_the_space(commit: str, backfill: str) -> None:
    # A generated workload, and an agent that picks among the masked slots at random.
    env = BatchEnv(
        "lublin:jobs=400,nodes=32", jobs=150, slots=8, releases=4, commit=commit,
        backfill=backfill, reward_at="step",
    )  # fmt: skip
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=11)
    done, steps = False, 0
    while not done:
        assert env.observation_space.contains(obs)
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        assert obs["action_mask"].any()  # asked only when a job is visible
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, done, _, info = env.step(action)
        assert float(reward) <= 0.0  # a cost
        steps += 1
    assert env.observation_space.contains(obs)
    assert info["started"] == 150 and steps >= 150 // 8


def test_the_same_seed_gives_the_same_observations_bit_for_bit() -> None:
    def observations(seed: int) -> bytes:
        env = BatchEnv("bundled:example", jobs=40, commit="event", backfill="easy")
        obs, _ = env.reset(seed=seed)
        out, done = [obs["jobs"].tobytes() + obs["machine"].tobytes()], False
        while not done:
            obs, _, done, _, _ = env.step(agents.f1(obs))
            out.append(obs["jobs"].tobytes() + obs["machine"].tobytes())
        return b"".join(out)

    assert observations(3) == observations(3)
