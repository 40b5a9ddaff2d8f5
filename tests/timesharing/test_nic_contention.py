"""Contention at the network interface (``TSParams.nic_bandwidth``), a named reading off
by default: the hand cases of docs/timesharing.md, "Contention at the network
interface"."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.timesharing import TSParams, TSResult, jobs_table, simulate
from cosched.timesharing import kernel as K
from cosched.timesharing.engine import TimeSharingSim
from cosched.timesharing.params import FCS_NIC_BANDWIDTH, LINEAR_NIC_BANDWIDTH
from tests.timesharing.hand import (
    DYNAMIC_CELL,
    FCS_CELL,
    assert_fcs_cells_read,
    bsp_ring,
    placed,
)

L = 185.48e-6  # Table 3's one-way latency of 4,096 bytes
T = 0.01  # when the hand cases send


def _arrivals(S: K.State) -> list[tuple[float, int, int]]:
    """The messages in flight in the heap: (time, receiver, version), by time."""
    out = []
    for i in range(int(S.G[K.S_HSIZE])):
        if S.HI[i, 1] == K.EV_ARRIVE:
            out.append((float(S.HT[i]), int(S.HI[i, 2]), int(S.HI[i, 3])))
    return sorted(out)


def _pair_sharing_node_0(bandwidth: float) -> tuple[K.State, int, int]:
    """Two 2-rank jobs on 3 nodes at MPL 2: job 1 on nodes 0 and 1, job 2 on nodes 2 and
    0 (the least loaded nodes, ties to the lower index), so node 0's interface carries a
    process of each. Returns the state and the two processes on node 0."""
    S = placed(
        [(0.0, 0.2, 2, 5), (0.0, 0.2, 2, 5)],
        scheme="Local",
        nodes=3,
        mpl=2,
        params=TSParams(nic_bandwidth=bandwidth),
    )
    on0 = [int(S.I[0, K.N_PL + a]) for a in range(int(S.I[0, K.N_NPROCS]))]
    assert len(on0) == 2 and {int(S.I[p, K.P_JOB]) for p in on0} == {0, 1}
    return S, on0[0], on0[1]


def _partner(S: K.State, p: int) -> tuple[int, int]:
    """The one neighbour of a 2-rank job's process, and the side its message lands on."""
    left = int(S.I[p, K.P_NBR0])
    return (left, 1) if left >= 0 else (int(S.I[p, K.P_NBR1]), 0)


def test_it_is_off_by_default_and_bad_values_are_named() -> None:
    assert TSParams().nic_bandwidth == 0.0 and TSParams().nic_occupancy == 0.0
    assert TSParams(nic_bandwidth=LINEAR_NIC_BANDWIDTH).nic_occupancy == pytest.approx(L)
    assert TSParams(nic_bandwidth=FCS_NIC_BANDWIDTH).nic_occupancy == pytest.approx(16e-6)
    with pytest.raises(ConfigError, match="nic_bandwidth"):
        TSParams(nic_bandwidth=-1.0)
    with pytest.raises(ConfigError, match="more than the one-way latency"):
        TSParams(nic_bandwidth=LINEAR_NIC_BANDWIDTH / 2)
    with pytest.raises(ConfigError, match="nic_pes"):
        TSParams(nic_pes=1.5)
    w = jobs_table([(0.0, 0.2, 2, 5)])
    with pytest.raises(ConfigError, match="nic_pes=2"):
        TimeSharingSim(w, scheme="SB", nodes=3, mpl=1, rng=np.random.default_rng(0),
                       params=TSParams(nic_bandwidth=FCS_NIC_BANDWIDTH, nic_pes=2))  # fmt: skip


def test_two_processes_on_one_interface_take_twice_as_long_to_send_as_one() -> None:
    # The linear model's reading: a 4 KiB message holds the interface for its whole
    # latency L. One process on node 0 sends at T: its message is in its partner's
    # endpoint at T + L. Two processes on node 0 send at T, each to a partner on another
    # node: the second waits for the first to leave the interface, so the two are
    # delivered at T + L and T + 2 L: the sending takes twice as long.
    S, a, b = _pair_sharing_node_0(LINEAR_NIC_BANDWIDTH)
    qa, sa = _partner(S, a)
    K.nic_send(S, a, qa, sa, T)
    (one,) = _arrivals(S)
    assert one[0] == pytest.approx(T + L) and one[1] == qa
    assert one[2] == sa + K.ARR_AT_NIC  # it reaches the receiving interface then

    S, a, b = _pair_sharing_node_0(LINEAR_NIC_BANDWIDTH)
    qa, sa = _partner(S, a)
    qb, sb = _partner(S, b)
    K.nic_send(S, a, qa, sa, T)
    K.nic_send(S, b, qb, sb, T)
    first, second = _arrivals(S)
    assert first[0] == pytest.approx(T + L) and first[1] == qa
    assert second[0] == pytest.approx(T + 2 * L) and second[1] == qb
    assert (second[0] - T) == pytest.approx(2 * (one[0] - T))


def test_two_messages_reaching_one_interface_at_once_are_deposited_one_occupancy_apart() -> None:
    # Node 0's two processes each receive a message that reaches node 0's interface at
    # T: the first is deposited at T (its endpoint counts it), the second when the
    # receiving side has deposited the first and held it L more, at T + L.
    # (nic_in says whether to deposit now: the event loop then calls arrive.)
    S, a, b = _pair_sharing_node_0(LINEAR_NIC_BANDWIDTH)
    assert K.nic_in(S, a, 0, T)
    assert S.F[0, K.N_RXF] == T
    assert not K.nic_in(S, b, 0, T)
    (later,) = _arrivals(S)
    assert later[0] == pytest.approx(T + L) and later[1] == b and later[2] == 0
    # A message reaching it once the side is free again is deposited at once.
    assert K.nic_in(S, b, 1, T + 3 * L)
    assert S.F[0, K.N_RXF] == T + 3 * L


def test_a_message_between_pes_of_one_interface_does_not_cross_it() -> None:
    p2 = TSParams(nic_bandwidth=LINEAR_NIC_BANDWIDTH, nic_pes=2)
    S = placed([(0.0, 0.2, 2, 5)], scheme="SB", nodes=2, mpl=1, params=p2)
    p = int(S.I[S.G[K.S_JB], K.J_P0])
    q, side = _partner(S, p)
    K.nic_send(S, p, q, side, T)
    ((t, r, v),) = _arrivals(S)
    assert (t, r, v) == (pytest.approx(T + L), q, side)  # deposited, no queueing
    assert S.F[0, K.N_TXF] == 0.0


def test_a_pair_alone_runs_as_without_contention() -> None:
    # A 2-rank job alone: each rank sends one message per iteration, which finds both
    # interfaces free, so every message still takes one latency and the job ends when
    # it ends without the mechanism (the events differ: the messages go through the
    # heap, and each is handled twice).
    w = jobs_table([(0.0, 0.05, 2, 5)])
    off, on = (
        simulate(w, scheme=s, nodes=2, mpl=1, rng=np.random.default_rng(3), params=p)
        for s, p in (("SB", TSParams()), ("SB", TSParams(nic_bandwidth=LINEAR_NIC_BANDWIDTH)))
    )
    assert on.jobs["end_time"].to_numpy() == pytest.approx(off.jobs["end_time"].to_numpy())


def test_more_processes_per_node_slow_communication() -> None:
    # Two 8-rank J5 jobs spinning (Local) on the same 8 nodes: with the interface shared,
    # every iteration's messages queue behind the other job's, so both end later.
    w = jobs_table([(0.0, 0.05, 8, 5), (0.0, 0.05, 8, 5)])
    off, on = (
        simulate(w, scheme="Local", nodes=8, mpl=2, rng=np.random.default_rng(3), params=p)
        for p in (TSParams(), TSParams(nic_bandwidth=LINEAR_NIC_BANDWIDTH))
    )
    assert (on.jobs["end_time"].to_numpy() > off.jobs["end_time"].to_numpy()).all()


def test_the_cells_read_it_and_name_bad_values() -> None:
    from cosched.timesharing.experiment import check as dyn_check
    from cosched.timesharing.fcs_experiment import _params as fcs_params

    assert_fcs_cells_read("nic_bandwidth", "nic_bandwidth", FCS_NIC_BANDWIDTH)
    p = fcs_params({**FCS_CELL, "nic_bandwidth": FCS_NIC_BANDWIDTH, "nic_pes": 2})
    assert (p.nic_bandwidth, p.nic_pes) == (FCS_NIC_BANDWIDTH, 2)
    dyn_check({**DYNAMIC_CELL, "nic_bandwidth": LINEAR_NIC_BANDWIDTH, "time_scale": 40})
    with pytest.raises(ConfigError, match="nic_bandwidth"):
        dyn_check({**DYNAMIC_CELL, "nic_bandwidth": "fast"})
    with pytest.raises(ConfigError, match="nic_bandwidth"):
        dyn_check({**DYNAMIC_CELL, "nic_bandwidth": 1e6})  # 4 ms per message, above the latency
    with pytest.raises(ConfigError, match="time_scale"):
        dyn_check({**DYNAMIC_CELL, "time_scale": 0})


def contended_run(scheme: str, seed: int) -> TSResult:
    """Runs through contended interfaces, for the check below."""
    jobs = [(0.0, 0.3, 4, 0.001, 2.0, 1), (0.05, 0.3, 4, 0.001, 1.0, 0)]
    return bsp_ring(scheme, seed, jobs, nodes=4, mpl=2, nic_bandwidth=LINEAR_NIC_BANDWIDTH)


def test_the_same_source_interpreted_gives_the_same_bits_with_contention() -> None:
    # As test_noise's check: NUMBA_DISABLE_JIT=1 runs the interface's queues as plain
    # Python, in a fresh process, with the same results bit for bit.
    from tests.timesharing.hand import assert_interpreted_matches

    assert_interpreted_matches(contended_run, [("SB", 1), ("PB", 2), ("GS", 3), ("FCS", 4)])
