"""Steps per second of cosched's environments on one core, whole step loop included.

A trivial agent (always the first visible job: FCFS; in ``cosched/NodeShare-v0``, placed
``shared``) plays episodes of 256 jobs drawn from a Lublin-Feitelson workload of 10,000
jobs for 256 processors (generated, seed 0), until at least ``--steps`` steps have been
taken: ``cosched/Batch-v0`` with K = 128 on 256 processors, ``cosched/NodeShare-v0``
with K = 32 on the node-sharing family's machine for that workload (16 nodes of 16
cores, profiles seed 0). The time is the process's CPU time over ``reset`` and ``step``
(the agent's own time included, the workload's generation excluded), on one core when
the OS allows pinning. Usage::

    python benchmarks/bench_gym.py                # every environment and option setting
    python benchmarks/bench_gym.py --steps 20000 --workload ../shared/traces/lublin_256.swf.gz
"""

from __future__ import annotations

import argparse
import os
import time

from cosched.gym import agents, share
from cosched.gym.batch import BatchEnv
from cosched.gym.episodes import EpisodeEnv
from cosched.gym.share_env import NodeShareEnv

SETTINGS = [
    {"commit": "head", "backfill": "none"},
    {"commit": "head", "backfill": "easy"},
    {"commit": "event", "backfill": "none"},
    {"commit": "event", "backfill": "easy"},
]


def measure(env: EpisodeEnv, steps: int) -> tuple[int, int, float]:
    """Play episodes until ``steps`` steps; return (steps, episodes, CPU seconds)."""
    agent = share.fcfs_shared if isinstance(env, NodeShareEnv) else agents.fcfs
    done_steps = episodes = 0
    t0 = time.process_time()
    while done_steps < steps:
        obs, _ = env.reset(seed=episodes)
        episodes += 1
        done = False
        while not done:
            obs, _, done, _, _ = env.step(agent(obs))
            done_steps += 1
    return done_steps, episodes, time.process_time() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--workload", default="lublin:jobs=10000,nodes=256")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"workload {args.workload}, 256-job episodes, trivial (FCFS) agent")
    for options in SETTINGS:
        env: EpisodeEnv = BatchEnv(args.workload, jobs=256, slots=128, **options)
        _report("Batch-v0, K=128", options, *measure(env, args.steps))
    for commit in ("head", "event"):
        env = NodeShareEnv(args.workload, jobs=256, slots=32, commit=commit, nodes=16, cores=16)
        _report("NodeShare-v0, K=32", {"commit": commit}, *measure(env, args.steps))


def _report(name: str, options: dict[str, str], steps: int, episodes: int, cpu: float) -> None:
    label = ", ".join(f"{k}={v}" for k, v in options.items())
    rate = f"{steps / cpu:9,.0f} steps/s"
    print(f"  {name:<19} {label:<28} {rate}  ({steps} steps, {episodes} episodes)")


if __name__ == "__main__":
    main()
