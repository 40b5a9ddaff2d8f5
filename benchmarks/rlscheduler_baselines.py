"""RLScheduler's no-backfilling baselines on Lublin-1, reproduced with ``cosched/Batch-v0``.

RLScheduler (Zhang, Dai, He, Bao and Xie, SC'20) publishes, for its trace "Lublin-1"
(``lublin_256.swf``) without backfilling, an average bounded slowdown of 7273.77 for
FCFS and 277.35 for SJF (258.37 for F1): the README of DIR-LAB/deep-batch-scheduler,
section "Reproduce Results in Paper", table "Results of Scheduling Towards average
bounded slowdown", row "Lublin-1" under "Without backfilling" (the README's copy of the
paper's Table V, made by its ``make_table_script.py``).

Its evaluation, read from that repository (``make_table_script.py``,
``compare-make-table.py``, ``HPCSimPickJobs.py``, ``job.py``):

* 10 sequences of 1,024 consecutive jobs (``len = 1024``, ``iter = 10``, ``seed = 1``);
  each starts at ``np_random.randint(1024, n_jobs - 1024 - 1)`` on an empty 256-processor
  machine, with ``np_random`` legacy gym's ``seeding.np_random(1)`` (a RandomState seeded
  from a SHA-512 hash of the seed; gym at commit ff4664bd, RLScheduler's requirements);
* a heuristic repeatedly takes the best-scored job of the whole queue; a job that does
  not fit waits, committed, until it does, nothing starting meanwhile (``commit="head"``,
  ``backfill="none"``, K at least the queue);
* a job's size is the larger of SWF fields 5 and 8, a missing requested time is the run
  time, and jobs with a run time of 0 are left out;
* bounded slowdown ``max(1, (wait + run) / max(run, 10))``, averaged over a sequence's
  jobs, then over the 10 sequences.

Usage (the trace is not in the repository)::

    python benchmarks/rlscheduler_baselines.py [../shared/traces/lublin_256.swf.gz]
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import sys
import time
from pathlib import Path

import numpy as np

from cosched.gym import agents
from cosched.gym.batch import BatchEnv
from cosched.workload.loader import LoadRules

TRACE = Path(__file__).resolve().parents[2] / "shared" / "traces" / "lublin_256.swf.gz"
SEQUENCE, SEQUENCES, SEED = 1024, 10, 1
#: Published no-backfilling average bounded slowdowns on Lublin-1 (see the docstring).
PUBLISHED = {"fcfs": 7273.77, "sjf": 277.35, "f1": 258.37}


def _bigint_from_bytes(data: bytes) -> int:
    """Legacy gym's little-endian integer of ``data`` (padded to whole 32-bit words)."""
    data += b"\0" * (4 - len(data) % 4)
    words = struct.unpack(f"{len(data) // 4}I", data)
    return sum(w << (32 * i) for i, w in enumerate(words))


def legacy_gym_random(seed: int) -> np.random.RandomState:
    """``gym.utils.seeding.np_random(seed)`` of gym before 0.22 (RLScheduler's)."""
    digest = hashlib.sha512(str(seed % 2**64).encode("utf8")).digest()
    big = _bigint_from_bytes(digest[:8])
    ints = []
    while big > 0:
        big, low = divmod(big, 2**32)
        ints.append(low)
    return np.random.RandomState(ints or [0])


def starts(n_jobs: int) -> list[int]:
    """The first jobs of RLScheduler's 10 evaluation sequences."""
    rng = legacy_gym_random(SEED)
    return [int(rng.randint(SEQUENCE, n_jobs - SEQUENCE - 1)) for _ in range(SEQUENCES)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", default=str(TRACE))
    args = parser.parse_args()
    if not Path(args.trace).is_file():
        print(f"no trace at {args.trace}", file=sys.stderr)
        return 2
    rules = LoadRules(procs_field="max", overrun="keep")
    env = BatchEnv(args.trace, jobs=SEQUENCE, slots=SEQUENCE, procs=256, rules=rules)
    first = starts(len(env.workload))
    print(f"{env.workload.name}: {len(env.workload)} jobs; sequence starts {first}")
    for name, published in PUBLISHED.items():
        agent = agents.AGENTS[name]
        t0 = time.process_time()
        values = []
        for start in first:
            obs, _ = env.reset(options={"start": start})
            done = False
            while not done:
                obs, _, done, _, info = env.step(agent(obs))
            values.append(info["metrics"]["mean_bounded_slowdown"])
        mean = float(np.mean(values))
        print(
            f"{name:>5}: mean bounded slowdown {mean:10.4f}  (published {published:.2f}; "
            f"{mean - published:+.4f}); per sequence "
            f"{', '.join(f'{v:.1f}' for v in values)}  [{time.process_time() - t0:.1f} s CPU]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
