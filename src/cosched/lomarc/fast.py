"""The fast path of the built-in LOMARC policies: the compiled loop of
:mod:`cosched.lomarc._kernel`, selected automatically.

:meth:`Lomarc.compiled_run <cosched.lomarc.policies.Lomarc.compiled_run>` hands a
simulation here (the engine's fast path asks every policy first). It runs on the
compiled loop when the policy is one of the built-in variants itself (not a subclass:
a user's subclass keeps the Python interface and the general loop), with its own rate
model (or none, for PSS), on the paper's machine
(:func:`~cosched.lomarc.policies.lomarc_platform` of any size), without capacity
checks, on a workload in memory with the profile columns (a progress callback hears of
the end only, as on the batch fast path). Otherwise the general loop runs, unchanged.
Schedules, placements, the policy's counters and the engine's are the same on both
paths (``tests/lomarc/test_fast.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cosched.engine.decisions import on_nodes
from cosched.lomarc import policies as P
from cosched.lomarc.matching import Funnel
from cosched.lomarc.rates import PairRates

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation, SimulationResult

__all__ = ["BUILT_IN", "eligible", "try_run"]

#: The policies the compiled loop runs (exact types).
BUILT_IN: frozenset[type] = frozenset(
    {
        P.Lomarc,
        P.LomarcPSS,
        P.LomarcAC,
        P.LomarcAM,
        P.LomarcN,
        P.LomarcU1,
        P.LomarcU2,
        P.LomarcR,
        P.LomarcFM,
    }
)
_SEARCH = {"queue": 0, "adjacent": 1, "none": 2}
_HEURISTIC = {"u1": 0, "u2": 1, "response": 2, "first": 3}


def eligible(sim: Simulation) -> bool:
    """Whether ``sim`` may run on the compiled loop (see the module docstring)."""
    policy = sim.policy
    if type(policy) not in BUILT_IN or sim.check:
        return False
    assert isinstance(policy, P.Lomarc)
    if sim.streamed or not sim.placing:
        return False
    if policy.pairing:
        rates = sim.rate_model
        if type(rates) is not PairRates or rates.profiles is not policy._profiles:
            return False
    elif sim.rate_model is not None:
        return False
    if sim.platform != P.lomarc_platform(sim.platform.nodes):
        return False
    cols = sim.workload.columns
    return all(c in cols for c in P.LOMARC_COLUMNS)


def try_run(sim: Simulation) -> SimulationResult | None:
    """Run ``sim`` on the compiled loop; None when it is not :func:`eligible`."""
    if not eligible(sim):
        return None
    from cosched.engine.jit import announced
    from cosched.lomarc._kernel import lomarc_loop

    policy = sim.policy
    assert isinstance(policy, P.Lomarc)
    n = sim.n_jobs
    cols = sim.workload.columns
    submit, run, est, size = (np.array(c) for c in sim.columns)
    f64 = np.float64
    # One row per job: class (as profile_of reads it, an integer), CPU, network, disk,
    # memory, the CPU-pairing draw (2 without the column, as profile_of).
    prof = np.empty((n, 6), dtype=f64)
    prof[:, 0] = np.asarray(cols["lomarc_class"]).astype(np.int64)
    for k, c in enumerate(P.LOMARC_COLUMNS[1:], 1):
        prof[:, k] = cols[c]
    prof[:, 5] = cols.get("lomarc_cpu_slowdown", 2.0)
    model = policy._rules.model
    iparams = np.array(
        [
            model.hyperthreaded,
            policy.check_match,
            policy.medium_long_only,
            _SEARCH[policy.search],
            policy.running,
            _HEURISTIC[policy.heuristic],
            policy.pairing,
            policy.predict,
            policy.arrivals == "queue",
            policy.weak_spare is not None,
            policy.max_slowdown is not None,
            policy.aging_time is not None,
        ],
        dtype=np.int64,
    )
    fparams = np.array(
        [
            policy.weak_spare or 0.0,
            policy.max_slowdown or 0.0,
            model.mem_slowdown,
            policy.aging_time or 0.0,
            policy.bound,
            model.standard_cpu_factor,
        ],
        dtype=f64,
    )
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    off = np.zeros(n, dtype=np.int64)
    np.cumsum(size[:-1], out=off[1:])
    jnodes = np.zeros(int(size.sum()), dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    funnel = np.zeros(9, dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    stats = np.zeros(3, dtype=np.int64)
    arrivals_f = np.zeros(4, dtype=f64)
    arrivals_i = np.zeros(2, dtype=np.int64)
    with announced("the LOMARC kernel", lomarc_loop):
        lomarc_loop(
            submit, run, est, size, prof, sim.platform.nodes, iparams, fparams,
            model.formula, start, end, jnodes, off, order, funnel, counts, stats,
            arrivals_f, arrivals_i,
        )  # fmt: skip
    # The policy's state as the general loop leaves it.
    policy.funnel = Funnel(*funnel.tolist())
    policy.counts["queue_pairs"] = int(counts[0])
    policy.counts["running_pairs"] = int(counts[1])
    arr = policy._arrivals
    arr.first, arr.last, arr.short_work, arr.long_work = arrivals_f.tolist()
    arr.count, arr.short_count = arrivals_i.tolist()
    # The engine's record of where each job ran, in start order.
    # ``on_nodes(nodes, 1)`` of each job, from one (node, 1) pair per node.
    pairs = on_nodes(range(sim.platform.nodes), 1)
    flat = list(map(pairs.__getitem__, jnodes.tolist()))
    offs, sizes = off.tolist(), size.tolist()
    placed = {i: tuple(flat[offs[i] : offs[i] + sizes[i]]) for i in order.tolist()}
    passes, decisions, rate_changes = stats.tolist()
    return sim.finish_compiled(
        start, end, passes=passes, decisions=decisions, placements=placed, slots=sizes,
        rate_changes=rate_changes,
    )  # fmt: skip
