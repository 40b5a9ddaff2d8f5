"""The coordinator's batched calls (windows, one-call steps) change nothing but the calls.

``Coordinator(batch=True)`` is what the TCP transport runs with; here it runs in this
process against the same domains driven instant by instant, and must give the same
schedules, counters and instant count, and the same deadlocks. The quiet times it
relies on are checked by hand on small cases; over TCP, a run without coscheduling
takes a handful of requests, and serve processes kept between runs give each run the
results of a fresh start.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from cosched.coupled import CoupledDeadlockError, run_coupled
from cosched.coupled.coordinator import Coordinator, CoupledResult
from cosched.coupled.domain import Domain
from cosched.coupled.protocol import domain_quiet
from cosched.coupled.spec import DomainSpec
from cosched.coupled.transport import _KEPT, close_kept, run_tcp
from cosched.platform import Platform
from cosched.workload.job import Workload
from tests.coupled.test_coupled import build, coupled_case


def run(domains: list[Domain], batch: bool) -> CoupledResult:
    coord = Coordinator(domains, batch=batch)
    coord.pair(domains[0].name, domains[1].name)
    return coord.run()


def assert_same(a: CoupledResult, b: CoupledResult) -> None:
    for key in ("instants", "retries"):  # the clock's counters (tcp adds message counts)
        assert a.stats[key] == b.stats[key]
    for name in a.results:
        ra, rb = a.results[name], b.results[name]
        pd.testing.assert_frame_equal(ra.jobs, rb.jobs, check_exact=True)
        assert dict(ra.stats) == dict(rb.stats)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(coupled_case())
def test_batched_coordinator_equals_instant_by_instant(case: dict) -> None:
    try:
        plain = run(build(case), batch=False)
    except CoupledDeadlockError as exc:
        with pytest.raises(CoupledDeadlockError) as info:
            run(build(case), batch=True)
        assert str(info.value) == str(exc)
        return
    assert_same(plain, run(build(case), batch=True))


def with_mates(rows: list[tuple[float, int, float]], mates: list[int]) -> Workload:
    t = Workload.from_jobs(rows).table.copy()
    t["coupled_mate"] = mates
    return Workload.from_table(t)


def pair(
    first: int = 4, enabled: bool = True, release: float | None = 100.0, clock: str = "machine"
) -> tuple[Domain, Domain]:
    """A: job 1 (t=0, ``first`` of 4 procs, 50 s), job 2 (t=10, 2 procs) paired with
    B's job 2 (t=30); B: job 1 (t=0) alone, job 2 (t=30)."""
    wa = with_mates([(0.0, first, 50.0), (10.0, 2, 20.0)], [-1, 2])
    wb = with_mates([(0.0, 1, 500.0), (30.0, 1, 20.0)], [-1, 2])
    kw = {"enabled": enabled, "release_period": release, "release_clock": clock}
    a = Domain("A", wa, Platform.of_procs(4), scheme="hold", **kw)  # type: ignore[arg-type]
    b = Domain("B", wb, Platform.of_procs(4), scheme="hold", **kw)  # type: ignore[arg-type]
    coord = Coordinator([a, b])
    coord.pair("A", "B")
    return a, b


def instant(d: Domain, t: float) -> None:
    """What the coordinator does at an instant where ``d`` has an event."""
    d.gated = True
    d.sim.advance(t)
    d.extra_pass()


def test_quiet_until_a_paired_job_is_queued() -> None:
    a, b = pair(first=4)
    # Nothing submitted yet: quiet until the paired job arrives (A: 10, B: 30).
    assert domain_quiet(a) == 10.0 and domain_quiet(b) == 30.0
    instant(a, 0.0)
    instant(b, 0.0)
    assert domain_quiet(a) == 10.0  # job 1 runs: no paired job queued
    instant(a, 10.0)
    # A's job 2 waits (the machine is full), not holding: any pass of A may call B.
    assert domain_quiet(a) == -math.inf
    assert domain_quiet(b) == 30.0


def test_quiet_for_a_holder_ends_with_its_release() -> None:
    a, b = pair(first=2, release=100.0)
    instant(a, 0.0)
    instant(b, 0.0)
    instant(a, 10.0)  # job 2 fits; its mate is not submitted: it holds
    assert a.view.holding
    # No paired job left to arrive: quiet until the machine's next release, at 100.
    assert domain_quiet(a) == 100.0
    a1, b1 = pair(first=2, release=100.0, clock="job")
    instant(a1, 0.0)
    instant(b1, 0.0)
    instant(a1, 10.0)
    assert domain_quiet(a1) == 110.0  # on the job's own clock: released at 10 + 100
    a2, b2 = pair(first=2, release=None)
    instant(a2, 0.0)
    instant(b2, 0.0)
    instant(a2, 10.0)
    assert a2.view.holding and domain_quiet(a2) == math.inf  # held until its mate comes


def test_quiet_without_coscheduling_is_forever() -> None:
    a, _ = pair(enabled=False)
    assert domain_quiet(a) == math.inf


def spec_pair(enabled: bool, n: int = 120) -> list[DomainSpec]:
    """Two machines of 4 procs, ``n`` jobs each (one every 10 s, 1 or 2 procs, 25 s),
    every job paired with the other machine's job of the same rank."""
    rows = [(10.0 * k, 1 + k % 2, 25.0) for k in range(n)]
    w = with_mates(rows, list(range(1, n + 1)))
    return [DomainSpec(name, w, Platform.of_procs(4), enabled=enabled) for name in "AB"]


def test_tcp_without_coscheduling_runs_in_windows_not_instant_by_instant() -> None:
    specs = spec_pair(enabled=False)
    local = run_coupled([s.build() for s in specs])
    remote = run_tcp(specs, timeout=5.0)
    assert_same(local, remote)
    # No pass ever calls a peer: the whole run is one window per simulated day (and a
    # step where a window must end), not a few requests per instant.
    assert local.stats["instants"] >= 120
    assert remote.stats["driver_messages"] < 20
    assert remote.stats["peer_messages"] == 0


def test_kept_cluster_serves_successive_runs_with_the_same_results() -> None:
    try:
        first = run_tcp(spec_pair(enabled=True), keep=True)
        pids = {n: p.pid for n, p in next(iter(_KEPT.values())).procs.items()}
        second = run_tcp(spec_pair(enabled=False), keep=True)
        third = run_tcp(spec_pair(enabled=True), keep=True)
        assert {n: p.pid for n, p in next(iter(_KEPT.values())).procs.items()} == pids
    finally:
        close_kept()
    assert not _KEPT
    assert_same(first, run_coupled([s.build() for s in spec_pair(enabled=True)]))
    assert_same(second, run_coupled([s.build() for s in spec_pair(enabled=False)]))
    assert_same(first, third)
