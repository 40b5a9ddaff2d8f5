"""Gymnasium environments over cosched's engine, and learned agents as policies.

The environments (``pip install 'cosched[gym]'`` installs gymnasium):

* ``cosched/Batch-v0`` (:class:`cosched.gym.batch.BatchEnv`): at each decision the
  agent picks one of the first K queued jobs of a batch machine;
* ``cosched/NodeShare-v0`` (:class:`cosched.gym.share_env.NodeShareEnv`): the agent also
  picks whether the job runs alone or may share nodes with running jobs, on the
  node-sharing family's machine and interference model.

``gymnasium.make("cosched.gym.batch:cosched/Batch-v0", workload=...)`` imports the
environment's module, which registers the ids; so does importing this package after
gymnasium, or calling :func:`register`. Importing this
package never loads gymnasium itself (about 0.1 s): the observation encoding
(:mod:`cosched.gym.observation`), the decision rules (:mod:`cosched.gym.rules`), the
heuristic agents (:mod:`cosched.gym.agents`) and the ``learned`` policy
(:mod:`cosched.gym.policy`) need numpy only, so ``cosched policies`` and ``cosched run
--policy learned`` stay as quick as any run, with or without gymnasium. See docs/gym.md.
"""

from __future__ import annotations

import sys

__all__ = ["ENVIRONMENTS", "register"]

#: The environments, by gymnasium id.
ENVIRONMENTS = {
    "cosched/Batch-v0": "cosched.gym.batch:BatchEnv",
    "cosched/NodeShare-v0": "cosched.gym.share_env:NodeShareEnv",
}


def register() -> None:
    """Register :data:`ENVIRONMENTS` with gymnasium (again: a no-op)."""
    import gymnasium

    for env_id, entry_point in ENVIRONMENTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)


if sys.modules.get("gymnasium") is not None:
    register()
