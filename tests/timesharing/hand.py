"""Set-ups the time-sharing kernel's tests share: a hand case's jobs placed and started
with nothing run yet, and the kernel run as plain Python in a fresh process (against
its compiled runs: :func:`assert_interpreted_matches`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

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


#: A run's results as JSON (floats written exactly): what the two runs compare.
_AS_JSON = (
    "import json\n"
    "def as_json(r):\n"
    "    return json.dumps([r.jobs.to_dict('list'), r.nodes.to_dict('list'),\n"
    "                       r.procs.to_dict('list'), r.events, r.end_time])\n"
)


def assert_interpreted_matches(run_code: str, cases: list[tuple[str, int]]) -> None:
    """``run_code`` defines ``run(*case)``, returning a simulation's result: every case
    run interpreted (``NUMBA_DISABLE_JIT=1``, a fresh process) gives, bit for bit, what
    it gives compiled here."""
    code = (
        run_code
        + _AS_JSON
        + ("import sys\nprint(json.dumps([as_json(run(*c)) for c in json.loads(sys.argv[1])]))\n")
    )
    out = interpreted(code, cases, timeout=900)
    scope: dict[str, Any] = {}
    exec(run_code + _AS_JSON, scope)
    compiled = [scope["as_json"](scope["run"](*c)) for c in cases]
    assert json.loads(out) == compiled
