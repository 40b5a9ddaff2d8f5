"""The Cab stand-in: the node-sharing paper's machine, period and load bounds, drawn from a
seeded generator."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.workload.models.cab import (
    CAB_CORES,
    CAB_INTERARRIVAL,
    CAB_MULTI_SIZES,
    CAB_NODES,
    LOAD_RANGE,
    cab_standin,
)


def test_the_machine_period_and_load_range_are_the_papers() -> None:
    # "as Cab had 1158 nodes and 16 cores per node" (paper lines 169-175).
    assert (CAB_NODES, CAB_CORES) == (1158, 16)
    # "nearly 700,000 jobs" (l. 167) over 2014 (ref. [12]): 31,536,000 s / 700,000 = 45.05 s.
    assert pytest.approx(45.05, abs=0.01) == CAB_INTERARRIVAL
    # Figure 4's text (l. 248): waiting at 500 nodes, none from 1,400 nodes.
    assert pytest.approx((0.4318, 1.2090), abs=1e-4) == LOAD_RANGE
    # Whole nodes from 1 to N (l. 43): multi-node sizes are powers of two up to 1,024.
    assert CAB_MULTI_SIZES == (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def test_sizes_shares_span_and_the_load_are_as_asked() -> None:
    w = cab_standin(np.random.default_rng(1), load=0.9, single_share=0.3, jobs=20_000)
    t = w.table
    assert len(w) == 20_000
    assert (t["procs"] % 16 == 0).all()
    nodes = t["procs"].to_numpy() // 16
    assert set(nodes.tolist()) <= {1, *CAB_MULTI_SIZES}
    # 30% single-node (binomial sd 0.0032); of the others, 2 nodes half the time
    # (512 / 1,023 of the halving weights) and 4 nodes a quarter (256 / 1,023).
    assert (nodes == 1).mean() == pytest.approx(0.3, abs=0.015)
    multi = nodes[nodes > 1]
    assert (multi == 2).mean() == pytest.approx(512 / 1023, abs=0.02)
    assert (multi == 4).mean() == pytest.approx(256 / 1023, abs=0.02)
    # The window spans 20,000 x 45.05 s, and carries 0.9 of 1,158 nodes over it.
    span = 20_000 * CAB_INTERARRIVAL
    assert t["submit_time"].iloc[0] == 0.0 and t["submit_time"].max() <= span
    offered = float((t["run_time"] * nodes).sum()) / (1158 * span)
    assert offered == pytest.approx(0.9, rel=1e-3)  # run times rounded to seconds
    assert (t["requested_time"] >= t["run_time"]).all()


def test_all_single_node_when_asked() -> None:
    w = cab_standin(np.random.default_rng(3), load=0.5, single_share=1.0, jobs=500)
    assert (w.table["procs"] == 16).all()


def test_a_single_node_share_outside_0_1_is_refused_by_name() -> None:
    # The parameters every stand-in takes: tests/workload/test_drawn_standins.py.
    with pytest.raises(ConfigError, match=re.escape("single_share must be in [0, 1]")):
        cab_standin(np.random.default_rng(0), load=0.8, single_share=1.5)
