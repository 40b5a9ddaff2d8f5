"""Job-level gang scheduling: hand-checked cases, parameters, and invariants (hypothesis).

Every expected number in the hand cases is worked out in the comment beside it from the
fluid model of docs/gang.md: with R rows in use, a job running in s of them computes at
s / R * quantum / (quantum + switch_cost), and at 1 when it runs in every slot.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.engine import simulate
from cosched.engine.simulation import Simulation
from cosched.errors import ConfigError
from cosched.gang import Gang, GangSlurm, gang_columns, with_trace_memory
from cosched.gang.matrix import cyclic_runs
from cosched.platform import Platform
from cosched.policies import make_policy, parse_params
from cosched.policies.easy import EasyBackfilling
from cosched.policies.fcfs import Fcfs
from cosched.workload.job import Workload
from tests.strategies import gang_settings, workloads


def _run(rows: list[tuple[float, int, float]], procs: int, mpl: int, **params: object):
    w = Workload.from_jobs(rows)
    policy = Gang(mpl=mpl, **params)  # type: ignore[arg-type]
    result = simulate(w, Platform(procs, 1, mpl=mpl), policy, check=True)
    return gang_columns(result, policy), policy


# -- hand-checkable cases ----------------------------------------------------------------


def test_two_identical_jobs_in_two_rows_take_twice_their_time_plus_switch_costs() -> None:
    # Two 4-processor jobs of 100 s on 4 processors, 2 rows, quantum 10 s, switch 1 s.
    # Each needs 100 / 10 = 10 slots; every slot of 10 s costs a switch of 1 s, and the
    # two jobs alternate: both end at 2 * 100 + 2 * 10 * 1 = 220 s (fluid: together).
    jobs, _ = _run([(0, 4, 100), (0, 4, 100)], 4, 2, quantum=10.0, switch_cost=1.0)
    assert jobs["start_time"].tolist() == [0.0, 0.0]
    assert jobs["end_time"].tolist() == pytest.approx([220.0, 220.0], rel=1e-12)
    # Suspended half of the time; suspended once per round of 2 * (10 + 1) s: 10 times.
    assert jobs["suspended_fraction"].tolist() == pytest.approx([0.5, 0.5])
    assert jobs["switches"].tolist() == pytest.approx([10.0, 10.0])


def test_without_switch_cost_two_rows_take_exactly_twice_the_time() -> None:
    jobs, _ = _run([(0, 4, 100), (0, 4, 100)], 4, 2, quantum=10.0)
    assert jobs["end_time"].tolist() == pytest.approx([200.0, 200.0], rel=1e-12)


def test_alternate_scheduling_fills_an_idle_column() -> None:
    # 4 processors, 2 rows. X (2 procs) -> row 0 cols 0-1, Y (2 procs) -> row 0 cols
    # 2-3, Z (2 procs) -> row 1 cols 0-1: row 1's columns 2-3 are idle. With alternate
    # scheduling Y runs in both slots (rate 1, ends at 100, never switched); X and Z
    # share their columns (rate 1/2 * 10/11, end 220).
    rows = [(0, 2, 100), (0, 2, 100), (0, 2, 100)]
    on, policy = _run(rows, 4, 2, quantum=10.0, switch_cost=1.0)
    assert policy.row_of == {0: 0, 1: 0, 2: 1}
    assert on["end_time"].tolist() == pytest.approx([220.0, 100.0, 220.0], rel=1e-12)
    assert on["switches"][1] == 0.0 and on["suspended_fraction"][1] == 0.0
    # Off: Y only runs in its own row's slot, like the others: all end at 220.
    off, _ = _run(rows, 4, 2, quantum=10.0, switch_cost=1.0, alternate=False)
    assert off["end_time"].tolist() == pytest.approx([220.0, 220.0, 220.0], rel=1e-12)


def test_a_job_that_fits_no_row_waits() -> None:
    # Two 4-processor jobs fill both rows of a 4-processor machine until 200 s; a
    # 1-processor job submitted at 0 fits no row and starts at 200, ending at 210.
    for backfill in (True, False):
        jobs, _ = _run([(0, 4, 100), (0, 4, 100), (0, 1, 10)], 4, 2, backfill=backfill)
        assert jobs["start_time"].tolist() == [0.0, 0.0, 200.0]
        assert jobs["end_time"].tolist() == pytest.approx([200.0, 200.0, 210.0])


def test_the_memory_limit_stops_a_row_from_being_used() -> None:
    # memory limit 100 per processor, each job 60: the second job cannot share the
    # processors of the first (120 > 100) and waits for it: runs 0-100, then 100-200.
    rows = [(0, 4, 100), (0, 4, 100)]
    jobs, _ = _run(rows, 4, 2, memory_limit=100.0, job_memory=60.0)
    assert jobs["start_time"].tolist() == [0.0, 100.0]
    assert jobs["end_time"].tolist() == pytest.approx([100.0, 200.0])
    # 50 each fits (100 <= 100): both rows are used and both end at 200.
    jobs, _ = _run(rows, 4, 2, memory_limit=100.0, job_memory=50.0)
    assert jobs["start_time"].tolist() == [0.0, 0.0]


def test_memory_from_the_trace_column() -> None:
    t = Workload.from_jobs([(0, 4, 100), (0, 4, 100)]).table
    t["requested_memory"] = [60.0, 40.0]
    w = with_trace_memory(Workload.from_table(t))
    policy = Gang(mpl=2, memory_limit=100.0)
    jobs = simulate(w, Platform(4, 1, mpl=2), policy, check=True).jobs
    assert jobs["start_time"].tolist() == [0.0, 0.0]  # 60 + 40 <= 100
    t["requested_memory"] = [60.0, 41.0]
    w = with_trace_memory(Workload.from_table(t))
    jobs = simulate(w, Platform(4, 1, mpl=2), Gang(mpl=2, memory_limit=100.0)).jobs
    assert jobs["start_time"].tolist() == [0.0, 100.0]  # 60 + 41 > 100


def test_buddy_packing_takes_aligned_power_of_two_blocks() -> None:
    # 8 processors, one row. First fit: a 3-processor job takes 0-2 and a 5-processor
    # job the other 5, both at 0. Buddy: the 3-processor job takes the block 0-3, the
    # 5-processor job needs a block of 8 and waits for it (start 100).
    rows = [(0, 3, 100), (0, 5, 100)]
    ff, _ = _run(rows, 8, 1)
    assert ff["start_time"].tolist() == [0.0, 0.0]
    bd, _ = _run(rows, 8, 1, packing="buddy")
    assert bd["start_time"].tolist() == [0.0, 100.0]


def test_backfilling_into_a_row() -> None:
    # 4 processors, 1 row. A (3 procs, 100 s) runs; B (4 procs) waits for it (shadow
    # 100); C (1 proc, 50 s) ends before the shadow and is backfilled at 0. Without
    # backfilling C waits behind B (start 200).
    rows = [(0, 3, 100), (0, 4, 100), (0, 1, 50)]
    on, _ = _run(rows, 4, 1)
    assert on["start_time"].tolist() == [0.0, 100.0, 0.0]
    off, _ = _run(rows, 4, 1, backfill=False)
    assert off["start_time"].tolist() == [0.0, 100.0, 200.0]


def test_cyclic_runs() -> None:
    used = 0b1111
    assert cyclic_runs(0b0001, used) == 1
    assert cyclic_runs(0b1001, used) == 1  # rows 3 and 0 are adjacent in the round
    assert cyclic_runs(0b0101, used) == 2
    assert cyclic_runs(0b1111, used) == 1


# -- Slurm preset and parameters ---------------------------------------------------------


def test_slurm_preset_maps_slurm_names() -> None:
    p = make_policy(
        "gang-slurm",
        **parse_params(
            "gang-slurm",
            ["SchedulerTimeSlice=10", "oversubscribe=2", "suspend_resume_cost=1"],
        ),
    )
    assert isinstance(p, GangSlurm)
    assert (p.mpl, p.quantum, p.switch_cost, p.alternate, p.backfill) == (2, 10.0, 1.0, True, True)
    assert set(p.params()) == {
        "SchedulerTimeSlice",
        "oversubscribe",
        "suspend_resume_cost",
        "bf_window",
        "memory_limit",
        "job_memory",
    }
    w = Workload.from_jobs([(0, 4, 100), (0, 4, 100)])
    jobs = simulate(w, Platform(4, 1, mpl=2), p).jobs
    assert jobs["end_time"].tolist() == pytest.approx([220.0, 220.0])


@pytest.mark.parametrize(
    ("params", "word"),
    [
        ({"mpl": 0}, "mpl"),
        ({"packing": "best-fit"}, "packing"),
        ({"quantum": 0}, "quantum"),
        ({"switch_cost": -1}, "switch_cost"),
        ({"alternate": "yes"}, "alternate"),
        ({"memory_limit": 10.0, "job_memory": 20.0}, "memory_limit"),
        ({"window": -1}, "window"),
    ],
)
def test_bad_parameters_are_named(params: dict[str, object], word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        make_policy("gang", **params)


def test_bad_machine_and_oversized_job_are_named() -> None:
    w = Workload.from_jobs([(0, 4, 100)])
    with pytest.raises(ConfigError, match="mpl"):
        simulate(w, Platform(4, 1, mpl=2), Gang(mpl=3))
    t = w.table.assign(requested_memory=[500.0])
    w = with_trace_memory(Workload.from_table(t))
    with pytest.raises(ConfigError, match="memory_limit"):
        simulate(w, Platform(4, 1, mpl=2), Gang(mpl=2, memory_limit=100.0))


# -- equivalences with the batch baselines -----------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_one_row_is_easy_and_fcfs(data: st.DataObject) -> None:
    # With a single row nothing is time-sliced: gang with backfilling is EASY, without
    # it FCFS (same start times, job for job).
    procs = data.draw(st.integers(1, 8))
    w = data.draw(workloads(max_procs=procs, max_jobs=20))
    platform = Platform(procs, 1, mpl=1)
    easy = simulate(w, platform, EasyBackfilling()).jobs
    gang = simulate(w, Platform(procs, 1, mpl=1), Gang(mpl=1), check=True).jobs
    assert gang["start_time"].tolist() == easy["start_time"].tolist()
    fcfs = simulate(w, platform, Fcfs()).jobs
    gang = simulate(w, Platform(procs, 1, mpl=1), Gang(mpl=1, backfill=False)).jobs
    assert gang["start_time"].tolist() == fcfs["start_time"].tolist()


# -- invariants --------------------------------------------------------------------------


def _replayed_work(jobs: pd.DataFrame, policy: Gang, placements: dict, quantum: float, cost: float):
    """Work each job did, recomputed from the schedule alone (start, end, row, nodes)."""
    start, end = jobs["start_time"].to_numpy(), jobs["end_time"].to_numpy()
    cols = {i: {node for node, _ in placements[i]} for i in range(len(jobs))}
    times = sorted(set(start.tolist()) | set(end.tolist()))
    work = np.zeros(len(jobs))
    eff = quantum / (quantum + cost)
    for a, b in itertools.pairwise(times):
        live = [i for i in range(len(jobs)) if start[i] <= a and end[i] >= b]
        rows = {policy.row_of[i] for i in live}
        for i in live:
            if policy.alternate:
                s = sum(
                    1
                    for r in rows
                    if r == policy.row_of[i]
                    or not any(policy.row_of[j] == r and cols[j] & cols[i] for j in live)
                )
            else:
                s = 1
            rate = 1.0 if len(rows) <= 1 or s == len(rows) else s / len(rows) * eff
            work[i] += (b - a) * rate
    return work


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**gang_settings)
def test_invariants(
    data: st.DataObject, mpl: int, packing: str, alternate: bool, backfill: bool
) -> None:
    procs = data.draw(st.integers(1, 8))
    w = data.draw(workloads(max_procs=procs, max_jobs=18))
    quantum, cost = 10.0, data.draw(st.sampled_from([0.0, 1.0]))
    policy = Gang(
        mpl=mpl,
        packing=packing,  # type: ignore[arg-type]
        alternate=alternate,
        backfill=backfill,
        quantum=quantum,
        switch_cost=cost,
    )
    new_rates = policy._new_rates

    def checked(now: float, started: object) -> dict[int, float]:
        assert policy._m is not None and policy._m.verify() is None
        return new_rates(now, started)  # type: ignore[arg-type]

    policy._new_rates = checked  # type: ignore[method-assign]
    sim = Simulation(w, Platform(procs, 1, mpl=mpl), policy, check=True, placement=True)
    result = sim.run()
    jobs = gang_columns(result, policy)
    n = len(w)
    # Every job ends once, after it started, which is after its submission.
    assert jobs["job_id"].is_unique and len(jobs) == n
    assert np.isfinite(jobs["end_time"]).all()
    assert (jobs["start_time"] >= jobs["submit_time"]).all()
    assert (jobs["end_time"] >= jobs["start_time"] + jobs["run_time"] - 1e-9).all()
    # No processor carries more than MPL jobs at once (from the placements alone).
    events = []
    for i, placement in result.placements.items():
        for node, _ in placement:
            events += [(jobs["end_time"][i], 0, node, -1), (jobs["start_time"][i], 1, node, 1)]
    load: dict[int, int] = {}
    for _, _, node, d in sorted(events):
        load[node] = load.get(node, 0) + d
        assert load[node] <= mpl
    # Every job's work done (replayed from the schedule) equals its run time.
    if packing == "first-fit":
        work = _replayed_work(jobs, policy, dict(result.placements), quantum, cost)
        assert work == pytest.approx(jobs["run_time"].to_numpy(), rel=1e-6, abs=1e-6)
    # Suspended time never exceeds the execution time.
    assert (jobs["suspended_fraction"] <= 1 + 1e-9).all()
    assert (jobs["switches"] >= 0).all()
    assert not any(math.isnan(x) for x in jobs["suspended_time"])
    # The matrix is empty at the end, and was consistent at every rate update.
    assert policy._m is not None and policy._m.verify() is None and policy._m.used == 0


# -- per-job efficiency and the calibration against the process level -------------------


def test_efficiency_column_scales_the_rate() -> None:
    # A 100 s job at efficiency 0.5 alone takes 200 s; two such jobs in two rows with
    # quantum 10 and switch cost 1 take 2 * 200 * 11 / 10 = 440 s.
    t = Workload.from_jobs([(0, 4, 100)]).table.assign(gang_efficiency=[0.5])
    jobs = simulate(Workload.from_table(t), Platform(4, 1, mpl=2), Gang(mpl=2)).jobs
    assert jobs["end_time"][0] == pytest.approx(200.0)
    t = Workload.from_jobs([(0, 4, 100), (0, 4, 100)]).table.assign(gang_efficiency=[0.5, 0.5])
    policy = Gang(mpl=2, quantum=10.0, switch_cost=1.0)
    jobs = simulate(Workload.from_table(t), Platform(4, 1, mpl=2), policy).jobs
    assert jobs["end_time"].tolist() == pytest.approx([440.0, 440.0])
    t = t.assign(gang_efficiency=[0.0, 0.5])
    with pytest.raises(ConfigError, match="gang_efficiency"):
        simulate(Workload.from_table(t), Platform(4, 1, mpl=2), Gang(mpl=2))


def test_calibration_at_mpl_1_reproduces_the_process_level_per_type() -> None:
    from cosched.gang.calibrate import _by_type, _job_level, efficiencies, with_efficiency
    from cosched.timesharing import TSParams, jobs_table
    from cosched.timesharing.engine import simulate as ts_simulate

    # Jobs far apart (each alone on the machine): at MPL 1 the efficiency of a type is
    # sum(run) / sum(end - start) at the process level, and the job level run with it
    # has the same total execution time per type.
    w = jobs_table([(0.0, 0.2, 4, 4), (5.0, 0.3, 2, 2), (10.0, 0.1, 4, 4)], skew=0.1)
    params = TSParams(msg_size=16 * 4096)
    eta = efficiencies(w, nodes=4, mpl=1, seed=0, params=params, rounds=1)
    pl = ts_simulate(w, scheme="GS", nodes=4, mpl=1, rng=np.random.default_rng(0), params=params)
    execution = pl.jobs["end_time"] - pl.jobs["start_time"]
    assert eta[4] == pytest.approx((0.2 + 0.1) / (execution[0] + execution[2]))
    assert eta[2] == pytest.approx(0.3 / execution[1])
    assert all(v > 0 for v in eta.values())
    got = _by_type(w, _job_level(with_efficiency(w, eta), nodes=4, mpl=1, params=params))
    assert got[4] == pytest.approx(execution[0] + execution[2])
    assert got[2] == pytest.approx(execution[1])


def test_multi_core_nodes_and_node_allocation() -> None:
    # 2 nodes x 2 cores, 2 rows: two 3-core jobs each take cores 0-1 of node 0 and core
    # 0 of node 1 in their row (placement ((0, 2), (1, 1))) and alternate: end at 200.
    w = Workload.from_jobs([(0, 3, 100), (0, 3, 100)])
    r = simulate(w, Platform(2, 2, mpl=2), Gang(mpl=2), check=True)
    assert dict(r.placements) == {0: ((0, 2), (1, 1)), 1: ((0, 2), (1, 1))}
    assert r.jobs["end_time"].tolist() == pytest.approx([200.0, 200.0])
    # Node allocation, 2 nodes x 4 cores: a 5-processor job takes both nodes whole.
    w = Workload.from_jobs([(0, 5, 100), (0, 5, 100), (0, 1, 10)])
    r = simulate(w, Platform(2, 4, "nodes", mpl=2), Gang(mpl=2), check=True)
    assert dict(r.placements)[0] == ((0, 4), (1, 4))
    assert r.jobs["start_time"].tolist() == [0.0, 0.0, 200.0]
