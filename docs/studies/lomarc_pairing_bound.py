"""LOMARC: how much can pairing gain in mean response at all, on the paper's workloads?

    python docs/studies/lomarc_pairing_bound.py                  # W1-W3, 8,000 jobs, seeds 0-4
    python docs/studies/lomarc_pairing_bound.py --jobs 1500 --seeds 0,1

Pairing puts at most two jobs on a single-CPU node, and a paired job never runs faster
than alone (every slowdown of the paper's model is >= 1). Two optimistic ceilings on any
pairing scheme's mean-response gain over PSS follow, both computed here on the
reproduction's workloads (typeless Lublin, mixture M1, PSS with priorities and EASY):

* **no wait at all**: response cannot fall below the jobs' own run times, so the gain
  is at most PSS's mean wait over its mean response;
* **twice the nodes, no slowdown**: PSS on 256 nodes gives every job of a pair its own
  node at full speed, i.e. more capacity than any pairing on 128 nodes (an indicative
  ceiling, not a theorem: EASY is not monotone in the machine size).

Prints per workload, mean and 95% interval over the seeds (per-seed ceilings): PSS's
utilization, mean response and mean wait on 128 nodes, the no-wait ceiling, and PSS on
256 nodes' gain, beside the paper's L-R gain (Figure 6: +48% W1, +56% W3).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cosched.engine.simulation import Simulation
from cosched.experiments.stats import mean_ci
from cosched.lomarc.experiment import NODES, cell_workload
from cosched.lomarc.policies import lomarc_platform
from cosched.policies.base import make_policy

PAPER = {"W1": "+48%", "W2": "(not quoted)", "W3": "+56%"}


def pss(workload: str, seed: int, jobs: int, nodes: int) -> tuple[float, float, float]:
    """PSS on ``nodes`` nodes: (mean response s, mean wait s, node utilization)."""
    w = cell_workload("paper-alpha", workload, "M1", seed, jobs)
    j = Simulation(w, lomarc_platform(nodes), make_policy("lomarc-pss")).run().jobs
    resp = (j["end_time"] - j["submit_time"]).to_numpy()
    wait = (j["start_time"] - j["submit_time"]).to_numpy()
    span = float(j["end_time"].max() - j["submit_time"].min())
    work = float((j["run_time"] * j["size"]).sum())
    return float(resp.mean()), float(wait.mean()), work / (nodes * span)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="W1,W2,W3")
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--jobs", type=int, default=8000)
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    t0 = time.process_time()
    print(f"PSS ceilings on pairing's mean-response gain, {args.jobs} jobs, seeds {seeds}")
    print(
        "workload | PSS utilization | PSS response (h) | PSS wait (h) | no-wait ceiling "
        "| 256-node PSS gain | paper L-R"
    )
    for wl in args.workloads.split(","):
        base = [pss(wl, s, args.jobs, NODES) for s in seeds]
        double = [pss(wl, s, args.jobs, 2 * NODES) for s in seeds]
        resp = np.asarray([b[0] for b in base])
        wait = np.asarray([b[1] for b in base])
        util = np.asarray([b[2] for b in base])
        ceiling = 100 * wait / resp
        gain2 = 100 * (resp - np.asarray([d[0] for d in double])) / resp
        print(
            f"{wl} | {mean_ci(util).text(3)} | {mean_ci(resp / 3600).text(3)} | "
            f"{mean_ci(wait / 3600).text(3)} | {mean_ci(ceiling).text(3)}% | "
            f"{mean_ci(gain2).text(3)}% | {PAPER.get(wl, '')}",
            flush=True,
        )
    print(f"CPU {time.process_time() - t0:.1f} s")


if __name__ == "__main__":
    main()
