"""A machine in partitions that share no nodes: one simulation per partition, merged.

A site that splits its nodes into partitions (Slurm's partitions, SWF field 16) runs each
partition's jobs on that partition's nodes alone. :func:`simulate_partitioned` runs each
partition as its own machine (the same node shape, the partition's node count), with a
fresh policy of the same configuration, and merges the results into one: every job once,
in the workload's order; node numbers of a partition after those of the partitions before
it; per-user limits count within a partition, as each simulation sees its own jobs. This
is exact for partitions that share no nodes, and it reuses every policy and compiled pass
unchanged (the alternative, one machine whose jobs each see a subset of its units, is
rejected in docs/design/engine.md).

``cosched validate --fit`` (``partitions=on``) and ``cosched compare``'s arms under a
fitted baseline's partitions (``[platform].partitions``) both run through it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cosched.errors import ConfigError

if TYPE_CHECKING:
    from cosched.engine.simulation import SimulationResult
    from cosched.platform.machine import Platform
    from cosched.policies.base import Policy
    from cosched.workload.job import Workload

__all__ = ["partition_index", "simulate_partitioned"]


def partition_index(values: np.ndarray, partitions: Sequence[float]) -> np.ndarray:
    """Each job's index into ``partitions`` (SWF field 16 values, -1 for a job without
    one; NaN in ``values`` is -1).

    Raises:
        ConfigError: a job's partition is not among ``partitions``.
    """
    v = np.where(np.isnan(values), -1.0, values.astype(np.float64))
    keys = np.asarray(partitions, dtype=np.float64)
    order = np.argsort(keys)
    pos = np.searchsorted(keys[order], v)
    pos = np.minimum(pos, len(keys) - 1)
    found = keys[order][pos] == v
    if not found.all():
        bad = v[~found][0]
        shown = "none" if bad < 0 else f"{bad:g}"
        raise ConfigError(
            f"a job's partition ({shown}, SWF field 16) is not among the machine's partitions "
            f"({', '.join('none' if k < 0 else f'{k:g}' for k in keys)})"
        )
    return np.asarray(order[pos], dtype=np.int64)


def simulate_partitioned(
    workload: Workload,
    platform: Platform,
    make_policy: Callable[[], Policy],
    group: np.ndarray,
    nodes: Sequence[int],
    *,
    estimates: Any = "requested",
    rng: np.random.Generator | None = None,
) -> SimulationResult:
    """Simulate each partition alone and merge (see the module).

    Args:
        workload: the jobs.
        platform: the node shape (cores, allocation, mpl, job cap); its node count is
            replaced by each partition's.
        make_policy: a fresh policy of the configuration, made once per partition.
        group: each job's partition (an index into ``nodes``).
        nodes: each partition's node count.
        estimates: as :func:`cosched.engine.simulation.simulate`.
        rng: the generator; each partition draws from its own child (``spawn``).

    Returns:
        One result: the jobs of every partition in the workload's order, placements on
        nodes numbered partition after partition, engine counters and the policy's
        diagnostics summed, and the machine of all partitions' nodes.

    Raises:
        ConfigError: ``platform`` carries unavailability (read on the whole machine, it
            cannot be split among partitions), or a job's partition has no size.
    """
    from cosched.engine.simulation import SimulationResult, simulate

    if platform.unavailable:
        raise ConfigError(
            "unavailability read on the whole machine cannot be split among partitions"
        )
    group = np.asarray(group, dtype=np.int64)
    if len(group) != len(workload):
        raise ConfigError(f"{len(group)} partition numbers for {len(workload)} jobs")
    if len(group) and (group.min() < 0 or group.max() >= len(nodes)):
        raise ConfigError(f"a job's partition has no size (partitions 0 to {len(nodes) - 1})")
    rng = rng if rng is not None else np.random.default_rng(0)
    children = rng.spawn(len(nodes))
    frames: list[pd.DataFrame] = []
    placements: dict[int, Any] = {}
    stats: dict[str, int] = {}
    diagnostics: dict[str, float] = {}
    offset = 0
    name, params = "", {}
    for g, n in enumerate(nodes):
        mask = group == g
        where = np.flatnonzero(mask)
        if where.size:  # a prefix of a log may hold no job of a partition
            sub = workload.rows(mask, f"partition {g}")
            policy = make_policy()
            r = simulate(
                sub, replace(platform, nodes=int(n)), policy, estimates=estimates, rng=children[g]
            )
            frames.append(r.jobs.set_axis(where, axis=0))
            for i, placed in r.placements.items():
                placements[int(where[int(i)])] = tuple((node + offset, s) for node, s in placed)
            for k, v in r.stats.items():
                stats[k] = stats.get(k, 0) + int(v)
            for k, x in r.diagnostics.items():
                diagnostics[k] = diagnostics.get(k, 0.0) + float(x)
            name, params = r.policy, dict(r.params)
        offset += int(n)
    jobs = pd.concat(frames).sort_index().reset_index(drop=True) if frames else pd.DataFrame()
    return SimulationResult(
        jobs=jobs,
        platform=replace(platform, nodes=max(1, offset)),
        policy=name,
        params=params,
        workload=workload.name,
        stats=stats,
        placements=placements,
        diagnostics=diagnostics,
    )
