"""The compiled LOMARC loop (lomarc/_kernel.py) against the general engine.

Both paths must give the same schedule bit for bit: start and end times, the nodes
each job ran on (in start order), the policy's Table 5 counters and pair counts, and
the engine's counters. ``Simulation(fast=False)`` forces the general loop.
"""

from __future__ import annotations

import os
import shutil
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
from cosched.policies.base import make_policy
from cosched.workload.job import Workload
from tests.lomarc.test_invariants import cases

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
    "slowdown": st.sampled_from(["printed", "overlap"]),
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


@pytest.mark.slow
def test_the_loop_compiled_ahead_of_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's loop with the LOMARC pass bound, compiled ahead of time (what a run of
    10,000 jobs or more loads), gives the general loop's schedules too."""
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler: the ahead-of-time loop cannot be built here")
    from cosched.engine import aot

    if aot.load_loop(fast.LOMARC_PASS, build=True) is None:
        pytest.fail("the LOMARC event loop did not build")
    monkeypatch.setenv("COSCHED_FASTPATH_COMPILE_FROM", "0")  # the built loop, any size
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
    """The pass's selection (:func:`~cosched.lomarc._kernel._kth_smallest`) gives the
    k-th value of the sorted times, ties included, and keeps their multiset."""
    from cosched.lomarc._kernel import _kth_smallest

    k = data.draw(st.integers(1, len(values)))
    a = np.array([*values, -1.0])  # an entry past n, never read
    got = _kth_smallest(a, len(values), k)
    assert got == sorted(values)[k - 1]
    assert sorted(a[: len(values)]) == sorted(values) and a[-1] == -1.0
