"""Experiments: declarative, resumable parameter sweeps over workloads and policies."""

from cosched.experiments.sweep import (
    BUNDLED_PREFIX,
    Cell,
    PolicySpec,
    SweepError,
    SweepSpec,
    WorkloadSpec,
    cells,
    load_spec,
    run_sweep,
    spec_from_dict,
)

__all__ = [
    "BUNDLED_PREFIX",
    "Cell",
    "PolicySpec",
    "SweepError",
    "SweepSpec",
    "WorkloadSpec",
    "cells",
    "load_spec",
    "run_sweep",
    "spec_from_dict",
]
