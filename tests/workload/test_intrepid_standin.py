"""The Intrepid stand-in: the paper's sizes, count and load, drawn from a seeded generator."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.workload.models.intrepid import (
    INTREPID_PARTITIONS,
    INTREPID_PLATFORM,
    intrepid_standin,
)

DAY = 86400.0


def test_the_machine_is_intrepids_and_allocates_midplane_blocks() -> None:
    # "40,960 quad-core nodes" (paper line 127); partitions of 512-node midplanes.
    assert (INTREPID_PLATFORM.nodes, INTREPID_PLATFORM.cores) == (40960, 4)
    assert INTREPID_PARTITIONS == (512, 1024, 2048, 4096, 8192, 16384, 32768)


def test_sizes_are_partitions_from_512_to_32768_nodes_and_the_load_is_exact() -> None:
    w = intrepid_standin(np.random.default_rng(1), load=0.8, jobs=2000, span=7 * DAY)
    t = w.table
    assert len(w) == 2000
    nodes = t["procs"].to_numpy() // 4
    assert set(nodes.tolist()) <= set(INTREPID_PARTITIONS)
    assert nodes.min() == 512
    assert (INTREPID_PLATFORM.waste_array(t["procs"].to_numpy()) == 0).all()
    offered = float((t["run_time"] * nodes).sum()) / (40960 * 7 * DAY)
    assert offered == pytest.approx(0.8, rel=1e-3)  # run times rounded to seconds
    assert (t["requested_time"] >= t["run_time"]).all()
    assert t["submit_time"].iloc[0] == 0.0 and t["submit_time"].max() <= 7 * DAY


def test_halving_weights_give_each_size_the_same_nodes_on_average() -> None:
    w = intrepid_standin(np.random.default_rng(2), load=0.5, jobs=20000)
    nodes = w.table["procs"].to_numpy() // 4
    per_size = np.array([nodes[nodes == s].sum() for s in INTREPID_PARTITIONS], dtype=float)
    # Expected share of jobs at 512 nodes is 64/127; each size carries 1/7 of the nodes.
    assert (nodes == 512).mean() == pytest.approx(64 / 127, abs=0.02)
    assert per_size / per_size.sum() == pytest.approx(np.full(7, 1 / 7), abs=0.03)


def test_size_weights_not_one_a_partition_are_named() -> None:
    # The parameters every stand-in takes: tests/workload/test_drawn_standins.py.
    with pytest.raises(ConfigError, match="size_weights must be 7 weights"):
        intrepid_standin(np.random.default_rng(0), load=0.8, size_weights=(1.0, 1.0))
