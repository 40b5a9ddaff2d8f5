"""Train a small PPO agent in ``cosched/Batch-v0`` and evaluate it as a cosched policy.

The agent picks the next job among the first 32 queued ones of a 256-processor machine,
without backfilling, a chosen job waiting until it fits (RLScheduler's setting); its
reward is minus the mean bounded slowdown of the episode's 256 jobs. It trains on
episodes drawn from a Lublin workload generated here (seed 1), and is evaluated on
another sample of the same model it never saw: RLScheduler's ``lublin_256`` trace.

    pip install 'cosched[gym]' stable-baselines3
    python examples/gym_ppo.py --minutes 3 --model ppo-lublin.zip
    COSCHED_PPO_MODEL=ppo-lublin.zip cosched compare ../shared/traces/lublin_256.swf.gz \\
        --out ppo --quick --no-robustness --policies \\
        "fcfs,fcfs(order=sjf),learned(agent=examples/gym_ppo.py:act,slots=32)"

``act`` is the trained agent as ``learned`` calls it: the policy network's most likely
action among those the observation's mask allows.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

SLOTS = 32
ENV_OPTIONS: dict[str, Any] = {
    "workload": "lublin:jobs=20000,nodes=256",
    "seed": 1,
    "jobs": 256,
    "slots": SLOTS,
    "backfill": "none",
    "commit": "head",
    "reward": "bsld",
    "reward_at": "trajectory",
}

_MODEL: Any = None


def act(obs: Mapping[str, np.ndarray]) -> int:
    """The trained policy's most likely allowed action (the model named by
    ``$COSCHED_PPO_MODEL``, loaded once per process)."""
    global _MODEL
    import torch
    from stable_baselines3 import PPO

    if _MODEL is None:
        _MODEL = PPO.load(os.environ.get("COSCHED_PPO_MODEL", "ppo-lublin.zip"), device="cpu")
    tensor, _ = _MODEL.policy.obs_to_tensor({k: np.asarray(v) for k, v in obs.items()})
    with torch.no_grad():
        probs = _MODEL.policy.get_distribution(tensor).distribution.probs[0].numpy()
    mask = np.asarray(obs["action_mask"], dtype=bool)
    return int(np.argmax(np.where(mask, probs, -1.0)))


def _masked(env: Any) -> Any:
    """The environment with the mask applied to the agent's actions during training:
    an action the mask forbids becomes the allowed one nearest the queue's head."""
    import gymnasium

    class Masked(gymnasium.ActionWrapper):  # type: ignore[misc]
        def action(self, a: Any) -> int:
            mask = self.env.unwrapped.action_masks()
            a = int(a)
            if mask[a] or not mask.any():
                return a
            return int(np.flatnonzero(mask)[0])

    return Masked(env)


def train(minutes: float, path: str, seed: int) -> None:
    import gymnasium
    from stable_baselines3 import PPO

    env = _masked(gymnasium.make("cosched.gym.batch:cosched/Batch-v0", **ENV_OPTIONS))
    model = PPO("MultiInputPolicy", env, n_steps=1024, batch_size=256, seed=seed, device="cpu")
    deadline = time.monotonic() + 60 * minutes
    steps = 0
    while time.monotonic() < deadline:
        model.learn(total_timesteps=4096, reset_num_timesteps=False)
        steps = model.num_timesteps
    model.save(path)
    print(f"trained {steps} steps in {minutes:g} min; saved {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--model", default="ppo-lublin.zip")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    train(args.minutes, args.model, args.seed)


if __name__ == "__main__":
    main()
