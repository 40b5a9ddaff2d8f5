"""The ``cosched`` command: parses, calls the library, maps errors to exit codes.

Exit codes: 0 success, 2 bad input or configuration (a :class:`CoschedError`, printed
as one line on stderr; also running out of memory), 130 interrupted, 141 output pipe
closed (``| head``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from cosched.cli._parser import add, verbs
from cosched.cli.commands import COMMANDS
from cosched.errors import CoschedError

__all__ = ["COMMANDS", "build_parser", "entry", "main"]

#: Commands whose process may end without Python's teardown (see :func:`entry`).
QUICK_EXIT = frozenset({"run"})


class _Version(argparse.Action):
    """``--version``, reading the installed version only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from cosched import __version__

        print(f"cosched {__version__}")
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every command of :data:`COMMANDS` added, or, when
    ``argv`` starts with a command's name, with that command alone (the modules of
    ``cosched.cli`` it names are the only ones imported).

    A command line such as ``run TRACE ...`` parses the same either way (argparse reads
    only the named command's own parser); every other one (``--help``, ``--version``,
    no command, an unknown command) gets every command, so the top-level help and
    errors list them all. Importing the ten modules and adding their commands cost about a tenth
    of a ``cosched run`` on SDSC-SP2 (docs/performance.md, "The fixed cost of a run").
    """
    parser = argparse.ArgumentParser(
        prog="cosched",
        description="Simulate parallel-job scheduling and coscheduling on HPC clusters.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    sub = verbs(parser, "command", "COMMAND")
    first = argv[0] if argv else None
    for cmd in [c for c in COMMANDS if c.name == first] or COMMANDS:
        add(sub, cmd)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: the process's); returns the exit code."""
    code, _ = _main(argv)
    return code


#: The exit code of an interrupted command (Ctrl-C), as shells report SIGINT.
INTERRUPTED = 130

#: Set by the command (:func:`entry`) where the environment does not: numpy's OpenBLAS
#: starts a thread per core when numpy loads, and each spins waiting for work for
#: about a tenth of a second of CPU; no command runs multithreaded linear algebra, and
#: a sweep's workers share the cores (docs/performance.md, "The fixed cost of a run").
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}


def entry() -> None:
    """The ``cosched`` console script and ``python -m cosched``: :func:`main`, then exit.

    After ``cosched run`` the process ends at once (``os._exit``, once stdout and
    stderr are flushed; the command has closed its files): Python's orderly teardown
    frees every object one by one and shuts numba's compiler down, 0.2-0.4 s of CPU
    that nobody sees the result of (docs/performance.md). So does any command
    interrupted (exit 130), once it has kept its finished results: a process pool's
    workers are stopped mid-cell, and one stopped while sending a result leaves the
    message half written, which the pool's manager thread would wait for at exit for
    ever.

    Before numpy loads, OpenBLAS is asked for one thread (:data:`BLAS_THREADS`) unless
    the environment already names a number.
    """
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    code, command = _main(None)
    if command in QUICK_EXIT or code == INTERRUPTED:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            code = 141
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def _main(argv: Sequence[str] | None) -> tuple[int, str | None]:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    return _dispatch(args), args.command


def _dispatch(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except CoschedError as exc:
        print(f"cosched: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        # A machine or workload too large for this computer (``--nodes 2**50`` with a
        # policy that keeps per-node state): one line, not a traceback.
        print("cosched: error: out of memory (a smaller machine or workload may fit)",
              file=sys.stderr)  # fmt: skip
        return 2
    except KeyboardInterrupt:
        print("cosched: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``cosched policies | head``): stop quietly, as Unix tools
        # do, and keep Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
