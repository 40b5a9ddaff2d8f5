"""The one way a command (or a command's verb) is added to the command line."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import NamedTuple

from cosched.cli.commands import Command

__all__ = ["Handler", "add", "verbs"]


class Handler(NamedTuple):
    """What a module of ``cosched.cli`` gives a command of
    :data:`~cosched.cli.commands.COMMANDS` (in its ``PARSERS``, keyed by the command's
    words): the function that runs a parsed command line and returns the exit code, and
    the one that adds the command's arguments (none: it takes none)."""

    run: Callable[[argparse.Namespace], int]
    arguments: Callable[[argparse.ArgumentParser], object] | None = None


def add(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    cmd: Command,
    words: tuple[str, ...] = (),
) -> None:
    """Add ``cmd`` (under the words ``words``) to ``sub``: ``help`` in its parent's list,
    ``description`` atop its own ``--help`` and ``examples`` (shown as written) in an
    ``examples:`` epilog below it; then its verbs, or its module's arguments and the
    function that runs it."""
    p = sub.add_parser(
        cmd.name,
        help=cmd.help,
        description=cmd.description,
        epilog="examples:\n" + "\n".join(f"  {e}" for e in cmd.examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    words = (*words, cmd.name)
    if cmd.verbs:
        under = verbs(p, cmd.dest, cmd.metavar)
        for verb in cmd.verbs:
            add(under, verb, words)
        return
    module = importlib.import_module(f"cosched.cli.{cmd.module}")
    handler: Handler = module.PARSERS[" ".join(words)]
    if handler.arguments is not None:
        handler.arguments(p)
    p.set_defaults(func=handler.run)


def verbs(
    parent: argparse.ArgumentParser, dest: str, metavar: str
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """The sub-commands of ``parent``, one of which a command line must name (stored in
    ``dest``, shown as ``metavar`` in the usage line)."""
    sub = parent.add_subparsers(dest=dest, metavar=metavar)
    sub.required = True
    return sub
