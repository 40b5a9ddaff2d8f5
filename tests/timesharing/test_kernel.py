"""The compiled kernel against the reference engine: identical results, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.errors import InvariantError, UnknownNameError
from cosched.timesharing import SCHEMES, TSParams, jobs_table, simulate
from cosched.timesharing.compiled import CompiledSim
from cosched.timesharing.kernel import skew_unit_kernel
from cosched.timesharing.model import skew_unit
from tests.strategies import TS_NODES, ts_job

NODES = TS_NODES
job = ts_job


def both(w, scheme, mpl, grain, seed, horizon=float("inf"), check=False):
    kw = dict(
        scheme=scheme,
        nodes=NODES,
        mpl=mpl,
        params=TSParams(msg_size=4096 * grain),
        horizon=horizon,
        check=check,
    )
    a = simulate(w, rng=np.random.default_rng(seed), engine="reference", **kw)
    b = simulate(w, rng=np.random.default_rng(seed), engine="compiled", **kw)
    return a, b


def assert_identical(a, b) -> None:
    pd.testing.assert_frame_equal(a.jobs, b.jobs, check_dtype=False, check_exact=True)
    pd.testing.assert_frame_equal(a.nodes, b.nodes, check_dtype=False, check_exact=True)
    assert a.end_time == b.end_time
    assert a.events == b.events
    assert a.messages_sent == b.messages_sent
    assert a.messages_received == b.messages_received
    assert a.unfinished == b.unfinished
    assert a.window == b.window
    assert a.window_compute == b.window_compute


def test_skew_draws_agree() -> None:
    rng = np.random.default_rng(0)
    for seed in rng.integers(0, 2**63 - 1, size=50).tolist():
        for rank in (0, 1, 31):
            for k in (0, 1, 127, 10**6):
                assert skew_unit(seed, rank, k) == skew_unit_kernel(seed, rank, k)
    draws = [skew_unit(12345, 0, k) for k in range(20_000)]
    assert min(draws) >= 0.0 and max(draws) < 1.0
    assert abs(float(np.mean(draws)) - 0.5) < 0.01


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    jobs=st.lists(job, min_size=1, max_size=8),
    scheme=st.sampled_from(sorted(SCHEMES)),
    mpl=st.integers(1, 4),
    skew=st.sampled_from([0.0, 0.2, 1.5]),
    grain=st.sampled_from([1, 4, 16]),
    seed=st.integers(0, 2**16),
)
def test_compiled_equals_reference(jobs, scheme, mpl, skew, grain, seed) -> None:
    w = jobs_table(sorted(jobs), skew=skew)
    a, b = both(w, scheme, mpl, grain, seed)
    assert_identical(a, b)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    jobs=st.lists(job, min_size=2, max_size=8),
    scheme=st.sampled_from(sorted(SCHEMES)),
    horizon=st.floats(0.01, 0.4),
    seed=st.integers(0, 2**16),
)
def test_compiled_equals_reference_at_a_horizon(jobs, scheme, horizon, seed) -> None:
    w = jobs_table(sorted(jobs), skew=0.2)
    a, b = both(w, scheme, 3, 4, seed, horizon=horizon)
    assert_identical(a, b)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    jobs=st.lists(job, min_size=1, max_size=8),
    scheme=st.sampled_from(sorted(SCHEMES)),
    mpl=st.integers(1, 4),
    seed=st.integers(0, 2**16),
)
def test_compiled_invariants(jobs, scheme, mpl, seed) -> None:
    # check=True: one running process per CPU and busy <= wall after every event.
    w = jobs_table(sorted(jobs), skew=1.5)
    r = simulate(
        w, scheme=scheme, nodes=NODES, mpl=mpl, rng=np.random.default_rng(seed), check=True
    )
    assert r.unfinished == 0 and len(r.jobs) == len(jobs)
    assert r.jobs["job_id"].is_unique
    assert (r.jobs["start_time"] >= r.jobs["submit_time"]).all()
    assert (r.jobs["end_time"] > r.jobs["start_time"]).all()
    assert r.messages_sent == r.messages_received


def test_heap_growth_resumes_exactly() -> None:
    # A tiny initial heap forces several grow-and-resume cycles mid-run.
    w = jobs_table([(0.0, 0.1, 4, 1), (0.0, 0.1, 4, 5), (0.01, 0.05, 2, 3)], skew=0.2)
    kw = dict(scheme="PB", nodes=NODES, mpl=3, params=TSParams(msg_size=4096.0))
    ref = simulate(w, rng=np.random.default_rng(1), engine="reference", **kw)
    sim = CompiledSim(w, rng=np.random.default_rng(1), **kw)
    cap = sim.margin + 2
    sim.state = sim.state._replace(HT=sim.state.HT[:cap].copy(), HI=sim.state.HI[:cap].copy())
    grown = []
    orig = sim._grow

    def spy() -> None:
        grown.append(1)
        orig()

    sim._grow = spy  # type: ignore[method-assign]
    assert_identical(ref, sim.run())
    assert grown


def test_heap_overflow_is_an_error_not_a_corruption() -> None:
    w = jobs_table([(0.0, 0.1, 4, 1), (0.0, 0.1, 4, 5)], skew=0.2)
    sim = CompiledSim(w, scheme="PB", nodes=NODES, mpl=3, rng=np.random.default_rng(1))
    sim.state = sim.state._replace(HT=sim.state.HT[:3].copy(), HI=sim.state.HI[:3].copy())
    sim.margin = 0  # a wrong margin: the kernel must stop, not write past the heap
    with pytest.raises(InvariantError, match="overflow"):
        sim.run()


def test_unknown_engine_is_named() -> None:
    w = jobs_table([(0.0, 0.1, 2, 1)])
    with pytest.raises(UnknownNameError, match="engine"):
        simulate(w, scheme="PB", nodes=NODES, rng=np.random.default_rng(0), engine="fast")


def test_check_mode_catches_two_running_processes() -> None:
    from cosched.timesharing import kernel as K

    w = jobs_table([(0.0, 0.1, 1, 1), (0.0, 0.1, 1, 2)])
    sim = CompiledSim(w, scheme="SB", nodes=1, mpl=2, rng=np.random.default_rng(0), check=True)
    sim.run(horizon=0.01)  # both processes on node 0, one running
    procs = [int(sim.state.I[0, K.N_PL + k]) for k in range(2)]
    idle = next(p for p in procs if p != int(sim.state.I[0, K.N_CUR]))
    sim.state.I[idle, K.P_STATE] = K.RUNNING  # corrupt: a second running process
    with pytest.raises(InvariantError, match="node 0"):
        sim.run(horizon=0.02)
