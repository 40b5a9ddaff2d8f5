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

__all__ = ["build_parser", "entry", "main"]

#: Commands whose process may end without Python's teardown (see :func:`entry`).
QUICK_EXIT = frozenset({"run"})


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
    """Run the command line ``argv`` (default: the process's); returns the exit code."""
    code, _ = _main(argv)
    return code


def entry() -> None:
    """The ``cosched`` console script and ``python -m cosched``: :func:`main`, then exit.

    After ``cosched run`` the process ends at once (``os._exit``, once stdout and
    stderr are flushed; the command has closed its files): Python's orderly teardown
    frees every object one by one and shuts numba's compiler down, 0.2-0.4 s of CPU
    that nobody sees the result of (docs/performance.md).
    """
    code, command = _main(None)
    if command in QUICK_EXIT:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            code = 141
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def _main(argv: Sequence[str] | None) -> tuple[int, str | None]:
    parser = build_parser()
    args = parser.parse_args(argv)
    return _dispatch(args), args.command


def _dispatch(args: argparse.Namespace) -> int:
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
