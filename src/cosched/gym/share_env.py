"""``cosched/NodeShare-v0``: pick the next job and whether it may share nodes.

The environment runs the ``learned-nodeshare`` policy
(:class:`~cosched.gym.share.LearnedNodeShare`) driven by the agent's steps
(:mod:`cosched.gym.episodes`) on the node-sharing family's machine; the modes, rules and
observation are :mod:`cosched.gym.share`'s.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from cosched.gym import register
from cosched.gym.episodes import EpisodeEnv, observation_space
from cosched.gym.observation import TIME_SCALE, Encoding
from cosched.gym.share import SHARE_FEATURES, LearnedNodeShare
from cosched.nodeshare.policies import NODESHARE_REQUIRES
from cosched.policies.requirements import MachineFlags, fit_workload
from cosched.workload.job import Workload
from cosched.workload.loader import DEFAULT_RULES, LoadRules

__all__ = ["NodeShareEnv"]


class NodeShareEnv(EpisodeEnv):
    """Pick one of the first K queued jobs and a mode, alone or shared (docs/gym.md).

    Args:
        workload: as for :class:`~cosched.gym.batch.BatchEnv`; jobs without the
            node-sharing profile columns get them from the family's annotator (seeded
            with ``seed``).
        jobs, slots, releases, commit, reward, reward_at, time_scale, estimates, rules:
            as for :class:`~cosched.gym.batch.BatchEnv` (no backfilling here).
        nodes, cores: the machine (None: from the trace header and the family's
            defaults, as ``cosched run`` builds it).
        seed: the seed of a generated workload and of the profiles (not of the episodes).
        restriction, degraded, rates, interference: the node-sharing family's options.
    """

    def __init__(
        self,
        workload: str | Workload = "bundled:example",
        *,
        jobs: int | None = 256,
        slots: int = 32,
        releases: int = 16,
        commit: str = "head",
        reward: str = "bsld",
        reward_at: str = "trajectory",
        time_scale: float = TIME_SCALE,
        nodes: int | None = None,
        cores: int | None = None,
        estimates: str = "requested",
        seed: int = 0,
        rules: LoadRules = DEFAULT_RULES,
        restriction: str = "No_Restrict",
        degraded: bool = True,
        rates: str = "dynamic",
        interference: str = "fig3",
    ) -> None:
        Encoding(slots, releases, time_scale)  # the options' errors first
        self.options: dict[str, Any] = {
            "slots": slots,
            "releases": releases,
            "time_scale": time_scale,
            "commit": commit,
            "restriction": restriction,
            "degraded": degraded,
            "rates": rates,
            "interference": interference,
        }
        self._policy_for_episode()  # checks the policy's options
        if not isinstance(workload, Workload):
            from cosched.workload.sources import open_workload

            workload = open_workload(str(workload), rules=rules, seed=seed)
        flags = MachineFlags(nodes=nodes, cores=cores)
        w, platform, self.notes = fit_workload(NODESHARE_REQUIRES, workload, flags, seed=seed)
        super().__init__(
            w,
            platform,
            self._policy_for_episode,
            observation_space(slots, len(SHARE_FEATURES), 2 + 2 * releases, 2 * slots),
            jobs=jobs,
            reward=reward,
            reward_at=reward_at,
            estimates=estimates,
        )
        self.action_space = spaces.Discrete(2 * slots)

    def _policy_for_episode(self) -> LearnedNodeShare:
        return LearnedNodeShare(**self.options)


register()
