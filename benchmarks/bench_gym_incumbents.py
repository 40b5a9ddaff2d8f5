"""Steps per second of ``cosched/Batch-v0`` beside an incumbent environment, same trace and agent.

The incumbent is hpcsim's ``HPCGreenEnv`` (PyPI ``hpcsim``, a step-based environment in
RLScheduler's mould: the agent picks one of the first 64 pending jobs), the one
trace-driven-capable scheduling environment that installs here (docs/performance.md,
"Learned-scheduler environments", lists what was tried and the errors). It runs in its
own virtual environment, so this script starts it as a subprocess with that
environment's Python, in the same run, alternating with cosched's rounds::

    python -m venv /tmp/incumbent-venv && /tmp/incumbent-venv/bin/pip install hpcsim
    python benchmarks/bench_gym_incumbents.py --incumbent-python /tmp/incumbent-venv/bin/python

Both environments get the same work: RLScheduler's ten Lublin-1 sequences of 1,024 jobs
(``lublin_256.swf``, :mod:`rlscheduler_baselines`), the trace's processors and run
times, on a machine of 256 processors (hpcsim: 256 single-core CPU-only nodes, each job
a CPU job of its processors whose duration model gives back its run time exactly). The
agent is the same function in both: the first visible job that fits now, else the first
(``first_fit``); hpcsim's environment advances time itself until a job fits, and
cosched's runs with ``commit="event"``, so in both nearly every step starts a job.
Timed: ``reset`` and every ``step`` with the agent, in CPU seconds of the process,
without loading the trace or building the environment.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
TRACES = HERE.parents[1] / "shared" / "traces"
#: hpcsim's observation: 64 queue rows of 12 features, feature 7 "schedulable".
HPCSIM_QUEUE, HPCSIM_FEATURES, HPCSIM_SCHEDULABLE = 64, 12, 7


def first_fit(fits: np.ndarray) -> int:
    """The first slot whose job fits now, else slot 0."""
    hits = np.flatnonzero(fits)
    return int(hits[0]) if len(hits) else 0


# -- cosched ------------------------------------------------------------------------------


def cosched_sequences(trace: Path) -> tuple[Any, list[int]]:
    """Batch-v0 on Lublin-1 with RLScheduler's loader rules, and its sequence starts."""
    sys.path.insert(0, str(HERE))
    from cosched.gym.batch import BatchEnv
    from cosched.workload.loader import LoadRules
    from rlscheduler_baselines import SEQUENCE, starts  # type: ignore[import-not-found]

    rules = LoadRules(procs_field="max", overrun="keep")
    env = BatchEnv(
        str(trace), jobs=SEQUENCE, slots=HPCSIM_QUEUE, procs=256, rules=rules, commit="event"
    )
    return env, starts(len(env.workload))


def cosched_round(env: Any, first: list[int]) -> dict[str, float]:
    steps, seconds, bsld = 0, 0.0, []
    for start in first:
        t0 = time.process_time()
        obs, info = env.reset(options={"start": start})
        done = False
        while not done:
            fits = obs["jobs"][:, 5] * obs["action_mask"]
            obs, _, done, _, info = env.step(first_fit(fits))
            steps += 1
        seconds += time.process_time() - t0
        bsld.append(info["metrics"]["mean_bounded_slowdown"])
    jobs = env.jobs * len(first)
    return {"steps": steps, "jobs": jobs, "seconds": seconds, "bsld": float(np.mean(bsld))}


def sequences_as_json(env: Any, first: list[int], path: Path) -> None:
    """The jobs of each sequence as ``[submit, procs, run]`` rows, for the incumbent."""
    from cosched.workload.transforms import window

    out = []
    for start in first:
        w = window(env.workload, start, env.jobs)
        c = w.columns
        out.append(
            [
                [float(s), int(p), float(r)]
                for s, p, r in zip(c["submit_time"], c["procs"], c["run_time"], strict=True)
            ]
        )
    path.write_text(json.dumps(out))


# -- hpcsim (runs in the incumbent's interpreter) -----------------------------------------


def hpcsim_worker(path: Path, rounds: int) -> None:
    """Time hpcsim's HPCGreenEnv on the sequences in ``path``; print JSON per round."""
    import hpcsim.rl.env as henv
    from hpcsim.cluster.cluster import CLUSTER_CONFIGS, ClusterConfig, NodeSpec
    from hpcsim.cluster.hardware import NodeType
    from hpcsim.workload.job import CPUJob

    sequences = json.loads(path.read_text())
    CLUSTER_CONFIGS["lublin256"] = ClusterConfig(
        "lublin256",
        nodes=[
            NodeSpec(node_type=NodeType.CPU_ONLY, num_nodes=256, num_sockets=1, cores_per_socket=1)
        ],
    )
    current: list[list[Any]] = []

    class TraceJobs:
        """Stands for hpcsim's WorkloadGenerator: the current sequence as CPU jobs."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def generate(self) -> list[Any]:
            return [
                # With ref_cores equal to the cores, the duration model is the run time.
                CPUJob(
                    job_id=str(i),
                    submit_time=s,
                    num_cpus_requested=n,
                    min_cpus=n,
                    max_cpus=n,
                    ref_cores=n,
                    base_duration_sec=r,
                )
                for i, (s, n, r) in enumerate(current)
            ]

    henv.WorkloadGenerator = TraceJobs  # type: ignore[misc]
    for _ in range(rounds):
        steps, seconds, jobs, bsld = 0, 0.0, 0, []
        for seq in sequences:
            current[:] = seq
            cfg = henv.EnvConfig(cluster_config="lublin256", seq_len=len(seq), seed=0)
            env = henv.HPCGreenEnv(cfg)
            t0 = time.process_time()
            obs = env.reset()
            done = False
            while not done:
                rows = obs.reshape(-1, HPCSIM_FEATURES)[:HPCSIM_QUEUE]
                obs, _, done, *_ = env.step(first_fit(rows[:, HPCSIM_SCHEDULABLE] == 1.0))
                steps += 1
            seconds += time.process_time() - t0
            jobs += len(seq)
            bsld.append(env._avg_bsld())
        out = {"steps": steps, "jobs": jobs, "seconds": seconds, "bsld": float(np.mean(bsld))}
        print(json.dumps(out), flush=True)


# -- the comparison -----------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--incumbent-python", default="/tmp/incumbent-venv/bin/python")
    parser.add_argument("--trace", default=str(TRACES / "lublin_256.swf.gz"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hpcsim-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hpcsim_worker:
        hpcsim_worker(Path(args.hpcsim_worker), args.rounds)
        return 0
    if not Path(args.trace).is_file():
        print(f"no trace at {args.trace}", file=sys.stderr)
        return 2
    env, first = cosched_sequences(Path(args.trace))
    rows: dict[str, list[dict[str, float]]] = {"cosched": [], "hpcsim": []}
    with tempfile.TemporaryDirectory() as tmp:
        jobs = Path(tmp) / "sequences.json"
        sequences_as_json(env, first, jobs)
        for _ in range(args.rounds):
            rows["cosched"].append(cosched_round(env, first))
            done = subprocess.run(
                [args.incumbent_python, __file__, "--hpcsim-worker", str(jobs), "--rounds", "1"],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                print(f"hpcsim failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                return 1
            rows["hpcsim"].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"Lublin-1, {len(first)} sequences of {env.jobs} jobs, agent first_fit:")
    for name, runs in rows.items():
        steps = [r["steps"] / r["seconds"] for r in runs]
        jobs = [r["jobs"] / r["seconds"] for r in runs]
        print(
            f"  {name:<8} {int(runs[0]['steps']):>6} steps and {int(runs[0]['jobs'])} jobs a "
            f"round, mean bounded slowdown {runs[0]['bsld']:.2f}; steps/s "
            f"{', '.join(f'{x:,.0f}' for x in steps)} (median {statistics.median(steps):,.0f}); "
            f"jobs/s median {statistics.median(jobs):,.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
