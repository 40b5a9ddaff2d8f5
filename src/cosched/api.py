"""One-call entry points for scripts and notebooks."""

from __future__ import annotations

from typing import Any

import numpy as np

from cosched.engine.simulation import Estimates, RateModel, SimulationResult
from cosched.engine.simulation import simulate as _simulate
from cosched.errors import ConfigError
from cosched.platform import Platform
from cosched.policies.base import Policy, make_policy
from cosched.workload.job import Workload

__all__ = ["simulate"]


def simulate(
    workload: Workload,
    platform: Platform,
    policy: Policy | str,
    *,
    estimates: Estimates = "requested",
    rate_model: RateModel | None = None,
    rng: np.random.Generator | None = None,
    check: bool = False,
    **params: Any,
) -> SimulationResult:
    """Run one policy: an instance, or a name (``easy``, ``file.py:Class``, ...) with params.

    Raises:
        UnknownPolicyError: no policy of that name (close names are listed).
        ConfigError: an unknown or invalid parameter.
    """
    if isinstance(policy, str):
        policy = make_policy(policy, **params)
    elif params:
        raise ConfigError("pass parameters either in the policy instance or as keywords")
    return _simulate(
        workload, platform, policy, estimates=estimates, rate_model=rate_model, rng=rng, check=check
    )
