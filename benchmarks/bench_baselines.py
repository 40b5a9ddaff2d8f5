"""Parsing and simulation speed of the batch baselines on the reference traces.

Prints, per trace and policy: trace parsing speed (lines/s, `read_swf` only), loading
(rules applied, job records built), simulation speed (jobs/s, parsing and loading
excluded) and peak memory (max RSS of a fresh process that parsed, loaded and
simulated). Times are the process's CPU time (``time.process_time``): the work is
single-threaded, so on an idle core this equals wall time, and it stays meaningful when
other work shares the machine. Each (trace, policy) runs in its own process, pinned to
one core when the OS allows it, so peak memory is per run. Usage::

    python benchmarks/bench_baselines.py                 # all traces, all policies
    python benchmarks/bench_baselines.py --traces HPC2N-2002-2.2-cln --policies easy
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

TRACES = {
    "SDSC-SP2-1998-4.2-cln": 128,
    "HPC2N-2002-2.2-cln": 240,
    "CEA-Curie-2011-2.1-cln": 93312,
}
POLICIES = ["fcfs", "easy", "conservative"]
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "traces"


def measure(trace: str, policy: str) -> dict[str, float]:
    """Parse, load and simulate once in this process; return the figures."""
    from cosched.engine import Simulation
    from cosched.platform import Platform
    from cosched.policies import make_policy
    from cosched.workload import LoadRules, load_workload, read_swf

    path = SHARED / f"{trace}.swf.gz"
    t0 = time.process_time()
    raw = read_swf(path)
    t1 = time.process_time()
    w = load_workload(raw, rules=LoadRules(too_wide="drop"))
    w.jobs()  # builds and caches the job records, part of loading
    t2 = time.process_time()
    sim = Simulation(w, Platform.of_procs(TRACES[trace]), make_policy(policy))
    sim.run()
    t3 = time.process_time()
    lines = int(raw.line_numbers[-1]) if len(raw) else 0
    return {
        "lines": lines,
        "jobs": len(w),
        "parse_lines_per_s": lines / (t1 - t0),
        "load_s": t2 - t1,
        "sim_s": t3 - t2,  # building the Simulation (sizes, estimates) + running it
        "sim_jobs_per_s": len(w) / (t3 - t2),
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="*", default=list(TRACES))
    parser.add_argument("--policies", nargs="*", default=POLICIES)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        print(json.dumps(measure(*args.child)))
        return 0
    if not SHARED.is_dir():
        print(f"no traces at {SHARED}: nothing to measure", file=sys.stderr)
        return 1
    head = f"{'trace':<24}{'policy':<14}{'jobs':>8}{'parse lines/s':>15}{'sim jobs/s':>12}"
    print(head + f"{'sim s':>8}{'peak MiB':>10}")
    for trace in args.traces:
        for policy in args.policies:
            out = subprocess.run(
                [sys.executable, __file__, "--child", trace, policy],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            r = json.loads(out)
            print(
                f"{trace:<24}{policy:<14}{r['jobs']:>8}{r['parse_lines_per_s']:>15,.0f}"
                f"{r['sim_jobs_per_s']:>12,.0f}{r['sim_s']:>8.2f}"
                f"{r['peak_mib']:>10.0f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
