"""Checks of command-line values shared by the commands: bounded whole numbers (an
argparse ``type``) and output files and folders that can be written, so that a bad
value is one line naming its flag, before any work."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from cosched.errors import ConfigError

__all__ = ["MAX_SIZE", "check_writable", "check_writable_dir", "count"]

#: The largest machine size a flag accepts: the SWF reader's bound on its integer fields
#: (``swf.MAX_EXACT_INT``, 2^53, the integers a float64 metric holds exactly; held equal
#: by a test, as importing the reader here would slow ``--help``), so a machine the
#: flags describe can also be written to and read back from an SWF header.
MAX_SIZE = 2**53


def count(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high`` (None: no bound).

    argparse puts the flag's name before the message, so ``--procs 1e20`` gives one line
    naming ``--procs``, before any work.
    """
    top = f"2^{high.bit_length() - 1}" if high and high & (high - 1) == 0 else str(high)
    span = f"from {low} to {top}" if high is not None else f">= {low}"

    def parse(text: str) -> int:
        try:
            value: int | None = int(text, 10)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be a whole number {span}, got {text!r}")
        return value

    parse.__name__ = "count"
    return parse


def check_writable(*paths: Path | None, flags: Sequence[str] = ()) -> None:
    """Raise ConfigError now, before any work, if an output file cannot be written.

    ``flags[i]``, when given, names the flag of ``paths[i]`` in the message. The file is
    opened for appending (and removed again if this made it): permission bits alone
    do not tell, for a root user, or on a read-only or special file system (``/proc``).
    """
    for i, path in enumerate(paths):
        if path is None:
            continue
        what = f"{flags[i]} {path}" if i < len(flags) else f"output {path}"
        parent = path.parent if str(path.parent) else Path(".")
        if path.is_dir():
            raise ConfigError(f"{what} is a directory")
        if parent.exists() and not parent.is_dir():
            raise ConfigError(f"{what}: {parent} is not a folder")
        if not parent.is_dir():
            raise ConfigError(f"{what}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise ConfigError(f"{what} cannot be written (permission denied)")
        if path.exists() and not path.is_file():
            continue  # a device or a pipe: opening it here could block or consume
        existed = path.exists()
        try:
            with path.open("ab"):
                pass
        except OSError as exc:
            raise ConfigError(f"{what} cannot be written ({exc.strerror or exc})") from None
        if not existed:
            path.unlink(missing_ok=True)


def check_writable_dir(path: Path, flag: str = "--out") -> None:
    """Create output folder ``path`` if needed and check that a file can be made in it;
    ConfigError naming ``flag`` otherwise (a file in its place, a folder that cannot be
    created or written)."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{flag} {path} exists and is not a folder")
    import tempfile  # only where a folder is checked: `cosched run` does not load it

    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".cosched-probe.", suffix=".tmp")
    except OSError as exc:
        raise ConfigError(f"{flag} {path} cannot be written ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)
