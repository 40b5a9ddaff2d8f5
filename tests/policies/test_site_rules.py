"""Per-user running limits and the fair-share order in the baselines (hand cases and
invariants on random workloads)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.engine.simulation import simulate
from cosched.errors import ConfigError
from cosched.platform import Platform
from cosched.policies.base import make_policy
from cosched.policies.limits import FairShare, decayed_usage
from cosched.testing import check_feasible
from cosched.workload.job import Job, Workload
from tests.strategies import workloads

#: The baselines with user limits, and those with the fairshare order.
SITE_POLICIES = ("fcfs", "easy", "conservative")
FAIRSHARE_POLICIES = ("fcfs", "easy")


def _workload(rows: list[tuple[float, int, float, float, float]]) -> Workload:
    """``(submit, procs, run, requested, user)`` rows (user NaN: none), job ids 1, 2, ..."""
    names = ["submit_time", "procs", "run_time", "requested_time", "user_id"]
    t = pd.DataFrame(rows, columns=names)
    t.insert(0, "job_id", np.arange(1, len(t) + 1))
    return Workload.from_table(t)


def _starts(name: str, w: Workload, nodes: int, **params: object) -> list[float]:
    policy = make_policy(name, **params)
    result = simulate(w, Platform(nodes=nodes), policy, rng=np.random.default_rng(0))
    jobs = result.jobs.sort_values("job_id")
    return jobs["start_time"].tolist()


@pytest.mark.parametrize("name", SITE_POLICIES)
def test_a_user_at_one_running_job_waits_while_another_user_passes(name: str) -> None:
    # 4 processors. User 1's two jobs and user 2's job all fit at 0; with one running
    # job per user, user 1's second job waits for the first to end (100) while the
    # machine has room, and user 2's later job starts at once, past it.
    w = _workload([(0, 1, 100, 100, 1), (0, 1, 100, 100, 1), (0, 1, 100, 100, 2)])
    assert _starts(name, w, 4) == [0, 0, 0]
    assert _starts(name, w, 4, max_jobs_per_user=1) == [0, 100, 0]


@pytest.mark.parametrize("name", SITE_POLICIES)
def test_a_processor_limit_counts_the_users_running_processors(name: str) -> None:
    # 8 processors, user 1 may hold 3: the 2-processor job runs, the next 2-processor
    # job would make 4 and waits until 50; the 1-processor job makes 3 and starts.
    w = _workload([(0, 2, 50, 50, 1), (0, 2, 50, 50, 1), (0, 1, 50, 50, 1)])
    assert _starts(name, w, 8, max_procs_per_user=3) == [0, 50, 0]


@pytest.mark.parametrize("name", ["easy", "conservative"])
def test_a_limited_job_is_never_the_head_and_holds_no_reservation(name: str) -> None:
    # 4 processors. User 1 runs a 2-processor job (ends at 100); user 1's 4-processor
    # job does not fit. Without a limit it is reserved at 100 (EASY's head, with no
    # extra units), so user 2's 2-processor job (estimate 1000, past 100) waits for it.
    # With one job per user it is not eligible and holds no reservation: user 2's job
    # starts at once, and user 1's big job waits for both.
    w = _workload([(0, 2, 100, 100, 1), (0, 4, 10, 10, 1), (0, 2, 1000, 1000, 2)])
    assert _starts(name, w, 4) == [0, 100, 110]
    assert _starts(name, w, 4, max_jobs_per_user=1) == [0, 1000, 0]


@pytest.mark.parametrize("name", SITE_POLICIES)
def test_jobs_without_a_user_are_never_limited(name: str) -> None:
    w = _workload([(0.0, 1, 10.0, 10.0, math.nan), (0.0, 1, 10.0, 10.0, math.nan)])
    assert _starts(name, w, 2, max_jobs_per_user=1) == [0, 0]


@pytest.mark.parametrize(
    ("name", "param", "value"),
    [
        *((n, "max_jobs_per_user", 0) for n in SITE_POLICIES),
        *((n, "max_procs_per_user", -1) for n in SITE_POLICIES),
        *((n, "max_jobs_per_user", 1.5) for n in SITE_POLICIES),
        *((n, "fairshare_half_life", 0.0) for n in FAIRSHARE_POLICIES),
        *((n, "fairshare_weight", -1.0) for n in FAIRSHARE_POLICIES),
    ],
)
def test_a_bad_value_is_an_error_naming_the_parameter(name: str, param: str, value: float) -> None:
    with pytest.raises(ConfigError, match=param):
        make_policy(name, **{param: value})


def test_decayed_usage_by_hand() -> None:
    # 2 processors from 0 to 100, half-life 100: the integral of 2 * 2**(-(100 - s)/100)
    # over [0, 100] is 2 * 100 / ln 2 * (1 - 1/2) = 100 / ln 2.
    assert decayed_usage(2, 0.0, 100.0, 100.0, 100.0) == pytest.approx(100 / math.log(2))
    # One half-life later the same usage counts half.
    assert decayed_usage(2, 0.0, 100.0, 200.0, 100.0) == pytest.approx(50 / math.log(2))


def _job(index: int, user: int, submit: float = 0.0, procs: int = 2) -> Job:
    return Job(index, index + 1, submit, 100.0, 100.0, procs, user_id=user)


def test_fair_share_priority_by_hand() -> None:
    # Users 1 and 2 (shares 1/2 each). User 1 ran 2 processors from 0 to 100; at 200
    # (one half-life later) its finished usage is 50 / ln 2, user 2 has none: user 1's
    # normalised usage is 1, its factor 2**(-1 / 0.5) = 1/4; user 2's is 2**0 = 1.
    fs = FairShare(half_life=100.0, weight=1.0)
    a, b, c = _job(0, 1), _job(1, 1, submit=150.0), _job(2, 2, submit=180.0)
    for j in (a, b, c):
        fs.submitted(j)
    fs.finished(a, start=0.0, now=100.0)
    usage = fs.usage([], now=200.0)
    assert usage == {1: pytest.approx(50 / math.log(2))}
    pri = dict((j.index, p) for p, j in fs.priorities([b, c], usage, now=200.0))
    week = 7 * 86400.0
    assert pri[1] == pytest.approx(50 / week + 0.25)
    assert pri[2] == pytest.approx(20 / week + 1.0)
    # A running job adds its usage to date: user 2 running 2 processors from 100 to 200
    # adds 100 / ln 2 (the hand value above), so U1 = 50 / 150 = 1/3.
    usage = fs.usage([(_job(3, 2), 100.0)], now=200.0)
    assert usage[2] == pytest.approx(100 / math.log(2))
    pri = dict((j.index, p) for p, j in fs.priorities([b], usage, now=200.0))
    assert pri[1] == pytest.approx(50 / week + 2 ** (-(1 / 3) / 0.5))


@pytest.mark.parametrize("name", FAIRSHARE_POLICIES)
def test_the_fairshare_order_serves_the_user_who_used_less(name: str) -> None:
    # 1 processor. User 1's job runs 0-100; user 1's second job (submitted at 50) and
    # user 2's job (at 60) wait. Submit order serves user 1 again at 100; fair-share
    # serves user 2, who has used nothing.
    w = _workload([(0, 1, 100, 100, 1), (50, 1, 10, 10, 1), (60, 1, 10, 10, 2)])
    assert _starts(name, w, 1) == [0, 100, 110]
    assert _starts(name, w, 1, order="fairshare", fairshare_half_life=3600.0) == [0, 110, 100]


def _peaks(result: object, w: Workload) -> tuple[dict[int, int], dict[int, int]]:
    """Most jobs and processors each user held at once in a result."""
    jobs = result.jobs  # type: ignore[attr-defined]
    t = w.columns
    users = dict(zip(np.asarray(t["job_id"]), np.asarray(t["user_id"]), strict=True))
    events: dict[float, list[tuple[int, int, int]]] = {}
    for row in jobs.itertuples():
        u = users[row.job_id]
        if math.isnan(u):
            continue
        events.setdefault(row.start_time, []).append((int(u), 1, int(row.procs)))
        events.setdefault(row.end_time, []).append((int(u), -1, -int(row.procs)))
    held_j: dict[int, int] = {}
    held_p: dict[int, int] = {}
    peak_j: dict[int, int] = {}
    peak_p: dict[int, int] = {}
    for t in sorted(events):
        for u, dj, dp in sorted(events[t], key=lambda e: e[1]):  # ends before starts
            held_j[u] = held_j.get(u, 0) + dj
            held_p[u] = held_p.get(u, 0) + dp
            peak_j[u] = max(peak_j.get(u, 0), held_j[u])
            peak_p[u] = max(peak_p.get(u, 0), held_p[u])
    return peak_j, peak_p


@pytest.mark.parametrize("name", SITE_POLICIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_invariants_and_limits_hold_on_random_workloads(name: str, data: st.DataObject) -> None:
    platform = Platform(nodes=data.draw(st.integers(1, 8)), cores=data.draw(st.integers(1, 2)))
    w = data.draw(workloads(max_procs=platform.procs, max_jobs=20, users=3))
    max_jobs = data.draw(st.integers(1, 3))
    max_procs = data.draw(st.integers(platform.procs // 2 + 1, platform.procs))
    orders = ["submit", "sjf", "fairshare"] if name in FAIRSHARE_POLICIES else ["submit", "sjf"]
    order = data.draw(st.sampled_from(orders))
    result = check_feasible(
        type(make_policy(name)),
        w,
        platform,
        order=order,
        max_jobs_per_user=max_jobs,
        max_procs_per_user=max_procs,
    )
    peak_j, peak_p = _peaks(result, w)
    assert all(v <= max_jobs for v in peak_j.values())
    # A job wider than the limit runs alone for its user (see cosched.policies.limits).
    t = w.columns
    users, procs = np.asarray(t["user_id"]), np.asarray(t["procs"])
    for u, v in peak_p.items():
        assert v <= max(max_procs, int(procs[users == u].max()))
