"""The decision rules shared by the batch environment and :class:`LearnedPolicy`.

At each decision the agent picks one of the first K queued jobs (submit order). What
happens to the chosen job, and what the scheduler does on its own around it, is fixed
here once, so that an agent trained in the environment schedules the same way when
``cosched run --policy learned`` evaluates it:

* a chosen job that fits the free units starts now, and the agent is asked again at
  the same instant while jobs are queued;
* a chosen job that does not fit becomes the *head*. With ``commit="head"`` it waits
  until it fits and starts then, before the agent is asked anything (the semantics of
  RLScheduler's SchedGym); with ``commit="event"`` the choice lapses at the next
  instant at which anything happens, and the agent chooses again;
* with ``backfill="easy"``, whenever a head waits, queued jobs start behind it by EASY's
  rule (one reservation for the head at its shadow time, :mod:`cosched.policies.easy`),
  in submit order over the whole queue;
* with ``backfill="rlscheduler"``, by RLScheduler's greedy rule instead (its
  ``HPCSimPickJobs.py``, ``moveforward_for_resources_backfill_greedy``): the head's
  shadow time is computed once, when the head starts waiting, from the running jobs'
  start plus requested time; at each instant while the head waits the whole queue is
  scanned in submit order and a job starts if it fits the free units and ``now`` plus
  its requested time is strictly before that shadow time (no extra-units rule).

A :class:`Pass` holds the starts of one scheduling pass that the engine has not yet
carried out, so that the rules (and the observation) see the machine as those starts
leave it.
"""

from __future__ import annotations

import bisect
import heapq
import math
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from cosched.engine.decisions import Decision, Start
from cosched.engine.view import SystemView
from cosched.errors import ConfigError
from cosched.policies.easy import shadow_time
from cosched.policies.reservation import Reservation
from cosched.workload.job import Job

if TYPE_CHECKING:
    from cosched.gym.observation import Encoding

__all__ = [
    "BACKFILLS",
    "COMMITS",
    "Backfill",
    "BatchDecider",
    "Commit",
    "Pass",
    "Rules",
    "requested_shadow",
]

Commit = Literal["head", "event"]
Backfill = Literal["none", "easy", "rlscheduler"]
COMMITS: tuple[str, ...] = get_args(Commit)
BACKFILLS: tuple[str, ...] = get_args(Backfill)


class Pass:
    """The starts of one scheduling pass, not yet carried out by the engine.

    Attributes:
        free: units free once these starts are made.
        started: the jobs started, in decision order.
        ends: ``(estimated_end, index, size)`` of those jobs, sorted.
    """

    __slots__ = ("ends", "free", "indices", "started")

    def __init__(self, view: SystemView) -> None:
        self.free = view.free
        self.started: list[Job] = []
        self.indices: set[int] = set()
        self.ends: list[tuple[float, int, int]] = []

    def start(self, view: SystemView, job: Job) -> None:
        """Record that ``job`` starts now."""
        size = view.sizes[job.index]
        self.free -= size
        self.started.append(job)
        self.indices.add(job.index)
        bisect.insort(self.ends, (view.now + view.estimates[job.index], job.index, size))


class Rules:
    """What the scheduler does around the agent's choices (see the module docstring).

    Args:
        slots: how many queued jobs the agent chooses among (K).
        commit: ``head`` or ``event``.
        backfill: ``none``, ``easy`` or ``rlscheduler``.

    Attributes:
        head: the chosen job waiting to fit (None: none waits).
        shadow: the head's shadow time under ``backfill="rlscheduler"``, fixed when the
            head starts waiting.
        asking: whether the agent must choose before the pass can end.
    """

    __slots__ = ("asking", "backfill", "commit", "head", "shadow", "slots")

    def __init__(self, *, slots: int, commit: str, backfill: str) -> None:
        check_rules(slots, commit, backfill)
        self.slots = slots
        self.commit = commit
        self.backfill = backfill
        self.head: Job | None = None
        self.shadow = math.inf
        self.asking = False

    def open(self, view: SystemView) -> Pass:
        """The start of the pass at a new instant: the head starts if it fits now, else
        it waits (and jobs are backfilled behind it); the agent is asked when no head
        waits and jobs are queued."""
        p = Pass(view)
        if self.commit == "event":
            self.head = None
        head = self.head
        if head is not None:
            if view.sizes[head.index] > p.free:
                self._backfill(view, p, head)
                self.asking = False
                return p
            p.start(view, head)
            self.head = None
        self.asking = len(view.queue) > len(p.indices)
        return p

    def visible(self, view: SystemView, p: Pass) -> list[Job]:
        """The jobs the agent chooses among: the first K queued ones not started in ``p``."""
        out: list[Job] = []
        started, k = p.indices, self.slots
        for job in view.queue:
            if job.index not in started:
                out.append(job)
                if len(out) == k:
                    break
        return out

    def choose(self, view: SystemView, p: Pass, job: Job) -> None:
        """Carry out the agent's choice of ``job`` (a visible job) in ``p``."""
        if view.sizes[job.index] <= p.free:
            p.start(view, job)
            self.asking = len(view.queue) > len(p.indices)
            return
        self.head = job
        if self.backfill == "rlscheduler":
            self.shadow = requested_shadow(view, view.sizes[job.index], p)
        self._backfill(view, p, job)
        self.asking = False

    def wait(self) -> None:
        """End the pass without a choice (the environment's out-of-mask action)."""
        self.asking = False

    def _backfill(self, view: SystemView, p: Pass, head: Job) -> None:
        """Backfilling behind ``head``, over the whole queue in submit order."""
        if self.backfill == "rlscheduler":
            self._greedy(view, p, head)
        if self.backfill != "easy":
            return
        sizes, est, now = view.sizes, view.estimates, view.now
        shadow, extra = shadow_time(view, sizes[head.index], p.free, p.ends)
        res = Reservation(shadow, extra)
        for job in list(view.queue):
            i = job.index
            if i == head.index or i in p.indices:
                continue
            if sizes[i] <= p.free and res.admit(now + est[i], sizes[i]):
                p.start(view, job)

    def _greedy(self, view: SystemView, p: Pass, head: Job) -> None:
        """RLScheduler's rule: a job that fits starts if it ends strictly before the
        shadow time fixed when the head started waiting."""
        sizes, est, now, shadow = view.sizes, view.estimates, view.now, self.shadow
        for job in list(view.queue):
            i = job.index
            if i == head.index or i in p.indices:
                continue
            if sizes[i] <= p.free and now + est[i] < shadow:
                p.start(view, job)


def requested_shadow(view: SystemView, need: int, p: Pass) -> float:
    """When ``need`` units are free if running jobs end at their start plus requested
    time, RLScheduler's way: ends in the past are taken as they are (never ``now``), so
    behind a job that overran its request nothing can be backfilled."""
    free, shadow = p.free, view.now
    for end, _, size in heapq.merge(view.releases(), p.ends):
        free += size
        shadow = end
        if free >= need:
            break
    return shadow


def check_rules(slots: object, commit: object, backfill: object) -> None:
    """Raise a ConfigError naming the option that is invalid."""
    if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
        raise ConfigError(f"slots must be an integer >= 1, got {slots!r}")
    if commit not in COMMITS:
        raise ConfigError(f"commit must be one of {', '.join(COMMITS)}, got {commit!r}")
    if backfill not in BACKFILLS:
        raise ConfigError(f"backfill must be one of {', '.join(BACKFILLS)}, got {backfill!r}")


class BatchDecider:
    """One instant's decisions on a batch machine, one agent choice at a time.

    Used in the same way by the ``learned`` policy (inside one scheduling pass) and by
    the environment (across steps, the engine waiting at the instant): :meth:`open` at
    each instant, then while :attr:`asking`, :meth:`observe` and :meth:`act`; the
    decisions of the instant are handed to the engine by :meth:`take`.

    Attributes:
        history: ``(submit time, run time, start time)`` of every job started so far,
            in decision order.
    """

    def __init__(self, rules: Rules, encoding: Encoding) -> None:
        self.rules = rules
        self.encoding = encoding
        self.history: list[tuple[float, float, float]] = []
        self._p: Pass | None = None
        self._visible: list[Job] = []
        self._taken = 0

    @property
    def asking(self) -> bool:
        """Whether the agent must choose before the instant's decisions are complete."""
        return self.rules.asking

    @property
    def pending(self) -> bool:
        """Whether the instant has decisions not yet handed to the engine."""
        return self._p is not None and len(self._p.started) > self._taken

    def open(self, view: SystemView) -> None:
        """The start of the pass at a new instant (:meth:`Rules.open`)."""
        self._p = self.rules.open(view)
        self._taken = 0
        self._log(view, 0)

    def observe(self, view: SystemView) -> dict[str, np.ndarray]:
        """The observation of the current decision."""
        assert self._p is not None
        self._visible = self.rules.visible(view, self._p)
        return self.encoding.encode(view, self._p, self._visible)

    def act(self, view: SystemView, action: int) -> None:
        """Carry out the choice of slot ``action`` (a slot of the last observation that
        holds a job)."""
        assert self._p is not None
        seen = len(self._p.started)
        self.rules.choose(view, self._p, self._visible[action])
        self._log(view, seen)

    def wait(self) -> None:
        """End the instant's decisions without a choice."""
        self.rules.wait()

    def take(self) -> list[Decision]:
        """The decisions made since the last call, for the engine."""
        assert self._p is not None
        new = self._p.started[self._taken :]
        self._taken = len(self._p.started)
        return [Start(job) for job in new]

    def _log(self, view: SystemView, seen: int) -> None:
        assert self._p is not None
        now = view.now
        self.history += [(j.submit_time, j.run_time, now) for j in self._p.started[seen:]]

    def __getstate__(self) -> dict[str, object]:
        # The instant's pass holds job records, which do not pickle (nor need to).
        return {**self.__dict__, "_p": None, "_visible": []}
