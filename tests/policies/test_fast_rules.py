"""The vectorised forms of shared rules give the answers of their plain forms.

``node_reservation`` (EASY's rule from per-node emptying times) against the release
walk of ``reservation`` fed one release per node; ``priority_indices`` against the
priority key written out job by job; ``prefix_inverse`` against a running sum.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.lomarc.matching import prefix_inverse
from cosched.policies.reservation import node_reservation, reservation

ends_st = st.lists(st.integers(0, 40).map(float), max_size=30)


@settings(max_examples=300, deadline=None)
@given(ends=ends_st, free=st.integers(0, 10), need=st.integers(1, 45), now=st.integers(0, 20))
def test_node_reservation_equals_release_walk(
    ends: list[float], free: int, need: int, now: int
) -> None:
    # The walk over releases in end order, several nodes freed at one end as EASY does.
    groups: dict[float, int] = {}
    for e in ends:
        groups[e] = groups.get(e, 0) + 1
    releases = sorted(groups.items())
    try:
        expected: tuple[float, int] | None = reservation(
            releases, free=free, need=need, now=float(now)
        )
    except ValueError:
        expected = None
    try:
        got: tuple[float, int] | None = node_reservation(
            np.array(ends), free=free, need=need, now=float(now)
        )
    except ValueError:
        got = None
    assert got == expected


def test_node_reservation_by_hand() -> None:
    # 2 nodes free, the head needs 4: nodes empty at 5, 7, 7, 9 (now 3). Two more are
    # needed: the second smallest end is 7, by which 3 nodes are empty (5, 7, 7): one
    # extra node beyond the 4.
    assert node_reservation(np.array([7.0, 9.0, 5.0, 7.0]), free=2, need=4, now=3.0) == (7.0, 1)
    # Enough free now: the shadow is now; an overrunning node (end 1 < now 3) counts.
    assert node_reservation(np.array([1.0, 9.0]), free=4, need=4, now=3.0) == (3.0, 1)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(0, 1e6, allow_nan=False), max_size=40), bound=st.floats(1, 100))
def test_prefix_inverse_is_a_running_sum(values: list[float], bound: float) -> None:
    out, acc = [0.0], 0.0
    for v in values:
        acc += 1.0 / max(v, bound)
        out.append(acc)
    assert prefix_inverse(values, bound) == out  # bit for bit


def test_priority_key_by_hand() -> None:
    from cosched.engine import Simulation
    from cosched.platform import Platform
    from cosched.policies.base import Policy
    from cosched.policies.orders import job_class, priority_indices
    from cosched.workload.job import Workload

    seen: list[tuple[list[int], list[int]]] = []

    class Probe(Policy, register=False):
        name = "probe-priority"

        def schedule(self, view):  # type: ignore[no-untyped-def]
            got = priority_indices(view, 50.0).tolist()
            inv = 1.0 / 50.0

            def key(j):  # type: ignore[no-untyped-def]
                lv = job_class(view.estimate(j)) - math.floor((view.now - j.submit_time) * inv)
                return (max(lv, 0), j.index)

            seen.append((got, [j.index for j in sorted(view.queue, key=key)]))
            return []

    import pandas as pd

    rng = np.random.default_rng(3)
    n = 40
    table = pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submit_time": np.sort(rng.integers(0, 400, n)).astype(float),
            "run_time": np.full(n, 10.0),
            "procs": np.full(n, 4),  # the probe starts nothing: the queue only grows
            "requested_time": rng.choice([30.0, 600.0, 7200.0], n),
        }
    )
    w = Workload(table, name="probe")
    sim = Simulation(w, Platform(nodes=1, cores=8), Probe())
    for t in sorted(set(table["submit_time"])):
        sim.advance(t)
    assert len(seen) > 10
    assert all(got == want for got, want in seen)
