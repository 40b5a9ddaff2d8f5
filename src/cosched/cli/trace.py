"""``cosched trace fetch NAME``: download a Parallel Workloads Archive log, verified."""

from __future__ import annotations

import argparse
from pathlib import Path

from cosched.cli._parser import command

__all__ = ["add_verbs"]


def add_verbs(verbs: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``fetch`` and ``list`` under ``cosched trace``."""
    f = command(
        verbs,
        "fetch",
        "download an archive log into the cache and verify its SHA-256 (refused on mismatch)",
        "cosched trace fetch KTH-SP2-1996-2.1-cln.swf.gz",
        "cosched trace fetch RICC-2010-2.swf.gz --dest ../shared/traces",
        description="Download a Parallel Workloads Archive log into $COSCHED_DATA (else the "
        "user cache folder) and verify it against the checksum table shipped with cosched.",
    )
    f.add_argument("name", help="the archive file name (see `cosched trace list`)")
    f.add_argument("--dest", type=Path, help="folder to store it in (default: the cache)")
    f.set_defaults(func=_fetch)
    ls = command(
        verbs,
        "list",
        "the archive logs cosched knows, and where each is found locally",
        "cosched trace list",
        "COSCHED_TRACES=~/traces cosched trace list",
    )
    ls.set_defaults(func=_list)


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
