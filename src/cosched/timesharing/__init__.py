"""Process-level time-sharing: per-node MLFQ, user-level messaging, gang scheduling and
the dynamic coscheduling family (dynamic-coscheduling-cluster-simulation.txt).

See docs/timesharing.md for the model, its parameters and the reproduction.
"""

from cosched.timesharing.engine import TimeSharingSim, TSResult, simulate
from cosched.timesharing.metrics import BREAKDOWN, ts_summary
from cosched.timesharing.params import SCHEMES, SchemeFlags, TSParams, scheme_flags
from cosched.timesharing.workloads import jobs_table, make_workload

__all__ = [
    "BREAKDOWN",
    "SCHEMES",
    "SchemeFlags",
    "TSParams",
    "TSResult",
    "TimeSharingSim",
    "jobs_table",
    "make_workload",
    "scheme_flags",
    "simulate",
    "ts_summary",
]
