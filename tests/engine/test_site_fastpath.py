"""The compiled pass under the site's rules gives the general loop's schedules exactly.

Differential tests: random workloads with users and queues, run by the general loop
(``fast=False``: the policies' own ``schedule``, :mod:`cosched.policies.limits`, the
engine's drains) and by the fast path (as plain Python and compiled), under every queue
order the pass runs, per-user limits on jobs and processors, fair-share, and
unavailability intervals (``Platform.unavailable``): every job's start and end and the
engine's counters must agree bit for bit.
"""

from __future__ import annotations

import os
from dataclasses import replace
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
from cosched.workload.job import Workload
from tests.strategies import job_draws

RULES: list[tuple[str, dict[str, Any]]] = [
    ("fcfs", {"order": "sjf"}),
    ("fcfs", {"order": "fairshare", "fairshare_half_life": 600.0, "max_jobs_per_user": 2}),
    ("fcfs", {"max_procs_per_user": 4}),
    ("easy", {"order": "wfp"}),
    ("easy", {"order": "queue", "window": 2}),
    ("easy", {"max_jobs_per_user": 1}),
    ("easy", {"max_jobs_per_user": 2, "max_procs_per_user": 5, "order": "sjf"}),
    ("easy", {"order": "fairshare", "fairshare_half_life": 300.0, "fairshare_weight": 2.0}),
    ("easy", {"order": "fairshare", "max_procs_per_user": 3, "window": 1}),
    ("easy", {}),  # the plain pass, under unavailability when drawn
]


@st.composite
def cases(draw: st.DrawFn) -> tuple[Workload, Platform]:
    """Bursts and gaps on 4-12 processors, 1-4 users (some jobs without one), 1-3
    queues, over- and under-estimates, and 0-3 intervals removing 1 unit to all of them
    (overlapping ones too)."""
    procs = draw(st.integers(4, 12))
    n = draw(st.integers(1, 40))
    rows = []
    gaps, slack = [0, 0, 0, 1, 5, 50, 300, 2000], [0, 0, 10, 200, -1, -100]
    for job in job_draws(draw, n, procs, gaps, slack):
        user = draw(st.sampled_from([1.0, 1.0, 2.0, 3.0, 4.0, float("nan")]))
        queue = draw(st.sampled_from([1.0, 2.0, 3.0, float("nan")]))
        rows.append((*job, user, queue))
    t = int(rows[-1][0])
    table = pd.DataFrame(
        rows, columns=["submit_time", "procs", "run_time", "requested_time", "user_id", "queue"]
    )
    table.insert(0, "job_id", range(1, n + 1))
    gone = []
    for _ in range(draw(st.integers(0, 3))):
        a = float(draw(st.integers(0, max(t, 1))))
        gone.append(
            (a, a + draw(st.sampled_from([1.0, 60.0, 400.0, 3000.0])), draw(st.integers(1, procs)))
        )
    return Workload.from_table(table), replace(Platform.of_procs(procs), unavailable=tuple(gone))


def _same(a: SimulationResult, b: SimulationResult) -> None:
    pd.testing.assert_frame_equal(a.jobs, b.jobs, check_exact=True)
    assert dict(a.stats) == dict(b.stats)
    assert a.params == b.params and a.policy == b.policy


def _run(case: tuple[Workload, Platform], name: str, params: dict[str, Any], **kw: Any) -> Any:
    w, platform = case
    sim = Simulation(w, platform, make_policy(name, **params), **kw)
    if kw.get("fast", True):
        assert fastpath.eligible(sim) is not None, "the fast path runs the site's rules"
    return sim.run()


@pytest.mark.parametrize(("name", "params"), RULES, ids=str)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), exact=st.booleans())
def test_the_site_pass_matches_the_general_loop(
    name: str, params: dict[str, Any], case: tuple[Workload, Platform], exact: bool
) -> None:
    est = "exact" if exact else "requested"
    general = _run(case, name, params, estimates=est, fast=False)
    plain = _run(case, name, params, estimates=est)
    verify_schedule(plain.jobs, capacity=case[1].capacity)
    _same(general, plain)


@pytest.mark.parametrize(("name", "params"), RULES[1::2], ids=str)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), exact=st.booleans())
def test_the_compiled_site_pass_matches_the_general_loop(
    name: str, params: dict[str, Any], case: tuple[Workload, Platform], exact: bool
) -> None:
    est = "exact" if exact else "requested"
    general = _run(case, name, params, estimates=est, fast=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fastpath, "COMPILE_FROM", 0)
        compiled = _run(case, name, params, estimates=est)
    _same(general, compiled)


_HERE = Path(__file__).resolve().parents[3] / "shared" / "traces"
TRACES = Path(os.environ.get("COSCHED_TRACES", _HERE))


@pytest.mark.traces
@pytest.mark.skipif(not TRACES.is_dir(), reason="needs the archive traces in ../shared/traces")
@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("easy", {"order": "fairshare", "fairshare_half_life": 86400.0, "max_jobs_per_user": 21}),
        ("fcfs", {"order": "fairshare", "fairshare_half_life": 604800.0}),
        ("easy", {"order": "wfp", "window": 20}),
    ],
    ids=str,
)
def test_kth_under_the_outages_the_fit_reads(name: str, params: dict[str, Any]) -> None:
    # KTH-SP2's first 6000 jobs on the machine with the unavailability the fit reads
    # from the whole log (thousands of intervals), users and fair-share from the log.
    from cosched.experiments.fit import prepare
    from cosched.policies.recorded import Recorded
    from cosched.policies.requirements import MachineFlags, fit_workload
    from cosched.workload.loader import load_workload

    w = load_workload(TRACES / "KTH-SP2-1996-2.1-cln.swf.gz")
    w, _, _ = fit_workload(Recorded.requires, w, MachineFlags())
    _, platform, _ = fit_workload(make_policy("easy").requires, w, MachineFlags())
    inp = prepare(w, platform)
    assert len(inp.unavailable) > 1000
    first = inp.workload.rows(slice(0, 6000), "first 6000")
    case = (first, replace(platform, unavailable=inp.unavailable))
    _same(_run(case, name, params, fast=False), _run(case, name, params))
