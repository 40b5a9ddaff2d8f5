"""The built-in gang policies' compiled pass (:data:`GANG_PASS`, its functions in
:mod:`cosched.gang._kernel`) on the engine's event loop, selected automatically.

:meth:`Gang.compiled_pass <cosched.gang.policies.Gang.compiled_pass>` declares it for
``gang`` and ``gang-slurm`` themselves (not a subclass: a user's subclass keeps the
Python interface and the general loop). The engine's fast path
(:mod:`cosched.engine.fastpath`) runs it when :func:`arguments` accepts the simulation:
the policy's own rate model, no capacity checks, a workload in memory whose
``gang_efficiency`` and ``gang_memory`` columns (if any) the policy accepts (otherwise
the general loop runs and names the job at its submission). Schedules, placements,
rates, the suspension accounting and the engine's counters are the same on both paths
(``tests/gang/test_fast.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cosched.engine.compiled import CompiledPass, ranked
from cosched.gang import _kernel as K
from cosched.gang import policies as P
from cosched.platform import Allocation
from cosched.policies.base import OwnRates
from cosched.policies.reservation import admit, window_next

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation

__all__ = ["BUILT_IN", "GANG_PASS", "arguments"]

#: The policies the compiled pass runs (exact types).
BUILT_IN: frozenset[type] = frozenset({P.Gang, P.GangSlurm})

#: Rows the pass's bit masks hold.
MAX_ROWS = 62


def _column(sim: Simulation, name: str, default: float) -> np.ndarray:
    w = sim.workload
    if name in w.profile_columns:
        return np.asarray(w.columns[name], dtype=np.float64)
    return np.full(sim.n_jobs, default)


def arguments(policy: P.Gang, sim: Simulation) -> K.GangParams | None:
    """The pass's parameters, or None when ``sim`` needs the general loop."""
    if type(policy) not in BUILT_IN or sim.check or sim.streamed:
        return None
    rates = sim.rate_model
    if type(rates) is not OwnRates or rates.policy is not policy or policy.mpl > MAX_ROWS:
        return None
    eta = _column(sim, P.EFFICIENCY_COLUMN, 1.0)
    mem = _column(sim, P.MEMORY_COLUMN, policy.job_memory)
    if not (np.isfinite(eta).all() and (eta > 0).all() and np.isfinite(mem).all()):
        return None  # the general loop names the job
    if policy.memory_limit is not None and (mem > policy.memory_limit).any():
        return None
    p = sim.platform
    return K.GangParams(
        rows=policy.mpl,
        columns=p.capacity,
        buddy=policy.packing == "buddy",
        alternate=policy.alternate,
        backfill=policy.backfill,
        window=-1 if policy.window is None else policy.window,
        limited=policy.memory_limit is not None,
        cores=p.cores,
        per_core=p.allocation is Allocation.CORES,
        slot=policy.quantum + policy.switch_cost,
        efficiency=policy.efficiency,
        memory_limit=policy.memory_limit or 0.0,
    )


def table(policy: P.Gang, sim: Simulation) -> np.ndarray:
    """One row per job: memory per unit, efficiency factor (inputs), then the columns
    the pass writes (seconds suspended, switches, accounting rank, row, start rank)."""
    t = np.zeros((sim.n_jobs, K.TABLE_COLUMNS), dtype=np.float64)
    t[:, K.MEM] = _column(sim, P.MEMORY_COLUMN, policy.job_memory)
    t[:, K.ETA] = _column(sim, P.EFFICIENCY_COLUMN, 1.0)
    return t


def absorb(policy: P.Gang, counters: list[int], floats: list[float], t: np.ndarray) -> None:
    """The policy's accounting as the general loop leaves it (the dictionaries in the
    order it fills them)."""
    policy._rows_seen = counters[0]
    settled = ranked(t, K.SETTLED)
    keys = settled.tolist()
    policy.suspended = dict(zip(keys, t[settled, K.SUSPENDED].tolist(), strict=True))
    policy.switches = dict(zip(keys, t[settled, K.SWITCHES].tolist(), strict=True))
    started = ranked(t, K.STARTED)
    rows = t[started, K.ROW].astype(np.int64).tolist()
    policy.row_of = dict(zip(started.tolist(), rows, strict=True))


def sample(rng: np.random.Generator, n: int) -> tuple[int, K.GangParams, np.ndarray]:
    """Three rows over 16 single-core nodes, buddy packing, a memory limit some jobs
    press on, efficiency factors: the build's check."""
    params = K.GangParams(
        rows=3, columns=16, buddy=True, alternate=True, backfill=True, window=-1, limited=True,
        cores=1, per_core=True, slot=31.0, efficiency=30.0 / 31.0, memory_limit=4.0,
    )  # fmt: skip
    t = np.zeros((n, K.TABLE_COLUMNS))
    t[:, K.MEM] = rng.choice([0.0, 1.0, 2.5], n)
    t[:, K.ETA] = rng.choice([1.0, 0.8, 1.25], n)
    return 16, params, t


GANG_PASS = CompiledPass(
    name="gang",
    init=K.gang_init,
    schedule=K.gang_pass,
    ended=K.gang_ended,
    report=K.gang_report,
    rates=K.gang_rates,
    arguments=arguments,
    params=K.GangParams,
    table=table,
    absorb=absorb,
    places=True,
    calls=(
        K._popcount,
        K._block,
        K._cyclic_runs,
        admit,
        window_next,
        K._fit,
        K._width,
        K._scan,
        K._touch,
        K._settle,
        K._start,
        K._reserve,
        K._max_free,
        K._backfill,
        K._share,
    ),
    reports=K.REPORTS,
    sample=sample,
)
