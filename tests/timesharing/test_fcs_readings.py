"""The readings of the FCS paper's section 5 (docs/timesharing-fidelity.md, "Figure 7's saturation,
re-read"): whole-node batch allocation, offered load set by run times, requests above
the isolated run time, and the accepted load while jobs arrive; hand-checked."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cosched.errors import ConfigError, UnknownNameError
from cosched.experiments.model import CellEnv
from cosched.metrics import accepted_saturation
from cosched.timesharing import TSParams, simulate
from cosched.timesharing.fcs_claims import claims
from cosched.timesharing.fcs_experiment import _params, queue_accepted, run_cell, window_accepted
from cosched.timesharing.fcs_report import _readings_text, accepted_saturation_by_scheme
from cosched.timesharing.workloads import (
    DYNAMIC_KINDS,
    DYNAMIC_MIXES,
    bsp_jobs,
    dynamic_workload,
    whole_nodes,
)
from cosched.workload.job import Workload

RNG = np.random.default_rng
P = TSParams(gs_quantum=0.1)
G = 0.5


def starts(r) -> dict[int, float]:
    return {int(k): float(v) for k, v in r.jobs.set_index("job_id")["start_time"].items()}


def test_whole_nodes_divides_the_ranks_and_keeps_the_time() -> None:
    # Sizes 1, 2, 3, 4, 8 on 2-way nodes take 1, 1, 2, 2, 4 nodes; the 2-rank job that
    # becomes one rank is made serial, of its isolated time (requested_time), and so is
    # the imbalanced one (alone it took twice its block: 2 x 3 s).
    jobs = [(0.0, 4.0, 1, G, 1.0, 0), (0.0, 4.0, 2, G, 1.0, 0), (0.0, 4.0, 3, G, 1.0, 0),
            (0.0, 4.0, 4, G, 1.0, 0), (0.0, 4.0, 8, G, 1.0, 0),
            (0.0, 3.0, 2, G, 2 + 2 * P.latency / G, 1)]  # fmt: skip
    w = bsp_jobs(jobs, params=P)
    t = w.table.copy()
    t.loc[5, "requested_time"] = 6.0
    n = whole_nodes(Workload.from_table(t, name="w"), 2).table
    assert n["procs"].tolist() == [1, 1, 2, 2, 4, 1]
    assert n["run_time"].tolist() == [4.0, 4.0, 4.0, 4.0, 4.0, 6.0]
    assert n["imbalance"].tolist()[5] == 1.0
    with pytest.raises(ConfigError, match="node_pes"):
        whole_nodes(w, 0)


def test_batch_on_whole_nodes_leaves_the_spare_pe_idle() -> None:
    # 4 PEs, 2-way nodes, batch (MPL 1). Three serial 10 s jobs at 0: PE by PE all
    # three start at once; on whole nodes two take the two nodes and the third waits
    # for the first to end (10 s), though a PE of each node is idle.
    w = bsp_jobs([(0.0, 10.0, 1, G, 1.0, 0)] * 3, params=P)
    pe = simulate(w, scheme="GS", nodes=4, mpl=1, rng=RNG(0), params=P, easy=True, check=True)
    assert list(starts(pe).values()) == [0.0, 0.0, 0.0]
    node = simulate(whole_nodes(w, 2), scheme="GS", nodes=2, mpl=1, rng=RNG(0), params=P,
                    easy=True, check=True)  # fmt: skip
    s, end = starts(node), node.jobs.set_index("job_id")["end_time"]
    assert s[1] == s[2] == 0.0
    assert s[3] == end[1] == pytest.approx(10.0, rel=1e-3)


def test_every_job_alone_on_whole_nodes_runs_its_isolated_time() -> None:
    # The equivalence whole_nodes rests on: on its nodes, a job of every kind and size
    # runs its isolated time (requested_time), as on PEs.
    w = dynamic_workload(40, rng=RNG(5), pes=8, load=0.7, max_run=20.0, params=P)
    n = whole_nodes(w, 2)
    for k in range(len(n)):
        row = n.table.iloc[[k]].copy()
        row["submit_time"] = 0.0
        alone = simulate(Workload.from_table(row, name="one"), scheme="GS", nodes=4, mpl=1,
                         rng=RNG(0), params=P)  # fmt: skip
        want = float(row["requested_time"].iloc[0])
        got = float(alone.jobs["end_time"].iloc[0])
        assert got == pytest.approx(want, rel=0.02), (k, row["procs"].iloc[0], row["kind"].iloc[0])


def test_load_by_runtimes_keeps_the_arrivals_and_scales_the_runs() -> None:
    # Section 5.2's reading: arrivals those of offered load 1, every run time times the
    # load; the offered load (section 5.1's formula) is the load; at load 1 both
    # readings are the same workload.
    args = {"pes": 8, "max_run": 20.0, "params": P}
    one = dynamic_workload(50, rng=RNG(6), load=1.0, **args).table  # type: ignore[arg-type]
    same = dynamic_workload(50, rng=RNG(6), load=1.0, load_by="runtimes", **args).table  # type: ignore[arg-type]
    assert one.equals(same)
    r = dynamic_workload(50, rng=RNG(6), load=0.8, load_by="runtimes", **args).table  # type: ignore[arg-type]
    a = dynamic_workload(50, rng=RNG(6), load=0.8, **args).table  # type: ignore[arg-type]
    np.testing.assert_array_equal(r["submit_time"], one["submit_time"])
    np.testing.assert_allclose(r["requested_time"], 0.8 * one["requested_time"], rtol=1e-12)
    np.testing.assert_allclose(r["run_time"], 0.8 * one["run_time"], rtol=1e-12)
    np.testing.assert_allclose(a["submit_time"], one["submit_time"] / 0.8, rtol=1e-12)
    offered = float((r["requested_time"] * r["procs"]).sum()) / (8 * r["submit_time"].max())
    assert offered == pytest.approx(0.8)
    with pytest.raises(ConfigError, match="load_by"):
        dynamic_workload(5, rng=RNG(6), load=0.8, load_by="both", **args)  # type: ignore[arg-type]


def test_requests_above_the_run_time_refuse_a_backfill() -> None:
    # Batch EASY on 4 PEs. A (2 tasks, 10 s) runs; the head B (4 tasks) is promised A's
    # estimated end; D (2 tasks, 9.4 s) arrives at 1 s and fits now. Exact requests:
    # B is promised 10 s and D's estimate ends at 1 + 9.4 = 10.4 > 10, on 2 of B's 4
    # PEs: D waits. Requests twice the run time: B is promised 20 s and D's estimate
    # ends at 1 + 18.8 = 19.8 <= 20: D backfills at 1 s (the reservation moved out
    # with A's estimate further than D's did).
    for est, backfills in ((1.0, False), (2.0, True)):
        jobs = [(0.0, 10.0, 2, G, 1.0, 0), (0.0, 10.0, 4, G, 1.0, 0), (1.0, 9.4, 2, G, 1.0, 0)]
        t = bsp_jobs(jobs, params=P).table.copy()
        t["requested_time"] = t["requested_time"] * est
        r = simulate(Workload.from_table(t, name="w"), scheme="GS", nodes=4, mpl=1,
                     rng=RNG(0), params=P, easy=True, check=True)  # fmt: skip
        s = starts(r)
        assert (s[3] == 1.0) is backfills


def test_window_accepted_counts_the_work_done_by_the_last_arrival() -> None:
    # 2 PEs, last arrival at 10 s. Job 1 (work 2 x 5 PE-s) ran 0-5: all of it; job 2
    # (work 1 x 8) ran 6-14: 4 of its 8 s by 10, half; job 3 arrived at 10, not started.
    # Work done by 10 s: 10 + 4 = 14 PE-s of 2 x 10 = 20: 0.7.
    got = window_accepted(np.array([0.0, 1.0, 10.0]), np.array([0.0, 6.0, 12.0]),
                          np.array([5.0, 14.0, 13.0]), np.array([10.0, 8.0, 1.0]), 2)  # fmt: skip
    assert got == pytest.approx(0.7)


def test_queue_accepted_counts_the_work_that_left_the_queue_by_the_last_arrival() -> None:
    # The same three jobs on 2 PEs, last arrival at 10 s. Jobs 1 and 2 started by 10 s
    # and count whole (10 + 8 PE-s, job 2 half done); job 3 is still queued at 10 s.
    # (10 + 8) / (2 x 10) = 0.9, where the work done is 0.7.
    submit, start = np.array([0.0, 1.0, 10.0]), np.array([0.0, 6.0, 12.0])
    work = np.array([10.0, 8.0, 1.0])
    assert queue_accepted(submit, start, work, 2) == pytest.approx(0.9)
    # A job that starts at the last arrival has left the queue: an empty queue at T
    # gives the offered load, (10 + 8 + 1) / 20.
    assert queue_accepted(submit, np.array([0.0, 6.0, 10.0]), work, 2) == pytest.approx(0.95)


def test_figure_7_saturation_claims_read_the_queue() -> None:
    # One seed, two schemes, three loads. FCFS keeps up to 0.6 by both readings (queue
    # 0.5, 0.6, then 0.6 < 0.95 x 0.7); FCS keeps up to 0.7 by the queue but only to 0.5
    # by the work done (0.5 < 0.95 x 0.6). The claims take the queue: FCS 0.7, FCFS 0.6,
    # FCS - FCFS +0.1.
    rows = []
    for scheme, queue, done in (("FCFS", (0.5, 0.6, 0.6), (0.5, 0.6, 0.6)),
                                ("FCS", (0.5, 0.6, 0.7), (0.5, 0.5, 0.5))):  # fmt: skip
        for load, q, d in zip((0.5, 0.6, 0.7), queue, done, strict=True):
            rows.append({"scenario": "dynamic", "scheme": scheme, "seed": 1, "load": load,
                         "queue_accepted": q, "window_accepted": d})  # fmt: skip
    dyn = pd.DataFrame(rows)
    by_queue = accepted_saturation_by_scheme(dyn)
    by_done = accepted_saturation_by_scheme(dyn, "window_accepted")
    assert by_queue[("FCS", 1)].bounded_load == 0.7 and by_queue[("FCFS", 1)].bounded_load == 0.6
    assert by_done[("FCS", 1)].bounded_load == 0.5
    got = {c.id: c.measure(dyn) for c in claims() if c.id.startswith("fig7-saturation")}
    assert got["fig7-saturation-FCS"].tolist() == [0.7]
    assert got["fig7-saturation-FCFS"].tolist() == [0.6]
    assert got["fig7-saturation-FCS-above-FCFS"] == pytest.approx([0.1])


def test_accepted_saturation_is_where_the_accepted_load_stops_keeping_up() -> None:
    # Capacity 0.8: accepted min(load, 0.8) x 0.99. Share 0.95 of the load is kept up to
    # 0.8 (0.792 >= 0.76); at 0.9, 0.792 < 0.855: saturated between 0.8 and 0.9.
    loads = [0.9, 0.5, 0.6, 0.7, 0.8, 1.0]
    acc = [0.99 * min(x, 0.8) for x in loads]
    s = accepted_saturation(loads, acc)
    assert (s.bounded_load, s.unbounded_load) == (0.8, 0.9) and s.label() == "0.8-0.9"
    # A run that keeps up above one that does not does not count.
    s = accepted_saturation([0.5, 0.6, 0.7], [0.5, 0.5, 0.7])
    assert (s.bounded_load, s.unbounded_load) == (0.5, 0.6)
    s = accepted_saturation([0.5, 0.6], [0.5, 0.6])
    assert s.bounded_load == 0.6 and math.isinf(s.unbounded_load)
    s = accepted_saturation([0.5, 0.6], [0.4, 0.6], share=0.9)
    assert math.isnan(s.bounded_load) and s.label() == "< 0.5"
    for bad in ({"share": 0.0}, {"share": 1.5}):
        with pytest.raises(ConfigError, match="share"):
            accepted_saturation([0.5], [0.5], **bad)
    with pytest.raises(ConfigError, match="twice"):
        accepted_saturation([0.5, 0.5], [0.5, 0.5])


def test_the_cell_refuses_an_unknown_reading() -> None:
    base = {"scenario": "dynamic", "scheme": "FCFS", "nodes": 4, "job_time": 15.0,
            "grain": 1e-3, "quantum": 0.1, "cslots_min": 20, "load": 0.7, "n_jobs": 10,
            "dyn_pes": 8, "dyn_mpl": 2, "max_run": 20.0, "time_scale": 10.0}  # fmt: skip
    for bad, word in (({"alloc": "socket"}, "alloc"), ({"load_by": "x"}, "load_by"),
                      ({"node_pes": 3}, "node_pes"), ({"estimate": 0.5}, "estimate")):  # fmt: skip
        with pytest.raises(ConfigError, match=word):
            run_cell({**base, **bad}, 1, CellEnv())


def test_the_cell_passes_fcs_classification_readings_to_the_model() -> None:
    # The fcs cell's slot_clock, tcomm and cs_local are TSParams' fcs_slot_clock,
    # fcs_tcomm and fcs_cs_local; unset, the model's defaults.
    base = {"quantum": 0.1, "cslots_min": 20}
    d = _params(base)
    assert (d.fcs_slot_clock, d.fcs_tcomm, d.fcs_cs_local) == ("assigned", "wall", 0)
    r = _params({**base, "slot_clock": "heartbeat", "tcomm": "running", "cs_local": 1})
    assert (r.fcs_slot_clock, r.fcs_tcomm, r.fcs_cs_local) == ("heartbeat", "running", 1)
    with pytest.raises(UnknownNameError, match="FCS slot clock"):
        _params({**base, "slot_clock": "tick"})
    # f_all and context_switch are fcs_f_all and context_switch (200 us unset).
    assert (d.fcs_f_all, d.context_switch) == (0, 200e-6)
    r = _params({**base, "f_all": 1, "context_switch": 5e-5})
    assert (r.fcs_f_all, r.context_switch) == (1, 5e-5)
    with pytest.raises(ConfigError, match="context_switch"):
        _params({**base, "context_switch": -1.0})


DYN = {"scenario": "dynamic", "scheme": "FCS", "nodes": 4, "job_time": 15.0, "grain": 1e-3,
       "quantum": 0.1, "cslots_min": 20, "load": 0.7, "n_jobs": 12, "dyn_pes": 8,
       "dyn_mpl": 2, "max_run": 20.0, "time_scale": 10.0}  # fmt: skip


def test_a_mix_of_one_kind_draws_only_that_kind_at_its_grain() -> None:
    # Each job's compute share of an iteration is grain / (grain + L) and its slow ranks
    # compute 2 + 2 L / grain of the grain (section 3.2's imbalance) or 1 (balanced):
    # a table of one kind gives every multi-rank job exactly that.
    lat = P.latency
    for grain, mult in ((5e-3, 1.0), (20e-3, None)):
        w = dynamic_workload(30, rng=RNG(3), pes=8, max_run=20.0, time_scale=10.0, params=P,
                             kinds={"only": (grain, mult, 2)})  # fmt: skip
        t = w.table
        assert set(t["kind"]) == {"only"}
        par = t[t["procs"] > 1]
        assert len(par) > 0
        assert np.allclose(par["dcs_comp"], grain / (grain + lat))
        assert np.allclose(par["imbalance"], 2 + 2 * lat / grain if mult is None else 1.0)


def test_every_named_mix_draws_from_its_own_table() -> None:
    # The mix changes the kinds only: sizes, arrivals and isolated run times (hence the
    # work with_accepted divides by the makespan) are those of the default.
    ref = dynamic_workload(60, rng=RNG(5), pes=8, max_run=20.0, time_scale=10.0, params=P)
    same = ["submit_time", "procs", "requested_time"]
    for name, table in DYNAMIC_MIXES.items():
        w = dynamic_workload(60, rng=RNG(5), pes=8, max_run=20.0, time_scale=10.0, params=P,
                             kinds=table)  # fmt: skip
        assert set(w.table["kind"]) <= set(table), name
        pd.testing.assert_frame_equal(w.table[same], ref.table[same], check_exact=True)
    # no-fine is DYNAMIC_KINDS without the fine balanced jobs
    assert set(DYNAMIC_MIXES["no-fine"]) == set(DYNAMIC_KINDS) - {"fine"}


def test_the_equal_mix_is_the_default_workload_bit_for_bit() -> None:
    assert DYNAMIC_MIXES["equal"] is DYNAMIC_KINDS
    a = dynamic_workload(40, rng=RNG(7), pes=8, max_run=20.0, time_scale=10.0, params=P)
    b = dynamic_workload(40, rng=RNG(7), pes=8, max_run=20.0, time_scale=10.0, params=P,
                         kinds=DYNAMIC_MIXES["equal"])  # fmt: skip
    pd.testing.assert_frame_equal(a.table, b.table, check_exact=True)
    unset = run_cell(DYN, 1, CellEnv())
    equal = run_cell({**DYN, "mix": "equal"}, 1, CellEnv())
    assert unset == equal  # every figure the same float, bit for bit
    other = run_cell({**DYN, "mix": "grains"}, 1, CellEnv())
    assert other["mean_response"] != unset["mean_response"]


def test_the_cell_refuses_an_unknown_mix_naming_it_and_the_choices() -> None:
    with pytest.raises(
        ConfigError, match=r"'mix' must be one of equal, grains, spread, no-fine \(got 'coarse'\)"
    ):
        run_cell({**DYN, "mix": "coarse"}, 1, CellEnv())
    with pytest.raises(ConfigError, match="dynamic-apps"):
        run_cell({**DYN, "scenario": "dynamic-apps", "mix": "grains"}, 1, CellEnv())


def test_the_report_names_a_mix_other_than_the_default() -> None:
    assert "mix" not in _readings_text(pd.DataFrame([{"alloc": "node"}]))
    assert _readings_text(pd.DataFrame([{"mix": "spread"}])).endswith("the 'spread' mix")


def test_the_cell_reads_the_latency_and_one_spin_for_sb_and_fcs() -> None:
    # Unset: L = 185.48 us (4 KiB), FCS spins the paper's 120 us and
    # SB one latency (it cannot block before a coscheduled message could arrive).
    base = {"quantum": 0.1, "cslots_min": 20}
    d = _params(base)
    assert math.isclose(d.latency, 185.48e-6)
    assert (d.fcs_spin, d.spin_factor) == (120e-6, 1.0)
    # The FCS paper's rule, twice the communication operation, on the model's 4 KiB.
    r = _params({**base, "t_spin": 2 * d.latency})
    assert math.isclose(r.fcs_spin, 2 * d.latency) and math.isclose(r.spin_factor, 2.0)
    # Wolverine's 60 us operation: 120 us is then two latencies for both schemes.
    r = _params({**base, "latency": "6e-5"})
    assert math.isclose(r.latency, 60e-6) and r.msg_size == d.msg_size
    assert r.fcs_spin == 120e-6 and math.isclose(r.spin_factor, 2.0)
    bad_readings = [({"latency": 0}, "latency"), ({"latency": "fast"}, "latency"),
                    ({"t_spin": -1e-4}, "t_spin"), ({"t_spin": 1e-4}, "below one")]  # fmt: skip
    for bad, word in bad_readings:
        with pytest.raises(ConfigError, match=word):
            _params({**base, **bad})


def test_a_balanced_job_alone_keeps_its_time_at_another_latency() -> None:
    # bsp_jobs sizes the iterations by grain + L, so at Wolverine's 60 us a balanced
    # ring job alone still takes job_time: FCFS ends the pair at job_time and twice it.
    cell = {"scenario": "balanced", "scheme": "FCFS", "nodes": 4, "job_time": 2.0,
            "grain": 1e-3, "quantum": 0.1, "cslots_min": 20, "latency": 6e-5}  # fmt: skip
    out = run_cell(cell, 1, CellEnv())
    assert out["job1_end"] == pytest.approx(2.0, rel=1e-3)
    assert out["job2_end"] == pytest.approx(4.0, rel=1e-3)
    with pytest.raises(ConfigError, match="below one latency"):
        run_cell({**cell, "scheme": "SB", "t_spin": 3e-5}, 1, CellEnv())
