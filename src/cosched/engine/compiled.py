"""Policies' compiled passes, and the event loop bound to each.

A policy with a compiled form declares it on its class
(:meth:`Policy.compiled_pass <cosched.policies.base.Policy.compiled_pass>`) as a
:class:`CompiledPass`: its functions in numba's subset of Python, written next to
the policy, and the instance's parameters as a named tuple
(:attr:`CompiledPass.params`). :func:`bound_loop`
hands them to :func:`cosched.engine.loop.event_loop_for`, which returns the event loop
calling them (a closure over them, its own function for each pass, so that numba's
cache keeps one machine code per pass), plain or compiled by numba just in time;
:mod:`cosched.engine.aot` compiles the same loop ahead of time. Compiled, each of the
pass's functions calls the compiled forms of the functions it calls (its
:attr:`~CompiledPass.helpers` and :attr:`~CompiledPass.calls`, the same source). The
engine never imports a policy: it is handed the pass.
"""

from __future__ import annotations

import functools
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import FunctionType
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from cosched.compile import F1, I1, jit, key
from cosched.engine import loop
from cosched.engine.loop import Ints, Params, State, Store

if TYPE_CHECKING:
    from numpy.random import Generator

    from cosched.engine.deferred import Deferred
    from cosched.engine.ledger import Placement
    from cosched.engine.simulation import Simulation

__all__ = [
    "CompiledPass",
    "NoParams",
    "bound_loop",
    "loop_of",
    "module_of",
    "param_kinds",
    "params_of",
    "ranked",
    "sample",
    "source_files",
    "variant",
]

F = TypeVar("F", bound=Callable[..., object])
#: A function, plain or compiled (a numba dispatcher calls as one).
Function = Callable[..., object]


class NoParams(NamedTuple):
    """The parameters of a pass that has none."""


def _deferred(f: Function) -> Deferred | None:
    """``f`` if it is a :class:`~cosched.engine.deferred.Deferred`. None can exist
    before that module is imported, so a pass without one never loads it."""
    module = sys.modules.get("cosched.engine.deferred")
    return f if module is not None and isinstance(f, module.Deferred) else None


def _resolved(f: Function) -> Function:
    """``f``, or the function a ``Deferred`` names (its module imported)."""
    d = _deferred(f)
    return f if d is None else d.resolve()


def _file(f: Function) -> str:
    """The source file of one of a pass's functions (a ``Deferred``'s unimported)."""
    d = _deferred(f)
    return getattr(f, "py_func", f).__code__.co_filename if d is None else d.file  # type: ignore[no-any-return]


def module_of(f: Function) -> str:
    """The module of one of a pass's functions (a ``Deferred``'s unimported)."""
    d = _deferred(f)
    return getattr(f, "py_func", f).__module__ if d is None else d.module  # type: ignore[no-any-return]


@dataclass(frozen=True)
class CompiledPass(Generic[Store, State, Params]):
    """A policy's scheduling pass in compiled form (see :mod:`cosched.engine.loop`),
    generic in its store, state and parameters types (mypy infers them from ``init`` and
    checks the other functions against them).

    Attributes:
        name: a name for the pass, unique among passes (names the compiled code).
        init: ``init(jobs, capacity, params) -> (store, state)``: the pass's fixed
            arrays (changed in place) and its state (a named tuple, replaced).
        schedule: ``schedule(store, state, jobs, queue, chosen, at) -> (state, head,
            tail, k, wake)``: one pass at ``at.now`` (the loop's numbers at the instant:
            :class:`~cosched.engine.loop.Instant`); the jobs to start are ``chosen[:k]``
            in decision order (the pass may compact ``queue[at.head:at.tail]``, and must
            drop the jobs it starts from it or leave them behind, started); ``wake``: a
            wake-up asked for, or NaN.
        ended: ``ended(store, state, jobs, j, now) -> state``: job ``j`` completed.
        report: ``report(store, state, out, fout)``: the pass's counters into ``out``
            (an int64 array of :attr:`reports` entries) and ``fout`` (float64, of
            :attr:`freports`).
        params: the pass's parameters: a named tuple class whose fields are ``int``,
            ``float``, ``bool``, or arrays (:data:`~cosched.engine.loop.Ints`,
            :data:`~cosched.engine.loop.Floats`), read by name (:class:`NoParams`: none).
        arguments: ``arguments(policy, sim) -> params`` (a :attr:`params`) for a policy
            instance and its :class:`~cosched.engine.simulation.Simulation`, or None when
            this instance, platform or workload needs the general loop.
        absorb: ``absorb(policy, counters, floats, table)``: the report's counters and
            the table's output columns into the policy, as the general loop leaves it.
        table: ``table(policy, sim) -> array``: the pass's per-job columns, one float64
            row per job (:attr:`Jobs.table <cosched.engine.loop.Jobs.table>`): its
            inputs, and room for per-job outputs; None: none.
        rates: ``rates(store, state, jobs, turn, who, rates, at) -> (state, m)``: after
            the starts of an instant, the running jobs whose progress rate changes,
            ``who[:m]`` to ``rates[:m]`` in the order the engine applies them
            (``turn[:at.ended]``: the jobs that ended at this instant, then
            ``at.started`` more: those that started). None: every job runs at rate 1,
            and the loop has no rate changes.
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
            A hook, helper or call may be a :class:`~cosched.engine.deferred.Deferred`
            (imported only to compile the loop or run it plain).
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
        sample: ``sample(rng, n) -> (capacity, params, table)``: valid arguments for a
            random workload of ``n`` jobs of 1-8 units, on which a build checks the
            compiled loop against its source. None: 16 units, :attr:`params` with its
            fields' defaults, no per-job inputs.
    """

    name: str
    init: loop.Init[Params, Store, State]
    schedule: loop.Schedule[Store, State]
    ended: loop.Ended[Store, State]
    report: loop.Report[Store, State]
    arguments: Callable[[Any, Simulation], Params | None]
    params: type[tuple[object, ...]] = NoParams
    absorb: Callable[[Any, list[int], list[float], loop.Table], None] = field(
        default=lambda policy, counters, floats, table: None
    )
    table: Callable[[Any, Simulation], loop.Table] | None = None
    rates: loop.Rates[Store, State] | None = None
    places: bool = False
    room: int = 1
    placements: (
        Callable[[Simulation, Ints, Ints, loop.Table], tuple[Mapping[int, Placement], list[int]]]
        | None
    ) = None
    helpers: tuple[Function, ...] = ()
    calls: tuple[Function, ...] = ()
    plain_calls: Callable[[], dict[str, Function]] | None = None
    depends: tuple[Function, ...] = ()
    idle_passes: bool = False
    idle_calls: bool = True
    drains: bool = False
    always_compiled: bool = False
    reports: int = 0
    freports: int = 0
    sample: Callable[[Generator, int], tuple[int, Params, loop.Table]] | None = None


#: What each field type of a pass's parameters is in compiled code (a signature's type).
_KINDS: dict[object, str] = {int: "i8", float: "f8", bool: "b1", loop.Ints: I1, loop.Floats: F1}


def param_kinds(params: type[tuple[object, ...]]) -> tuple[str, ...]:
    """The signature type of each field of a pass's parameters (:attr:`CompiledPass.params`),
    in order; a TypeError for a field of any other type."""
    hints = typing.get_type_hints(params)
    fields: tuple[str, ...] = params._fields  # type: ignore[attr-defined]
    kinds = []
    for name in fields:
        kind = _KINDS.get(hints.get(name))
        if kind is None:
            raise TypeError(
                f"{params.__qualname__}.{name}: a pass's parameter is an int, a "
                "float, a bool or an Ints/Floats array"
            )
        kinds.append(kind)
    return tuple(kinds)


def params_of(spec: CompiledPass, value: object) -> tuple[object, ...]:
    """``value`` (what ``spec.arguments`` returned) as the loop takes it: a
    ``spec.params`` with each field of its declared type (ints as ints, arrays
    contiguous), so that one machine code serves every instance."""
    import numpy as np

    if not isinstance(value, spec.params):
        raise TypeError(
            f"the {spec.name} pass's arguments gave {type(value).__name__}, not "
            f"{spec.params.__qualname__}"
        )
    cast = {"i8": int, "f8": float, "b1": bool}
    out = []
    for kind, v in zip(param_kinds(spec.params), value, strict=True):
        if kind in cast:
            out.append(cast[kind](v))
        else:
            out.append(np.ascontiguousarray(v, dtype=np.int64 if kind == I1 else np.float64))
    return spec.params(*out)


def sample(
    spec: CompiledPass, rng: Generator, n: int
) -> tuple[int, tuple[object, ...], loop.Table]:
    """``spec``'s sample arguments (:attr:`CompiledPass.sample`), its parameters as the
    loop takes them."""
    import numpy as np

    if spec.sample is None:
        capacity, params, table = 16, spec.params(), np.zeros((n, 0))
    else:
        capacity, params, table = spec.sample(rng, n)
    return capacity, params_of(spec, params), table


def ranked(table: loop.Table, column: int) -> Ints:
    """The jobs whose entry in ``table[:, column]`` is a rank (not negative), in rank
    order: how a pass hands back the order in which its policy filled a per-job record
    (an ``absorb`` reads it)."""
    import numpy as np

    ranks = table[:, column]
    jobs = np.flatnonzero(ranks >= 0)
    return jobs[np.argsort(ranks[jobs], kind="stable")]


def source_files(spec: CompiledPass) -> list[str]:
    """The source files the bound loop is compiled from (numba's cache checks only the
    loop's own file; a changed pass must not reuse old machine code): the loop's, this
    module's (which binds it), the module declaring the pass (which functions it
    inlines or calls out of line changes the machine code too), and those of its
    functions and parameters."""
    files = {loop.__file__, __file__}
    home = sys.modules.get(spec.arguments.__module__)
    if home is not None and getattr(home, "__file__", None):
        files.add(home.__file__)  # type: ignore[arg-type]
    declared = sys.modules.get(spec.params.__module__)
    if declared is not None and getattr(declared, "__file__", None):
        files.add(declared.__file__)  # type: ignore[arg-type]
    for f in (*_declared_hooks(spec), *spec.calls, *spec.helpers, *spec.depends):
        files.add(_file(f))
    return sorted(files)


@functools.cache
def variant(spec: CompiledPass) -> str:
    """The name of ``spec``'s bound loop: the pass's name and the :func:`key
    <cosched.compile.key>` of its sources (read once per process)."""
    return f"event_loop_{spec.name}_{key(files=source_files(spec), length=12)}"


def _declared_hooks(spec: CompiledPass) -> tuple[Callable[..., Any], ...]:
    return (spec.init, spec.schedule, spec.ended, spec.report, spec.rates or loop.no_rates)


def _hooks(spec: CompiledPass) -> tuple[Callable[..., Any], ...]:
    """The pass's functions the loop calls (each ``Deferred`` imported)."""
    return tuple(map(_resolved, _declared_hooks(spec)))


def _with_names(f: F, names: Mapping[str, Function], qualname: str) -> F:
    """``f`` with ``names`` in a copy of its globals, as its own function named
    ``qualname``: ``f`` calling the compiled forms of the plain functions it calls (or,
    for :attr:`CompiledPass.plain_calls`, those compiled ahead of time)."""
    code = f.__code__  # type: ignore[attr-defined]
    g = FunctionType(code, {**f.__globals__, **names}, f.__name__, f.__defaults__)  # type: ignore[attr-defined]
    g.__qualname__ = qualname
    g.__module__ = f.__module__
    g.__doc__ = f.__doc__
    return g  # type: ignore[return-value]


#: Each helper's compiled form, calling the compiled forms of those it calls.
_HELPERS: dict[Function, Function] = {}


def _compiled_helpers(spec: CompiledPass) -> dict[str, Function]:
    """The compiled forms of the functions ``spec``'s functions call, by name: its
    :attr:`~CompiledPass.calls` out of line, its :attr:`~CompiledPass.helpers` inlined
    (each calling the compiled forms of those listed before it)."""
    helpers: dict[str, Function] = {}
    for h in map(_resolved, spec.calls):
        helpers[h.__name__] = _helper(h, helpers, inline=False)
    for h in map(_resolved, spec.helpers):
        helpers[h.__name__] = _helper(h, helpers, inline=True)
    return helpers


def _helper(h: Function, helpers: dict[str, Function], *, inline: bool) -> Function:
    got = _HELPERS.get(h)
    if got is None:
        got = _HELPERS[h] = jit(_with_names(h, helpers, h.__qualname__), inline=inline)
    return got


def _inlined(f: Function) -> Function:
    """``f`` compiled, to be inlined into the loop, which closes over it. Numba keys the
    loop's cached code by the pickle of what it closes over; ``f`` pickles as its name
    (which :func:`variant` makes name the sources' hash too), not as its code and every
    function it calls, which took some milliseconds of each process that loads the loop
    from numba's cache."""
    got = jit(f, inline=True)
    if hasattr(got, "_reduce_states"):  # numba's dispatcher (ReduceMixin)
        got._reduce_states = functools.partial(_named, f"{f.__module__}.{f.__qualname__}")  # type: ignore[attr-defined]
    return got


def _named(name: str) -> dict[str, str]:
    return {"name": name}


def loop_of(spec: CompiledPass, *, compiled: bool) -> loop.EventLoop:
    """:func:`cosched.engine.loop.event_loop_for` of ``spec``'s functions.

    Compiled: the loop for numba to compile (named by :func:`variant`, which names its
    cache entry), each of the pass's functions calling the compiled forms of its
    helpers, and inlined into the loop in numba's own representation (left to LLVM,
    each pass call hands over the job columns argument by argument, which cost EASY's
    loop some 15 %: docs/performance.md). Else plain Python, the pass's functions
    calling :attr:`~CompiledPass.plain_calls` when it names any."""
    tag = variant(spec)
    if compiled:
        names = _compiled_helpers(spec)
        hooks = [_with_names(f, names, f"{f.__qualname__}_{tag}") for f in _hooks(spec)]
    else:
        plain = spec.plain_calls() if spec.plain_calls is not None else {}
        hooks = [_with_names(f, plain, f.__qualname__) if plain else f for f in _hooks(spec)]
    init, schedule, ended, report, rates = hooks
    bound = loop.event_loop_for(
        init, schedule, ended, report, rates if spec.rates is not None else None,
        idle_passes=spec.idle_passes, idle_calls=spec.idle_calls,
        callee=_inlined if compiled else lambda f: f,
    )  # fmt: skip
    if compiled:
        bound.__qualname__ = bound.__name__ = tag
    return bound


_BOUND: dict[tuple[str, bool], loop.EventLoop] = {}


def bound_loop(spec: CompiledPass, *, compiled: bool) -> loop.EventLoop:
    """The event loop with ``spec``'s pass bound (:func:`loop_of`): compiled by numba
    (``cache=True``: compiled once per machine and source) or plain Python."""
    tag = variant(spec)
    got = _BOUND.get((tag, compiled))
    if got is None:
        bound = loop_of(spec, compiled=compiled)
        got = _BOUND[tag, compiled] = jit(bound) if compiled else bound
    return got
