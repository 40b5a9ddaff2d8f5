"""``cosched report DIR``: rebuild report.md and report.html from a store."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

from cosched.cli._parser import Handler

__all__ = ["PARSERS", "report_with_warnings"]


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", type=Path, help="the store folder of a sweep, reproduction or comparison")


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


#: ``cosched report`` (its texts: :mod:`cosched.cli.commands`).
PARSERS = {"report": Handler(_report, _arguments)}
