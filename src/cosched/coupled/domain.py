"""One machine of a coupled system: a simulation, its local policy and its scheme.

A :class:`Domain` owns a :class:`~cosched.engine.Simulation` whose policy is the
:class:`CoschedulingPolicy` wrapper. The wrapper asks the local policy (EASY with the
submit or WFP order by default) which jobs are ready; every ready job with a mate goes
through Algorithm 1 of the coupled-systems paper (:meth:`Domain.run_job`) instead of
starting at once: start with the mate, hold its units, or yield its turn.

Yield is a new local iteration: the local policy runs again with the yielding jobs
hidden, so the units they would have taken go to other jobs (section IV-B). Holding
jobs are hidden from the local policy too (their units are already taken) and appear
to it as running jobs that end one estimate from now, so EASY's shadow times stay
finite. Enhancements (section IV-E): holding jobs release their units every
``release_period`` seconds (``release_clock``: every holder at once at each multiple of
the period on the machine's clock, or each after holding that long) and, in that pass,
come last (each re-holds only if its units are still free; with ``release_yield`` no
other job may take released units to hold in that pass: it yields instead);
``max_hold_share`` caps
the held share of the machine (a job that would exceed it yields instead);
``max_yields`` turns a job that yielded that many times into a holder.
"""

from __future__ import annotations

import enum
import heapq
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from cosched.coupled.errors import CoupledError
from cosched.coupled.protocol import MateStatus, Peer
from cosched.engine.decisions import Decision, Hold, Release, Start, WakeUp
from cosched.engine.simulation import Estimates, Simulation, SimulationResult
from cosched.engine.view import SystemView
from cosched.errors import ConfigError
from cosched.platform import Platform
from cosched.policies.base import Policy
from cosched.policies.easy import EasyBackfilling
from cosched.workload.job import Job, Workload

__all__ = [
    "DEFAULT_RELEASE_CLOCK",
    "DEFAULT_RELEASE_PERIOD",
    "HOLD_SETTINGS",
    "RELEASE_CLOCKS",
    "CoschedulingPolicy",
    "Domain",
    "Outcome",
    "ReleaseClock",
    "Scheme",
]

Scheme = Literal["hold", "yield"]
ReleaseClock = Literal["machine", "job"]

#: The coscheduling knobs a domain and its spec carry alike, in the order their
#: settings list them.
HOLD_SETTINGS = (
    "enabled",
    "release_period",
    "release_clock",
    "release_yield",
    "max_hold_share",
    "max_yields",
)

#: Default period (seconds) after which a holding job releases its units (section IV-E).
DEFAULT_RELEASE_PERIOD = 1200.0
#: Whose clock times the periodic release (section IV-E1, "force the holding jobs to
#: release their resources periodically (e.g., every 20 minutes)"): ``machine``, every
#: holding job at once at each multiple of the period; ``job``, each holding job after
#: holding for the period. The paper's evaluation calls it "the held nodes' releasing
#: period" and "the releasing interval", one period of the machine (docs/coupled.md).
RELEASE_CLOCKS: tuple[ReleaseClock, ...] = ("machine", "job")
DEFAULT_RELEASE_CLOCK: ReleaseClock = "machine"
#: The workload column naming each job's mate on the peer machine.
MATE_COLUMN = "coupled_mate"
#: Columns ``coupled_mate@NAME`` name each job's mate on the machine NAME (-1: none):
#: a job may have mates on several machines, which all start together.
GROUP_PREFIX = "coupled_mate@"


class Outcome(enum.Enum):
    """What Algorithm 1 did with a ready job."""

    STARTED = "started"
    HELD = "held"
    YIELDED = "yielded"


class _PassView:
    """The view the local policy sees during one iteration of a coscheduling pass.

    Hides holding jobs, the jobs that yielded in this pass and those released in it
    (they come last), shows holding jobs as releases one estimate from now, and has a
    fresh ``epoch`` each time so that incremental policies always run full passes.
    """

    __slots__ = ("_extra", "_hidden", "_v", "epoch")

    def __init__(
        self, view: SystemView, hidden: set[int], extra: list[tuple[float, int, int]], epoch: int
    ) -> None:
        self._v = view
        self._hidden = hidden
        self._extra = extra
        self.epoch = epoch

    def __getattr__(self, name: str) -> Any:
        return getattr(self._v, name)

    @property
    def queue(self) -> list[Job]:
        hidden = self._hidden
        return [j for j in self._v.queue if j.index not in hidden]

    def releases(self) -> Iterator[tuple[float, int, int]]:
        return heapq.merge(self._v.releases(), self._extra)


class CoschedulingPolicy(Policy):
    """The wrapper policy a :class:`Domain` runs: Algorithm 1 around a local policy.

    Not registered by name: it needs its domain. Passes run by the engine while the
    coordinator gathers events (``domain.gated``) do nothing; the coordinator then
    asks each domain for one coscheduling pass.
    """

    def __init__(self, local: Policy, domain: Domain) -> None:
        self.local = local
        self.domain = domain
        self.name = f"cosched-{domain.scheme}[{local.name}]"  # type: ignore[misc]

    def schedule(self, view: SystemView) -> Sequence[Decision]:
        """One coscheduling pass (nothing while gated); decisions are applied inside."""
        if self.domain.gated:
            return []
        self.domain.run_pass()
        return []

    def on_submit(self, job: Job, view: SystemView) -> None:
        """Record the arrival (for mate status) and tell the local policy."""
        self.domain.submitted.add(job.index)
        self.local.on_submit(job, view)

    def on_finish(self, job: Job, view: SystemView) -> None:
        """Tell the local policy."""
        self.local.on_finish(job, view)

    def check_platform(self, platform: Platform) -> None:
        """The local policy's check."""
        self.local.check_platform(platform)

    def params(self) -> dict[str, Any]:
        """The local policy's parameters plus the coscheduling ones."""
        return {**self.local.params(), **self.domain.settings()}


class Domain:
    """A machine with its own queue, local policy and coscheduling scheme.

    Args:
        name: the machine's name (used in reports and errors).
        workload: its jobs; a ``coupled_mate`` column (see
            :func:`cosched.workload.profiles.coupled.pair_workloads`) names each job's
            mate on the peer machine, -1 for none. Job ids must be unique.
        platform: the machine.
        scheme: ``hold`` or ``yield``: what a ready job does when its mate is not.
        local: the local policy (default EASY with Cobalt's WFP order).
        enabled: coscheduling on (False: every job starts as if it had no mate).
        release_period: seconds after which a holding job releases its units (None:
            never; the hold-hold deadlock of Figure 2 is then possible).
        release_clock: ``machine`` (every holding job releases at each multiple of
            ``release_period``) or ``job`` (each after holding that long).
        release_yield: in a pass that released holds, a ready job whose mate is not
            ready yields instead of holding (only the released jobs hold again, after
            the pass), so released units go only to jobs that start (False: it holds,
            as in any pass; docs/coupled.md, "Deadlock").
        max_hold_share: largest share of the machine's units that may be held; a job
            that would exceed it yields instead (1.0: no limit).
        max_yields: after this many yields a job holds instead (None: no limit).
        estimates: ``requested`` or ``exact`` run-time estimates.
        rng: generator for randomised local policies.
        check: verify the engine's capacity invariant after every pass.
    """

    def __init__(
        self,
        name: str,
        workload: Workload,
        platform: Platform,
        *,
        scheme: Scheme = "hold",
        local: Policy | None = None,
        enabled: bool = True,
        release_period: float | None = DEFAULT_RELEASE_PERIOD,
        release_clock: ReleaseClock = DEFAULT_RELEASE_CLOCK,
        release_yield: bool = False,
        max_hold_share: float = 1.0,
        max_yields: int | None = None,
        estimates: Estimates = "requested",
        rng: np.random.Generator | None = None,
        check: bool = False,
    ) -> None:
        _check_settings(scheme, release_period, max_hold_share, max_yields)
        if release_clock not in RELEASE_CLOCKS:
            raise ConfigError(
                f"release_clock must be one of {', '.join(RELEASE_CLOCKS)}, got {release_clock!r}"
            )
        self.name = name
        self.scheme: Scheme = scheme
        self.enabled = enabled
        self.release_period = release_period
        self.release_clock: ReleaseClock = release_clock
        self.release_yield = bool(release_yield)
        #: set while a pass that released holds runs with ``release_yield``.
        self._yield_pass = False
        self.max_hold_share = max_hold_share
        self.max_yields = max_yields
        self.local = local if local is not None else EasyBackfilling(order="wfp")
        self.policy = CoschedulingPolicy(self.local, self)
        self.sim = Simulation(
            workload, platform, self.policy, estimates=estimates, rng=rng, check=check
        )
        self.view = self.sim.view
        self.workload = workload
        self._jobs = workload.jobs()
        ids = workload.table["job_id"].to_numpy()
        if len(np.unique(ids)) != len(ids):
            raise ConfigError(f"domain {name!r}: job ids must be unique to name mates")
        self._by_id: dict[int, Job] = {j.job_id: j for j in self._jobs}
        self._mate: dict[int, int] = _mates(workload)
        self._group: dict[int, dict[str, int]] = _group_mates(workload)
        n = len(self._jobs)
        self.peer: Peer | None = None
        self.peer_name: str | None = None
        #: every linked domain, by name (``peer`` is the first: the two-machine case).
        self.peers: dict[str, Peer] = {}
        self._try_hold = False
        self.down = False
        self.gated = True
        #: whether the next pass checks the holders' mates (set at outage changes).
        self.recheck = False
        self.submitted: set[int] = set()
        self._busy = False
        self._try_target = -1
        self._epoch = 0
        self._ready = [math.nan] * n
        self._yields = [0] * n
        self._holds = [0] * n
        self._alone = [False] * n
        self._hold_since: dict[int, float] = {}
        self._held_units = 0
        self.counters = {"holds": 0, "yields": 0, "releases": 0, "alone": 0, "try_start": 0}

    # -- set-up -------------------------------------------------------------------------

    def connect(self, peer_name: str, peer: Peer) -> None:
        """Send the calls about this domain's mates on ``peer_name`` to ``peer``.

        Raises:
            ConfigError: ``peer_name`` is linked already, or a second peer for a workload
                whose ``coupled_mate`` column does not say on which peer a mate is (use
                ``coupled_mate@NAME`` columns for several peers).
        """
        if peer_name in self.peers or peer_name == self.name:
            raise ConfigError(f"domain {self.name!r} is already linked with {peer_name!r}")
        if self.peers and self._mate:
            raise ConfigError(
                f"domain {self.name!r}: its coupled_mate column names mates on one peer; "
                f"to link it with {peer_name!r} too, name mates in coupled_mate@NAME columns"
            )
        self.peers[peer_name] = peer
        if self.peer is None:
            self.peer_name = peer_name
            self.peer = peer

    def settings(self) -> dict[str, Any]:
        """The coscheduling parameters, as plain values."""
        return {"scheme": self.scheme, **{k: getattr(self, k) for k in HOLD_SETTINGS}}

    @property
    def paired(self) -> int:
        """How many of this domain's jobs have a mate."""
        return len(self._mate) + len(self._group)

    def mate_of(self, job: Job) -> int | None:
        """The mate's job id on the peer, or None (None too for a job with several mates)."""
        group = self._group.get(job.index)
        if group is not None:
            return next(iter(group.values())) if len(group) == 1 else None
        return self._mate.get(job.index)

    def mates(self, idx: int) -> dict[str, int]:
        """Job ``idx``'s mates: peer name -> mate id (empty: none)."""
        group = self._group.get(idx)
        if group is not None:
            return group
        mate = self._mate.get(idx)
        if mate is None or self.peer_name is None:
            return {}
        return {self.peer_name: mate}

    # -- the peer side of the protocol (called through a link) ---------------------------

    def confirm_mate(self, job_id: int, peer: str, peer_job: int) -> int | None:
        """``job_id`` if it is here and paired with ``peer_job`` on ``peer``, else None."""
        job = self._by_id.get(job_id)
        if job is None or self.mates(job.index).get(peer) != peer_job:
            return None
        return job_id

    def status(self, job_id: int) -> MateStatus:
        """The status of one of this domain's jobs, as the protocol reports it."""
        job = self._by_id.get(job_id)
        if job is None:
            return MateStatus.UNKNOWN
        idx = job.index
        if idx not in self.submitted:
            return MateStatus.UNSUBMITTED
        if not math.isnan(self.view.start_time(job)):
            return MateStatus.RUNNING
        if self.view.is_holding(job):
            return MateStatus.HOLDING
        return MateStatus.QUEUING

    def try_start(self, job_id: int) -> bool:
        """One extra local pass in which ``job_id``, if ready, starts at once.

        Refused (False) while this domain is already in a pass: a nested pass would
        re-enter Algorithm 1; the asking job then holds or yields as configured. For a
        job not submitted yet, or wider than the free units, the answer is False
        without a pass: no pass could start it.
        """
        job = self._by_id.get(job_id)
        if job is None or self._busy or job.index not in self.submitted:
            # An unsubmitted mate cannot start in any pass: spare the iteration.
            return False
        if self.view.size(job) > self.view.free:
            # Nor can a mate wider than the free units (it holds none): no pass needed.
            return False
        self.counters["try_start"] += 1
        self._try_target = job_id
        try:
            self.extra_pass()
        finally:
            self._try_target = -1
        return self.status(job_id) is MateStatus.RUNNING

    def try_hold(self, job_id: int) -> bool:
        """Like :meth:`try_start`, but ``job_id``, if made ready, holds its units instead
        of starting (a job with mates on several machines starts only when all hold).

        The held job keeps its units until the whole group starts, or its release period
        ends; it holds whatever this domain's scheme, since starting it alone would break
        its group. True only if it holds now.
        """
        job = self._by_id.get(job_id)
        if job is None or self._busy or job.index not in self.submitted:
            return False
        if self.view.is_holding(job):
            return True
        if self.view.size(job) > self.view.free:
            return False
        self.counters["try_start"] += 1
        self._try_target = job_id
        self._try_hold = True
        try:
            self.extra_pass()
        finally:
            self._try_target = -1
            self._try_hold = False
        return self.status(job_id) is MateStatus.HOLDING

    def extra_pass(self) -> None:
        """One coscheduling pass now (ungated while it runs; the engine's own passes at
        event times stay gated)."""
        gated = self.gated
        self.gated = False
        try:
            self.sim.extra_pass()
        finally:
            self.gated = gated

    def start_holding(self, job_id: int) -> None:
        """Start a holding job now (its mate is starting)."""
        job = self._by_id.get(job_id)
        if job is None or not self.view.is_holding(job):
            raise CoupledError(
                f"domain {self.name!r} at t={self.view.now:g}: asked to start job {job_id}, "
                "which does not hold units"
            )
        self._start(job)

    # -- the coscheduling pass ------------------------------------------------------------

    def run_pass(self) -> None:
        """Periodic releases, fault checks, then local iterations with Algorithm 1."""
        if self._busy:
            return
        self._busy = True
        try:
            released = self._release_due()
            if self.recheck:
                # Only an outage change can orphan a holder: while the link is up, a
                # mate never starts without starting its holding partner.
                self.recheck = False
                self._start_orphans()
            self._yield_pass = self.release_yield and bool(released)
            try:
                self._iterate(released)
            finally:
                self._yield_pass = False
            for idx in released:
                self._rehold(idx)
        finally:
            self._busy = False

    def _iterate(self, released: list[int]) -> None:
        """Run the local policy until no ready job yields (each round hides more)."""
        view = self.view
        hidden = set(released)
        while True:
            self._epoch += 1
            holding = view.holding
            now = view.now
            est = view.estimates
            sizes = view.sizes
            extra = sorted((now + est[i], i, sizes[i]) for i in holding)
            pv = _PassView(view, hidden | holding, extra, -self._epoch)
            decisions = self.local.schedule(pv)  # type: ignore[arg-type]
            yielded = False
            for d in decisions:
                if type(d) is Start:
                    if self.run_job(d.job) is Outcome.YIELDED:
                        hidden.add(d.job.index)
                        yielded = True
                else:
                    self.sim.apply([d])
            if not yielded or view.free == 0:
                # Another iteration could start or hold nothing: every job needs a unit.
                return

    def run_job(self, job: Job) -> Outcome:
        """Algorithm 1 (RunJob) for a job the local policy made ready now."""
        idx = job.index
        if math.isnan(self._ready[idx]):
            self._ready[idx] = self.view.now
        mate = self._mate.get(idx)
        group = self._group.get(idx)
        if job.job_id == self._try_target and self._try_hold:
            return self._hold(job)  # a mate of a group asked: hold until all are ready
        if not self.enabled or (mate is None and group is None) or job.job_id == self._try_target:
            # No coscheduling, no mate, or the mate asked for this job and is ready.
            return self._start(job)
        peer = self.peer
        if group is not None:
            if len(group) > 1:
                return self._run_group(job, group)
            ((name, mate),) = group.items()
            peer = self.peers.get(name)
        k = None if peer is None else peer.mate_id(job.job_id, mate)  # type: ignore[arg-type]
        if peer is None or k is None:
            return self._start(job, alone=True)  # remote down: never wait (line 2)
        status = peer.mate_status(k)
        if status is MateStatus.HOLDING:
            self._start(job)
            peer.start_mate(k)
            return Outcome.STARTED
        if status in (MateStatus.QUEUING, MateStatus.UNSUBMITTED):
            if peer.try_start_mate(k):
                return self._start(job)
            return self._wait(job)
        # RUNNING or UNKNOWN: the mate started without us or failed; never wait.
        return self._start(job, alone=True)

    def _wait(self, job: Job) -> Outcome:
        """Hold or yield, by the scheme and the two thresholds."""
        idx = job.index
        size = self.view.size(job)
        # In a release pass with release_yield, no job takes released units to hold.
        hold = self.scheme == "hold" and not self._yield_pass
        capped = self.max_yields is not None and self._yields[idx] >= self.max_yields
        if not hold and not self._yield_pass and capped:
            hold = True
        if hold and self._held_units + size > self.max_hold_share * self.view.capacity:
            hold = False
        if not hold:
            self._yields[idx] += 1
            self.counters["yields"] += 1
            return Outcome.YIELDED
        return self._hold(job)

    def _run_group(self, job: Job, group: dict[str, int]) -> Outcome:
        """Algorithm 1 for a job with mates on several machines: all start together.

        Mates whose machine is down, or that are unknown there or already running, are
        dropped from the group (the job is then marked ``started_alone``: it did not
        start with all its mates); with none left the job starts alone. If every
        remaining mate holds, all start now. Otherwise each waiting mate is asked to
        hold (:meth:`try_hold`); if they all hold, all start; else this job holds or
        yields by its scheme, and the mates that hold keep holding for it.
        """
        live: dict[str, tuple[Peer, int]] = {}
        dropped = False
        for name, mate in group.items():
            peer = self.peers.get(name)
            k = None if peer is None else peer.mate_id(job.job_id, mate)
            if peer is None or k is None:
                dropped = True  # that machine is down: never wait for it (line 2)
                continue
            live[name] = (peer, k)
        waiting = []
        for name, (peer, k) in list(live.items()):
            status = peer.mate_status(k)
            if status is MateStatus.RUNNING or status is MateStatus.UNKNOWN:
                dropped = True
                del live[name]
            elif status is not MateStatus.HOLDING:
                waiting.append(name)
        if not live:
            return self._start(job, alone=True)
        for name in waiting:
            peer, k = live[name]
            if not peer.try_hold_mate(k):
                return self._wait(job)
        if waiting and any(p.mate_status(k) is not MateStatus.HOLDING for p, k in live.values()):
            return self._wait(job)  # a try-hold pass released an earlier holder
        self._start(job, alone=dropped)
        for peer, k in live.values():
            peer.start_mate(k)
        return Outcome.STARTED

    def _hold(self, job: Job) -> Outcome:
        """Take the job's units and keep them until its mates are ready."""
        idx = job.index
        size = self.view.size(job)
        now = self.view.now
        self.sim.apply([Hold(job)])
        self._held_units += size
        self._hold_since[idx] = now
        self._holds[idx] += 1
        self.counters["holds"] += 1
        period = self.release_period
        if period is not None:
            if self.release_clock == "machine":
                # The machine's next release instant (a hold taken at one waits for the next).
                self.sim.apply([WakeUp((math.floor(now / period) + 1) * period)])
            else:
                self.sim.apply([WakeUp(now + period)])
        return Outcome.HELD

    def _start(self, job: Job, *, alone: bool = False) -> Outcome:
        idx = job.index
        if self._hold_since.pop(idx, None) is not None:
            self._held_units -= self.view.size(job)
        if math.isnan(self._ready[idx]):
            self._ready[idx] = self.view.now
        if alone:
            self._alone[idx] = True
            self.counters["alone"] += 1
        self.sim.apply([Start(job)])
        return Outcome.STARTED

    def next_release(self) -> float:
        """When the next periodic release is due (inf: no hold, or release disabled)."""
        period = self.release_period
        if period is None or not self._hold_since:
            return math.inf
        first = min(self._hold_since.values())
        if self.release_clock == "machine":
            return (math.floor(first / period) + 1) * period
        return first + period

    def _release_due(self) -> list[int]:
        """Release the holds that are due (by ``release_clock``: every hold taken before
        the latest multiple of the period, or every hold older than the period); they
        come last this pass."""
        period = self.release_period
        if period is None or not self._hold_since:
            return []
        now = self.view.now
        if self.release_clock == "machine":
            tick = math.floor(now / period)
            due = sorted(i for i, t in self._hold_since.items() if math.floor(t / period) < tick)
        else:
            due = sorted(i for i, t in self._hold_since.items() if now - t >= period)
        for idx in due:
            job = self._jobs[idx]
            self.sim.apply([Release(job)])
            del self._hold_since[idx]
            self._held_units -= self.view.size(job)
            self.counters["releases"] += 1
        return due

    def _rehold(self, idx: int) -> None:
        """A released job holds again if its units are still free (section IV-E1)."""
        job = self._jobs[idx]
        view = self.view
        if self.status(job.job_id) is MateStatus.QUEUING and view.size(job) <= view.free:
            self.run_job(job)

    def _start_orphans(self) -> None:
        """Holding jobs whose mates can no longer come (remote down, mate gone) start
        alone. A job with mates on several machines keeps holding while one of them can
        still come (the group starts without the others, see :meth:`_run_group`)."""
        for idx in sorted(self._hold_since):
            job = self._jobs[idx]
            gone = 0
            mates = self.mates(idx)
            for name, mate in mates.items():
                peer = self.peers.get(name)
                k = None if peer is None else peer.mate_id(job.job_id, mate)
                if peer is None or k is None:
                    gone += 1
                    continue
                status = peer.mate_status(k)
                if status is MateStatus.UNKNOWN or status is MateStatus.RUNNING:
                    gone += 1
            if gone == len(mates):
                self._start(job, alone=True)

    # -- results --------------------------------------------------------------------------

    def finish(self) -> SimulationResult:
        """The engine's result with the coscheduling columns added to the job table.

        Added columns: ``coupled_mate`` (mate id or -1), ``ready_time`` (when the job
        was first ready), ``sync_time`` (start - ready), ``yields``, ``holds``,
        ``started_alone`` (a paired job that started without its mate), and
        ``held_time`` (0 when nothing held).
        """
        res = self.sim.finish()
        jobs = res.jobs.copy()
        n = len(jobs)
        mate = np.full(n, -1, dtype=np.int64)
        for idx, m in self._mate.items():
            mate[idx] = m
        jobs["coupled_mate"] = mate
        for col in _group_columns(self.workload):
            jobs[col] = self.workload.table[col].to_numpy(dtype=np.int64)
        jobs["ready_time"] = np.array(self._ready, dtype=float)
        jobs["sync_time"] = jobs["start_time"] - jobs["ready_time"]
        jobs["yields"] = np.array(self._yields, dtype=np.int64)
        jobs["holds"] = np.array(self._holds, dtype=np.int64)
        jobs["started_alone"] = np.array(self._alone, dtype=bool)
        if "held_time" not in jobs:
            jobs["held_time"] = 0.0
        stats = {**res.stats, **self.counters}
        return SimulationResult(
            jobs=jobs,
            platform=res.platform,
            policy=res.policy,
            params=res.params,
            workload=res.workload,
            stats=stats,
        )

    def waits(self) -> list[str]:
        """One line per holding job: what it holds and which mate it waits for."""
        view = self.view
        out = []
        for idx in sorted(self._hold_since):
            job = self._jobs[idx]
            mates = self.mates(idx)
            if len(mates) == 1:
                ((name, mate),) = mates.items()
                what = f"mate {mate} on {name}"
            else:
                what = "mates " + ", ".join(f"{m} on {n}" for n, m in mates.items())
            out.append(
                f"{self.name} job {job.job_id} holds {view.size(job)} units since "
                f"t={self._hold_since[idx]:g}, waiting for {what}"
            )
        return out

    def blocked(self, job_id: int) -> str:
        """Why a queued job cannot start now (for deadlock messages)."""
        job = self._by_id[job_id]
        view = self.view
        return (
            f"{self.name} job {job_id} ({self.status(job_id).value}) needs {view.size(job)} "
            f"units, {view.free} free"
        )


def _mates(workload: Workload) -> dict[int, int]:
    """Job index -> mate job id, for the jobs that have a mate."""
    t = workload.table
    if MATE_COLUMN not in t:
        return {}
    col = t[MATE_COLUMN].to_numpy()
    rows = np.flatnonzero(col >= 0)
    return dict(zip(rows.tolist(), col[rows].astype(np.int64).tolist(), strict=True))


def _group_columns(workload: Workload) -> list[str]:
    """The ``coupled_mate@NAME`` columns, sorted by name."""
    return sorted(c for c in workload.table.columns if str(c).startswith(GROUP_PREFIX))


def _group_mates(workload: Workload) -> dict[int, dict[str, int]]:
    """Job index -> {peer name: mate id} from the ``coupled_mate@NAME`` columns."""
    out: dict[int, dict[str, int]] = {}
    for col in _group_columns(workload):
        name = str(col)[len(GROUP_PREFIX) :]
        if not name:
            raise ConfigError(f"workload {workload.name!r}: mate column {col!r} names no peer")
        vals = workload.table[col].to_numpy()
        for idx in np.flatnonzero(vals >= 0).tolist():
            out.setdefault(idx, {})[name] = int(vals[idx])
    return out


def _check_settings(
    scheme: str, release_period: float | None, max_hold_share: float, max_yields: int | None
) -> None:
    if scheme not in ("hold", "yield"):
        raise ConfigError(f"scheme must be 'hold' or 'yield', got {scheme!r}")
    if release_period is not None and not (math.isfinite(release_period) and release_period > 0):
        raise ConfigError(f"release_period must be > 0 seconds or None, got {release_period!r}")
    if not (0.0 <= max_hold_share <= 1.0):
        raise ConfigError(f"max_hold_share must be in [0, 1], got {max_hold_share!r}")
    if max_yields is not None and (isinstance(max_yields, bool) or max_yields < 0):
        raise ConfigError(f"max_yields must be an integer >= 0 or None, got {max_yields!r}")


def job_table(results: Mapping[str, SimulationResult]) -> pd.DataFrame:
    """All domains' job tables stacked, with a ``domain`` column."""
    frames = [r.jobs.assign(domain=name) for name, r in results.items()]
    return pd.concat(frames, ignore_index=True)
