"""Peak memory and time against trace length: generation, streamed runs, --limit.

Each step runs as a fresh child process (``python -m cosched ...``), pinned to one core
with ``taskset`` when available; its peak memory is the child's own ``ru_maxrss`` and
its CPU time ``ru_utime + ru_stime`` (from ``os.wait4``), so the figures do not depend
on other work sharing the machine the way wall-clock time does (wall time is printed
too, with the load average). Steps per trace length N (Lublin, 128 nodes, seed 1):

* ``generate``: ``cosched generate lublin --jobs N`` (chunks written as they are made);
* ``run P``: ``cosched run FILE --policy P --stream`` for each policy;
* ``limit``: ``cosched run FILE --policy easy --limit 1000`` on the largest file;
* ``identical``: on the trace of ``--identical N`` jobs, the per-job CSV of
  ``cosched run --policy easy`` in memory and with ``--stream``, compared byte for byte.

Usage::

    python benchmarks/bench_scale.py --sizes 10000 100000 1000000 10000000 \\
        --policies fcfs easy conservative --identical 1000000 --dir /tmp/scale
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path


def measure(cmd: list[str], core: int | None) -> tuple[float, float, float, int]:
    """Run ``cmd`` in a child: (CPU s, wall s, peak MiB, exit code)."""
    if core is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(core), *cmd]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    if proc.stderr:
        proc.stderr.close()
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, proc.returncode


def row(jobs: int, step: str, cpu: float, wall: float, peak: float) -> None:
    load = os.getloadavg()[0]
    print(f"{jobs:>10,}  {step:<18} {cpu:>9.2f} {wall:>9.2f} {peak:>9.0f} {load:>6.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--policies", nargs="+", default=["fcfs", "easy", "conservative"])
    ap.add_argument("--identical", type=int, help="trace length of the byte-for-byte check")
    ap.add_argument("--dir", type=Path, default=Path("bench-scale"), help="where traces go")
    ap.add_argument("--core", type=int, default=0, help="core to pin to (taskset -c)")
    ap.add_argument("--keep", action="store_true", help="keep the generated traces")
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    py = [sys.executable, "-m", "cosched"]
    print(f"{'jobs':>10}  {'step':<18} {'CPU s':>9} {'wall s':>9} {'peak MiB':>9} {'load':>6}")
    files = {}
    for n in args.sizes:
        path = args.dir / f"lublin-{n}.swf"
        gen = [*py, "generate", "lublin", "--nodes", "128", "--jobs", str(n), "--seed", "1"]
        row(n, "generate", *measure([*gen, "-o", str(path)], args.core)[:3])
        files[n] = path
        for policy in args.policies:
            run = [*py, "run", str(path), "--policy", policy, "--stream"]
            row(n, f"run {policy}", *measure(run, args.core)[:3])
    largest = max(args.sizes)
    limit = [*py, "run", str(files[largest]), "--policy", "easy", "--limit", "1000"]
    row(largest, "limit 1000", *measure(limit, args.core)[:3])
    if args.identical:
        path = files.get(args.identical) or args.dir / f"lublin-{args.identical}.swf"
        if not path.exists():
            gen = [*py, "generate", "lublin", "--nodes", "128", "--jobs", str(args.identical)]
            measure([*gen, "--seed", "1", "-o", str(path)], args.core)
        base = [*py, "run", str(path), "--policy", "easy", "--jobs-out"]
        memory, streamed = args.dir / "memory.csv", args.dir / "streamed.csv"
        row(args.identical, "run easy memory", *measure([*base, str(memory)], args.core)[:3])
        row(
            args.identical,
            "run easy stream",
            *measure([*base, str(streamed), "--stream"], args.core)[:3],
        )
        same = filecmp.cmp(memory, streamed, shallow=False)
        size = memory.stat().st_size
        print(
            f"per-job CSV of {args.identical:,} jobs ({size:,} bytes): "
            f"{'identical' if same else 'DIFFERENT'} in memory and streamed"
        )
        memory.unlink()
        streamed.unlink()
    if not args.keep:
        for path in files.values():
            path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
