"""The one way a command (or a command's verb) is added to the command line."""

from __future__ import annotations

import argparse

__all__ = ["command", "verbs"]


def command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help: str,
    *examples: str,
    description: str | None = None,
) -> argparse.ArgumentParser:
    """Add ``name`` to ``sub``: ``help`` in its parent's list, ``description`` atop its own
    ``--help`` and ``examples`` (command lines, shown as written) in an ``examples:``
    epilog below it."""
    return sub.add_parser(
        name,
        help=help,
        description=description,
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def verbs(
    parent: argparse.ArgumentParser, dest: str, metavar: str
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """The sub-commands of ``parent``, one of which a command line must name (stored in
    ``dest``, shown as ``metavar`` in the usage line)."""
    sub = parent.add_subparsers(dest=dest, metavar=metavar)
    sub.required = True
    return sub
