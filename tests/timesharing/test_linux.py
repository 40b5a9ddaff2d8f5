"""Hand-checked scenarios of the Linux 2.4 local scheduler (``TSParams.local``).

The rules (kernel/sched.c and kernel/timer.c of Linux 2.4.18; docs/design/families.md,
"Linux 2.4's rules and their sources"):
each timer tick takes one from the running process's counter; goodness is
counter + 20 - nice (+ 1 for the process whose memory map is loaded, 0 for a spent
counter); when every runnable process's counter is spent, every process gets
counter / 2 + NICE_TO_TICKS(0); a woken process preempts when its goodness is higher.
"""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError, UnknownNameError
from cosched.timesharing import (
    OTHER_SCHEMES,
    SCHEMES,
    TSParams,
    TSResult,
    jobs_table,
    simulate,
)
from cosched.timesharing import kernel as K
from cosched.timesharing.engine import TimeSharingSim, job_seeds
from cosched.timesharing.workloads import bsp_jobs
from tests.timesharing.hand import assert_interpreted_matches
from tests.timesharing.recorded import job_list

RNG = np.random.default_rng
#: HZ 100 (NICE_TO_TICKS(0) = (20 >> 2) + 1 = 6 ticks: 60 ms) and free switches, so
#: that every slice ends on a tick the hand can find.
HAND = TSParams(local="linux24", linux_hz=100, context_switch=0.0)


def cpu_bound(n_jobs: int, params: TSParams):
    """``n_jobs`` one-task jobs that compute without pause (no neighbour, no I/O)."""
    return bsp_jobs([(0.0, 10.0, 1, 0.01, 1.0, 0)] * n_jobs, params=params)


@pytest.mark.parametrize(("hz", "ticks"), [(100, 6), (199, 6), (200, 11), (400, 21),
                                           (1024, 41), (1600, 81), (4096, 81)])  # fmt: skip
def test_the_slice_is_nice_to_ticks_of_hz(hz: int, ticks: int) -> None:
    # NICE_TO_TICKS(0) = TICK_SCALE(20) + 1: 20 >> 2 below HZ 200, >> 1 below 400,
    # 20 below 800, << 1 below 1600, << 2 above.
    assert TSParams(linux_hz=hz).linux_slice_ticks() == ticks


@pytest.mark.parametrize(
    ("horizon", "a", "b"),
    [(0.06, 0.06, 0.0), (0.12, 0.06, 0.06), (0.18, 0.06, 0.12), (0.30, 0.18, 0.12),
     (0.42, 0.18, 0.24)],
)  # fmt: skip
def test_two_cpu_bound_processes_alternate_by_epochs(horizon: float, a: float, b: float) -> None:
    # By hand (HZ 100, 6 ticks a slice, switches free): both start with 6 ticks; A runs
    # first (goodness 26 + 1, its map loaded once it runs; B's 26 does not preempt). At
    # 0.06 A's counter is spent: B (26) runs to 0.12. Both spent: a new epoch gives
    # both 0 / 2 + 6, and B, whose map is loaded, has the higher goodness (27 > 26): it
    # runs on to 0.18. Then A runs two slices (0.18-0.30), B two (0.30-0.42), ...
    r = TimeSharingSim(cpu_bound(2, HAND), scheme="SB", nodes=1, mpl=2, rng=RNG(0),
                       params=HAND).run(horizon=horizon)  # fmt: skip
    got = r.procs.sort_values("job_id")["compute"].to_numpy()
    assert got == pytest.approx([a, b], abs=1e-9)


def test_the_slice_at_hz_4096_is_81_ticks() -> None:
    # The FCS paper's HZ (section 2.6): 81 ticks of 1/4096 s. With the 200 us switch
    # the first process starts at 200 us (tick 0 is before it) and spends its counter
    # at tick 81.
    p = TSParams(local="linux24")
    r = TimeSharingSim(cpu_bound(2, p), scheme="SB", nodes=1, mpl=2, rng=RNG(0),
                       params=p).run(horizon=81 / 4096)  # fmt: skip
    got = r.procs.sort_values("job_id")["compute"].to_numpy()
    assert got == pytest.approx([81 / 4096 - 200e-6, 0.0], abs=1e-9)


def test_a_random_starting_counter_is_drawn_from_1_to_nice_to_ticks() -> None:
    # linux_random_counter: 1 + floor(u * NTT) of a uniform draw of
    # the task's own; every value 1 .. NTT occurs, none outside, the same on a rerun.
    draws = [K.linux_start_counter(12345, r, 81) for r in range(4000)]
    assert set(draws) == set(range(1, 82))
    assert draws == [K.linux_start_counter(12345, r, 81) for r in range(4000)]
    with pytest.raises(ConfigError, match="linux_random_counter"):
        TSParams(local="linux24", linux_random_counter=2)
    with pytest.raises(ConfigError, match="needs local='linux24'"):
        TSParams(linux_random_counter=1)


@pytest.mark.parametrize(
    ("horizon", "a", "b"), [(0.04, 0.0, 0.04), (0.05, 0.01, 0.04), (0.11, 0.07, 0.04),
                            (0.17, 0.07, 0.10)],
)  # fmt: skip
def test_random_starting_counters_order_the_first_epoch(horizon: float, a: float, b: float) -> None:
    # By hand (HZ 100, 6 ticks, switches free): with seed 1 the two one-task jobs draw
    # counters A 1 and B 4 (linux_start_counter of their job seeds). B's goodness 24
    # beats A's 21: B runs to 0.04, then A (21 against B's spent 0) to 0.05. Both spent:
    # the epoch gives both 6, and A, whose map is loaded, runs to 0.11; B to 0.17.
    # Full counters (the default) would run A first (the tie goes to the queue's first).
    p = HAND.with_(linux_random_counter=1)
    seeds = [int(x) for x in job_seeds(RNG(1), 2)]
    assert [K.linux_start_counter(x, 0, 6) for x in seeds] == [1, 4]
    r = TimeSharingSim(cpu_bound(2, p), scheme="SB", nodes=1, mpl=2, rng=RNG(1),
                       params=p).run(horizon=horizon)  # fmt: skip
    got = r.procs.sort_values("job_id")["compute"].to_numpy()
    assert got == pytest.approx([a, b], abs=1e-9)


def sleeper_setup(count: int) -> tuple[TimeSharingSim, int, int]:
    """Two CPU-bound processes on one node at HZ 100, run to 0.06 with the second
    asleep (blocked in a receive) holding ``count`` ticks; returns the simulation, the
    runner and the sleeper."""
    sim = TimeSharingSim(cpu_bound(2, HAND), scheme="SB", nodes=1, mpl=2, rng=RNG(0),
                         params=HAND)  # fmt: skip
    sim.run(horizon=0.0)
    S = sim.state
    a, b = int(S.I[0, K.N_CUR]), -1
    for k in range(int(S.I[0, K.N_NPROCS])):
        if int(S.I[0, K.N_PL + k]) != a:
            b = int(S.I[0, K.N_PL + k])
    S.I[b, K.P_STATE], S.I[b, K.P_INRECV], S.I[b, K.P_WAITING] = K.BLOCKED, 1, 1
    S.I[b, K.P_CNT] = count
    sim.run(horizon=0.06)
    return sim, a, b


def test_a_sleeper_is_recharged_at_the_epoch_and_preempts_when_woken() -> None:
    # A runs alone; at 0.06 (tick 6) its counter is spent and it is the only runnable
    # process: a new epoch gives A 0 / 2 + 6 = 6 and the sleeping B 9 / 2 + 6 = 10,
    # and A runs on (no switch).
    sim, a, b = sleeper_setup(9)
    S = sim.state
    assert (S.I[a, K.P_CNT], S.I[b, K.P_CNT]) == (6, 10)
    assert S.I[0, K.N_CUR] == a
    # B's message arrives at 0.065: A has 6 ticks (goodness 26 + 1), B 10 (30): B
    # preempts at once, after the NIC's interrupt (50 us) and the queue move (3 us).
    K.arrive(S, b, 1, 0.065)
    sim.run(horizon=0.065 + 53e-6)
    assert S.I[0, K.N_CUR] == b
    assert S.F[0, K.N_INTR] == pytest.approx(50e-6) and S.F[0, K.N_QUEUE] == pytest.approx(3e-6)


def test_a_woken_process_with_less_goodness_waits() -> None:
    # B sleeps through the epoch with 0 ticks: 0 / 2 + 6 = 6, goodness 26, not above
    # A's 26 + 1: woken, it waits for A's counter (6 ticks from 0.06: 0.12).
    sim, a, b = sleeper_setup(0)
    S = sim.state
    assert (S.I[a, K.P_CNT], S.I[b, K.P_CNT]) == (6, 6)
    K.arrive(S, b, 1, 0.065)
    sim.run(horizon=0.119)
    assert S.I[0, K.N_CUR] == a
    sim.run(horizon=0.1201)
    assert S.I[0, K.N_CUR] == b


@pytest.mark.parametrize("scheme", ["Local", "SB", "GS", "FCS"])
def test_a_job_alone_runs_its_model_run_time(scheme: str) -> None:
    # As under the MLFQ (test_scenarios): alone on its nodes a J5 job takes its model
    # run time plus one start-up switch; a spent counter with nothing else runnable
    # starts a new epoch and the process runs on, without a switch.
    p = TSParams(local="linux24")
    t_iter = p.latency / 0.6
    run = 400 * t_iter + 1e-5
    model = round(run / t_iter) * t_iter
    r = simulate(jobs_table([(0.0, run, 4, 5)]), scheme=scheme, nodes=4, mpl=1, rng=RNG(0),
                 params=p)  # fmt: skip
    ex = float(r.jobs["end_time"][0] - r.jobs["start_time"][0])
    flags = {**SCHEMES, **OTHER_SCHEMES}[scheme]
    assert ex == pytest.approx(model + (0.0 if flags.gang else p.context_switch), rel=1e-9)


def test_gang_scheduling_has_no_local_scheduler() -> None:
    # GS (and FCFS, its one-row matrix) never consult the local scheduler: the same bits.
    w = jobs_table([(0.0, 0.5, 4, 5), (0.0, 0.5, 4, 2)], skew=0.2)
    a = simulate(w, scheme="GS", nodes=4, mpl=2, rng=RNG(3))
    b = simulate(w, scheme="GS", nodes=4, mpl=2, rng=RNG(3), params=TSParams(local="linux24"))
    assert a.jobs.equals(b.jobs) and a.nodes.equals(b.nodes) and a.events == b.events


def test_bad_local_scheduler_inputs_are_named() -> None:
    with pytest.raises(UnknownNameError, match="linux24"):
        TSParams(local="linux26")
    with pytest.raises(ConfigError, match="linux_hz"):
        TSParams(linux_hz=99.5)
    with pytest.raises(ConfigError, match="linux_hz"):
        TSParams(linux_hz=0)
    for scheme in ("DCS", "PB", "SY", "PB-SB"):
        with pytest.raises(ConfigError, match="linux24"):
            simulate(jobs_table([(0.0, 0.1, 2, 5)]), scheme=scheme, nodes=2, mpl=1,
                     rng=RNG(0), params=TSParams(local="linux24"))  # fmt: skip


def linux_run(scheme: str, k: int) -> TSResult:
    """A run under Linux 2.4's rules, for the check below (:func:`assert_interpreted_matches`)."""
    w = jobs_table(job_list(k), skew=0.2)
    return simulate(w, scheme=scheme, nodes=4, mpl=3, rng=np.random.default_rng(k),
                    params=TSParams(local="linux24", linux_hz=1024))  # fmt: skip


def test_the_same_source_interpreted_gives_the_same_bits_under_linux() -> None:
    # As test_kernel's check of the recorded cases: NUMBA_DISABLE_JIT=1 runs the Linux
    # rules as plain Python, in a fresh process, with the same results bit for bit.
    assert_interpreted_matches(linux_run, [("SB", 2), ("SB", 5), ("FCS", 3), ("Local", 4)])
