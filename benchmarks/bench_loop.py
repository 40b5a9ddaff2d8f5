"""The engine's compiled event loop alone: CPU seconds of one call, numba's loop (with
``--built``, the loop built ahead of time, which ``cosched run`` loads), on a trace,
per policy with a compiled pass (best of ``--repeat`` calls in this process, after one
call that compiles or loads it).

    taskset -c 1 python benchmarks/bench_loop.py --policies easy fcfs
    python benchmarks/bench_loop.py --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz \
        --policies lomarc
    PYTHONPATH=OTHER/src taskset -c 1 python benchmarks/bench_loop.py   # another version
    python benchmarks/bench_loop.py --built --policies lomarc easy   # as ``cosched run``

Run it in alternation with another version's source (``PYTHONPATH``) to compare the
loop of two versions: a process's figure moves by 10-30% from one process to the next
on a shared machine, so compare medians over several processes. The columns are built
as the fast path builds them (``cosched.engine.fastpath.eligible``); the loop's
signature before the loop took rate changes (10 arguments) is called too.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from cosched.engine import aot, fastpath
from cosched.engine.compiled import bound_loop
from cosched.engine.simulation import Simulation
from cosched.policies import make_policy
from cosched.policies.requirements import MachineFlags, fit_workload
from cosched.workload.loader import load_workload

SHARED = Path(__file__).resolve().parents[2] / "shared" / "traces"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trace", default=str(SHARED / "CEA-Curie-2011-2.1-cln.swf.gz"))
    p.add_argument("--policies", nargs="+", default=["easy", "fcfs"])
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument(
        "--built",
        action="store_true",
        help="the loop built ahead of time, as cosched run loads it (built first if missing)",
    )
    args = p.parse_args()
    w = load_workload(args.trace)
    for name in args.policies:
        wp, platform, _ = fit_workload(make_policy(name).requires, w, MachineFlags())
        sim = Simulation(wp, platform, make_policy(name))
        plan = fastpath.eligible(sim)
        if plan is None:
            raise SystemExit(f"{name}: no compiled pass for this trace")
        loop = aot.load_loop(plan.spec, build=True) if args.built else None
        if args.built and loop is None:
            raise SystemExit(f"{name}: the loop built ahead of time is not available")
        loop = loop or bound_loop(plan.spec, compiled=True)
        cols = [np.ascontiguousarray(c).copy() for c in sim.columns]
        n = sim.n_jobs
        # A pass that places its jobs writes the node of each unit (Jobs.placed).
        placed = int(cols[3].sum()) * plan.spec.room if plan.spec.places else 0
        best = float("inf")
        for rep in range(args.repeat + 1):
            start, end = np.full(n, np.nan), np.full(n, np.nan)
            t = time.process_time()
            if hasattr(plan, "params"):
                loop(
                    *cols, plan.table, sim.capacity, plan.params, start, end,
                    np.zeros(n, np.int64), np.zeros(placed, np.int64),
                    np.zeros(4 + plan.spec.reports, np.int64), np.zeros(plan.spec.freports),
                )  # fmt: skip
            elif hasattr(plan, "table"):  # the loop's signature before named parameters
                loop(
                    *cols, plan.table, sim.capacity, plan.iparams, plan.fparams, start, end,
                    np.zeros(n, np.int64), np.zeros(0, np.int64),
                    np.zeros(4 + plan.spec.reports, np.int64), np.zeros(plan.spec.freports),
                )  # fmt: skip
            else:  # the loop's signature before rate changes
                stats = np.zeros(3 + plan.spec.reports, np.int64)
                loop(*cols, sim.capacity, plan.iparams, plan.fparams, start, end, stats)
            took = time.process_time() - t
            if rep:
                best = min(best, took)
        print(f"{name:14s} {n:9,d} jobs  loop {best:.4f} CPU s  {n / best:12,.0f} jobs/s")


if __name__ == "__main__":
    main()
