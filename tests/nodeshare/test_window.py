"""nodeshare-easy's compiled backfill scan and reservation against the per-job code."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cosched.engine.simulation import Simulation
from cosched.nodeshare import _window_kernels as kern
from cosched.nodeshare import policies as ns
from cosched.policies.reservation import node_reservation
from tests.nodeshare.test_invariants import assert_same_runs, cases, mixed_workload


class _Loop(ns.CoschedulingBackfill):
    """nodeshare-easy through its loop of Python methods (a subclass, as a user's
    variant: it does not take the one-kernel pass)."""

    name = ""


def _run(w, platform, scan_from: int, monkeypatch: pytest.MonkeyPatch, cls=_Loop, **params):
    monkeypatch.setattr(ns, "_SCAN_FROM", scan_from)
    policy = cls(**params)
    r = Simulation(w, platform, policy, check=True).run()
    return r, policy


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), window=st.integers(1, 40))
def test_scanned_window_schedules_as_the_job_by_job_visit(case, window) -> None:
    # Every window scanned (from 1 job) against every window visited job by job, and
    # every pass as one kernel (the built-in policy): the same starts, ends,
    # placements, configurations, blocked record and engine counters, bit for bit.
    w, platform, params = case
    params = {**params, "window": window}
    with pytest.MonkeyPatch.context() as mp:
        a, pa = _run(w, platform, 10**9, mp, **params)
        b, pb = _run(w, platform, 1, mp, **params)
        c, pc = _run(w, platform, 10**9, mp, cls=ns.CoschedulingBackfill, **params)
    for other, po in ((b, pb), (c, pc)):
        assert_same_runs(a, pa, other, po)


def test_a_variant_places_through_its_own_methods() -> None:
    # A subclass, or plan replaced on the instance, keeps the loop through plan(): each
    # blocked head and each start is planned there (the one-kernel pass never calls it).
    w, platform = mixed_workload()
    seen = {"sub": 0, "patched": 0, "kernel": 0}

    class Counting(ns.CoschedulingBackfill):
        name = ""

        def plan(self, job, view, book=None):
            seen["sub"] += 1
            return super().plan(job, view, book)

    patched = ns.CoschedulingBackfill()
    plain = patched.plan

    def counted(job, view, book=None):
        seen["patched"] += 1
        return plain(job, view, book)

    patched.plan = counted  # type: ignore[method-assign]
    kernel = ns.CoschedulingBackfill()
    plain_k = kernel.plan
    runs = [Simulation(w, platform, p).run() for p in (Counting(), patched)]
    kernel_run = Simulation(w, platform, kernel).run()
    assert kernel.plan == plain_k  # not replaced: the kernel pass, plan() never called
    assert seen["sub"] >= len(w) and seen["patched"] >= len(w)
    for r in runs:
        assert r.placements == kernel_run.placements


@settings(max_examples=200, deadline=None)
@given(
    cap=st.integers(1, 3),
    nodes=st.integers(1, 12),
    need=st.integers(1, 14),
    now=st.sampled_from([0.0, 5.0, 10.0]),
    data=st.data(),
)
def test_node_shadow_is_node_reservation(cap, nodes, need, now, data) -> None:
    # Jobs 0..J-1 on random nodes (padding index J, whose end is -inf); ends with ties
    # and ends in the past. The kernel gives node_reservation's shadow and extra, and
    # marks the nodes empty by the shadow time.
    jobs = data.draw(st.integers(0, cap * nodes))
    ends = np.array(
        [data.draw(st.sampled_from([1.0, 5.0, 7.5, 10.0, 20.0, 1e9])) for _ in range(jobs)]
        + [-np.inf]
    )
    node_jobs = np.full((cap, nodes), jobs, dtype=np.intp)
    count = [0] * nodes
    for j in range(jobs):
        free = [n for n in range(nodes) if count[n] < cap]
        node = data.draw(st.sampled_from(free))
        node_jobs[count[node], node] = j
        count[node] += 1
    empty_at = ends[node_jobs].max(axis=0)
    occupied = empty_at[empty_at > -np.inf]
    free_now = nodes - len(occupied)
    relevant = np.zeros(nodes, dtype=np.bool_)
    shadow, extra, ok = kern.node_shadow(ends, node_jobs, np.array(count), now, need, relevant)
    if need - free_now > len(occupied):
        assert not ok
        with pytest.raises(ValueError, match="head too large"):
            node_reservation(occupied, free=free_now, need=need, now=now)
        return
    assert ok
    want = node_reservation(occupied, free=free_now, need=need, now=now)
    assert (shadow, extra) == want
    assert relevant.tolist() == (empty_at <= want[0]).tolist()


def test_node_shadow_by_hand() -> None:
    # Nodes 0-3; node 0 empty, node 1 holds jobs ending at 10 and 30 (empties at 30),
    # node 2 a job ending at 20, node 3 one ending at 5 (in the past at now = 8).
    # A head of 3 nodes: 1 free now, the 2nd smallest of (8, 20, 30) is 20: shadow 20,
    # nodes 0, 2, 3 empty by then, extra 0; the head counts on nodes 0, 2 and 3.
    ends = np.array([10.0, 30.0, 20.0, 5.0, -np.inf])
    node_jobs = np.array([[4, 0, 2, 3], [4, 1, 4, 4]], dtype=np.intp)
    relevant = np.zeros(4, dtype=np.bool_)
    count = np.array([0, 2, 1, 1])
    shadow, extra, ok = kern.node_shadow(ends, node_jobs, count, 8.0, 3, relevant)
    assert ok and (shadow, extra) == (20.0, 0)
    assert relevant.tolist() == [True, False, True, True]


class _WindowSpy(ns.CoschedulingBackfill):
    """nodeshare-easy that checks each backfill window read from its queued mask
    against the engine's queue: the next ``window`` queued jobs behind the head."""

    name = ""

    def _backfill_window(self, view, book, head):
        queue = [job.index for job in view.queue]
        behind = queue[queue.index(head) + 1 :]
        got = kern.queued_after(self._queued, head + 1, self._submitted, self.window)
        assert got.tolist() == behind[: self.window]
        self.windows += 1
        return super()._backfill_window(view, book, head)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), window=st.integers(1, 12))
def test_the_queued_mask_gives_the_queue_behind_the_head(case, window) -> None:
    w, platform, params = case
    spy = _WindowSpy(**params, window=window)
    spy.windows = 0
    Simulation(w, platform, spy, check=True).run()


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.sampled_from([-1.0, 0.0, 0.5, 2.0, 3.0, 7.25, 1e9, np.inf]), min_size=1, max_size=80
    ),
    data=st.data(),
)
def test_kth_smallest_is_the_partition(values, data) -> None:
    # Many ties, k small (the sorted buffer) and large (np.partition): the k-th smallest.
    k = data.draw(st.integers(1, len(values)))
    x = np.array(values)
    assert kern.kth_smallest(x, k) == np.partition(x, k - 1)[k - 1] == sorted(values)[k - 1]
    assert x.tolist() == values  # the input is left as it was
