"""Simulation loop of the built-in batch policies: general loop against the fast path.

    python benchmarks/bench_fastpath.py                      # SDSC-SP2, HPC2N, CEA-Curie
    python benchmarks/bench_fastpath.py --traces KTH-SP2-1996-2.1-cln --policies easy

Each (trace, policy, loop) runs in a fresh process pinned to one core (``taskset -c
CORE``) and reports CPU seconds (``time.process_time``) of:

* ``parse``: reading the trace and applying the loader rules (``load_workload``);
* ``sim``: building the ``Simulation`` and ``run()``, which for the fast path includes
  importing numba and loading the cached machine code when the loop is compiled (the
  fixed cost the plain form avoids); ``jobs/s`` is jobs / ``sim``;
* ``loop``: the same simulation built and run a second time in the same process (no
  fixed cost left); ``loop jobs/s`` is jobs / ``loop``;
* ``peak MiB``: the process's peak resident memory after the first run.

Loops: ``general`` (``fast=False``: the policy's ``schedule`` on the engine's event
loop), ``plain`` (the engine's event loop with the policy's compiled pass bound, run
as plain Python), ``compiled`` (the same loop compiled by numba just in time) and
``aot`` (the same loop compiled ahead of time, ``cosched.engine.aot``, built first if it
is not). The fast path's schedules are checked equal to the general loop's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "traces"
TRACES = ("SDSC-SP2-1998-4.2-cln", "HPC2N-2002-2.2-cln", "CEA-Curie-2011-2.1-cln")
POLICIES = ("fcfs", "easy", "conservative")

CHILD = """
import json, resource, sys, time
trace, policy, loop = sys.argv[1:4]
t0 = time.process_time()
from cosched.engine import Simulation
from cosched.policies import make_policy
from cosched.policies.requirements import MachineFlags, fit_workload
from cosched.workload.loader import load_workload
t1 = time.process_time()
w = load_workload(trace)
w, platform, _ = fit_workload(make_policy(policy).requires, w, MachineFlags())
t2 = time.process_time()
r = Simulation(w, platform, make_policy(policy), fast=loop != "general").run()
t3 = time.process_time()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
Simulation(w, platform, make_policy(policy), fast=loop != "general").run()
t4 = time.process_time()
out = {"jobs": len(w), "parse": t2 - t1, "sim": t3 - t2, "loop": t4 - t3, "peak": peak}
out["start"] = r.jobs["start_time"].tolist()
print(json.dumps(out))
"""


def child(trace: Path, policy: str, loop: str, core: int) -> dict[str, object]:
    env = {"COSCHED_FASTPATH_COMPILE_FROM": "0" if loop in ("compiled", "aot") else str(10**12)}
    env["COSCHED_AOT"] = "1" if loop == "aot" else "0"
    cmd = ["taskset", "-c", str(core), sys.executable, "-c", CHILD, str(trace), policy, loop]
    done = subprocess.run(
        cmd, check=True, capture_output=True, text=True, env={**_environ(), **env}
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def _environ() -> dict[str, str]:
    import os

    return dict(os.environ)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", nargs="+", default=list(TRACES))
    p.add_argument("--policies", nargs="+", default=list(POLICIES))
    p.add_argument("--loops", nargs="+", default=["general", "plain", "compiled", "aot"])
    p.add_argument("--core", type=int, default=0)
    args = p.parse_args()
    print(f"{'trace':<24}{'policy':<14}{'loop':<10}{'jobs':>8}{'parse s':>9}{'sim s':>8}"
          f"{'jobs/s':>11}{'loop s':>8}{'loop jobs/s':>13}{'peak MiB':>10}  schedule")  # fmt: skip
    for name in args.traces:
        trace = SHARED / f"{name}.swf.gz"
        for policy in args.policies:
            ref = None
            for loop in args.loops:
                r = child(trace, policy, loop, args.core)
                if ref is None:
                    ref = r["start"]
                same = "same" if r["start"] == ref else "DIFFERS"
                jobs, sim, warm = int(r["jobs"]), float(r["sim"]), float(r["loop"])  # type: ignore[call-overload, arg-type]
                print(
                    f"{name:<24}{policy:<14}{loop:<10}{jobs:>8}{r['parse']:>9.2f}{sim:>8.3f}"
                    f"{jobs / sim:>11,.0f}{warm:>8.3f}{jobs / warm:>13,.0f}{r['peak']:>10.0f}"
                    f"  {same}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
