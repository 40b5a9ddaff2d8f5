"""Conservative backfilling's compiled profile against an obviously-correct oracle.

:class:`RefProfile` keeps the free units as a base step function plus a list of
``(start, end, units)`` changes and answers every question by evaluating that
function at its change points; it is slow and has no segment bookkeeping to get
wrong. :class:`~cosched.policies.profile.Profile` (array-backed, compiled kernels)
must give the same answers on random operations, and a conservative policy built on
the oracle must produce the same schedules as the real one.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.engine import Simulation
from cosched.engine.view import SystemView
from cosched.platform import Platform
from cosched.policies.conservative import OVERRUN_GRACE, ConservativeBackfilling
from cosched.policies.profile import Profile
from cosched.workload.job import Workload
from tests.strategies import platforms, workloads


class RefProfile:
    """Free units over time, as ``free_now`` + releases + added intervals."""

    def __init__(self, now: float, free_now: int, releases: list[tuple[float, int]]) -> None:
        self.now = now
        # (start, end, units): units are added over [start, end).
        self.changes = [(now, math.inf, free_now)]
        self.changes += [(max(t, now), math.inf, u) for t, u in releases]

    def at(self, t: float) -> int:
        return sum(u for s, e, u in self.changes if s <= t < e)

    def points(self) -> list[float]:
        """``now`` and every later instant at which the function may change."""
        pts = {self.now}
        for s, e, _ in self.changes:
            pts.update(p for p in (s, e) if self.now <= p < math.inf)
        return sorted(pts)

    def earliest(self, size: int, duration: float, not_after: float = math.inf) -> float | None:
        pts = self.points()
        for s in pts:  # the earliest start is always "now" or a change point
            end = s + duration
            if all(self.at(p) >= size for p in [s, *(p for p in pts if s < p < end)]):
                return s if s <= not_after else None
        return None

    def add(self, start: float, duration: float, units: int) -> None:
        self.changes.append((start, start + duration, units))

    def could_start_before(self, t: float, size: int) -> bool:
        return any(self.at(p) >= size for p in self.points() if p < t)

    def coalesce(self) -> None:
        pass  # the function is unchanged

    def advance(self, now: float) -> None:
        self.now = now

    def reserve(self, sizes: np.ndarray, durations: np.ndarray) -> np.ndarray:
        out = []
        for size, d in zip(sizes.tolist(), durations.tolist(), strict=True):
            start = self.earliest(size, d)
            assert start is not None
            self.add(start, d, -size)
            out.append(start)
        return np.array(out, dtype=np.float64)

    def compress(
        self, now: float, sizes: np.ndarray, durations: np.ndarray, starts: np.ndarray
    ) -> int:
        delayed = 0
        for j, (size, d) in enumerate(zip(sizes.tolist(), durations.tolist(), strict=True)):
            old = float(starts[j])
            if old <= now or not self.could_start_before(old, size):
                continue
            self.add(old, d, size)
            start = self.earliest(size, d, not_after=old)
            if start is None:
                start = self.earliest(size, d)
                delayed += 1
            assert start is not None
            self.add(start, d, -size)
            starts[j] = start
        return delayed


def same_function(p: Profile, ref: RefProfile) -> None:
    times, free = p.times, p.free
    assert times[0] == ref.now
    assert all(a < b for a, b in itertools.pairwise(times))  # strictly increasing
    for t in {*times, *ref.points()}:
        k = max(i for i, s in enumerate(times) if s <= t)
        assert free[k] == ref.at(t), (t, p, ref.changes)


# Integer times and durations (as in SWF): ties between segment boundaries are common.
times_ = st.integers(0, 60).map(float)
durations_ = st.integers(1, 40).map(float)
sizes_ = st.integers(1, 12)

ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), times_, durations_, st.integers(-6, 6)),
        st.tuples(st.just("earliest"), sizes_, durations_, st.sampled_from([math.inf, 0.0, 30.0])),
        st.tuples(st.just("could"), times_, sizes_),
        st.tuples(st.just("coalesce")),
        st.tuples(st.just("advance"), st.integers(0, 5).map(float)),
        st.tuples(st.just("reserve"), st.lists(st.tuples(sizes_, durations_), max_size=4)),
        st.tuples(st.just("compress"), st.lists(st.tuples(sizes_, durations_, times_), max_size=5)),
    ),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(
    free_now=st.integers(0, 12),
    releases=st.lists(st.tuples(st.integers(-5, 60).map(float), st.integers(0, 4)), max_size=6),
    script=ops,
)
def test_profile_matches_oracle(
    free_now: int, releases: list[tuple[float, int]], script: list[tuple[Any, ...]]
) -> None:
    now = 0.0
    # Keep the last segment wide enough for any job, as a real profile is (the
    # capacity is free once everything has ended).
    releases = [*releases, (100.0, 12)]
    p, ref = Profile(now, free_now, releases), RefProfile(now, free_now, releases)
    same_function(p, ref)
    for op, *args in script:
        if op == "add":
            start, d, units = args
            start += now
            p.add(start, d, units)
            ref.add(start, d, units)
        elif op == "earliest":
            size, d, not_after = args
            assert p.earliest(size, d, now + not_after) == ref.earliest(size, d, now + not_after)
        elif op == "could":
            t, size = args
            assert p.could_start_before(now + t, size) == ref.could_start_before(now + t, size)
        elif op == "coalesce":
            p.coalesce()
            ref.coalesce()
            assert all(a != b for a, b in itertools.pairwise(p.free))
        elif op == "advance":
            now += args[0]
            p.advance(now)
            ref.advance(now)
        elif op == "reserve":
            sizes = np.array([s for s, _ in args[0]], dtype=np.int64)
            durs = np.array([d for _, d in args[0]], dtype=np.float64)
            assert p.reserve(sizes, durs).tolist() == ref.reserve(sizes, durs).tolist()
        else:
            # Jobs "holding" reservations at random places: take their units first, as
            # the policy does, then compress.
            jobs = args[0]
            sizes = np.array([s for s, _, _ in jobs], dtype=np.int64)
            durs = np.array([d for _, d, _ in jobs], dtype=np.float64)
            starts = np.array([now + t for _, _, t in jobs], dtype=np.float64)
            for prof in (p, ref):
                for s, d, t in zip(sizes.tolist(), durs.tolist(), starts.tolist(), strict=True):
                    prof.add(t, d, -s)
            a, b = starts.copy(), starts.copy()
            assert p.compress(now, sizes, durs, a) == ref.compress(now, sizes, durs, b)
            assert a.tolist() == b.tolist()
        same_function(p, ref)


class OracleConservative(ConservativeBackfilling):
    """Conservative backfilling on the oracle profile."""

    name = ""  # not registered

    def _rebuild(self, view: SystemView) -> Any:
        now = view.now
        releases = [
            (end if end > now else now + OVERRUN_GRACE, size) for end, _, size in view.releases()
        ]
        profile = RefProfile(now, view.free, releases)
        sizes, est = view.sizes, view.estimates
        for i, start in self.reservations.items():
            profile.add(max(start, now), est[i], -sizes[i])
        return profile


@st.composite
def cases(draw: st.DrawFn) -> tuple[Workload, Platform]:
    platform = draw(platforms())
    return draw(workloads(max_procs=platform.procs, max_jobs=15)), platform


@pytest.mark.parametrize("order", ["submit", "sjf"])
@settings(max_examples=80, deadline=None)
@given(case=cases(), exact=st.booleans())
def test_schedule_matches_oracle_profile(case: Any, exact: bool, order: str) -> None:
    w, platform = case
    est = "exact" if exact else "requested"
    fast = ConservativeBackfilling(order=order)
    slow = OracleConservative(order=order)
    a = Simulation(w, platform, fast, estimates=est).run()
    b = Simulation(w, platform, slow, estimates=est).run()
    assert a.jobs["start_time"].tolist() == b.jobs["start_time"].tolist()
    assert fast.delayed == slow.delayed


@settings(max_examples=60, deadline=None)
@given(case=cases(), data=st.data())
def test_overruns_match_oracle_profile(case: Any, data: st.DataObject) -> None:
    # Requested times below run times: running jobs outlive their estimates, the
    # profile is rebuilt and reservations may move later (``delayed``).
    w, platform = case
    t = w.table
    cut = data.draw(st.lists(st.integers(0, 400), min_size=len(t), max_size=len(t)))
    rows = [
        (float(s), int(p), float(r), float(max(1.0, r - c)))
        for s, p, r, c in zip(t["submit_time"], t["procs"], t["run_time"], cut, strict=True)
    ]
    w = Workload.from_jobs(rows)
    fast, slow = ConservativeBackfilling(), OracleConservative()
    a = Simulation(w, platform, fast).run()
    b = Simulation(w, platform, slow).run()
    assert a.jobs["start_time"].tolist() == b.jobs["start_time"].tolist()
    assert fast.delayed == slow.delayed


def test_profile_grows_past_its_first_arrays() -> None:
    p, ref = Profile(0.0, 1000, []), RefProfile(0.0, 1000, [])
    for k in range(300):
        for prof in (p, ref):
            prof.add(float(3 * k), 2.0, -1 - k % 5)
    same_function(p, ref)
    assert p.earliest(1000, 1.0) == ref.earliest(1000, 1.0) == 2.0
    assert p.earliest(1000, 2.0, not_after=1.0) is None
