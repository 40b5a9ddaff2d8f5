"""Whole-process CPU time of one ``cosched run`` under two source trees, alternated.

    git worktree add /tmp/old 56c43a2
    python benchmarks/bench_versions.py ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz \\
        --policy lomarc -P slowdown=overlap --before /tmp/old/src --pairs 9 --core 0

Runs ``python -m cosched run TRACE --policy P [-P ...] --jobs-out CSV`` in fresh
processes, with ``PYTHONPATH`` set to ``--before`` and to ``--after`` (this checkout's
``src`` by default) in turn (before, after, before, ...), pinned to ``--core``; prints
each pair's CPU seconds (user + system of the child, what the operating system counts)
and their ratio, then the medians, the jobs per second of each median and the median of
the pairs' ratios. The per-job CSVs of the two trees must be byte-identical (the same
schedule), else it stops: a speed-up is only compared on equal outputs. The first run
of each tree is a warm-up, not counted (it may build a compiled loop).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(src: str, args: argparse.Namespace, out: Path) -> float:
    """CPU seconds of one ``cosched run`` with ``src`` first on the path."""
    cmd = [sys.executable, "-m", "cosched", "run", args.trace, "--policy", args.policy]
    for p in args.param:
        cmd += ["-P", p]
    cmd += ["--jobs-out", str(out)]
    if args.core is not None:
        cmd = ["taskset", "-c", str(args.core), *cmd]
    env = {**os.environ, "PYTHONPATH": src}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def jobs_in(csv_path: Path) -> int:
    with open(csv_path) as fh:
        return sum(1 for _ in fh) - 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--policy", required=True)
    ap.add_argument("-P", "--param", action="append", default=[], help="policy parameter")
    ap.add_argument("--before", required=True, help="the other tree's src folder")
    ap.add_argument("--after", default=str(HERE.parent / "src"), help="default: this src")
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--core", type=int, default=None, help="pin the runs to this CPU")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "before.csv", Path(tmp) / "after.csv"
        run(args.before, args, a)  # warm-up: a compiled loop may be built
        run(args.after, args, b)
        if not filecmp.cmp(a, b, shallow=False):
            print("the two trees' per-job CSVs differ: not the same schedule", file=sys.stderr)
            return 1
        n = jobs_in(b)
        before: list[float] = []
        after: list[float] = []
        for i in range(args.pairs):
            before.append(run(args.before, args, a))
            after.append(run(args.after, args, b))
            print(f"pair {i + 1}: before {before[-1]:.2f} s, after {after[-1]:.2f} s, "
                  f"ratio {before[-1] / after[-1]:.2f}")  # fmt: skip
    mb, ma = statistics.median(before), statistics.median(after)
    ratios = sorted(x / y for x, y in zip(before, after, strict=True))
    print(f"{args.policy} on {Path(args.trace).name} ({n} jobs), CPU s of the whole process:")
    for name, xs, m in (("before", before, mb), ("after", after, ma)):
        spread = f"range {min(xs):.2f}-{max(xs):.2f}"
        print(f"  {name:7} median {m:.2f} s ({n / m:,.0f} jobs/s), {spread}")
    median_ratio = statistics.median(ratios)
    print(
        f"  ratio of the medians {mb / ma:.2f}; of the pairs: median {median_ratio:.2f}, ", end=""
    )
    print(f"range {ratios[0]:.2f}-{ratios[-1]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
