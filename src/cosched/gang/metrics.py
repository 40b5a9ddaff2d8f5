"""Per-job time-slicing columns of a gang run.

``suspended_time``: seconds between a job's start and end in which it was not in one
of its slots (its suspended share of each round, integrated over its life);
``suspended_fraction``: that over its execution time (end - start); ``switches``: the
times it was suspended (once per round in which it runs in one run of consecutive
slots, more when alternate scheduling splits its slots), in the fluid model's expected
count (a real count is an integer; ours is the round rate integrated over time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cosched.engine.simulation import SimulationResult
from cosched.errors import ConfigError
from cosched.gang.policies import Gang

if TYPE_CHECKING:  # importing the family (every gang run) loads no pandas
    import pandas as pd

__all__ = ["gang_columns"]


def gang_columns(result: SimulationResult, policy: Gang) -> pd.DataFrame:
    """``result.jobs`` with ``suspended_time``, ``suspended_fraction`` and ``switches``.

    Args:
        result: a finished run of ``policy``.
        policy: the (used) gang policy instance that produced ``result``.
    """
    if not isinstance(policy, Gang):
        raise ConfigError(f"gang_columns needs a gang policy, got {type(policy).__name__}")
    jobs = result.jobs
    n = len(jobs)
    if len(policy.suspended) != n:
        raise ConfigError(
            f"gang_columns: the policy saw {len(policy.suspended)} jobs finish, the result "
            f"has {n}; pass the policy instance that ran"
        )
    susp = np.array([policy.suspended[i] for i in range(n)], dtype=float)
    sw = np.array([policy.switches[i] for i in range(n)], dtype=float)
    execution = (jobs["end_time"] - jobs["start_time"]).to_numpy(dtype=float)
    frac = np.divide(susp, execution, out=np.zeros(n), where=execution > 0)
    return jobs.assign(suspended_time=susp, suspended_fraction=frac, switches=sw)
