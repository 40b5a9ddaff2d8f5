"""Simulation speed of every LOMARC variant on one 8,000-job run of the grid.

Prints, per arrival set and variant, the wall time of one run (workload generation
and annotation excluded) on W3 with mixture M1, seed 0. Usage::

    python benchmarks/bench_lomarc.py                       # the paper-alpha set
    python benchmarks/bench_lomarc.py --variants L-R AC
"""

from __future__ import annotations

import argparse
import time

from cosched.experiments.model import CellEnv
from cosched.lomarc.experiment import SETS, cell_workload, run_cell
from cosched.lomarc.policies import VARIANTS


def main() -> None:
    """Time one run per (set, variant)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", nargs="+", default=["paper-alpha"], choices=SETS)
    p.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    p.add_argument("--jobs", type=int, default=8000)
    args = p.parse_args()
    for set_name in args.sets:
        cell_workload(set_name, "W3", "M1", 0, args.jobs)  # build once, outside the timing
        for variant in args.variants:
            t0 = time.perf_counter()
            params = {"set": set_name, "workload": "W3", "mixture": "M1", "variant": variant,
                      "n_jobs": args.jobs}  # fmt: skip
            record = run_cell(params, 0, CellEnv())
            dt = time.perf_counter() - t0
            print(
                f"{set_name:12s} {variant:5s} {dt:6.2f} s  "
                f"{args.jobs / dt:8.0f} jobs/s  offered load {record['offered_load']:.2f}"
            )


if __name__ == "__main__":
    main()
