"""Write the bundled example trace ``src/cosched/data/example.swf``.

A small synthetic SWF trace (300 jobs on a 64-processor machine) for examples, docs and
quick tests. The shapes are plausible rather than fitted to any log:

* run times log-uniform between 30 s and 6 h;
* sizes: about 15% serial jobs, most others powers of two up to 64, a few arbitrary;
* requested times: the run time times an over-estimation factor, rounded up to a
  quarter hour; about 8% of jobs ask for exactly their run time and 3% for a few
  seconds less (they overran their limit);
* exponential inter-arrival times, rescaled so that the offered load is 0.7.

The output depends only on ``SEED``: running the script again gives the same bytes.

Usage: ``python scripts/make_example_trace.py [OUTPUT]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from cosched.workload.job import Workload
from cosched.workload.swf_write import write_swf

SEED = 20240601
N_JOBS = 300
MACHINE_PROCS = 64
#: Nodes of the example machine: 4-core nodes, so node-sharing policies can co-locate jobs.
MACHINE_NODES = 16
TARGET_LOAD = 0.7
UNIX_START = 1704067200  # 2024-01-01 00:00:00 UTC
DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / "src" / "cosched" / "data" / "example.swf"


def _sizes(rng: np.random.Generator, n: int) -> np.ndarray:
    powers = 2 ** rng.choice(np.arange(1, 7), size=n, p=[0.24, 0.22, 0.2, 0.16, 0.1, 0.08])
    arbitrary = rng.integers(2, MACHINE_PROCS + 1, size=n)
    kind = rng.random(n)
    return np.where(kind < 0.15, 1, np.where(kind < 0.9, powers, arbitrary))


def _requested(rng: np.random.Generator, run: np.ndarray) -> np.ndarray:
    """Requested times: mostly over-estimates, some exact, a few a little short."""
    n = len(run)
    factor = 1.0 + rng.lognormal(mean=0.0, sigma=0.8, size=n)
    quarter = 900.0
    req = np.ceil(run * factor / quarter) * quarter
    kind = rng.random(n)
    exact = kind < 0.08  # users who guessed right, or jobs killed at their limit
    req = np.where(exact, run, req)
    short = (kind >= 0.08) & (kind < 0.11)  # ran a few seconds past the limit
    return np.where(short, np.maximum(run - rng.integers(1, 60, size=n), 1.0), req)


def make_table(seed: int = SEED) -> pd.DataFrame:
    """The example jobs as a table of SWF-named columns plus ``procs``."""
    rng = np.random.default_rng(seed)
    run = np.rint(np.exp(rng.uniform(np.log(30.0), np.log(6 * 3600.0), N_JOBS)))
    procs = _sizes(rng, N_JOBS)
    req = _requested(rng, run)
    gaps = rng.exponential(1.0, N_JOBS - 1)
    # Offered load = work / (capacity * span): choose the span that gives the target.
    span = float(np.dot(run, procs)) / (MACHINE_PROCS * TARGET_LOAD)
    submit = np.rint(np.concatenate(([0.0], np.cumsum(gaps) * span / gaps.sum())))
    users = rng.zipf(1.6, N_JOBS) % 24 + 1
    return pd.DataFrame(
        {
            "job_id": np.arange(1, N_JOBS + 1),
            "submit_time": submit,
            "run_time": run,
            "procs": procs,
            "requested_time": req,
            "requested_procs": procs,
            "status": np.where(run > req, 0, 1),
            "user_id": users,
            "group_id": (users - 1) // 6 + 1,
            "queue": 1,
            "partition": 1,
        }
    )


def make_header(table: pd.DataFrame) -> dict[str, str]:
    """The SWF header facts of the example trace."""
    end = UNIX_START + int(table["submit_time"].max())
    return {
        "Version": "2.2",
        "Computer": f"synthetic machine of {MACHINE_NODES} nodes x "
        f"{MACHINE_PROCS // MACHINE_NODES} cores ({MACHINE_PROCS} processors)",
        "Installation": "cosched example workload",
        "Note": (
            "synthetic trace written for cosched by scripts/make_example_trace.py "
            f"(seed {SEED}); not a real log\n"
            f"offered load {TARGET_LOAD} on {MACHINE_PROCS} processors"
        ),
        "MaxJobs": str(len(table)),
        "MaxRecords": str(len(table)),
        "Preemption": "No",
        "UnixStartTime": str(UNIX_START),
        "TimeZoneString": "UTC",
        "StartTime": pd.Timestamp(UNIX_START, unit="s").strftime("%a %b %d %H:%M:%S UTC %Y"),
        "EndTime": pd.Timestamp(end, unit="s").strftime("%a %b %d %H:%M:%S UTC %Y"),
        "MaxNodes": str(MACHINE_NODES),
        "MaxProcs": str(MACHINE_PROCS),
        "MaxRuntime": str(int(table["run_time"].max())),
        "MaxQueues": "1",
        "MaxPartitions": "1",
    }


def main(argv: list[str]) -> int:
    """Write the example trace to ``argv[1]`` (default: the bundled data file)."""
    out = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTPUT
    table = make_table()
    w = Workload.from_table(table, name="example", max_procs=MACHINE_PROCS)
    write_swf(w, out, header=make_header(table))
    print(f"wrote {len(table)} jobs to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
