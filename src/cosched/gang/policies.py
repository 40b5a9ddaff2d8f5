"""Job-level gang scheduling: an Ousterhout matrix run through the engine's progress rates.

Registered names:

* ``gang``: jobs in an Ousterhout matrix of ``mpl`` rows (time slots) over the machine's
  allocation units; new jobs are packed into rows (``first-fit`` or ``buddy``), in
  submit order; with ``backfill`` the head gets an EASY reservation in the row where it
  can start earliest and later jobs may start in any row without delaying it; with
  ``alternate`` a job also runs in other rows' slots when its columns are idle there.
* ``gang-slurm``: Slurm's gang scheduling (``PreemptMode=GANG``) as an operator
  configures it: ``SchedulerTimeSlice`` seconds per slice, ``OverSubscribe=FORCE:N``
  jobs per resource (``oversubscribe``), suspend/resume of whole jobs, jobs filled into
  idle resources of other slices, ``sched/backfill``.

A running job progresses at its share of the round: with ``R`` rows in use and the job
running in ``s`` of them (its own row, plus the rows where alternate scheduling finds
its columns idle), its rate is ``s / R * quantum / (quantum + switch_cost)``; a job that
runs in every slot (``s == R``, or a single row in use) is never switched and runs at
rate 1. The engine re-plans end times whenever rates change, so ends are exact for this
fluid model. The platform must have ``mpl`` at least the number of rows: the engine's
node ledger then refuses any placement that would put more jobs on a processor than it
has time shares.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np

from cosched.engine.decisions import Decision, Start
from cosched.engine.ledger import Placement
from cosched.engine.view import SystemView
from cosched.errors import ConfigError
from cosched.gang.matrix import IntArray, Matrix, cyclic_runs
from cosched.platform import Allocation, Platform
from cosched.policies.base import OwnRates, Policy, check_choice, check_range
from cosched.policies.requirements import Requirements
from cosched.policies.reservation import Reservation, ShadowWalk
from cosched.workload.job import Job, Workload

if TYPE_CHECKING:
    from cosched.engine.compiled import CompiledPass

__all__ = [
    "EFFICIENCY_COLUMN",
    "GANG_REQUIRES",
    "MEMORY_COLUMN",
    "Gang",
    "GangSlurm",
    "with_trace_memory",
]

#: The per-job column (memory per allocation unit, in the trace's KB) read when present.
MEMORY_COLUMN = "gang_memory"

#: The per-job column (work done per second of slot, relative to the nominal run time;
#: positive) read when present: a job's rate is multiplied by it (the calibration
#: against the process level sets it, :mod:`cosched.gang.calibrate`; it exceeds 1 when
#: the process level runs a type faster than its nominal run time).
EFFICIENCY_COLUMN = "gang_efficiency"

#: Time shares per core the family's machine has at least (and by default): 2, the
#: least that time slicing needs; ``gang`` has 2 rows by default, and a machine with
#: more shares (``--mpl N``) runs more rows.
GANG_REQUIRES = Requirements(mpl=2)

#: Slurm's preset runs ``OverSubscribe=FORCE:4`` by default (``FORCE`` alone means 4
#: in slurm.conf), so its machine has 4 shares per core by default.
SLURM_REQUIRES = Requirements(mpl=4)


def with_trace_memory(workload: Workload, *, field_name: str = "requested_memory") -> Workload:
    """``workload`` with the ``gang_memory`` column taken from an SWF memory field.

    SWF's memory fields are KB per processor; a missing value (-1) becomes 0 (the job
    is assumed to fit anywhere). ``field_name`` is ``requested_memory`` or
    ``used_memory``.
    """
    check_choice("gang", "field_name", field_name, ("requested_memory", "used_memory"))
    t = workload.table
    if field_name not in t:
        raise ConfigError(f"workload {workload.name!r} has no {field_name} column")
    mem = t[field_name].to_numpy(dtype=float, na_value=np.nan)
    mem = np.where(np.isfinite(mem) & (mem > 0), mem, 0.0)
    return workload.replace_table(
        t.assign(**{MEMORY_COLUMN: mem}), note=f"{MEMORY_COLUMN} from SWF {field_name}"
    )


@dataclass(kw_only=True)
class Gang(Policy):
    """Job-level gang scheduling in an Ousterhout matrix (rows = mpl).

    Attributes:
        mpl: rows of the matrix (time slots); the platform's ``mpl`` must be at least this.
        packing: ``first-fit`` or ``buddy``.
        alternate: a job also runs in other rows' slots where its columns are idle.
        backfill: EASY backfilling of queued jobs into rows (else the queue is FCFS).
        window: queued jobs behind the head considered for backfilling (None: all).
        quantum: seconds of one time slot.
        switch_cost: seconds lost at each context switch (per slot, per switched job).
        memory_limit: memory per allocation unit (the trace's KB, as ``gang_memory``);
            a job may not share a unit whose memory would then exceed it (None: no limit).
        job_memory: memory per allocation unit of jobs without a ``gang_memory`` column.
    """

    name = "gang"
    family = "gang"
    requires = GANG_REQUIRES
    idle_passes: ClassVar[bool] = False
    mpl: int = 2
    packing: Literal["first-fit", "buddy"] = "first-fit"
    alternate: bool = True
    backfill: bool = True
    window: int | None = None
    quantum: float = 30.0
    switch_cost: float = 0.0
    memory_limit: float | None = None
    job_memory: float = 0.0
    #: per finished job index: seconds suspended while started, and suspensions seen.
    suspended: dict[int, float] = field(default_factory=dict, init=False)
    switches: dict[int, float] = field(default_factory=dict, init=False)
    #: per started job index: the row it was placed in.
    row_of: dict[int, int] = field(default_factory=dict, init=False)
    _m: Matrix | None = field(default=None, init=False, repr=False)
    _run: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    _eta: dict[int, float] = field(default_factory=dict, init=False, repr=False)
    #: per queued job index: its memory per unit (:meth:`memory`, read once at submission).
    _mem_of: dict[int, float] = field(default_factory=dict, init=False, repr=False)
    _touched: set[int] = field(default_factory=set, init=False, repr=False)
    #: per running job index: the last rate handed to the engine (absent: 1).
    _given: dict[int, float] = field(default_factory=dict, init=False, repr=False)
    _used: int = field(default=0, init=False, repr=False)
    _all: bool = field(default=False, init=False, repr=False)
    # accounting: job -> (since, suspended fraction, suspensions per second)
    _acc: dict[int, tuple[float, float, float]] = field(
        default_factory=dict, init=False, repr=False
    )
    _dirty: bool = field(default=True, init=False, repr=False)
    _head: int = field(default=-1, init=False, repr=False)
    _fresh: list[Job] = field(default_factory=list, init=False, repr=False)
    _res: Reservation | None = field(default=None, init=False, repr=False)
    _res_row: int = field(default=-1, init=False, repr=False)
    _node_of: IntArray | None = field(default=None, init=False, repr=False)
    _per_col: int = field(default=1, init=False, repr=False)
    _one_per_node: bool = field(default=False, init=False, repr=False)
    _rows_seen: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        check_range(self.name, "mpl", self.mpl, low=1, integer=True)
        check_choice(self.name, "packing", self.packing, ("first-fit", "buddy"))
        for key in ("alternate", "backfill"):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(
                    f"policy {self.name!r} parameter {key!r} must be a bool, "
                    f"got {getattr(self, key)!r}"
                )
        if self.window is not None:
            check_range(self.name, "window", self.window, low=0, integer=True)
        check_range(self.name, "quantum", self.quantum, low=1e-9)
        check_range(self.name, "switch_cost", self.switch_cost, low=0)
        if self.memory_limit is not None:
            check_range(self.name, "memory_limit", self.memory_limit, low=1e-9)
        check_range(self.name, "job_memory", self.job_memory, low=0)
        if self.memory_limit is not None and self.job_memory > self.memory_limit:
            raise ConfigError(
                f"policy {self.name!r}: job_memory {self.job_memory:g} exceeds memory_limit "
                f"{self.memory_limit:g}; no job could ever run"
            )

    # -- engine hooks ---------------------------------------------------------------------

    def check_platform(self, platform: Platform) -> None:
        """Time shares for every row: the platform's ``mpl`` is at least ``mpl``."""
        if platform.mpl < self.mpl:
            raise ConfigError(
                f"policy {self.name!r} has {self.mpl} rows but the machine has mpl "
                f"{platform.mpl}; pass --mpl {self.mpl}"
            )
        if platform.max_jobs_per_node is not None:
            raise ConfigError(
                f"policy {self.name!r} caps jobs per processor by its rows; drop max_jobs_per_node"
            )

    def rate_model(self) -> OwnRates:
        return OwnRates(self)

    def own_rates(
        self, view: SystemView, started: Sequence[Job], finished: Sequence[Job]
    ) -> Mapping[int, float]:
        """The family's rate model: each job's share of the round (see the module)."""
        return self._new_rates(view.now, started)

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """The built-in presets' compiled pass (:mod:`cosched.gang.fast`); not a user's
        subclass's."""
        from cosched.gang.fast import BUILT_IN, GANG_PASS

        return GANG_PASS if cls in BUILT_IN else None

    @property
    def efficiency(self) -> float:
        """Share of a slot spent computing: quantum / (quantum + switch cost)."""
        return self.quantum / (self.quantum + self.switch_cost)

    def assumptions(self) -> list[str]:
        """The gang parameters in force."""
        notes = [
            f"gang: {self.mpl} rows, {self.packing} packing, alternate scheduling "
            f"{'on' if self.alternate else 'off'}, backfilling "
            f"{'on' if self.backfill else 'off'}, quantum {self.quantum:g} s, switch cost "
            f"{self.switch_cost:g} s (a switched job computes {self.efficiency:.4g} of its "
            "slots; fluid model)"
        ]
        if self.switch_cost == 0:
            notes.append("gang: switch_cost 0: context switches are free (set switch_cost)")
        if self.memory_limit is not None:
            notes.append(
                f"gang: memory limit {self.memory_limit:g} per unit; jobs without a "
                f"{MEMORY_COLUMN} column take {self.job_memory:g}"
            )
        return notes

    def diagnostics(self) -> Mapping[str, float]:
        n = len(self.suspended)
        return {
            "gang_jobs": float(n),
            "gang_suspended_seconds": float(sum(self.suspended.values())),
            "gang_mean_switches": float(sum(self.switches.values()) / n) if n else 0.0,
            "gang_max_rows_in_use": float(self._rows_seen),
        }

    def on_submit(self, job: Job, view: SystemView) -> None:
        # A job that could never fit is refused as it arrives.
        self._mem_of[job.index] = self.memory(job)
        eta = job.extra.get(EFFICIENCY_COLUMN)
        if eta is not None:
            eta = float(eta)
            if not (math.isfinite(eta) and eta > 0):
                raise ConfigError(
                    f"policy {self.name!r}: job {job.job_id} has {EFFICIENCY_COLUMN} "
                    f"{eta!r}; it must be a positive number"
                )
            if eta != 1:
                self._eta[job.index] = eta
        self._fresh.append(job)

    def on_finish(self, job: Job, view: SystemView) -> None:
        idx = job.index
        self._settle(idx, view.now)
        del self._acc[idx]
        m = self._matrix(view)
        run = self._run.pop(idx)
        self._eta.pop(idx, None)
        self._given.pop(idx, None)
        self._touched.update(m.remove(idx, run))
        used = m.used
        if used != self._used:
            self._used = used
            self._all = True
        self._dirty = True

    # -- the matrix -----------------------------------------------------------------------

    def _matrix(self, view: SystemView) -> Matrix:
        if self._m is None:
            p = view.platform
            self._m = Matrix(self.mpl, p.capacity, self.packing, self.memory_limit)
            cols = np.arange(p.capacity, dtype=np.int64)
            if p.allocation is Allocation.CORES:
                self._node_of, self._per_col = cols // p.cores, 1
            else:
                self._node_of, self._per_col = cols, p.cores
            self._one_per_node = p.allocation is Allocation.NODES or p.cores == 1
        return self._m

    def memory(self, job: Job) -> float:
        """Memory per allocation unit of ``job`` (``gang_memory``, else ``job_memory``)."""
        mem = job.extra.get(MEMORY_COLUMN)
        value = self.job_memory if mem is None else float(mem)
        if self.memory_limit is not None and value > self.memory_limit:
            raise ConfigError(
                f"policy {self.name!r}: job {job.job_id} needs {value:g} memory per unit, "
                f"more than memory_limit {self.memory_limit:g}; it could never run"
            )
        return value

    def _placement(self, cols: IntArray) -> Placement:
        assert self._node_of is not None
        per = self._per_col
        if self._one_per_node:  # a column is a node: one entry per column
            return tuple(zip(cols.tolist(), itertools.repeat(per)))
        nodes, counts = np.unique(self._node_of[cols], return_counts=True)
        return tuple((int(n), int(c) * per) for n, c in zip(nodes, counts, strict=True))

    def _mem(self, job: Job) -> float:
        mem = self._mem_of.get(job.index)
        return self.memory(job) if mem is None else mem

    def _start(self, job: Job, view: SystemView, row: int, cols: IntArray, mem: float) -> Start:
        m = self._matrix(view)
        idx = job.index
        size = view.size(job)
        touched = self._touched
        touched.update(m.add(idx, row, cols, size, mem))
        touched.add(idx)
        self._mem_of.pop(idx, None)
        self._run[idx] = size
        self.row_of[idx] = row
        self._acc[idx] = (view.now, 0.0, 0.0)
        used = m.used
        if used != self._used:
            self._used = used
            self._all = True
        if not view.placement_aware:  # one row on an unshared machine: a count suffices
            return Start(job)
        return Start(job, self._placement(cols[:size]))

    # -- scheduling -----------------------------------------------------------------------

    def schedule(self, view: SystemView) -> list[Decision]:
        m = self._matrix(view)
        fresh, self._fresh = self._fresh, []
        queue = view.queue
        first = next(iter(queue), None)
        if first is None:
            return []
        if not self._dirty and first.index == self._head:
            # Nothing ended since the last pass: the head still does not fit, and the
            # earlier candidates still do not (the matrix only filled up). Only
            # arrivals are new (not with a window: a backfill shifts the window).
            if not self.backfill or self._res is None:
                return []
            if self.window is None:
                return self._backfill(view, m, fresh)
        self._dirty = False
        out: list[Decision] = []
        ends: dict[int, list[tuple[float, int]]] = {}
        it = iter(queue)
        head = None
        for job in it:
            mem = self._mem(job)
            spot = m.fit(view.size(job), mem)
            if spot is None:
                head = job
                break
            row, cols = spot
            out.append(self._start(job, view, row, cols, mem))
            rows = max(m.used.bit_count(), 1)
            ends.setdefault(row, []).append((view.now + view.estimate(job) * rows, len(cols)))
        self._head = -1 if head is None else head.index
        self._res = None
        if head is None or not self.backfill:
            return out
        self._reserve(view, m, view.size(head), ends)
        cand = (
            list(it)
            if self.window is None
            else [j for _, j in zip(range(self.window), it, strict=False)]
        )
        return out + self._backfill(view, m, cand)

    def _reserve(
        self, view: SystemView, m: Matrix, need: int, started: dict[int, list[tuple[float, int]]]
    ) -> None:
        """The head's reservation: EASY's shadow walk in each row over the ends of that
        row's jobs (their estimated ends at current rates), the earliest row kept.

        One walk over the running jobs in end order (this pass's starts merged in)
        feeds every row's walk. The order of equal ends does not matter (a walk counts
        every end at its shadow time), and the walk stops once no row can change the
        choice: the rows with a shadow time have all passed it, and one has (a row still
        without one would get a later shadow time)."""
        now = view.now
        walks = [ShadowWalk(free, need, now) for free in m.free]
        row_of, cols = m.row, m.cols
        ends: Iterable[tuple[float, int, int]] = view.releases()
        if started:
            mine = sorted((end, -1 - r, units) for r, e in started.items() for end, units in e)
            ends = heapq.merge(ends, mine, key=lambda e: e[0])
        done = [False] * len(walks)  # rows whose walk has passed its shadow time
        passed = False
        for end, idx, units in ends:
            if idx >= 0:  # a running job (else the row of one of this pass's starts)
                r = row_of[idx]
                units = len(cols[idx])
            else:
                r = -1 - idx
            if done[r]:
                continue
            walk = walks[r]
            if not walk.add(end, units):
                done[r] = True
                passed = True
            if passed and all(d or w.shadow is None for d, w in zip(done, walks, strict=True)):
                break
        best: tuple[float, int, int] | None = None
        for r, walk in enumerate(walks):
            if walk.shadow is None:
                continue
            shadow, extra = walk.result()
            if best is None or shadow < best[0]:
                best = (shadow, extra, r)
        if best is None:  # pragma: no cover - every row frees all its columns eventually
            return
        self._res = Reservation(best[0], best[1])
        self._res_row = best[2]

    def _backfill(self, view: SystemView, m: Matrix, cand: Sequence[Job]) -> list[Decision]:
        res = self._res
        assert res is not None
        out: list[Decision] = []
        sizes, mem_of = view.sizes, self._mem_of
        # Within a pass the matrix only fills up, and a placement that fails for a size
        # fails for every larger one: sizes from the smallest that failed (or beyond
        # every row's free columns) skip the fit; under a memory limit, so do the
        # (size, memory) pairs that failed.
        # Between two starts the matrix does not change, so a placement found for a
        # (size, memory) holds for the next candidate of that kind (on a long queue most
        # candidates that fit are refused by the reservation and start nothing).
        limited = self.memory_limit is not None
        too_big = max(m.free) + 1  # no row has this many free columns
        failed: set[tuple[int, float]] = set()
        found: dict[tuple[int, float], tuple[int, IntArray]] = {}
        for job in cand:
            idx = job.index
            size = sizes[idx]
            if size >= too_big:
                continue
            mem = mem_of.get(idx)
            if mem is None:
                mem = self.memory(job)
            if limited and (size, mem) in failed:
                continue
            spot = found.get((size, mem))
            if spot is None:
                spot = m.fit(size, mem)
                if spot is not None:
                    found[size, mem] = spot
            if spot is None:
                if limited:
                    failed.add((size, mem))
                else:
                    too_big = size
                continue
            row, cols = spot
            if row == self._res_row:
                rows = (m.used | 1 << row).bit_count()
                if not res.admit(view.now + view.estimate(job) * rows, len(cols)):
                    continue
            out.append(self._start(job, view, row, cols, mem))
            found.clear()
            too_big = min(too_big, max(m.free) + 1)
        return out

    # -- rates and accounting ---------------------------------------------------------------

    def _settle(self, idx: int, now: float) -> None:
        since, frac, rate = self._acc[idx]
        dt = now - since
        if dt > 0:
            self.suspended[idx] = self.suspended.get(idx, 0.0) + dt * frac
            self.switches[idx] = self.switches.get(idx, 0.0) + dt * rate
        else:
            self.suspended.setdefault(idx, 0.0)
            self.switches.setdefault(idx, 0.0)
        self._acc[idx] = (now, frac, rate)

    def share(self, idx: int) -> tuple[float, float, float]:
        """``(rate, suspended fraction, suspensions per second)`` of running job ``idx``."""
        assert self._m is not None
        used = self._used
        rows = used.bit_count()
        s = (self._m.mask[idx] & used).bit_count() if self.alternate else 1
        eta = self._eta.get(idx, 1.0)
        if rows <= 1 or s >= rows:
            return eta, 0.0, 0.0
        mine = self._m.mask[idx] if self.alternate else 1 << self._m.row[idx]
        runs = cyclic_runs(mine & used, used)
        cycle = rows * (self.quantum + self.switch_cost)
        return s / rows * self.efficiency * eta, (rows - s) / rows, runs / cycle

    def _new_rates(self, now: float, started: Sequence[Job]) -> dict[int, float]:
        rows = self._used.bit_count()
        self._rows_seen = max(self._rows_seen, rows)
        if self._all:
            todo: Sequence[int] = sorted(self._run)
            self._all = False
        else:
            todo = sorted(i for i in self._touched if i in self._run)
        self._touched.clear()
        out: dict[int, float] = {}
        acc, given = self._acc, self._given
        for idx in todo:
            rate, frac, sw = self.share(idx)
            _, old_frac, old_sw = acc[idx]
            if (frac, sw) != (old_frac, old_sw):
                self._settle(idx, now)
                acc[idx] = (now, frac, sw)
            # Only the rates that change: the engine holds the last rate given (1 for
            # a job just started), and an equal rate changes nothing there.
            if given.get(idx, 1.0) != rate:
                given[idx] = rate
                out[idx] = rate
        return out


@dataclass(kw_only=True)
class GangSlurm(Gang):
    """Slurm's gang scheduling: suspend/resume slices, OverSubscribe=FORCE:N, backfill.

    Attributes:
        SchedulerTimeSlice: seconds of one time slice (slurm.conf; Slurm's default 30).
        oversubscribe: N of the partition's ``OverSubscribe=FORCE:N``, the jobs that may
            share a resource (``FORCE`` alone means 4).
        suspend_resume_cost: seconds a job loses at each suspend/resume.
        bf_window: queued jobs ``sched/backfill`` considers behind the head (None: all).
        memory_limit, job_memory: as ``gang`` (Slurm tracks memory of suspended jobs
            with ``SelectTypeParameters=CR_Core_Memory``).
    """

    name = "gang-slurm"
    requires = SLURM_REQUIRES
    SchedulerTimeSlice: float = 30.0
    oversubscribe: int = 4
    suspend_resume_cost: float = 0.0
    bf_window: int | None = None
    mpl: int = field(default=4, init=False)
    packing: Literal["first-fit", "buddy"] = field(default="first-fit", init=False)
    alternate: bool = field(default=True, init=False)
    backfill: bool = field(default=True, init=False)
    window: int | None = field(default=None, init=False)
    quantum: float = field(default=30.0, init=False)
    switch_cost: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        check_range(self.name, "SchedulerTimeSlice", self.SchedulerTimeSlice, low=1e-9)
        check_range(self.name, "oversubscribe", self.oversubscribe, low=1, integer=True)
        check_range(self.name, "suspend_resume_cost", self.suspend_resume_cost, low=0)
        self.mpl = self.oversubscribe
        self.quantum = float(self.SchedulerTimeSlice)
        self.switch_cost = float(self.suspend_resume_cost)
        self.window = self.bf_window
        super().__post_init__()

    def assumptions(self) -> list[str]:
        """The Slurm settings, and the gang model they map to."""
        return [
            f"Slurm: PreemptMode=GANG, SchedulerTimeSlice={self.SchedulerTimeSlice:g}, "
            f"OverSubscribe=FORCE:{self.oversubscribe}, sched/backfill; jobs fill idle "
            "resources of other slices (alternate scheduling), first-fit rows",
            *super().assumptions(),
        ]
