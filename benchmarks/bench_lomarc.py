"""Simulation speed of every LOMARC variant on one 8,000-job run of the grid.

Prints, per arrival set and variant, the CPU time of this process for one run
(``time.process_time``, so a busy second core does not inflate it; workload generation
and annotation excluded), jobs per CPU second, and the wall time beside it, on W3 with
mixture M1, seed 0 (the reproduction's heaviest workload). Run it pinned to one core
(``taskset -c 0``). Usage::

    python benchmarks/bench_lomarc.py                       # the paper-alpha set
    python benchmarks/bench_lomarc.py --variants L-R AC --workload W1
"""

from __future__ import annotations

import argparse
import time

from cosched.experiments.model import CellEnv
from cosched.lomarc.experiment import RUNS, SETS, WORKLOADS, cell_workload, run_cell


def main() -> None:
    """Time one run per (set, variant)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", nargs="+", default=["paper-alpha"], choices=SETS)
    p.add_argument("--variants", nargs="+", default=list(RUNS), choices=list(RUNS))
    p.add_argument("--workload", default="W3", choices=list(WORKLOADS))
    p.add_argument("--jobs", type=int, default=8000)
    args = p.parse_args()
    for set_name in args.sets:
        cell_workload(set_name, args.workload, "M1", 0, args.jobs)  # built outside the timing
        for variant in args.variants:
            params = {"set": set_name, "workload": args.workload, "mixture": "M1",
                      "variant": variant, "n_jobs": args.jobs}  # fmt: skip
            c0, w0 = time.process_time(), time.perf_counter()
            record = run_cell(params, 0, CellEnv())
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            print(
                f"{set_name:12s} {args.workload} {variant:7s} {cpu:7.2f} CPU s "
                f"{args.jobs / cpu:9.0f} jobs/s  (wall {wall:6.2f} s)  "
                f"offered load {record['offered_load']:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
