"""Invariants of the time-sharing model on small random workloads (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.timesharing import SCHEMES, TSParams, jobs_table, ts_summary
from cosched.timesharing import kernel as K
from cosched.timesharing.engine import TimeSharingSim
from cosched.timesharing.params import OTHER_SCHEMES
from tests.strategies import TS_NODES, ts_job

NODES = TS_NODES
job = ts_job


def run_checked(jobs, scheme, mpl, skew, grain, seed):
    w = jobs_table(sorted(jobs), skew=skew)
    sim = TimeSharingSim(
        w,
        scheme=scheme,
        nodes=NODES,
        mpl=mpl,
        rng=np.random.default_rng(seed),
        params=TSParams(msg_size=4096 * grain),
        check=True,  # one running process per CPU and busy <= wall, after every event
    )
    return sim, sim.run()


def job_rows(sim: TimeSharingSim) -> list[int]:
    """The state rows of the started jobs."""
    S = sim.state
    jb = int(S.G[K.S_JB])
    return [j for j in range(jb, S.I.shape[0]) if S.I[j, K.J_STARTED]]


def proc_rows(sim: TimeSharingSim, j: int) -> range:
    S = sim.state
    return range(int(S.I[j, K.J_P0]), int(S.I[j, K.J_P0] + S.I[j, K.J_NPROCS]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    jobs=st.lists(job, min_size=1, max_size=5),
    scheme=st.sampled_from(sorted({**SCHEMES, **OTHER_SCHEMES})),
    mpl=st.integers(1, 3),
    skew=st.sampled_from([0.0, 0.2, 1.5]),
    grain=st.sampled_from([1, 4, 16]),
    seed=st.integers(0, 2**16),
)
def test_invariants(jobs, scheme, mpl, skew, grain, seed) -> None:
    sim, r = run_checked(jobs, scheme, mpl, skew, grain, seed)
    # Every job ends exactly once, after it started, after it was submitted.
    assert r.unfinished == 0
    assert len(r.jobs) == len(jobs)
    assert r.jobs["job_id"].is_unique
    assert (r.jobs["start_time"] >= r.jobs["submit_time"]).all()
    assert (r.jobs["end_time"] > r.jobs["start_time"]).all()
    S = sim.state
    assert len(job_rows(sim)) == len(jobs)
    for j in job_rows(sim):
        assert S.I[j, K.J_DONE] == S.I[j, K.J_NPROCS]
        for p in proc_rows(sim, j):
            # Every message sent was received once: nothing left in an endpoint.
            assert S.I[p, K.P_INBOX0] == 0 and S.I[p, K.P_INBOX1] == 0
            assert S.I[p, K.P_IT] == S.I[j, K.J_NITER]
    assert r.messages_sent == r.messages_received
    # CPU busy time never exceeds wall time, and the breakdown adds up.
    for c in ("compute", "spin", "context_switch", "interrupt", "queue", "endpoint_check"):
        assert (r.nodes[c] >= -1e-12).all()
    busy = r.nodes[
        ["compute", "spin", "context_switch", "interrupt", "queue", "endpoint_check"]
    ].sum(axis=1)
    assert (busy <= r.end_time + 1e-9).all()
    # The compute done equals the compute the iterations asked for.
    m = ts_summary(r, nodes=NODES)
    assert 0 <= m["frac_idle"] <= 1
    # No node holds more than MPL jobs (checked at the end: all freed).
    assert all(S.I[n, K.N_BUSY] == 0 and S.I[n, K.N_NPROCS] == 0 for n in range(NODES))


@settings(max_examples=25, deadline=None)
@given(
    jobs=st.lists(job, min_size=1, max_size=4),
    mpl=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_compute_time_matches_the_program(jobs, mpl, seed) -> None:
    # Without PB's polling tax, CPU compute seconds equal the sum of compute phases.
    sim, r = run_checked(jobs, "SB", mpl, 0.0, 4, seed)
    S = sim.state
    want = sum(S.F[j, K.J_COMP] * S.I[j, K.J_NITER] * S.I[j, K.J_NPROCS] for j in job_rows(sim))
    assert float(r.nodes["compute"].sum()) == pytest.approx(want, rel=1e-6)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    jobs=st.lists(job, min_size=3, max_size=10),
    scheme=st.sampled_from(sorted({**SCHEMES, **OTHER_SCHEMES})),
    mpl=st.integers(2, 5),
    seed=st.integers(0, 2**16),
)
def test_invariants_crowded(jobs, scheme, mpl, seed) -> None:
    # More jobs than cells: queueing, matrix rows and MLFQ contention all exercised.
    sim, r = run_checked(jobs, scheme, mpl, 1.5, 4, seed)
    assert r.unfinished == 0 and len(r.jobs) == len(jobs)
    assert r.messages_sent == r.messages_received
    S = sim.state
    assert all(S.I[j, K.J_DONE] == S.I[j, K.J_NPROCS] for j in job_rows(sim))
