"""The fast path: built-in FCFS and EASY run as one loop over job columns.

:meth:`Simulation.run <cosched.engine.simulation.Simulation.run>` hands a simulation to
:func:`try_run` first. When the policy is the built-in :class:`Fcfs` or
:class:`EasyBackfilling` itself (not a subclass) with the submit order, and nothing
needs the general loop (no rate model, no node ledger, no capacity checks), the whole
simulation is one call of :func:`cosched.engine._batch_kernels.batch_loop` on numpy
columns: no :class:`~cosched.workload.job.Job` object, no decision object, no policy
call per pass. Every other case (a user's policy, another order, a family policy) runs
the general loop, unchanged. The schedules, the engine counters and the result table
are the same on both paths (``tests/engine/test_fastpath.py``).

FCFS and EASY run compiled for large workloads and as plain Python on lists for smaller
ones. The compiled loop is the one :mod:`cosched._aot` compiled ahead of time when it is
built (it loads in about a millisecond; from :data:`AOT_FROM` jobs, and built on first
use from :data:`AOT_BUILD_FROM`), else numba's just-in-time one (:data:`COMPILE_FROM`):
importing numba and loading its cached machine code costs a fixed few tenths of a
second per process, more than the plain loop spends on tens of thousands of jobs
(docs/performance.md has the measurements). All three are the same schedule.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation, SimulationResult

__all__ = ["AOT_BUILD_FROM", "AOT_FROM", "COMPILE_FROM", "eligible", "try_run"]

#: Workloads with at least this many jobs run the compiled loop, by policy code (FCFS,
#: EASY); smaller ones the same loop as plain Python. Importing numba and loading the
#: cached machine code costs 0.4-0.6 s of CPU per process; the plain loop costs about
#: 2 µs a job for FCFS and 5-15 µs for EASY (docs/performance.md, "The fast path for
#: FCFS, EASY and conservative"), hence the break-even sizes.
#: ``COSCHED_FASTPATH_COMPILE_FROM`` (or setting this) overrides both and
#: :data:`AOT_FROM`: compiled from exactly that size, ahead of time when that form can be
#: built, else just in time (tests use it to run both forms on the same
#: workloads; ``COSCHED_AOT=0`` leaves out the ahead-of-time form).
COMPILE_FROM: int | None = None
_BREAK_EVEN = (250_000, 100_000)
#: The break-even when numba is loaded already (the reader's compiled parser ran on a
#: long trace): loading one more cached kernel then costs about 0.013 s, what the plain
#: FCFS loop spends on some 7,000 jobs (docs/performance.md). Schedules are the same.
LOADED_COMPILE_FROM = 10_000
#: Workloads with at least this many jobs run the loop compiled ahead of time when it
#: is built: loading it (about 2 ms) costs what the plain FCFS loop spends on 1,000 jobs.
AOT_FROM = 1_000
#: ... and build it first when it is not (once per machine and version, about 6 s of
#: CPU in a child process; docs/performance.md, "The batch loop and parser compiled
#: ahead of time").
AOT_BUILD_FROM = 10_000


def _forced_compile_from() -> int | None:
    value = os.environ.get("COSCHED_FASTPATH_COMPILE_FROM")
    if value is not None:
        return int(value)
    return COMPILE_FROM


def _compile_from(code: int) -> int:
    forced = _forced_compile_from()
    if forced is not None:
        return forced
    if "numba" in sys.modules:
        return min(LOADED_COMPILE_FROM, _BREAK_EVEN[code])
    return _BREAK_EVEN[code]


def _compiled_loop(n: int, code: int) -> Callable[..., None] | None:
    """The compiled batch loop for ``n`` jobs of policy ``code``, or None for the plain
    one: ahead of time if built (or to be built), else numba's just-in-time loop."""
    from cosched import _aot

    forced = _forced_compile_from()
    if forced is not None:  # tests: compiled from exactly this size, by whichever form
        if n < forced:
            return None
        kernels = _aot.load(build=True)
    else:
        kernels = _aot.load(build=n >= AOT_BUILD_FROM) if n >= AOT_FROM else None
    if kernels is not None:
        return functools.partial(_aot.batch_loop, kernels)
    if n < _compile_from(code):
        return None
    from cosched.engine._batch_jit import batch_loop

    return batch_loop


def _loaded(module: str, name: str) -> type | None:
    """The class ``module.name`` if that module is imported (else no policy is one)."""
    mod = sys.modules.get(module)
    return None if mod is None else getattr(mod, name, None)


def eligible(sim: Simulation) -> int | None:
    """The kernel's policy code (0 FCFS, 1 EASY, 2 conservative), or None when the
    general loop must run."""
    if sim.rate_model is not None or sim._ledger is not None or sim.check:
        return None
    # Look the classes up without importing their modules: conservative's loads numba,
    # which FCFS and EASY on a small workload must not pay for.
    kind = type(sim.policy)
    if kind is _loaded("cosched.policies.fcfs", "Fcfs"):
        code = 0
    elif kind is _loaded("cosched.policies.easy", "EasyBackfilling"):
        code = 1
    elif kind is _loaded("cosched.policies.conservative", "ConservativeBackfilling"):
        _, run, est, _ = sim._columns
        if (run > est).any():  # a job outlives its estimate: the policy's rebuilds
            return None
        code = 2
    else:
        return None
    if sim.policy.order != "submit":  # type: ignore[attr-defined]
        return None
    return code


def try_run(sim: Simulation) -> SimulationResult | None:
    """Run ``sim`` on the fast path and return its result, or None if it is not eligible."""
    lomarc = _loaded("cosched.lomarc.policies", "Lomarc")
    if lomarc is not None and isinstance(sim.policy, lomarc):
        from cosched.lomarc.fast import try_run as lomarc_run

        return lomarc_run(sim)
    code = eligible(sim)
    if code is None:
        return None
    if code == 2:
        return _conservative(sim)
    window = getattr(sim.policy, "window", None)
    win = -1 if window is None else int(window)
    n = sim._n
    start: Any
    end: Any
    batch_loop = _compiled_loop(n, code)
    if batch_loop is not None:
        f64, i64 = np.float64, np.int64
        # Fresh writeable copies: one machine-code signature whatever the table holds.
        submit, run, est, size = (np.array(c) for c in sim._columns)
        start = np.full(n, np.nan)
        end = np.full(n, np.nan)
        counts = np.zeros(3, dtype=i64)
        batch_loop(
            submit, run, est, size, sim._capacity, code, win, start, end,
            np.empty(n, dtype=i64), np.empty(n, dtype=f64), np.empty(n, dtype=i64),
            np.empty(n, dtype=i64), np.empty(n, dtype=f64), np.empty(n, dtype=i64), counts,
        )  # fmt: skip
        stats = counts.tolist()
    else:
        sim._lists()
        nan = math.nan
        start = [nan] * n
        end = [nan] * n
        stats = [0, 0, 0]
        if all(np.isfinite(c).all() for c in sim._columns[:3]):
            from cosched.engine._batch_plain import plain_loop

            plain_loop(
                sim._submit, sim._run, sim._est, sim._sizes, sim._capacity, code, win, start,
                end, stats,
            )  # fmt: skip
        else:  # the kernel's comparisons with NaN, as written there
            from cosched.engine._batch_kernels import batch_loop as kernel_loop

            kernel_loop(
                sim._submit, sim._run, sim._est, sim._sizes, sim._capacity, code, win, start,
                end, [0] * n, [0.0] * n, [0] * n, [0] * n, [0.0] * n, [0] * n, stats,
            )  # fmt: skip
    return sim._fast_result(start, end, passes=stats[0], decisions=stats[1], started=stats[2])


def _conservative(sim: Simulation) -> SimulationResult:
    """Conservative backfilling, always compiled: its general loop loads numba too."""
    from cosched.engine._conservative_kernel import conservative_loop

    n = sim._n
    submit, run, est, size = (np.array(c) for c in sim._columns)
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    counts = np.zeros(4, dtype=np.int64)
    conservative_loop(submit, run, est, size, sim._capacity, start, end, counts)
    passes, decisions, started, delayed = counts.tolist()
    sim.policy.delayed = delayed  # type: ignore[attr-defined]
    return sim._fast_result(start, end, passes=passes, decisions=decisions, started=started)
