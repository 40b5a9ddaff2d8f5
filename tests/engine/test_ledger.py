"""The node ledger's running counts (empty nodes, usable free slots) against a recount."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.engine.ledger import NodeLedger
from cosched.platform import Platform


def _recount(ledger: NodeLedger) -> tuple[int, int]:
    """Empty nodes, and free slots on nodes below the job cap, counted from scratch."""
    empty = sum(1 for n in range(ledger.nodes) if not ledger.jobs_on(n))
    usable = sum(
        ledger.free_slots(n)
        for n in range(ledger.nodes)
        if len(ledger.jobs_on(n)) < ledger.max_jobs
    )
    return empty, usable


@settings(max_examples=150, deadline=None)
@given(
    nodes=st.integers(1, 5),
    cores=st.integers(1, 4),
    cap=st.integers(1, 3),
    allocation=st.sampled_from(["nodes", "cores"]),
    steps=st.lists(st.tuples(st.booleans(), st.integers(0, 10**6)), max_size=40),
)
def test_counts_follow_every_place_and_release(nodes, cores, cap, allocation, steps) -> None:
    # Random placements (each a valid one, drawn from the nodes below the cap with
    # free slots) and releases: after each, the ledger's empty nodes (node allocation's
    # free units) and usable free slots (core allocation's) equal a recount, and
    # verify() finds nothing.
    platform = Platform(nodes=nodes, cores=cores, allocation=allocation, max_jobs_per_node=cap)
    ledger = NodeLedger(platform)
    placed: list[int] = []
    for idx, (add, pick) in enumerate(steps):
        if add or not placed:
            open_ = [
                n for n in range(nodes) if ledger.free_slots(n) and len(ledger.jobs_on(n)) < cap
            ]
            if not open_:
                continue
            chosen = [n for k, n in enumerate(open_) if (pick >> k) & 1] or open_[:1]
            placement = tuple((n, 1 + pick % ledger.free_slots(n)) for n in chosen)
            assert ledger.problem(placement) is None
            ledger.place(idx, placement)
            placed.append(idx)
        else:
            ledger.release(placed.pop(pick % len(placed)))
        empty, usable = _recount(ledger)
        assert ledger._empty == empty and ledger._total_free == usable
        assert ledger.free_units == (empty if allocation == "nodes" else usable)
        assert ledger.verify() is None


def test_problems_by_hand() -> None:
    # Two nodes of 2 slots, cap 1: each refusal names its reason.
    ledger = NodeLedger(Platform(nodes=2, cores=2, allocation="nodes", max_jobs_per_node=1))
    assert ledger.problem(()) == "empty placement"
    assert ledger.problem(((2, 1),)) == "node 2 does not exist"
    assert ledger.problem(((0, 1), (0, 1))) == "node 0 appears twice"
    assert ledger.problem(((0, 0),)) == "takes 0 slots on node 0"
    assert ledger.problem(((0, 3),)) == "node 0 has 2 free slots, 3 asked"
    ledger.place(0, ((0, 1),))
    assert ledger.problem(((0, 1),)) == "node 0 already runs 1 jobs (the cap)"
    assert ledger.free_units == 1
