"""The read-only view of a simulation that a policy sees."""

from __future__ import annotations

from collections.abc import Iterator, Sequence, ValuesView
from typing import TYPE_CHECKING

import numpy as np

from cosched.engine.ledger import NodeLedger, Placement
from cosched.errors import ConfigError
from cosched.platform import Platform
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation

__all__ = ["JobColumns", "SystemView"]


class JobColumns:
    """Per-job numbers as read-only numpy arrays indexed by ``job.index`` (for policies
    that vectorise over the queue): ``submit``, ``estimate`` (as ``view.estimates``)
    and ``size`` (as ``view.sizes``)."""

    __slots__ = ("estimate", "size", "submit")

    def __init__(self, submit: Sequence[float], estimate: Sequence[float], size: Sequence[int]):
        self.submit = _frozen(np.array(submit, dtype=np.float64))
        self.estimate = _frozen(np.array(estimate, dtype=np.float64))
        self.size = _frozen(np.array(size, dtype=np.int64))


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class SystemView:
    """What a policy may look at during a scheduling pass.

    Everything here is read-only: policies change the system only through the
    decisions they return. Sizes are in the platform's allocation units (cores or
    whole nodes); estimates are requested times, or exact run times when the
    simulation was built with ``estimates="exact"``.
    """

    __slots__ = ("_columns", "_sim")

    def __init__(self, sim: Simulation) -> None:
        self._sim = sim
        self._columns: JobColumns | None = None

    @property
    def now(self) -> float:
        """The current simulated time in seconds."""
        return self._sim._now

    @property
    def platform(self) -> Platform:
        """The machine."""
        return self._sim.platform

    @property
    def capacity(self) -> int:
        """Allocation units in the machine."""
        return self._sim._capacity

    @property
    def free(self) -> int:
        """Allocation units free right now."""
        return self._sim._free

    @property
    def unavailable(self) -> int:
        """Allocation units out of the machine right now (the platform's unavailability
        intervals, drained as they came free); they come back when the interval ends."""
        return self._sim._drained

    def returns(self) -> list[tuple[float, int]]:
        """``(time, units)`` at which the units out of the machine come back, in time
        order: the scheduler knows when a drain it sees ends (an announced end of
        maintenance), never of an interval before it begins."""
        return self._sim.returns()

    @property
    def queue(self) -> ValuesView[Job]:
        """Queued jobs in submit order (a live, read-only view)."""
        return self._sim._queue.values()

    @property
    def sizes(self) -> Sequence[int]:
        """Units each job takes, indexed by ``job.index``."""
        return self._sim._sizes

    @property
    def estimates(self) -> Sequence[float]:
        """The run-time estimate of each job (requested or exact), by ``job.index``."""
        return self._sim._est

    @property
    def columns(self) -> JobColumns:
        """Submit times, estimates and sizes of every job as numpy arrays (built once)."""
        if self._columns is None:
            sim = self._sim
            self._columns = JobColumns(sim._submit, sim._est, sim._sizes)
        return self._columns

    def queue_indices(self) -> np.ndarray:
        """Indices of the queued jobs in submit order (a new array)."""
        queue = self._sim._queue
        return np.fromiter(queue, dtype=np.intp, count=len(queue))

    def size(self, job: Job) -> int:
        """Units ``job`` takes."""
        return self._sim._sizes[job.index]

    def estimate(self, job: Job) -> float:
        """The scheduler's run-time estimate for ``job`` at full speed."""
        return self._sim._est[job.index]

    @property
    def running(self) -> ValuesView[Job]:
        """Running jobs in start order (a live, read-only view)."""
        return self._sim._running.values()

    @property
    def n_running(self) -> int:
        """Number of running jobs."""
        return len(self._sim._running)

    def start_time(self, job: Job) -> float:
        """When a running or finished job started."""
        return self._sim._start[job.index]

    def rate(self, job: Job) -> float:
        """Current progress rate of a running job (1.0 = full speed)."""
        return self._sim._rate[job.index]

    def estimated_end(self, job: Job) -> float:
        """When a running job is expected to end, from its estimate and current rate.

        A job that has outlived its estimate (possible only with ``overrun=keep``) is
        expected to end "now".
        """
        return max(self._sim._est_end[job.index], self._sim._now)

    def releases(self) -> Iterator[tuple[float, int, int]]:
        """Running jobs as ``(estimated_end, index, size)``, earliest end first.

        Estimated ends in the past (overrunning jobs) are reported as they are; callers
        take ``max(end, now)``.
        """
        return iter(self._sim.releases())

    # -- holding and placement ---------------------------------------------------------

    def is_queued(self, job: Job) -> bool:
        """Whether ``job`` has been submitted and not started yet."""
        return job.index in self._sim._queue

    def is_holding(self, job: Job) -> bool:
        """Whether a queued job holds units (see :class:`~cosched.engine.Hold`)."""
        return job.index in self._sim._holding

    @property
    def holding(self) -> frozenset[int]:
        """Indices of the queued jobs that hold units."""
        return frozenset(self._sim._holding)

    @property
    def placement_aware(self) -> bool:
        """Whether the engine keeps a node ledger (jobs placed on named nodes)."""
        return self._sim._ledger is not None

    def _ledger(self) -> NodeLedger:
        ledger = self._sim._ledger
        if ledger is None:
            raise ConfigError("no node ledger: use a shared platform or placement=True")
        return ledger

    @property
    def slots_per_node(self) -> int:
        """Slots on each node (cores x mpl)."""
        return self._ledger().slots_per_node

    @property
    def max_jobs_per_node(self) -> int:
        """How many jobs may share a node."""
        return self._ledger().max_jobs

    def free_slots(self, node: int) -> int:
        """Free slots on ``node``."""
        return self._ledger().free_slots(node)

    def jobs_on(self, node: int) -> tuple[int, ...]:
        """Indices of the jobs (running or holding) on ``node``."""
        return self._ledger().jobs_on(node)

    def empty_nodes(self) -> list[int]:
        """The nodes that hold no job (running or holding), lowest-numbered first."""
        return self._ledger().empty_nodes()

    def placement(self, job: Job) -> Placement:
        """``((node, slots), ...)`` of a running or holding job."""
        return self._ledger().placement(job.index)

    def job(self, index: int) -> Job:
        """The job record with this index."""
        return self._sim._jobs[index]

    @property
    def jobs(self) -> Sequence[Job]:
        """Every job record, indexed by ``job.index`` (do not modify)."""
        return self._sim._jobs

    @property
    def epoch(self) -> int:
        """A counter bumped whenever a job ends or changes rate.

        Policies that cache a plan compare it between passes: while it is unchanged,
        only arrivals (and the policy's own starts) have changed the system.
        """
        return self._sim._epoch

    @property
    def started_count(self) -> int:
        """Jobs started so far."""
        return self._sim._n_started

    @property
    def mean_wait(self) -> float:
        """Mean wait of the jobs started so far (0 before any start)."""
        n = self._sim._n_started
        return self._sim._total_wait / n if n else 0.0

    @property
    def rng(self) -> np.random.Generator:
        """The simulation's random generator, for randomised policies."""
        return self._sim.rng
