"""Time sharing, declared for the shared commands (:mod:`cosched.families`)."""

from __future__ import annotations

from cosched.families import Family

__all__ = ["FAMILY"]

FAMILY = Family(
    name="timesharing",
    papers={
        "dyncosched": "dynamic-coscheduling-cluster-simulation",
        "fcs": "flexible-coscheduling-fcs",
    },
    profiles={"dyncosched": "cosched.workload.profiles.dyncosched:annotate_dyncosched"},
    causes="cosched.timesharing.causes:CAUSES",
    calibrations="cosched.timesharing.calibrations:CALIBRATIONS",
)
