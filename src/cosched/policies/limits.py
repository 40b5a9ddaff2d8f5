"""Per-user running limits and fair-share usage: a site's policy in the baselines.

**Running limits** (:class:`UserLimits`) cap what one user holds at once: running jobs
(Slurm's ``MaxJobsPerUser`` on a QOS or ``MaxJobs`` on a user association; Maui's
``MAXJOB``) and running processors (Slurm's ``MaxTRESPerUser=cpu=N`` or a user
association's ``GrpTRES=cpu=N``; Maui's ``MAXPROC``). A queued job whose user would go
past a limit by starting is *not eligible*: the policy passes over it as if it were not
queued (Slurm leaves it pending with reason ``AssocMaxJobsLimit`` / ``AssocGrpCpuLimit``,
not ``Resources``, and goes on to the next job; Maui's throttling policies filter it
out of the jobs considered for scheduling). In particular
a limited job is never EASY's head and holds no reservation: the head is the first
*eligible* job that does not fit. A job with no user (SWF field 12 missing) is never
limited; a job asking on its own for more processors than the limit starts only when
its user holds none (where Slurm would leave it pending for ever). The limits count the
processors a job asked for (SWF field 8), whatever unit the machine allocates.

**Fair-share** (:class:`FairShare`) orders the queue as Slurm's multifactor priority
does with only its age and fair-share factors: a job's priority is

    ``age + weight * 2 ** (-U / S)``

where ``age = min(wait / max_age, 1)`` (Slurm's ``PriorityMaxAge``, 7 days), ``S = 1 /
users`` (equal shares among the users seen so far) and ``U`` is the user's share of the
decayed usage of all users. Usage is processor-seconds decayed with a half-life ``h``
(Slurm's ``PriorityDecayHalfLife``; Maui's ``FSDECAY`` per ``FSINTERVAL`` is the same
decay sampled per interval): a processor used at time ``s`` counts ``2 ** (-(t - s) /
h)`` at time ``t``, so a job of ``p`` processors that ran from ``a`` to ``b`` has
contributed ``p * h / ln 2 * (2 ** (-(t - b) / h) - 2 ** (-(t - a) / h))`` by ``t`` (a
running job: ``b = t``). Higher priority first; ties by submit order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from cosched.engine.view import SystemView
from cosched.errors import ConfigError
from cosched.policies.base import Policy, check_choice, check_range
from cosched.policies.orders import ORDERS, ordered
from cosched.workload.job import Job

__all__ = [
    "FAIRSHARE_MAX_AGE",
    "SITE_ORDERS",
    "FairShare",
    "SitePolicy",
    "SiteRules",
    "UserLimits",
    "check_limits",
    "decayed_usage",
]

#: The queue orders of the baselines that take the site's rules: the shared orders and
#: ``fairshare``.
SITE_ORDERS: tuple[str, ...] = (*ORDERS, "fairshare")

#: Slurm's default ``PriorityMaxAge`` (7 days): the wait at which the age factor is 1.
FAIRSHARE_MAX_AGE = 7 * 86400.0


def check_limits(policy: str, max_jobs: int | None, max_procs: int | None) -> None:
    """Raise a ConfigError naming the parameter unless each limit is None or >= 1."""
    if max_jobs is not None:
        check_range(policy, "max_jobs_per_user", max_jobs, low=1, integer=True)
    if max_procs is not None:
        check_range(policy, "max_procs_per_user", max_procs, low=1, integer=True)


@dataclass
class UserLimits:
    """What each user holds in one scheduling pass, against the limits.

    Built at the start of a pass from the running jobs (:meth:`of`); :meth:`allows`
    says whether a job may start, :meth:`take` counts a job the pass starts.
    """

    max_jobs: int | None
    max_procs: int | None
    jobs: dict[int, int] = field(default_factory=dict)
    procs: dict[int, int] = field(default_factory=dict)

    @classmethod
    def of(cls, view: SystemView, max_jobs: int | None, max_procs: int | None) -> UserLimits:
        out = cls(max_jobs, max_procs)
        for job in view.running:
            out.take(job)
        return out

    def allows(self, job: Job) -> bool:
        """Whether ``job``'s user stays within the limits if it starts."""
        u = job.user_id
        if u is None:
            return True
        if self.max_jobs is not None and self.jobs.get(u, 0) + 1 > self.max_jobs:
            return False
        if self.max_procs is None:
            return True
        held = self.procs.get(u, 0)
        # A job wider than the limit on its own starts when its user holds nothing
        # (Slurm would leave it pending for ever; a run must end).
        return held + job.procs <= self.max_procs or held == 0

    def take(self, job: Job) -> None:
        u = job.user_id
        if u is not None:
            self.jobs[u] = self.jobs.get(u, 0) + 1
            self.procs[u] = self.procs.get(u, 0) + job.procs


def decayed_usage(procs: float, start: float, end: float, now: float, half_life: float) -> float:
    """Processor-seconds of a job that ran from ``start`` to ``end`` on ``procs``
    processors, each second decayed by ``2 ** (-(now - s) / half_life)`` (see the
    module)."""
    lam = math.log(2.0) / half_life
    return procs / lam * (math.exp(-lam * (now - end)) - math.exp(-lam * (now - start)))


@dataclass
class FairShare:
    """Decayed usage per user and the fair-share order of the queue (see the module).

    Finished jobs' usage is kept in one array (a slot per user), every value decayed to
    the same instant, so one multiplication brings them all to the next one; running
    jobs' usage is added at each pass.
    """

    half_life: float
    weight: float
    max_age: float = FAIRSHARE_MAX_AGE
    _slot: dict[int, int] = field(default_factory=dict)
    _done: np.ndarray = field(default_factory=lambda: np.zeros(0))
    _at: float = 0.0
    _users: set[int] = field(default_factory=set)
    _job_slot: np.ndarray | None = None
    # The running jobs' usage in closed form, rebuilt when the running set changes
    # (:meth:`_running_at`): per slot, processors and processors x 2**(-(ref - start)/h).
    _run_key: tuple[int, int, int] = (-1, -1, -1)
    _ended: int = 0  # jobs finished so far (every one, with a user or not)
    _run_procs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    _run_decayed: np.ndarray = field(default_factory=lambda: np.zeros(0))
    _run_ref: float = 0.0

    def submitted(self, job: Job) -> None:
        if job.user_id is not None:
            self._users.add(job.user_id)

    def _slot_of(self, user: int) -> int:
        slot = self._slot.get(user)
        if slot is None:
            slot = self._slot[user] = len(self._slot)
            if slot >= self._done.shape[0]:
                grown = np.zeros(max(16, 2 * self._done.shape[0]))
                grown[: self._done.shape[0]] = self._done
                self._done = grown
        return slot

    def _decay_to(self, now: float) -> None:
        if now != self._at:
            self._done *= 2.0 ** (-(now - self._at) / self.half_life)
            self._at = now

    def finished(self, job: Job, start: float, now: float) -> None:
        """Charge a job that ran from ``start`` to ``now``."""
        self._ended += 1
        if job.user_id is None:
            return
        slot = self._slot_of(job.user_id)
        self._decay_to(now)
        self._done[slot] += decayed_usage(job.procs, start, now, now, self.half_life)

    def _values_at(self, running: Iterable[tuple[Job, float]], now: float) -> np.ndarray:
        """Each slot's decayed usage at ``now`` (a new array)."""
        self._decay_to(now)
        out = self._done.copy()
        for job, start in running:
            if job.user_id is not None:
                slot = self._slot_of(job.user_id)
                if slot >= out.shape[0]:
                    out = np.concatenate([out, np.zeros(self._done.shape[0] - out.shape[0])])
                out[slot] += decayed_usage(job.procs, start, now, now, self.half_life)
        return out

    def usage(self, running: Iterable[tuple[Job, float]], now: float) -> dict[int, float]:
        """Each user's decayed usage at ``now`` (users with some); ``running`` gives
        ``(job, start)``."""
        values = self._values_at(running, now)
        return {u: float(values[k]) for u, k in self._slot.items() if values[k] > 0}

    def priorities(
        self, queue: Iterable[Job], usage: dict[int, float], now: float
    ) -> list[tuple[float, Job]]:
        """``(priority, job)`` of each queued job (see the module's formula)."""
        jobs = list(queue)
        total = sum(usage.values())
        wait = np.array([now - j.submit_time for j in jobs], dtype=np.float64)
        norm = np.array(
            [usage.get(j.user_id, 0.0) / total if total > 0 and j.user_id is not None else 0.0
             for j in jobs], dtype=np.float64,
        )  # fmt: skip
        return list(zip(self._values(wait, norm).tolist(), jobs, strict=True))

    def _values(self, wait: np.ndarray, norm: np.ndarray) -> Any:
        """The priorities of jobs that waited ``wait`` whose users hold ``norm`` of all
        usage, vectorised."""
        age = np.minimum(wait / self.max_age, 1.0)
        share = 1.0 / max(len(self._users), 1)
        # 2 ** x one at a time, as the compiled pass computes it (numpy's vectorised
        # exp2 may round differently)
        factor = np.array([2.0**x for x in (-norm / share).tolist()], dtype=np.float64)
        return age + self.weight * factor

    def ordered(self, view: SystemView) -> Iterator[Job]:
        """The queue, highest fair-share priority first, ties by submit order."""
        now = view.now
        slots = self._job_slots(view)
        self._decay_to(now)
        values = self._done + self._running_at(view, slots, now)
        total = 0.0  # summed in slot order, as the compiled pass sums it
        for v in values.tolist():
            total += v
        queue = view.queue_indices()
        wait = now - np.asarray(view.columns.submit)[queue]
        slot = slots[queue]
        norm = np.zeros(queue.shape[0])
        if total > 0:
            norm = np.where(slot >= 0, values[np.maximum(slot, 0)] / total, 0.0)
        pri = self._values(wait, norm)
        job = view.job
        return (job(i) for i in queue[np.argsort(-pri, kind="stable")].tolist())

    def _running_at(self, view: SystemView, slots: np.ndarray, now: float) -> np.ndarray:
        """Each slot's usage by its running jobs at ``now``: a job of ``p`` processors
        started at ``a`` has used ``p / lam * (1 - exp(-lam * (now - a)))`` (``lam = ln 2
        / h``), which is ``(P - exp(-lam * (now - ref)) * D) / lam`` summed per slot with
        ``P = sum p`` and ``D = sum p * exp(-lam * (ref - a))``, kept until a job starts
        or ends (the jobs finished and started so far; the compiled pass keeps the same
        sums over the same running set, ``cosched.policies.easy``)."""
        lam = math.log(2.0) / self.half_life
        key = (self._ended, view.started_count, self._done.shape[0])
        if key != self._run_key:
            procs = np.zeros(self._done.shape[0])
            decayed = np.zeros(self._done.shape[0])
            for job in view.running:
                slot = int(slots[job.index])
                if slot >= 0:
                    procs[slot] += job.procs
                    decayed[slot] += job.procs * math.exp(-lam * (now - view.start_time(job)))
            self._run_key, self._run_ref = key, now
            self._run_procs, self._run_decayed = procs, decayed
        return (self._run_procs - math.exp(-lam * (now - self._run_ref)) * self._run_decayed) / lam

    def _job_slots(self, view: SystemView) -> np.ndarray:
        """Each job's user slot (-1: no user), built once per workload."""
        jobs = view.jobs
        if self._job_slot is None or self._job_slot.shape[0] != len(jobs):
            self._job_slot = np.array(
                [-1 if j.user_id is None else self._slot_of(j.user_id) for j in jobs],
                dtype=np.int64,
            )
        return self._job_slot


@dataclass
class SiteRules:
    """A baseline policy's site rules: its user limits and, with ``order=fairshare``,
    its fair-share usage. Inactive (``active`` False) when neither is asked for, so the
    policy runs its own pass unchanged."""

    policy: str
    max_jobs: int | None
    max_procs: int | None
    fairshare: FairShare | None
    # What each user holds, counted once per running set (the view's epoch and started
    # count): a pass copies it rather than walking the running jobs again.
    _held_key: tuple[int, int] = (-1, -1)
    _held: UserLimits | None = None

    @classmethod
    def of(cls, policy: Any) -> SiteRules:
        """The rules of a policy with ``max_jobs_per_user`` and ``max_procs_per_user``
        fields and, if it offers the fairshare order, ``fairshare_half_life`` and
        ``fairshare_weight``, checked (errors name the parameter)."""
        name = policy.name
        check_limits(name, policy.max_jobs_per_user, policy.max_procs_per_user)
        # A policy without the fair-share order (conservative) has no such fields.
        h = getattr(policy, "fairshare_half_life", FAIRSHARE_MAX_AGE)
        w = getattr(policy, "fairshare_weight", 1.0)
        check_range(name, "fairshare_weight", w, low=0)
        check_range(name, "fairshare_half_life", h, low=0)
        if not h > 0 or not math.isfinite(h):
            raise ConfigError(
                f"policy {name!r} parameter 'fairshare_half_life' must be a number > 0 "
                f"and finite, got {h!r}"
            )
        fs = FairShare(float(h), float(w)) if policy.order == "fairshare" else None
        return cls(name, policy.max_jobs_per_user, policy.max_procs_per_user, fs)

    @property
    def limited(self) -> bool:
        return self.max_jobs is not None or self.max_procs is not None

    @property
    def active(self) -> bool:
        return self.limited or self.fairshare is not None

    def queue(self, view: SystemView, order: str, aging_time: float | None) -> Iterable[Job]:
        """The queue in ``order`` (``fairshare`` included)."""
        if self.fairshare is not None:
            return self.fairshare.ordered(view)
        return view.queue if order == "submit" else ordered(view, order, aging_time)

    def holding(self, view: SystemView) -> UserLimits:
        """What each user holds now, against the limits."""
        if not self.limited:
            return UserLimits(None, None)
        key = (view.epoch, view.started_count)
        if self._held is None or key != self._held_key:
            self._held = UserLimits.of(view, self.max_jobs, self.max_procs)
            self._held_key = key
        held = self._held
        return UserLimits(self.max_jobs, self.max_procs, dict(held.jobs), dict(held.procs))

    def submitted(self, job: Job) -> None:
        if self.fairshare is not None:
            self.fairshare.submitted(job)

    def finished(self, job: Job, view: SystemView) -> None:
        if self.fairshare is not None:
            self.fairshare.finished(job, view.start_time(job), view.now)

    def notes(self) -> list[str]:
        """The assumptions in force for a policy whose compiled pass does not take the
        rules (conservative's: the general loop runs them; FCFS's and EASY's pass does)."""
        if not self.active:
            return []
        what = "user limits" if self.limited else ""
        if self.fairshare is not None:
            what = f"{what} and fair-share" if what else "fair-share"
        return [f"{self.policy}: {what} run on the general (Python) loop, not the compiled pass"]


@dataclass(kw_only=True)
class SitePolicy(Policy):
    """A baseline that takes the site's rules: the queue orders of :data:`SITE_ORDERS`,
    user running limits and fair-share (the fields :meth:`SiteRules.of` reads), kept
    in :attr:`_site` as jobs arrive and end.

    Attributes:
        order: queue order (submit, sjf, wfp, priority, queue, fairshare).
        aging_time: aging period in seconds for the priority order (None: mean wait).
        max_jobs_per_user: most jobs one user runs at once (None: no limit).
        max_procs_per_user: most processors one user's running jobs hold (None: no limit).
        fairshare_half_life: half-life in seconds of the usage the fairshare order decays.
        fairshare_weight: weight of the fair-share factor against the age factor.
    """

    order: Literal["submit", "sjf", "wfp", "priority", "queue", "fairshare"] = "submit"
    aging_time: float | None = None
    max_jobs_per_user: int | None = None
    max_procs_per_user: int | None = None
    fairshare_half_life: float = 7 * 86400.0
    fairshare_weight: float = 1.0
    _site: SiteRules = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_choice(self.name, "order", self.order, SITE_ORDERS)
        self._site = SiteRules.of(self)

    def on_submit(self, job: Job, view: SystemView) -> None:
        self._site.submitted(job)

    def on_finish(self, job: Job, view: SystemView) -> None:
        self._site.finished(job, view)
