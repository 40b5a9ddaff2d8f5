"""The fast path: a policy's compiled pass on the engine's compiled event loop.

:meth:`Simulation.run <cosched.engine.simulation.Simulation.run>` hands a simulation to
:func:`try_run` first. A policy class with a compiled form declares its pass
(:meth:`~cosched.policies.base.Policy.compiled_pass`, a
:class:`~cosched.engine.compiled.CompiledPass`: FCFS, EASY and conservative
backfilling, the built-in LOMARC variants), and the whole simulation is then one call
of the event loop (:mod:`cosched.engine.loop`) with that pass bound, on numpy columns:
no :class:`~cosched.workload.job.Job` object, no decision object, no policy call per
pass. It runs when nothing needs the general loop (a workload in memory, no capacity
checks; a rate model only for a pass with rate changes, a node ledger only for one that
places its jobs) and the pass accepts the instance and the simulation (its
``arguments``). Every other case runs the general loop, unchanged. The schedules, the
engine counters and the result table are the same on every path
(``tests/engine/test_fastpath.py``, ``tests/lomarc/test_fast.py``).

The loop runs compiled for large workloads and as plain Python for smaller ones. The
compiled loop is the one :mod:`cosched.engine.aot` compiled ahead of time when it is
built (it loads in about a millisecond; from :data:`AOT_FROM` jobs, or any size for a
pass that is always compiled, and built on first use from :data:`AOT_BUILD_FROM`),
else numba's just-in-time one (:data:`COMPILE_FROM`):
importing numba and loading its cached machine code costs a fixed few tenths of a
second per process, more than the plain loop spends on thousands of jobs
(docs/performance.md has the measurements). All three are the same source, the same
schedule.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from cosched.compile import announced
from cosched.engine.compiled import CompiledPass, bound_loop, params_of
from cosched.engine.ledger import Placements
from cosched.platform import Allocation

if TYPE_CHECKING:
    from cosched.engine.simulation import Simulation, SimulationResult

__all__ = ["AOT_BUILD_FROM", "AOT_FROM", "COMPILE_FROM", "Plan", "eligible", "try_run"]

#: Workloads with at least this many jobs run the loop compiled just in time when no
#: ahead-of-time form is at hand; smaller ones the same loop as plain Python. Importing
#: numba and loading the cached machine code costs 0.4-0.6 s of CPU per process; the
#: plain loop (numpy arrays read element by element in the interpreter) costs some
#: 15-35 µs a job for FCFS and EASY, hence the break-even size.
#: ``COSCHED_FASTPATH_COMPILE_FROM`` (or setting this) overrides it and
#: :data:`AOT_FROM`: compiled from exactly that size, ahead of time when that form can
#: be built, else just in time (tests use it to run both forms on the same workloads;
#: ``COSCHED_AOT=0`` leaves out the ahead-of-time form).
COMPILE_FROM: int | None = None
_BREAK_EVEN = 15_000
#: The break-even when numba is loaded already (the reader's compiled parser ran on a
#: long trace): loading one more cached kernel then costs about 0.013 s, what the plain
#: loop spends on some 500 jobs. Schedules are the same.
LOADED_COMPILE_FROM = 500
#: Workloads with at least this many jobs run the loop compiled ahead of time when it
#: is built: loading it (about 2 ms) costs what the plain loop spends on 100 jobs.
AOT_FROM = 100
#: ... and build it first when it is not (once per machine, version and pass, some
#: seconds of CPU in a child process, announced on stderr).
AOT_BUILD_FROM = 10_000


class Plan(NamedTuple):
    """What the fast path runs: a pass, its instance's parameters and per-job inputs."""

    spec: CompiledPass
    params: Any  #: a ``spec.params``
    table: np.ndarray


def _forced_compile_from() -> int | None:
    value = os.environ.get("COSCHED_FASTPATH_COMPILE_FROM")
    if value is not None:
        return int(value)
    return COMPILE_FROM


def _compile_from() -> int:
    forced = _forced_compile_from()
    if forced is not None:
        return forced
    if "numba" in sys.modules:
        return LOADED_COMPILE_FROM
    return _BREAK_EVEN


def _loop(spec: CompiledPass, n: int) -> Callable[..., None]:
    """The bound loop for ``n`` jobs: ahead of time if built (or to be built), else
    numba's just-in-time loop, else plain Python."""
    from cosched.engine import aot

    forced = _forced_compile_from()
    if forced is not None:  # tests: compiled from exactly this size, by whichever form
        compiled = n >= forced
        built = aot.load_loop(spec, build=True) if compiled else None
    else:
        compiled = spec.always_compiled or n >= _compile_from()
        # A pass compiled whatever the size loads its built loop even for a few jobs:
        # about 2 ms, against numba's import and cached code (some 0.5 s).
        ahead = n >= AOT_FROM or spec.always_compiled
        built = aot.load_loop(spec, build=n >= AOT_BUILD_FROM) if ahead else None
    if built is not None:
        return built
    return bound_loop(spec, compiled=compiled)


def eligible(sim: Simulation) -> Plan | None:
    """The pass and parameters the fast path runs ``sim`` with, or None when the
    general loop must run."""
    if sim.check or sim.streamed:
        return None
    spec = type(sim.policy).compiled_pass()
    if spec is None:
        return None
    if (sim.rate_model is not None and spec.rates is None) or (sim.placing and not spec.places):
        return None
    if sim.platform.unavailable and not spec.drains:
        return None
    params = spec.arguments(sim.policy, sim)
    if params is None:
        return None
    n = sim.n_jobs
    table = np.zeros((n, 0)) if spec.table is None else spec.table(sim.policy, sim)
    return Plan(spec, params_of(spec, params), np.ascontiguousarray(table, dtype=np.float64))


def try_run(sim: Simulation) -> SimulationResult | None:
    """Run ``sim`` on the fast path and return its result, or None if it is not eligible."""
    plan = eligible(sim)
    if plan is None:
        return None
    spec = plan.spec
    n = sim.n_jobs
    # Fresh writeable copies: one machine-code signature whatever the table holds.
    submit, run, est, size = (np.ascontiguousarray(c).copy() for c in sim.columns)
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    order = np.zeros(n, dtype=np.int64)
    placed = np.zeros(int(size.sum()) * spec.room if spec.places else 0, dtype=np.int64)
    stats = np.zeros(4 + spec.reports, dtype=np.int64)
    fstats = np.zeros(spec.freports, dtype=np.float64)
    loop = _loop(spec, n)
    with announced(f"the {spec.name} event loop", loop):  # numba's, when not built
        loop(
            submit, run, est, size, plan.table, sim.capacity, plan.params, start, end,
            order, placed, stats, fstats,
        )  # fmt: skip
    counters: list[Any] = stats.tolist()
    spec.absorb(sim.policy, counters[4:], fstats.tolist(), plan.table)
    passes, decisions, started, changes = counters[:4]
    if spec.drains:  # the wake-ups at the unavailability's steps are the engine's own
        decisions -= counters[4]
    rate_changes = changes if spec.rates is not None else None
    if not (spec.places and sim.placing):
        return sim.finish_compiled(
            start, end, passes=passes, decisions=decisions, rate_changes=rate_changes
        )
    if spec.placements is not None:
        placements, slots = spec.placements(sim, placed, order[:started], plan.table)
    else:
        placements, slots = _placements(sim, placed, size, order[:started])
    return sim.finish_compiled(
        start, end, passes=passes, decisions=decisions, placements=placements, slots=slots,
        rate_changes=rate_changes,
    )  # fmt: skip


def _placements(
    sim: Simulation, placed: np.ndarray, size: np.ndarray, order: np.ndarray
) -> tuple[Placements, list[int]]:
    """Where each job ran, in start order, from the node of each of its units
    (:attr:`Jobs.placed <cosched.engine.loop.Jobs.placed>`), and the slots each holds:
    a unit takes the slots of one of the platform's units on its node (a node's cores
    in node allocation, one in core allocation); a job's units on one node are one
    entry."""
    p = sim.platform
    per = p.cores if p.allocation is Allocation.NODES else 1
    n = len(size)
    offs = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(size, out=offs[1:])
    order = np.asarray(order, dtype=np.int64)
    widths = size[order].astype(np.int64)
    # The started jobs' units, job after job in start order.
    ends = np.cumsum(widths)
    units = np.arange(int(ends[-1]) if ends.size else 0, dtype=np.int64)
    units += np.repeat(offs[order] - (ends - widths), widths)
    nodes = placed[units]
    bounds = np.zeros(order.size + 1, dtype=np.int64)
    # A new entry at each job's first unit and wherever the node changes (units of one
    # job on one node sit next to each other: nondecreasing nodes).
    new = np.empty(nodes.size, dtype=bool)
    np.not_equal(nodes[1:], nodes[:-1], out=new[1:])
    new[:1] = True
    new[(ends - widths)[widths > 0]] = True
    if new.all():  # each unit of a job on a node of its own: one entry per unit
        bounds[1:] = ends
        return Placements(order, bounds, nodes, np.full(nodes.size, per)), (size * per).tolist()
    heads = np.flatnonzero(new)
    counts = np.diff(np.append(heads, nodes.size))
    owner = np.repeat(np.arange(order.size), widths)  # each unit's position in order
    np.cumsum(np.bincount(owner[heads], minlength=order.size), out=bounds[1:])
    return Placements(order, bounds, nodes[heads], counts * per), (size * per).tolist()
