"""The registry of paper reproductions run by ``cosched reproduce NAME``.

Each reproduction is a function ``run(out, *, quick, workers, progress) -> Path`` that
writes ``out/report.md`` (figures and the paper's numbers beside cosched's) and
``out/summary.json`` (one record per configuration, with the core metric names), and
returns the report's path. Entries name the function by ``module:function`` so that
importing the registry imports no family.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from cosched.errors import UnknownNameError

__all__ = ["REPRODUCTIONS", "Reproduction", "reproduction"]


class Reproduction(Protocol):
    """The signature every reproduction function has."""

    def __call__(
        self,
        out: Path,
        *,
        quick: bool,
        workers: int,
        progress: Callable[[str], None] | None,
    ) -> Path: ...


#: name -> "module:function"
REPRODUCTIONS: dict[str, str] = {
    "coupled": "cosched.coupled.reproduce:run",
    "dyncosched": "cosched.timesharing.reproduce:run",
    "lomarc": "cosched.lomarc.reproduce:run",
    "nodeshare": "cosched.nodeshare.reproduce:run",
}


def reproduction(name: str) -> Reproduction:
    """The reproduction function registered as ``name``."""
    try:
        target = REPRODUCTIONS[name]
    except KeyError:
        raise UnknownNameError("reproduction", name, REPRODUCTIONS) from None
    module, _, func = target.partition(":")
    fn: Reproduction = getattr(importlib.import_module(module), func)
    return fn
