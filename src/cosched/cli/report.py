"""``cosched report DIR``: rebuild report.md and report.html from a store."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

from cosched.cli._parser import command

__all__ = ["register", "report_with_warnings"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``report`` to the command line."""
    p = command(
        sub,
        "report",
        "rebuild an experiment's or a comparison's report from its results",
        "cosched report coupled-quick",
        "cosched report answer",
        description="Rebuild DIR/report.md and DIR/report.html from DIR/results.parquet "
        "(a sweep or reproduction) or from DIR/plan.json and DIR/store (a `cosched "
        "compare`) alone: no cell is run.",
    )
    p.add_argument("dir", type=Path, help="the store folder of a sweep, reproduction or comparison")
    p.set_defaults(func=_report)


def report_with_warnings(build: Callable[[Path], Path], out: Path, command: str) -> Path:
    """Build a comparison's report; a figure that could not be drawn (the report has a
    note in its place) becomes one ``cosched COMMAND: warning:`` line on stderr."""
    from cosched.compare.render import FigureWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FigureWarning)
        path = build(out)
    for w in caught:
        if issubclass(w.category, FigureWarning):
            print(f"cosched {command}: warning: {w.message}", file=sys.stderr)
        else:  # not ours: pass it on as if it had not been caught
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return path


def _report(args: argparse.Namespace) -> int:
    if (args.dir / "plan.json").is_file():
        from cosched.compare.study import build_report as build_comparison

        md = report_with_warnings(build_comparison, args.dir, "report")
        print(f"cosched report: {md} and {md.with_suffix('.html')}")
        return 0
    from cosched.experiments.report import build_report

    md = build_report(args.dir)
    print(f"cosched report: {md} and {md.with_suffix('.html')}")
    return 0
