"""The fast path gives the general engine's schedules, counters and outputs exactly.

Differential tests: the same workload run by the general loop (``fast=False``, the
policies' own ``schedule``) and by the fast path, as plain Python and compiled, must
agree bit for bit on every job's start and end and on the engine's counters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.engine import Simulation, SimulationResult, fastpath
from cosched.engine.invariants import verify_schedule
from cosched.platform import Platform
from cosched.policies import make_policy
from cosched.policies.conservative import ConservativeBackfilling
from cosched.policies.easy import EasyBackfilling
from cosched.policies.fcfs import Fcfs
from cosched.workload.job import Workload
from tests.strategies import job_draws, platforms

TRACES = Path(__file__).resolve().parents[3] / "shared" / "traces"

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("fcfs", {}),
    ("easy", {}),
    ("easy", {"window": 0}),
    ("easy", {"window": 1}),
    ("easy", {"window": 3}),
]


@st.composite
def workloads(draw: st.DrawFn, max_procs: int) -> Workload:
    """Bursts, long idle gaps, over-estimates and (as with ``overrun=keep``) jobs that
    outlive their estimate; integer times so that ties between events are frequent."""
    n = draw(st.integers(1, 40))
    gaps, slack = [0, 0, 0, 1, 5, 50, 300, 5000], [0, 0, 1, 10, 200, 1000, -1, -100]
    return Workload.from_jobs(list(job_draws(draw, n, max_procs, gaps, slack)))


@st.composite
def cases(draw: st.DrawFn) -> tuple[Workload, Platform]:
    platform = draw(platforms())
    return draw(workloads(max_procs=platform.procs)), platform


def _pass(sim: Simulation) -> str | None:
    """The name of the compiled pass the fast path would run ``sim`` with (None: the
    general loop)."""
    plan = fastpath.eligible(sim)
    return None if plan is None else plan.spec.name


def _run(w: Workload, platform: Platform, name: str, params: dict[str, Any], **kw: Any) -> Any:
    return Simulation(w, platform, make_policy(name, **params), **kw).run()


def _same(a: SimulationResult, b: SimulationResult) -> None:
    pd.testing.assert_frame_equal(a.jobs, b.jobs, check_exact=True)
    assert dict(a.stats) == dict(b.stats)
    assert dict(a.diagnostics) == dict(b.diagnostics)
    assert a.params == b.params and a.policy == b.policy


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=str)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), exact=st.booleans())
def test_fast_path_matches_general_loop(
    name: str, params: dict[str, Any], case: tuple[Workload, Platform], exact: bool
) -> None:
    w, platform = case
    est = "exact" if exact else "requested"
    general = _run(w, platform, name, params, estimates=est, fast=False)
    plain = _run(w, platform, name, params, estimates=est)
    verify_schedule(plain.jobs, capacity=platform.capacity)
    _same(general, plain)


@st.composite
def no_overrun_cases(draw: st.DrawFn) -> tuple[Workload, Platform]:
    """Workloads in which every job ends by its estimate (conservative's fast path)."""
    w, platform = draw(cases())
    t = w.table.copy()
    t["requested_time"] = t[["requested_time", "run_time"]].max(axis=1)
    return Workload.from_table(t), platform


@pytest.mark.parametrize("order", ["submit", "sjf"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=no_overrun_cases(), exact=st.booleans())
def test_conservative_fast_path_matches_general_loop(
    order: str, case: tuple[Workload, Platform], exact: bool
) -> None:
    w, platform = case
    est = "exact" if exact else "requested"
    general = _run(w, platform, "conservative", {"order": order}, estimates=est, fast=False)
    sim = Simulation(w, platform, make_policy("conservative", order=order), estimates=est)
    assert _pass(sim) == "conservative"
    fast = sim.run()
    verify_schedule(fast.jobs, capacity=platform.capacity)
    _same(general, fast)
    assert sim.policy.delayed == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=str)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), exact=st.booleans())
def test_compiled_fast_path_matches_general_loop(
    name: str,
    params: dict[str, Any],
    case: tuple[Workload, Platform],
    exact: bool,
) -> None:
    w, platform = case
    est = "exact" if exact else "requested"
    general = _run(w, platform, name, params, estimates=est, fast=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fastpath, "COMPILE_FROM", 0)
        compiled = _run(w, platform, name, params, estimates=est)
    _same(general, compiled)


def test_hand_computed_easy_schedule() -> None:
    # 4 processors. Job 1 takes 3 for 100 s; job 2 (4 procs) must wait for it: shadow
    # 100, extra 0. Job 3 (1 proc, 50 s requested) ends by the shadow: backfilled at 0.
    # Job 4 (1 proc, 200 s) would end after the shadow and there is no extra: it waits
    # (also at 50, when job 3 ends); job 2 then holds all 4 from 100 to 110.
    w = Workload.from_jobs([(0, 3, 100, 100), (0, 4, 10, 10), (0, 1, 50, 50), (0, 1, 200, 200)])
    r = _run(w, Platform.of_procs(4), "easy", {})
    assert r.jobs["start_time"].tolist() == [0.0, 100.0, 0.0, 110.0]
    assert r.jobs["end_time"].tolist() == [100.0, 110.0, 50.0, 310.0]
    f = _run(w, Platform.of_procs(4), "fcfs", {})
    assert f.jobs["start_time"].tolist() == [0.0, 100.0, 110.0, 110.0]


class MyEasy(EasyBackfilling, register=False):
    """A user's subclass: the fast path must not run it."""


@pytest.mark.parametrize(
    ("policy", "kw"),
    [
        (MyEasy(), {}),
        (EasyBackfilling(order="priority"), {}),
        (Fcfs(order="priority"), {}),
        (Fcfs(), {"check": True}),
        (Fcfs(), {"placement": True}),
        (Fcfs(), {"fast": False}),
        (ConservativeBackfilling(max_jobs_per_user=1), {}),
    ],
    ids=str,
)
def test_general_loop_when_a_feature_needs_it(policy: Any, kw: dict[str, Any]) -> None:
    w = Workload.from_jobs([(0, 1, 10), (1, 2, 10)])
    sim = Simulation(w, Platform.of_procs(2), policy, **kw)
    assert _pass(sim) is None or not sim.fast
    assert _pass(Simulation(w, Platform.of_procs(2), Fcfs())) == "fcfs"
    sim.run()
    assert sim._jobs, "the general loop builds the Job records"


def test_conservative_leaves_overruns_to_the_general_loop() -> None:
    # Job 1 runs 100 s on a 50 s estimate (overrun=keep): the policy rebuilds its
    # profile while job 1 is past its estimated end, which the fast path does not model.
    w = Workload.from_jobs([(0, 2, 100, 50), (1, 2, 10, 10)])
    sim = Simulation(w, Platform.of_procs(2), ConservativeBackfilling())
    assert _pass(sim) is None
    ok = Workload.from_jobs([(0, 2, 50, 100), (1, 2, 10, 10)])
    sim = Simulation(ok, Platform.of_procs(2), ConservativeBackfilling())
    assert _pass(sim) == "conservative"
    r = sim.run()
    # job 2 is reserved at 100 (job 1's estimated end); job 1 ends at 50, compression
    # moves job 2 to 50
    assert r.jobs["start_time"].tolist() == [0.0, 50.0]


def _archive_traces() -> list[Path]:
    return sorted(TRACES.glob("*.swf.gz")) if TRACES.is_dir() else []


def _trace(path: Path, limit: int | None = None, **rules: str) -> tuple[Workload, Platform]:
    from cosched.policies.requirements import MachineFlags, fit_workload
    from cosched.workload.loader import LoadRules, load_workload

    w = load_workload(path, rules=LoadRules(**rules), limit=limit)  # type: ignore[arg-type]
    w, platform, _ = fit_workload(Fcfs.requires, w, MachineFlags())
    return w, platform


@pytest.mark.traces
@pytest.mark.skipif(not TRACES.is_dir(), reason="needs the archive traces in ../shared/traces")
@pytest.mark.parametrize(
    ("overrun", "est", "name", "params"),
    [
        ("keep", "requested", "easy", {}),
        ("keep", "requested", "fcfs", {}),
        ("keep", "exact", "easy", {"window": 3}),
        ("extend", "exact", "easy", {}),
        ("extend", "requested", "conservative", {}),
    ],
    ids=str,
)
def test_kth_with_overruns_exact_estimates_and_windows(
    overrun: str, est: str, name: str, params: dict[str, Any]
) -> None:
    w, platform = _trace(TRACES / "KTH-SP2-1996-2.1-cln.swf.gz", overrun=overrun)
    general = _run(w, platform, name, params, estimates=est, fast=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fastpath, "COMPILE_FROM", 0)
        _same(general, _run(w, platform, name, params, estimates=est))
    _same(general, _run(w, platform, name, params, estimates=est))


@pytest.mark.slow
@pytest.mark.traces
@pytest.mark.skipif(not TRACES.is_dir(), reason="needs the archive traces in ../shared/traces")
@pytest.mark.parametrize("trace", _archive_traces(), ids=lambda p: p.name.split(".")[0])
def test_every_archive_trace(trace: Path) -> None:
    """FCFS and EASY on the first 200,000 jobs (all of every trace but RICC, Curie and
    HPC2N, whose general EASY loop alone would take most of a minute) by the general
    loop and the compiled loop; on the first 20,000 also by the plain Python loop (the
    same source run uncompiled: tens of microseconds a job, minutes on 200,000); and
    conservative, whose general loop is slower still, on the first 20,000, compiled."""
    w, platform = _trace(trace, limit=200_000, too_wide="drop")
    small, small_platform = _trace(trace, limit=20_000, too_wide="drop")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fastpath, "COMPILE_FROM", 0)
        for name in ("fcfs", "easy"):
            _same(_run(w, platform, name, {}, fast=False), _run(w, platform, name, {}))
            compiled = _run(small, small_platform, name, {})
            mp.setattr(fastpath, "COMPILE_FROM", 10**9)  # the plain Python loop
            _same(compiled, _run(small, small_platform, name, {}))
            mp.setattr(fastpath, "COMPILE_FROM", 0)
        w, platform = small, small_platform
        general = _run(w, platform, "conservative", {}, fast=False)
        sim = Simulation(w, platform, make_policy("conservative"))
        assert _pass(sim) == "conservative"
        _same(general, sim.run())


@pytest.mark.parametrize(
    ("policy", "compiled"),
    [("fcfs", False), ("fcfs", True), ("easy", False), ("easy", True), ("conservative", True)],
)
def test_outputs_are_the_same_on_both_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: str, compiled: bool
) -> None:
    """``cosched run``'s summary and every per-job output format, byte for byte."""
    from cosched.cli.main import main

    def run(folder: Path, *, fast: bool) -> dict[str, bytes]:
        folder.mkdir()
        outs = {
            "csv": folder / "jobs.csv",
            "parquet": folder / "jobs.parquet",
            "swf": folder / "jobs.swf",
            "batsim": folder / "batsim.csv",
        }
        taken = []
        real = fastpath.try_run

        def spy(sim: Simulation) -> SimulationResult | None:
            result = real(sim)
            taken.append(result is not None)
            return result

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fastpath, "COMPILE_FROM", 0 if compiled else 10**9)
            mp.setattr(fastpath, "try_run", spy)
            if not fast:
                mp.setattr(fastpath, "eligible", lambda sim: None)
            for fmt, path in outs.items():
                args = ["run", "--policy", policy, "--jobs-out", str(path)]
                args += ["--jobs-format", fmt, "--summary-out", str(folder / f"{fmt}.json")]
                assert main(args) == 0
        assert taken == [fast] * len(outs)
        files = {p.name: p.read_bytes() for p in sorted(folder.iterdir())}
        files["stdout"] = capsys.readouterr().out.encode()
        return files

    general = run(tmp_path / "general", fast=False)
    fast = run(tmp_path / "fast", fast=True)
    assert general.keys() == fast.keys()
    for name in general:
        assert general[name] == fast[name], name


def test_a_subclass_runs_the_general_loop() -> None:
    # A class supplies its compiled pass for itself only: a subclass's schedule may
    # differ, so it runs the general loop (and its own schedule is called).
    calls = []

    class Mine(EasyBackfilling, register=False):
        def schedule(self, view: Any) -> Any:
            calls.append(view.now)
            return super().schedule(view)

    w = Workload.from_jobs([(0, 1, 10), (1, 2, 10)])
    assert EasyBackfilling.compiled_pass() is not None
    assert Mine.compiled_pass() is None
    sim = Simulation(w, Platform.of_procs(2), Mine())
    assert _pass(sim) is None
    sim.run()
    assert calls == [0.0, 1.0, 10.0]
