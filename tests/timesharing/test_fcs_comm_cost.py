"""FCS's monitoring cost per synchronous communication (``TSParams.fcs_comm_cost``), a
named reading off by default: the FCS paper names the overhead ("FCS suffers from
relatively high reclassification overhead, because of the high number of communication
events", its line 320) and gives no figure."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.timesharing import TSParams, TSResult, simulate
from cosched.timesharing.fcs_experiment import _params as fcs_params
from cosched.timesharing.workloads import bsp_jobs
from tests.timesharing.hand import FCS_CELL, assert_fcs_cells_read

P = TSParams(gs_quantum=0.1, fcs_cslots_min=5)
GRAIN = 1e-3  # 1 ms of computation per iteration (the paper's section 3)
N = 400  # iterations
COST = 50e-6


def run(scheme: str, cost: float) -> TSResult:
    p = P.with_(fcs_comm_cost=cost)
    # One job of two ranks alone on two PEs: each iteration computes 1 ms, then sends
    # one message to the other rank and receives its message (one latency L).
    w = bsp_jobs([(0.0, N * (GRAIN + p.latency), 2, GRAIN, 1.0, 0)], params=p)
    return simulate(w, scheme=scheme, nodes=2, mpl=1, rng=np.random.default_rng(0), params=p)


def test_it_is_off_by_default_and_never_negative() -> None:
    assert TSParams().fcs_comm_cost == 0.0
    with pytest.raises(ConfigError, match="fcs_comm_cost"):
        TSParams(fcs_comm_cost=-1e-6)


def test_each_synchronous_communication_costs_fcs_its_cost_once() -> None:
    # By hand: alone, the job's processes are CS (granularity 1 ms + L < 2 ms) and run
    # every slot, with no gang switch (one row) and no other cost. An iteration is the
    # 1 ms, the monitoring's COST, then the exchange (one latency): the job ends at
    # N x (1 ms + L) without the cost and N x COST later with it, each rank charged
    # N x COST of interrupt time.
    base, costly = run("FCS", 0.0), run("FCS", COST)
    end0 = float(base.jobs["end_time"].iloc[0])
    assert end0 == pytest.approx(N * (GRAIN + P.latency), rel=1e-9)
    end1 = float(costly.jobs["end_time"].iloc[0])
    assert end1 - end0 == pytest.approx(N * COST, rel=1e-9)
    extra = float(costly.nodes["interrupt"].sum() - base.nodes["interrupt"].sum())
    assert extra == pytest.approx(2 * N * COST, rel=1e-9)


@pytest.mark.parametrize("scheme", ["GS", "SB"])
def test_other_schemes_never_pay_it(scheme: str) -> None:
    base, costly = run(scheme, 0.0), run(scheme, COST)
    assert base.jobs.equals(costly.jobs)
    assert base.nodes.equals(costly.nodes)


def test_the_cells_read_it_and_name_bad_values() -> None:
    assert_fcs_cells_read("comm_cost", "fcs_comm_cost", COST)
    with pytest.raises(ConfigError, match="fcs_comm_cost"):
        fcs_params({**FCS_CELL, "comm_cost": -1.0})
