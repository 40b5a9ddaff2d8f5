"""Hand cases of the time-sharing kernel: jobs placed and started, nothing run yet."""

from __future__ import annotations

import numpy as np

from cosched.timesharing import TSParams, jobs_table
from cosched.timesharing import kernel as K
from cosched.timesharing.engine import TimeSharingSim


def placed(
    rows: list[tuple[float, float, int, int]],
    *,
    scheme: str,
    nodes: int,
    mpl: int,
    params: TSParams,
) -> K.State:
    """The state at time 0 of the jobs ``rows`` (as :func:`jobs_table` takes them) under
    ``scheme`` on ``nodes`` nodes at multiprogramming level ``mpl``: every job placed and
    the first events taken, so that a test can set processes up by hand."""
    sim = TimeSharingSim(
        jobs_table(rows),
        scheme=scheme,
        nodes=nodes,
        mpl=mpl,
        rng=np.random.default_rng(0),
        params=params,
    )
    sim.run(horizon=0.0)
    return sim.state
