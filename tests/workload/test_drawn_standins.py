"""What every stand-in drawn by ``cosched.workload.models._drawn`` promises: the same
generator state draws the same jobs, another draws others."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from cosched.workload.job import Workload
from cosched.workload.models.cab import cab_standin
from cosched.workload.models.intrepid import intrepid_standin


@pytest.mark.parametrize("model", [cab_standin, intrepid_standin], ids=["cab", "intrepid"])
def test_same_seed_same_jobs_other_seed_other_jobs(
    model: Callable[..., Workload],
) -> None:
    a = model(np.random.default_rng(5), load=0.8, jobs=300)
    b = model(np.random.default_rng(5), load=0.8, jobs=300)
    c = model(np.random.default_rng(6), load=0.8, jobs=300)
    assert a.table.equals(b.table)
    assert not a.table.equals(c.table)
