"""A machine in partitions that share no nodes (:mod:`cosched.engine.partitions`): one
simulation per partition, merged. By hand on two partitions, then invariants on random
workloads."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cosched.engine.invariants import verify_placements, verify_schedule
from cosched.engine.partitions import partition_index, simulate_partitioned
from cosched.engine.simulation import simulate
from cosched.errors import ConfigError
from cosched.metrics.validate import peak_level
from cosched.platform import Platform
from cosched.policies.base import make_policy
from cosched.workload.job import Workload


def _hand() -> Workload:
    """Partition 0 (2 nodes): three 2-node jobs of 100 s at 0 s; partition 1 (2 nodes):
    one 1-node job of 100 s at 0 s."""
    return Workload.from_table(
        pd.DataFrame(
            {
                "job_id": [1, 2, 3, 4],
                "submit_time": [0.0, 0.0, 0.0, 0.0],
                "run_time": [100.0, 100.0, 100.0, 100.0],
                "requested_time": [100.0, 100.0, 100.0, 100.0],
                "procs": [2, 2, 2, 1],
            }
        )
    )


def test_two_partitions_by_hand() -> None:
    w = _hand()
    group = np.array([0, 0, 0, 1])
    r = simulate_partitioned(w, Platform(4), lambda: make_policy("easy"), group, (2, 2))
    # Partition 0's jobs each take its two nodes, one after another, while partition 1's
    # other node stays idle: 0, 100, 200; partition 1's job starts at once.
    assert r.jobs["start_time"].tolist() == [0.0, 100.0, 200.0, 0.0]
    # Every job once, in the workload's order.
    assert r.jobs["job_id"].tolist() == [1, 2, 3, 4]
    assert r.platform.nodes == 4
    # One machine of 4 nodes runs jobs 1 and 2 together, then 3 and 4: not the same.
    one = simulate(w, Platform(4), make_policy("easy"))
    assert one.jobs["start_time"].tolist() == [0.0, 0.0, 100.0, 100.0]


def test_a_partitions_jobs_run_on_its_own_nodes_only() -> None:
    # Gang keeps a node ledger: partition 0 is nodes 0-1, partition 1 nodes 2-3.
    w = _hand()
    group = np.array([0, 0, 0, 1])
    p = Platform(4, mpl=2)
    r = simulate_partitioned(w, p, lambda: make_policy("gang"), group, (2, 2))
    assert sorted(r.placements) == [0, 1, 2, 3]
    for i, placed in r.placements.items():
        nodes = {node for node, _ in placed}
        assert nodes <= ({0, 1} if group[i] == 0 else {2, 3})
    assert r.jobs["job_id"].tolist() == [1, 2, 3, 4]


def test_partition_index_maps_field_16_values_and_names_an_unknown_one() -> None:
    values = np.array([3.0, np.nan, 1.0, 3.0])
    assert partition_index(values, [1.0, 3.0, -1.0]).tolist() == [1, 2, 0, 1]
    with pytest.raises(ConfigError, match=r"partition \(3, SWF field 16\) is not among"):
        partition_index(values, [1.0, -1.0])


def test_unavailability_is_not_split_among_partitions() -> None:
    p = Platform(4, unavailable=((0.0, 10.0, 1),))
    with pytest.raises(ConfigError, match="cannot be split among partitions"):
        simulate_partitioned(_hand(), p, lambda: make_policy("easy"), np.zeros(4), (4,))


def _random(
    rng: np.random.Generator, n: int, sizes: tuple[int, ...], *, widest: int, gap: int, longest: int
) -> tuple[Workload, np.ndarray]:
    """``n`` jobs in random partitions of ``sizes``: 1 to ``widest`` processors (at most
    the partition), 10 to ``longest`` s, submitted 0 to ``gap`` s apart; and each job's
    partition."""
    group = rng.integers(0, len(sizes), n)
    procs = np.minimum(np.array(sizes)[group], rng.integers(1, widest + 1, n))
    run = rng.integers(10, longest, n).astype(float)
    table = pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit_time": np.cumsum(rng.integers(0, gap, n)).astype(float),
            "run_time": run,
            "requested_time": run * 2,
            "procs": procs,
        }
    )
    return Workload.from_table(table), group


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_invariants_on_random_workloads(policy: str, seed: int) -> None:
    n, sizes = 200, (8, 5, 3)
    w, group = _random(np.random.default_rng(seed), n, sizes, widest=5, gap=30, longest=500)
    procs = np.asarray(w.columns["procs"])
    run = np.asarray(w.columns["run_time"], dtype=np.float64)
    r = simulate_partitioned(
        w, Platform(16), lambda: make_policy(policy), group, sizes, rng=np.random.default_rng(0)
    )
    jobs = r.jobs
    # Every job once, in order, started after its submission.
    assert jobs["job_id"].tolist() == list(range(1, n + 1))
    start = jobs["start_time"].to_numpy()
    assert np.isfinite(start).all() and (start >= w.columns["submit_time"]).all()
    # No partition ever holds more processors than it has, whatever the others hold;
    # each partition's schedule and the merged one pass the engine's invariants.
    verify_schedule(jobs, capacity=sum(sizes))
    for g, size in enumerate(sizes):
        m = group == g
        assert peak_level(start[m], start[m] + run[m], procs[m]) <= size
        verify_schedule(jobs[m], capacity=size)
    # Each partition's schedule is the one its jobs make alone on its nodes.
    for g, size in enumerate(sizes):
        m = group == g
        alone = simulate(w.rows(m, "alone"), Platform(size), make_policy(policy))
        assert np.array_equal(alone.jobs["start_time"].to_numpy(), start[m])
    # Deterministic.
    again = simulate_partitioned(
        w, Platform(16), lambda: make_policy(policy), group, sizes, rng=np.random.default_rng(0)
    )
    assert again.jobs.equals(jobs)


@pytest.mark.parametrize("seed", [0, 1])
def test_gangs_placements_stay_in_their_partition_on_random_workloads(seed: int) -> None:
    n, sizes = 120, (6, 4)
    w, group = _random(np.random.default_rng(seed), n, sizes, widest=3, gap=20, longest=300)
    r = simulate_partitioned(w, Platform(10, mpl=2), lambda: make_policy("gang"), group, sizes)
    assert r.jobs["job_id"].tolist() == list(range(1, n + 1))
    verify_placements(r.jobs, r.placements, r.platform)
    assert sorted(r.placements) == list(range(n))
    for i, placed in r.placements.items():
        first = 0 if group[i] == 0 else sizes[0]
        assert {node for node, _ in placed} <= set(range(first, first + sizes[group[i]]))
