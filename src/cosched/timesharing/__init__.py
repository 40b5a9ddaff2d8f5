"""Process-level time-sharing: per-node MLFQ, user-level messaging, gang scheduling, the
dynamic coscheduling family (dynamic-coscheduling-cluster-simulation.txt) and Flexible
CoScheduling (flexible-coscheduling-fcs.txt).

See docs/timesharing.md for the model, its parameters and the reproduction.
"""

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
