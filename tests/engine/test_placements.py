"""``Placements``: a compiled run's placements kept flat, read as the general loop's
``{job: ((node, slots), ...)}`` mapping, and the node-busy metric read from its arrays."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.engine.ledger import Placements
from cosched.metrics.summary import node_busy_seconds


def _example() -> Placements:
    # Job 2 started first on nodes 1 and 3 (one slot each), then job 0 on node 0 (two
    # slots); job 1 never started.
    return Placements([2, 0], [0, 2, 3], [1, 3, 0], [1, 1, 2])


def test_reads_as_the_dict_in_start_order() -> None:
    p = _example()
    want = {2: ((1, 1), (3, 1)), 0: ((0, 2),)}
    assert list(p) == [2, 0]
    assert len(p) == 2
    assert p[2] == ((1, 1), (3, 1))
    assert p[0] == ((0, 2),)
    assert 1 not in p
    assert p == want and want == p
    assert list(p.items()) == list(want.items())
    assert all(type(node) is int and type(s) is int for v in p.values() for node, s in v)
    assert pickle.loads(pickle.dumps(p)) == want


def test_the_metric_reads_the_arrays_as_it_reads_the_tuples() -> None:
    # Job 2 runs [0, 4] on nodes 1 and 3, job 0 [1, 6] on node 0: 4 + 4 + 5 = 13.
    jobs = pd.DataFrame({"start_time": [1.0, np.nan, 0.0], "end_time": [6.0, np.nan, 4.0]})
    job_of, nodes = _example().entries()
    assert job_of.tolist() == [2, 2, 0] and nodes.tolist() == [1, 3, 0]
    assert node_busy_seconds(jobs, _example()) == 13.0
    assert node_busy_seconds(jobs, {2: ((1, 1), (3, 1)), 0: ((0, 2),)}) == 13.0


@settings(max_examples=100, deadline=None)
@given(
    runs=st.lists(
        st.tuples(
            st.floats(0, 100, allow_nan=False),
            st.floats(0, 50, allow_nan=False),
            st.lists(st.integers(0, 6), min_size=1, max_size=4, unique=True),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_the_metric_is_the_same_from_the_arrays_and_from_the_dict(
    runs: list[tuple[float, float, list[int]]],
) -> None:
    starts = np.array([r[0] for r in runs])
    jobs = pd.DataFrame({"start_time": starts, "end_time": starts + [r[1] for r in runs]})
    order = np.argsort(starts, kind="stable")
    bounds = np.cumsum([0] + [len(runs[j][2]) for j in order])
    nodes = [n for j in order for n in runs[j][2]]
    flat = Placements(order, bounds, nodes, np.ones(len(nodes), dtype=np.int64))
    as_dict = {int(j): tuple((n, 1) for n in runs[j][2]) for j in order}
    assert flat == as_dict
    assert node_busy_seconds(jobs, flat) == node_busy_seconds(jobs, as_dict)
