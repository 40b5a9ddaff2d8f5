"""Speed of job-level gang scheduling on a full archive trace (target: 200K jobs < 30 s).

Runs ``gang`` (first fit, alternate scheduling, backfilling, quantum 30 s, switch cost
1 s) at MPL 4 on HPC2N-2002-2.2-cln (202,871 jobs, 240 processors) and, for scale,
EASY on the same machine. Prints CPU seconds of this process (``time.process_time``,
so a busy second core does not inflate it; loading excluded) and jobs per CPU second.
Usage::

    python benchmarks/bench_gang.py                   # the whole trace
    python benchmarks/bench_gang.py --limit 20000     # the first 20,000 jobs

``--whole`` instead times the whole ``cosched run TRACE --policy P --jobs-out CSV``
process of ``gang`` and ``gang-slurm`` with their defaults (fresh interpreters, the best
CPU of ``--repeat``) and prints its jobs per second::

    python benchmarks/bench_gang.py --whole --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

TRACES = Path(__file__).resolve().parents[1] / ".." / "shared" / "traces"
TRACE = TRACES / "HPC2N-2002-2.2-cln.swf.gz"


def main() -> None:
    """Run the benchmark and print one line per policy."""
    from cosched.engine.simulation import Simulation
    from cosched.gang import Gang
    from cosched.platform import Platform
    from cosched.policies.easy import EasyBackfilling
    from cosched.workload.sources import open_workload

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=TRACE)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--mpl", type=int, default=4)
    ap.add_argument("--skip-easy", action="store_true")
    ap.add_argument("--whole", action="store_true", help="time whole `cosched run` processes")
    ap.add_argument("--repeat", type=int, default=1, help="--whole: runs of each policy")
    args = ap.parse_args()
    if not args.trace.is_file():
        raise SystemExit(f"trace {args.trace} not found")
    if args.whole:
        from bench_whole_process import whole_process

        whole_process(args.trace, ["gang", "gang-slurm"], args.repeat)
        return
    w = open_workload(str(args.trace), limit=args.limit)
    procs = int(w.max_procs or w.table["procs"].max())
    runs = [("gang", Gang(mpl=args.mpl, switch_cost=1.0), Platform(procs, 1, mpl=args.mpl))]
    if not args.skip_easy:
        runs.append(("easy", EasyBackfilling(), Platform(procs, 1)))
    for key, policy, platform in runs:
        t0 = time.process_time()
        Simulation(w, platform, policy).run()
        cpu = time.process_time() - t0
        print(
            f"{key:5s} mpl {platform.mpl} {w.name} {len(w):7d} jobs on {procs} procs: "
            f"{cpu:6.1f} CPU s, {len(w) / cpu:8.0f} jobs/s",
            flush=True,
        )


if __name__ == "__main__":
    main()
