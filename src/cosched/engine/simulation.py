"""The job-level discrete-event engine.

One :class:`Simulation` object holds all the state of one run, so any number of runs
can live in one process. Events at the same instant are handled in a fixed order:
completions (earliest started first), then submissions (trace order), then one
scheduling pass. Each running job has a progress rate (1.0 for the batch baselines);
a :class:`RateModel` can change rates when co-location changes, and the engine then
re-plans the job's completion (stale completion events are skipped by version).
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from cosched.engine.decisions import Decision, Hold, Release, Start, WakeUp
from cosched.engine.feed import OUTCOME_COLUMNS, unit_sizes
from cosched.engine.ledger import NodeLedger, Placement
from cosched.engine.view import SystemView
from cosched.errors import ConfigError, InvariantError, PolicyDecisionError
from cosched.platform import Allocation, Platform
from cosched.workload.columns import Columns, FrameField
from cosched.workload.job import Job, Workload

if TYPE_CHECKING:
    import pandas as pd

if TYPE_CHECKING:
    from cosched.engine.feed import JobFeed
    from cosched.policies.base import Policy
    from cosched.workload.stream import WorkloadStream

__all__ = ["RateModel", "Simulation", "SimulationResult", "simulate"]

Estimates = Literal["requested", "exact"]


class RateModel(Protocol):
    """Gives running jobs new progress rates when co-location changes.

    Called once per instant at which jobs started or finished, after the scheduling
    pass; returns ``{job.index: rate}`` for the running jobs whose rate changes.
    """

    def update(
        self, view: SystemView, started: Sequence[Job], finished: Sequence[Job]
    ) -> Mapping[int, float]: ...


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """What a finished simulation hands back.

    Attributes:
        jobs: the per-job outcome table, one row per job in submit order, with
            ``job_id, submit_time, start_time, end_time, procs, size, run_time,
            requested_time`` (``size`` in allocation units); a DataFrame made on first
            read (:attr:`job_columns` gives the numpy columns).
        platform: the machine.
        policy: the policy's name.
        params: the policy's parameters.
        workload: the workload's name.
        stats: engine counters (passes, events, decisions).
        placements: where each placed job ran, ``{job index: ((node, slots), ...)}``
            (empty when the engine kept no node ledger).
        diagnostics: the policy's own counters (:meth:`Policy.diagnostics`).
    """

    if TYPE_CHECKING:  # a DataFrame to read; Columns too when built (see FrameField)
        jobs: pd.DataFrame
    else:
        jobs: FrameField = FrameField()
    platform: Platform
    policy: str
    params: Mapping[str, Any]
    workload: str
    stats: Mapping[str, int] = field(default_factory=dict)
    placements: Mapping[int, Placement] = field(default_factory=dict)
    diagnostics: Mapping[str, float] = field(default_factory=dict)

    @property
    def job_columns(self) -> Columns:
        """:attr:`jobs` as numpy columns (no pandas needed)."""
        return SimulationResult.__dict__["jobs"].columns(self)  # type: ignore[no-any-return]


class Simulation:
    """One run of one policy on one workload and machine.

    Args:
        workload: the jobs.
        platform: the machine; every job must fit it.
        policy: a fresh policy instance (it keeps per-run state).
        estimates: what the scheduler believes run times are: ``requested`` (the
            user's estimate, default) or ``exact`` (the real run time).
        rate_model: optional co-location model that changes progress rates (default:
            the policy's own, from ``policy.rate_model()``).
        rng: generator for randomised policies, or the seed of one (default: seeded
            with 0); built on first use (FCFS and EASY never use it, and numpy's
            random module costs a run about 8 ms to import).
        check: verify the capacity invariant after every pass (slow; for tests).
        progress: called now and then as ``progress(jobs_started, jobs_total)``.
        placement: keep a node ledger (jobs placed on named nodes); always on when
            the platform lets jobs share nodes (``mpl > 1`` or a job cap).
        sink: with a streamed workload (:class:`~cosched.workload.stream.WorkloadStream`),
            receives the outcome table a chunk at a time as jobs finish, in submit
            order (:mod:`cosched.engine.feed`); the result's ``jobs`` is then empty.
        fast: let :meth:`run` take the fast path (:mod:`cosched.engine.fastpath`) when
            the policy is a built-in one it covers; False forces the general loop (the
            differential tests compare the two).
    """

    def __init__(
        self,
        workload: Workload | WorkloadStream,
        platform: Platform,
        policy: Policy,
        *,
        estimates: Estimates = "requested",
        rate_model: RateModel | None = None,
        rng: np.random.Generator | int | None = None,
        check: bool = False,
        progress: Callable[[int, int], None] | None = None,
        placement: bool = False,
        sink: Callable[[pd.DataFrame], None] | None = None,
        fast: bool = True,
    ) -> None:
        if estimates not in ("requested", "exact"):
            raise ConfigError(f"estimates must be 'requested' or 'exact', got {estimates!r}")
        self.workload: Workload = workload if isinstance(workload, Workload) else workload.head()
        self.platform = platform
        self.policy = policy
        self.estimates = estimates
        policy.check_platform(platform)
        self.rate_model = rate_model if rate_model is not None else policy.rate_model()
        self._rng: np.random.Generator | int = 0 if rng is None else rng
        self.check = check
        self.progress = progress
        self.fast = fast
        self._feed: JobFeed | None = None
        # Per-job state by job index: lists over the workload, built when a loop starts
        # (_lists, _begin: the compiled fast path needs none of them, which keeps a large
        # run's memory down), or, for a streamed workload, dicts of the jobs in the
        # system (cosched.engine.feed), indexed the same way.
        self._jobs: list[Job] = []
        self._sizes: list[int] = []
        self._run: list[float] = []
        self._est: list[float] = []
        self._submit: list[float] = []
        if isinstance(workload, Workload):
            n = self._jobs_in_memory(workload)
        else:
            n = 0
            for name in ("_jobs", "_submit", "_sizes", "_run", "_est"):
                setattr(self, name, {})
        self._n = n
        self._n_loaded = n
        self._ledger = NodeLedger(platform) if placement or platform.shared else None
        self._capacity = platform.capacity
        self._free = self._capacity if self._ledger is None else self._ledger.free_units
        # Unavailability (Platform.unavailable): units drained out of the machine now;
        # they come out of the free units as they come free, up to the intervals' sum.
        self._drained = 0
        steps = platform.unavailability_steps()
        self._gone_t: list[float] = steps[0].tolist()  # when the removed units change
        self._gone_v: list[int] = steps[1].tolist()  # units removed from then on
        if platform.unavailable and self._ledger is not None:
            raise ConfigError(
                "platform unavailability needs a machine counted in units: this run places "
                "jobs on named nodes"
            )
        self._holding: dict[int, float] = {}  # job index -> hold start time
        self._slots: list[int] = []  # slots a placed job holds (ledger only)
        self._placed: dict[int, Placement] = {}  # where each placed job ran (ledger only)
        self._placed_flat: Mapping[int, Placement] | None = None  # a compiled loop's
        self._held_time: list[float] = []
        self._now = -math.inf
        self._queue: dict[int, Job] = {}
        self._running: dict[int, Job] = {}
        # Running jobs sorted by estimated end; built on a policy's first look
        # (view.releases()) and kept up to date from then on, so policies that never
        # look (FCFS) do not pay for it.
        self._releases: list[tuple[float, int, int]] | None = None
        self._start: list[float] = []
        self._end: list[float] = []
        self._rate: list[float] = []
        self._done: list[float] = []
        self._upd: list[float] = []
        self._ver: list[int] = []
        self._est_end: list[float] = []
        self._heap: list[tuple[float, int, int, int]] = []
        self._wakes: list[float] = []
        self._seq = 0
        self._n_started = 0
        self._total_wait = 0.0
        self._stats = {"passes": 0, "decisions": 0, "rate_changes": 0}
        self._epoch = 0  # bumped whenever a job ends or changes rate
        self._view = SystemView(self)
        self._ran = False
        self._next_submit = 0
        self._wants_submit = False
        self._wants_finish = False
        self._idle_passes = True
        if not isinstance(workload, Workload):
            self._streamed(workload, sink)

    def _jobs_in_memory(self, workload: Workload) -> int:
        """Check the sizes and keep (submit, run, estimate, size) as numpy columns."""
        platform = self.platform
        t = workload.columns
        sizes = unit_sizes(platform, workload.name, t)
        col = "run_time" if self.estimates == "exact" else "requested_time"
        self._columns = (
            np.asarray(t["submit_time"], dtype=np.float64),
            np.asarray(t["run_time"], dtype=np.float64),
            np.asarray(t[col], dtype=np.float64),
            np.asarray(sizes, dtype=np.int64),
        )
        return len(t)

    def _streamed(
        self, stream: WorkloadStream, sink: Callable[[pd.DataFrame], None] | None
    ) -> None:
        """Per-job state as dicts of the jobs in the system, fed by :class:`JobFeed`."""
        from cosched.engine.feed import JobFeed

        if sink is None:
            raise ConfigError("a streamed workload needs a sink for the finished jobs")
        for name in ("_start", "_end", "_rate", "_done", "_upd", "_ver", "_est_end"):
            setattr(self, name, {})
        self._feed = JobFeed(self, stream, sink)

    @property
    def rng(self) -> np.random.Generator:
        """The generator for randomised policies (built from its seed on first use)."""
        if isinstance(self._rng, int | np.integer):  # a seed; anything else is kept as given
            self._rng = np.random.default_rng(int(self._rng))
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value

    @property
    def view(self) -> SystemView:
        """The read-only view the policy sees."""
        return self._view

    # -- the state a compiled loop runs on (cosched.engine.fastpath) ---------------------

    @property
    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The job columns in submit order: submit time, run time, estimate (the
        requested or the exact run time, as :attr:`estimates` says) and size in units.

        Raises:
            ConfigError: the workload is streamed (its jobs are not all in memory).
        """
        if self._feed is not None:
            raise ConfigError("a streamed simulation has no job columns in memory")
        return self._columns

    @property
    def n_jobs(self) -> int:
        """Jobs in the workload in memory (0 for a streamed workload)."""
        return self._n

    @property
    def capacity(self) -> int:
        """Units in the machine."""
        return self._capacity

    @property
    def streamed(self) -> bool:
        """Whether jobs are read as the run goes (a streamed workload)."""
        return self._feed is not None

    @property
    def placing(self) -> bool:
        """Whether jobs are placed on named nodes (a node ledger is kept)."""
        return self._ledger is not None

    def finish_compiled(
        self,
        start: np.ndarray,
        end: np.ndarray,
        *,
        passes: int,
        decisions: int,
        placements: Mapping[int, Placement] | None = None,
        slots: list[int] | None = None,
        rate_changes: int | None = None,
    ) -> SimulationResult:
        """The result of a run a compiled loop made instead of :meth:`run`'s loop: every
        job's start and end, the engine's counters and, for a run on a node ledger,
        where each job ran and the slots it held (in start order)."""
        if self._ran:
            raise ConfigError("a Simulation runs once; build a new one (and a new policy)")
        if placements is not None:
            self._placed_flat = placements
        if slots is not None:
            self._slots = slots
        if rate_changes is not None:
            self._stats["rate_changes"] = rate_changes
        started = int(np.count_nonzero(~np.isnan(start)))
        return self._fast_result(start, end, passes=passes, decisions=decisions, started=started)

    # -- the event loop ---------------------------------------------------------------

    def run(self) -> SimulationResult:
        """Simulate until every job has finished; return the outcome table."""
        if self.fast and not self._ran and self._feed is None:
            from cosched.engine.fastpath import try_run

            result = try_run(self)
            if result is not None:
                return result
        self._begin()
        feed = self._feed
        if feed is not None:  # jobs loaded as needed and finished ones handed out
            feed.load()
        due, instant = self._due, self._instant
        while (t := due()) != math.inf:
            instant(t)
            if feed is not None and feed.ended_now:
                feed.release()
        result = self.finish()
        if feed is not None:
            feed.flush()
        return result

    def _due(self) -> float:
        """When the next event is due: the earliest of the next submission (of the jobs
        loaded), the next completion and the next wake-up (``inf`` when none is)."""
        i = self._next_submit
        t = self._submit[i] if i < self._n_loaded else math.inf
        heap, wakes = self._heap, self._wakes
        if heap and heap[0][0] < t:
            t = heap[0][0]
        if wakes and wakes[0] < t:
            t = wakes[0]
        return t

    # -- stepping, for several simulations on one clock ---------------------------------

    def _begin(self) -> None:
        if self._ran:
            raise ConfigError("a Simulation runs once; build a new one (and a new policy)")
        self._ran = True
        if self._feed is None:
            self._jobs = self.workload.jobs()
            self._lists()
            n, nan = self._n, math.nan
            self._slots = [0] * n
            self._held_time = [0.0] * n
            self._start = [nan] * n
            self._end = [nan] * n
            self._rate = [1.0] * n
            self._done = [0.0] * n
            self._upd = [0.0] * n
            self._ver = [0] * n
            self._est_end = [nan] * n
        for t in self._gone_t:
            heapq.heappush(self._wakes, t)
        self._wants_submit = _overrides(self.policy, "on_submit")
        self._wants_finish = _overrides(self.policy, "on_finish")
        self._idle_passes = self.policy.idle_passes

    def _lists(self) -> None:
        """The columns as Python lists (submit, run, estimate, size), once."""
        if len(self._submit) != self._n:
            submit, run, est, sizes = self._columns
            self._submit, self._run = submit.tolist(), run.tolist()
            self._est, self._sizes = est.tolist(), sizes.tolist()

    def next_time(self) -> float:
        """When the next event is due (``inf`` when none is)."""
        if self._feed is not None:
            raise ConfigError("a streamed simulation is run with run(), not stepped")
        if not self._ran:
            self._begin()
        return self._due()

    def advance(self, t: float) -> None:
        """Handle every event due at ``t`` (no later than :meth:`next_time`), then one pass.

        A coordinator of several simulations calls this for each simulation whose
        next event is due at the common clock's time.
        """
        if not self._ran:
            self._begin()
        if t < self._now or t > self.next_time():
            raise InvariantError(f"advance({t:g}) out of order (now {self._now:g})")
        self._instant(t)

    def extra_pass(self) -> list[Job]:
        """Run one more scheduling pass now (a coordinator's request); jobs started."""
        return self.apply(self.policy.schedule(self._view))

    def apply(self, decisions: Sequence[Decision]) -> list[Job]:
        """Check and carry out decisions now, as if the policy had returned them."""
        started = self._apply(decisions, self._now)
        if self.rate_model is not None and started:
            self._update_rates(started, [])
        if self.check:
            self._check_capacity()
        return started

    def finish(self) -> SimulationResult:
        """The outcome table; raises if jobs are left that nothing will ever start."""
        if self._queue:
            raise PolicyDecisionError(
                self.policy.name,
                self._now,
                None,
                f"the simulation stalled with {len(self._queue)} job(s) queued and nothing "
                "running or due; the policy never started them",
            )
        if self.progress is not None:
            self.progress(self._n_started, self._n_loaded)
        return self._result()

    def _instant(self, t: float) -> None:
        """Completions, then submissions, then one scheduling pass, all at ``t``."""
        self._now = t
        heap, policy, view = self._heap, self.policy, self._view
        finished: list[Job] = []
        if heap and heap[0][0] <= t:
            ver, finish = self._ver, self._finish
            while heap and heap[0][0] <= t:
                _, _, idx, v = heapq.heappop(heap)
                if v == ver[idx]:
                    finished.append(finish(idx, t))
            if self._wants_finish:
                for job in finished:
                    policy.on_finish(job, view)
        submit, jobs, queue = self._submit, self._jobs, self._queue
        i, n = self._next_submit, self._n_loaded
        while True:
            while i < n and submit[i] <= t:
                job = jobs[i]
                queue[i] = job
                i += 1
                if self._wants_submit:
                    policy.on_submit(job, view)
            # A streamed workload loads its next chunk when this one is all submitted.
            if i < n or self._feed is None or not self._feed.load():
                break
            n = self._n_loaded
        self._next_submit = i
        wakes = self._wakes
        while wakes and wakes[0] <= t:
            heapq.heappop(wakes)
        if self.platform.unavailable:
            self._drain(t)
        if not queue and not self._idle_passes:
            if self.rate_model is not None and finished:
                self._update_rates([], finished)
            return
        stats = self._stats
        stats["passes"] += 1
        if self.progress is not None and not stats["passes"] & 4095:
            self.progress(self._n_started, n)
        started = self._apply(policy.schedule(view), t)
        if self.rate_model is not None and (started or finished):
            self._update_rates(started, finished)
        if self.check:
            self._check_capacity()

    def _apply(self, decisions: Sequence[Decision], now: float) -> list[Job]:
        started: list[Job] = []
        for d in decisions:
            kind = type(d)
            if kind is Start:
                self._start_job(d, now)  # type: ignore[arg-type]
                started.append(d.job)  # type: ignore[union-attr]
            elif kind is WakeUp:
                if not d.time > now:  # type: ignore[union-attr]
                    self._refuse(None, f"wake-up time {d.time} is not after now")  # type: ignore[union-attr]
                heapq.heappush(self._wakes, d.time)  # type: ignore[union-attr]
            elif kind is Hold:
                self._hold(d, now)  # type: ignore[arg-type]
            elif kind is Release:
                self._release(d.job, now)  # type: ignore[union-attr]
            else:
                self._refuse(None, f"unknown decision {d!r}")
        self._stats["decisions"] += len(decisions)
        return started

    def _drain(self, t: float) -> None:
        """Bring the drained units to the unavailability in force at ``t``: units come
        back when an interval ends, and free units are taken while fewer than the
        intervals remove are out (see :mod:`cosched.platform.machine`)."""
        target = self.removed_at(t)
        drained = self._drained
        if drained > target:
            self._free += drained - target
            drained = target
        elif drained < target and self._free > 0:
            take = min(target - drained, self._free)
            self._free -= take
            drained += take
        if drained != self._drained:
            self._drained = drained
            self._epoch += 1  # the free units changed without a job ending

    def removed_at(self, t: float) -> int:
        """Units the platform's unavailability removes at ``t``."""
        k = bisect.bisect_right(self._gone_t, t) - 1
        return self._gone_v[k] if k >= 0 else 0

    def returns(self) -> list[tuple[float, int]]:
        """``(time, units)`` at which the units out of the machine now come back."""
        out: list[tuple[float, int]] = []
        left = self._drained
        times, values = self._gone_t, self._gone_v
        k = bisect.bisect_right(times, self._now)
        while left and k < len(times):
            if values[k] < left:
                out.append((times[k], left - values[k]))
                left = values[k]
            k += 1
        return out

    def _refuse(self, job: Job | None, reason: str) -> None:
        raise PolicyDecisionError(
            self.policy.name, self._now, None if job is None else job.job_id, reason
        )

    # -- job life cycle -----------------------------------------------------------------

    def _take(self, job: Job, placement: Placement | None) -> None:
        """Allocate the units of ``job`` (count, or ledger placement) or refuse."""
        idx = job.index
        size = self._sizes[idx]
        ledger = self._ledger
        if ledger is None:
            if placement is not None:
                self._refuse(job, "a placement needs a shared platform or placement=True")
            if size > self._free:
                self._refuse(job, f"needs {size} units, {self._free} free")
            self._free -= size
            return
        if placement is None:
            if size > ledger.free_units:
                self._refuse(job, f"needs {size} units, {ledger.free_units} free")
            placement = ledger.first_fit(size)
        else:
            problem = ledger.problem(placement)
            if problem is not None:
                self._refuse(job, f"cannot place: {problem}")
        ledger.place(idx, placement)
        self._placed[idx] = placement
        self._slots[idx] = sum(slots for _, slots in placement)
        self._free = ledger.free_units

    def _give_back(self, idx: int) -> None:
        if self._ledger is None:
            self._free += self._sizes[idx]
        else:
            self._ledger.release(idx)
            self._free = self._ledger.free_units

    def _start_job(self, d: Start, now: float) -> None:
        job = d.job
        idx = job.index
        if idx not in self._queue:
            self._refuse(job, "cannot start: the job is not queued")
        if self._ledger is None and d.placement is None and not self._holding:
            # The batch baselines' path: a count of free units is the whole machine.
            size = self._sizes[idx]
            if size > self._free:
                self._refuse(job, f"needs {size} units, {self._free} free")
            self._free -= size
        elif idx in self._holding:
            ledger = self._ledger
            if (
                d.placement is not None
                and ledger is not None
                and (tuple(d.placement) != ledger.placement(idx))
            ):
                self._refuse(job, "a holding job starts on the units it holds")
            self._held_time[idx] += now - self._holding.pop(idx)
        else:
            self._take(job, d.placement)
        del self._queue[idx]
        self._running[idx] = job
        self._start[idx] = now
        self._upd[idx] = now
        self._n_started += 1
        self._total_wait += now - job.submit_time
        self._seq += 1
        heapq.heappush(self._heap, (now + self._run[idx], self._seq, idx, 0))
        end = now + self._est[idx]
        self._est_end[idx] = end
        if self._releases is not None:
            bisect.insort(self._releases, (end, idx, self._sizes[idx]))

    def _hold(self, d: Hold, now: float) -> None:
        job = d.job
        if self._feed is not None:
            self._refuse(job, "holding units is not supported in a streamed run")
        if job.index not in self._queue:
            self._refuse(job, "cannot hold: the job is not queued")
        if job.index in self._holding:
            self._refuse(job, "cannot hold: the job already holds units")
        self._take(job, d.placement)
        self._holding[job.index] = now

    def _release(self, job: Job, now: float) -> None:
        since = self._holding.pop(job.index, None)
        if since is None:
            self._refuse(job, "cannot release: the job holds no units")
        else:
            self._held_time[job.index] += now - since
            self._give_back(job.index)
            if self.platform.unavailable:
                self._drain(now)

    def _finish(self, idx: int, now: float) -> Job:
        job = self._running.pop(idx)
        size = self._sizes[idx]
        if self._ledger is None:
            self._free += size
        else:
            self._give_back(idx)
        self._end[idx] = now
        if self._feed is not None:
            self._feed.ended_now.append(idx)
        releases = self._releases
        if releases is not None:
            del releases[bisect.bisect_left(releases, (self._est_end[idx], idx, size))]
        self._epoch += 1
        return job

    def releases(self) -> list[tuple[float, int, int]]:
        """``(estimated_end, index, size)`` of the running jobs, sorted (built on demand)."""
        if self._releases is None:
            ends, sizes = self._est_end, self._sizes
            self._releases = sorted((ends[i], i, sizes[i]) for i in self._running)
        return self._releases

    def _drop_release(self, idx: int) -> None:
        key = (self._est_end[idx], idx, self._sizes[idx])
        if self._releases is not None:
            del self._releases[bisect.bisect_left(self._releases, key)]

    def set_rate(self, idx: int, rate: float) -> None:
        """Change a running job's progress rate now and re-plan its completion."""
        self._set_rates(((idx, rate),))

    def _set_rates(self, changes: Iterable[tuple[int, float]]) -> None:
        """:meth:`set_rate` for each ``(index, rate)`` in turn."""
        now, running, isfinite = self._now, self._running, math.isfinite
        rates, done, upd, ver = self._rate, self._done, self._upd, self._ver
        run, est, est_end, heap = self._run, self._est, self._est_end, self._heap
        releases, push, changed = self._releases, heapq.heappush, 0
        for idx, rate in changes:
            if not rate > 0 or not isfinite(rate):
                raise InvariantError(f"progress rate must be positive and finite, got {rate}")
            if idx not in running:
                raise InvariantError(f"job index {idx} is not running")
            old = rates[idx]
            if rate == old:
                continue
            done[idx] += (now - upd[idx]) * old
            upd[idx] = now
            rates[idx] = rate
            ver[idx] += 1
            self._seq += 1
            remaining = max(run[idx] - done[idx], 0.0)
            push(heap, (now + remaining / rate, self._seq, idx, ver[idx]))
            if releases is not None:
                self._drop_release(idx)
            est_end[idx] = now + max(est[idx] - done[idx], 0.0) / rate
            if releases is not None:
                bisect.insort(releases, (est_end[idx], idx, self._sizes[idx]))
            changed += 1
        self._stats["rate_changes"] += changed
        self._epoch += changed

    def _update_rates(self, started: list[Job], finished: list[Job]) -> None:
        assert self.rate_model is not None
        self._set_rates(sorted(self.rate_model.update(self._view, started, finished).items()))

    def _check_capacity(self) -> None:
        if self._ledger is not None:
            problem = self._ledger.verify()
            if problem is None and self._free != self._ledger.free_units:
                problem = "free units out of step with the ledger"
            if problem is not None:
                raise InvariantError(f"t={self._now:g}: {problem}")
            return
        used = sum(self._sizes[i] for i in (*self._running, *self._holding))
        if self._free < 0 or used + self._free + self._drained != self._capacity:
            raise InvariantError(
                f"t={self._now:g}: {used} units running + {self._free} free + "
                f"{self._drained} unavailable != capacity {self._capacity}"
            )
        if self._free > 0 and self._drained < self.removed_at(self._now):
            raise InvariantError(
                f"t={self._now:g}: {self._free} units free while {self._drained} of "
                f"{self.removed_at(self._now)} unavailable units are out"
            )

    # -- results ------------------------------------------------------------------------

    def _fast_result(
        self,
        start: Sequence[float] | np.ndarray,
        end: Sequence[float] | np.ndarray,
        *,
        passes: int,
        decisions: int,
        started: int,
    ) -> SimulationResult:
        """The result of a run the fast path made (start and end of every job)."""
        self._ran = True
        self._start, self._end = start, end  # type: ignore[assignment]
        self._n_started = started
        if started != self._n:  # cannot happen: every job fits the machine
            raise InvariantError(f"the fast path started {started} of {self._n} jobs")
        self._stats["passes"] = passes
        self._stats["decisions"] = decisions
        return self.finish()

    def _result(self) -> SimulationResult:
        if self._feed is not None:  # the outcomes went to the sink
            import pandas as pd

            return self._result_of(pd.DataFrame({c: [] for c in OUTCOME_COLUMNS}))
        t = self.workload.columns
        jobs = Columns(
            {
                "job_id": t["job_id"],
                "submit_time": t["submit_time"],
                "start_time": np.asarray(self._start, dtype=float),
                "end_time": np.asarray(self._end, dtype=float),
                "procs": t["procs"],
                "size": self._columns[3].copy(),
                "run_time": t["run_time"],
                "requested_time": t["requested_time"],
            }
        )
        if any(self._held_time):
            jobs["held_time"] = np.array(self._held_time, dtype=float)
        if self.platform.partition is not None:
            # Units of each job's partition beyond its need: busy, but idle.
            jobs["wasted"] = self.platform.waste_array(t["procs"])
        if self._ledger is not None:
            # What a placed job really occupies, in the platform's units: a job spread
            # over 4n nodes at a quarter of their cores occupies n nodes' worth.
            per_unit = (
                self._ledger.slots_per_node
                if self.platform.allocation is Allocation.NODES
                else self.platform.mpl
            )
            jobs["occupancy"] = np.array(self._slots, dtype=float) / per_unit
        return self._result_of(jobs)

    def _result_of(self, jobs: pd.DataFrame | Columns) -> SimulationResult:
        return SimulationResult(
            jobs=jobs,
            platform=self.platform,
            policy=self.policy.name,
            params=self.policy.params(),
            workload=self.workload.name,
            stats=dict(self._stats),
            placements=self._placed if self._placed_flat is None else self._placed_flat,
            diagnostics=dict(self.policy.diagnostics()),
        )


def _overrides(policy: Policy, hook: str) -> bool:
    """Whether the policy overrides an optional hook (the base's carries a marker)."""
    return not getattr(getattr(type(policy), hook, None), "__cosched_default_hook__", False)


def simulate(
    workload: Workload,
    platform: Platform,
    policy: Policy,
    *,
    estimates: Estimates = "requested",
    rate_model: RateModel | None = None,
    rng: np.random.Generator | None = None,
    check: bool = False,
) -> SimulationResult:
    """Run one policy instance (``cosched.simulate`` also takes a registered name)."""
    if isinstance(policy, str):
        raise ConfigError(
            "cosched.engine.simulate takes a Policy instance; use cosched.simulate for a name"
        )
    sim = Simulation(
        workload, platform, policy, estimates=estimates, rate_model=rate_model, rng=rng, check=check
    )
    return sim.run()
