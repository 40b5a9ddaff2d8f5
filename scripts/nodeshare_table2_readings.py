"""Node sharing, Table 2: what counts as a blocked job, under several readings.

    python scripts/nodeshare_table2_readings.py                      # Trace1, seed 1, 1,158 nodes
    python scripts/nodeshare_table2_readings.py --nodes 1158,1400 --jobs 100000

The paper's Table 2 gives the "Number of jobs blocked, due to fragmentation and
capacity, with and without degraded configurations" on Trace1 (5,805 / 7,595 with,
41,664 / 25,671 without, of 100,000 jobs), where fragmentation means "there are
sufficient total resources, but not in usable form" and capacity "there are
insufficient total resources" (section 5.4), and its coscheduler, for the job at the
head of the queue, "either places the job on the system ... or it blocks and no job
can execute" (section 3.2). cosched counts each job once, by the reason of its first
block (``blocked`` in the policy's stats). This script runs coscheduling (default
preset) with and without degraded configurations, records every failed placement of a
head job, and prints per 100,000 jobs:

* ``first``: jobs by the reason of their first block (cosched's count);
* ``last``: jobs by the reason of their last block (the one that finally held them);
* ``ever frag.``: jobs blocked by fragmentation at least once (and the rest by capacity);
* ``events``: failed placements of a head (a job blocking at several passes counts at
  each), by reason;
* ``waited``: jobs that waited at all, and the time share with a non-empty queue.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from cosched.engine.simulation import Simulation
from cosched.nodeshare.experiment import CAP, CORES, VARIANTS, prepare
from cosched.platform import Allocation, Platform
from cosched.policies.base import make_policy

PAPER = {"cosched": (5805, 7595), "no_degraded": (41664, 25671)}


def run(variant: str, nodes: int, jobs_n: int, seed: int) -> dict[str, Any]:
    w = prepare(0, jobs_n, seed)
    fits = w.table["procs"].to_numpy() <= nodes * CORES
    if not fits.all():
        from cosched.workload.transforms import filter_jobs

        w = filter_jobs(w, fits)
    name, params = VARIANTS[variant]
    policy: Any = make_policy(name, **params)
    events = {"capacity": 0, "fragmentation": 0}
    first: dict[int, str] = {}
    last: dict[int, str] = {}
    ever_frag: set[int] = set()
    original = policy.plan

    def plan(job: Any, view: Any, book: Any = None) -> Any:
        out = original(job, view, book)
        if out is None:
            bk = book if book is not None else policy.book_for(view)
            _, configs, _, _, _ = policy._job_info(job, view, bk)
            reason = (
                "capacity" if not configs or bk.blocked_by_capacity(configs) else "fragmentation"
            )
            events[reason] += 1
            first.setdefault(job.index, reason)
            last[job.index] = reason
            if reason == "fragmentation":
                ever_frag.add(job.index)
        return out

    policy.plan = plan
    platform = Platform(
        nodes=nodes, cores=CORES, allocation=Allocation.NODES, max_jobs_per_node=CAP
    )
    t0 = time.process_time()
    jobs = Simulation(w, platform, policy).run().jobs
    cpu = time.process_time() - t0
    assert dict(policy.stats()["blocked"]) == first, "the wrapper must see cosched's blocks"
    sub = jobs["submit_time"].to_numpy(float)
    start = jobs["start_time"].to_numpy(float)
    grid = np.arange(sub.min(), start.max(), 600.0)
    queued = np.searchsorted(np.sort(sub), grid, "right") - np.searchsorted(
        np.sort(start), grid, "right"
    )
    scale = 100_000 / len(jobs)

    def count(d: dict[int, str], r: str) -> float:
        return scale * sum(1 for v in d.values() if v == r)

    return {
        "first": (count(first, "fragmentation"), count(first, "capacity")),
        "last": (count(last, "fragmentation"), count(last, "capacity")),
        "ever": (scale * len(ever_frag), scale * (len(first) - len(ever_frag))),
        "events": (scale * events["fragmentation"], scale * events["capacity"]),
        "waited": scale * float((start > sub).sum()),
        "busy": float((queued > 0).mean()),
        "wait_h": float((start - sub).mean()) / 3600,
        "cpu": cpu,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="1158")
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(
        "nodes | variant | first frag / cap | last frag / cap | ever frag. / only cap "
        "| events frag / cap | waited | time with a queue | mean wait (h) | paper frag / cap "
        "| CPU s"
    )
    for nodes in (int(n) for n in args.nodes.split(",")):
        for variant in ("cosched", "no_degraded"):
            r = run(variant, nodes, args.jobs, args.seed)
            pair = {
                k: f"{r[k][0]:,.0f} / {r[k][1]:,.0f}" for k in ("first", "last", "ever", "events")
            }
            p = PAPER[variant]
            print(
                f"{nodes} | {variant} | {pair['first']} | {pair['last']} | {pair['ever']} | "
                f"{pair['events']} | {r['waited']:,.0f} | {100 * r['busy']:.0f}% | "
                f"{r['wait_h']:.2f} | {p[0]:,} / {p[1]:,} | {r['cpu']:.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
