"""How EASY's 150-job window makes it lose to FCFS on a RICC window.

    python docs/studies/nodeshare_window_mechanism.py                 # Trace2, 100,000 jobs
    python docs/studies/nodeshare_window_mechanism.py --traces 2,4 --step 600
    python docs/studies/nodeshare_window_mechanism.py --windows 600,2000   # other windows

Runs FCFS, EASY with the paper's window of 150 and EASY without a window on the
node-sharing reproduction's trace windows (RICC-2010-2, node counts kept, 1,158 x 16
nodes, the trace's requested times as estimates; deterministic) and samples the
machine every ``--step`` seconds from the first submission to the last end. At each
sample it reconstructs, from the jobs' submit, start and end times, the free nodes and
the queue (submitted, not started, in submit order: position 0 is EASY's head) and
prints, per policy:

* the time-mean queue length and the share of time the queue is longer than the window
  (more than 151 jobs: some jobs are out of EASY's reach);
* idle node-hours while jobs wait (free nodes x time with a non-empty queue), and the
  part of them when some queued job fits in the free nodes but every such job sits
  beyond position 150 (``beyond window``: nodes EASY with a window leaves idle that
  EASY without a window may fill), and the part when a job that fits is within the
  window (EASY's reservation kept it out, or FCFS's order);
* utilization (node-hours used over nodes x span) and mean turnaround (h);
* the jobs that overtook an older job (started while a job submitted before them still
  waited): how many, their mean run time and wait, beside the other jobs'.
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
WINDOW = 150


def sample(jobs: object, step: float) -> dict[str, float]:
    """Queue and idle-node statistics sampled every ``step`` seconds."""
    t = jobs.sort_values(["submit_time", "job_id"])  # type: ignore[attr-defined]
    sub = t["submit_time"].to_numpy(float)
    start = t["start_time"].to_numpy(float)
    end = t["end_time"].to_numpy(float)
    size = t["size"].to_numpy(np.int64)
    t0, t1 = float(sub.min()), float(end.max())
    # used nodes at any time: sorted start / end events with cumulative sizes
    order_s, order_e = np.argsort(start), np.argsort(end)
    cum_s = np.concatenate([[0], np.cumsum(size[order_s])])
    cum_e = np.concatenate([[0], np.cumsum(size[order_e])])
    ss, ee = start[order_s], end[order_e]
    queued_n = 0.0
    over = 0
    idle = beyond = within = 0.0
    samples = np.arange(t0, t1, step)
    for now in samples:
        used = cum_s[np.searchsorted(ss, now, "right")] - cum_e[np.searchsorted(ee, now, "right")]
        free = NODES - int(used)
        n_sub = int(np.searchsorted(sub, now, "right"))
        q = np.flatnonzero(start[:n_sub] > now)
        queued_n += q.size
        if q.size == 0:
            continue
        over += q.size > WINDOW + 1
        idle += free
        fits = np.flatnonzero(size[q] <= free)
        if fits.size == 0:
            continue
        if fits[0] > WINDOW:
            beyond += free
        else:
            within += free
    hours = step / 3600
    span = t1 - t0
    # overtakers: started before some job submitted earlier than them
    prior_max = np.maximum.accumulate(np.concatenate([[-np.inf], start[:-1]]))
    over_mask = start < prior_max
    run = (end - start) / 3600
    return {
        "overtakers": int(over_mask.sum()),
        "run_over": float(run[over_mask].mean()) if over_mask.any() else 0.0,
        "run_rest": float(run[~over_mask].mean()),
        "wait_over": float((start - sub)[over_mask].mean()) / 3600 if over_mask.any() else 0.0,
        "wait_rest": float((start - sub)[~over_mask].mean()) / 3600,
        "queue": queued_n / samples.size,
        "over": over / samples.size,
        "idle": idle * hours,
        "beyond": beyond * hours,
        "within": within * hours,
        "util": float((size * (end - start)).sum()) / (NODES * span),
        "turnaround": float((end - sub).mean()) / 3600,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", default="2", help="trace windows, 1-based")
    ap.add_argument("--jobs", type=int, default=100_000, help="jobs a window")
    ap.add_argument("--step", type=float, default=600.0, help="sampling step, seconds")
    ap.add_argument(
        "--windows", default="", help="instead of the three policies: EASY with these windows"
    )
    args = ap.parse_args()
    runs = RUNS
    if args.windows:
        runs = tuple((f"easy w={n}", "easy", {"window": int(n)}) for n in args.windows.split(","))
    platform = Platform(
        nodes=NODES, cores=CORES, allocation=Allocation.NODES, max_jobs_per_node=CAP
    )
    print(
        "trace | policy | mean turnaround (h) | utilization | mean queue | time queue > 151 "
        "| idle node-h while waiting | of which a fitting job only beyond the window "
        "| of which a fitting job within it | overtakers: jobs, mean run (h), mean wait (h) "
        "| others: mean run (h), mean wait (h) | CPU s"
    )
    for tr in (int(x) for x in args.traces.split(",")):
        w = prepare(tr - 1, args.jobs, 1)
        for name, policy, params in runs:
            t0 = time.process_time()
            jobs = Simulation(w, platform, make_policy(policy, **params)).run().jobs
            s = sample(jobs, args.step)
            print(
                f"Trace{tr} | {name} | {s['turnaround']:.2f} | {s['util']:.3f} | "
                f"{s['queue']:.0f} | {100 * s['over']:.0f}% | {s['idle']:,.0f} | "
                f"{s['beyond']:,.0f} | {s['within']:,.0f} | {s['overtakers']:,}, "
                f"{s['run_over']:.2f}, {s['wait_over']:.2f} | {s['run_rest']:.2f}, "
                f"{s['wait_rest']:.2f} | {time.process_time() - t0:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
