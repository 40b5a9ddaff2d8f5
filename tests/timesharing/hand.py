"""Set-ups the time-sharing kernel's tests share: a hand case's jobs placed and started
with nothing run yet, and the kernel run as plain Python in a fresh process (against
its compiled runs: :func:`assert_interpreted_matches`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cosched.timesharing import TSParams, TSResult, bsp_jobs, jobs_table, simulate
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


def bsp_ring(
    scheme: str,
    seed: int,
    jobs: Sequence[tuple[float, ...]],
    *,
    nodes: int,
    mpl: int,
    **params: Any,
) -> TSResult:
    """The BSP jobs ``jobs`` (as :func:`bsp_jobs` takes them, ranks on a ring) run under
    ``scheme`` on ``nodes`` PEs at multiprogramming level ``mpl``, with a 0.1 s gang
    quantum, a CS class from 2 slots and the settings ``params``: the runs that
    :func:`assert_interpreted_matches` checks a reading's rules on."""
    p = TSParams(gs_quantum=0.1, fcs_cslots_min=2, **params)
    w = bsp_jobs(jobs, params=p, ring=True)
    rng = np.random.default_rng(seed)
    return simulate(w, scheme=scheme, nodes=nodes, mpl=mpl, rng=rng, params=p)


#: A time-sharing cell's settings without a named reading: an FCS cell's (the gang
#: quantum and the CS class's slots) and a dynamic-workload cell's.
FCS_CELL = {"quantum": 0.1, "cslots_min": 20}
DYNAMIC_CELL = {"workload": "WL5", "load": 1.0, "skew": 0.2, "mpl": 5, "scheme": "SB",
                "n_jobs": 10, "msg_factor": 1}  # fmt: skip


def assert_fcs_cells_read(key: str, field: str, value: float) -> None:
    """An FCS cell's ``key`` is the run's ``TSParams.<field>`` (0 where the cell does not
    name it), and a value that is not a number is refused naming ``key``."""
    from cosched.errors import ConfigError
    from cosched.timesharing.fcs_experiment import _params as fcs_params

    assert getattr(fcs_params(FCS_CELL), field) == 0.0
    assert getattr(fcs_params({**FCS_CELL, key: value}), field) == value
    with pytest.raises(ConfigError, match=key):
        fcs_params({**FCS_CELL, key: "soon"})


ROOT = Path(__file__).resolve().parents[2]


def interpreted(code: str, arg: Any, timeout: float) -> str:
    """What ``code`` prints, run with ``NUMBA_DISABLE_JIT=1`` (the kernel's functions as
    plain Python) in a fresh process from the repository's root, the JSON of ``arg`` as
    its ``sys.argv[1]``."""
    guard = "from cosched.timesharing import kernel as K\nassert not K._NUMBA\n"
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    run = subprocess.run(
        [sys.executable, "-c", guard + code, json.dumps(arg)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def as_json(r: TSResult) -> str:
    """A run's results as JSON (floats written exactly): what the two runs compare."""
    return json.dumps([r.jobs.to_dict("list"), r.nodes.to_dict("list"),
                       r.procs.to_dict("list"), r.events, r.end_time])  # fmt: skip


def assert_interpreted_matches(run: Callable[..., TSResult], cases: list[tuple[str, int]]) -> None:
    """Every case run as ``run(*case)`` (a function at the top of a module, which the
    fresh process imports) interpreted (``NUMBA_DISABLE_JIT=1``, a fresh process) gives,
    bit for bit, what it gives compiled here."""
    code = (
        f"import json, sys\nfrom {run.__module__} import {run.__name__} as run\n"
        "from tests.timesharing.hand import as_json\n"
        "print(json.dumps([as_json(run(*c)) for c in json.loads(sys.argv[1])]))\n"
    )
    out = interpreted(code, cases, timeout=900)
    assert json.loads(out) == [as_json(run(*c)) for c in cases]
