"""The node book in arrays against a dict-and-sorted-list reference book.

:class:`~tests.nodeshare.reference_book.ReferenceBook` is a reference implementation of
the book (buckets in a dict, their order in a sorted list). Through random starts and
finishes on random machines, both must agree on every fit, every take (the same nodes
in the same order), every plan, the empty nodes and the free cores below the cap.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.nodeshare.configurations import configurations
from cosched.nodeshare.interference import InterferenceModel
from cosched.nodeshare.placement import RESTRICTIONS, NodeBook
from tests.nodeshare.reference_book import ReferenceBook, place_on_both

MODEL = InterferenceModel()


def _same(book: NodeBook, ref: ReferenceBook, cores: int, nodes: int) -> None:
    assert book.code.tolist() == ref.code
    assert book.free.tolist() == ref.free
    assert book.usable_free == ref.usable_free
    assert book.empty_nodes() == ref.empty_nodes()
    on = [sorted(book.jobs_on([n])) for n in range(nodes)]
    assert on == [sorted(jobs) for jobs in ref.on_node]
    assert book.count.tolist() == [len(jobs) for jobs in ref.on_node]
    assert book.node_pressure.tolist() == [ref.pressure_of[c] for c in ref.code]
    for s in range(3):
        for c in range(1, cores + 1):
            assert book.first_node(s, c) == ref.first_node(s, c)
            for need in range(1, nodes + 2):
                assert book._fit(s, need, c) == ref._fit(s, need, c)
                assert book.take(s, need, c) == ref.take(s, need, c)


@settings(max_examples=80, deadline=None)
@given(
    nodes=st.integers(1, 9),
    cores=st.sampled_from([1, 2, 4, 6]),
    cap=st.integers(1, 4),
    restriction=st.sampled_from(sorted(RESTRICTIONS)),
    pressures=st.tuples(*[st.sampled_from([0.0, 0.5, 1.0, 1.5, 0.25]) for _ in range(3)]),
    steps=st.lists(
        st.tuples(st.integers(0, 2), st.integers(1, 5), st.integers(0, 3), st.integers(0, 9)),
        min_size=1,
        max_size=30,
    ),
)
def test_array_book_matches_the_reference(
    nodes: int,
    cores: int,
    cap: int,
    restriction: str,
    pressures: tuple[float, float, float],
    steps: list[tuple[int, int, int, int]],
) -> None:
    # Equal pressures between classes make ties between buckets, which the order breaks
    # by free cores, then code; both books must break them alike.
    model = InterferenceModel(pressure=pressures)
    book = NodeBook(nodes, cores, cap, model, restriction)
    ref = ReferenceBook(nodes, cores, cap, model, restriction)
    running: list[tuple[int, tuple[int, ...], int, int]] = []
    for idx, (s, n, finish, pick) in enumerate(steps):
        if finish and running:
            job, on, c, cls = running.pop(pick % len(running))
            book.remove(job, on, c, cls)
            ref.remove(job, on, c, cls)
        configs = configurations(n, cores, max_nodes=nodes)
        coeffs = [(0.5 + 0.01 * k, 0.5) for k in range(len(configs))]
        place_on_both(book, ref, idx, s, configs, coeffs, running)
        _same(book, ref, cores, nodes)


def test_take_follows_entry_order_within_a_bucket() -> None:
    # Nodes 0-3 empty; a job on node 2 and node 0 (in that order) then leaves: both go
    # back to the empty bucket at its end, 2 before 0, after nodes 1 and 3.
    book = NodeBook(4, 4, 3, MODEL, "No_Restrict")
    book.add(0, (2, 0), 4, 0)
    assert book.empty_nodes() == [1, 3]
    book.remove(0, (2, 0), 4, 0)
    assert book.empty_nodes() == [1, 3, 2, 0]
    assert book.take(0, 3, 4) == (1, 3, 2)


def test_a_job_over_the_cap_or_not_on_a_node_is_an_error() -> None:
    book = NodeBook(2, 4, 2, MODEL, "No_Restrict")
    book.add(0, (0,), 1, 0)
    book.add(1, (0, 1), 1, 0)
    with pytest.raises(ValueError, match="over the job cap"):
        book.add(2, (1, 0), 1, 0)
    with pytest.raises(ValueError, match="not on"):
        book.remove(0, (1,), 1, 0)
    # Nothing changed by the refused moves.
    assert book.count.tolist() == [2, 1] and book.free.tolist() == [2, 3]
    assert sorted(book.jobs_on([0, 1])) == [0, 1, 1]


def test_running_jobs_keep_their_nodes_through_compactions() -> None:
    # Jobs start on more nodes in all than the first arena holds; the ones still running
    # keep their nodes (and so their co-runner pressures) when it is compacted.
    from cosched.nodeshare.running import RunningJobs

    live = RunningJobs(4000, MODEL)
    pressure = np.arange(600, dtype=float)
    nodes_of = {}
    for idx in range(4000):
        nodes = [(idx * 7 + k) % 600 for k in range(1 + idx % 5)]
        live.start(idx, nodes, 0, 1.0, 0.0, -1.0)  # factor -1: every rate "changes"
        nodes_of[idx] = nodes
        if idx >= 3:
            live.finish(idx - 3)
            del nodes_of[idx - 3]
    got = live.new_rates(range(4000), pressure)
    assert sorted(got) == sorted(nodes_of)
    for idx, nodes in nodes_of.items():
        co = max(pressure[nodes]) - MODEL.pressure[0]
        assert got[idx] == 1.0 / (1.0 + MODEL.victim[0] * co)
