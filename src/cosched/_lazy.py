"""A package's names loaded on first use (PEP 562), so that importing a light module of
the package does not load what its heavy modules need."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The module-level ``__getattr__`` of ``package``: each name of ``homes`` is read,
    when first asked for, from its module there (relative to ``package`` where it starts
    with a dot); any other name is an :class:`AttributeError`."""

    def __getattr__(name: str) -> Any:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module, package), name)

    return __getattr__
