"""``cosched report DIR``: rebuild report.md and report.html from a store."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``report`` to the command line."""
    p = sub.add_parser(
        "report",
        help="rebuild an experiment's or a comparison's report from its results",
        description="Rebuild DIR/report.md and DIR/report.html from DIR/results.parquet "
        "(a sweep or reproduction) or from DIR/plan.json and DIR/store (a `cosched "
        "compare`) alone: no cell is run.",
        epilog="examples:\n  cosched report coupled-quick\n  cosched report answer",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("dir", type=Path, help="the store folder of a sweep, reproduction or comparison")
    p.set_defaults(func=_report)


def _report(args: argparse.Namespace) -> int:
    if (args.dir / "plan.json").is_file():
        from cosched.compare.study import build_report as build_comparison

        md = build_comparison(args.dir)
        print(f"cosched report: {md} and {md.with_suffix('.html')}")
        return 0
    from cosched.experiments.report import build_report

    md = build_report(args.dir)
    print(f"cosched report: {md} and {md.with_suffix('.html')}")
    return 0
