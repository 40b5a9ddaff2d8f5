"""Jobs and workloads: the record, SWF input/output, loader rules and transforms."""

from cosched.workload.job import SWF_FIELDS, Job, Workload
from cosched.workload.loader import (
    DEFAULT_RULES,
    LoadRules,
    NonpositiveRun,
    Overrun,
    ProcsField,
    TooWide,
    load_workload,
    load_workload_with_report,
)
from cosched.workload.swf import SwfHeader, SwfTrace, read_swf, write_swf
from cosched.workload.transforms import (
    filter_jobs,
    first_n,
    merge,
    offered_load,
    rebase,
    scale_arrivals,
    scale_to_load,
    shift,
    time_window,
    window,
)

__all__ = [
    "DEFAULT_RULES",
    "SWF_FIELDS",
    "Job",
    "LoadRules",
    "NonpositiveRun",
    "Overrun",
    "ProcsField",
    "SwfHeader",
    "SwfTrace",
    "TooWide",
    "Workload",
    "filter_jobs",
    "first_n",
    "load_workload",
    "load_workload_with_report",
    "merge",
    "offered_load",
    "read_swf",
    "rebase",
    "scale_arrivals",
    "scale_to_load",
    "shift",
    "time_window",
    "window",
    "write_swf",
]
