"""The event loop, with each policy's pass bound, compiled ahead of time.

Importing numba and loading a cached just-in-time loop costs about half a second of
CPU per process; the same bound loop (:func:`cosched.engine.compiled.loop_of`)
compiled once into an extension module by numba's ahead-of-time compiler
(``numba.pycc``) loads in about a millisecond, without numba. One module per pass,
built on first use in a child process (:func:`cosched.compile.load_built`: a file
lock, a temporary folder renamed into place, ``failed.txt`` when it cannot be built),
with compilation's one-line notice on stderr naming the step and its time, into a
folder of the user's cache named by :func:`cosched.compile.key` of the loop's and the
pass's sources, so an upgrade or an edit builds a new one. The module counts numba's
references with plain increments, not atomic ones (:func:`_plain_refcounts`).
``COSCHED_AOT=0`` leaves it out: the fast path then runs numba's just-in-time loop, the
same source.

The child finds the pass by its module and name (data the parent hands it): this
module imports no policy.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from cosched.compile import (
    Checked,
    cache_root,
    group_of,
    import_built,
    key,
    load_built,
    module_path,
    tuple_of,
)
from cosched.compile import is_built as is_built_group
from cosched.engine.compiled import (
    CompiledPass,
    bound_loop,
    loop_of,
    module_of,
    param_kinds,
    sample,
    source_files,
)

__all__ = ["build_loop", "is_built", "load_loop", "loop_signature", "unbuilt"]


def loop_signature(spec: CompiledPass) -> str:
    """The bound loop's arguments (:func:`cosched.engine.loop.event_loop_for`), every
    array C-contiguous, the pass's parameters a tuple of their fields' types (compiled
    as the pass's named tuple: :func:`_numba_signature`)."""
    kinds = param_kinds(spec.params)
    params = tuple_of(*kinds) if kinds else "Tuple(())"
    return (
        f"void(f8[::1], f8[::1], f8[::1], i8[::1], f8[:, ::1], i8, {params}, f8[::1], "
        "f8[::1], i8[::1], i8[::1], i8[::1], f8[::1])"
    )


_PARAMS = 6  # the parameters' position among the loop's arguments


def _numba_signature(spec: CompiledPass) -> Any:
    """:func:`loop_signature` as numba's types, the parameters ``spec.params`` by name."""
    from numba import types
    from numba.core.sigutils import normalize_signature

    args, _ = normalize_signature(loop_signature(spec))
    args = list(args)
    args[_PARAMS] = types.NamedTuple(list(args[_PARAMS].types), spec.params)
    return types.void(*args)


def _extension(spec: CompiledPass) -> str:
    return f"_cosched_loop_{spec.name}"


#: How the built loop counts references (part of its folder's key): with plain
#: increments and decrements, not atomic ones (:func:`_plain_refcounts`).
REFCOUNTS = "plain"


@functools.cache
def _key(spec: CompiledPass) -> str:
    """The hash naming the folder of ``spec``'s built loop (computed once a process)."""
    return key(spec.name, loop_signature(spec), REFCOUNTS, files=source_files(spec))


def _folder(spec: CompiledPass) -> Path:
    return cache_root() / _key(spec)


def _home(spec: CompiledPass) -> str:
    """The module that defines ``spec`` (where the child finds it by name): the module
    of its ``arguments``, the Python side of a pass, defined beside it."""
    return spec.arguments.__module__


def is_built(spec: CompiledPass) -> bool:
    """Whether ``spec``'s loop is built for this machine and source (a first run would
    otherwise build it, or compile numba's loop when it cannot be built)."""
    try:
        return module_path(_folder(spec), _extension(spec)).is_file()
    except OSError:
        return False


def unbuilt(spec: CompiledPass) -> list[str]:
    """What a first run of ``spec`` compiles on this machine: its loop when not built,
    and each group of kernels compiled ahead of time its functions call (numba's
    function objects or plain ones, by their modules) that is not built."""
    out = [] if is_built(spec) else [f"the {spec.name} event loop"]
    modules = {module_of(f) for f in (*spec.calls, *spec.depends)}
    groups = {g for m in modules if (g := group_of(m)) is not None}
    out += [f"the {g} kernels" for g in sorted(groups) if not is_built_group(g)]
    return out


def load_loop(spec: CompiledPass, *, build: bool) -> Callable[..., None] | None:
    """``spec``'s bound loop compiled ahead of time, built first if missing and
    ``build``; None when it is disabled, missing or cannot be built (the caller then
    runs numba's just-in-time loop)."""
    try:
        folder = _folder(spec)
    except OSError:
        return None
    module = load_built(
        folder,
        _extension(spec),
        build=build,
        entry="cosched.engine.aot:build_loop",
        args=(_home(spec), spec.name),
        label=f"the {spec.name} event loop",
    )
    if module is None:
        return None
    return Checked("event_loop", module.event_loop, loop_signature(spec))


def _find(module: str, name: str) -> CompiledPass:
    for value in vars(importlib.import_module(module)).values():
        if isinstance(value, CompiledPass) and value.name == name:
            return value
    raise LookupError(f"no compiled pass {name!r} in {module}")


def build_loop(out: str, folder_key: str, extension: str, module: str, name: str) -> None:
    """Compile the bound loop of the pass ``name`` (defined in ``module``) into ``out``
    (in the child process :func:`load_loop` starts), then check it against the same
    loop run as plain Python on a small workload."""
    import warnings

    spec = _find(module, name)
    if folder_key != _folder(spec).name:
        raise RuntimeError(f"the loop's source changed during the build ({folder_key})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba.pycc is pending deprecation
        from numba.pycc import CC

        cc = CC(extension)
        cc.output_dir = out
        cc.verbose = False
        cc.export("event_loop", _numba_signature(spec))(loop_of(spec, compiled=True))
        with _plain_refcounts():
            cc.compile()
    built = import_built(module_path(Path(out), extension), extension)
    _self_check(spec, built.event_loop)


@contextlib.contextmanager
def _plain_refcounts() -> Iterator[None]:
    """numba's runtime, as ``numba.pycc`` compiles it into the module, counting
    references with plain increments and decrements instead of atomic ones.

    Each array a compiled function binds is counted on the way in and out, an atomic
    add each: about half of LOMARC's loop time on KTH-SP2 (docs/performance.md,
    "Reference counts not atomic in the loops built ahead of time"). The module's code
    runs under the GIL (``numba.pycc`` releases it nowhere) and every count it makes is
    of an array of the call: those it allocates and those it is handed (each unboxed
    into a record of its own), none of which outlives the call. Nothing else can see
    these counts, so an atomic operation buys nothing. numba keeps the switch as a
    measuring aid (``nrtdynmod._disable_atomicity``, which returns the old count where
    the decrement reads the new one); the increments and decrements are defined here as
    numba defines them, without ``atomicrmw``. A numba without that function, or whose
    definition takes other arguments, builds the atomic counts: the same results.
    """
    from numba.core.runtime import nrtdynmod

    atomic = getattr(nrtdynmod, "_define_atomic_inc_dec", None)
    if atomic is None:
        yield
        return

    def plain(module: Any, op: str, ordering: str) -> Any:
        fn = atomic(module, op, ordering)  # its declaration; the body is replaced
        args = list(fn.args)
        if op not in ("add", "sub") or len(args) != 1 or not args[0].type.is_pointer:
            return fn  # not the definition read here: numba's own, atomic
        [ptr] = args
        word = fn.function_type.return_type  # the count's type
        fn.blocks.clear()
        builder = ir.IRBuilder(fn.append_basic_block())
        new = getattr(builder, op)(builder.load(ptr, typ=word), ir.Constant(word, 1))
        builder.store(new, ptr)
        builder.ret(new)
        return fn

    from llvmlite import ir

    nrtdynmod._define_atomic_inc_dec = plain
    try:
        yield
    finally:
        nrtdynmod._define_atomic_inc_dec = atomic


def _self_check(spec: CompiledPass, compiled: Callable[..., None]) -> None:
    """The compiled loop gives the plain loop's schedule on a small random workload in
    which no job outlives its estimate (every pass accepts those), with the pass's
    sample parameters (:attr:`CompiledPass.sample`)."""
    rng = np.random.default_rng(0)
    n = 300
    submit = np.sort(rng.integers(0, 2000, n)).astype(np.float64)
    run = rng.integers(1, 300, n).astype(np.float64)
    est = run + rng.integers(0, 200, n)
    size = rng.integers(1, 9, n).astype(np.int64)
    capacity, params, table = sample(spec, rng, n)
    got: list[np.ndarray] = []
    want: list[np.ndarray] = []
    for loop, out in ((compiled, got), (bound_loop(spec, compiled=False), want)):
        start, end = np.full(n, np.nan), np.full(n, np.nan)
        order = np.zeros(n, dtype=np.int64)
        placed = np.zeros(int(size.sum()) * spec.room if spec.places else 0, dtype=np.int64)
        stats = np.zeros(4 + spec.reports, dtype=np.int64)
        fstats = np.zeros(spec.freports)
        loop(
            submit, run, est, size, table.copy(), capacity, params, start, end, order,
            placed, stats, fstats,
        )  # fmt: skip
        out += [start, end, order, placed, stats, fstats]
    if not all(np.array_equal(a, b, equal_nan=True) for a, b in zip(got, want, strict=True)):
        raise RuntimeError(f"the compiled {spec.name} loop differs from its source")
