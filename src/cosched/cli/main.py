"""The ``cosched`` command: parses, calls the library, maps errors to exit codes.

Exit codes: 0 success, 2 bad input or configuration (a :class:`CoschedError`, printed
as one line on stderr), 130 interrupted, 141 output pipe closed (``| head``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from cosched.cli import (
    annotate,
    compare,
    coupled,
    generate,
    report,
    reproduce,
    run,
    sweep,
    traceinfo,
    validate,
)
from cosched.errors import CoschedError

__all__ = ["build_parser", "main"]


class _Version(argparse.Action):
    """``--version``, reading the installed version only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from cosched import __version__

        print(f"cosched {__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="cosched",
        description="Simulate parallel-job scheduling and coscheduling on HPC clusters.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    modules = (
        run, compare, validate, traceinfo, generate, annotate, sweep, reproduce, report, coupled
    )  # fmt: skip
    for module in modules:
        module.register(sub)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cosched`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except CoschedError as exc:
        print(f"cosched: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cosched: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``cosched policies | head``): stop quietly, as Unix tools
        # do, and keep Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
