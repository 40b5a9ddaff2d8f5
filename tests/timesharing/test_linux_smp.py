"""Hand-checked scenarios of Linux 2.4's one run queue per SMP node (``linux_smp``).

The rules (kernel/sched.c of Linux 2.4.18; docs/design/families.md, "Linux 2.4's rules and
their sources"): the
PEs of a node share one run queue and one epoch; schedule() on a PE takes the ready
process of the highest goodness, which adds PROC_CHANGE_PENALTY (20 on Alpha) on the PE
the process ran on last and + 1 for the memory map the PE holds; a process that becomes
runnable goes to the PE it ran on last if that PE is idle, else to an idle PE, else
(``linux_wake_preempt`` 1 only: 2.4.18 built for Alpha never compares the busy PEs)
preempts the PE where its goodness beats the runner's by the most.
"""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.timesharing import TSParams, TSResult, simulate
from cosched.timesharing import kernel as K
from cosched.timesharing.engine import TimeSharingSim
from cosched.timesharing.workloads import bsp_jobs
from tests.timesharing.hand import assert_interpreted_matches, bsp_ring

RNG = np.random.default_rng
#: HZ 100 (6 ticks a slice, 60 ms), free switches, one run queue for a 2-PE node.
HAND = TSParams(local="linux24", linux_hz=100, context_switch=0.0, linux_smp=2)
#: Rows of the three processes A, B, C (the rows after the two PEs).
A, B, C = 2, 3, 4


def three_cpu_bound(params: TSParams) -> TimeSharingSim:
    """Three one-task jobs that compute without pause on one 2-PE node: A and C are
    placed on PE 0 (the least loaded PE, ties to the lower index), B on PE 1."""
    w = bsp_jobs([(0.0, 10.0, 1, 0.01, 1.0, 0)] * 3, params=params)
    return TimeSharingSim(w, scheme="SB", nodes=2, mpl=2, rng=RNG(0), params=params)


@pytest.mark.parametrize(
    ("horizon", "compute", "cpu", "running"),
    [(0.06, [0.06, 0.06, 0.0], [0, 1, 0], [C, B]),
     (0.12, [0.06, 0.12, 0.06], [1, 1, 0], [C, A]),
     (0.15, [0.09, 0.12, 0.09], [1, 1, 0], [C, A]),
     (0.21, [0.15, 0.12, 0.15], [1, 0, 0], [B, A])],
)  # fmt: skip
def test_three_cpu_bound_processes_share_a_two_pe_node(
    horizon: float, compute: list[float], cpu: list[int], running: list[int]
) -> None:
    # By hand (counters 6 at the start). A runs on PE 0, B on PE 1; C waits (its PE is
    # busy, no PE is idle, and 2.4.18 on Alpha never preempts a busy one).
    # 0.06: A and B spend their counters (PE 0 first, by the order of their events).
    #   PE 0: C (6 + 20 + 20 on its PE) beats A (0): C runs; A waits. PE 1: A and B are
    #   spent: a new epoch gives A 0 / 2 + 6 = 6, B 6, C 6 / 2 + 6 = 9; B (6 + 20 + 20
    #   + 1) beats A on PE 1 (6 + 20): B runs on.
    # 0.12: B is spent; A (26) beats it: A moves to PE 1.
    # 0.15: C has spent its 9; B (0) and C (0): a new epoch: A, which ran 3 ticks since
    #   0.12, 3 / 2 + 6 = 7, B 6, C 6; on PE 0 C (6 + 20 + 20 + 1) beats B (6 + 20): C
    #   runs on to 0.21, A (7 ticks) to 0.22.
    # 0.21: C is spent; B (26) beats it: B moves to PE 0.
    sim = three_cpu_bound(HAND)
    r = sim.run(horizon=horizon)
    got = r.procs.sort_values("job_id")["compute"].to_numpy()
    assert got == pytest.approx(compute, abs=1e-9)
    assert [int(sim.state.I[p, K.P_CPU]) for p in (A, B, C)] == cpu
    assert [int(sim.state.I[n, K.N_CUR]) for n in (0, 1)] == running
    assert r.procs.sort_values("job_id")["node"].tolist() == [0, 1, 0]  # home PEs


def one_sleeper(params: TSParams, count: int) -> TimeSharingSim:
    """A and B computing on PEs 0 and 1 at HZ 100, C asleep in a receive from time 0
    with ``count`` ticks, its last PE PE 0; run to 0.06, where A's and B's counters are
    spent: PE 0 finds only A runnable, so a new epoch gives A 6, B 6 and the sleeping C
    count / 2 + 6, and A and B run on."""
    sim = three_cpu_bound(params)
    sim.run(horizon=0.0)
    S = sim.state
    S.I[C, K.P_STATE], S.I[C, K.P_INRECV], S.I[C, K.P_WAITING] = K.BLOCKED, 1, 1
    S.I[C, K.P_CNT] = count
    sim.run(horizon=0.06)
    assert [int(S.I[p, K.P_CNT]) for p in (A, B, C)] == [6, 6, count // 2 + 6]
    assert [int(S.I[n, K.N_CUR]) for n in (0, 1)] == [A, B]
    return sim


def test_a_woken_process_waits_for_a_schedule_on_2_4_18_for_alpha() -> None:
    # C wakes at 0.065 with 10 ticks: on PE 0 its goodness (10 + 20 + 20) is above A's
    # (6 + 20 + 20 + 1), but reschedule_idle() on Alpha never compares busy PEs: C waits
    # until a PE schedules, at 0.12 (A's and B's counters spent). PE 1's event was
    # scheduled at 0.06, PE 0's again at 0.065 (C's interrupt is charged there), so PE 1
    # schedules first: C (10 + 20) beats the spent B and moves to PE 1; PE 0 then finds
    # A and B spent: a new epoch (6 each), and A (6 + 20 + 20 + 1) runs on.
    sim = one_sleeper(HAND, 9)
    S = sim.state
    K.arrive(S, C, 1, 0.065)
    sim.run(horizon=0.119)
    assert [int(S.I[n, K.N_CUR]) for n in (0, 1)] == [A, B]
    sim.run(horizon=0.1201)
    assert [int(S.I[n, K.N_CUR]) for n in (0, 1)] == [A, C]
    assert int(S.I[C, K.P_CPU]) == 1


def test_a_woken_process_preempts_where_it_beats_the_runner_as_written() -> None:
    # With the comparison as written (linux_wake_preempt 1), C's goodness beats A's on
    # PE 0 by 50 - 47 = 3 and loses on PE 1 (10 + 20 against B's 6 + 20 + 20 + 1):
    # PE 0 is preempted at once, after the interrupt (50 us) and queue move (3 us).
    sim = one_sleeper(HAND.with_(linux_wake_preempt=1), 9)
    S = sim.state
    K.arrive(S, C, 1, 0.065)
    sim.run(horizon=0.065 + 53e-6)
    assert [int(S.I[n, K.N_CUR]) for n in (0, 1)] == [C, B]
    # With 0 ticks C would have 6 (26 + 20 on PE 0, below A's 47): it waits.
    sim = one_sleeper(HAND.with_(linux_wake_preempt=1), 0)
    K.arrive(sim.state, C, 1, 0.065)
    sim.run(horizon=0.119)
    assert [int(sim.state.I[n, K.N_CUR]) for n in (0, 1)] == [A, B]


def test_a_woken_process_goes_to_an_idle_pe_and_pays_a_switch_there() -> None:
    # B blocks at 0.01 (PE 1 idles); C wakes at 0.02 with its last PE (0) busy: it goes
    # to the idle PE 1 at once and pays the model's context switch there (B's map was
    # loaded): PE 1 has paid two switches (B's at the start, C's), PE 0 C's interrupt
    # and queue move.
    p = HAND.with_(context_switch=200e-6)
    sim = three_cpu_bound(p)
    sim.run(horizon=0.0)
    S = sim.state
    S.I[C, K.P_STATE], S.I[C, K.P_INRECV], S.I[C, K.P_WAITING] = K.BLOCKED, 1, 1
    sim.run(horizon=0.01)
    K.fold(S, 1, 0.01)
    S.I[B, K.P_STATE], S.I[B, K.P_INRECV], S.I[B, K.P_WAITING] = K.BLOCKED, 1, 1
    K.leave(S, 1, 0.01)
    K.resched(S, 1, 0.01)
    assert int(S.I[1, K.N_CUR]) == -1
    K.arrive(S, C, 1, 0.02)
    assert [int(S.I[n, K.N_CUR]) for n in (0, 1)] == [A, C]
    assert int(S.I[C, K.P_CPU]) == 1 and int(S.I[C, K.P_SWITCHES]) == 1
    assert S.F[1, K.N_CS] == pytest.approx(400e-6)
    assert S.F[0, K.N_INTR] == pytest.approx(50e-6) and S.F[0, K.N_QUEUE] == pytest.approx(3e-6)


def test_balanced_fine_grained_jobs_under_fcs_run_as_under_gs_with_one_queue() -> None:
    # Algorithm 1 per PE: every process of two balanced 1 ms jobs stays CS, so every PE
    # holds its slot's process for the whole slot and the node's queue never acts: the
    # jobs end when they end under GS (as with one queue per PE, test_fcs).
    p = TSParams(gs_quantum=0.1, fcs_cslots_min=2, local="linux24", linux_smp=4)
    w = bsp_jobs([(0.0, 3.0, 8, 0.001, 1.0, 0)] * 2, params=p, ring=True)
    gs = simulate(w, scheme="GS", nodes=8, mpl=2, rng=RNG(0), params=p)
    fcs = simulate(w, scheme="FCS", nodes=8, mpl=2, rng=RNG(0), params=p, check=True)
    assert (fcs.procs["klass"] == 0).all()
    np.testing.assert_allclose(fcs.jobs["end_time"], gs.jobs["end_time"], rtol=1e-12)


@pytest.mark.parametrize("scheme", ["SB", "FCS"])
@pytest.mark.parametrize("wake_preempt", [0, 1])
def test_invariants_hold_with_one_queue_per_node(scheme: str, wake_preempt: int) -> None:
    # One running process per PE, the PE's current one, busy time within wall time,
    # after every event (check=True), for imbalanced jobs that block and migrate.
    p = TSParams(gs_quantum=0.1, fcs_cslots_min=2, local="linux24", linux_hz=1024,
                 linux_smp=4, linux_wake_preempt=wake_preempt,
                 fcs_f_preempt=1 - wake_preempt)  # fmt: skip
    jobs = [(0.0, 2.0, 8, 0.001, 4.7, 1), (0.0, 2.0, 8, 0.001, 4.7, 0),
            (0.0, 1.0, 6, 0.001, 1.0, 0)]  # fmt: skip
    r = simulate(bsp_jobs(jobs, params=p, ring=True), scheme=scheme, nodes=8, mpl=3,
                 rng=RNG(1), params=p, check=True)  # fmt: skip
    assert r.unfinished == 0
    assert int(r.messages_sent) == int(r.messages_received)


def test_bad_smp_inputs_are_named() -> None:
    with pytest.raises(ConfigError, match="linux_smp"):
        TSParams(linux_smp=4)  # the MLFQ has no node-wide queue
    with pytest.raises(ConfigError, match="linux_smp"):
        TSParams(local="linux24", linux_smp=2.5)
    with pytest.raises(ConfigError, match="linux_wake_preempt"):
        TSParams(local="linux24", linux_wake_preempt=2)
    w = bsp_jobs([(0.0, 1.0, 2, 0.01, 1.0, 0)], params=HAND)
    with pytest.raises(ConfigError, match="divide"):
        simulate(w, scheme="SB", nodes=3, mpl=1, rng=RNG(0), params=HAND)


def smp_run(scheme: str, wp: int) -> TSResult:
    """Runs with one queue per 4-PE node, for the check below
    (:func:`assert_interpreted_matches`)."""
    jobs = [(0.0, 0.5, 8, 0.001, 4.7, 1), (0.0, 0.5, 8, 0.001, 4.7, 0),
            (0.0, 0.3, 6, 0.001, 1.0, 0)]  # fmt: skip
    return bsp_ring(scheme, 2, jobs, nodes=8, mpl=3, local="linux24", linux_hz=1024,
                    linux_smp=4, linux_wake_preempt=wp)  # fmt: skip


def test_the_same_source_interpreted_gives_the_same_bits_with_one_queue() -> None:
    # As test_linux's check: NUMBA_DISABLE_JIT=1 runs the node-wide queue's rules as
    # plain Python, in a fresh process, with the same results bit for bit.
    assert_interpreted_matches(smp_run, [("SB", 0), ("SB", 1), ("FCS", 0)])
