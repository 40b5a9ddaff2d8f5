"""``cosched/Batch-v0``: pick the next job of a batch machine, on cosched's engine.

The environment runs the ``learned`` policy (:class:`~cosched.gym.policy.LearnedPolicy`)
driven by the agent's steps (:mod:`cosched.gym.episodes`): the rules around the agent's
choice are :mod:`cosched.gym.rules`, the observation :mod:`cosched.gym.observation`.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from cosched.gym import register
from cosched.gym.episodes import BSLD_TAU, REWARDS, EpisodeEnv, bounded_slowdown, observation_space
from cosched.gym.observation import JOB_FEATURES, TIME_SCALE, Encoding
from cosched.gym.policy import LearnedPolicy
from cosched.gym.rules import Rules
from cosched.policies.requirements import MachineFlags, Requirements, build_platform
from cosched.workload.job import Workload
from cosched.workload.loader import DEFAULT_RULES, LoadRules

__all__ = ["BSLD_TAU", "REWARDS", "BatchEnv", "bounded_slowdown"]


class BatchEnv(EpisodeEnv):
    """Pick one of the first K queued jobs at each decision (docs/gym.md).

    Args:
        workload: a trace path, ``bundled:example``, a model such as
            ``lublin:jobs=10000,nodes=256`` (anything ``cosched run`` takes), or a
            :class:`Workload`.
        jobs: jobs per episode (None: the whole workload, from its first job).
        slots: K, the queued jobs the agent chooses among.
        releases: R, the running jobs shown by expected end.
        backfill: ``none``, ``easy`` (EASY backfilling behind a waiting choice) or
            ``rlscheduler`` (RLScheduler's greedy backfilling, :mod:`cosched.gym.rules`).
        commit: ``head`` (a chosen job that does not fit waits until it does) or
            ``event`` (the choice lapses at the next event).
        reward: ``bsld`` (bounded slowdown, 10 s threshold), ``wait`` (seconds) or
            ``utilization``.
        reward_at: ``step`` (each job's share as it starts) or ``trajectory`` (the
            episode's metric at its end); ``utilization`` is a trajectory metric only.
        time_scale: seconds per unit of the observation's time features.
        procs: the machine's processors (None: the workload's header).
        estimates: ``requested`` (the users' estimates) or ``exact``.
        seed: the seed of a generated workload (not of the episodes).
        rules: the loader's rules for a trace.
    """

    def __init__(
        self,
        workload: str | Workload = "bundled:example",
        *,
        jobs: int | None = 256,
        slots: int = 128,
        releases: int = 16,
        backfill: str = "none",
        commit: str = "head",
        reward: str = "bsld",
        reward_at: str = "trajectory",
        time_scale: float = TIME_SCALE,
        procs: int | None = None,
        estimates: str = "requested",
        seed: int = 0,
        rules: LoadRules = DEFAULT_RULES,
    ) -> None:
        Rules(slots=slots, commit=commit, backfill=backfill)  # the options' errors first
        Encoding(slots, releases, time_scale)
        self.options: dict[str, Any] = {
            "slots": slots,
            "releases": releases,
            "time_scale": time_scale,
            "backfill": backfill,
            "commit": commit,
        }
        w = workload if isinstance(workload, Workload) else _open(workload, rules, seed)
        platform = build_platform(Requirements(), MachineFlags(procs=procs), w)[0]
        super().__init__(
            w,
            platform,
            self._policy_for_episode,
            observation_space(slots, len(JOB_FEATURES), 1 + 2 * releases, slots),
            jobs=jobs,
            reward=reward,
            reward_at=reward_at,
            estimates=estimates,
        )
        self.action_space = spaces.Discrete(slots)

    def _policy_for_episode(self) -> LearnedPolicy:
        return LearnedPolicy(**self.options)


def _open(text: str, rules: LoadRules, seed: int) -> Workload:
    from cosched.workload.sources import open_workload

    return open_workload(str(text), rules=rules, seed=seed)


register()
