"""Coscheduling with malleable configurations, alone and combined with EASY backfilling.

Registered names:

* ``nodeshare``: the paper's coscheduler (section 3.2): jobs in submit order; the head
  is placed by Algorithm 1's modified best fit (:mod:`cosched.nodeshare.placement`) on
  partly occupied or empty nodes, or it blocks the queue.
* ``nodeshare-easy``: the paper's "Combined": as ``nodeshare``, and when the head
  blocks it gets an EASY reservation (the time enough nodes are expected *empty* for
  its base configuration) and the next ``window`` jobs may start if they can be placed
  and either end by their estimate (times their run-time factor) before that time or
  leave enough of the nodes the head counts on.

The FCFS and EASY baselines are the existing ``fcfs`` and ``easy`` (``window=150``) on
the same shared platform, where a count-based start takes whole empty nodes.

Jobs need the ``ns_*`` profile columns of
:func:`cosched.workload.profiles.nodeshare.annotate_nodeshare`. The machine must be a
shared platform in node allocation (``Platform(nodes, cores, allocation="nodes",
max_jobs_per_node=3)``): a job's size in nodes is its base configuration's ``n``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from cosched.engine.decisions import Decision, Start, on_nodes
from cosched.engine.view import SystemView
from cosched.errors import ConfigError
from cosched.nodeshare.configurations import Configuration, configurations
from cosched.nodeshare.interference import DEFAULT_PRESET, PRESETS, InterferenceModel
from cosched.nodeshare.placement import RESTRICTIONS, NodeBook, Plan
from cosched.nodeshare.placement import MemoBook as _MemoBook
from cosched.nodeshare.running import RunningJobs
from cosched.nodeshare.window import Pass, WindowScan
from cosched.platform import Allocation, Platform
from cosched.policies.base import OwnRates, Policy, check_choice, check_range
from cosched.policies.requirements import Requirements
from cosched.policies.reservation import node_reservation
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.engine.compiled import CompiledPass

__all__ = ["NODESHARE_REQUIRES", "PROFILE_COLUMNS", "Coscheduling", "CoschedulingBackfill"]

#: The per-job columns the policies read from ``job.extra``.
PROFILE_COLUMNS = ("ns_mem_sensitivity", "ns_comm_fraction", "ns_comm_penalty", "ns_degradation")

#: What the family needs: whole nodes shared by at most three jobs (section 4: "we set a
#: maximum number of coscheduled jobs per node of three"), nodes of the trace header's
#: MaxProcs / MaxNodes cores, else Cab's 16 (section 4), and the ``nodeshare`` profiles.
NODESHARE_REQUIRES = Requirements(
    allocation=Allocation.NODES,
    max_jobs_per_node=3,
    default_cores=16,
    default_cores_source="Cab's 16 cores per node, the paper's section 4",
    profile_columns=PROFILE_COLUMNS,
    annotator="nodeshare",
)


@dataclass(slots=True)
class _Running:
    nodes: tuple[int, ...]
    cores: int
    sensitivity: int
    a: float
    b: float
    factor: float  # at its start


#: What placement needs of a queued job, computed once: its class, configurations,
#: their ``(a, b)`` coefficients, the id of its ``(size, class)`` key (backfill repeats,
#: :class:`~cosched.nodeshare.window.WindowScan`), and a lower bound of its run-time
#: factor in any placement (``min(a + b)``).
_JobInfo = tuple[int, tuple[Configuration, ...], list[tuple[float, float]], int, float]

_NO_JOBS = np.zeros(0, dtype=np.int64)

#: Backfill windows of at least this many jobs are scanned as arrays (WindowScan); a
#: shorter one (arrivals while the head still blocks) is visited job by job.
_SCAN_FROM = 16


@dataclass(kw_only=True)
class _NodeShareBase(Policy):
    """Shared parameters and state of the two coscheduling policies (not registered).

    A variant (another queue order, another backfilling rule) places jobs through three
    public methods: :meth:`book_for` (the placement index of the nodes, built once per
    run and kept in step with the engine's ledger by the start and finish hooks),
    :meth:`plan` (Algorithm 1's best placement for a job now, or None) and
    :meth:`commit` (take a plan: the :class:`Start` decision to return).
    """

    family = "nodeshare"
    requires = NODESHARE_REQUIRES
    restriction: Literal["No_Restrict", "Max_One_High", "High_Rq_Low", "Max_One_HM"] = "No_Restrict"
    degraded: bool = True
    rates: Literal["dynamic", "at-start"] = "dynamic"
    interference: Literal["fig3", "prior"] = DEFAULT_PRESET  # type: ignore[assignment]
    speedup_half: float | None = None  # None: the preset's value (as the four below)
    speedup_quarter: float | None = None
    victim_low: float | None = None
    victim_moderate: float | None = None
    victim_high: float | None = None
    pressure_low: float = 0.5
    pressure_moderate: float = 1.0
    pressure_high: float = 1.5
    _model: InterferenceModel = field(init=False, repr=False)
    _given: list[str] = field(default_factory=list, init=False, repr=False)
    _book: _MemoBook | None = field(default=None, init=False, repr=False)
    _run: dict[int, _Running] = field(default_factory=dict, init=False, repr=False)
    _touched: set[int] = field(default_factory=set, init=False, repr=False)
    #: running jobs that have had a co-runner on one of their nodes (a superset): only
    #: their end can change another job's rate.
    _shared: set[int] = field(default_factory=set, init=False, repr=False)
    _live: RunningJobs | None = field(default=None, init=False, repr=False)
    _cfg_cache: dict[int, tuple[Configuration, ...]] = field(
        default_factory=dict, init=False, repr=False
    )
    _info: dict[int, _JobInfo] = field(default_factory=dict, init=False, repr=False)
    #: Whether the policy scans backfill windows (WindowScan records each job's arrays).
    _scans: ClassVar[bool] = False
    _scan: WindowScan | None = field(default=None, init=False, repr=False)
    _keys: dict[tuple[int, int], int] = field(default_factory=dict, init=False, repr=False)
    _dirty: bool = field(default=True, init=False, repr=False)
    #: Whether the policy reads estimated ends (``_stale``: jobs whose end the engine
    #: may have changed since it was last read: started or given a new rate).
    _track_ends: ClassVar[bool] = False
    _stale: list[int] = field(default_factory=list, init=False, repr=False)
    #: per job index: submitted and not yet started (kept by the policies whose passes
    #: run as one kernel call); ``_submitted``: one past the last job submitted.
    _queued: np.ndarray = field(
        default_factory=lambda: np.zeros(0, dtype=bool), init=False, repr=False
    )
    _submitted: int = field(default=0, init=False, repr=False)
    #: the blocked head of the last full pass (-1: none).
    _head: int = field(default=-1, init=False, repr=False)
    #: per node: the head counts on it (the reservation's; the kernel pass writes it).
    _relevant: np.ndarray = field(
        default_factory=lambda: np.zeros(0, dtype=bool), init=False, repr=False
    )
    #: per started job index: (configuration shape, degraded, factor at start).
    chosen: dict[int, tuple[int, bool, float]] = field(default_factory=dict, init=False)
    #: job index -> "fragmentation" or "capacity", at its first failed placement as head.
    blocked: dict[int, str] = field(default_factory=dict, init=False)
    #: monotonic nanoseconds spent in placement, and attempts (diagnostic only;
    #: ``place_ns`` is 0 after a run on the compiled pass, which does not time them).
    place_ns: int = field(default=0, init=False)
    place_calls: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        check_choice(self.name, "restriction", self.restriction, tuple(RESTRICTIONS))
        check_choice(self.name, "rates", self.rates, ("dynamic", "at-start"))
        if not isinstance(self.degraded, bool):
            raise ConfigError(f"policy {self.name!r} parameter 'degraded' must be a bool")
        check_choice(self.name, "interference", self.interference, tuple(PRESETS))
        self._given = sorted(k for k in PRESETS[self.interference] if getattr(self, k) is not None)
        for key, value in PRESETS[self.interference].items():
            if getattr(self, key) is None:
                setattr(self, key, value)
        for key in ("speedup_half", "speedup_quarter"):
            check_range(self.name, key, getattr(self, key), low=1e-9)
        for key in ("victim", "pressure"):
            for cls in ("low", "moderate", "high"):
                check_range(self.name, f"{key}_{cls}", getattr(self, f"{key}_{cls}"), low=0)
        assert self.speedup_half is not None and self.speedup_quarter is not None
        assert self.victim_low is not None and self.victim_moderate is not None
        assert self.victim_high is not None
        self._model = InterferenceModel(
            speedup={1.0: 1.0, 0.5: self.speedup_half, 0.25: self.speedup_quarter},
            victim=(self.victim_low, self.victim_moderate, self.victim_high),
            pressure=(self.pressure_low, self.pressure_moderate, self.pressure_high),
            rates=self.rates,
        )

    # -- engine hooks ---------------------------------------------------------------------

    def assumptions(self) -> list[str]:
        """The interference values in force (the paper does not tabulate them)."""
        names = {
            "fig3": "the preset fitted to the paper's Figure 3 (fig3)",
            "prior": "cosched's prior guesses (prior; docs/nodeshare.md)",
        }
        preset = names[self.interference]
        if self._given:
            preset += f", with {', '.join(self._given)} given"
        return [
            f"interference: {preset}: memory speedup {self.speedup_half:g} at half and "
            f"{self.speedup_quarter:g} at a quarter of a node's cores, victim weights "
            f"{self.victim_low:g}/{self.victim_moderate:g}/{self.victim_high:g}, pressure "
            f"{self.pressure_low:g}/{self.pressure_moderate:g}/{self.pressure_high:g} "
            f"(low/moderate/high), rates {self.rates}"
        ]

    def check_platform(self, platform: Platform) -> None:
        """The requirements (node allocation, a job cap), and one slot per core."""
        super().check_platform(platform)
        if platform.mpl != 1:
            raise ConfigError(f"policy {self.name!r} needs mpl=1, got {platform.mpl}")

    def rate_model(self) -> OwnRates:
        return OwnRates(self)

    def own_rates(
        self, view: SystemView, started: Sequence[Job], finished: Sequence[Job]
    ) -> Mapping[int, float]:
        """The rate model of the policy: 1 / factor, per the chosen reading."""
        out = self._new_rates(started)
        if self._track_ends:
            self._stale.extend(out)
        return out

    @classmethod
    def compiled_pass(cls) -> CompiledPass | None:
        """The built-in policies' compiled pass (:mod:`cosched.nodeshare.fast`); not a
        user's subclass's (nor, at run time, an instance whose ``plan`` or ``commit``
        is replaced: the pass's ``arguments`` refuses it)."""
        from cosched.nodeshare.fast import BUILT_IN, NODESHARE_PASS

        return NODESHARE_PASS if cls in BUILT_IN else None

    def on_finish(self, job: Job, view: SystemView) -> None:
        info = self._run.pop(job.index)
        assert self._book is not None
        self._book.remove(job.index, info.nodes, info.cores, info.sensitivity)
        if self._live is not None:
            self._live.finish(job.index)
            if job.index in self._shared:  # else no job is left on its nodes
                self._shared.discard(job.index)
                self._touched.update(self._book.jobs_on(info.nodes))
        self._dirty = True

    def _share(self, on: list[int], nodes: int) -> list[int]:
        """``on``, the jobs on ``nodes`` nodes just taken (once per node): when some
        node holds more than one, they all may share a node from now on."""
        if len(on) > nodes:
            self._shared.update(on)
        return on

    # -- placement ------------------------------------------------------------------------

    def book_for(self, view: SystemView) -> _MemoBook:
        """The run's placement index of the nodes (nodes bucketed by state, for
        Algorithm 1), built on the first call."""
        if self._book is None:
            p = view.platform
            cap = p.max_jobs_per_node or p.cores
            jobs = len(view.sizes)
            self._book = _MemoBook(p.nodes, p.cores, cap, self._model, self.restriction, jobs)
            if self.rates == "dynamic":
                self._live = RunningJobs(jobs, self._model)
        return self._book

    def _configs(self, n: int, book: NodeBook) -> tuple[Configuration, ...]:
        got = self._cfg_cache.get(n)
        if got is None:
            got = configurations(n, book.cores, max_nodes=book.nodes, degraded=self.degraded)
            self._cfg_cache[n] = got
        return got

    def _profile(self, job: Job) -> tuple[int, float, float, float]:
        try:
            x = job.extra
            return (
                int(x["ns_mem_sensitivity"]),
                float(x["ns_comm_fraction"]),
                float(x["ns_comm_penalty"]),
                float(x["ns_degradation"]),
            )
        except KeyError:
            raise ConfigError(
                f"policy {self.name!r}: job {job.job_id} lacks the node-sharing profile "
                f"columns {', '.join(PROFILE_COLUMNS)}; annotate the workload with "
                "cosched.workload.profiles.nodeshare.annotate_nodeshare"
            ) from None

    def _job_info(self, job: Job, view: SystemView, book: NodeBook) -> _JobInfo:
        """Class, configurations, coefficients and backfill key of ``job`` (cached)."""
        info = self._info.get(job.index)
        if info is None:
            s, cf, cp, dg = self._profile(job)
            size = view.size(job)
            configs = self._configs(size, book)
            coeffs = self._model.coefficients_for(
                configs, comm_fraction=cf, comm_penalty=cp, degradation=dg
            )
            # factor = a (1 + victim x pressure) + b >= a + b, also in floating point
            # (every step is monotone) when a >= 0 and victim, pressure >= 0.
            low = min((a + b for a, b in coeffs), default=math.inf)
            if any(a < 0 for a, _ in coeffs):
                low = -math.inf
            key = -1
            if self._scans:
                scan = self._scan
                if scan is None:
                    scan = self._scan = WindowScan(len(view.sizes))
                key = scan.key(size, s, configs)
                victim = self._model.victim[s]
                scan.record(job.index, key, view.estimate(job), victim, coeffs, size)
            else:
                key = self._keys.setdefault((size, s), len(self._keys))
            info = self._info[job.index] = (s, configs, coeffs, key, low)
        return info

    def plan(self, job: Job, view: SystemView, book: NodeBook | None = None) -> Plan | None:
        """Algorithm 1's best placement of ``job`` now (configuration, nodes, run-time
        factor), or None if no configuration fits; records why a job is blocked."""
        if book is None:
            book = self.book_for(view)
        t0 = time.perf_counter_ns()
        s, configs, coeffs, _, _ = self._job_info(job, view, book)
        plan = book.best(s, configs, coeffs) if configs else None
        if plan is None and job.index not in self.blocked:
            # A job with no configuration at all cannot run; the engine reports the stall.
            by_cap = not configs or book.blocked_by_capacity(configs)
            self.blocked[job.index] = "capacity" if by_cap else "fragmentation"
            if self._scan is not None:
                self._scan.blocked[job.index] = True
        self.place_ns += time.perf_counter_ns() - t0
        self.place_calls += 1
        return plan

    def commit(self, job: Job, plan: Plan, book: NodeBook | None = None) -> Start:
        """Take ``plan`` for ``job``: the decision to return from ``schedule``."""
        if book is None:
            if self._book is None:
                raise ConfigError(f"policy {self.name!r}: commit() before any plan()")
            book = self._book
        s = int(job.extra["ns_mem_sensitivity"])
        if job.index < len(self._queued):
            self._queued[job.index] = False
        self._info.pop(job.index, None)  # a started job is never placed again
        cfg = plan.config
        book.add(job.index, plan.nodes, cfg.cores, s)
        start = self._record(job, s, cfg, plan.nodes, plan.factor, plan.coeffs)
        if self._live is not None:
            self._touched.update(self._share(book.jobs_on(plan.nodes), len(plan.nodes)))
        return start

    def _record(
        self,
        job: Job,
        s: int,
        cfg: Configuration,
        nodes: tuple[int, ...],
        factor: float,
        coeffs: tuple[float, float],
    ) -> Start:
        """The policy's records of a start already in the book; its decision."""
        a, b = coeffs
        self._run[job.index] = _Running(nodes, cfg.cores, s, a, b, factor)
        self.chosen[job.index] = (cfg.shape, cfg.degraded, factor)
        if self._track_ends:
            self._stale.append(job.index)
        if self._live is not None:
            self._live.start(job.index, nodes, s, a, b, factor)
        return Start(job, placement=on_nodes(nodes, cfg.cores))

    def _new_rates(self, started: Sequence[Job]) -> dict[int, float]:
        run = self._run
        if self.rates == "at-start":
            return {j.index: 1.0 / run[j.index].factor for j in started}
        book = self._book
        assert book is not None
        if self._live is None or not self._touched:
            return {}
        # Only the rates that change: the engine holds 1 / factor for a job given a
        # rate before (an equal rate changes nothing there), and 1 for a new job.
        out = self._live.new_rates(self._touched, book.node_pressure)
        self._touched.clear()
        return out

    def _enqueue(self, job: Job, view: SystemView) -> None:
        """Record a submitted job for the kernel pass: queued, and its arrays."""
        queued = self._queued
        if len(queued) <= job.index:
            self._queued = queued = np.zeros(len(view.sizes), dtype=np.bool_)
            for old in view.queue:
                queued[old.index] = True
        queued[job.index] = True
        self._submitted = job.index + 1
        self._job_info(job, view, self.book_for(view))  # what the kernel pass reads

    def _one_kernel(self, cls: type) -> bool:
        """Whether passes run as one kernel call: the built-in policy ``cls`` itself; a
        variant (a subclass, or plan or commit replaced on the instance) keeps the loop
        through its methods."""
        return type(self) is cls and not ("plan" in self.__dict__ or "commit" in self.__dict__)

    def _took(self, view: SystemView, book: _MemoBook, done: Pass) -> list[Decision]:
        """The policy's records of what a kernel pass did (blocked jobs, starts), and
        the decisions of its starts, in order."""
        self.place_calls += done.tried
        for j, by_cap in done.blocked:
            self.blocked[j] = "capacity" if by_cap else "fragmentation"
        if not done.jobs:
            return []
        book._changed()
        out: list[Decision] = []
        info, job, record = self._info, view.job, self._record
        for j, c, factor, nodes in zip(
            done.jobs, done.configs, done.factors, done.nodes, strict=True
        ):
            s, configs, coeffs, _, _ = info.pop(j)
            out.append(record(job(j), s, configs[c], nodes, factor, coeffs[c]))
        if self._live is not None:
            if book.cores > 1:
                self._touched.update(self._share(book.jobs_on(done.taken), len(done.taken)))
            else:  # a one-core node holds one job: the jobs on them are those started
                self._touched.update(done.jobs)
        return out

    def stats(self) -> dict[str, Any]:
        """What the run did: configurations, blocks and placement time (see outputs)."""
        return {
            "chosen": dict(self.chosen),
            "blocked": dict(self.blocked),
            "place_ns": self.place_ns,
            "place_calls": self.place_calls,
        }


@dataclass(kw_only=True)
class Coscheduling(_NodeShareBase):
    """Coscheduling with malleable configurations (modified best fit), queue in order.

    Attributes:
        restriction: No_Restrict, Max_One_High, High_Rq_Low or Max_One_HM.
        degraded: allow degraded configurations (fewer cores than the base).
        rates: ``dynamic`` (co-runners' rates follow every change on their nodes) or
            ``at-start`` (a job's rate is fixed when it starts).
        interference: the preset of the untabulated values below (``fig3``: fitted to
            the paper's Figure 3, the default; ``prior``: cosched's earlier guesses).
        speedup_half, speedup_quarter: memory speedup at 1/2 and 1/4 of a node's cores
            (None: the preset's).
        victim_low, victim_moderate, victim_high: sensitivity to co-runner pressure
            (None: the preset's).
        pressure_low, pressure_moderate, pressure_high: pressure a co-runner exerts.
    """

    name = "nodeshare"
    _scans: ClassVar[bool] = True
    #: estimated ends for the kernel pass's reservation, which this policy does not use.
    _ends: np.ndarray | None = field(default=None, init=False, repr=False)

    def on_submit(self, job: Job, view: SystemView) -> None:
        self._enqueue(job, view)

    def schedule(self, view: SystemView) -> list[Decision]:
        book = self.book_for(view)
        first = next(iter(view.queue), None)
        if not self._dirty and first is not None and first.index == self._head:
            return []
        self._dirty = False
        if first is not None and self._one_kernel(Coscheduling):
            return self._kernel_pass(view, book, first.index)
        out: list[Decision] = []
        self._head = -1
        for job in view.queue:
            plan = self.plan(job, view, book)
            if plan is None:
                self._head = job.index
                break
            out.append(self.commit(job, plan, book))
        return out

    def _kernel_pass(self, view: SystemView, book: _MemoBook, first: int) -> list[Decision]:
        """The pass as one kernel call: ``nodeshare-easy``'s pass
        (:meth:`WindowScan.easy_pass`) with an empty backfill window places the queued
        jobs in order from ``first`` until one fits nowhere, as the loop through
        :meth:`plan` and :meth:`commit` does (a differential test runs both). The
        reservation it makes for the head is not used."""
        scan = self._scan  # every queued job was recorded at its submission
        assert scan is not None
        s, configs = self._info[first][:2]
        if book.pressures(s, configs) is None:
            # The head fits nowhere (the book's memo answers while nothing changed): the
            # kernel would try it, record it as plan() does, and stop there.
            self._head = first
            self.place_calls += 1
            if first not in self.blocked:
                by_cap = not configs or book.blocked_by_capacity(configs)
                self.blocked[first] = "capacity" if by_cap else "fragmentation"
                scan.blocked[first] = True
            return []
        if len(self._relevant) != book.nodes:
            self._relevant = np.zeros(book.nodes, dtype=np.bool_)
        if self._ends is None:
            self._ends = np.full(len(view.sizes) + 1, -np.inf)  # last: padding
        t0 = time.perf_counter_ns()
        done = scan.easy_pass(
            book,
            first,
            _NO_JOBS,
            queued=self._queued,
            submitted=self._submitted,
            window=0,
            ends=self._ends,
            now=view.now,
            relevant=self._relevant,
            reservation=(0.0, 0),
        )
        self.place_ns += time.perf_counter_ns() - t0
        self._head = done.head
        return self._took(view, book, done)


@dataclass(kw_only=True)
class CoschedulingBackfill(_NodeShareBase):
    """Coscheduling combined with EASY backfilling (the paper's "Combined").

    Attributes:
        window: queued jobs behind the head considered for backfilling (paper: 150).
        restriction, degraded, rates, speedup_*, victim_*, pressure_*: as ``nodeshare``.
    """

    name = "nodeshare-easy"
    window: int = 150
    _fresh: list[Job] = field(default_factory=list, init=False, repr=False)
    _ends: np.ndarray | None = field(default=None, init=False, repr=False)
    _track_ends: ClassVar[bool] = True
    _scans: ClassVar[bool] = True
    _shadow: float = field(default=0.0, init=False, repr=False)
    _extra: int = field(default=0, init=False, repr=False)
    _backfilled: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        check_range(self.name, "window", self.window, low=0, integer=True)

    def on_submit(self, job: Job, view: SystemView) -> None:
        self._fresh.append(job)
        self._enqueue(job, view)

    def schedule(self, view: SystemView) -> list[Decision]:
        book = self._book or self.book_for(view)
        fresh, self._fresh = self._fresh, []
        queue = view.queue
        if not queue:
            return []
        first = next(iter(queue))
        incremental = not (self._dirty or self._backfilled) and first.index == self._head
        if incremental:
            # Nothing ended and nothing was backfilled: the head still blocks, the
            # reservation stands, and only arrivals inside the window are new.
            skip = len(queue) - len(fresh) - 1
            cand = fresh[: max(self.window - skip, 0)]
            if not cand:
                return []
        one_kernel = self._one_kernel(CoschedulingBackfill)
        if incremental:
            if one_kernel:
                jobs = np.array([job.index for job in cand], dtype=np.int64)
                return self._kernel_pass(view, book, -1, jobs)
            if len(cand) >= _SCAN_FROM:
                jobs = np.array([job.index for job in cand], dtype=np.int64)
                return self._scan_window(view, book, jobs)
            return self._backfill(view, book, cand)
        self._dirty = False
        if one_kernel:
            return self._kernel_pass(view, book, first.index, _NO_JOBS)
        out: list[Decision] = []
        started: list[tuple[float, int]] = []
        head = None
        for job in queue:
            plan = self.plan(job, view, book)
            if plan is None:
                head = job
                break
            out.append(self.commit(job, plan, book))
            started.append((view.now + view.estimate(job) * plan.factor, job.index))
        self._head = -1 if head is None else head.index
        if head is None:
            self._backfilled = False
            return out
        self._reserve(view, view.size(head), started)
        return out + self._backfill_window(view, book, head.index)

    def _backfill_window(self, view: SystemView, book: _MemoBook, head: int) -> list[Decision]:
        """The backfill behind ``head``: the next ``window`` queued jobs (the engine
        queues jobs in index order and keeps them until they start)."""
        scan = self._scan  # every queued job was recorded at its submission
        assert scan is not None
        jobs = scan.kern.queued_after(self._queued, head + 1, self._submitted, self.window)
        if len(jobs) < _SCAN_FROM:
            return self._backfill(view, book, [view.job(i) for i in jobs.tolist()])
        return self._scan_window(view, book, jobs)

    def _reserve(self, view: SystemView, need: int, started: list[tuple[float, int]]) -> None:
        """Shadow time: when ``need`` nodes are expected empty; extra: beyond ``need``.

        EASY's rule over nodes (:func:`~cosched.policies.reservation.node_reservation`):
        a node is freed when the last of its jobs ends by the estimates (the engine's
        estimated ends; for this pass's starts, ``now`` + estimate x factor). The nodes
        the head counts on (empty now or by the shadow time) are kept for the backfill
        test.
        """
        book = self.book_for(view)
        ends = self._ends_for(view)
        for end, idx in started:
            ends[idx] = end
        # The engine starts this pass's jobs after the pass: read their ends next time.
        self._stale = [idx for _, idx in started]
        if len(self._relevant) != book.nodes:
            self._relevant = np.zeros(book.nodes, dtype=np.bool_)
        scan = self._scan  # every queued job was recorded at its submission
        assert scan is not None
        shadow, extra, ok = scan.kern.node_shadow(
            ends, book.node_jobs, book.count, view.now, need, self._relevant
        )
        if not ok:
            self._too_wide(view, book, ends, need)
        self._shadow, self._extra = float(shadow), int(extra)

    @staticmethod
    def _too_wide(view: SystemView, book: NodeBook, ends: np.ndarray, need: int) -> None:
        """The head is wider than the machine: node_reservation says so (raises)."""
        empty_at = ends[book.node_jobs].max(axis=0)
        occupied = empty_at[empty_at > -np.inf]
        free = len(empty_at) - len(occupied)
        node_reservation(occupied, free=free, need=need, now=view.now)

    def _kernel_pass(
        self, view: SystemView, book: _MemoBook, first: int, cand: np.ndarray
    ) -> list[Decision]:
        """A pass as one kernel call (:meth:`WindowScan.easy_pass`): from the head
        candidate ``first`` (a full pass: heads, reservation, backfill window), or,
        ``first < 0``, the arrivals ``cand`` under the reservation in force; then the
        policy's records of what it did. The same starts, in the same order, with the
        same records as the loop through :meth:`plan`, :meth:`_reserve` and
        :meth:`_visit` (a differential test runs both)."""
        scan = self._scan  # every queued job was recorded at its submission
        assert scan is not None
        if len(self._relevant) != book.nodes:
            self._relevant = np.zeros(book.nodes, dtype=np.bool_)
        if first >= 0:
            ends = self._ends_for(view)
            # Every estimated end the reservation reads is fresh; this pass's starts
            # are read from the engine at the next one.
            self._stale = []
        else:  # the arrivals' pass reads no end (a full pass made the array)
            assert self._ends is not None
            ends = self._ends
        t0 = time.perf_counter_ns()
        done = scan.easy_pass(
            book,
            first,
            cand,
            queued=self._queued,
            submitted=self._submitted,
            window=self.window,
            ends=ends,
            now=view.now,
            relevant=self._relevant,
            reservation=(self._shadow, self._extra),
        )
        self.place_ns += time.perf_counter_ns() - t0
        if first >= 0:
            self._head = done.head
            if not done.fits:
                self.place_calls += done.tried
                self._too_wide(view, book, ends, int(scan.size[done.head]))
        self._shadow, self._extra = done.reservation
        self._backfilled = len(done.jobs) > done.heads
        return self._took(view, book, done)

    def _ends_for(self, view: SystemView) -> np.ndarray:
        """Estimated ends by job index, refreshed from the engine for the stale jobs."""
        ends = self._ends
        if ends is None:
            ends = self._ends = np.full(len(view.sizes) + 1, -np.inf)  # last: padding
        job, end_of = view.job, view.estimated_end
        for idx in self._stale:
            ends[idx] = end_of(job(idx))
        return ends

    def _backfill(self, view: SystemView, book: _MemoBook, cand: list[Job]) -> list[Decision]:
        """EASY's backfill over a short window ``cand``: each job visited in turn."""
        new: list[Decision] = []
        # Whether any configuration fits depends only on (size, class): skip repeats of a
        # key that already failed in this pass (nothing was freed since).
        failed: set[int] = set()
        for job in cand:
            d = self._visit(job, view, book, failed)
            if d is not None:
                new.append(d)
        self._backfilled = bool(new)
        return new

    def _scan_window(self, view: SystemView, book: _MemoBook, jobs: np.ndarray) -> list[Decision]:
        """:meth:`_backfill` over a long window (job indices ``jobs``): find the jobs whose
        visit does something with a compiled scan (WindowScan), and visit only those, in
        order."""
        scan = self._scan  # every queued job was recorded at its submission
        assert scan is not None
        infos = self._info
        new: list[Decision] = []
        failed: set[int] = set()
        scan.new_pass()
        pos, n = 0, len(jobs)
        while pos < n:
            t0 = time.perf_counter_ns()
            pos = scan.next_event(
                book,
                jobs,
                pos,
                now=view.now,
                shadow=self._shadow,
                extra=self._extra,
                relevant=self._relevant,
            )
            self.place_ns += time.perf_counter_ns() - t0
            if pos < 0:
                break
            job = view.job(int(jobs[pos]))
            d = self._visit(job, view, book, failed)
            if d is not None:
                new.append(d)
                scan.changed()
            else:
                key = infos[job.index][3]
                if key in failed:
                    scan.dead[key] = True
            pos += 1
        self._backfilled = bool(new)
        return new

    def _visit(
        self, job: Job, view: SystemView, book: _MemoBook, failed: set[int]
    ) -> Decision | None:
        """One backfill candidate: its start, or None (refused or no fit)."""
        info = self._info.get(job.index) or self._job_info(job, view, book)
        if info[3] in failed:
            return None
        now, shadow, relevant = view.now, self._shadow, self._relevant
        if (
            self._extra <= 0
            and now + view.estimate(job) * info[4] > shadow
            and self._refused(book, info, relevant)
        ):
            return None
        plan = self.plan(job, view, book)
        if plan is None:
            failed.add(info[3])
            return None
        end = now + view.estimate(job) * plan.factor
        if end > shadow:
            # It holds its nodes past the shadow time: those the head counts on
            # must come out of the extra nodes.
            taken = [node for node in plan.nodes if relevant[node]]
            if len(taken) > self._extra:
                return None
            self._extra -= len(taken)
            relevant[taken] = False
        return self.commit(job, plan, book)

    @staticmethod
    def _refused(book: _MemoBook, info: _JobInfo, relevant: np.ndarray) -> bool:
        """Whether a job that ends after the shadow time, with no extra nodes left, is
        placed but refused: some configuration fits, and every one that fits starts on
        a node the head counts on (the plan's first node), so whichever Algorithm 1
        chooses holds such a node past the shadow time. The plan itself is not built.
        """
        s, configs = info[0], info[1]
        fits = book.fits(s, configs)
        for k, _ in fits:
            if not relevant[book.first_node(s, configs[k].cores)]:
                return False
        return bool(fits)
