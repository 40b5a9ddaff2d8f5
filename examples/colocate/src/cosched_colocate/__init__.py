"""Pack pairs: a co-location rule with its own compiled pass, as a family outside
cosched (docs/writing-a-family.md).

Jobs start in submit order until the first that does not fit (FCFS); a job's cores are
taken from the fullest nodes first (the fewest free cores, the lowest node among equals),
on nodes that hold fewer than two jobs, so small jobs share nodes and whole nodes stay
free for wide ones. The policy's ``schedule`` is the rule for the general loop; the
compiled pass (``pack_pass``) is the same rule on arrays for the engine's compiled
loop, and a test holds the two to the same schedule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from cosched.engine.compiled import CompiledPass
from cosched.engine.decisions import Decision, Start
from cosched.engine.loop import Floats, Instant, Ints, Jobs
from cosched.engine.view import SystemView
from cosched.families import Family
from cosched.platform import Allocation
from cosched.policies.base import Policy
from cosched.policies.requirements import Requirements

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation

__all__ = ["FAMILY", "PACK_PASS", "PackPairs"]

#: Jobs a node holds at most, unless the machine says otherwise (``max_jobs_per_node``).
PAIR = 2


@dataclass(kw_only=True)
class PackPairs(Policy):
    """FCFS, each job's cores on the fullest nodes with room for another job."""

    name = "pack-pairs"
    family = "colocate"
    requires = Requirements(allocation=Allocation.CORES, max_jobs_per_node=PAIR)

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        return PACK_PASS if cls is PackPairs else None

    def schedule(self, view: SystemView) -> list[Decision]:
        nodes, cap = view.platform.nodes, view.max_jobs_per_node
        free = [view.free_slots(n) for n in range(nodes)]
        held = [len(view.jobs_on(n)) for n in range(nodes)]
        room = sum(free[n] for n in range(nodes) if held[n] < cap)
        out: list[Decision] = []
        for job in view.queue:
            need = view.size(job)
            if need > room:
                break
            room -= need
            taken: dict[int, int] = {}
            while need > 0:
                node = min(
                    (n for n in range(nodes) if held[n] < cap and free[n] > 0),
                    key=lambda n: (free[n], n),
                )
                take = min(need, free[node])
                taken[node] = take
                need -= take
                free[node] -= take
                held[node] += 1
                if held[node] >= cap:
                    room -= free[node]  # a full node's spare cores take no other job
            out.append(Start(job, tuple(sorted(taken.items()))))
        return out


# -- the compiled pass (cosched.engine.loop) ---------------------------------------------


class Params(NamedTuple):
    """The machine, as the pass reads it (a build checks the compiled loop on these
    defaults)."""

    nodes: int = 4
    slots: int = 4  #: cores a node offers
    cap: int = PAIR  #: jobs a node holds at most


class Store(NamedTuple):
    """Per node: free cores and jobs held; per job: where its units start in ``placed``;
    the jobs a node holds at most."""

    free: Ints
    held: Ints
    offset: Ints
    cap: int


def pack_init(jobs: Jobs, capacity: int, params: Params) -> tuple[Store, int]:
    offset = np.zeros(jobs.size.shape[0] + 1, dtype=np.int64)
    offset[1:] = np.cumsum(jobs.size)
    free = np.full(params.nodes, params.slots, dtype=np.int64)
    return Store(free, np.zeros(params.nodes, dtype=np.int64), offset, params.cap), 0


def pack_ended(store: Store, state: int, jobs: Jobs, j: int, now: float) -> int:
    """Job ``j``'s cores back to its nodes (its units' nodes are nondecreasing)."""
    last = -1
    for u in range(store.offset[j], store.offset[j + 1]):
        node = jobs.placed[u]
        store.free[node] += 1
        if node != last:
            store.held[node] -= 1
            last = node
    return state


def pack_pass(
    store: Store, state: int, jobs: Jobs, queue: Ints, chosen: Ints, at: Instant
) -> tuple[int, int, int, int, float]:
    """:meth:`PackPairs.schedule` on arrays."""
    head, tail = at.head, at.tail
    nodes = store.free.shape[0]
    room = 0
    for n in range(nodes):
        if store.held[n] < store.cap:
            room += store.free[n]
    k = 0
    while head < tail:
        j = queue[head]
        need = jobs.size[j]
        if need > room:
            break
        head += 1
        room -= need
        u = store.offset[j]
        while need > 0:
            best = -1
            for n in range(nodes):
                open_ = store.held[n] < store.cap and store.free[n] > 0
                if open_ and (best < 0 or store.free[n] < store.free[best]):
                    best = n
            take = min(need, store.free[best])
            for _ in range(take):
                jobs.placed[u] = best
                u += 1
            need -= take
            store.free[best] -= take
            store.held[best] += 1
            if store.held[best] >= store.cap:
                room -= store.free[best]
        # nodes in nondecreasing order within the job, as the loop reads them
        jobs.placed[store.offset[j] : u].sort()
        chosen[k] = j
        k += 1
    return state, head, tail, k, math.nan


def pack_report(store: Store, state: int, out: Ints, fout: Floats) -> None:
    """No counters of its own."""


def _arguments(policy: PackPairs, sim: Simulation) -> Params | None:
    p = sim.platform
    cap = p.max_jobs_per_node or p.cores * p.mpl
    return Params(nodes=p.nodes, slots=p.cores * p.mpl, cap=cap)


PACK_PASS = CompiledPass(
    name="pack_pairs",
    init=pack_init,
    schedule=pack_pass,
    ended=pack_ended,
    report=pack_report,
    arguments=_arguments,
    params=Params,
    places=True,
)

FAMILY = Family(
    name="colocate",
    compare=("pack-pairs",),
    # rigid jobs: the rule's one step to turn off is the sharing itself
    controls=(("sharing", "mechanism", {}, {"max_jobs_per_node": 1}),),
)
