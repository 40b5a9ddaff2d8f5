"""The time-sharing family in the experiment framework: the dyncosched cell function.

Reproduction of dynamic-coscheduling-cluster-simulation.txt (Figures 3-5, Tables 4-5);
the grid lives in the spec ``cosched/experiments/specs/dyncosched.toml``. Every scheme of
one workload sees the same workload and the same skew draws (common random numbers):
the seed of a cell's draws comes from the experiment seed and the workload name only.

Time scale (see docs/timesharing.md): Lublin jobs of at most 32 tasks, run times
clipped at ``MAX_RUN`` s and then divided, with the inter-arrival times, by
``TIME_SCALE``; messages are ``msg_factor`` x 4,096 bytes so iterations are
``msg_factor`` times coarser than the paper's (the latency is linear in size, so the
compute / I/O / communication shares are unchanged). All OS costs keep the paper's
values (Table 3) unless the cell names one: ``context_switch``, ``gs_context_switch``,
``interrupt``, ``queue_move`` and ``endpoint_check`` (s, the ``TSParams`` fields of the
same names; set after the Table 5 ``variant``) are counterfactuals for attribution, not
the paper's, such as free switches to measure what the switches cost a scheme
(docs/timesharing-fidelity.md, "Figure 3's gap, split"). An optional ``wake_cost`` (s)
sets ``TSParams.wake_cost``, a named reading the paper does not have
(docs/timesharing-fidelity.md, "The wake-up cost of a block"). Optional
mechanisms, each off unless the cell names it: ``nic_bandwidth`` (B/s:
``TSParams.nic_bandwidth``, contention at the network interface; the reproduction's
spec names it in every cell, Table 3's 4,096 bytes in 185.48 us, because the paper's
simulator models "the contention at the interface"), ``noise_period`` and
``noise_duration`` (s: ``TSParams``'s per-PE daemons), ``io_holds_cpu`` (0 or 1: an
iteration's I/O holds the CPU); and ``time_scale`` sets the
divisor of run and inter-arrival times (``TIME_SCALE`` unless named); ``load_scale``
multiplies the cell's ``load`` (1 unless named): the reading of an unstated load, as
Figure 4's (docs/timesharing-fidelity.md, "Figure 4's load").

Figure 3's utilization, "the percentage of time that the system actually spends in
useful work" (the paper's line 760), is read by the cell's ``useful`` parameter
(:data:`USEFUL`): ``"work"`` counts the jobs' dedicated work done (``work_share``:
their computation, I/O and communication as they would run alone), ``"compute"`` the
CPU seconds computing only (``compute_share``); the cell reports the chosen one as
``useful_share``, the column Figure 3's claims read, beside both (docs/timesharing.md,
"Figure 3's utilization: useful work").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from cosched.errors import ConfigError
from cosched.experiments.model import CellEnv, Scalar, require
from cosched.timesharing.engine import TimeSharingSim
from cosched.timesharing.metrics import ts_summary
from cosched.timesharing.params import SCHEMES, TSParams
from cosched.timesharing.workloads import make_workload
from cosched.workload.job import Workload

__all__ = [
    "MAX_RUN",
    "NODES",
    "OVERHEADS",
    "READINGS",
    "TIME_SCALE",
    "USEFUL",
    "cell_simulation",
    "check",
    "draw_seed",
    "offered_load",
    "run_cell",
    "ts_params",
]

NODES = 32
TIME_SCALE = 400.0
MAX_RUN = 1000.0
#: Horizon of a run, in multiples of (submit span + longest job): beyond it the
#: scheme is saturated and the unfinished jobs are reported.
HORIZON_FACTOR = 4.0
#: Table 5 cost variants: label -> changes to TSParams ("" = the default costs).
OVERHEADS: dict[str, dict[str, float]] = {
    "": {},
    "Q=100ms, CS=1ms": {"gs_quantum": 0.1, "gs_context_switch": 1e-3},
    "Q=100ms, CS=2ms": {"gs_quantum": 0.1},
    "CS=100us, I=25us": {"context_switch": 100e-6, "interrupt": 25e-6},
    "CS=100us, I=50us": {"context_switch": 100e-6},
}
_KEYS = ("workload", "load", "skew", "mpl", "scheme", "n_jobs", "msg_factor")
#: The readings of Figure 3's utilization (the cell's ``useful``): name -> the
#: ``ts_summary`` column reported as ``useful_share``.
USEFUL: dict[str, str] = {"work": "work_share", "compute": "compute_share"}


def check(params: Mapping[str, Scalar]) -> None:
    """Refuse a configuration the cell function cannot run (before anything runs).

    Raises:
        ConfigError: naming the parameter.
    """
    require(params, "dyncosched", _KEYS)
    if params["scheme"] not in SCHEMES:
        raise ConfigError(f"'scheme' must be one of {', '.join(SCHEMES)}, got {params['scheme']!r}")
    if str(params.get("variant", "")) not in OVERHEADS:
        raise ConfigError(f"'variant' must be one of {', '.join(map(repr, OVERHEADS))}")
    _readings(params, TSParams())  # each named reading a number TSParams accepts
    if str(params.get("useful", "work")) not in USEFUL:
        raise ConfigError(f"'useful' must be one of {', '.join(USEFUL)} (got {params['useful']!r})")
    for key in ("time_scale", "load_scale"):
        if key in params and not _number(params[key], key) > 0:
            raise ConfigError(f"{key!r} must be > 0 (got {params[key]!r})")
    wl = str(params["workload"])
    if not (wl.startswith("WL") and wl[2:].isdigit()):
        raise ConfigError(f"'workload' must be WL1..WL7, got {wl!r}")


def _number(value: Scalar, key: str) -> float:
    """``value`` as a float, or a ConfigError naming ``key``."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ConfigError(f"{key!r} must be a number (got {value!r})") from None


#: The cell's optional readings, each a TSParams field of the same name (off unless
#: named): the mechanisms, then Table 3's per-event costs (the paper's values unless
#: named; named, a reading for attribution, such as ``context_switch=0``).
READINGS = (
    "wake_cost", "nic_bandwidth", "noise_period", "noise_duration", "io_holds_cpu",
    "context_switch", "gs_context_switch", "interrupt", "queue_move", "endpoint_check",
)  # fmt: skip


def _readings(params: Mapping[str, Scalar], ts: TSParams) -> TSParams:
    """``ts`` with the cell's named readings (:data:`READINGS`) set.

    Raises:
        ConfigError: a reading that is not a number, or that TSParams refuses.
    """
    given = {k: _number(params[k], k) for k in READINGS if k in params}
    return ts.with_(**given) if given else ts


def ts_params(params: Mapping[str, Scalar]) -> TSParams:
    """The model's parameters of a cell: its message size, Table 5 cost variant and
    named readings (:data:`READINGS`, each off unless the cell names it)."""
    msg = 4096.0 * int(params["msg_factor"])  # type: ignore[arg-type]
    ts = TSParams(msg_size=msg).with_(**OVERHEADS[str(params.get("variant", ""))])
    return _readings(params, ts)


def draw_seed(seed: int, workload: str) -> int:
    """Seed of a cell's workload and skew draws: the experiment seed and workload only."""
    return int(np.random.SeedSequence([seed, int(workload[2:])]).generate_state(1)[0])


def cell_simulation(
    params: Mapping[str, Scalar], seed: int
) -> tuple[TimeSharingSim, Workload, float]:
    """What a cell simulates: the run, built and not started, its workload and its
    horizon (:func:`run_cell` runs it to the horizon; a study may step through it with
    :meth:`TimeSharingSim.advance`)."""
    s = draw_seed(seed, str(params["workload"]))
    load = offered_load(params)
    w = make_workload(
        int(params["n_jobs"]),  # type: ignore[arg-type]
        rng=np.random.default_rng(s),
        nodes=NODES,
        workload=str(params["workload"]),
        skew=float(params["skew"]),  # type: ignore[arg-type]
        load=load,
        time_scale=_number(params.get("time_scale", TIME_SCALE), "time_scale"),
        max_run=MAX_RUN,
    )
    t = w.table
    horizon = HORIZON_FACTOR * float(t["submit_time"].max() + t["run_time"].max())
    sim = TimeSharingSim(
        w,
        scheme=str(params["scheme"]),
        nodes=NODES,
        mpl=int(params["mpl"]),  # type: ignore[arg-type]
        rng=np.random.default_rng(s + 1),
        params=ts_params(params),
    )
    return sim, w, horizon


def offered_load(params: Mapping[str, Scalar]) -> float:
    """The cell's offered load: its ``load`` times its ``load_scale`` (1 unless named)."""
    return float(params["load"]) * _number(params.get("load_scale", 1.0), "load_scale")  # type: ignore[arg-type]


def run_cell(params: Mapping[str, Scalar], seed: int, env: CellEnv) -> dict[str, Any]:
    """Simulate one configuration: the time-sharing summary (``ts_summary``) and horizon."""
    mpl = int(params["mpl"])  # type: ignore[arg-type]
    sim, _, horizon = cell_simulation(params, seed)
    r = sim.run(horizon)
    m = ts_summary(r, nodes=NODES, mpl=mpl)
    out = {k: (math.nan if v is None else v) for k, v in m.items() if k not in params}
    out["useful_share"] = m[USEFUL[str(params.get("useful", "work"))]]
    return {**out, "offered_load": offered_load(params), "horizon": horizon}
