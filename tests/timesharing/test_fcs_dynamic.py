"""The FCS paper's dynamic workload (section 5.1): the EASY front with estimates times
the MPL, and the workload's jobs, in hand-checkable scenarios."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import WorkloadError
from cosched.timesharing import TSParams, simulate
from cosched.timesharing.workloads import APP_KINDS, DYNAMIC_KINDS, bsp_jobs, dynamic_workload
from cosched.workload.transforms import offered_load

RNG = np.random.default_rng
P = TSParams(gs_quantum=0.1)
G = 0.5  # a coarse grain: few events, and the jobs' times are easy to follow


def starts(r) -> dict[int, float]:
    j = r.jobs.set_index("job_id")
    return {int(k): float(v) for k, v in j["start_time"].items()}


def test_batch_easy_backfills_behind_the_head() -> None:
    # FCFS with backfilling is the gang matrix with one row (MPL 1: estimates x 1).
    # 4 nodes. A (2 tasks, 10 s) starts at 0; the head B (4 tasks) waits for A: its
    # reservation is A's estimated end, 10 s, on all 4 nodes. C (2 tasks, 5 s) fits now
    # and ends by 10 s: it backfills at 0. D (2 tasks, 12 s) fits once C ends (at 5 s),
    # but would still hold 2 of B's nodes at 10 s: it waits for B (ends at 20 s).
    jobs = [(0.0, 10.0, 2, G, 1.0, 0), (0.0, 10.0, 4, G, 1.0, 0), (0.0, 5.0, 2, G, 1.0, 0),
            (0.0, 12.0, 2, G, 1.0, 0)]  # fmt: skip
    w = bsp_jobs(jobs, params=P)
    easy = simulate(w, scheme="GS", nodes=4, mpl=1, rng=RNG(0), params=P, easy=True, check=True)
    s, end = starts(easy), easy.jobs.set_index("job_id")["end_time"]
    assert s[1] == s[3] == 0.0
    assert s[2] == pytest.approx(10.0, rel=1e-3) and s[2] == end[1]  # B at A's end
    assert s[4] == end[2] == pytest.approx(20.0, rel=1e-3)  # D after B, not before
    fcfs = simulate(w, scheme="GS", nodes=4, mpl=1, rng=RNG(0), params=P)
    assert starts(fcfs)[3] == fcfs.jobs.set_index("job_id")["end_time"][2]  # C after B


@pytest.mark.parametrize("scheme", ["GS", "FCS"])
def test_estimates_are_multiplied_by_the_mpl(scheme: str) -> None:
    # Gang matrix, MPL 2, 4 nodes. A (2 tasks, 10 s) takes row 0 on nodes 0-1 and B
    # (4 tasks, 100 s) row 1, so each gets every other slot. The head C (4 tasks) fits
    # nowhere: row 0 frees at A's estimated end, 0 + 10 x MPL = 20 s (row 1 at 200 s),
    # so C is promised row 0 at 20 s. D (2 tasks, 7 s) arrives at 5 s and fits in row 0
    # now; by its estimate, 5 + 7 x 2 = 19 s <= 20 s, it ends before C's reservation and
    # backfills at once. (Estimates not multiplied by the MPL would promise C 10 s and
    # send D, ending by 5 + 7 = 12 s, back to the queue.) A D of 8 s (5 + 16 > 20, and it
    # would hold 2 of C's 4 cells) waits for C.
    for run_d, backfills in ((7.0, True), (8.0, False)):
        jobs = [(0.0, 10.0, 2, G, 1.0, 0), (0.0, 100.0, 4, G, 1.0, 0),
                (0.0, 10.0, 4, G, 1.0, 0), (5.0, run_d, 2, G, 1.0, 0)]  # fmt: skip
        r = simulate(bsp_jobs(jobs, params=P), scheme=scheme, nodes=4, mpl=2, rng=RNG(0),
                     params=P, easy=True, check=True)  # fmt: skip
        s, end = starts(r), r.jobs.set_index("job_id")["end_time"]
        assert s[3] == end[1] > 20.0  # C at A's end (A gets half the slots: about 20 s)
        if backfills:
            assert s[4] == 5.0 and end[4] <= s[3]
        else:
            assert s[4] >= end[3]


def test_the_head_starts_when_an_mpl_slot_frees() -> None:
    # SB, MPL 2, 2 nodes: A and B (2 tasks each) take both slots of both nodes; C waits
    # and starts at the instant the first of them ends.
    jobs = [(0.0, 4.0, 2, G, 1.0, 0), (0.0, 6.0, 2, G, 1.0, 0), (1.0, 2.0, 2, G, 1.0, 0)]
    r = simulate(bsp_jobs(jobs, params=P), scheme="SB", nodes=2, mpl=2, rng=RNG(0), params=P,
                 easy=True, check=True)  # fmt: skip
    s, end = starts(r), r.jobs.set_index("job_id")["end_time"]
    assert s[1] == s[2] == 0.0
    assert s[3] == min(end[1], end[2])


def test_dynamic_workload_load_and_isolated_times() -> None:
    # Offered load as section 5.1 defines it, on isolated run times; every kind occurs;
    # and each kind's job alone takes its isolated time (requested_time).
    w = dynamic_workload(60, rng=RNG(3), pes=8, load=0.7, max_run=20.0, params=P)
    t = w.table
    iso = t["run_time"].where(t["imbalance"] == 1.0, 2 * t["run_time"])
    np.testing.assert_allclose(t["requested_time"], iso)
    span = float(t["submit_time"].max())
    assert float((t["requested_time"] * t["procs"]).sum()) / (8 * span) == pytest.approx(0.7)
    assert offered_load(w, 8) <= 0.7  # run_time is the block; imbalanced jobs take 2x
    assert set(t["kind"]) == set(DYNAMIC_KINDS)
    for kind in DYNAMIC_KINDS:
        row = t[(t["kind"] == kind) & (t["procs"] > 1)].iloc[:1].copy()
        row["submit_time"] = 0.0
        alone = simulate(type(w).from_table(row, name="one"), scheme="GS", nodes=8, mpl=1,
                         rng=RNG(0), params=P)  # fmt: skip
        want = float(row["requested_time"].iloc[0])
        assert float(alone.jobs["end_time"].iloc[0]) == pytest.approx(want, rel=0.01), kind


def test_figure9_set_sage_alone_takes_its_isolated_time() -> None:
    # SAGE's skeleton: one rank in four computes 8 ms, the others 1.5 ms and wait for
    # it, so alone it runs n_iter x 8 ms, its requested_time; both kinds occur.
    w = dynamic_workload(40, rng=RNG(4), pes=8, load=0.7, max_run=20.0, params=P,
                         kinds=APP_KINDS)  # fmt: skip
    t = w.table
    assert set(t["kind"]) == set(APP_KINDS)
    sage = t[(t["kind"] == "sage") & (t["procs"] >= 4)].iloc[:1].copy()
    sage["submit_time"] = 0.0
    alone = simulate(type(w).from_table(sage, name="one"), scheme="GS", nodes=8, mpl=1,
                     rng=RNG(0), params=P)  # fmt: skip
    want = float(sage["requested_time"].iloc[0])
    assert float(alone.jobs["end_time"].iloc[0]) == pytest.approx(want, rel=0.01)
    slow = alone.procs["compute"].to_numpy() > 2 * alone.procs["compute"].min()
    assert slow.sum() == -(-int(sage["procs"].iloc[0]) // 4)  # one rank in four


def test_a_four_way_node_runs_its_four_ranks_at_once() -> None:
    # Two 4-way nodes are 8 processing elements (kernel rows), ranks placed in order, so
    # ranks 0-3 share node 0 and 4-7 node 1. An 8-rank job whose second node computes
    # SLOW x the 1 ms grain (imbalance_block 4: alternating nodes, section 3.2's "every
    # alternating node (four processes)"). Each PE runs its own rank: the slow ranks
    # exchange with each other in one latency L, so an iteration lasts SLOW g + L
    # (the fast node's messages arrive in time), and the job ends after n_iter of them,
    # not after 4 x a rank's work as if the node's four ranks took turns on one CPU.
    g, slow = 1e-3, 3.0
    lat = P.latency
    w = bsp_jobs([(0.0, 2.0, 8, g, slow, 1, 4, 2)], params=P)
    r = simulate(w, scheme="GS", nodes=8, mpl=1, rng=RNG(0), params=P, check=True)
    n_iter = round(2.0 / (g + lat))
    comp = r.procs.sort_values("rank")["compute"].to_numpy()
    np.testing.assert_allclose(comp, [n_iter * g] * 4 + [n_iter * slow * g] * 4, rtol=1e-9)
    assert float(r.jobs["end_time"].iloc[0]) == pytest.approx(n_iter * (slow * g + lat), rel=0.01)
    per_node = comp[4:].sum()  # what node 1's ranks computed in all
    assert float(r.jobs["end_time"].iloc[0]) < 0.3 * per_node


@pytest.mark.parametrize("f_preempt", [1, 0])
def test_a_woken_f_process_preempts_only_if_fcs_f_preempt(f_preempt: int) -> None:
    # Node 0 in a local (non-CS) slot of job 1, whose process q there is F, blocked in a
    # receive; job 2's DC process d runs, at the same (top) level. q's message arrives:
    # with fcs_f_preempt 1 the slot's F process takes the CPU at the next 1 ms tick;
    # with 0 it waits, first in line, until d gives the CPU up (same level: the MLFQ
    # does not preempt).
    from cosched.timesharing import kernel as K
    from cosched.timesharing.engine import TimeSharingSim

    w = bsp_jobs([(0.0, 5.0, 2, 1e-3, 1.0, 0)] * 2, params=P)
    sim = TimeSharingSim(w, scheme="FCS", nodes=2, mpl=2, rng=RNG(0),
                         params=P.with_(fcs_f_preempt=f_preempt))  # fmt: skip
    sim.run(horizon=0.0)
    S = sim.state
    jb = int(S.G[K.S_JB])
    q, d = int(S.I[jb, K.J_P0]), int(S.I[jb + 1, K.J_P0])  # rank 0 of each job
    n = int(S.I[q, K.P_NODE])
    assert n == int(S.I[d, K.P_NODE]) == 0 and int(S.G[K.S_GSACTIVE]) == 0
    S.I[n, K.N_MODE] = K.MODE_LOCAL
    S.I[q, K.P_KLASS], S.I[d, K.P_KLASS] = K.CL_F, K.CL_DC
    S.I[n, K.N_CUR] = S.I[n, K.N_LAST] = d
    S.I[d, K.P_STATE] = K.RUNNING
    S.I[d, K.P_LEVEL] = S.I[q, K.P_LEVEL] = S.G[K.F_TOP]
    S.I[q, K.P_STATE], S.I[q, K.P_INRECV], S.I[q, K.P_WAITING] = K.BLOCKED, 1, 1
    S.I[q, K.P_INBOX1] = 0
    S.F[n, K.N_PRE] = np.inf
    K.arrive(S, q, 1, 0.0105)
    assert S.I[q, K.P_STATE] == K.READY
    K.node_event(S, n, 0.011)
    assert int(S.I[n, K.N_CUR]) == (q if f_preempt else d)


@pytest.mark.parametrize("procs", [1, 2, 5])
def test_a_ring_job_exchanges_with_both_neighbours_every_iteration(procs: int) -> None:
    # Section 3's building block: "a nearest-neighbor, ring pattern". Alone on its own
    # PEs a balanced job's iteration is g + L on a ring as on a chain, so it ends after
    # its run time; on a ring every rank sends two messages an iteration (to its left and
    # right neighbours, the same process when there are two ranks), on a chain the end
    # ranks send one; a single rank has no neighbour on either.
    g, run = 1e-3, 1.0
    n_iter = round(run / (g + P.latency))
    for ring in (False, True):
        w = bsp_jobs([(0.0, run, procs, g, 1.0, 0)], params=P, ring=ring)
        r = simulate(w, scheme="GS", nodes=procs, mpl=1, rng=RNG(0), params=P, check=True)
        sent = r.procs.sort_values("rank")["sent"].to_numpy()
        if procs == 1:
            want = [0]
        elif ring:
            want = [2 * n_iter] * procs
        else:
            want = [n_iter] + [2 * n_iter] * (procs - 2) + [n_iter]
        assert sent.tolist() == want
        assert int(r.procs["received"].sum()) == int(sent.sum())
        assert float(r.jobs["end_time"].iloc[0]) == pytest.approx(run, rel=0.01)


def test_ring_must_be_zero_or_one() -> None:
    w = bsp_jobs([(0.0, 1.0, 2, 1e-3, 1.0, 0)], params=P)
    t = w.table.copy()
    t["ring"] = 2
    with pytest.raises(WorkloadError, match="ring must be 0"):
        simulate(type(w).from_table(t, name="bad"), scheme="GS", nodes=2, mpl=1,
                 rng=RNG(0), params=P)  # fmt: skip
