"""Experiments as data: one model, one runner, one store, one report builder.

* :mod:`~cosched.experiments.model`: an experiment spec (TOML) expanding into cells;
* :mod:`~cosched.experiments.runner`: runs the missing cells on an executor;
* :mod:`~cosched.experiments.executors`: this process, a local pool, or Dask;
* :mod:`~cosched.experiments.store`: one Parquet file per cell, ``results.parquet``;
* :mod:`~cosched.experiments.report`: ``report.md`` / ``report.html`` from the store;
* :mod:`~cosched.experiments.sweep`: workloads x policies x seeds sweeps on that runner;
* :mod:`~cosched.experiments.traces`: traces by archive name, fetched and verified.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cosched._lazy import lazy_getattr

if TYPE_CHECKING:
    from cosched.experiments.model import Experiment, experiment_from_dict, load_experiment
    from cosched.experiments.runner import ExperimentError, run_experiment
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

# Loaded on first use, so that the command line's --help and the light modules of this
# package (``reproductions``: the spec names) do not load pandas and the engine.
_EXPORTS = {
    "Experiment": "cosched.experiments.model",
    "experiment_from_dict": "cosched.experiments.model",
    "load_experiment": "cosched.experiments.model",
    "ExperimentError": "cosched.experiments.runner",
    "run_experiment": "cosched.experiments.runner",
    "BUNDLED_PREFIX": "cosched.experiments.sweep",
    "Cell": "cosched.experiments.sweep",
    "PolicySpec": "cosched.experiments.sweep",
    "SweepError": "cosched.experiments.sweep",
    "SweepSpec": "cosched.experiments.sweep",
    "WorkloadSpec": "cosched.experiments.sweep",
    "cells": "cosched.experiments.sweep",
    "load_spec": "cosched.experiments.sweep",
    "run_sweep": "cosched.experiments.sweep",
    "spec_from_dict": "cosched.experiments.sweep",
}

__all__ = [
    "BUNDLED_PREFIX",
    "Cell",
    "Experiment",
    "ExperimentError",
    "PolicySpec",
    "SweepError",
    "SweepSpec",
    "WorkloadSpec",
    "cells",
    "experiment_from_dict",
    "load_experiment",
    "load_spec",
    "run_experiment",
    "run_sweep",
    "spec_from_dict",
]


__getattr__ = lazy_getattr(__name__, _EXPORTS)
