"""``learned``: any agent (observation -> action) run as a cosched policy.

The agent sees what it sees in the batch environment (:mod:`cosched.gym.observation`)
and its choices are carried out by the same rules (:mod:`cosched.gym.rules`), so an
agent trained in ``cosched/Batch-v0`` is evaluated by ``cosched run``, ``sweep`` and
``compare`` on whole traces exactly as it acted in training::

    cosched run trace.swf --policy learned -P agent=my_agents:act -P slots=64

The agent is named ``package.module:function`` or ``path/to/file.py:function`` (or,
in Python, given as a callable). Neither this module nor the agents need gymnasium.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

import numpy as np

from cosched.engine.decisions import Decision
from cosched.engine.view import SystemView
from cosched.errors import ConfigError, PolicyDecisionError
from cosched.gym.observation import TIME_SCALE, Encoding
from cosched.gym.rules import BACKFILLS, Backfill, BatchDecider, Rules
from cosched.policies.base import Policy, check_choice, check_range, load_module

__all__ = ["Agent", "AgentLoop", "Decider", "LearnedPolicy", "as_slot", "load_agent"]

#: An agent: the observation (a dict of arrays) to the slot of the job to run.
Agent = Callable[[Mapping[str, np.ndarray]], Any]


def load_agent(ref: str) -> Agent:
    """The callable named by ``package.module:function`` or ``path/to/file.py:function``.

    Raises:
        ConfigError: the reference is malformed, its module cannot be imported, or it
            names no callable.
    """
    where, sep, attr = ref.rpartition(":")
    if not sep or not where or not attr:
        raise ConfigError(
            f"agent {ref!r} must look like package.module:function or path/to/file.py:function"
        )
    module = load_module(where, "agent")
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ConfigError(f"agent {ref!r}: {attr!r} is not a callable in {where!r}")
    return fn  # type: ignore[no-any-return]


def as_slot(action: object) -> int | None:
    """An agent's action as a Python int, or None when it is not an integer.

    Integers are Python and numpy integers, and numpy integer arrays of one element;
    ``bool``, floats (even 1.0, NaN and inf), strings and None are not.
    """
    if isinstance(action, np.ndarray) and action.size == 1:
        action = action.reshape(()).item()
    if isinstance(action, bool | np.bool_) or not isinstance(action, numbers.Integral):
        return None
    return int(action)


class Decider(Protocol):
    """One instant's decisions, one agent choice at a time (:class:`BatchDecider`)."""

    history: list[tuple[float, float, float]]

    @property
    def asking(self) -> bool: ...
    @property
    def pending(self) -> bool: ...
    def open(self, view: SystemView) -> None: ...
    def observe(self, view: SystemView) -> dict[str, np.ndarray]: ...
    def act(self, view: SystemView, action: int) -> None: ...
    def wait(self) -> None: ...
    def take(self) -> list[Decision]: ...


#: The decider type of a learned policy (:class:`BatchDecider`, ``ShareDecider``).
D = TypeVar("D", bound=Decider)


class AgentLoop(Generic[D]):
    """What a learned policy adds to its family's: the agent, and the pass that asks it.

    A policy *driven* from outside (by an environment, :attr:`driven`) ends its pass
    when the agent must choose, leaving the choices to the environment
    (:attr:`decider`); otherwise its pass calls the agent until the instant's decisions
    are complete.
    """

    name: ClassVar[str]
    agent: str
    slots: int
    releases: int
    #: Whether an environment makes the agent's choices (set by the environment).
    driven: bool = False
    _fn: Agent | None = None
    _decider: D | None = None

    def _check_slots(self) -> None:
        """A one-line error for a bad ``slots`` or ``releases``."""
        check_range(self.name, "slots", self.slots, low=1, integer=True)
        check_range(self.name, "releases", self.releases, low=0, integer=True)

    def _resolve(self) -> Agent:
        if callable(self.agent):
            return self.agent  # type: ignore[unreachable]
        if not isinstance(self.agent, str):
            raise ConfigError(f"policy {self.name!r} parameter 'agent' must be a reference")
        try:
            return load_agent(self.agent)
        except ConfigError as exc:
            raise ConfigError(f"policy {self.name!r} parameter 'agent': {exc}") from None

    @property
    def decider(self) -> D:
        """The rules around the agent's choices, and their state in this run."""
        assert self._decider is not None
        return self._decider

    def __getstate__(self) -> dict[str, Any]:
        # A named agent is found again by its reference in the process that unpickles.
        state = dict(self.__dict__)
        if isinstance(self.agent, str):
            state["_fn"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._fn is None:
            self._fn = self._resolve()

    def _agent_params(self, out: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(self.agent, str):
            out["agent"] = f"{getattr(self.agent, '__module__', '?')}:{_name(self.agent)}"
        return out

    def _pass(self, view: SystemView) -> list[Decision]:
        d = self.decider
        d.open(view)
        if self.driven:
            return [] if d.asking else d.take()
        fn = self._fn
        assert fn is not None
        while d.asking:
            obs = d.observe(view)
            d.act(view, self._slot(fn(obs), obs["action_mask"], view))
        return d.take()

    def _slot(self, action: object, mask: np.ndarray, view: SystemView) -> int:
        """The agent's action as an action the mask allows, or a one-line error."""
        a = as_slot(action)
        if a is None:
            raise PolicyDecisionError(
                self.name, view.now, None, f"agent {self._ref()} returned {action!r}, not a slot"
            )
        if not (0 <= a < len(mask) and mask[a]):
            allowed = np.flatnonzero(mask)
            raise PolicyDecisionError(
                self.name,
                view.now,
                None,
                f"agent {self._ref()} chose {a}, outside the action mask "
                f"(allowed: {_ranges(allowed)})",
            )
        return a

    def _ref(self) -> str:
        return self.agent if isinstance(self.agent, str) else _name(self.agent)


@dataclass(kw_only=True)
class LearnedPolicy(AgentLoop[BatchDecider], Policy):
    """An agent (observation -> action) choosing among the first K queued jobs.

    Attributes:
        agent: ``package.module:function`` or ``path/to/file.py:function`` (or a
            callable, from Python).
        slots: K, the queued jobs the agent chooses among.
        releases: R, the running jobs the observation shows.
        time_scale: seconds per unit of the observation's time features.
        backfill: ``none``, ``easy`` (EASY backfilling behind a waiting choice) or
            ``rlscheduler`` (RLScheduler's greedy backfilling, :mod:`cosched.gym.rules`).
        commit: ``head`` (a chosen job that does not fit waits until it does) or
            ``event`` (the choice lapses at the next event).
    """

    name = "learned"
    idle_passes = False
    # A callable is taken too (in Python); the CLI and sweeps name one by reference.
    agent: str = "cosched.gym.agents:fcfs"
    slots: int = 128
    releases: int = 16
    time_scale: float = TIME_SCALE
    backfill: Backfill = "none"
    commit: Literal["head", "event"] = "head"

    def __post_init__(self) -> None:
        self._check_slots()
        check_choice(self.name, "backfill", self.backfill, BACKFILLS)
        check_choice(self.name, "commit", self.commit, ("head", "event"))
        try:
            encoding = Encoding(self.slots, self.releases, self.time_scale)
        except ConfigError as exc:
            raise ConfigError(f"policy {self.name!r}: {exc}") from None
        rules = Rules(slots=self.slots, commit=self.commit, backfill=self.backfill)
        self._decider = BatchDecider(rules, encoding)
        self._fn = self._resolve()

    def params(self) -> dict[str, Any]:
        return self._agent_params(super().params())

    def schedule(self, view: SystemView) -> Sequence[Decision]:
        return self._pass(view)


def _ranges(values: np.ndarray) -> str:
    """``0..3, 6`` for [0, 1, 2, 3, 6]."""
    if not len(values):
        return "none"
    out, lo, prev = [], int(values[0]), int(values[0])
    for v in [int(x) for x in values[1:]] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        out.append(f"{lo}" if lo == prev else f"{lo}..{prev}")
        if v is not None:
            lo = prev = v
    return ", ".join(out)


def _name(fn: object) -> str:
    return str(getattr(fn, "__qualname__", type(fn).__name__))
