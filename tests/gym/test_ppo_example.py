"""examples/gym_ppo.py: a trained PPO agent runs as the ``learned`` policy.

Needs stable-baselines3 (an optional dependency of the example, not of cosched): the
test skips, saying so, without it.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="cosched.gym needs gymnasium (the gym extra)")
pytest.importorskip("stable_baselines3", reason="the PPO example needs stable-baselines3")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gym_ppo.py"


@pytest.mark.slow
def test_the_trained_agent_runs_as_a_policy_within_the_mask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cosched import simulate
    from cosched.engine.invariants import verify_schedule
    from cosched.gym.policy import LearnedPolicy
    from cosched.platform import Platform
    from cosched.workload.sources import open_workload

    module = runpy.run_path(str(EXAMPLE))
    model = tmp_path / "ppo.zip"
    module["train"](0.0, str(model), 0)  # an untrained network: the mask is what is tested
    assert model.is_file()
    monkeypatch.setenv("COSCHED_PPO_MODEL", str(model))
    w = open_workload("lublin:jobs=300,nodes=256", seed=3)
    # The policy refuses an action outside the mask, so a finished run is one where
    # every choice of the agent was allowed.
    r = simulate(w, Platform.of_procs(256), LearnedPolicy(agent=module["act"], slots=32))
    verify_schedule(r.jobs, capacity=256)
    assert np.isfinite(r.jobs["start_time"]).all()
