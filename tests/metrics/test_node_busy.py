"""``node_busy_seconds``: the union of each node's intervals, summed as the loop does, by
its numpy form and by the one-pass sum compiled ahead of time."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.metrics._busy_kernel import UNSUITED, node_busy
from cosched.metrics.summary import _node_busy_loop, node_busy_seconds


def _jobs(start: list[float], end: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"start_time": start, "end_time": end})


def test_hand_calculation() -> None:
    # Node 0: [0, 10] and [5, 12] overlap -> 12; [20, 25] apart -> 5. Node 1: [5, 12]
    # and [12, 14] touch (not apart, a > hi is false) -> 9. Total 26.
    jobs = _jobs([0.0, 5.0, 20.0, 12.0], [10.0, 12.0, 25.0, 14.0])
    placements = {0: ((0, 1),), 1: ((0, 1), (1, 2)), 2: ((0, 1),), 3: ((1, 1),)}
    assert node_busy_seconds(jobs, placements) == 26.0
    assert node_busy_seconds(jobs, {}) == 0.0


def test_non_finite_times_take_the_loop() -> None:
    jobs = _jobs([0.0, 1.0], [2.0, math.nan])
    placements = {0: ((0, 1),), 1: ((0, 1),)}
    got = node_busy_seconds(jobs, placements)
    want = _node_busy_loop(np.array([0.0, 1.0]), np.array([2.0, math.nan]), placements)
    assert got == want or (math.isnan(got) and math.isnan(want))


_TIMES = st.sampled_from([0.0, 0.1, 0.2, 0.30000000000000004, 1.0, 2.5, 7.0, 1e9])
_SPANS = st.sampled_from([0.0, 1e-9, 0.1, 1.0, 3.3, 5.0])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_bit_identical_to_the_loop(data: st.DataObject) -> None:
    """The arrays' order of additions is the loop's: the same float, bit for bit."""
    n = data.draw(st.integers(1, 25))
    start = np.array(data.draw(st.lists(_TIMES, min_size=n, max_size=n)))
    end = start + np.array(data.draw(st.lists(_SPANS, min_size=n, max_size=n)))
    placements: dict[int, tuple[tuple[int, int], ...]] = {}
    for i in data.draw(st.permutations(range(n))):
        if data.draw(st.booleans()):
            nodes = data.draw(st.lists(st.integers(0, 6), min_size=1, max_size=4, unique=True))
            placements[i] = tuple((node, 1) for node in nodes)
    got = node_busy_seconds(_jobs(list(start), list(end)), placements)
    assert got.hex() == _node_busy_loop(start, end, placements).hex()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_many_intervals_on_few_nodes(data: st.DataObject) -> None:
    """A run's shape (intervals by start, each node holding many), and the same
    placements out of start order: the loop's float, bit for bit."""
    n = data.draw(st.integers(64, 200))
    start = np.sort(np.array(data.draw(st.lists(_TIMES, min_size=n, max_size=n))))
    end = start + np.array(data.draw(st.lists(_SPANS, min_size=n, max_size=n)))
    jobs = _jobs(list(start), list(end))
    placements = {
        i: tuple((node, 1) for node in data.draw(st.sets(st.integers(0, 2), min_size=1)))
        for i in range(n)
    }
    for held in (placements, dict(sorted(placements.items(), key=lambda kv: -kv[0]))):
        want = _node_busy_loop(start, end, held).hex()
        assert node_busy_seconds(jobs, held).hex() == want


# -- the one-pass sum (cosched.metrics._busy_kernel), run here as Python ---------------


def test_one_pass_hand_calculation() -> None:
    # The hand calculation above as entries in start order (job 1 is on nodes 0 and 1):
    # node 0 [0, 12] and [20, 25] -> 17, node 1 [5, 12] and [12, 14] -> 9: 26.
    start, end = np.array([0.0, 5.0, 20.0, 12.0]), np.array([10.0, 12.0, 25.0, 14.0])
    job_of, nodes = np.array([0, 1, 1, 3, 2]), np.array([0, 0, 1, 1, 0])
    assert node_busy(start, end, job_of, nodes, 2) == 26.0


def test_one_pass_refuses_what_it_does_not_handle() -> None:
    start, end = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    one_node = np.array([0, 0])
    assert node_busy(start, end, np.array([1, 0]), one_node, 1) == UNSUITED  # start order
    assert node_busy(start, np.array([2.0, math.nan]), np.array([0, 1]), one_node, 1) == UNSUITED
    assert node_busy(start, np.array([2.0, 0.5]), np.array([0, 1]), one_node, 1) == UNSUITED
    assert node_busy(start, end, np.array([0, 1]), one_node, 1) == 3.0


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_one_pass_is_the_loop_bit_for_bit(data: st.DataObject) -> None:
    """Entries in start order (a run's placements): the loop's float, bit for bit; and
    node_busy_seconds gives it whether the compiled form is there or not."""
    n = data.draw(st.integers(1, 60))
    start = np.sort(np.array(data.draw(st.lists(_TIMES, min_size=n, max_size=n))))
    end = start + np.array(data.draw(st.lists(_SPANS, min_size=n, max_size=n)))
    held = {
        i: tuple((node, 1) for node in data.draw(st.sets(st.integers(0, 6), min_size=1)))
        for i in range(n)
    }
    job_of = np.array([i for i, h in held.items() for _ in h])
    nodes = np.array([node for h in held.values() for node, _ in h])
    want = _node_busy_loop(start, end, held).hex()
    assert node_busy(start, end, job_of, nodes, 7).hex() == want
    assert node_busy_seconds(_jobs(list(start), list(end)), held).hex() == want
