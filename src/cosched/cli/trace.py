"""``cosched trace fetch NAME``: download a Parallel Workloads Archive log, verified."""

from __future__ import annotations

import argparse
from pathlib import Path

from cosched.cli._parser import Handler

__all__ = ["PARSERS"]


def _fetch_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="the archive file name (see `cosched trace list`)")
    p.add_argument("--dest", type=Path, help="folder to store it in (default: the cache)")


def _fetch(args: argparse.Namespace) -> int:
    from cosched.experiments.traces import fetch

    path = fetch(args.name, dest=args.dest)
    print(f"cosched trace fetch: {path} (checksum verified)")
    return 0


def _list(args: argparse.Namespace) -> int:
    from cosched.errors import ConfigError
    from cosched.experiments.traces import find_trace, known

    for name in known():
        try:
            where = str(find_trace(name))
        except ConfigError:
            where = "(not found locally)"
        print(f"{name}  {where}")
    return 0


#: ``cosched trace fetch`` and ``cosched trace list`` (their texts:
#: :mod:`cosched.cli.commands`).
PARSERS = {"trace fetch": Handler(_fetch, _fetch_arguments), "trace list": Handler(_list)}
