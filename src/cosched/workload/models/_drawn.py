"""The draws the stand-in models share: run times scaled to a load, estimates, arrivals."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from cosched.errors import ConfigError


def check_counts(model: str, positive: Iterable[tuple[str, float]], jobs: int) -> None:
    """Refuse a stand-in ``model``'s parameters: each ``(name, value)`` of ``positive``
    must be a number > 0 and ``jobs`` an integer >= 1 (a ConfigError naming it)."""
    for name, value in positive:
        if not (np.isfinite(value) and value > 0):
            raise ConfigError(f"{model}: {name} must be a number > 0, got {value!r}")
    if not (isinstance(jobs, int) and jobs >= 1):
        raise ConfigError(f"{model}: jobs must be an integer >= 1, got {jobs!r}")


def check_accuracy(model: str, accuracy: float) -> None:
    """Refuse a stand-in ``model``'s lowest run / estimate ratio outside (0, 1]."""
    if not 0.0 < accuracy <= 1.0:
        raise ConfigError(f"{model}: accuracy must be in (0, 1], got {accuracy!r}")


def drawn_jobs(
    rng: np.random.Generator,
    nodes: np.ndarray,
    *,
    cores: int,
    capacity: int,
    load: float,
    span: float,
    sigma: float,
    accuracy: float,
) -> pd.DataFrame:
    """A job table of the given node counts (whole nodes of ``cores``).

    Run times are log-normal (shape ``sigma``), scaled so that the jobs carry ``load`` of
    ``capacity`` nodes over ``span`` seconds exactly (then rounded to whole seconds, at
    least 1); each estimate is the run time over a uniform accuracy in ``[accuracy, 1]``;
    arrivals are uniform over ``span`` (a Poisson process conditioned on the count),
    sorted, the first at 0. The draws are taken from ``rng`` in that order.
    """
    jobs = len(nodes)
    run = rng.lognormal(0.0, sigma, size=jobs)
    run *= load * capacity * span / float(np.dot(run, nodes))
    run = np.maximum(np.round(run), 1.0)
    requested = np.ceil(run / rng.uniform(accuracy, 1.0, size=jobs))
    submit = np.sort(np.round(rng.uniform(0.0, span, size=jobs)))
    return pd.DataFrame(
        {
            "job_id": np.arange(1, jobs + 1),
            "submit_time": submit - submit[0],
            "procs": nodes * cores,
            "run_time": run,
            "requested_time": requested,
        }
    )
