"""Process-level time-sharing: per-node MLFQ, user-level messaging, gang scheduling, the
dynamic coscheduling family (dynamic-coscheduling-cluster-simulation.txt) and Flexible
CoScheduling (flexible-coscheduling-fcs.txt).

See docs/timesharing.md for the model, its parameters and the reproduction.

The names below load on first use: importing the package (for its family declaration,
:mod:`cosched.timesharing.family`) does not load the simulator and its kernels.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cosched.timesharing.engine import TimeSharingSim, TSResult, simulate
    from cosched.timesharing.metrics import BREAKDOWN, ts_summary
    from cosched.timesharing.params import (
        OTHER_SCHEMES,
        SCHEMES,
        SchemeFlags,
        TSParams,
        scheme_flags,
    )
    from cosched.timesharing.workloads import bsp_jobs, jobs_table, make_workload

__all__ = [
    "BREAKDOWN",
    "OTHER_SCHEMES",
    "SCHEMES",
    "SchemeFlags",
    "TSParams",
    "TSResult",
    "TimeSharingSim",
    "bsp_jobs",
    "jobs_table",
    "make_workload",
    "scheme_flags",
    "simulate",
    "ts_summary",
]

#: Where each public name lives (loaded by :func:`__getattr__`).
_HOME = {
    **dict.fromkeys(("TimeSharingSim", "TSResult", "simulate"), "engine"),
    **dict.fromkeys(("BREAKDOWN", "ts_summary"), "metrics"),
    **dict.fromkeys(
        ("OTHER_SCHEMES", "SCHEMES", "SchemeFlags", "TSParams", "scheme_flags"), "params"
    ),
    **dict.fromkeys(("bsp_jobs", "jobs_table", "make_workload"), "workloads"),
}


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
