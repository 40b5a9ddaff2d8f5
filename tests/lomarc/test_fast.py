"""The compiled LOMARC loop (lomarc/_kernel.py) against the general engine.

Both paths must give the same schedule bit for bit: start and end times, the nodes
each job ran on (in start order), the policy's Table 5 counters and pair counts, and
the engine's counters. ``Simulation(fast=False)`` forces the general loop.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.engine import Simulation, fastpath
from cosched.engine.view import SystemView
from cosched.lomarc import fast
from cosched.lomarc.experiment import NODES, RUNS, cell_workload
from cosched.lomarc.policies import VARIANTS, Lomarc, LomarcU1, lomarc_platform
from cosched.lomarc.slowdown import FORMULAS
from cosched.policies.base import make_policy
from cosched.workload.job import Workload
from tests.lomarc.test_invariants import cases
from tests.passes import use_built_loop

OPTIONS: dict[str, Any] = {
    "cpu": st.sampled_from(["hyperthreaded", "standard"]),
    "heuristic": st.sampled_from(["u1", "u2", "response", "first"]),
    "search": st.sampled_from(["queue", "adjacent", "none"]),
    "running": st.booleans(),
    "weak_spare": st.sampled_from([None, 0.2, 0.5]),
    "check_match": st.booleans(),
    "medium_long_only": st.booleans(),
    "max_slowdown": st.sampled_from([None, 1.2, 1.6]),
    "mem_slowdown": st.sampled_from([2.5, 4.0]),
    "aging_time": st.sampled_from([None, 100.0, 5000.0]),
    "bound": st.sampled_from([1.0, 60.0]),
    "predict": st.booleans(),
    "arrivals": st.sampled_from(["own", "queue"]),
    "slowdown": st.sampled_from(FORMULAS),
}


def both(w: Workload, nodes: int, name: str, **params: Any) -> tuple[Any, Any]:
    """The general and the compiled run of one configuration, with their policies."""
    out = []
    for fast_path in (False, True):
        policy = make_policy(name, **params)
        sim = Simulation(w, lomarc_platform(nodes), policy, fast=fast_path)
        assert fast.eligible(sim)
        assert fastpath.eligible(sim) is not None  # the engine runs the compiled pass
        out.append((sim.run(), policy))
    return out[0], out[1]


def assert_same(general: Any, compiled: Any) -> None:
    (a, pa), (b, pb) = general, compiled
    for col in ("start_time", "end_time", "occupancy"):
        x, y = np.asarray(a.jobs[col]), np.asarray(b.jobs[col])
        assert np.array_equal(x, y, equal_nan=True), col
    assert list(a.placements.items()) == list(b.placements.items())
    assert a.stats == b.stats
    assert pa.funnel == pb.funnel
    assert pa.counts == pb.counts
    assert pa._arrivals == pb._arrivals
    da, db = a.diagnostics, b.diagnostics
    assert list(da) == list(db)
    assert all(da[k] == db[k] or (da[k] != da[k] and db[k] != db[k]) for k in da)


@settings(max_examples=60, deadline=None)
@given(case=cases(), name=st.sampled_from([*VARIANTS.values(), "lomarc"]), data=st.data())
def test_compiled_loop_equals_general_loop(
    case: tuple[Workload, int], name: str, data: st.DataObject
) -> None:
    """Random workloads, every variant, a random subset of the options changed."""
    w, nodes = case
    keys = data.draw(st.sets(st.sampled_from(sorted(OPTIONS))))
    params = {k: data.draw(OPTIONS[k], label=k) for k in sorted(keys)}
    assert_same(*both(w, nodes, name, **params))


@pytest.mark.parametrize("workload", ["W1", "W2", "W3"])
@pytest.mark.parametrize("variant", list(RUNS))
def test_reproduction_workloads(workload: str, variant: str) -> None:
    """Every run of the reproduction's grid, on 600 jobs of W1-W3 (seed 0, M1)."""
    w = cell_workload("paper-alpha", workload, "M1", 0, 600)
    name, extra = RUNS[variant]
    general, compiled = both(w, NODES, name, **extra)
    assert_same(general, compiled)
    if variant != "PSS":
        assert compiled[1].counts["queue_pairs"] + compiled[1].counts["running_pairs"] > 0


@pytest.mark.parametrize("slowdown", ["overlap-add", "overlap-excess"])
def test_memory_readings_compiled(slowdown: str) -> None:
    """AC (the variant that forms paging pairs) under each memory reading, on 600 jobs
    of W1: the same schedules on both loops, and a different one from the default."""
    w = cell_workload("paper-alpha", "W1", "M1", 0, 600)
    general, compiled = both(w, NODES, "lomarc-ac", slowdown=slowdown)
    assert_same(general, compiled)
    default = Simulation(w, lomarc_platform(NODES), make_policy("lomarc-ac")).run()
    assert not np.array_equal(compiled[0].jobs["end_time"], default.jobs["end_time"])


@pytest.mark.slow
def test_the_loop_compiled_ahead_of_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's loop with the LOMARC pass bound, compiled ahead of time (what a run of
    10,000 jobs or more loads), gives the general loop's schedules too."""
    use_built_loop(fast.LOMARC_PASS, "LOMARC", monkeypatch)
    w = cell_workload("paper-alpha", "W3", "M1", 0, 600)
    for variant in ("L-R", "L-N", "AC", "PSS", "L-R-own"):
        name, extra = RUNS[variant]
        assert_same(*both(w, NODES, name, **extra))


def test_general_loop_for_subclasses_and_checks() -> None:
    """A user's subclass keeps the Python interface; so do check=True and a rate model
    that is not the policy's own."""
    w = cell_workload("paper-alpha", "W1", "M1", 0, 60)
    calls = []

    class Mine(LomarcU1):
        def schedule(self, view: SystemView) -> Any:
            calls.append(view.now)
            return super().schedule(view)

    sim = Simulation(w, lomarc_platform(NODES), Mine())
    assert not fast.eligible(sim)
    sim.run()
    assert calls
    assert not fast.eligible(Simulation(w, lomarc_platform(NODES), LomarcU1(), check=True))
    # A rate model other than the policy's own: the general loop.
    rates = Lomarc().rate_model()
    assert not fast.eligible(Simulation(w, lomarc_platform(NODES), Lomarc(), rate_model=rates))


def test_a_plugin_heuristic_runs_on_the_general_loop_with_a_notice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A heuristic added to the open registry has no compiled form: the general loop runs
    it, saying so in one line, and schedules as with the heuristic it copies."""
    from cosched.lomarc import search

    monkeypatch.setitem(search.PARTNER_HEURISTICS, "mine", search.PARTNER_HEURISTICS["u1"])
    w = cell_workload("paper-alpha", "W1", "M1", 0, 60)
    sim = Simulation(w, lomarc_platform(NODES), Lomarc(heuristic="mine"))  # type: ignore[arg-type]
    with pytest.warns(UserWarning, match=r"does not know the heuristic 'mine'; the general loop"):
        assert fastpath.eligible(sim) is None
    with pytest.warns(UserWarning):
        mine = sim.run()
    u1 = Simulation(w, lomarc_platform(NODES), Lomarc(heuristic="u1")).run()
    assert np.array_equal(mine.jobs["start_time"], u1.jobs["start_time"], equal_nan=True)


_PLAIN = """
from tests.lomarc.test_fast import both, assert_same
from cosched.lomarc.experiment import NODES, RUNS, cell_workload
w = cell_workload("paper-alpha", "W3", "M1", 0, 200)
for variant in ("L-R", "L-N", "AC"):
    name, extra = RUNS[variant]
    assert_same(*both(w, NODES, name, **extra))
print("same")
"""


def test_plain_python_kernel() -> None:
    """The kernel's source run as plain Python (NUMBA_DISABLE_JIT=1, a fresh process)
    gives the general loop's schedules too."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", _PLAIN], env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "same"


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.sampled_from([0.0, 1.0, 2.5, 3.0, 7.0, 1e9]), min_size=1, max_size=40),
    data=st.data(),
)
def test_shadow_selection_is_the_sorted_order_statistic(
    values: list[float], data: st.DataObject
) -> None:
    """The pass's selection (:func:`~cosched.lomarc._shadow._kth_smallest`) gives the
    k-th value of the sorted times, ties included, and keeps their multiset."""
    from cosched.lomarc._shadow import _kth_smallest

    k = data.draw(st.integers(1, len(values)))
    a = np.array([[-2.0] * (len(values) + 1), [*values, -1.0]])  # row 1; past n: never read
    got = _kth_smallest(a, 1, len(values), k)
    assert got == sorted(values)[k - 1]
    assert sorted(a[1, : len(values)]) == sorted(values) and a[1, -1] == -1.0
    assert (a[0] == -2.0).all()


def test_free_merge_by_hand() -> None:
    """An end's emptied nodes merged into the kept empty nodes' list
    (:func:`~cosched.lomarc._kernel._free_merge`), on four nodes (a row of eight): the
    list stays in node order where it is, moves to the row's start when it would run
    past the row's end, and is marked out of date for nodes not in node order."""
    import cosched.lomarc._kernel as K
    from cosched.lomarc._layout import AFF, FREE, FREE_BASE, FREE_OK, N_EMPTY, TALLY

    def merge(base: int, listed: list[int], freed: list[int]) -> tuple[list[int], int]:
        ni = np.full((15, 8), -9, np.int64)
        tally = np.zeros(TALLY, np.int64)
        ni[FREE, base : base + len(listed)] = listed
        ni[AFF, : len(freed)] = freed
        tally[FREE_OK], tally[FREE_BASE] = 1, base
        tally[N_EMPTY] = len(listed) + len(freed)  # counted by the end
        K._free_merge(ni, tally, len(freed), 4)
        if not tally[FREE_OK]:
            return [], -1
        b = int(tally[FREE_BASE])
        return [int(x) for x in ni[FREE, b : b + tally[N_EMPTY]]], b

    assert merge(3, [1, 3], [0, 2]) == ([0, 1, 2, 3], 3)
    assert merge(2, [], [2]) == ([2], 2)
    assert merge(5, [0, 3], [1, 2]) == ([0, 1, 2, 3], 0)  # 5 + 4 > 8: moved first
    assert merge(5, [2, 3], [1]) == ([1, 2, 3], 5)  # 5 + 3 fits the row of 8
    assert merge(0, [0], [3, 1]) == ([], -1)  # not in node order: listed again later


def test_shadow_time_by_hand() -> None:
    """The head's shadow time and extra nodes (:func:`~cosched.lomarc._shadow._shadow_time`)
    on four nodes, worked by hand: job 0 on nodes 0 and 1 (believed to end at 100), job
    1 on node 2 (at 50), node 3 empty, now 10. The nodes' times are kept between
    calls and worked out again only where a job was marked; a call with nothing
    changed, and one whose answer is the last selection's, select nothing."""
    import cosched.lomarc._shadow as K
    from cosched.lomarc._layout import TALLY

    nodes, n = 4, 3
    ni = np.zeros((15, 2 * nodes), np.int64)
    ni[K.JOB : K.JOB + 2] = -1  # no job on any node
    ji = np.zeros((10, n), np.int64)
    jf = np.zeros((4, n + 1))
    tally = np.zeros(TALLY, np.int64)
    acc_f = np.zeros(7)
    occ = np.full((3, nodes), -np.inf)
    size = np.array([2, 1, 1])
    ji[K.OFF] = [0, 2, 3]
    jnodes = np.array([0, 1, 2, 3])
    est_end = np.array([100.0, 50.0, np.nan])
    for j in (0, 1):  # running: on their nodes, marked as a start marks them
        for q in range(ji[K.OFF, j], ji[K.OFF, j] + size[j]):
            nd = jnodes[q]
            ni[K.JOB + ni[K.CNT, nd], nd] = j
            ni[K.CNT, nd] += 1
        K._mark(j, ji, ni, jnodes, tally, size[j])

    def shadow(now: float, fr: int, sj: int, nov: int = 0) -> tuple[float, int]:
        return K._shadow_time(
            ni, ji, jf, jnodes, size, tally, acc_f, nov, est_end, occ, nodes, now, fr, sj
        )

    # A head of 3 nodes with 1 empty: the 2nd of the occupied times 50, 100, 100 is
    # 100; the three nodes empty by then, one more than the head needs.
    assert shadow(10.0, 1, 3) == (100.0, 1)
    assert tally[K.N_DIRTY] == 0 and list(occ[K.EMPTIES]) == [100.0, 100.0, 50.0, -np.inf]
    assert shadow(10.0, 1, 3) == (100.0, 1)  # nothing changed: the same answer
    # Job 1's rate changed: believed to end at 150, node 2 worked out again.
    est_end[1] = 150.0
    K._mark(1, ji, ni, jnodes, tally, size[1])
    assert shadow(10.0, 1, 3) == (100.0, 0)
    # Later, past every believed end: the shadow time is now, and every node is free
    # by then.
    assert shadow(200.0, 1, 3) == (200.0, 1)
    # A head that fits: the shadow time is now; no node empties by then.
    assert shadow(10.0, 3, 2) == (10.0, 1)
    # This pass started job 2 on node 3, overriding its end (300): the 3rd of 100,
    # 100, 150, 300 with no empty node; the pass's overrides leave no trace.
    ji[K.OV_LIST, 0] = 2
    jf[K.OV, 2] = 300.0
    assert shadow(10.0, 0, 3, nov=1) == (150.0, 0)
    assert (occ[K.OVERRIDES] == -np.inf).all() and occ[K.EMPTIES, 3] == -np.inf
