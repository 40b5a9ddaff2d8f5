"""Where the time of one ``cosched run`` goes: imports, parsing, simulation, metrics, output.

    python benchmarks/bench_run_stages.py                       # the bundled example
    python benchmarks/bench_run_stages.py ../shared/traces/HPC2N-2002-2.2-cln.swf.gz easy

Runs, in a fresh process pinned to one core (``--core``), the same steps as ``python -m
cosched run WORKLOAD --policy P --jobs-out jobs.csv`` (the command's own functions) and
prints the CPU seconds (``time.process_time``) of each: interpreter start and the
imports the command needs, loading the workload (reading and parsing the trace, the
loader rules, the machine), the simulation, the summary metrics and writing the
per-job CSV (with the command's collector threshold and memory options, and its exit
without teardown); then the whole process's CPU time as the operating system counts it, and
whether pandas or numba were loaded. The summary leaves out the per-class breakdown,
as ``cosched run`` does unless ``--by-class`` or ``--summary-out`` asks for it.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import gc, json, os, sys, time
t0 = time.process_time()
from cosched.cli.main import build_parser
args = build_parser().parse_args(["run", sys.argv[1], "--policy", sys.argv[2],
                                  "--jobs-out", sys.argv[3]])
import numpy as np
from cosched.cli.run import GC_THRESHOLD, _return_freed_memory, load_for
from cosched.engine import Simulation
from cosched.metrics import summarize
from cosched.outputs import write_jobs
from cosched.policies.base import make_policy, policy_class
t1 = time.process_time()
gc.set_threshold(*GC_THRESHOLD)
_return_freed_memory()
cls = policy_class(args.policy)
policy = make_policy(args.policy)
w, platform, notes = load_for(args, cls)
t2 = time.process_time()
r = Simulation(w, platform, policy, rng=np.random.default_rng(0)).run()
t3 = time.process_time()
m = summarize(r.job_columns, capacity=platform.capacity, capacity_procs=platform.procs,
              tau=10.0, classes=None, placements=r.placements, nodes=platform.nodes)
t4 = time.process_time()
write_jobs(r.job_columns, args.jobs_out, platform=platform, placements=r.placements, workload=w,
           tau=10.0)
t5 = time.process_time()
print(json.dumps({"jobs": len(w), "start + imports": t1, "load": t2 - t1,
                  "simulate": t3 - t2, "metrics": t4 - t3, "write csv": t5 - t4,
                  "pandas loaded": "pandas" in sys.modules,
                  "numba loaded": "numba" in sys.modules}))
sys.stdout.flush()
os._exit(0)  # as the command ends (cosched.cli.main.entry)
"""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload", nargs="?", default="bundled:example")
    p.add_argument("policy", nargs="?", default="easy")
    p.add_argument("--core", type=int, default=0)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        cmd = ["taskset", "-c", str(args.core), sys.executable, "-c", CHILD]
        cmd += [args.workload, args.policy, str(Path(tmp) / "jobs.csv")]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stages = json.loads(out.splitlines()[-1])
    total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"{args.workload} --policy {args.policy} ({stages.pop('jobs')} jobs), CPU seconds:")
    loaded = [k.split()[0] for k in ("pandas loaded", "numba loaded") if stages.pop(k)]
    for name, secs in stages.items():
        print(f"  {name:<16}{secs:>7.3f}  {secs / total:>5.0%}")
    print(f"  {'whole process':<16}{total:>7.3f}")
    print(f"  modules loaded: {', '.join(loaded) or 'neither pandas nor numba'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
