"""Where jobs go: the Ousterhout matrix of gang scheduling, and the MPL-bounded
least-loaded placement of Local and the dynamic coscheduling schemes (section 2.3).

Both serve the arrival queue in FCFS order (the engine stops at the first job that
does not fit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cosched.timesharing.model import EV_SLOT, READY, RUNNING, JobState

if TYPE_CHECKING:
    from cosched.timesharing.engine import TimeSharingSim

__all__ = ["gang_slot", "gang_start", "place"]


def place(sim: TimeSharingSim, procs: int) -> tuple[int, list[int]] | None:
    """Cells for a job of ``procs`` tasks: ``(row, nodes)`` or None if it must wait.

    Gang scheduling takes free cells of one matrix row (the first row that has
    enough); the other schemes take the ``procs`` least loaded nodes that run fewer
    than MPL processes (row -1). Ties go to the lower node index.
    """
    nodes = sim.nodes
    if sim.flags.gang:
        for r in range(sim.mpl):
            free = [n.idx for n in nodes if n.gs_row[r] is None]
            if len(free) >= procs:
                return r, free[:procs]
        return None
    mpl = sim.mpl
    free_nodes = [n for n in nodes if n.busy < mpl]
    if len(free_nodes) < procs:
        return None
    free_nodes.sort(key=lambda n: (n.busy, n.idx))
    return -1, sorted(n.idx for n in free_nodes[:procs])


def gang_start(sim: TimeSharingSim, job: JobState, t: float) -> None:
    """Put a job's processes into its matrix row; they run now if the row is active."""
    row = job.row
    sim.gs_rows[row] += 1
    if not sim.ticking:
        # The machine was empty: this row becomes active and slots start now.
        sim.ticking = True
        sim.gs_active = row
        sim.push(t + sim.p.gs_quantum, EV_SLOT, None)
    for p in job.procs:
        n = sim.nodes[p.node]
        sim.fold(n, t)
        n.gs_row[row] = p
        n.procs.append(p)
        n.busy += 1
        p.qleft = float("inf")
        p.state = READY
        if row == sim.gs_active and n.cur is None:
            n.cur = n.last = p
            p.state = RUNNING
            n.act = n.ovh if n.ovh > t else t
            sim.resched(n, t)


def gang_slot(sim: TimeSharingSim, t: float) -> None:
    """End of a gang quantum: every node switches to the next non-empty row."""
    rows = sim.gs_rows
    if not any(rows):
        sim.ticking = False
        return
    k = sim.mpl
    nxt = next(r for r in ((sim.gs_active + d) % k for d in range(1, k + 1)) if rows[r] > 0)
    sim.push(t + sim.p.gs_quantum, EV_SLOT, None)
    if nxt == sim.gs_active:
        return
    sim.gs_active = nxt
    cost = sim.p.gs_context_switch
    for n in sim.nodes:
        if not n.procs:
            continue
        sim.fold(n, t)
        old = n.cur
        if old is not None:
            old.state = READY
        n.cur = None
        sim.charge(n, t, cost, "cs")
        p = n.gs_row[nxt]
        if p is not None and p.state == READY:
            n.cur = n.last = p
            p.state = RUNNING
            p.switches += 1
            n.act = n.ovh
            if p.in_recv and p.inbox[p.waiting] > 0:
                p.rem = 0.0
        sim.resched(n, t)
