"""The wake-up cost of a block (``TSParams.wake_cost``), a named reading off by default."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.timesharing import TSParams, jobs_table, simulate
from cosched.timesharing import kernel as K
from cosched.timesharing.experiment import check as dyn_check
from tests.timesharing.hand import DYNAMIC_CELL, assert_fcs_cells_read, placed

WAKE = 120e-6


def test_the_wake_cost_is_off_by_default_and_never_negative() -> None:
    assert TSParams().wake_cost == 0.0
    with pytest.raises(ConfigError, match="wake_cost"):
        TSParams(wake_cost=-1e-6)


def test_a_woken_process_resumes_after_the_interrupt_the_wake_cost_and_the_queue_move() -> None:
    # One SB job of two ranks on two nodes. Rank 0 blocked in its receive, its CPU idle;
    # its neighbour's message arrives at 10 ms. By hand: the NIC's interrupt (50 us) and
    # the wake-up (120 us) are charged as interrupt time, then the queue move (3 us);
    # the process runs again on its idle CPU, with no context switch, at 10.173 ms.
    S = placed([(0.0, 0.2, 2, 5)], scheme="SB", nodes=2, mpl=1, params=TSParams(wake_cost=WAKE))
    a = int(S.I[S.G[K.S_JB], K.J_P0])
    n = int(S.I[a, K.P_NODE])
    switches = float(S.F[n, K.N_CS])
    S.I[n, K.N_CUR] = -1
    S.I[a, K.P_STATE], S.I[a, K.P_INRECV], S.I[a, K.P_WAITING] = K.BLOCKED, 1, 1
    S.I[a, K.P_LEVEL], S.F[a, K.P_TBLOCK] = 10, 0.0
    K.arrive(S, a, 1, 0.01)
    assert S.I[n, K.N_CUR] == a and S.I[a, K.P_STATE] == K.RUNNING
    assert S.F[n, K.N_INTR] == pytest.approx(50e-6 + WAKE)
    assert S.F[n, K.N_QUEUE] == pytest.approx(3e-6)
    assert S.F[n, K.N_CS] == switches  # its context was still loaded
    assert S.F[n, K.N_ACT] == pytest.approx(0.01 + 50e-6 + WAKE + 3e-6)


def test_spinning_schemes_never_pay_it() -> None:
    # GS and Local spin for every message (they never block), so nothing wakes from a
    # block and a wake cost changes no bit of their results.
    w = jobs_table([(0.0, 0.3, 4, 2), (0.0, 0.2, 4, 5)])
    for scheme in ("GS", "Local"):
        runs = [
            simulate(w, scheme=scheme, nodes=4, mpl=2, rng=np.random.default_rng(1), params=p)
            for p in (TSParams(), TSParams(wake_cost=WAKE))
        ]
        assert runs[0].jobs.equals(runs[1].jobs), scheme
        assert float(runs[1].nodes["interrupt"].sum()) == 0.0, scheme


def test_the_cells_read_it_and_name_bad_values() -> None:
    assert_fcs_cells_read("wake_cost", "wake_cost", WAKE)
    dyn_check({**DYNAMIC_CELL, "wake_cost": WAKE})
    with pytest.raises(ConfigError, match="wake_cost"):
        dyn_check({**DYNAMIC_CELL, "wake_cost": "soon"})
    with pytest.raises(ConfigError, match="wake_cost"):
        dyn_check({**DYNAMIC_CELL, "wake_cost": -1.0})
