"""``cosched report DIR``: rebuild report.md and report.html from a store."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``report`` to the command line."""
    p = sub.add_parser(
        "report",
        help="rebuild an experiment's report from its results",
        description="Rebuild DIR/report.md and DIR/report.html from DIR/results.parquet "
        "alone (no cell is run).",
        epilog="examples:\n  cosched report coupled-quick\n  cosched report sweep-out",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("dir", type=Path, help="the store folder of a sweep or reproduction")
    p.set_defaults(func=_report)


def _report(args: argparse.Namespace) -> int:
    from cosched.experiments.report import build_report

    md = build_report(args.dir)
    print(f"cosched report: {md} and {md.with_suffix('.html')}")
    return 0
