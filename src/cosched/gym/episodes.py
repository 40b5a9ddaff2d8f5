"""What every cosched environment shares: episodes, the engine stepped to each decision,
rewards and metrics.

Control is inverted by stepping the engine one instant at a time
(:meth:`Simulation.next_time`, :meth:`Simulation.advance`) under the environment's
learned policy in *driven* mode (:class:`~cosched.gym.policy.AgentLoop`): its pass makes
the rules' own decisions and stops where the agent must choose. ``step`` then makes the
agent's choice through the same decider the policy calls in its own pass, and when the
instant's decisions are complete hands them to the engine (:meth:`Simulation.apply`),
all at once, as the policy's pass would return them. So an agent acts on the same
observations, and produces the same schedule, in the environment and under ``cosched
run --policy learned``. The engine, its event order and its checks are cosched's own;
nothing here simulates.

An episode is a window of ``jobs`` consecutive jobs of the workload (a trace, or a
generated model workload), on an empty machine, starting at a job drawn with the
environment's ``np_random`` (``reset(seed=...)``) or given as ``options={"start": i}``.
It ends when every job of the window has run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from cosched.engine.simulation import Simulation, SimulationResult
from cosched.errors import ConfigError
from cosched.gym.policy import AgentLoop, as_slot
from cosched.metrics.summary import summarize
from cosched.platform import Platform
from cosched.workload.job import Workload
from cosched.workload.transforms import window

__all__ = ["BSLD_TAU", "REWARDS", "EpisodeEnv", "bounded_slowdown", "observation_space"]

#: The bounded slowdown's threshold in seconds (the field's usual 10 s, RLScheduler's).
BSLD_TAU = 10.0
#: Reward metrics, and the summary metric each is the (negated, for costs) mean of.
REWARDS = {"bsld": "mean_bounded_slowdown", "wait": "mean_wait", "utilization": "utilization"}

Observation = dict[str, np.ndarray]


def bounded_slowdown(wait: float, run: float) -> float:
    """``max(1, (wait + run) / max(run, 10 s))``."""
    return max(1.0, (wait + run) / max(run, BSLD_TAU))


def observation_space(slots: int, features: int, machine: int, actions: int) -> spaces.Dict:
    """What a decider observes: ``features`` numbers for the job in each of ``slots``,
    ``machine`` numbers of the machine, the mask of the ``actions`` allowed, and the two
    scales."""
    inf = np.float32(np.inf)
    return spaces.Dict(
        {
            "jobs": spaces.Box(0.0, inf, (slots, features), np.float32),
            "machine": spaces.Box(0.0, inf, (machine,), np.float32),
            "action_mask": spaces.MultiBinary(actions),
            "scales": spaces.Box(0.0, inf, (2,), np.float32),
        }
    )


class EpisodeEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """Episodes of a workload on cosched's engine, under a driven learned policy.

    Args:
        workload: the jobs (with whatever profile columns the policy needs).
        platform: the machine.
        policy: makes a fresh learned policy for each episode.
        observation_space: what the decider's observations are.
        jobs: jobs per episode (None: the whole workload, from its first job).
        reward, reward_at: see :class:`~cosched.gym.batch.BatchEnv`.
        estimates: ``requested`` or ``exact``.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (gymnasium's attribute)

    def __init__(
        self,
        workload: Workload,
        platform: Platform,
        policy: Callable[[], AgentLoop],
        observation_space: spaces.Dict,
        *,
        jobs: int | None,
        reward: str,
        reward_at: str,
        estimates: str,
    ) -> None:
        _check_reward(reward, reward_at)
        self.workload = workload
        self.platform = platform
        self._new_policy = policy
        self._reward, self._reward_at, self._estimates = reward, reward_at, estimates
        self.jobs = len(workload) if jobs is None else jobs
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1:
            raise ConfigError(f"jobs must be an integer >= 1 or None, got {jobs!r}")
        if self.jobs > len(workload):
            raise ConfigError(f"jobs={self.jobs} is more than the workload's {len(workload)} jobs")
        self._space = observation_space
        self.observation_space = observation_space
        self._policy: AgentLoop | None = None
        self._sim: Simulation | None = None
        self._obs: Observation = _empty(observation_space)
        self._result: SimulationResult | None = None
        self.start = 0

    # -- the Gymnasium API ---------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new episode: the window from ``options["start"]`` or a drawn start."""
        super().reset(seed=seed)
        last = len(self.workload) - self.jobs
        start = (options or {}).get("start")
        if start is None:
            start = int(self.np_random.integers(0, last + 1))
        elif isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= last:
            raise ConfigError(f"options['start'] must be an integer in [0, {last}], got {start!r}")
        self.start = start
        policy = self._new_policy()
        policy.driven = True
        self._policy = policy
        w = window(self.workload, start, self.jobs)
        self._sim = Simulation(w, self.platform, policy, estimates=self._estimates)  # type: ignore[arg-type]
        self._result = None
        self._run_until_asked()
        self._observe()
        return self._obs, self._info(waited=False)

    def step(self, action: Any) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Carry out the agent's choice, then run the engine until the next decision.

        An action the mask does not allow chooses nothing: the instant's decisions end
        and the environment waits for the next event; with nothing left to happen it
        changes nothing.

        Raises:
            ConfigError: the action is not in the action space (an integer from 0 to
                its size - 1), such as -1, 1.5, ``'1'``, ``True``, NaN or None.
        """
        sim, policy = self._sim, self._policy
        if sim is None or policy is None or self._result is not None:
            raise ConfigError("step() needs a running episode: call reset() first")
        d, view = policy.decider, sim.view
        before = len(d.history)
        mask = self._obs["action_mask"]
        a = self._action(action)
        waited = not (0 <= a < len(mask) and mask[a])
        if not waited:
            d.act(view, a)
        elif d.pending or sim.next_time() < math.inf:
            d.wait()
        done = self._run_until_asked()
        reward = self._step_reward(d.history[before:], done)
        self._observe()
        return self._obs, reward, done, False, self._info(waited=waited)

    def _action(self, action: Any) -> int:
        """The action as an int of the action space, or a ConfigError naming the space."""
        a = as_slot(action)
        space = self.action_space
        n = int(space.n) if isinstance(space, spaces.Discrete) else len(self._obs["action_mask"])
        if a is None or not 0 <= a < n:
            raise ConfigError(
                f"step(): action {action!r} is outside the action space Discrete({n}): "
                f"an integer from 0 to {n - 1} is expected"
            )
        return a

    def action_masks(self) -> np.ndarray:
        """The mask of allowed actions, as a boolean array (for maskable PPO)."""
        return self._obs["action_mask"].astype(bool)

    # -- what the environment reports ------------------------------------------------------

    @property
    def result(self) -> SimulationResult | None:
        """The finished episode's schedule (None until the episode has ended)."""
        return self._result

    def metrics(self) -> dict[str, float]:
        """The finished episode's summary metrics (:func:`cosched.metrics.summarize`)."""
        if self._result is None:
            raise ConfigError("metrics() needs a finished episode")
        return summarize(
            self._result.job_columns,
            capacity=self.platform.capacity,
            capacity_procs=self.platform.procs,
            tau=BSLD_TAU,
            classes=None,
        )

    # -- internals ----------------------------------------------------------------------

    def _run_until_asked(self) -> bool:
        """Hand the instant's decisions to the engine once they are complete, and advance
        it until the agent must choose; True when the episode has ended."""
        sim, policy = self._sim, self._policy
        assert sim is not None and policy is not None
        d = policy.decider
        while not d.asking:
            if d.pending:
                sim.apply(d.take())
            t = sim.next_time()
            if t == math.inf:
                self._result = sim.finish()
                return True
            sim.advance(t)
        return False

    def _observe(self) -> None:
        sim, policy = self._sim, self._policy
        assert sim is not None and policy is not None
        if self._result is not None:
            self._obs = _empty(self._space)
            return
        self._obs = policy.decider.observe(sim.view)

    def _info(self, *, waited: bool) -> dict[str, Any]:
        sim, policy = self._sim, self._policy
        assert sim is not None and policy is not None
        info: dict[str, Any] = {
            "action_mask": self._obs["action_mask"],
            "time": sim.view.now,
            "start": self.start,
            "started": len(policy.decider.history),
            "waited": waited,
        }
        if self._result is not None:
            info["metrics"] = self.metrics()
        return info

    def _step_reward(self, started: list[tuple[float, float, float]], done: bool) -> float:
        if self._reward_at == "trajectory":
            if not done:
                return 0.0
            value = self.metrics()[REWARDS[self._reward]]
            return float(value if self._reward == "utilization" else -value)
        total = 0.0
        for submit, run, start in started:
            wait = start - submit
            total += wait if self._reward == "wait" else bounded_slowdown(wait, run)
        return -total / self.jobs


def _check_reward(reward: str, reward_at: str) -> None:
    if reward not in REWARDS:
        raise ConfigError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    if reward_at not in ("step", "trajectory"):
        raise ConfigError(f"reward_at must be step or trajectory, got {reward_at!r}")
    if reward == "utilization" and reward_at == "step":
        raise ConfigError(
            "reward='utilization' is known only when the episode ends: use reward_at='trajectory'"
        )


def _empty(space: spaces.Dict) -> Observation:
    """The observation after the last job: nothing visible."""
    out: Observation = {}
    for key, sub in space.spaces.items():
        assert sub.shape is not None and sub.dtype is not None
        out[key] = np.zeros(sub.shape, dtype=sub.dtype)
    return out
