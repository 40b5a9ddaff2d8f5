"""What an installed package declares in one of cosched's entry-point groups, loaded
with a one-line error naming the entry point when it cannot be (never a traceback), and
what cosched itself declares there, read without :mod:`importlib.metadata`."""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING

from cosched.errors import ConfigError

if TYPE_CHECKING:
    import importlib.metadata

__all__ = ["load", "own", "resolve"]


def load(ep: importlib.metadata.EntryPoint, kind: str) -> object:
    """The object ``ep`` names, or a ConfigError: ``KIND entry point NAME (VALUE) failed
    to load: ...``."""
    try:
        return ep.load()
    except Exception as exc:  # a broken plugin is named, never a traceback
        raise ConfigError(
            f"{kind} entry point {ep.name!r} ({ep.value}) failed to load: {exc}"
        ) from exc


def resolve(value: str, name: str, kind: str) -> object:
    """The object ``value`` (``module:attribute``) names, as :func:`load` loads an entry
    point and with its error, without :mod:`importlib.metadata` (whose import costs a
    process about 40 ms): for a declaration a family makes by name."""
    import importlib

    module, _, attr = value.partition(":")
    try:
        got: object = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            got = getattr(got, part)
    except Exception as exc:  # a broken declaration is named, never a traceback
        raise ConfigError(f"{kind} entry point {name!r} ({value}) failed to load: {exc}") from exc
    return got


@functools.cache
def own(group: str) -> dict[str, str]:
    """The entry points cosched's own distribution declares in ``group``, name ->
    ``module:attribute``: its ``entry_points.txt``, in the first ``cosched-*.dist-info``
    folder on ``sys.path`` (where :mod:`importlib.metadata` finds it too), read as text.
    Importing :mod:`importlib.metadata` and scanning every package costs a process
    about 13 ms; this is one listing per path entry and one small file. Empty when
    cosched is not installed (a source tree on ``PYTHONPATH``).
    """
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("cosched-") and name.endswith(".dist-info"):
                path = os.path.join(entry or ".", name, "entry_points.txt")
                try:
                    with open(path, encoding="utf-8") as fh:
                        return _section(fh.read(), group)
                except OSError:
                    return {}
    return {}


def _section(text: str, group: str) -> dict[str, str]:
    """``name = value`` lines of the ``[group]`` section of an entry_points.txt."""
    out: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            inside = line == f"[{group}]"
        elif inside and "=" in line:
            name, _, value = line.partition("=")
            out[name.strip()] = value.strip()
    return out
