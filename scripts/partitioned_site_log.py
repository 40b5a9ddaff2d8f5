"""A log that cosched makes with known partitions and a known per-user limit, as SWF.

The site: EASY (the whole queue) on two partitions that share no nodes, 64 and 32
single-core nodes (SWF field 16 values 1 and 2), at most 2 running jobs per user
(counted within a partition), 5 users (SWF field 12). The jobs: submitted every 0 to
500 s (uniform), 70 % of them to partition 1, 1 to 32 processors (powers of two, at most
the partition), running 60 to 4000 s and asking for 1 to 4 times that; each partition's
first job is as wide as the partition, so its size is in the log. Every start comes from
:func:`cosched.engine.partitions.simulate_partitioned`, so the log's schedule is one the
fit's space holds (docs/validate.md, the operator's report on a log with partitions and
limits).

    python scripts/partitioned_site_log.py runs/site-parts.swf --jobs 6000 --seed 11
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

SIZES = (64, 32)
USERS = 5
LIMIT = 2


def make(jobs: int, seed: int) -> pd.DataFrame:
    """The jobs with their logged waits (``wait_time``)."""
    from cosched.engine.partitions import simulate_partitioned
    from cosched.platform import Platform
    from cosched.policies.base import make_policy
    from cosched.workload.job import Workload

    rng = np.random.default_rng(seed)
    part = np.where(rng.random(jobs) < 0.7, 1, 2)
    width = np.array(SIZES)[part - 1]
    procs = np.minimum(width, 2 ** rng.integers(0, 6, jobs))
    for p in (1, 2):
        procs[np.flatnonzero(part == p)[0]] = SIZES[p - 1]
    run = rng.integers(60, 4000, jobs).astype(float)
    t = pd.DataFrame(
        {
            "job_id": np.arange(1, jobs + 1),
            "submit_time": np.cumsum(rng.integers(0, 500, jobs)).astype(float),
            "run_time": run,
            "procs": procs,
            "requested_time": run * rng.integers(1, 5, jobs),
            "user_id": rng.integers(1, USERS + 1, jobs).astype(float),
            "partition": part.astype(float),
        }
    )
    w = Workload.from_table(t)
    r = simulate_partitioned(
        w,
        Platform(sum(SIZES)),
        lambda: make_policy("easy", max_jobs_per_user=LIMIT),
        part - 1,
        SIZES,
        rng=np.random.default_rng(0),
    )
    t["wait_time"] = r.jobs["start_time"].to_numpy() - t["submit_time"]
    return t


def main() -> int:
    from cosched.workload.job import Workload
    from cosched.workload.swf_write import write_swf

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the SWF file to write")
    ap.add_argument("--jobs", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    t = make(args.jobs, args.seed)
    total = str(sum(SIZES))
    write_swf(Workload.from_table(t), args.out, header={"MaxProcs": total, "MaxNodes": total})
    wait = t["wait_time"].to_numpy()
    print(f"{args.out}: {len(t)} jobs, mean wait {wait.mean() / 3600:.2f} h")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
