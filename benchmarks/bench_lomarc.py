"""Simulation speed of every LOMARC variant on one 8,000-job run of the grid.

Prints, per arrival set and variant, the CPU time of this process for one run
(``time.process_time``, so a busy second core does not inflate it; workload generation
and annotation excluded), jobs per CPU second, and the wall time beside it, on W3 with
mixture M1, seed 0 (the reproduction's heaviest workload). The built-in variants run
their compiled pass on the engine's loop (``cosched.lomarc.fast``; the 8,000-job runs
load the loop compiled ahead of time when it is built); loading numba's loop (the
cached machine code, once per process) is timed first, on its own line, with a 20-job
run, so that the per-variant figures are each run's own cost. ``--general`` times the
general Python loop instead (``Simulation(fast=False)``, what a user's subclass runs).
Run it pinned to one core (``taskset -c 0``). Usage::

    python benchmarks/bench_lomarc.py                       # the paper-alpha set
    python benchmarks/bench_lomarc.py --variants L-R AC --workload W1
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from cosched.engine.simulation import Simulation
from cosched.experiments.model import CellEnv
from cosched.lomarc.diagnostics import run_metrics
from cosched.lomarc.experiment import NODES, RUNS, SETS, WORKLOADS, cell_workload, run_cell
from cosched.lomarc.policies import lomarc_platform
from cosched.policies.base import make_policy


def one_run(set_name: str, workload: str, variant: str, jobs: int, *, general: bool) -> Any:
    """One cell of the grid (seed 0, M1): ``run_cell``, or its general-loop twin."""
    params = {"set": set_name, "workload": workload, "mixture": "M1", "variant": variant,
              "n_jobs": jobs}  # fmt: skip
    if not general:
        return run_cell(params, 0, CellEnv())
    name, extra = RUNS[variant]
    w = cell_workload(set_name, workload, "M1", 0, jobs)
    result = Simulation(w, lomarc_platform(NODES), make_policy(name, **extra), fast=False).run()
    return {"offered_load": run_metrics(result, NODES)["offered_load"]}


def main() -> None:
    """Time one run per (set, variant)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", nargs="+", default=["paper-alpha"], choices=SETS)
    p.add_argument("--variants", nargs="+", default=list(RUNS), choices=list(RUNS))
    p.add_argument("--workload", default="W3", choices=list(WORKLOADS))
    p.add_argument("--jobs", type=int, default=8000)
    p.add_argument("--general", action="store_true", help="time the general Python loop")
    args = p.parse_args()
    if not args.general:
        cell_workload(args.sets[0], args.workload, "M1", 0, 20)
        c0, w0 = time.process_time(), time.perf_counter()
        one_run(args.sets[0], args.workload, "L-U1", 20, general=False)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        print(f"loading the compiled loop (once per process, a 20-job run): {cpu:.2f} CPU s "
              f"(wall {wall:.2f} s)", flush=True)  # fmt: skip
    for set_name in args.sets:
        cell_workload(set_name, args.workload, "M1", 0, args.jobs)  # built outside the timing
        for variant in args.variants:
            c0, w0 = time.process_time(), time.perf_counter()
            record = one_run(set_name, args.workload, variant, args.jobs, general=args.general)
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            print(
                f"{set_name:12s} {args.workload} {variant:7s} {cpu:7.2f} CPU s "
                f"{args.jobs / cpu:9.0f} jobs/s  (wall {wall:6.2f} s)  "
                f"offered load {record['offered_load']:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
