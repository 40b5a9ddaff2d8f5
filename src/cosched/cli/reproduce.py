"""``cosched reproduce NAME [--quick] --out DIR``: rerun a paper's experiments."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cosched.errors import ConfigError
from cosched.experiments.reproductions import REPRODUCTIONS, reproduction

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``reproduce`` to the command line."""
    p = sub.add_parser("reproduce", help="rerun a paper's experiments and write a report")
    p.add_argument("name", help=f"one of: {', '.join(sorted(REPRODUCTIONS)) or '(none yet)'}")
    p.add_argument("--quick", action="store_true", help="a reduced grid that runs in minutes")
    p.add_argument("--out", type=Path, required=True, help="folder for report.md etc.")
    p.add_argument("--workers", type=int, default=1, help="parallel processes")
    p.add_argument(
        "--transport",
        choices=("local", "tcp"),
        default="local",
        help="coupled only: tcp runs each machine as its own process on 127.0.0.1",
    )
    p.set_defaults(func=_reproduce)


def _reproduce(args: argparse.Namespace) -> int:
    fn = reproduction(args.name)
    tty = sys.stderr.isatty()

    def progress(message: str) -> None:
        if tty:
            print(message, file=sys.stderr, flush=True)

    extra: dict[str, Any] = {}
    if args.transport != "local":
        if args.name != "coupled":
            raise ConfigError(f"--transport {args.transport} applies to coupled only")
        extra["transport"] = args.transport
    report = fn(args.out, quick=args.quick, workers=args.workers, progress=progress, **extra)
    print(f"cosched reproduce {args.name}: report in {report}")
    return 0
