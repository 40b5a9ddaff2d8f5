"""The machine a workload runs on.

A platform is ``nodes`` nodes of ``cores`` cores each. Jobs ask for processors
(``procs``); the allocation mode says what they take:

* ``cores``: exactly ``procs`` cores, packed anywhere (the classic SWF view of a machine
  as a pool of processors);
* ``nodes``: ``ceil(procs / cores)`` whole nodes, the rest of the last node left idle.

A machine may also be allocated in **partitions** (``partition``, in units): a job takes
the smallest block of ``partition x 2**k`` units that holds it, or the whole machine
when no such block fits, as a Blue Gene/P allocates blocks of midplanes (``partition``
= 512 nodes on Intrepid). The units of the block beyond the job's need are its
*waste*: busy, usable by nobody else, counted by :meth:`Platform.waste_array`.

Both modes are exact with a count of free units, because the baseline policies care
only about how many units are free, not which. Families that care where a job runs
(node sharing, pairing) place jobs on named nodes through the engine's node ledger.
Partitions are counted the same way, not laid out on the machine's torus: a real
Blue Gene/P can have free midplanes that form no block (fragmentation), which a count
does not see, so the model's partition waste is a lower bound of the machine's.

A machine may lose capacity for a while (**unavailability**, ``unavailable``: intervals
``(start, end, units)``: outages, drained nodes, reservations for others). The engine
treats each as a *drain*, as Slurm drains a node: from ``start`` the interval's units
are taken out of the machine as they come free (running jobs are never stopped), and
no job starts on them; at ``end`` they come back. Overlapping intervals add up (at most
the whole machine). The schedulers do not know of an interval before it begins. The
general loop carries it (the compiled passes do not, so a run with unavailability
takes the general loop); a machine whose jobs are placed on named nodes (sharing) does
not take it.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np

from cosched.errors import ConfigError

__all__ = ["Allocation", "Platform"]


class Allocation(enum.StrEnum):
    """What a job's processor request takes from the machine."""

    CORES = "cores"
    NODES = "nodes"


@dataclass(frozen=True, slots=True)
class Platform:
    """``nodes`` x ``cores`` machine with an allocation mode.

    Attributes:
        nodes: number of nodes (>= 1).
        cores: cores per node (>= 1).
        allocation: ``cores`` (pool of processors) or ``nodes`` (whole nodes).
        mpl: multiprogramming level: slots per core (hardware threads or time
            shares); a placement-aware family can put up to ``cores x mpl`` slots of
            jobs on a node.
        max_jobs_per_node: cap on jobs sharing a node (None: no cap but the slots).
        partition: smallest partition, in units (None: no partitions); a job takes
            ``partition x 2**k`` units, the fewest that hold it, or the whole machine.
            The capacity must be a multiple of it, and the machine unshared.
    """

    nodes: int
    cores: int = 1
    allocation: Allocation = Allocation.CORES
    mpl: int = 1
    max_jobs_per_node: int | None = None
    partition: int | None = None
    unavailable: tuple[tuple[float, float, int], ...] = ()

    def __post_init__(self) -> None:
        for name in ("nodes", "cores", "mpl", "max_jobs_per_node", "partition"):
            v = getattr(self, name)
            if name in ("max_jobs_per_node", "partition") and v is None:
                continue
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ConfigError(f"platform {name} must be an integer >= 1, got {v!r}")
        try:
            object.__setattr__(self, "allocation", Allocation(self.allocation))
        except ValueError:
            raise ConfigError(
                f"platform allocation must be 'cores' or 'nodes', got {self.allocation!r}"
            ) from None
        if self.partition is not None:
            self._check_partition(self.partition)
        if self.unavailable:
            self._check_unavailable()

    def _check_unavailable(self) -> None:
        out = []
        for k, item in enumerate(self.unavailable):
            try:
                start, end, units = (float(item[0]), float(item[1]), item[2])
            except (TypeError, IndexError, ValueError):
                raise ConfigError(
                    f"platform unavailable[{k}] must be (start, end, units), got {item!r}"
                ) from None
            if not (math.isfinite(start) and math.isfinite(end) and start < end):
                raise ConfigError(
                    f"platform unavailable[{k}] must have finite start < end, got {item!r}"
                )
            if not isinstance(units, (int, np.integer)) or isinstance(units, bool) or units < 1:
                raise ConfigError(
                    f"platform unavailable[{k}] units must be an integer >= 1, got {units!r}"
                )
            out.append((start, end, int(units)))
        if self.shared:
            raise ConfigError(
                "platform unavailable needs an unshared machine (mpl 1, no job cap): "
                "jobs placed on named nodes do not take capacity removed by count"
            )
        object.__setattr__(self, "unavailable", tuple(sorted(out)))

    def unavailability_steps(self) -> tuple[np.ndarray, np.ndarray]:
        """The units removed as a step function: the instants at which they change
        (sorted, f8) and the units removed from each instant on (i8, at most the
        machine); empty without intervals."""
        if not self.unavailable:
            return np.zeros(0), np.zeros(0, dtype=np.int64)
        a = np.array([x[0] for x in self.unavailable])
        b = np.array([x[1] for x in self.unavailable])
        u = np.array([x[2] for x in self.unavailable], dtype=np.int64)
        times, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
        delta = np.zeros(times.shape[0], dtype=np.int64)
        np.add.at(delta, inverse, np.concatenate([u, -u]))
        return times, np.minimum(np.cumsum(delta), self.capacity)

    def removed_at(self, t: float) -> int:
        """Units the unavailability intervals remove at time ``t`` (``start <= t < end``),
        at most the machine."""
        times, removed = self.unavailability_steps()
        k = int(np.searchsorted(times, t, side="right")) - 1
        return int(removed[k]) if k >= 0 else 0

    def unavailability_changes(self) -> list[float]:
        """The instants at which the removed units change, sorted."""
        return [float(x) for x in self.unavailability_steps()[0]]

    def available(self) -> Platform:
        """This machine without its unavailability intervals."""
        return Platform(
            self.nodes, self.cores, self.allocation, self.mpl, self.max_jobs_per_node,
            self.partition,
        )  # fmt: skip

    def _check_partition(self, partition: int) -> None:
        if self.capacity % partition:
            raise ConfigError(
                f"platform partition must divide the machine's {self.capacity} units, "
                f"got {partition}"
            )
        if self.shared:
            raise ConfigError("platform partition needs an unshared machine (mpl 1, no job cap)")

    @classmethod
    def of_procs(cls, procs: int) -> Platform:
        """A pool of ``procs`` single-core nodes (the SWF default view)."""
        return cls(nodes=procs, cores=1)

    @property
    def shared(self) -> bool:
        """Whether jobs may share nodes (mpl > 1 or a job cap): placement is explicit."""
        return self.mpl > 1 or self.max_jobs_per_node is not None

    @property
    def procs(self) -> int:
        """Total cores."""
        return self.nodes * self.cores

    @property
    def capacity(self) -> int:
        """Allocation units in the machine (cores or nodes)."""
        return self.procs if self.allocation is Allocation.CORES else self.nodes

    def units(self, procs: int) -> int:
        """Allocation units a job of ``procs`` processors takes (its partition, if any)."""
        return int(self.units_array(np.array([procs]))[0])

    def needed_array(self, procs: np.ndarray) -> np.ndarray:
        """Units ``procs`` processors need before rounding to a partition (int64)."""
        procs = np.asarray(procs, dtype=np.int64)
        if self.allocation is Allocation.CORES:
            return procs
        return -(-procs // self.cores)

    def units_array(self, procs: np.ndarray) -> np.ndarray:
        """:meth:`units` for an array of processor counts (int64)."""
        need = self.needed_array(procs)
        if self.partition is None:
            return need
        block = np.full_like(need, self.partition)
        while (short := block < need).any():
            block[short] *= 2
        # No block of partition x 2**k fits, but the job does: it takes the whole machine.
        return np.where(block > self.capacity, np.maximum(need, self.capacity), block)

    def waste_array(self, procs: np.ndarray) -> np.ndarray:
        """Units a job takes beyond its need (its partition's idle part; int64)."""
        return self.units_array(procs) - self.needed_array(procs)

    def fits(self, procs: int) -> bool:
        """Whether a job of ``procs`` processors can ever run here."""
        return self.units(procs) <= self.capacity

    def describe(self) -> str:
        """A short human label such as ``128 nodes x 1 core (cores)``."""
        s = "" if self.cores == 1 else "s"
        text = f"{self.nodes} nodes x {self.cores} core{s} ({self.allocation.value}"
        if self.mpl > 1:
            text += f", mpl {self.mpl}"
        if self.max_jobs_per_node is not None:
            text += f", at most {self.max_jobs_per_node} jobs a node"
        if self.partition is not None:
            text += f", partitions of {self.partition} x 2^k units"
        if self.unavailable:
            n = len(self.unavailable)
            text += f", {n} unavailability interval{'s' if n > 1 else ''}"
        return text + ")"
