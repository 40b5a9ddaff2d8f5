"""Lanes of the comparison's Gantt chart, for every kind of machine a policy runs on.

A run stores, per job, its start, end and how much of the machine it held (``size``,
and ``occupancy`` on a shared platform), not which processors: the lanes are
reconstructed. The machine is ``processors x layers``: its ``nodes x cores``
processors, each with ``mpl`` layers (hardware-thread slots or time slots). A job holds
``slots`` of them (:func:`held_slots`). Replaying starts and ends in time order
(ends first at one instant), each job takes, in this order of preference:

1. ``slots`` free processors of one layer, the lowest-numbered, in the first layer
   that has them: the first-fit packing of an Ousterhout matrix (gang scheduling's
   rows), a pair's second job on the second slot of processors (LOMARC), cores of
   nodes (node sharing), and the classic lowest-free-processors view of a baseline;
2. else distinct processors with any free layer (lowest first);
3. else any free lane.

The engine never holds more slots than the machine has, so a job always gets its
lanes; the replay is a faithful picture of how much was shared when, and a plausible
one of where (the runs do not record it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cosched.platform import Allocation, Platform

__all__ = ["Lanes", "held_slots", "lanes", "machine_of"]

_MACHINE = re.compile(
    r"(\d+) nodes x (\d+) cores? \((\w+)(?:, mpl (\d+))?(?:, at most (\d+) jobs a node)?"
)


def machine_of(description: str) -> Platform:
    """The platform of a run's ``platform`` column (:meth:`Platform.describe`)."""
    m = _MACHINE.search(description)
    if m is None:
        raise ValueError(f"not a machine description: {description!r}")
    nodes, cores, mode, mpl, cap = m.groups()
    return Platform(
        int(nodes), int(cores), Allocation(mode), mpl=int(mpl or 1),
        max_jobs_per_node=int(cap) if cap else None,
    )  # fmt: skip


def held_slots(jobs: pd.DataFrame, platform: Platform) -> np.ndarray:
    """Processor-layer slots each job held: ``occupancy`` (allocation units) or
    ``size`` times the slots of a unit (``cores x mpl`` for a node, ``mpl`` for a
    core)."""
    per_unit = platform.mpl * (platform.cores if platform.allocation is Allocation.NODES else 1)
    held = jobs["occupancy"] if "occupancy" in jobs else jobs["size"]
    return np.maximum(np.rint(held.to_numpy(dtype=float) * per_unit), 1).astype(np.int64)


@dataclass
class Lanes:
    """The lanes of the jobs drawn.

    Attributes:
        rows: the table's row index of each job drawn (the jobs in the window).
        lanes: per job drawn, its lanes (``layer x processors + processor``).
        processors: processors of the machine (``nodes x cores``).
        layers: layers per processor (the platform's ``mpl``).
        cores: cores per node.
        mode: the platform's allocation (``cores`` or ``nodes``).
        split: jobs drawn across layers because no layer had room for them.
    """

    rows: list[int]
    lanes: list[list[int]]
    processors: int
    layers: int
    cores: int
    mode: Allocation
    split: int = 0

    def y(self, lane: int) -> int:
        """The lane's row on the chart: the layers as bands of all processors, a gap of
        two rows between bands, so a processor's slots (a LOMARC pair's two jobs, a gang
        matrix's rows) sit one band above the other at the same height in their band."""
        layer, proc = divmod(lane, self.processors)
        return layer * (self.processors + 2) + proc

    @property
    def height(self) -> int:
        """Rows of the chart."""
        return self.layers * (self.processors + 2) - 2


def _take(free: np.ndarray, want: int) -> tuple[list[int], bool]:
    """Lanes for ``want`` slots from the free mask (layers x processors)."""
    layers, procs = free.shape
    for layer in range(layers):
        cols = np.flatnonzero(free[layer])
        if len(cols) >= want:
            return [layer * procs + int(c) for c in cols[:want]], False
    got = [
        int(np.argmax(free[:, proc])) * procs + int(proc)
        for proc in np.flatnonzero(free.any(axis=0))[:want]
    ]
    if len(got) < want:
        taken = set(got)
        rest = [int(x) for x in np.flatnonzero(free.ravel()) if int(x) not in taken]
        got.extend(rest[: want - len(got)])
    return got, True


def lanes(jobs: pd.DataFrame, platform: Platform, window: tuple[float, float]) -> Lanes:
    """The lanes of the jobs that run in ``window`` (see the module docstring)."""
    start = jobs["start_time"].to_numpy(dtype=float)
    end = jobs["end_time"].to_numpy(dtype=float)
    lo, hi = window
    # A job that ends as it starts holds nothing for any time: nothing to draw.
    shown = np.flatnonzero((end > lo) & (start < hi) & (end > start))
    slots = held_slots(jobs, platform)
    procs = platform.nodes * platform.cores
    free = np.ones((platform.mpl, procs), dtype=bool)
    events = sorted(
        [(float(end[j]), 0, int(j)) for j in shown] + [(float(start[j]), 1, int(j)) for j in shown]
    )
    held: dict[int, list[int]] = {}
    split = 0
    for _, kind, j in events:
        if kind == 0:
            for lane in held.get(j, ()):
                free.flat[lane] = True
            continue
        got, spread = _take(free, min(int(slots[j]), free.size))
        split += spread
        for lane in got:
            free.flat[lane] = False
        held[j] = got
    rows = [int(j) for j in shown]
    return Lanes(
        rows, [held[j] for j in rows], procs, platform.mpl, platform.cores,
        platform.allocation, split,
    )  # fmt: skip
