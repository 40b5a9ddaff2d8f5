"""Partition allocation (Blue Gene/P): a job takes the smallest block of midplanes.

Hand cases on Intrepid's shape (40,960 quad-core nodes, midplanes of 512 nodes) and a
schedule worked out by hand on a small partitioned machine.
"""

from __future__ import annotations

import numpy as np
import pytest

from cosched.engine.simulation import simulate
from cosched.errors import ConfigError, WorkloadError
from cosched.metrics import summarize
from cosched.platform import Platform
from cosched.policies import policy_class
from cosched.workload.job import Workload

INTREPID = Platform(nodes=40960, cores=4, allocation="nodes", partition=512)


def nodes(n: int) -> int:
    """Processors of an ``n``-node Intrepid job (4 cores a node)."""
    return 4 * n


def test_a_512_node_job_takes_one_midplane_and_wastes_nothing() -> None:
    assert INTREPID.units(nodes(512)) == 512
    assert INTREPID.waste_array(np.array([nodes(512)])).tolist() == [0]


def test_a_1000_node_job_takes_a_1024_node_partition_and_wastes_24() -> None:
    assert INTREPID.units(nodes(1000)) == 1024
    assert INTREPID.waste_array(np.array([nodes(1000)])).tolist() == [24]


def test_small_jobs_take_a_midplane_and_sizes_double_up_to_32768() -> None:
    asked = np.array([nodes(n) for n in (1, 513, 2048, 2049, 20000, 32768)])
    assert INTREPID.units_array(asked).tolist() == [512, 1024, 2048, 4096, 32768, 32768]


def test_a_job_wider_than_the_largest_block_takes_the_whole_machine() -> None:
    # 32,769 nodes need 65,536 by doubling, more than the 40,960 of the machine.
    assert INTREPID.units(nodes(32769)) == 40960
    assert INTREPID.fits(nodes(40960))
    assert not INTREPID.fits(nodes(40961))


def test_partition_must_divide_the_machine_and_needs_it_unshared() -> None:
    with pytest.raises(ConfigError, match="must divide the machine's 1000 units, got 512"):
        Platform(nodes=1000, allocation="nodes", partition=512)
    with pytest.raises(ConfigError, match="needs an unshared machine"):
        Platform(nodes=1024, allocation="nodes", mpl=2, partition=512)
    with pytest.raises(ConfigError, match="partition must be an integer >= 1, got 0"):
        Platform(nodes=1024, partition=0)


def test_fcfs_on_partitions_by_hand() -> None:
    # 8 nodes in midplanes of 2. Job 1 (3 nodes) takes 4, job 2 (1 node) takes 2,
    # job 3 (3 nodes) needs 4 with only 2 free: it waits for job 1 to end at 10.
    p = Platform(nodes=8, allocation="nodes", partition=2)
    w = Workload.from_jobs([(0.0, 3, 10.0, 10.0), (0.0, 1, 20.0, 20.0), (0.0, 3, 5.0, 5.0)])
    res = simulate(w, p, policy_class("fcfs")())
    jobs = res.jobs
    assert jobs["start_time"].tolist() == [0.0, 0.0, 10.0]
    assert jobs["size"].tolist() == [4, 2, 4]
    assert jobs["wasted"].tolist() == [1, 1, 1]
    s = summarize(jobs, capacity=p.capacity)
    # Idle units held: 1 x 10 + 1 x 20 + 1 x 5 = 35 unit-seconds of 8 x 20.
    assert s["partition_waste"] == pytest.approx(35 / 160)
    # Utilization counts the partitions: (4 x 10 + 2 x 20 + 4 x 5) / (8 x 20).
    assert s["utilization"] == pytest.approx(100 / 160)


def test_a_job_wider_than_the_machine_is_refused_naming_it() -> None:
    p = Platform(nodes=8, allocation="nodes", partition=2)
    w = Workload.from_jobs([(0.0, 9, 10.0, 10.0)])
    with pytest.raises(WorkloadError, match="job 1 needs 9 procs"):
        simulate(w, p, policy_class("fcfs")())
