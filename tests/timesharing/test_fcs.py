"""Flexible CoScheduling (flexible-coscheduling-fcs.txt, section 2): hand-checkable
scenarios of the classification (Algorithm 2) and the node manager (Algorithm 1)."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError, UnknownNameError, WorkloadError
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


def test_heartbeat_clock_classifies_after_cslots_min_heartbeats() -> None:
    # Three DC jobs (10 s of computation per communication) at MPL 3, one per matrix
    # row, cslots_MIN 4, heartbeats every 100 ms from 0.1 s. Assigned slots (the
    # default): row r's slot ends at heartbeats r + 1, r + 4, r + 7, r + 10, so row 0 is
    # evaluated first at heartbeat 10 (1.0 s), rows 1-2 at 11 and 12; at 0.41 s row 0
    # has had 2 slots and rows 1-2 one each, all CS. Heartbeat clock: every process
    # counts every heartbeat and is evaluated at the 4th (0.4 s): CS at 0.31 s (3 each),
    # DC at 0.41 s (cslots back to 0); with tslots_MAX 8 all six are reset to CS
    # together at the 8th heartbeat and DC again at the 12th (cslots 4 after the reset).
    jobs = [(0.0, 30.0, 2, 10.0, 1.0, 0)] * 3
    got = {}
    for clock in ("assigned", "heartbeat"):
        p = P.with_(fcs_cslots_min=4, fcs_tslots_max=8, fcs_slot_clock=clock)
        sim = TimeSharingSim(bsp_jobs(jobs, params=p), scheme="FCS", nodes=2, mpl=3,
                             rng=RNG(0), params=p)  # fmt: skip
        S = sim.state
        procs = range(2, 8)  # process rows follow the 2 node rows, job by job
        seen = []
        for horizon in (0.31, 0.41, 0.81, 1.01, 1.11, 1.21):
            sim.run(horizon=horizon)
            rows = [S.I[sim.jb + S.I[q, K.P_JOB], K.J_ROW] for q in procs]
            seen.append([(FCS_CLASSES[S.I[q, K.P_KLASS]], S.I[q, K.P_TSLOTS],
                          S.I[q, K.P_CSLOTS]) for q in procs])  # fmt: skip
        got[clock] = (rows, seen)
    rows, seen = got["assigned"]
    assert sorted(set(rows)) == [0, 1, 2] and rows[0] == rows[1]  # a job's two ranks
    for q, r in enumerate(rows):  # tslots: the ends of the process's own slots so far
        ends = [sum(1 for h in range(1, k + 1) if (h - 1) % 3 == r) for k in (3, 4, 8, 10, 11, 12)]
        assert [s[q][1] for s in seen] == ends
        first_dc = 3 * 3 + r + 1  # the heartbeat ending its 4th own slot
        klass = [s[q][0] for s in seen]
        assert klass == ["DC" if k >= first_dc else "CS" for k in (3, 4, 8, 10, 11, 12)]
    rows, seen = got["heartbeat"]
    want = [("CS", 3, 3), ("DC", 4, 0), ("CS", 8, 0), ("CS", 10, 2), ("CS", 11, 3),
            ("DC", 12, 0)]  # fmt: skip
    for k, w in enumerate(want):
        assert seen[k] == [w] * 6


def test_running_tcomm_leaves_out_a_receive_suspended_across_slots() -> None:
    # Six balanced 2-rank jobs (rings) on 2 PEs at MPL 6, one per row, 100 ms slots,
    # cslots_MIN 5. The grain puts the end of job 1's first slot (t = 0.1 s, no switch
    # before it) in the middle of a receive: 84.5 iterations of grain + L, then half a
    # latency of the 85th receive. Both ranks are suspended there for the 5 other slots
    # (5 x 100 ms plus switches) and find the message there when they resume. Wall
    # T_comm counts those 0.5 s: over about 410 receives by the end of its 5th own slot
    # (heartbeat 25, 2.5 s) g = grain + L + 0.5 s / 410, about 2.4 ms > CS_thresh
    # (2 ms), and T_cpu / C_comm = grain < F_thresh (1.7 ms): F. Counting only the time
    # spent spinning, polling or blocked, every receive of a lockstep ring waits at most
    # one latency in its slot: g <= grain + L = 1.185 ms < 2 ms, CS.
    base = P.with_(fcs_cslots_min=5)
    grain = (0.1 - 84.5 * base.latency) / 85
    jobs = [(0.0, 3.0, 2, grain, 1.0, 0)] * 6
    for tcomm, want in (("wall", "F"), ("running", "CS")):
        p = base.with_(fcs_tcomm=tcomm)
        w = bsp_jobs(jobs, params=p, ring=True)
        sim = TimeSharingSim(w, scheme="FCS", nodes=2, mpl=6, rng=RNG(0), params=p)
        S = sim.state
        sim.run(horizon=2.49)  # job 1 has had 4 own slots: not evaluated yet
        assert [S.I[q, K.P_TSLOTS] for q in (2, 3)] == [4, 4]
        assert S.F[2, K.P_TCOMM] > 0.5  # the suspended receive, in the wall count
        wait = S.F[2, K.P_SPIN_T] + S.F[2, K.P_BLOCKED_T]
        assert wait <= S.I[2, K.P_CCOMM] * p.latency * (1 + 1e-9)
        sim.run(horizon=2.51)
        assert [FCS_CLASSES[S.I[q, K.P_KLASS]] for q in (2, 3)] == [want, want]
        assert all(FCS_CLASSES[S.I[q, K.P_KLASS]] == "CS" for q in range(4, 14))


def test_cs_local_fills_a_hole_of_the_matrix_with_a_cs_process() -> None:
    # MPL 2 on 2 PEs, every process CS (cslots_MIN 1000), 100 ms slots, 2 ms switches.
    # Row 0: job A, one task of 1 s on PE 0 (PE 1 is a hole of row 0). Row 1: job B,
    # whose rank 1 (PE 1) computes 2 s and rank 0 (PE 0) next to nothing, then they
    # exchange one message. Default: B's rank 1 runs only in row 1's slots, 98 ms each
    # from 0.102 s: 10 slots (0.98 s) by 2.0 s; A ends at 2.0202 s, and from the
    # heartbeat at 2.1 s (a switch, 2 ms) row 1 runs alone: B ends at 2.102 + 1.02 + L.
    # With fcs_cs_local, the local scheduler runs B's rank 1 in row 0's hole as well:
    # it computes its 2 s losing at most a gang switch per heartbeat (21 by 2.1 s), one
    # context switch and its partner's wake-up. A, whose row 1 slot holds B's rank 0 on
    # PE 0 (a CS slot: it polls), ends at 2.0202 s either way.
    jobs = [(0.0, 1.0, 1, 1.0, 1.0, 0), (0.0, 2.0, 2, 2.0, 1e-6, 0)]
    ends = {}
    for cs_local in (0, 1):
        p = P.with_(fcs_cslots_min=1000, fcs_cs_local=cs_local)
        r = simulate(bsp_jobs(jobs, params=p), scheme="FCS", nodes=2, mpl=2, rng=RNG(0),
                     params=p)  # fmt: skip
        ends[cs_local] = r.jobs.sort_values("job_id")["end_time"].tolist()
    L = P.latency
    # A (1 s + L of work): 0.1 s, then 9 slots of 98 ms, the rest in the slot from 2.002 s
    a_end = 0.2 * 10 + 0.002 + (1.0 + L - 0.1 - 9 * 0.098)
    assert ends[0][0] == pytest.approx(a_end, abs=1e-9)
    assert ends[1][0] == pytest.approx(a_end, abs=1e-9)
    assert ends[0][1] == pytest.approx(2.1 + 0.002 + (2.0 - 10 * 0.098) + L, abs=1e-9)
    assert 2.0 + L < ends[1][1] <= 2.0 + 21 * 0.002 + 200e-6 + L + 1e-3


def test_bad_fcs_inputs_are_named() -> None:
    with pytest.raises(ConfigError, match="fcs_tslots_max"):
        TSParams(fcs_tslots_max=2.5)
    with pytest.raises(UnknownNameError, match="FCS slot clock 'heartbeats'"):
        TSParams(fcs_slot_clock="heartbeats")
    with pytest.raises(UnknownNameError, match="FCS T_comm reading 'cpu'"):
        TSParams(fcs_tcomm="cpu")
    with pytest.raises(ConfigError, match="fcs_cs_local must be 0 or 1"):
        TSParams(fcs_cs_local=2)
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


def test_a_cs_process_that_becomes_dc_gives_its_slot_to_the_local_scheduler() -> None:
    # Algorithm 2 reclassifies a process at the end of its assigned slot; Algorithm 1
    # runs the slot's process alone only "if type of next_process is CS", else "let
    # local OS scheduler schedule all processes" (FCS paper, section 2.2). Two PEs, MPL
    # 2, 100 ms slots, 2 ms switches, cslots_MIN 2. Row 0: job A, whose rank 0 (PE 0)
    # computes next to nothing and waits for rank 1 (PE 1), which computes 2 s first.
    # Row 1: job C, one task of 1 s + L on PE 0. Rows alternate from row 0 at 0 s.
    # A's ranks complete no receive (C_comm 0: infinite g): CS after their 1st own slot
    # (0.1 s, cslots 1 < 2), DC after their 2nd (0.3 s). C (no communication either):
    # CS at 0.3 s, DC at 0.4 s. While rank 0 is CS its slots are its own and it polls
    # in them: C computes only in row 1's slots, 98 ms each from 0.102 s, 10 by 2.0 s,
    # and ends at 2.102 + (1 + L - 0.98). Once rank 0 is DC (0.3 s), its slot is a local
    # one; from 0.4 s (C DC too) C computes in every slot, losing 2 ms per heartbeat
    # (nine, 0.4-1.2 s), a 120 us spin of rank 0 and a context switch or two: after the
    # 0.196 s of its two own slots, C ends at 0.4 + (1 + L - 0.196) + 9 x 0.002.
    jobs = [(0.0, 2.0, 2, 2.0, 1e-6, 0), (0.0, 1.0, 1, 1.0, 1.0, 0)]
    L = P.latency
    A0, A1, C = 2, 3, 4  # process rows follow the 2 node rows, job by job
    p = P.with_(fcs_cslots_min=2)
    sim = TimeSharingSim(bsp_jobs(jobs, params=p), scheme="FCS", nodes=2, mpl=2,
                         rng=RNG(0), params=p)  # fmt: skip
    S = sim.state
    seen = []
    for horizon in (0.05, 0.15, 0.25, 0.35, 0.45):
        sim.run(horizon=horizon)
        assert [S.I[q, K.P_NODE] for q in (A0, A1, C)] == [0, 1, 0]
        seen.append([FCS_CLASSES[S.I[q, K.P_KLASS]] for q in (A0, A1, C)])
        if horizon == 0.25:  # row 0's slot, rank 0 CS: it holds PE 0, polling
            assert S.I[0, K.N_MODE] == K.MODE_CS and S.I[0, K.N_CUR] == A0
    assert seen == [["CS"] * 3] * 3 + [["DC", "DC", "CS"], ["DC"] * 3]
    # row 0's slot again (0.4-0.5 s), rank 0 now DC: a local slot, C on PE 0
    assert S.I[0, K.N_MODE] == K.MODE_LOCAL and S.I[0, K.N_CUR] == C
    c_end = float(sim.run().jobs.set_index("job_id").loc[2, "end_time"])
    leave = 0.4 + (1.0 + L - 0.196) + 9 * 0.002
    assert leave <= c_end <= leave + 1e-3
    # The same workload with rank 0 never reclassified (cslots_MIN 1000): it keeps its
    # slot, and C computes in row 1's slots only.
    q = P.with_(fcs_cslots_min=1000)
    r = simulate(bsp_jobs(jobs, params=q), scheme="FCS", nodes=2, mpl=2, rng=RNG(0), params=q)
    keep = float(r.jobs.set_index("job_id").loc[2, "end_time"])
    assert keep == pytest.approx(2.102 + (1.0 + L - 0.98), abs=1e-9)


def test_cs_slots_become_local_once_the_imbalanced_ranks_are_f_and_dc() -> None:
    # Section 3.2's pair at MPL 2, cslots_MIN 5: row 0 (job 1) has its own slots end at
    # heartbeats 1, 3, 5, 7, 9 and is first evaluated at the 9th (0.9 s), row 1 (job 2)
    # at the 10th (1.0 s); Algorithm 2 makes the fast ranks F and the slow ones DC. At
    # 0.95 s row 1 is active and job 2 still CS: every PE is in a CS slot, held by job
    # 2's rank. At 1.05 s (row 0, job 1 F and DC) and 1.15 s (row 1, job 2 F and DC)
    # Algorithm 1 takes its else branch: every PE is a local slot.
    w = bsp_jobs([(0.0, 6.0, 4, GRAIN, SLOW, 1), (0.0, 6.0, 4, GRAIN, SLOW, 0)], params=P)
    sim = TimeSharingSim(w, scheme="FCS", nodes=4, mpl=2, rng=RNG(0), params=P)
    S = sim.state
    job1, job2 = range(4, 8), range(8, 12)  # process rows follow the 4 node rows
    got = []
    for horizon in (0.85, 0.95, 1.05, 1.15):
        sim.run(horizon=horizon)
        klass = [FCS_CLASSES[S.I[q, K.P_KLASS]] for q in (*job1, *job2)]
        got.append((S.G[K.S_GSACTIVE], klass, [S.I[n, K.N_MODE] for n in range(4)]))
        if horizon == 0.95:  # the CS slots are held by job 2's ranks
            assert [S.I[n, K.N_CUR] for n in range(4)] == list(job2)
    cs, local = [K.MODE_CS] * 4, [K.MODE_LOCAL] * 4
    assert got == [
        (0, ["CS"] * 8, cs),
        (1, ["F", "DC", "F", "DC"] + ["CS"] * 4, cs),
        (0, ["F", "DC", "F", "DC", "DC", "F", "DC", "F"], local),
        (1, ["F", "DC", "F", "DC", "DC", "F", "DC", "F"], local),
    ]
