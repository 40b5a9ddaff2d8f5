"""The ``cosched sweep`` command: run a declarative sweep into a resumable store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["register"]

# Columns printed to stdout; results.csv in the store has every metric.
_SHOWN = (
    "cell",
    "workload",
    "policy",
    "params",
    "seed",
    "status",
    "mean_wait",
    "mean_bounded_slowdown",
    "utilization",
    "makespan",
)


def register(subparsers: Any) -> None:
    """Add the ``sweep SPEC.toml --out DIR [--workers N]`` command.

    Args:
        subparsers: the object returned by ``ArgumentParser.add_subparsers()``.
    """
    p = subparsers.add_parser(
        "sweep",
        help="run a grid of workloads x policies x seeds (resumable)",
        description=(
            "Run every cell of a TOML sweep spec that is not yet in --out. Finished cells "
            "are stored at once, so an interrupted sweep resumes where it stopped."
        ),
    )
    p.add_argument("spec", type=Path, help="the sweep spec (TOML)")
    p.add_argument("--out", type=Path, required=True, help="the store folder")
    p.add_argument("--workers", type=int, default=1, help="parallel processes (default 1)")
    p.set_defaults(func=handler)


def _progress(done: int, total: int) -> None:
    end = "\n" if done == total else ""
    print(f"\rsweep: {done}/{total} cells", end=end, file=sys.stderr, flush=True)


def _show(table: Any) -> None:
    cols = [c for c in _SHOWN if c in table.columns]
    print(table[cols].to_string(index=False))


def handler(args: argparse.Namespace) -> int:
    """Run the sweep; print the results table to stdout.

    Returns:
        0 when every cell is done, 1 when some failed, 130 on Ctrl-C. A bad spec raises
        :class:`~cosched.errors.ConfigError`, which ``cosched.cli.main`` maps to 2.
    """
    from cosched.experiments.sweep import SweepError, load_spec, run_sweep

    progress = _progress if sys.stderr.isatty() else None
    spec = load_spec(args.spec)
    try:
        table = run_sweep(spec, args.out, workers=args.workers, progress=progress)
    except SweepError as exc:
        _show(exc.results)
        print(f"cosched sweep: {exc}", file=sys.stderr)
        print(f"rerun to retry them; details in {args.out / 'failed'}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\ncosched sweep: interrupted; finished cells are kept in {args.out}, "
              "rerun to resume", file=sys.stderr)  # fmt: skip
        return 130
    _show(table)
    print(f"cosched sweep: results in {args.out / 'results.csv'}", file=sys.stderr)
    return 0
