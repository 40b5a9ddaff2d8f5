"""Experiments as data: one model, one runner, one store, one report builder.

* :mod:`~cosched.experiments.model`: an experiment spec (TOML) expanding into cells;
* :mod:`~cosched.experiments.runner`: runs the missing cells on an executor;
* :mod:`~cosched.experiments.executors`: this process, a local pool, or Dask;
* :mod:`~cosched.experiments.store`: one Parquet file per cell, ``results.parquet``;
* :mod:`~cosched.experiments.report`: ``report.md`` / ``report.html`` from the store;
* :mod:`~cosched.experiments.sweep`: workloads x policies x seeds sweeps on that runner;
* :mod:`~cosched.experiments.traces`: traces by archive name, fetched and verified.
"""

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
