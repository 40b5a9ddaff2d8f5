"""An action outside an environment's action space is a one-line error naming the space,
as the ``learned`` policy refuses it; an action inside it that the mask forbids waits."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the environments need gymnasium (cosched[gym])")

from cosched.errors import ConfigError
from cosched.gym.batch import BatchEnv
from cosched.gym.episodes import EpisodeEnv
from cosched.gym.share_env import NodeShareEnv

BAD = [-1, 2**63, 10**9, 3, 1.5, 1.0, "1", True, np.True_, math.nan, math.inf, None, [0]]


def _batch(small_swf: Path) -> EpisodeEnv:
    return BatchEnv(str(small_swf), jobs=None, slots=3)


def _share(small_swf: Path) -> EpisodeEnv:
    # Two slots, two modes each: Discrete(4), so 3 is inside this space.
    return NodeShareEnv(str(small_swf), jobs=None, slots=2, nodes=4, cores=1)


@pytest.mark.parametrize("action", BAD, ids=repr)
def test_an_action_outside_the_space_is_refused(small_swf: Path, action: object) -> None:
    env = _batch(small_swf)
    env.reset()
    with pytest.raises(ConfigError, match=r"outside the action space Discrete\(3\)") as exc:
        env.step(action)
    assert "\n" not in str(exc.value) and repr(action) in str(exc.value)
    # Nothing happened: the episode goes on from the same decision (t=0, job 1 alone
    # queued), and job 1 starts; the next decision is at job 2's arrival.
    _, _, _, _, info = env.step(0)
    assert info["started"] == 1 and info["time"] == 10.0 and not info["waited"]


@pytest.mark.parametrize("action", [a for a in BAD if a != 3], ids=repr)
def test_the_coscheduling_environment_refuses_them_too(small_swf: Path, action: object) -> None:
    env = _share(small_swf)
    env.reset()
    with pytest.raises(ConfigError, match=r"outside the action space Discrete\(4\)"):
        env.step(action)


@pytest.mark.parametrize("action", [0, np.int64(0), np.uint8(0), np.array(0), np.array([0])])
def test_integer_actions_of_any_kind_are_taken(small_swf: Path, action: object) -> None:
    env = _batch(small_swf)
    env.reset()
    _, _, _, _, info = env.step(action)
    assert info["started"] == 1 and not info["waited"]
