"""``cosched reproduce NAME [--quick] --out DIR``: rerun a paper's experiments."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cosched.experiments.reproductions import REPRODUCTIONS, reproduction

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``reproduce`` to the command line."""
    p = sub.add_parser("reproduce", help="rerun a paper's experiments and write a report")
    p.add_argument("name", help=f"one of: {', '.join(sorted(REPRODUCTIONS)) or '(none yet)'}")
    p.add_argument("--quick", action="store_true", help="a reduced grid that runs in minutes")
    p.add_argument("--out", type=Path, required=True, help="folder for report.md etc.")
    p.add_argument("--workers", type=int, default=1, help="parallel processes")
    p.set_defaults(func=_reproduce)


def _reproduce(args: argparse.Namespace) -> int:
    fn = reproduction(args.name)
    tty = sys.stderr.isatty()

    def progress(message: str) -> None:
        if tty:
            print(message, file=sys.stderr, flush=True)

    report = fn(args.out, quick=args.quick, workers=args.workers, progress=progress)
    print(f"cosched reproduce {args.name}: report in {report}")
    return 0
