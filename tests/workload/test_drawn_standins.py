"""What every stand-in drawn by ``cosched.workload.models._drawn`` promises: the same
generator state draws the same jobs, another draws others; the parameters they all take
are refused by name when out of range."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

from cosched.errors import ConfigError
from cosched.workload.job import Workload
from cosched.workload.models.cab import cab_standin
from cosched.workload.models.intrepid import intrepid_standin

MODELS = pytest.mark.parametrize("model", [cab_standin, intrepid_standin], ids=["cab", "intrepid"])


@MODELS
def test_same_seed_same_jobs_other_seed_other_jobs(
    model: Callable[..., Workload],
) -> None:
    a = model(np.random.default_rng(5), load=0.8, jobs=300)
    b = model(np.random.default_rng(5), load=0.8, jobs=300)
    c = model(np.random.default_rng(6), load=0.8, jobs=300)
    assert a.table.equals(b.table)
    assert not a.table.equals(c.table)


@MODELS
@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"load": 0.0}, "load must be a number > 0"),
        ({"load": 0.8, "sigma": -1.0}, "sigma must be a number > 0"),
        ({"load": 0.8, "jobs": 0}, "jobs must be an integer >= 1"),
        ({"load": 0.8, "accuracy": 0.0}, "accuracy must be in (0, 1]"),
    ],
)
def test_bad_parameters_are_refused_by_name(
    model: Callable[..., Workload], kwargs: dict[str, float], word: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(word)):
        model(np.random.default_rng(0), **kwargs)
