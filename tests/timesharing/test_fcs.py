"""Flexible CoScheduling (flexible-coscheduling-fcs.txt, section 2): hand-checkable
scenarios of the classification (Algorithm 2) and the node manager (Algorithm 1)."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError, WorkloadError
from cosched.timesharing import TSParams, simulate
from cosched.timesharing import kernel as K
from cosched.timesharing.engine import FCS_CLASSES, TimeSharingSim
from cosched.timesharing.workloads import bsp_jobs

RNG = np.random.default_rng
# The paper's T_slice (100 ms); 5 slots before a first evaluation keeps the runs short.
P = TSParams(gs_quantum=0.1, fcs_cslots_min=5)
GRAIN = 1e-3  # section 3: 1 ms of computation per iteration
# Footnote 4: the slow ranks compute a bit over twice as much, so that the job alone
# takes twice the balanced job's time (the communication time is unchanged). A slow
# rank finds its neighbours' messages waiting, so its iteration is its computation:
# slow * grain = 2 * (grain + L).
SLOW = 2 + 2 * P.latency / GRAIN


def classes(r, job_id: int) -> list[str]:
    p = r.procs[r.procs["job_id"] == job_id].sort_values("rank")
    return [FCS_CLASSES[k] for k in p["klass"]]


def test_balanced_fine_grained_jobs_run_as_under_gs() -> None:
    # Section 3.1: two identical 1 ms BSP jobs. Their granularity (1 ms + one latency,
    # 1.19 ms) is below CS_thresh (2 ms): every process stays CS, each slot is
    # gang-scheduled, and the jobs end when they end under GS.
    w = bsp_jobs([(0.0, 3.0, 4, GRAIN, 1.0, 0)] * 2, params=P)
    gs = simulate(w, scheme="GS", nodes=4, mpl=2, rng=RNG(0), params=P)
    fcs = simulate(w, scheme="FCS", nodes=4, mpl=2, rng=RNG(0), params=P)
    assert classes(fcs, 1) == classes(fcs, 2) == ["CS"] * 4
    assert (fcs.procs["cslots"] >= P.fcs_cslots_min).all()  # they were evaluated
    np.testing.assert_allclose(fcs.jobs["end_time"], gs.jobs["end_time"], rtol=1e-12)
    # GS's time: each job gets every other 100 ms slot, 2 ms switch per slot.
    assert float(gs.jobs["end_time"].max()) == pytest.approx(2 * 3.0 * 1.02, rel=0.02)


def test_imbalanced_jobs_fast_ranks_are_f_and_the_gaps_are_filled() -> None:
    # Section 3.2: job 1's odd ranks and job 2's even ranks compute SLOW x 1 ms. A fast
    # rank computes 1 ms (below F_thresh = 1.7 ms) and then waits for its slow
    # neighbours, so its granularity exceeds 2 ms: F. A slow rank computes 2.37 ms per
    # communication (above F_thresh) at a granularity above 2 ms: DC.
    w = bsp_jobs([(0.0, 6.0, 4, GRAIN, SLOW, 1), (0.0, 6.0, 4, GRAIN, SLOW, 0)], params=P)
    runs = {s: simulate(w, scheme=s, nodes=4, mpl=2, rng=RNG(0), params=P) for s in ("GS", "FCS")}
    fcs, gs = runs["FCS"], runs["GS"]
    assert classes(fcs, 1) == ["F", "DC", "F", "DC"]
    assert classes(fcs, 2) == ["DC", "F", "DC", "F"]
    # GS leaves a fast rank's CPU idle (spinning) while it waits: each job alone takes
    # 2 x 6 s, and the two alternate: about 24 s. A node's work is one slow and one
    # fast process: (SLOW + 1) ms per iteration of 1.185 ms ideal, i.e. 6 x 3.37 /
    # 1.185 = 17.1 s; FCS, filling the fast ranks' waits with the other job's slow
    # rank, must stay above that and well below GS.
    gs_end = float(gs.jobs["end_time"].max())
    fcs_end = float(fcs.jobs["end_time"].max())
    work = 6.0 * (SLOW + 1) * GRAIN / (GRAIN + P.latency)
    assert gs_end == pytest.approx(2 * 2 * 6.0, rel=0.1)
    assert work < fcs_end < 0.9 * gs_end
    assert float(fcs.nodes["spin"].sum()) < 0.5 * float(gs.nodes["spin"].sum())


def test_a_job_that_hardly_communicates_is_dc() -> None:
    # 10 s of computation per communication (above DC_thresh = 1 s): DC. A one-task job
    # never communicates (no blocking call, infinite granularity): DC as well.
    w = bsp_jobs([(0.0, 4.0, 2, 10.0, 1.0, 0), (0.0, 4.0, 1, GRAIN, 1.0, 0)], params=P)
    sim = TimeSharingSim(w, scheme="FCS", nodes=2, mpl=2, rng=RNG(0), params=P)
    sim.run(horizon=2.05)  # 20 slots of 100 ms: each job had 10 of its own
    S = sim.state
    procs = range(2, 5)  # process rows follow the 2 node rows
    assert [FCS_CLASSES[S.I[p, K.P_KLASS]] for p in procs] == ["DC", "DC", "DC"]


def test_reclassification_resets_to_cs_every_tslots_max() -> None:
    # Algorithm 2 with cslots_MIN = 2 and tslots_MAX = 8, one job in one row (every
    # slot is its own). Slot 1: cslots 1 < 2, still CS. Slot 2: evaluated, DC (cslots
    # back to 0). Slots 3-7: DC. Slot 8: tslots mod 8 == 0, reset to CS (cslots 0).
    # Slot 9: cslots 1, not evaluated: CS. Slot 10: DC again. Slot 16: CS again.
    p = P.with_(fcs_cslots_min=2, fcs_tslots_max=8)
    w = bsp_jobs([(0.0, 30.0, 2, 10.0, 1.0, 0)], params=p)
    sim = TimeSharingSim(w, scheme="FCS", nodes=2, mpl=1, rng=RNG(0), params=p)
    S = sim.state
    seen = []
    for k in range(1, 18):
        sim.run(horizon=k * 0.1 + 0.01)
        assert S.I[2, K.P_TSLOTS] == k
        seen.append(FCS_CLASSES[S.I[2, K.P_KLASS]])
    want = ["CS"] + ["DC"] * 6 + ["CS", "CS"] + ["DC"] * 6 + ["CS", "CS"]
    assert seen == want


def test_bad_fcs_inputs_are_named() -> None:
    with pytest.raises(ConfigError, match="fcs_tslots_max"):
        TSParams(fcs_tslots_max=2.5)
    with pytest.raises(ConfigError, match="bsp job 1"):
        bsp_jobs([(0.0, 1.0, 2, 0.0, 1.0, 0)])
    w = bsp_jobs([(0.0, 1.0, 2, GRAIN, 1.0, 0)])
    t = w.table.copy()
    t["imbalance"] = -1.0
    from cosched.workload.job import Workload

    with pytest.raises(WorkloadError, match="imbalance must be > 0"):
        simulate(Workload.from_table(t, name="x"), scheme="FCS", nodes=2, rng=RNG(0))


def test_the_fcs_reproduction_spec_and_a_small_cell() -> None:
    from cosched.experiments.model import CellEnv
    from cosched.experiments.reproductions import spec
    from cosched.timesharing.fcs_experiment import run_cell

    tasks = spec("fcs", quick=True).tasks()
    # four scenarios x FCFS, GS, SB, FCS; three section 4 pairs; the dynamic workload at
    # six loads and Figure 9's set at two, x the same
    assert len(tasks) == 4 * 4 + 3 * 4 + 6 * 4 + 2 * 4
    base = {"scenario": "imbalanced", "nodes": 2, "job_time": 2.0, "grain": GRAIN,
            "quantum": 0.1, "cslots_min": 5}  # fmt: skip
    out = {s: run_cell({**base, "scheme": s}, 1, CellEnv()) for s in ("FCFS", "GS", "FCS")}
    # FCFS: the imbalanced job alone takes twice the balanced one (2 s): 4 s, then 8 s.
    assert out["FCFS"]["job1_end"] == pytest.approx(4.0, rel=0.01)
    assert out["FCFS"]["turnaround"] == pytest.approx(8.0, rel=0.01)
    assert out["FCS"]["procs_f"] == 2 and out["FCS"]["procs_dc"] == 2
    assert out["FCS"]["turnaround"] < 0.9 * out["GS"]["turnaround"]
