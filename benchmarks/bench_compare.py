"""Whole-process time of ``cosched compare`` (what the user waits for, report included).

    python benchmarks/bench_compare.py                       # the bundled example, 1 worker
    python benchmarks/bench_compare.py ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --workers 2
    python benchmarks/bench_compare.py ../shared/traces/SDSC-BLUE-2000-4.2-cln.swf.gz \
        --workers 2 --keep blue-answer -- --quick     # keep the report; flags after --

Runs the command in a fresh process into a new folder (nothing reused from a store),
then prints wall-clock seconds, the CPU seconds of the process and its children, the
number of simulations and the report's size. Targets: the bundled example
under 60 s on one core, KTH-SP2 (full trace) under 10 minutes with two workers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace", nargs="?", default="bundled:example")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--keep", type=Path, help="write the comparison here and keep it")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = p.parse_args(argv[:cut])
    args.extra = argv[cut + 1 :]  # more flags of cosched compare
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep if args.keep is not None else Path(tmp) / "compare"
        cmd = [sys.executable, "-m", "cosched", "compare", args.trace, "--out", str(out)]
        cmd += ["--workers", str(args.workers), "--seeds", str(args.seeds), *args.extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        runs = len(list((out / "store" / "cells").glob("*.parquet")))
        plan = json.loads((out / "plan.json").read_text())
        html = (out / "report.html").stat().st_size
    print(f"trace            {args.trace} {' '.join(args.extra)}".rstrip())
    print(f"workers          {args.workers} (cores on this machine: {os.cpu_count()})")
    print(f"arms             {len(plan['arms'])}, seeds {args.seeds}, simulations {runs}")
    print(f"wall clock       {wall:.1f} s (whole process: imports, runs, report)")
    print(f"CPU (children)   {cpu:.1f} s")
    print(f"report.html      {html / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
