"""Jobs and workloads: the record, SWF input/output, loader rules and transforms.

The names below are loaded on first use (PEP 562), so that importing a light module
of this package (``cosched.workload.rules``) does not load pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cosched._lazy import lazy_getattr

if TYPE_CHECKING:
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
    from cosched.workload.swf import SwfHeader, SwfTrace, read_swf
    from cosched.workload.swf_write import write_swf
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

_EXPORTS = {
    "SWF_FIELDS": "cosched.workload.job",
    "Job": "cosched.workload.job",
    "Workload": "cosched.workload.job",
    "DEFAULT_RULES": "cosched.workload.loader",
    "LoadRules": "cosched.workload.loader",
    "NonpositiveRun": "cosched.workload.loader",
    "Overrun": "cosched.workload.loader",
    "ProcsField": "cosched.workload.loader",
    "TooWide": "cosched.workload.loader",
    "load_workload": "cosched.workload.loader",
    "load_workload_with_report": "cosched.workload.loader",
    "SwfHeader": "cosched.workload.swf",
    "SwfTrace": "cosched.workload.swf",
    "read_swf": "cosched.workload.swf",
    "write_swf": "cosched.workload.swf_write",
    "filter_jobs": "cosched.workload.transforms",
    "first_n": "cosched.workload.transforms",
    "merge": "cosched.workload.transforms",
    "offered_load": "cosched.workload.transforms",
    "rebase": "cosched.workload.transforms",
    "scale_arrivals": "cosched.workload.transforms",
    "scale_to_load": "cosched.workload.transforms",
    "shift": "cosched.workload.transforms",
    "time_window": "cosched.workload.transforms",
    "window": "cosched.workload.transforms",
}

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


__getattr__ = lazy_getattr(__name__, _EXPORTS)
