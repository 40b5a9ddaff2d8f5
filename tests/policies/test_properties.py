"""Invariants of every baseline policy on random workloads and machines (hypothesis)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.engine import Simulation, Start
from cosched.engine.invariants import verify_schedule
from cosched.platform import Platform
from cosched.policies import make_policy
from cosched.policies.conservative import ConservativeBackfilling
from cosched.policies.easy import EasyBackfilling
from tests.strategies import platforms, workloads

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("fcfs", {}),
    ("fcfs", {"order": "sjf"}),
    ("fcfs", {"order": "wfp"}),
    ("fcfs", {"order": "priority"}),
    ("easy", {}),
    ("easy", {"window": 2}),
    ("easy", {"order": "sjf"}),
    ("easy", {"order": "wfp"}),
    ("easy", {"order": "priority"}),
    ("easy", {"order": "priority", "aging_time": 100.0}),
    ("conservative", {}),
    ("conservative", {"order": "sjf"}),
]


@st.composite
def cases(draw: st.DrawFn) -> tuple[Any, Platform]:
    platform = draw(platforms())
    w = draw(workloads(max_procs=platform.procs))
    return w, platform


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=lambda v: str(v))
@settings(max_examples=60, deadline=None)
@given(case=cases(), exact=st.booleans())
def test_schedule_is_feasible(name: str, params: dict[str, Any], case: Any, exact: bool) -> None:
    w, platform = case
    sim = Simulation(
        w,
        platform,
        make_policy(name, **params),
        estimates="exact" if exact else "requested",
        check=True,
    )
    r = sim.run()
    verify_schedule(r.jobs, capacity=platform.capacity)


class RecordingEasy(EasyBackfilling):
    """EASY that remembers the first shadow time promised to each head job."""

    name = ""  # not registered

    def __post_init__(self) -> None:
        super().__post_init__()
        self.promised: dict[int, float] = {}

    def schedule(self, view: Any) -> list[Any]:
        out = super().schedule(view)
        if self._head >= 0:
            self.promised.setdefault(self._head, self._res.shadow)
        return out


@settings(max_examples=150, deadline=None)
@given(case=cases(), window=st.sampled_from([None, 0, 1, 3]))
def test_easy_head_never_starts_after_its_shadow_time(case: Any, window: int | None) -> None:
    w, platform = case
    policy = RecordingEasy(window=window)
    r = Simulation(w, platform, policy).run()
    starts = r.jobs["start_time"].tolist()
    for index, shadow in policy.promised.items():
        assert starts[index] <= shadow + 1e-9


class FullPassEasy(EasyBackfilling):
    """EASY that forgets its cached plan before every pass."""

    name = ""

    def schedule(self, view: Any) -> list[Any]:
        self._epoch = -1
        return super().schedule(view)


@settings(max_examples=150, deadline=None)
@given(case=cases(), window=st.sampled_from([None, 0, 2]))
def test_easy_incremental_pass_equals_full_pass(case: Any, window: int | None) -> None:
    w, platform = case
    fast = Simulation(w, platform, EasyBackfilling(window=window)).run()
    full = Simulation(w, platform, FullPassEasy(window=window)).run()
    assert fast.jobs["start_time"].tolist() == full.jobs["start_time"].tolist()


class RecordingConservative(ConservativeBackfilling):
    """Conservative that remembers each job's first reservation."""

    name = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.first: dict[int, float] = {}

    def schedule(self, view: Any) -> list[Any]:
        before = dict(self.reservations)
        out = super().schedule(view)
        for i, t in self.reservations.items():
            self.first.setdefault(i, t)
        for d in out:  # jobs reserved and started in the same pass
            if isinstance(d, Start):
                self.first.setdefault(d.job.index, before.get(d.job.index, view.now))
        return out


@settings(max_examples=150, deadline=None)
@given(case=cases(), order=st.sampled_from(["submit", "sjf"]))
def test_conservative_never_starts_after_first_reservation(case: Any, order: str) -> None:
    w, platform = case
    policy = RecordingConservative(order=order)
    r = Simulation(w, platform, policy).run()
    starts = r.jobs["start_time"].tolist()
    assert policy.delayed == 0
    for index, first in policy.first.items():
        assert starts[index] <= first + 1e-9
