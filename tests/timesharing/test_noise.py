"""OS noise, a named reading: hand-checked scenarios."""

from __future__ import annotations

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.timesharing import TSParams, TSResult, bsp_jobs, simulate
from cosched.timesharing import kernel as K
from cosched.timesharing.engine import TimeSharingSim
from cosched.timesharing.params import OTHER_SCHEMES, SCHEMES
from tests.timesharing.hand import assert_interpreted_matches, bsp_ring

RNG = np.random.default_rng
PERIOD, DURATION = 0.1, 0.01


def _lone(p: TSParams) -> tuple[object, float]:
    """One task computing alone (no neighbours, no I/O) and its work W by hand: a
    one-task job computes its whole iteration, ``n_iter * (grain + L)``."""
    grain, run = 0.05, 0.95
    w = bsp_jobs([(0.0, run, 1, grain, 1.0, 0)], params=p)
    n_iter = round(run / (grain + p.latency))
    return w, n_iter * (grain + p.latency)


@pytest.mark.parametrize("scheme", ["Local", "SB", "GS", "FCS"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_a_lone_process_is_delayed_by_each_hit_before_its_end(scheme: str, seed: int) -> None:
    # By hand: the daemon hits at ph + k p (k >= 0). A process that starts at 0, pays a
    # load of c (a context switch under the MLFQ schemes, none under gang scheduling,
    # from the J5-alone test) and computes W has done ph + k p - c - k d of its work
    # when hit k falls (the k earlier hits took k d, each over before the next: d < p),
    # so hit k delays it iff ph + k (p - d) < W + c; it ends at c + W + d * hits.
    p = TSParams(noise_period=PERIOD, noise_duration=DURATION)
    w, work = _lone(p)
    sim = TimeSharingSim(w, scheme=scheme, nodes=1, mpl=1, rng=RNG(seed), params=p)
    ph = float(sim.state.F[0, K.N_NPH])
    assert 0.0 <= ph < PERIOD
    flags = {**SCHEMES, **OTHER_SCHEMES}[scheme]
    c = 0.0 if flags.gang else p.context_switch
    hits = 0
    while ph + hits * (PERIOD - DURATION) < work + c:
        hits += 1
    r = sim.run()
    assert hits in (10, 11)  # W = 0.9535 s at one hit per 0.1 s
    assert float(r.jobs["end_time"][0]) == pytest.approx(c + work + DURATION * hits, abs=1e-9)
    # The daemon's time is charged as interrupts (none after the end: no job runs).
    assert float(r.nodes["interrupt"].sum()) == pytest.approx(DURATION * hits, abs=1e-9)


def test_phases_are_per_pe_uniform_draws_after_the_job_seeds() -> None:
    # Each PE's phase is its own draw in [0, period) from the run's generator, taken
    # after the job seeds: the same seed gives the same phases, and the job seeds (the
    # skew) of a run with noise are those of the run without.
    p = TSParams(noise_period=PERIOD, noise_duration=DURATION)
    w = bsp_jobs([(0.0, 1.0, 8, 1e-3, 1.0, 0)], params=p)
    a = TimeSharingSim(w, scheme="SB", nodes=8, mpl=1, rng=RNG(7), params=p)
    b = TimeSharingSim(w, scheme="SB", nodes=8, mpl=1, rng=RNG(7), params=p)
    off = TimeSharingSim(w, scheme="SB", nodes=8, mpl=1, rng=RNG(7))
    ph = a.state.F[:8, K.N_NPH]
    assert ((ph >= 0) & (ph < PERIOD)).all() and len(set(ph.tolist())) == 8
    assert (ph == b.state.F[:8, K.N_NPH]).all()
    jb = a.jb
    assert (a.state.I[jb:, K.J_SEED] == off.state.I[jb:, K.J_SEED]).all()
    rng = RNG(7)
    rng.integers(0, 2**63 - 1, size=1, dtype=np.int64)
    assert (ph == rng.uniform(0.0, PERIOD, 8)).all()


@pytest.mark.parametrize("scheme", ["SB", "GS", "FCS"])
def test_a_daemon_that_takes_nothing_changes_no_job(scheme: str) -> None:
    # Noise of duration 0 only adds events (each accounts the running process up to its
    # time, which may move the last bits of its sums): the same ends. Two fine-grained
    # jobs on 4 PEs (a ring).
    base = TSParams(gs_quantum=0.1)
    w = bsp_jobs([(0.0, 2.0, 4, 1e-3, 1.0, 0), (0.0, 2.0, 4, 1e-3, 1.0, 0)], ring=True)
    off = simulate(w, scheme=scheme, nodes=4, mpl=2, rng=RNG(3), params=base)
    zero = base.with_(noise_period=0.01, noise_duration=0.0)
    on = simulate(w, scheme=scheme, nodes=4, mpl=2, rng=RNG(3), params=zero, check=True)
    assert on.jobs["end_time"].to_numpy() == pytest.approx(off.jobs["end_time"], rel=1e-9)
    assert on.events > off.events


@pytest.mark.parametrize("scheme", ["SB", "GS", "FCS"])
def test_every_pe_is_charged_one_duration_per_period_while_jobs_run(scheme: str) -> None:
    # Each PE's daemon hits once per period from the first start (0) to the last end E,
    # so it takes between (E / p - 1) d and (E / p + 1) d. GS charges no other
    # interrupt; SB and FCS also charge the NIC's that wake blocked processes. The invariants
    # (one running process per PE, busy time within wall time) hold after every event.
    base = TSParams(gs_quantum=0.1)
    w = bsp_jobs([(0.0, 2.0, 4, 1e-3, 1.0, 0), (0.5, 2.0, 4, 1e-3, 1.0, 0)], ring=True)
    per, d = 0.01, 5e-4
    noisy = base.with_(noise_period=per, noise_duration=d)
    on = simulate(w, scheme=scheme, nodes=4, mpl=2, rng=RNG(3), params=noisy, check=True)
    end = float(on.jobs["end_time"].max())
    got = on.nodes["interrupt"].to_numpy()
    assert (got >= (end / per - 1) * d - 1e-12).all()
    if scheme == "GS":
        assert (got <= (end / per + 1) * d + 1e-12).all()


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"noise_period": -0.1}, "noise_period"),
        ({"noise_period": 0.1, "noise_duration": -0.01}, "noise_duration"),
        ({"noise_period": 0.1, "noise_duration": 0.1}, "noise_duration"),
        ({"noise_period": 0.1, "noise_duration": 0.2}, "noise_duration"),
        ({"noise_duration": 0.01}, "noise_duration"),
        ({"noise_period": float("inf")}, "noise_period"),
    ],
)
def test_invalid_noise_is_refused_naming_the_field(changes: dict[str, float], field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        TSParams(**changes)  # type: ignore[arg-type]


def noisy_run(scheme: str, seed: int) -> TSResult:
    """Noisy runs, for the check below (:func:`assert_interpreted_matches`)."""
    jobs = [(0.0, 0.5, 4, 0.001, 2.0, 1), (0.1, 0.5, 4, 0.001, 2.0, 0)]
    return bsp_ring(scheme, seed, jobs, nodes=4, mpl=2, noise_period=0.01, noise_duration=5e-4)


def test_the_same_source_interpreted_gives_the_same_bits_with_noise() -> None:
    # As test_linux's check: NUMBA_DISABLE_JIT=1 runs the daemons' rules as plain
    # Python, in a fresh process, with the same results bit for bit.
    assert_interpreted_matches(noisy_run, [("SB", 1), ("GS", 2), ("FCS", 3)])


def _barrier_ends(scheme: str, d: float) -> tuple[list[float], list[float]]:
    """A 2-rank BSP job (1 ms grain, 0.3 s, no skew) on 2 PEs with daemons of period 1 s
    and duration ``d``: its end and the PEs' interrupt seconds, with PE 0's first hit
    at 0.1 s and with no hit within the job (phases set by hand; PE 1's, 0.999 s, falls
    after the job's end)."""
    p = TSParams(noise_period=1.0, noise_duration=d)
    w = bsp_jobs([(0.0, 0.3, 2, 1e-3, 1.0, 0)], params=p)
    ends, intr = [], []
    for ph0 in (0.1, 0.998):
        sim = TimeSharingSim(w, scheme=scheme, nodes=2, mpl=1, rng=RNG(0), params=p)
        sim.state.F[0, K.N_NPH] = ph0
        sim.state.F[1, K.N_NPH] = 0.999
        r = sim.run()
        ends.append(float(r.jobs["end_time"].max()))
        intr.append(float(r.nodes["interrupt"].sum()))
    assert max(ends) < 0.998  # no other hit within the job
    return ends, intr


@pytest.mark.parametrize("scheme", ["Local", "GS"])
def test_a_noise_event_delays_a_barrier_by_its_duration(scheme: str) -> None:
    # A 2-rank BSP job (1 ms grain, no skew) synchronises with its partner every
    # iteration. One daemon hit on PE 0 at 0.1 s, in the middle of a compute phase
    # (phase 0.1 s, period 1 s; PE 1's first hit, at 0.999 s, falls after the job's
    # end): rank 0 computes d later, its message leaves d later, so rank 1's receive,
    # the iteration's barrier, and every later iteration end d later: the job ends
    # exactly d after the same run without the hit (spinning ranks wait out any delay).
    d = 50e-6
    ends, intr = _barrier_ends(scheme, d)
    assert ends[0] - ends[1] == pytest.approx(d, abs=1e-9)
    assert intr == [pytest.approx(d, abs=1e-12), 0.0]  # the hit, charged once


def test_under_spin_block_one_hit_makes_the_ranks_block_from_then_on() -> None:
    # The same hit under SB: rank 1 enters its receive d before rank 0's message leaves,
    # so it waits d + L = 235 us, past its spin of 1.1 L = 204 us: it blocks, and its
    # wake-up (the NIC's interrupt, 50 us, and a queue move) makes it the late one the
    # next iteration, so from the hit on a rank blocks and is woken every iteration (the
    # FCS paper's "fine-grained jobs suffer from the noise" under SB). The job ends later
    # than by the hit alone, and the interrupts are the hit and the wake-ups.
    d = 50e-6
    p = TSParams()
    assert d + p.latency > p.spin_factor * p.latency
    ends, intr = _barrier_ends("SB", d)
    assert intr[1] == 0.0  # without the hit, the ranks never block
    wakeups = round((intr[0] - d) / p.interrupt)
    assert wakeups > 100  # about one per iteration after 0.1 s (1.185 ms each)
    assert ends[0] - ends[1] > d + wakeups * p.interrupt / 2
