"""Coscheduling decisions for an agent: which job next, and whether it may share nodes.

On the node-sharing family's machine (whole nodes of C cores, at most three jobs a
node, :mod:`cosched.nodeshare`), the agent picks one of the first K queued jobs and a
*mode*: action ``2 * slot + mode`` with

* mode 0, ``alone``: the job's base configuration ``(n x C)`` on ``n`` empty nodes;
* mode 1, ``shared``: the family's placement, Algorithm 1's modified best fit over all
  the job's malleable configurations on empty or partly occupied nodes, beside running
  jobs (the configuration and nodes with the smallest run-time factor).

The family's interference model then sets every running job's progress rate as its
co-runners change (:class:`~cosched.nodeshare.policies.Coscheduling`'s rate model; a job
placed alone may later be joined by one placed ``shared``). A chosen job that cannot be
placed in its mode waits, committed to the mode, until it can (``commit="head"``), or
the choice lapses at the next event (``commit="event"``), as in the batch environment;
there is no backfilling.

The observation adds to the batch one's job features the placements' outcomes and the
job's node-sharing profile (:data:`SHARE_FEATURES`), and describes the machine by its
empty nodes and free cores. :class:`LearnedNodeShare` (``learned-nodeshare``) runs an
agent as a policy with these rules; ``cosched/NodeShare-v0`` drives it step by step.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from cosched.engine.decisions import Decision
from cosched.engine.simulation import RateModel
from cosched.engine.view import SystemView
from cosched.errors import ConfigError
from cosched.gym.agents import fcfs
from cosched.gym.observation import TIME_SCALE, Encoding, user_hash
from cosched.gym.policy import Agent, AgentLoop
from cosched.gym.rules import COMMITS
from cosched.nodeshare.interference import DEFAULT_PRESET
from cosched.nodeshare.placement import Plan
from cosched.nodeshare.policies import NODESHARE_REQUIRES, Coscheduling
from cosched.platform import Platform
from cosched.policies.base import Policy, check_choice
from cosched.workload.job import Job

__all__ = [
    "MODES",
    "SHARE_FEATURES",
    "LearnedNodeShare",
    "ShareDecider",
    "fcfs_alone",
    "fcfs_shared",
    "in_mode",
    "shared_unless_slower",
]

#: The placement modes, by their number in an action.
MODES: tuple[str, ...] = ("alone", "shared")

#: The columns of the ``jobs`` array: the batch environment's six (``fits`` becomes
#: ``fits_alone``), then whether the ``shared`` placement exists now and its run-time
#: factor (0 when it does not), and the job's profile: memory sensitivity class / 2
#: (low 0, moderate 0.5, high 1), communication fraction and penalty, degradation per
#: halving of its cores.
SHARE_FEATURES: tuple[str, ...] = (
    "size",
    "estimate",
    "wait",
    "user",
    "submit",
    "fits_alone",
    "fits_shared",
    "shared_factor",
    "sensitivity",
    "comm_fraction",
    "comm_penalty",
    "degradation",
)


class ShareDecider:
    """One instant's coscheduling decisions, one agent choice at a time (the protocol of
    :class:`~cosched.gym.rules.BatchDecider`).

    Args:
        placer: the family's policy whose node book, placement and rate model are used.
        encoding: K, R and the time scale.
        commit: ``head`` or ``event``.
    """

    def __init__(self, placer: Coscheduling, encoding: Encoding, commit: str) -> None:
        if commit not in COMMITS:
            raise ConfigError(f"commit must be one of {', '.join(COMMITS)}, got {commit!r}")
        self.placer = placer
        self.encoding = encoding
        self.commit = commit
        self.head: tuple[Job, int] | None = None
        self.asking = False
        self.history: list[tuple[float, float, float]] = []
        self._pending: list[Decision] = []
        self._started: set[int] = set()
        self._ends: list[tuple[float, int, int]] = []  # the instant's starts, by end
        self._visible: list[Job] = []

    @property
    def pending(self) -> bool:
        """Whether the instant has decisions not yet handed to the engine."""
        return bool(self._pending)

    def open(self, view: SystemView) -> None:
        """The start of the pass at a new instant: the head is placed in its mode if it
        can be, else it waits; the agent is asked when no head waits and jobs are queued."""
        self._pending, self._started, self._ends = [], set(), []
        if self.commit == "event":
            self.head = None
        if self.head is not None:
            job, mode = self.head
            plan = self._place(view, job, mode)
            if plan is None:
                self.asking = False
                return
            self._start(view, job, plan)
            self.head = None
        self.asking = len(view.queue) > len(self._started)

    def observe(self, view: SystemView) -> dict[str, np.ndarray]:
        """The observation of the current decision."""
        k = self.encoding.slots
        self._visible = visible = self._queued(view)
        jobs = np.zeros((k, len(SHARE_FEATURES)), dtype=np.float32)
        book = self.placer.book_for(view)
        empty = len(book.empty_nodes())
        scale, nodes = self.encoding.time_scale, float(book.nodes)
        for i, job in enumerate(visible):
            s, configs, coeffs = self.placer._job_info(job, view, book)[:3]
            shared = book.best(s, configs, coeffs) if configs else None
            prof = job.extra
            jobs[i] = (
                view.sizes[job.index] / nodes,
                view.estimates[job.index] / scale,
                (view.now - job.submit_time) / scale,
                user_hash(job.user_id),
                max(job.submit_time, 0.0) / scale,
                1.0 if _base(configs) is not None and view.sizes[job.index] <= empty else 0.0,
                0.0 if shared is None else 1.0,
                0.0 if shared is None else shared.factor,
                s / 2,
                float(prof["ns_comm_fraction"]),
                float(prof["ns_comm_penalty"]),
                float(prof["ns_degradation"]),
            )
        mask = np.zeros(2 * k, dtype=np.int8)
        mask[: 2 * len(visible)] = 1
        return {
            "jobs": jobs,
            "machine": self._machine(view, empty),
            "action_mask": mask,
            "scales": np.array([nodes, scale], dtype=np.float32),
        }

    def act(self, view: SystemView, action: int) -> None:
        """Carry out action ``2 * slot + mode`` (one the last observation's mask allows)."""
        job, mode = self._visible[action // 2], action % 2
        plan = self._place(view, job, mode)
        if plan is None:
            self.head = (job, mode)
            self.asking = False
            return
        self._start(view, job, plan)
        self.asking = len(view.queue) > len(self._started)

    def wait(self) -> None:
        """End the instant's decisions without a choice."""
        self.asking = False

    def take(self) -> list[Decision]:
        """The decisions made since the last call, for the engine."""
        out, self._pending = self._pending, []
        return out

    def __getstate__(self) -> dict[str, object]:
        # The instant's records hold job records, which do not pickle (nor need to).
        return {**self.__dict__, "_visible": [], "_pending": []}

    def _queued(self, view: SystemView) -> list[Job]:
        started, k = self._started, self.encoding.slots
        fresh = (job for job in view.queue if job.index not in started)
        return list(itertools.islice(fresh, k))

    def _place(self, view: SystemView, job: Job, mode: int) -> Plan | None:
        """Where ``job`` would run now in ``mode`` (None: it cannot be placed)."""
        placer = self.placer
        book = placer.book_for(view)
        s, configs, coeffs = placer._job_info(job, view, book)[:3]
        if mode == 1:
            return book.best(s, configs, coeffs) if configs else None
        k = _base(configs)
        if k is None:
            return None
        cfg = configs[k]
        empty = book.empty_nodes()
        if len(empty) < cfg.nodes:
            return None
        a, b = coeffs[k]
        # No co-runner: the family's factor a * (1 + victim * 0) + b.
        return Plan(cfg, tuple(empty[: cfg.nodes]), a * (1.0 + 0.0) + b, (a, b))

    def _start(self, view: SystemView, job: Job, plan: Plan) -> None:
        self._pending.append(self.placer.commit(job, plan))
        self._started.add(job.index)
        self.history.append((job.submit_time, job.run_time, view.now))
        end = view.now + view.estimates[job.index] * plan.factor
        bisect.insort(self._ends, (end, job.index, len(plan.nodes)))

    def _machine(self, view: SystemView, empty: int) -> np.ndarray:
        r = self.encoding.releases
        out = np.zeros(2 + 2 * r, dtype=np.float32)
        book = self.placer.book_for(view)
        nodes, scale, now = float(book.nodes), self.encoding.time_scale, view.now
        out[0] = empty / nodes
        out[1] = book.usable_free / (nodes * book.cores)
        running = ((end, i, len(view.placement(view.job(i)))) for end, i, _ in view.releases())
        for n, (end, _, held) in enumerate(itertools.islice(heapq.merge(running, self._ends), r)):
            out[2 + 2 * n] = max(end - now, 0.0) / scale
            out[3 + 2 * n] = held / nodes
        return out


def _base(configs: Sequence[object]) -> int | None:
    """The position of the base configuration ``(n x C)`` in ``configs`` (None: none)."""
    for k, c in enumerate(configs):
        if getattr(c, "node_ratio", None) == 1 and getattr(c, "fraction", None) == 1:
            return k
    return None


@dataclass(kw_only=True)
class LearnedNodeShare(AgentLoop[ShareDecider], Policy):
    """An agent choosing the next job and whether it may share nodes (node sharing).

    Attributes:
        agent: ``package.module:function`` or ``path/to/file.py:function``: the
            observation to an action ``2 * slot + mode`` (mode 0 alone, 1 shared).
        slots: K, the queued jobs the agent chooses among.
        releases: R, the running jobs the observation shows.
        time_scale: seconds per unit of the observation's time features.
        commit: ``head`` or ``event``, as for ``learned``.
        restriction, degraded, rates, interference: the node-sharing family's, as for
            ``nodeshare``.
    """

    name = "learned-nodeshare"
    family = "nodeshare"
    requires = NODESHARE_REQUIRES
    idle_passes = False
    agent: str = "cosched.gym.share:fcfs_shared"
    slots: int = 32
    releases: int = 16
    time_scale: float = TIME_SCALE
    commit: Literal["head", "event"] = "head"
    restriction: Literal["No_Restrict", "Max_One_High", "High_Rq_Low", "Max_One_HM"] = "No_Restrict"
    degraded: bool = True
    rates: Literal["dynamic", "at-start"] = "dynamic"
    interference: Literal["fig3", "prior"] = DEFAULT_PRESET  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self._check_slots()
        check_choice(self.name, "commit", self.commit, COMMITS)
        try:
            encoding = Encoding(self.slots, self.releases, self.time_scale)
            placer = Coscheduling(
                restriction=self.restriction,
                degraded=self.degraded,
                rates=self.rates,
                interference=self.interference,
            )
        except ConfigError as exc:
            raise ConfigError(f"policy {self.name!r}: {exc}") from None
        self._decider = ShareDecider(placer, encoding, self.commit)
        self._fn = self._resolve()

    def params(self) -> dict[str, object]:
        return self._agent_params(super().params())

    def check_platform(self, platform: Platform) -> None:
        self.decider.placer.check_platform(platform)

    def rate_model(self) -> _HeldRates:
        return _HeldRates(self.decider, self.decider.placer.rate_model())

    def on_finish(self, job: Job, view: SystemView) -> None:
        self.decider.placer.on_finish(job, view)

    def assumptions(self) -> list[str]:
        return self.decider.placer.assumptions()

    def schedule(self, view: SystemView) -> Sequence[Decision]:
        return self._pass(view)


class _HeldRates:
    """The family's rate model, held while an environment holds the instant's starts.

    Driven by an environment, a pass can end with starts decided (the family's book
    already holds them) that the engine has not made yet; the family's rates then wait
    for them, and are computed when the environment hands them over, as they are at
    the end of the policy's own pass.
    """

    def __init__(self, decider: ShareDecider, rates: RateModel) -> None:
        self.decider = decider
        self.rates = rates

    def update(
        self, view: SystemView, started: Sequence[Job], finished: Sequence[Job]
    ) -> Mapping[int, float]:
        if self.decider.pending:
            return {}
        return self.rates.update(view, started, finished)


# -- heuristic agents for the coscheduling observation ---------------------------------


def in_mode(agent: Agent, mode: int) -> Agent:
    """A batch agent (:mod:`cosched.gym.agents`) choosing the job, always in ``mode``."""

    def act(obs: Mapping[str, np.ndarray]) -> int:
        sub = {
            "jobs": obs["jobs"][:, :6],
            "action_mask": obs["action_mask"][mode::2],
            "scales": obs["scales"],
        }
        return 2 * int(agent(sub)) + mode

    return act


def fcfs_alone(obs: dict[str, np.ndarray]) -> int:
    """The earliest submitted job, alone on empty nodes."""
    return 2 * fcfs(_slots(obs))


def fcfs_shared(obs: dict[str, np.ndarray]) -> int:
    """The earliest submitted job, placed by the family's best fit (``nodeshare``)."""
    return 2 * fcfs(_slots(obs)) + 1


def shared_unless_slower(obs: dict[str, np.ndarray]) -> int:
    """The earliest submitted job; shared when that placement exists now and runs no
    slower than its base configuration alone (factor <= 1), else alone."""
    slot = fcfs(_slots(obs))
    row = obs["jobs"][slot]
    return 2 * slot + int(row[6] == 1.0 and row[7] <= 1.0)


def _slots(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"action_mask": obs["action_mask"][0::2]}
