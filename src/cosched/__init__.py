"""cosched: simulate parallel-job scheduling and coscheduling on HPC clusters."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cosched.errors import CoschedError

if TYPE_CHECKING:
    from cosched.api import simulate
    from cosched.platform import Allocation, Platform
    from cosched.workload import Job, Workload


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cosched")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


__all__ = ["Allocation", "CoschedError", "Job", "Platform", "Workload", "__version__", "simulate"]


_LAZY = {
    "simulate": "cosched.api",
    "Allocation": "cosched.platform",
    "Platform": "cosched.platform",
    "Job": "cosched.workload",
    "Workload": "cosched.workload",
}


def __getattr__(name: str) -> object:
    # Loaded on first use (the engine, numpy, pandas), so ``import cosched`` and the
    # command line's ``--help`` stay cheap.
    if name == "__version__":
        return _version()  # importlib.metadata costs ~50 ms: only when asked
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'cosched' has no attribute {name!r}")
