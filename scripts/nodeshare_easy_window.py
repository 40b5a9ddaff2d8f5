"""Why EASY with the paper's 150-job window can lose to FCFS on the RICC windows.

Runs FCFS, EASY with a window of 150 and EASY without a window on the node-sharing
reproduction's trace windows (RICC-2010-2, node counts kept, 1,158 x 16), each with the
trace's requested times as estimates and with exact run times, and prints per policy:
mean turnaround and wait (hours), the mean wait of one-node and wider jobs, and how many
jobs started ahead of an older queued job (backfilled). Deterministic: no profiles are
read by these policies.

    python scripts/nodeshare_easy_window.py                  # the four 100,000-job windows
    python scripts/nodeshare_easy_window.py --traces 2 --jobs 20000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cosched.engine.simulation import Simulation
from cosched.nodeshare.experiment import CAP, CORES, NODES, prepare
from cosched.platform import Allocation, Platform
from cosched.policies.base import make_policy

RUNS = (
    ("fcfs", "fcfs", {}),
    ("easy w=150", "easy", {"window": 150}),
    ("easy no window", "easy", {}),
)


def backfilled(jobs: object) -> int:
    """Jobs that started before some job submitted earlier than them started."""
    t = jobs.sort_values(["submit_time", "job_id"])  # type: ignore[attr-defined]
    start = t["start_time"].to_numpy()
    later_min = np.minimum.accumulate(start[::-1])[::-1]  # earliest start from i on
    # job i jumped ahead if a later-submitted job started before it
    return int((later_min[1:] < start[:-1]).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", default="1,2,3,4", help="trace windows, 1-based")
    ap.add_argument("--jobs", type=int, default=100_000, help="jobs a window")
    args = ap.parse_args()
    platform = Platform(
        nodes=NODES, cores=CORES, allocation=Allocation.NODES, max_jobs_per_node=CAP
    )
    print(
        "trace | estimates | policy | mean turnaround (h) | mean wait (h) | wait 1-node (h) "
        "| wait wider (h) | jobs overtaken | CPU s"
    )
    for t in (int(x) for x in args.traces.split(",")):
        base = prepare(t - 1, args.jobs, 1)
        exact_table = base.table.copy()
        exact_table["requested_time"] = exact_table["run_time"]
        exact = base.replace_table(exact_table, "estimates = run times")
        for label, w in (("requested", base), ("exact", exact)):
            for name, policy, params in RUNS:
                t0 = time.process_time()
                jobs = Simulation(w, platform, make_policy(policy, **params)).run().jobs
                cpu = time.process_time() - t0
                wait = (jobs["start_time"] - jobs["submit_time"]) / 3600
                ta = (jobs["end_time"] - jobs["submit_time"]) / 3600
                one = jobs["procs"] <= CORES
                print(
                    f"Trace{t} | {label} | {name} | {ta.mean():.2f} | {wait.mean():.2f} | "
                    f"{wait[one].mean():.2f} | {wait[~one].mean():.2f} | "
                    f"{backfilled(jobs):,} | {cpu:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
