"""Kill a reproduction with SIGKILL at random moments, rerun it, compare with a whole run.

Runs ``cosched reproduce NAME --quick`` into ``OUT/whole`` without interruption, then into
``OUT/cut`` killing it (SIGKILL) ``--kills`` times, each at a random moment after at least
one more cell finished, then reruns it to the end and prints the SHA-256 of both
``results.parquet`` files. Usage::

    python scripts/check_interruptions.py coupled --out /tmp/check --workers 2 --seed 1
"""

from __future__ import annotations

import argparse
import hashlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def _run(name: str, out: Path, workers: int) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "cosched", "reproduce", name, "--quick", "--out", str(out)]
    return subprocess.Popen(
        [*cmd, "--workers", str(workers)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def _cells(out: Path) -> int:
    return len(list((out / "cells").glob("*.parquet")))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="the reproduction")
    ap.add_argument("--out", type=Path, required=True, help="folder for whole/ and cut/")
    ap.add_argument("--workers", type=int, default=2, help="local processes")
    ap.add_argument("--kills", type=int, default=3, help="SIGKILLs before the last rerun")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random kill moments")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    whole, cut = args.out / "whole", args.out / "cut"
    t0 = time.monotonic()
    if _run(args.name, whole, args.workers).wait() != 0:
        sys.exit("the uninterrupted run failed")
    took = time.monotonic() - t0
    for k in range(args.kills):
        before = _cells(cut)
        proc = _run(args.name, cut, args.workers)
        while _cells(cut) <= before and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(float(rng.uniform(0.0, took / (2 * args.kills))))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        print(f"kill {k + 1}: exit {proc.returncode}, {_cells(cut)} cells stored")
    if _run(args.name, cut, args.workers).wait() != 0:
        sys.exit("the rerun failed")
    a, b = _sha(whole / "results.parquet"), _sha(cut / "results.parquet")
    print(f"uninterrupted: {a}\nkilled+rerun:  {b}\n{'IDENTICAL' if a == b else 'DIFFERENT'}")
    sys.exit(0 if a == b else 1)


if __name__ == "__main__":
    main()
