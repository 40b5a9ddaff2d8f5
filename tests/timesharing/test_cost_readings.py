"""Table 3's per-event costs as the dyncosched cell's readings (``context_switch=0``
and the others, for attribution): the paper's values unless the cell names one."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.timesharing import TSParams, jobs_table, simulate
from cosched.timesharing.experiment import READINGS, check, ts_params

L = 185.48e-6  # Table 3's one-way latency of 4,096 bytes
# Job type J3 (35% compute, 35% I/O, 30% communication): a one-task job has no
# neighbours, so its one iteration of L / 0.3 is half compute (H), then half I/O (H).
T_ITER = L / 0.3
H = T_ITER / 2
CS = 200e-6  # Table 3: "CS (Context Switch Cost) Dynamic Coscheduling 200 us"
BASE = {"workload": "WL7", "load": 1.2, "skew": 0.2, "mpl": 5, "scheme": "SB",
        "n_jobs": 10, "msg_factor": 1}  # fmt: skip


def test_the_default_costs_are_table_3s_and_the_cell_may_name_each() -> None:
    ts = ts_params(BASE)
    # Table 3: CS 200 us (dynamic coscheduling) and 2 ms (GS), I 50 us, move between
    # queues 3 us, check an endpoint 2 us.
    assert (ts.context_switch, ts.gs_context_switch, ts.interrupt) == (200e-6, 2e-3, 50e-6)
    assert (ts.queue_move, ts.endpoint_check) == (3e-6, 2e-6)
    costs = ("context_switch", "gs_context_switch", "interrupt", "queue_move", "endpoint_check")
    assert set(costs) <= set(READINGS)
    for name in costs:  # free, but for GS's gang switch, which must be > 0
        value = 1e-3 if name == "gs_context_switch" else 0.0
        assert getattr(ts_params(BASE | {name: value}), name) == value, name
    # A named cost is set after Table 5's variant (CS=100us): the reading wins.
    assert ts_params(BASE | {"variant": "CS=100us, I=50us"}).context_switch == 100e-6
    both = BASE | {"variant": "CS=100us, I=50us", "context_switch": 0.0}
    assert ts_params(both).context_switch == 0.0


def test_a_bad_cost_is_named() -> None:
    with pytest.raises(ConfigError, match="context_switch must be >= 0"):
        check(BASE | {"context_switch": -1e-6})
    with pytest.raises(ConfigError, match="'interrupt' must be a number"):
        check(BASE | {"interrupt": "free"})
    with pytest.raises(ConfigError, match="gs_context_switch must be > 0"):
        check(BASE | {"gs_context_switch": 0.0})


def _two_jobs(context_switch: float) -> tuple[list[float], dict[str, float]]:
    """Two one-task J3 jobs of one iteration each, submitted at 0 on one node at MPL 2
    under SB, no queue-move cost: their end times and the node's CPU seconds."""
    r = simulate(
        jobs_table([(0.0, T_ITER, 1, 3), (0.0, T_ITER, 1, 3)]),
        scheme="SB",
        nodes=1,
        mpl=2,
        rng=np.random.default_rng(0),
        params=TSParams(context_switch=context_switch, queue_move=0.0),
    )
    return sorted(r.jobs["end_time"]), r.nodes.iloc[0].to_dict()


def test_a_free_switch_removes_exactly_the_switching_time_of_two_sb_jobs() -> None:
    # By hand, switch cost c: the CPU loads A (c: nothing was loaded), A computes H and
    # leaves for its I/O; the CPU loads B (c), B computes H and leaves for its I/O; A,
    # back from I/O (at c + 2H), is loaded (c) and ends at 3c + 2H; B, back at 2c + 3H
    # (later, as c < H), is loaded (c: A ran last) and ends at 3c + 3H. Four switches,
    # 4c of the CPU. With c = 0 the same order ends A at 2H and B at 3H: the compute
    # (2H) unchanged and the switching time, 4c, gone.
    ends, cpu = _two_jobs(CS)
    assert ends == pytest.approx([3 * CS + 2 * H, 3 * CS + 3 * H], rel=1e-12)
    assert cpu["context_switch"] == pytest.approx(4 * CS, rel=1e-12)
    assert cpu["compute"] == pytest.approx(2 * H, rel=1e-12)
    free_ends, free = _two_jobs(0.0)
    assert free_ends == pytest.approx([2 * H, 3 * H], rel=1e-12)
    assert free["context_switch"] == 0.0
    assert free["compute"] == pytest.approx(cpu["compute"], rel=1e-12)
    busy = ("compute", "spin", "context_switch", "interrupt", "queue", "endpoint_check")
    assert sum(cpu[k] for k in busy) - sum(free[k] for k in busy) == pytest.approx(4 * CS)
