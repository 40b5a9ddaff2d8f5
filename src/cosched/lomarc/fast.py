"""The built-in LOMARC policies' compiled pass (:data:`LOMARC_PASS`: its hooks in
:mod:`cosched.lomarc._kernel`, its steps in :mod:`~cosched.lomarc._steps` and
:mod:`~cosched.lomarc._shadow`, named here as :class:`~cosched.engine.deferred.Deferred`
functions and imported only to compile the loop or run it as plain Python; its store's
layout in :mod:`~cosched.lomarc._layout`) on the engine's event loop, selected
automatically.

:meth:`Lomarc.compiled_pass <cosched.lomarc.policies.Lomarc.compiled_pass>` declares it
for the built-in variants themselves (not a subclass: a user's subclass keeps the
Python interface and the general loop). The engine's fast path
(:mod:`cosched.engine.fastpath`) runs it when :func:`arguments` accepts the simulation:
the variant's own rate model (or none, for PSS), the paper's machine
(:func:`~cosched.lomarc.policies.lomarc_platform` of any size), no capacity checks, a
workload in memory with the profile columns (a progress callback hears of the end
only, as on the batch fast path). Otherwise the general loop runs, unchanged.
Schedules, placements, the policy's counters and the engine's are the same on both
paths (``tests/lomarc/test_fast.py``).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from cosched.engine.compiled import CompiledPass
from cosched.engine.deferred import Deferred, deferred
from cosched.lomarc import _layout as L
from cosched.lomarc import policies as P
from cosched.lomarc.matching import (
    Funnel,
    classes_match,
    expected_arrivals,
    response_impact,
    u_gain,
)
from cosched.lomarc.rates import PairRates
from cosched.lomarc.slowdown import FORMULAS, pair_ends, pair_value, shared_cost
from cosched.policies.reservation import admit

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation
    from cosched.lomarc import _kernel as K

__all__ = ["BUILT_IN", "LOMARC_PASS", "arguments", "eligible"]

#: The policies the compiled pass runs (exact types).
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
_SEARCH = {"queue": L.SEARCH_QUEUE, "adjacent": L.SEARCH_ADJACENT, "none": L.SEARCH_NONE}
_HEURISTIC = {"u1": L.U1, "u2": L.U2, "response": L.RESPONSE, "first": L.FIRST}


def eligible(sim: Simulation) -> bool:
    """Whether ``sim`` may run on the compiled pass (see the module docstring)."""
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


def arguments(policy: P.Lomarc, sim: Simulation) -> L.LomarcParams | None:
    """The pass's parameters, or None when ``sim`` needs the general loop."""
    if not eligible(sim):
        return None
    model = policy._rules.model
    unknown = [
        f"{what} {name!r}"
        for what, name, known in (
            ("heuristic", policy.heuristic, _HEURISTIC),
            ("search", policy.search, _SEARCH),
            ("slowdown formula", model.formula, FORMULAS),
        )
        if name not in known
    ]
    if unknown:  # a plugin's choice: its Python form runs on the general loop
        warnings.warn(
            f"{policy.name}: the compiled pass does not know the {', '.join(unknown)}; "
            "the general loop runs it",
            stacklevel=2,
        )
        return None
    return L.LomarcParams(
        hyperthreaded=model.hyperthreaded,
        check_match=policy.check_match,
        medium_long_only=policy.medium_long_only,
        search=_SEARCH[policy.search],
        running=policy.running,
        heuristic=_HEURISTIC[policy.heuristic],
        pairing=policy.pairing,
        predict=policy.predict,
        arrivals_queue=policy.arrivals == "queue",
        has_weak_spare=policy.weak_spare is not None,
        has_max_slowdown=policy.max_slowdown is not None,
        has_aging=policy.aging_time is not None,
        formula=FORMULAS.index(model.formula),
        nodes=sim.platform.nodes,
        weak_spare=policy.weak_spare or 0.0,
        max_slowdown=policy.max_slowdown or 0.0,
        mem_slowdown=model.mem_slowdown,
        aging_time=policy.aging_time or 0.0,
        bound=policy.bound,
        standard_cpu_factor=model.standard_cpu_factor,
    )


def table(policy: P.Lomarc, sim: Simulation) -> np.ndarray:
    """One row per job: class (as ``profile_of`` reads it, an integer), CPU, network,
    disk, memory, the CPU-pairing draw (2 without the column, as ``profile_of``)."""
    cols = sim.workload.columns
    prof = np.empty((sim.n_jobs, 6), dtype=np.float64)
    prof[:, 0] = np.asarray(cols["lomarc_class"]).astype(np.int64)
    for k, c in enumerate(P.LOMARC_COLUMNS[1:], 1):
        prof[:, k] = cols[c]
    prof[:, 5] = cols.get("lomarc_cpu_slowdown", 2.0)
    return prof


def absorb(policy: P.Lomarc, counters: list[int], floats: list[float], table: np.ndarray) -> None:
    """The policy's state as the general loop leaves it."""
    f = L.FUNNEL
    policy.funnel = Funnel(*counters[:f])
    policy.counts["queue_pairs"] = counters[f]
    policy.counts["running_pairs"] = counters[f + 1]
    arr = policy._arrivals
    arr.first, arr.last, arr.short_work, arr.long_work = floats
    arr.count, arr.short_count = counters[f + 2 : f + 4]


def sample(rng: np.random.Generator, n: int) -> tuple[int, L.LomarcParams, np.ndarray]:
    """LOMARC-R on 16 hyperthreaded nodes, random profiles: the build's check."""
    params = L.LomarcParams(
        True, True, True, L.SEARCH_QUEUE, True, L.RESPONSE, True, True, True, False, False,
        False, 0, 16, 0.0, 0.0, 1.5, 0.0, 10.0, 1.0,
    )  # fmt: skip
    prof = rng.random((n, 6))
    prof[:, 0] = rng.integers(0, 4, n)
    prof[:, 4] *= 0.7
    prof[:, 5] = 1.0 + rng.random(n)
    return 16, params, prof


#: The modules of the pass's hooks and steps: named, not imported, so that a run whose
#: loop is built ahead of time does not compile their source (docs/performance.md).
_K, _S, _H = "cosched.lomarc._kernel", "cosched.lomarc._steps", "cosched.lomarc._shadow"

LOMARC_PASS = CompiledPass(
    name="lomarc",
    # Each hook typed as the function it names, for mypy (which reads the import).
    init=deferred(_K, "lomarc_init", K.lomarc_init if TYPE_CHECKING else None),
    schedule=deferred(_K, "lomarc_pass", K.lomarc_pass if TYPE_CHECKING else None),
    ended=deferred(_K, "lomarc_ended", K.lomarc_ended if TYPE_CHECKING else None),
    report=deferred(_K, "lomarc_report", K.lomarc_report if TYPE_CHECKING else None),
    rates=deferred(_K, "lomarc_rates", K.lomarc_rates if TYPE_CHECKING else None),
    arguments=arguments,
    params=L.LomarcParams,
    table=table,
    absorb=absorb,
    places=True,
    helpers=(
        shared_cost,
        pair_value,
        classes_match,
        u_gain,
        response_impact,
        expected_arrivals,
        pair_ends,
        admit,
        *(
            Deferred(module, name)
            for module, name in (
                (_S, "_cpu_factor"),
                (_S, "_pair_sl"),
                (_S, "_screen"),
                (_S, "_put"),
                (_H, "_kth_smallest"),
                (_H, "_mark"),
                (_H, "_shadow_time"),
                (_K, "_order"),
                (_K, "_response_inputs"),
                (_S, "_override"),
                (_S, "_queue_match"),
                (_S, "_start"),
                (_S, "_list_hosts"),
                (_S, "_list_free"),
                (_S, "_memo_swap"),
                (_S, "_eligible_hosts"),
                (_S, "_ride"),
                (_S, "_host_key"),
                (_S, "_admit_start"),
                (_S, "_ride_profit"),
                (_K, "_finish"),
                (_K, "_free_merge"),
            )
        ),
    ),
    idle_passes=True,
    idle_calls=False,  # an empty queue: no submission to count, nothing to start
    always_compiled=True,
    reports=L.REPORTS,
    freports=L.FREPORTS,
    sample=sample,
)
