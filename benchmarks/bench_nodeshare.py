"""Speed of the node-sharing policies on one 100,000-job window (1,158 x 16, cap 3).

Prints, per policy: simulation speed (jobs per CPU second of this process, so a busy
second core does not inflate it; loading and profile drawing excluded)
and, for the coscheduling policies on the general loop, mean placement time per job and
per attempt (monotonic clock, ``time.perf_counter_ns``, around Algorithm 1 only; the
compiled pass, which runs by default, does not time it). The window is
RICC-2010-2 jobs 40,000..139,999 with node counts kept (as in the reproduction).
Usage::

    python benchmarks/bench_nodeshare.py                       # all four policies
    python benchmarks/bench_nodeshare.py --policies nodeshare --jobs 20000
    python benchmarks/bench_nodeshare.py --policies nodeshare-easy --repeat 3

``--repeat N`` simulates each policy N times in the one process (a new policy each
time), one line each: the first run also loads the kernels, the later ones show the
simulation alone.

``--whole TRACE`` instead times the whole ``cosched run TRACE --policy P --jobs-out
CSV`` process of ``nodeshare`` and ``nodeshare-easy`` (or ``--policies``; fresh
interpreters, best CPU of ``--repeat``) and prints its jobs per second::

    python benchmarks/bench_nodeshare.py --repeat 3 \
        --whole ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

POLICIES = {
    "fcfs": ("fcfs", {}),
    "easy": ("easy", {"window": 150}),
    "nodeshare": ("nodeshare", {}),
    "nodeshare-easy": ("nodeshare-easy", {}),
}


def main() -> None:
    """Run the benchmark and print one line per policy."""
    from cosched.engine.simulation import Simulation
    from cosched.nodeshare.experiment import prepare
    from cosched.nodeshare.outputs import placement_time
    from cosched.platform import Platform
    from cosched.policies.base import make_policy

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", nargs="*", default=list(POLICIES), choices=list(POLICIES))
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each policy (default 1)")
    ap.add_argument("--whole", type=Path, help="time whole `cosched run` processes on this trace")
    args = ap.parse_args()
    if args.whole is not None:
        default = args.policies == list(POLICIES)
        chosen = ["nodeshare", "nodeshare-easy"] if default else args.policies
        from bench_whole_process import whole_process

        whole_process(args.whole, chosen, args.repeat)
        return
    w = prepare(0, args.jobs, 1)
    platform = Platform(nodes=1158, cores=16, allocation="nodes", max_jobs_per_node=3)
    for key in [k for k in args.policies for _ in range(args.repeat)]:
        name, params = POLICIES[key]
        policy = make_policy(name, **params)
        t0 = time.process_time()
        Simulation(w, platform, policy).run()
        wall = time.process_time() - t0
        line = f"{key:15s} {len(w):7d} jobs {wall:7.1f} CPU s {len(w) / wall:9.0f} jobs/s"
        if hasattr(policy, "stats"):
            pt = placement_time(policy.stats(), len(w))
            if pt:
                line += (
                    f"  placement {pt['us_per_job']:.1f} us/job, "
                    f"{pt['us_per_attempt']:.1f} us/attempt"
                )
            else:  # the compiled pass does not time its placements
                line += "  placement not timed (compiled pass)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
