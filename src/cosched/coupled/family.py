"""Coupled machines, declared for the shared commands (:mod:`cosched.families`)."""

from __future__ import annotations

from cosched.families import Family

__all__ = ["FAMILY"]

FAMILY = Family(
    name="coupled",
    papers={"coupled": "coupled-systems-coscheduling"},
    profiles={"coupled": "cosched.workload.profiles.coupled:annotate_coupled"},
    causes="cosched.coupled.causes:CAUSES",
    calibrations="cosched.coupled.calibrations:CALIBRATIONS",
)
