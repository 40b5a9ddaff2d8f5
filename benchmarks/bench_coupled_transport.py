"""The coupled quick reproduction over TCP and in-process: wall times, ratio, same results.

Runs the cells of ``cosched reproduce coupled --quick`` (35 cells: the load study's 15
and the proportion study's 20, ten days of LLNL Atlas coupled with KTH SP2) in this
process, each cell twice in a row: with both machines in this process (``--transport
local``), then with each machine in its own ``cosched coupled serve`` process on
127.0.0.1 (``--transport tcp``), so that both see the same load when the machine is
shared. The tcp outcomes go to one store, the in-process ones to another (the same
runner builds both tables); the two ``results.parquet`` must hold the same table, value
for value (checked; the bytes are compared too). Wall time is ``time.perf_counter``
around each cell, summed (for tcp: the serve processes' start with the first cell and
their stop included; the store's writes and the report left out: the same work for
both). Usage::

    python benchmarks/bench_coupled_transport.py                  # stores in a temp folder
    python benchmarks/bench_coupled_transport.py --out /tmp/bench  # keep the stores

Exit status 1 if the tables differ.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

TRACES = Path(
    os.environ.get("COSCHED_TRACES", Path(__file__).resolve().parents[2] / "shared" / "traces")
)


class Paired:
    """An executor that runs each cell in-process, then over TCP, and times both: the
    two transports see the same load, cell by cell (the machine may be shared)."""

    description = "serial (each cell in-process, then over tcp)"

    def __init__(self) -> None:
        self.local: dict[str, Any] = {}
        self.wall = {"local": 0.0, "tcp": 0.0}

    def run(self, tasks: Sequence[Any], env: Any, done: Callable[[Any, Any], None]) -> None:
        from cosched.experiments.executors import execute

        for task in tasks:
            t0 = time.perf_counter()
            self.local[task.key] = execute(task, dataclasses.replace(env, transport="local"))
            t1 = time.perf_counter()
            outcome = execute(task, env)
            self.wall["local"] += t1 - t0
            self.wall["tcp"] += time.perf_counter() - t1
            done(task, outcome)


class Replay:
    """An executor that hands over outcomes computed before (the in-process ones)."""

    description = "serial"

    def __init__(self, outcomes: dict[str, Any]) -> None:
        self.outcomes = outcomes

    def run(self, tasks: Sequence[Any], env: Any, done: Callable[[Any, Any], None]) -> None:
        for task in tasks:
            done(task, self.outcomes[task.key])


def run(root: Path, traces: Path) -> dict[str, float]:
    """The quick reproduction's cells into ``root/tcp`` and ``root/local``; wall times."""
    from cosched.coupled.transport import close_kept
    from cosched.experiments.reproductions import spec
    from cosched.experiments.runner import run_experiment

    paired = Paired()
    common = {"command": "cosched reproduce coupled --quick", "trace_dirs": [traces]}
    exp = spec("coupled", quick=True)
    run_experiment(exp, root / "tcp", executor=paired, report=False, transport="tcp", **common)
    t0 = time.perf_counter()
    close_kept()  # the serve processes' stop belongs to the tcp run
    paired.wall["tcp"] += time.perf_counter() - t0
    replay = Replay(paired.local)
    run_experiment(exp, root / "local", executor=replay, report=False, **common)
    return paired.wall


def main() -> int:
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="folder for the two stores (default: a temp one)")
    ap.add_argument("--traces", type=Path, default=TRACES, help=f"trace folder ({TRACES})")
    args = ap.parse_args()
    if not args.traces.is_dir():
        print(f"traces not found under {args.traces}; set COSCHED_TRACES", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-coupled-") as tmp:
        root = args.out or Path(tmp)
        for sub in ("local", "tcp"):
            if (root / sub).exists() and any((root / sub).iterdir()):
                print(f"{root / sub} is not empty: the cells would be skipped", file=sys.stderr)
                return 2
        walls = run(root, args.traces)
        for transport in ("local", "tcp"):
            print(f"{transport:5}: {walls[transport]:8.1f} s", flush=True)
        local = pd.read_parquet(root / "local" / "results.parquet")
        tcp = pd.read_parquet(root / "tcp" / "results.parquet")
        same_bytes = (root / "local" / "results.parquet").read_bytes() == (
            root / "tcp" / "results.parquet"
        ).read_bytes()
        try:
            pd.testing.assert_frame_equal(local, tcp, check_exact=True)
        except AssertionError as exc:
            print(f"results differ: {exc}", file=sys.stderr)
            return 1
    ratio = walls["tcp"] / walls["local"]
    print(f"ratio: tcp / local = {ratio:.2f}x ({len(local)} cells)")
    print(
        "results.parquet: same table, every value exact"
        + ("; identical bytes" if same_bytes else " (the files' bytes differ)")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
