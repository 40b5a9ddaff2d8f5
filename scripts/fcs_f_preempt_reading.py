"""Which reading of Algorithm 1's "prioritize it [the slot's F process]" do the FCS
paper's section 3 numbers support?

    python scripts/fcs_f_preempt_reading.py [--job-time 60]

Runs the section 3 scenarios under SB and under FCS with ``fcs_f_preempt`` 1 (a woken
F process preempts the running one at the next tick) and 0 (it only goes first when
the CPU frees), with the reproduction's parameters (8 single-CPU PEs, 1 ms block, 100 ms
slice, cslots_MIN 20), and prints each run's turnaround, its context switches per
process and the share of CPU time spent switching, beside the paper's turnaround.
"""

from __future__ import annotations

import argparse

import numpy as np

from cosched.timesharing.engine import simulate
from cosched.timesharing.fcs_experiment import SCENARIOS, _params, scenario_jobs
from cosched.timesharing.fcs_report import PAPER
from cosched.timesharing.workloads import bsp_jobs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--job-time", type=float, default=60.0)
    ap.add_argument("--nodes", type=int, default=8)
    args = ap.parse_args()
    print(
        "scenario | scheme | f_preempt | turnaround (60 s block) | paper | switches/proc"
        " | switch share"
    )
    for scenario in SCENARIOS[:4]:
        for scheme, fp in (("SB", 1), ("FCS", 1), ("FCS", 0)):
            base = {"quantum": 0.1, "cslots_min": 20, "f_preempt": fp}
            ts = _params(base)
            jobs = scenario_jobs(scenario, args.nodes, args.job_time, 1e-3, ts)
            r = simulate(bsp_jobs(jobs, params=ts), scheme=scheme, nodes=args.nodes,
                         mpl=len(jobs), rng=np.random.default_rng(20031110), params=ts)  # fmt: skip
            share = float(r.nodes["context_switch"].sum()) / (args.nodes * r.end_time)
            print(f"{scenario} | {scheme} | {fp if scheme == 'FCS' else '-'} | "
                  f"{r.end_time * 60 / args.job_time:.1f} | {PAPER[scenario][scheme][-2]} | "
                  f"{float(r.procs['switches'].mean()):.0f} | {share:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
