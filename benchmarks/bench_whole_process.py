"""Whole-process time of ``cosched run`` against the plain reference simulator.

    python benchmarks/bench_whole_process.py                    # SDSC-SP2, HPC2N, CEA-Curie
    python benchmarks/bench_whole_process.py --traces KTH-SP2-1996-2.1-cln --policies easy

For each trace and policy, runs in fresh processes (what a user waits for: interpreter
start, imports, parsing, simulation, writing the per-job CSV):

* ``python -m cosched run TRACE --policy P --jobs-out cosched.csv``
* ``python benchmarks/plain_reference.py TRACE P reference.csv`` (standard library only)

checks that every job's start and end are equal in the two outputs, and prints the
best of ``--repeat`` runs of each (wall clock and CPU seconds of the child) and the
ratios reference / cosched of wall clock and of CPU time (above 1: cosched is faster;
on a shared machine, pin with ``--core`` and read the CPU ratio). The two commands run
in turn (cosched, reference, cosched, ...), and a line under each row gives every
repeat's CPU seconds and the CPU ratio of each pair, so the spread is seen, not only
the best.
"""

from __future__ import annotations

import argparse
import csv
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "traces"
TRACES = ("SDSC-SP2-1998-4.2-cln", "HPC2N-2002-2.2-cln", "CEA-Curie-2011-2.1-cln")
POLICIES = ("fcfs", "easy", "conservative")


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def whole_process(trace: Path, policies: list[str], repeat: int) -> None:
    """The whole ``cosched run TRACE --policy P --jobs-out CSV`` process per policy
    (fresh interpreter: imports, loading, simulation, metrics, writing the CSV), the
    best of ``repeat`` runs: wall clock, CPU seconds of the child, and jobs per second
    of each."""
    for policy in policies:
        best: tuple[float, float] | None = None
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "jobs.csv"
            cmd = [sys.executable, "-m", "cosched", "run", str(trace), "--policy", policy]
            for _ in range(repeat):
                wall, cpu = timed([*cmd, "--jobs-out", str(out)])
                if best is None or cpu < best[1]:
                    best = (wall, cpu)
            jobs = sum(1 for _ in out.open()) - 1
        assert best is not None
        wall, cpu = best
        print(
            f"{policy:15s} {trace.name} {jobs} jobs, whole process: {wall:6.2f} s wall "
            f"{cpu:6.2f} s CPU, {jobs / wall:7.0f} jobs/s (wall) {jobs / cpu:7.0f} jobs/s (CPU)",
            flush=True,
        )


def schedule(path: Path) -> dict[str, tuple[float, float]]:
    with open(path, newline="") as fh:
        return {
            r["job_id"]: (float(r["start_time"]), float(r["end_time"])) for r in csv.DictReader(fh)
        }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", nargs="+", default=list(TRACES))
    p.add_argument("--policies", nargs="+", default=list(POLICIES))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--core", type=int, help="pin every child to this core (taskset -c)")
    args = p.parse_args()
    pin = [] if args.core is None else ["taskset", "-c", str(args.core)]
    print(f"{'trace':<24}{'policy':<14}{'cosched s':>10}{'(cpu)':>8}{'reference s':>13}"
          f"{'(cpu)':>8}{'ratio':>7}{'cpu ratio':>10}  schedules")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.traces:
            trace = SHARED / f"{name}.swf.gz"
            for policy in args.policies:
                mine, ref = Path(tmp) / "c.csv", Path(tmp) / "r.csv"
                cmd_c = [
                    *pin,
                    sys.executable,
                    "-m",
                    "cosched",
                    "run",
                    str(trace),
                    "--policy",
                    policy,
                ]
                cmd_c += ["--jobs-out", str(mine)]
                cmd_r = [*pin, sys.executable, str(HERE / "plain_reference.py"), str(trace), policy]
                cmd_r += [str(ref)]
                pairs = [(timed(cmd_c), timed(cmd_r)) for _ in range(args.repeat)]
                c = min((pair[0] for pair in pairs), key=lambda x: x[0])
                r = min((pair[1] for pair in pairs), key=lambda x: x[0])
                same = schedule(mine) == schedule(ref)
                print(
                    f"{name:<24}{policy:<14}{c[0]:>10.2f}{c[1]:>8.2f}{r[0]:>13.2f}{r[1]:>8.2f}"
                    f"{r[0] / c[0]:>7.2f}{r[1] / c[1]:>10.2f}  {'identical' if same else 'DIFFER'}"
                )
                print(
                    f"{'':<4}each run, cpu s cosched / reference (cpu ratio): "
                    + ", ".join(f"{a[1]:.2f} / {b[1]:.2f} ({b[1] / a[1]:.2f})" for a, b in pairs)
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
