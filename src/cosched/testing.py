"""Conformance checks every scheduling policy must pass, for cosched's tests and yours.

Each check takes a policy class (registered or not) and raises
:class:`ConformanceError` naming the policy and what broke. cosched's own suite runs
them over every registered policy (``tests/conformance``); a plugin author can call
them from their own tests::

    from cosched.testing import check_policy
    check_policy(MyPolicy, workload)  # jobs that fit the eight nodes it builds

The machine and the profile columns each check uses come from the policy's
:attr:`~cosched.policies.base.Policy.requires`, exactly as ``cosched run`` builds them.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

import numpy as np

from cosched.engine.invariants import verify_placements, verify_schedule
from cosched.engine.simulation import Simulation, SimulationResult
from cosched.errors import CoschedError
from cosched.platform import Platform
from cosched.policies.base import Policy
from cosched.policies.requirements import MachineFlags, fit_workload
from cosched.workload.job import Workload

__all__ = [
    "ConformanceError",
    "check_deterministic",
    "check_feasible",
    "check_picklable",
    "check_policy",
    "machine_for",
    "run_policy",
]


class ConformanceError(AssertionError):
    """A policy broke a rule every policy must keep."""


def machine_for(
    cls: type[Policy], workload: Workload, *, nodes: int = 8, seed: int = 0
) -> tuple[Workload, Platform]:
    """``workload`` with the profiles ``cls`` needs, on a machine of ``nodes`` nodes."""
    w, platform, _ = fit_workload(cls.requires, workload, MachineFlags(nodes=nodes), seed=seed)
    return w, platform


def run_policy(
    policy: Policy, workload: Workload, platform: Platform, *, seed: int = 0, check: bool = True
) -> SimulationResult:
    """One simulation with the engine's own checks on, failures as ConformanceError."""
    try:
        sim = Simulation(workload, platform, policy, rng=np.random.default_rng(seed), check=check)
        return sim.run()
    except CoschedError as exc:
        raise ConformanceError(f"policy {policy.name!r}: {type(exc).__name__}: {exc}") from exc


def check_feasible(
    cls: type[Policy], workload: Workload, platform: Platform, **params: Any
) -> SimulationResult:
    """Every job starts once, after its submission, ends once; no unit, node slot or job
    cap is ever over-committed (checked by the engine and again from the results)."""
    result = run_policy(cls(**params), workload, platform)
    try:
        verify_schedule(result.jobs, capacity=_capacity(result, platform), exact_rates=False)
        if platform.shared:
            verify_placements(result.jobs, result.placements, platform)
    except CoschedError as exc:
        raise ConformanceError(f"policy {cls.name!r}: {exc}") from exc
    return result


def _capacity(result: SimulationResult, platform: Platform) -> int:
    # On a shared platform several jobs hold a node's units at once: the nominal sizes
    # may add up past the capacity, and the placement check is the one that counts.
    if platform.shared:
        return platform.capacity * platform.cores * platform.mpl
    return platform.capacity


def _table_bytes(result: SimulationResult) -> bytes:
    buf = io.BytesIO()
    result.jobs.to_csv(buf, index=False, float_format="%.17g")
    return buf.getvalue()


def check_deterministic(
    cls: type[Policy], workload: Workload, platform: Platform, **params: Any
) -> None:
    """Two runs with the same inputs and seed give byte-identical job tables."""
    a = run_policy(cls(**params), workload, platform, seed=3, check=False)
    b = run_policy(cls(**params), workload, platform, seed=3, check=False)
    if _table_bytes(a) != _table_bytes(b):
        diff = (a.jobs != b.jobs).any(axis=1)
        first = int(a.jobs["job_id"][diff].iloc[0]) if diff.any() else -1
        raise ConformanceError(
            f"policy {cls.name!r} is not deterministic: two runs with seed 3 differ "
            f"(first at job {first})"
        )


def check_picklable(
    cls: type[Policy], workload: Workload, platform: Platform, **params: Any
) -> None:
    """A fresh policy and a used one survive a pickle round trip, and the copy of the
    fresh one schedules exactly as the original (what a process pool relies on)."""
    fresh = cls(**params)
    try:
        copy = pickle.loads(pickle.dumps(fresh))
    except Exception as exc:
        raise ConformanceError(f"policy {cls.name!r} cannot be pickled: {exc}") from exc
    used = cls(**params)
    run_policy(used, workload, platform, check=False)
    try:
        pickle.loads(pickle.dumps(used))
    except Exception as exc:
        raise ConformanceError(f"policy {cls.name!r} cannot be pickled after a run: {exc}") from exc
    a = run_policy(fresh, workload, platform, check=False)
    b = run_policy(copy, workload, platform, check=False)
    if _table_bytes(a) != _table_bytes(b):
        raise ConformanceError(f"policy {cls.name!r} schedules differently after unpickling")


def check_policy(cls: type[Policy], workload: Workload, **params: Any) -> None:
    """All the checks above on ``workload`` (profiles and machine from ``cls.requires``)."""
    w, platform = machine_for(cls, workload)
    check_feasible(cls, w, platform, **params)
    check_deterministic(cls, w, platform, **params)
    check_picklable(cls, w, platform, **params)
