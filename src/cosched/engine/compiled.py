"""Policies' compiled passes, and the event loop bound to each.

A policy with a compiled form declares it on its class
(:meth:`Policy.compiled_pass <cosched.policies.base.Policy.compiled_pass>`) as a
:class:`CompiledPass`: its functions in numba's subset of Python, written next to
the policy, and the instance's parameters as two small arrays. :func:`bound_loop`
binds them into a copy of :func:`cosched.engine.loop.event_loop` (each copy its own
function, so numba's cache keeps one machine code per pass), plain or compiled by
numba just in time; :mod:`cosched.engine.aot` compiles the same copy ahead of time.
The engine never imports a policy: it is handed the pass.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any

from cosched.compile import jit, key
from cosched.engine import loop

__all__ = ["CompiledPass", "bound_loop", "ranked", "source_files", "variant"]


@dataclass(frozen=True)
class CompiledPass:
    """A policy's scheduling pass in compiled form (see :mod:`cosched.engine.loop`).

    Attributes:
        name: a name for the pass, unique among passes (names the compiled code).
        init: ``init(jobs, capacity, iparams, fparams) -> (store, state)``: the pass's
            fixed arrays (changed in place) and its state (a named tuple, replaced).
        schedule: ``schedule(store, state, jobs, queue, head, tail, fresh, free, epoch,
            now, chosen) -> (state, head, tail, k, wake)``: one pass at ``now``; the jobs to
            start are ``chosen[:k]`` in decision order (the pass may compact
            ``queue[head:tail]``, and must drop the jobs it starts from it or leave them
            behind, started); ``wake``: a wake-up asked for, or NaN.
        ended: ``ended(store, state, jobs, j, now) -> state``: job ``j`` completed.
        report: ``report(store, state, out, fout)``: the pass's counters into ``out``
            (an int64 array of :attr:`reports` entries) and ``fout`` (float64, of
            :attr:`freports`).
        arguments: ``arguments(policy, sim) -> (iparams, fparams)`` for a policy
            instance and its :class:`~cosched.engine.simulation.Simulation`, or None when
            this instance, platform or workload needs the general loop.
        absorb: ``absorb(policy, counters, floats, table)``: the report's counters and
            the table's output columns into the policy, as the general loop leaves it.
        table: ``table(policy, sim) -> array``: the pass's per-job columns, one float64
            row per job (:attr:`Jobs.table <cosched.engine.loop.Jobs.table>`): its
            inputs, and room for per-job outputs; None: none.
        rates: ``rates(store, state, jobs, ended, nended, chosen, k, now, who, rates) ->
            (state, m)``: after the starts of an instant, the running jobs whose progress
            rate changes, ``who[:m]`` to ``rates[:m]`` in the order the engine applies
            them (``ended[:nended]``: the jobs that ended at this instant, ``chosen[:k]``
            those that started). None: every job runs at rate 1, and the loop has no
            rate changes.
        places: the pass writes the node of each unit of each job it starts into
            :attr:`Jobs.placed <cosched.engine.loop.Jobs.placed>` (nodes in
            nondecreasing order within a job); the run's placements are then those, a
            unit taking the slots of one unit of the platform (a node's cores in node
            allocation, one slot in core allocation).
        room: entries of :attr:`Jobs.placed <cosched.engine.loop.Jobs.placed>` per unit
            of a job's size, for a pass that places its jobs in a layout of its own
            (read back by :attr:`placements`); 1: one entry per unit.
        placements: ``placements(sim, placed, order, table) -> (placements, slots)``: a
            placing pass's reading of what it wrote into ``placed`` (and its table):
            where each started job ran, ``{job: ((node, slots), ...)}`` in start order
            (``order``), and the slots each job held, by job index. None: the engine's
            reading (one node per unit, as :attr:`places` describes).
        helpers: the plain functions the pass's functions call, compiled with them and
            inlined into them, each after those it calls.
        calls: plain functions compiled out of line (numba's own calls, which LLVM may
            still inline), each after those it calls and before the helpers that call
            them: larger functions called from several places, which inlined would be
            compiled again at every call.
        plain_calls: ``plain_calls() -> {name: function}``: compiled forms of some of
            :attr:`calls` (compiled elsewhere, e.g. ahead of time with their own
            signatures), bound by name into the pass's functions when the loop runs as
            plain Python, so that a pass built on such kernels does not run them
            interpreted; None: the plain loop runs the pass's source as it is.
        depends: functions compiled elsewhere that the pass calls (their source
            files name the compiled code too).
        idle_passes: whether the pass runs at instants with an empty queue (each
            counts as a pass, as :attr:`Policy.idle_passes
            <cosched.policies.base.Policy.idle_passes>` makes the general loop count it).
        idle_calls: with :attr:`idle_passes`, whether such a pass calls ``schedule``;
            False for a pass that does nothing on an empty queue: the loop then only
            counts it (a call hands the pass its store, every array of which numba
            counts a reference to on the way in and out).
        drains: the pass replays the platform's unavailability
            (:attr:`Platform.unavailable <cosched.platform.machine.Platform.unavailable>`)
            as the general loop does: it reads the steps from its parameters, takes the
            units removed out of the free ones and asks for a wake-up at each step it has
            not asked for, which its first ``report`` counter counts and the engine does
            not count as a decision (the general loop wakes there on its own). False:
            a platform with unavailability runs the general loop.
        always_compiled: run the loop compiled whatever the workload's size (a pass
            that calls compiled functions loads numba anyway).
        reports: how many counters ``report`` writes into ``out``.
        freports: how many into ``fout``.
        sample: ``sample(rng, n) -> (capacity, iparams, fparams, table)``: valid
            arguments for a random workload of ``n`` jobs of 1-8 units, on which a
            build checks the compiled loop against its source.
    """

    name: str
    init: Callable[..., Any]
    schedule: Callable[..., Any]
    ended: Callable[..., Any]
    report: Callable[..., Any]
    arguments: Callable[[Any, Any], tuple[Sequence[int], Sequence[float]] | None]
    absorb: Callable[[Any, list[int], list[float], Any], None] = field(
        default=lambda policy, counters, floats, table: None
    )
    table: Callable[[Any, Any], Any] | None = None
    rates: Callable[..., Any] | None = None
    places: bool = False
    room: int = 1
    placements: Callable[[Any, Any, Any, Any], tuple[Mapping[int, Any], list[int]]] | None = None
    helpers: tuple[Callable[..., Any], ...] = ()
    calls: tuple[Callable[..., Any], ...] = ()
    plain_calls: Callable[[], dict[str, Any]] | None = None
    depends: tuple[Callable[..., Any], ...] = ()
    idle_passes: bool = False
    idle_calls: bool = True
    drains: bool = False
    always_compiled: bool = False
    reports: int = 0
    freports: int = 0
    sample: Callable[[Any, int], tuple[int, Any, Any, Any]] = field(
        default=lambda rng, n: _sample(n)
    )


def ranked(table: Any, column: int) -> Any:
    """The jobs whose entry in ``table[:, column]`` is a rank (not negative), in rank
    order: how a pass hands back the order in which its policy filled a per-job record
    (an ``absorb`` reads it)."""
    import numpy as np

    ranks = table[:, column]
    jobs = np.flatnonzero(ranks >= 0)
    return jobs[np.argsort(ranks[jobs], kind="stable")]


def _sample(n: int) -> tuple[int, Any, Any, Any]:
    """A batch pass's sample arguments: 16 units, parameters -1 (e.g. EASY's window:
    none) and 0, no per-job inputs."""
    import numpy as np

    return 16, np.full(4, -1, dtype=np.int64), np.zeros(4), np.zeros((n, 0))


def source_files(spec: CompiledPass) -> list[str]:
    """The source files the bound loop is compiled from (numba's cache checks only the
    loop's own file; a changed pass must not reuse old machine code), the module
    declaring the pass included (which functions it inlines or calls out of line changes
    the machine code too)."""
    files = {loop.__file__}
    home = sys.modules.get(spec.arguments.__module__)
    if home is not None and getattr(home, "__file__", None):
        files.add(home.__file__)  # type: ignore[arg-type]
    hooks = (spec.init, spec.schedule, spec.ended, spec.report, spec.rates or loop.no_rates)
    for f in (*hooks, *spec.calls, *spec.helpers, *spec.depends):
        files.add(getattr(f, "py_func", f).__code__.co_filename)
    return sorted(files)


@functools.cache
def variant(spec: CompiledPass) -> str:
    """The name of ``spec``'s bound loop: the pass's name and the :func:`key
    <cosched.compile.key>` of its sources (read once per process)."""
    return f"event_loop_{spec.name}_{key(files=source_files(spec), length=12)}"


def _rebind(f: Callable[..., Any], names: dict[str, Any], qualname: str) -> FunctionType:
    """``f`` with ``names`` rebound in a copy of its globals, as its own function."""
    code = f.__code__  # type: ignore[attr-defined]
    g = FunctionType(code, {**f.__globals__, **names}, f.__name__, f.__defaults__)  # type: ignore[attr-defined]
    g.__qualname__ = qualname
    g.__module__ = f.__module__
    g.__doc__ = f.__doc__
    return g


#: Each helper's compiled form, rebound to the compiled forms of those it calls.
_HELPERS: dict[Callable[..., Any], Any] = {}


def _helper(h: Callable[..., Any], helpers: dict[str, Any], *, inline: bool) -> Any:
    got = _HELPERS.get(h)
    if got is None:
        got = _HELPERS[h] = jit(_rebind(h, helpers, h.__qualname__), inline=inline)
    return got


def _bindings(spec: CompiledPass, compiled: bool, tag: str) -> dict[str, Any]:
    """The names the bound loop calls: the pass's functions (their helpers
    rebound to compiled ones when ``compiled``) and the loop's own helpers."""
    helpers: dict[str, Any] = {}
    if compiled:
        # The loop's callees are inlined into it in numba's own representation: left to
        # LLVM, each pass call hands over the job columns argument by argument, which
        # cost EASY's loop some 15 % (docs/performance.md).
        for h in spec.calls:  # each may call those listed before it
            helpers[h.__name__] = _helper(h, helpers, inline=False)
        for h in spec.helpers:  # each may call those listed before it
            helpers[h.__name__] = _helper(h, helpers, inline=True)
        for h in (loop.heap_push, loop.heap_pop, loop._heap_grow, loop._wake_push, loop._wake_pop):
            helpers[h.__name__] = jit(h, inline=True)
    plain = spec.plain_calls() if not compiled and spec.plain_calls is not None else None
    names: dict[str, Any] = dict(helpers)
    for slot, f in (
        ("policy_init", spec.init),
        ("policy_ended", spec.ended),
        ("policy_pass", spec.schedule),
        ("policy_report", spec.report),
        ("policy_rates", spec.rates or loop.no_rates),
    ):
        if compiled:
            names[slot] = jit(_rebind(f, helpers, f"{f.__qualname__}_{tag}"), inline=True)
        elif plain is not None:
            names[slot] = _rebind(f, plain, f.__qualname__)
        else:
            names[slot] = f
    names["IDLE_PASSES"] = spec.idle_passes
    names["IDLE_CALLS"] = spec.idle_passes and spec.idle_calls
    names["RATES"] = spec.rates is not None
    return names


_BOUND: dict[tuple[str, bool], Callable[..., None]] = {}


def bound_loop(spec: CompiledPass, *, compiled: bool) -> Callable[..., None]:
    """:func:`cosched.engine.loop.event_loop` with ``spec``'s pass bound: compiled by
    numba (``cache=True``: compiled once per machine and source) or plain Python."""
    tag = variant(spec)
    got = _BOUND.get((tag, compiled))
    if got is None:
        g = _rebind(loop.event_loop, _bindings(spec, compiled, tag), tag)
        got = _BOUND[tag, compiled] = jit(g) if compiled else g
    return got


def plain_source(spec: CompiledPass) -> FunctionType:
    """The bound loop as plain Python with its callees compiled: what numba's
    ahead-of-time compiler exports (:mod:`cosched.engine.aot`)."""
    tag = variant(spec)
    return _rebind(loop.event_loop, _bindings(spec, True, tag), tag)
