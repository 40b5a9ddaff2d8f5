"""Compilation, in one module: numba's kernels just in time and ahead of time, their
cache keys, their cache, the notice a compile prints, and the list of what is built.

Every compiled function in cosched goes through here (the process-level time-sharing
kernel's decorator excepted, which keeps numba's options of its own and names its cache
entries by :func:`key`):

- :func:`jit`: a function compiled by numba just in time (``cache=True``,
  ``nogil=True``), once per function; plain Python without numba. The engine's bound
  loops (:mod:`cosched.engine.compiled`) and conservative's profile kernels use it.
- :func:`kernel`, :func:`jitted`, :func:`kernels`: kernel modules that stay plain Python
  at import, compiled in place when first asked for, or taken from a module compiled
  ahead of time when it is built.
- :class:`Group`, :func:`register`, :func:`load`, :func:`load_built`: extension modules
  compiled ahead of time by ``numba.pycc``. A package declares its kernel modules'
  group (``SIGNATURES`` beside the functions, ``register(Group(...))`` in one of them):
  the SWF parser's (``cosched.workload._swf_kernel``), the node-busy sum's
  (``cosched.metrics._busy_kernel``), the node-sharing family's; the engine's event loop
  with each policy's pass bound is one module per pass (:mod:`cosched.engine.aot`).
- :func:`key`: the one hash that names compiled code: its source files, its
  declarations, the Python, numpy and numba versions and :data:`FORMAT`.
- :func:`announced` and the build's own line: one notice, ``compiling WHAT for this
  machine (once): N s``, on stderr, whichever compiler runs.
- :func:`catalogue`: what is declared and what this process compiled or loaded.

Nothing here names a module above it: a group names its own modules, and the child
process that builds a module is told by the caller which module declares it.

Importing numba and loading a cached just-in-time kernel costs about half a second of
CPU per process; the same functions compiled once into an extension module by numba's
ahead-of-time compiler load in about a millisecond, without numba (docs/performance.md,
"The batch loop and parser compiled ahead of time"). Such a module is built on first
use, in a child process, into a folder of the user's cache (``$COSCHED_AOT_DIR``, else
``$XDG_CACHE_HOME/cosched/kernels`` or ``~/.cache/cosched/kernels``) named by
:func:`key`, so an upgrade or an edit builds a new one. It is written to a temporary
folder and renamed into place, under a file lock, so that parallel processes build it
once and never load half a file. When it cannot be built (no C compiler, no
``numba.pycc``, an unwritable cache) or ``COSCHED_AOT=0`` is set, :func:`load` returns
None and the callers use numba's just-in-time kernels: the same functions, so the same
results. A failed build leaves ``failed.txt`` with the compiler's output in the folder,
so later processes do not try again (delete the folder to retry). A kernel compiled just
in time is compiled under a file lock beside numba's cache index on its first call
(:func:`announced`), so parallel processes (pytest's workers) compile it once and the
others load it from numba's cache.

The compiled functions check nothing about their arguments (a wrong dtype or layout
crashes the process). Their callers build every array they pass, and :class:`Checked`
checks each call against its declared signature when asked to (:func:`checking`; the
test suite always does).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any, Literal, TextIO, TypeVar

import numpy as np

__all__ = [
    "B1",
    "B2",
    "CHECK",
    "ENABLED",
    "F1",
    "F2",
    "F3",
    "FORMAT",
    "GROUPS",
    "I1",
    "I2",
    "Checked",
    "Group",
    "announced",
    "available",
    "build",
    "cache_root",
    "catalogue",
    "checking",
    "compiled_kernel",
    "group_of",
    "import_built",
    "is_built",
    "jit",
    "jitted",
    "kernel",
    "kernel_dir",
    "kernels",
    "key",
    "load",
    "load_built",
    "module_path",
    "register",
    "tuple_of",
]

F = TypeVar("F", bound=Callable[..., Any])

_PACKAGE = Path(__file__).resolve().parent

#: Bumped when the way compiled code is built changes (part of every :func:`key`).
FORMAT = 3

# Argument types as signatures write them: every array C-contiguous where the callers
# pass fresh arrays (a family's kernel module writes its signatures with these).
I1, I2, F1, F2, F3 = "i8[::1]", "i8[:, ::1]", "f8[::1]", "f8[:, ::1]", "f8[:, :, ::1]"
B1, B2 = "b1[::1]", "b1[:, ::1]"


def tuple_of(*items: str) -> str:
    """The signature type of a tuple of ``items``."""
    return "Tuple((" + ", ".join(items) + "))"


@dataclass(frozen=True)
class Group:
    """Kernels built as one extension module, so that a package builds only what it
    runs. Each of ``modules`` declares its kernels as ``SIGNATURES`` (function name:
    numba signature) beside the functions, which are marked with :func:`kernel` (the
    module stays plain Python); one of them declares the group and :func:`register` s
    it on import.

    Attributes:
        name: the group's name (``load(group=...)``).
        extension: the built module's name.
        modules: the kernel modules, by name, the one that registers the group first
            (the build's child process imports it).
        check: ``module:function`` called with the built module, which raises if it
            differs from the source on small cases (before the build is kept).
    """

    name: str
    extension: str
    modules: tuple[str, ...]
    check: str


#: The groups declared so far, by name (a kernel module registers its group on import:
#: the SWF parser's ``swf``, the node-busy sum's ``busy``, the node-sharing family's
#: ``nodeshare``). The engine's event loop is one module per policy pass
#: (:mod:`cosched.engine.aot`); :func:`catalogue` lists both.
GROUPS: dict[str, Group] = {}


def register(group: Group) -> None:
    """Make ``group`` known (its first kernel module calls it on import)."""
    GROUPS[group.name] = group


def _group(module: str) -> str | None:
    """The group of the kernel module ``module`` (imported, so that it registers its
    group), or None: not compiled ahead of time."""
    for _ in range(2):
        for g in GROUPS.values():
            if module in g.modules:
                return g.name
        importlib.import_module(module)
    return None


def _kernels_in(group: str) -> tuple[tuple[str, str, str], ...]:
    """(module, function, numba signature) of every kernel of ``group``."""
    out: list[tuple[str, str, str]] = []
    for module in GROUPS[group].modules:
        declared = importlib.import_module(module).SIGNATURES
        out += [(module, name, sig) for name, sig in declared.items()]
    return tuple(out)


#: The modules loaded in this process, and the groups this process tried to build.
_loaded: dict[str, ModuleType] = {}
_tried_build: set[str] = set()


#: The interpreter's own file name ending of an extension module
#: (``.cpython-311-x86_64-linux-gnu.so``): ``sysconfig``'s ``EXT_SUFFIX``, which pycc
#: names the module with, read from the import system (importing ``sysconfig`` costs
#: about 2 ms of every run; a test holds the two equal).
_EXT_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _source_file(module: str) -> str:
    """The source file of the module ``module`` (imported)."""
    path = getattr(importlib.import_module(module), "__file__", None)
    if path is None:  # pragma: no cover - a kernel module is a file
        raise LookupError(f"{module} has no source file")
    return str(path)


@functools.cache
def _numba_version() -> str:
    """numba's version from its installed metadata, without importing numba (read once
    a process)."""
    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        return "none"
    site = Path(spec.origin).parent.parent
    with contextlib.suppress(OSError):
        for name in os.listdir(site):
            if name.startswith("numba-") and name.endswith((".dist-info", ".egg-info")):
                return name
    return "unknown"


def key(*parts: str, files: Iterable[str] = (), length: int = 20) -> str:
    """The hash that names compiled code: of ``parts`` (declarations: a group's
    signatures, a loop's), of the bytes of the source ``files`` it is compiled from, and
    of the versions compiled code depends on (:data:`FORMAT`, Python, its extension
    suffix, numpy, numba). Every cache folder and every bound loop's name is one."""
    h = hashlib.sha256()
    for part in (str(FORMAT), sys.version, _EXT_SUFFIX, np.__version__, _numba_version()):
        h.update(part.encode() + b"\0")
    for part in parts:
        h.update(part.encode() + b"\0")
    for path in sorted(set(files)):
        with open(path, "rb") as fh:
            h.update(fh.read() + b"\0")
    return h.hexdigest()[:length]


def _key(group: str) -> str:
    """The :func:`key` of a group's built module: its kernels' signatures and sources."""
    kernels = _kernels_in(group)
    return key(group, repr(kernels), files=[_source_file(m) for m in {m for m, _, _ in kernels}])


def cache_root() -> Path:
    """The folder that holds compiled modules, one subfolder per key
    (``$COSCHED_AOT_DIR``, else the user's cache)."""
    env = os.environ.get("COSCHED_AOT_DIR")
    if env:
        return Path(env)
    if os.name == "posix" and sys.platform != "darwin":
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):  # unset, or relative (which the spec says to ignore)
            base = os.path.expanduser("~/.cache")
            if not os.path.isabs(base):  # no home folder: no cache, numba's kernels
                raise OSError("no home folder for the kernel cache")
        return Path(base) / "cosched" / "kernels"
    import platformdirs

    return Path(platformdirs.user_cache_dir("cosched")) / "kernels"


def group_of(module: str) -> str | None:
    """The group of kernels compiled ahead of time that the module ``module`` is in, or
    None."""
    return _group(module)


def is_built(group: str) -> bool:
    """Whether ``group``'s module is built for this machine and source (a first run
    that asks for it builds it otherwise)."""
    try:
        return module_path(kernel_dir(group), group).is_file()
    except (OSError, ImportError):
        return False


def kernel_dir(group: str) -> Path:
    """The folder that holds (or will hold) this installation's compiled kernels of
    ``group``."""
    return cache_root() / _key(group)


def module_path(folder: Path, name: str) -> Path:
    """The file of the extension module ``name`` (a group's, or a loop's) in ``folder``."""
    known = GROUPS.get(name)
    return folder / ((known.extension if known else name) + _EXT_SUFFIX)


#: Whether the ahead-of-time kernels may be used (tests set it to False to run numba's).
ENABLED = True


def available() -> bool:
    """Whether ahead-of-time kernels may be used at all: :data:`ENABLED` and
    ``COSCHED_AOT`` is not ``0``."""
    env = os.environ.get("COSCHED_AOT", "1").strip().lower()
    return ENABLED and env not in {"0", "no", "off", "false"}


def load(*, build: bool = False, group: str) -> ModuleType | None:
    """The compiled kernels of ``group``, building them first if ``build`` and they are
    missing.

    None when they are disabled, missing (and not to be built) or cannot be built: the
    caller then runs numba's just-in-time kernels. Never raises for a missing compiler
    or an unwritable cache.
    """
    got = _loaded.get(group) if available() else None
    if got is not None:  # the common case, before the key is read
        return got
    try:
        folder = kernel_dir(group)
    except OSError:
        return None
    return load_built(
        folder,
        group,
        build=build,
        entry="cosched.compile:build",
        args=(GROUPS[group].modules[0],),
        label=f"cosched's {group} kernels",
    )


def import_built(path: Path, name: str) -> ModuleType:
    """The extension module ``name`` compiled ahead of time, from its file ``path``."""
    known = GROUPS.get(name)
    spec = importlib.util.spec_from_file_location(known.extension if known else name, path)
    if spec is None or spec.loader is None:  # pragma: no cover
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_built(
    folder: Path, name: str, *, build: bool, entry: str, args: tuple[str, ...], label: str
) -> ModuleType | None:
    """The extension module ``name`` in ``folder``, built first if missing and
    ``build``: by ``entry`` (``module:function``, called in a child process as
    ``function(out, folder's name, name, *args)``), announced on stderr as compiling
    ``label``. None when disabled, missing (and not to be built) or unbuildable."""
    if not available():
        return None
    got = _loaded.get(name)
    if got is not None:
        return got
    try:
        path = module_path(folder, name)
        if not path.is_file():
            if not build or name in _tried_build:
                return None
            _tried_build.add(name)
            if not _build_in_child(folder, name, entry=entry, args=args, label=label):
                return None
        got = _loaded[name] = import_built(path, name)
    except (OSError, ImportError):
        return None
    return got


def _build_in_child(
    folder: Path, group: str, *, entry: str, args: tuple[str, ...], label: str
) -> bool:
    """Build ``group``'s module into ``folder`` in a child process, once across
    processes, with a one-line notice on stderr naming the step and its time."""
    if (folder / "failed.txt").exists():
        return False
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a+b") as lock:
        with contextlib.suppress(ImportError):
            import fcntl

            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # another process may be building
        if module_path(folder, group).is_file():
            return True
        if (folder / "failed.txt").exists():
            return False
        import subprocess
        import tempfile
        import time

        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
        _say_compiling(label, sys.stderr)
        t0 = time.perf_counter()
        try:
            module, function = entry.split(":")
            code = (
                "import sys, importlib; sys.path.insert(0, sys.argv[1]); "
                f"importlib.import_module({module!r}).{function}(*sys.argv[2:])"
            )
            argv = [str(_PACKAGE.parent), str(tmp), folder.name, group, *args]
            try:
                done = subprocess.run(
                    [sys.executable, "-c", code, *argv],
                    capture_output=True,
                    timeout=900,
                    check=False,
                )
                output = (done.stdout + done.stderr).decode(errors="replace")
                ok = done.returncode == 0 and module_path(tmp, group).is_file()
            except (OSError, subprocess.TimeoutExpired) as exc:
                output, ok = f"{type(exc).__name__}: {exc}", False
            took = time.perf_counter() - t0
            if ok:
                os.replace(module_path(tmp, group), module_path(folder, group))
                _say_took(took, sys.stderr)
            else:
                _write_atomically(folder / "failed.txt", _failure_text(output))
                _say_took(took, sys.stderr, failed=folder / "failed.txt")
            return ok
        finally:
            for p in sorted(tmp.rglob("*"), reverse=True):
                with contextlib.suppress(OSError):
                    p.unlink() if not p.is_dir() else p.rmdir()
            with contextlib.suppress(OSError):
                tmp.rmdir()


def _say_compiling(what: str, out: TextIO) -> None:
    """The notice's first half: ``compiling WHAT for this machine (once): ``."""
    out.write(f"compiling {what} for this machine (once): ")
    out.flush()


def _say_took(took: float, out: TextIO, *, failed: Path | None = None) -> None:
    """The notice's second half: the compile's time (and where its failure is told)."""
    if failed is None:
        out.write(f"{took:.1f} s\n")
    else:
        out.write(f"failed after {took:.1f} s; numba's code instead ({failed})\n")
    out.flush()


def _failure_text(output: str) -> str:
    return (
        "cosched could not compile its kernels ahead of time; it uses numba's "
        "just-in-time kernels instead (the same results, about 0.5 s more per run).\n"
        "Delete this folder to try again. The build's output:\n\n" + output[-20_000:]
    )


def _write_atomically(path: Path, text: str) -> None:
    import tempfile  # only when building (with random, 1-2 ms a run otherwise)

    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


# -- kernels marked, compiled in place, handed out -------------------------------------

#: Every function marked by :func:`kernel` (plain Python until :func:`jitted`).
_MARKED: set[Callable[..., Any]] = set()
#: The numba dispatcher made for each marked function (one per function, shared by
#: every module that names it).
_DISPATCHERS: dict[tuple[Callable[..., Any], bool], Callable[..., Any]] = {}
_JITTED: set[str] = set()


def kernel(f: F) -> F:
    """Mark ``f`` as a kernel: a plain function until :func:`jitted` compiles its module
    with numba (``cache=True``, ``nogil=True``), or compiled ahead of time when its
    module's ``SIGNATURES`` name it. Importing a module of marked kernels loads no numba."""
    _MARKED.add(f)
    return f


def jit(f: F, *, inline: bool = False) -> F:
    """``f`` compiled by numba just in time (``cache=True``, ``nogil=True``; with
    ``inline``, inlined into its callers in numba's own representation), once per
    function; ``f`` itself without numba."""
    got = _DISPATCHERS.get((f, inline))
    if got is None:
        try:
            from numba import njit
        except ImportError:  # pragma: no cover - numba is a dependency
            return f
        how: Literal["never", "always"] = "always" if inline else "never"
        got = _DISPATCHERS[f, inline] = njit(cache=True, nogil=True, inline=how)(f)
    return got  # type: ignore[return-value]


def jitted(name: str) -> ModuleType:
    """The module ``name`` with each marked function in its namespace replaced by its
    numba dispatcher, and so the modules those functions come from (a compiled kernel's
    callees must be compiled too). Without numba, or with ``NUMBA_DISABLE_JIT=1``, the
    functions stay (or are) plain Python, with the same results."""
    module = importlib.import_module(name)
    if name in _JITTED:
        return module
    _JITTED.add(name)  # before the walk: modules may import each other's kernels
    for attr, value in list(vars(module).items()):
        if not (isinstance(value, FunctionType) and value in _MARKED):
            continue
        if value.__module__ != name:
            jitted(value.__module__)
        setattr(module, attr, jit(value))
    return module


@dataclass(frozen=True)
class _Array:
    dtype: np.dtype[Any]
    ndim: int
    contiguous: bool


#: An argument's type as a signature writes it: a scalar code, an
#: array or a tuple of types.
_Type = str | _Array | tuple["_Type", ...]
_CODES = {"i8": np.int64, "f8": np.float64, "b1": np.bool_, "u1": np.uint8}


def _parse(text: str, i: int = 0) -> tuple[_Type, int]:
    """One type of a signature from ``text[i:]`` (the forms signatures use:
    ``i8``, ``f8[:, ::1]``, ``Tuple((t, ...))``) and where it ends."""
    if text.startswith("Tuple((", i):
        items: list[_Type] = []
        i += len("Tuple((")
        while True:
            item, i = _parse(text, i)
            items.append(item)
            if text.startswith("))", i):
                return tuple(items), i + 2
            if not text.startswith(", ", i):
                raise ValueError(f"bad signature {text!r} at {i}")
            i += 2
    code = text[i : i + 2]
    if code not in _CODES:
        raise ValueError(f"bad signature {text!r} at {i}")
    i += 2
    if not text.startswith("[", i):
        return code, i
    end = text.index("]", i)
    dims = text[i + 1 : end].split(", ")
    if any(d != ":" for d in dims[:-1]) or dims[-1] not in {":", "::1"}:
        raise ValueError(f"bad array type in {text!r} at {i}")
    return _Array(np.dtype(_CODES[code]), len(dims), dims[-1] == "::1"), end + 1


def _arguments(signature: str) -> tuple[_Type, ...]:
    """The argument types of a signature ``ret(arg, ...)`` (``void`` or a type)."""
    i = 4 if signature.startswith("void") else _parse(signature)[1]
    if signature[i] != "(" or not signature.endswith(")"):
        raise ValueError(f"bad signature {signature!r}")
    args: list[_Type] = []
    i += 1
    while i < len(signature) - 1:
        arg, i = _parse(signature, i)
        args.append(arg)
        if signature.startswith(", ", i):
            i += 2
    return tuple(args)


def _describe(a: object) -> str:
    if isinstance(a, np.ndarray):
        layout = "contiguous" if a.flags.c_contiguous else "strided"
        ro = "" if a.flags.writeable else "read-only "
        return f"a {ro}{a.ndim}-d {layout} {a.dtype} array"
    return f"{type(a).__name__} {a!r}"[:80]


def _check(kind: _Type, a: object, where: str) -> None:
    """Raise TypeError unless ``a`` is what the compiled code reads as ``kind``."""
    if isinstance(kind, _Array):
        if not (
            isinstance(a, np.ndarray)
            and a.dtype == kind.dtype
            and a.ndim == kind.ndim
            and (a.flags.c_contiguous or not kind.contiguous)
            and a.flags.writeable
        ):
            layout = "contiguous " if kind.contiguous else ""
            raise TypeError(
                f"{where} must be a writeable {kind.ndim}-d {layout}{kind.dtype} array, "
                f"not {_describe(a)}"
            )
    elif isinstance(kind, tuple):
        if not (isinstance(a, tuple) and len(a) == len(kind)):
            raise TypeError(f"{where} must be a tuple of {len(kind)}, not {_describe(a)}")
        for k, (item, x) in enumerate(zip(kind, a, strict=True)):
            _check(item, x, f"{where}[{k}]")
    else:
        ok = (
            isinstance(a, (bool, np.bool_))
            if kind == "b1"
            else isinstance(a, (int, np.integer, float, np.floating))
            if kind == "f8"
            else isinstance(a, (int, np.integer))
        )
        if not ok:
            raise TypeError(f"{where} must be {kind}, not {_describe(a)}")


class Checked:
    """A kernel compiled ahead of time, called after its arguments are checked against
    its signature (dtype, dimensions, layout, writeable; scalars' kinds), with a
    TypeError naming the kernel and the argument otherwise.

    The kernels' callers pass the same arrays call after call (a book's, a window's), so
    each argument is checked when it is not the object checked last time at its
    position: an array's dtype, dimensions and flags are not changed in place (cosched
    never does), and the object held keeps its identity from being reused.
    """

    __slots__ = ("_func", "_kinds", "_last", "_name")

    def __init__(self, name: str, func: Callable[..., Any], signature: str) -> None:
        self._name, self._func = name, func
        self._kinds = _arguments(signature)
        self._last: list[object] = [_NOT_SEEN] * len(self._kinds)

    def __call__(self, *args: Any) -> Any:
        last = self._last
        if len(args) != len(last):
            raise TypeError(f"{self._name} takes {len(last)} arguments, not {len(args)}")
        for i, a in enumerate(args):
            if a is not last[i]:
                _check(self._kinds[i], a, f"{self._name}'s argument {i}")
                last[i] = a
        return self._func(*args)


_NOT_SEEN = object()


class _Kernels:
    """A module's kernels, each resolved on first use (see :func:`kernels`)."""

    def __init__(self, name: str, compiled: ModuleType | None) -> None:
        self._name, self._compiled = name, compiled

    def __reduce__(self) -> tuple[Callable[[str], _Kernels], tuple[str]]:
        # A policy is pickled after a run (to a worker, into results): its kernels are
        # looked up again where it is unpickled.
        return kernels, (self._name,)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        signature = _signatures(self._name).get(attr)
        if self._compiled is not None and signature is not None:
            func: Any = getattr(self._compiled, attr)
            if checking():
                func = Checked(attr, func, signature)
        else:
            func = getattr(jitted(self._name), attr)
        setattr(self, attr, func)
        return func


def _signatures(module: str) -> dict[str, str]:
    """The signatures of the kernels of ``module`` compiled ahead of time, by function."""
    group = _group(module)
    if group is None:
        return {}
    return {f: sig for m, f, sig in _kernels_in(group) if m == module}


_HANDED: dict[tuple[str, bool, bool], _Kernels] = {}

#: Whether :func:`kernels` hands out the compiled kernels wrapped in :class:`Checked`
#: (``COSCHED_CHECK_KERNELS=1`` also turns it on; the test suite does).
CHECK = False


def checking() -> bool:
    """Whether the kernels :func:`kernels` hands out check every call (:data:`CHECK`)."""
    env = os.environ.get("COSCHED_CHECK_KERNELS", "0").strip().lower()
    return CHECK or env not in {"0", "no", "off", "false", ""}


def kernels(name: str, *, build: bool = True) -> _Kernels:
    """The kernels of module ``name``, compiled, as attributes: those its ``SIGNATURES``
    declares from its group's module compiled ahead of time (:func:`load`, building it first if
    ``build``); the others, or all when that module is missing or disabled, numba's
    (:func:`jitted`). Either gives the same results as the module's Python source.

    The ones compiled ahead of time are handed out bare, for their callers in cosched
    only: each builds every array it passes with the signature's dtype, dimensions and
    layout (a wrong one would be misread, not refused). A check in Python on every call
    costs more than the whole gain (docs/design/engine.md, "Kernels compiled ahead
    of time"), so :class:`Checked` wraps them only when :func:`checking`: the test
    suite runs every call through it.
    """
    group = _group(name)
    compiled = load(build=build, group=group) if group is not None else None
    key = (name, compiled is not None, checking())
    got = _HANDED.get(key)
    if got is None:
        got = _HANDED[key] = _Kernels(name, compiled)
    return got


def compiled_kernel(module: str, name: str, *, build: bool = False) -> Callable[..., Any] | None:
    """Kernel ``name`` of kernel module ``module`` as compiled ahead of time when its
    group's module is built (or, with ``build``, can be built), else None: numba is not
    imported, for a caller with a numpy form of its own to fall back on (the node-busy
    sum, the SWF parser). Wrapped in :class:`Checked` when :func:`checking`, as
    :func:`kernels` hands them out."""
    group = _group(module)
    compiled = load(build=build, group=group) if group is not None else None
    signature = _signatures(module).get(name)
    if compiled is None or signature is None:
        return None
    func: Callable[..., Any] = getattr(compiled, name)
    return Checked(name, func, signature) if checking() else func


def build(out: str | os.PathLike[str], key: str, group: str, home: str) -> Path:
    """Compile the kernels of ``group`` into ``out`` (imports numba; seconds' to tens of
    seconds' worth of nothing else), after importing ``home`` (the module that
    registers the group, in the child process :func:`load` starts).

    ``key`` must be this source's key (the parent process asked for this source's
    module). The built module is loaded and checked against the kernels run as Python
    on small cases (the group's ``check``) before it is reported built.
    """
    import warnings

    importlib.import_module(home)
    if key != _key(group):
        raise RuntimeError(f"the kernels' source changed during the build ({key})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba.pycc is pending deprecation
        from numba.pycc import CC

        cc = CC(GROUPS[group].extension)
        cc.output_dir = os.fspath(out)
        cc.verbose = False
        for module, name, signature in _kernels_in(group):
            func = getattr(jitted(module), name)  # its callees compiled (kernel())
            cc.export(name, signature)(getattr(func, "py_func", func))
        cc.compile()
    path = module_path(Path(out), group)
    built = import_built(path, group)
    module, function = GROUPS[group].check.split(":")
    getattr(importlib.import_module(module), function)(built)
    return path


# -- the notice, and one compile across processes ---------------------------------------

#: Seconds a first call may take before it is taken to be compiling: loading a cached
#: kernel takes 0.1-0.5 s on a quiet machine (docs/performance.md, "First-run compile
#: times"), and took 4.8 s with nine processes on two cores. With numba's cache index
#: of the kernel on disk (a cache hit, unless the source changed), :data:`CACHED_AFTER`.
AFTER = 1.0
CACHED_AFTER = 10.0


def _index_path(dispatcher: Any) -> str | None:
    """Where numba keeps ``dispatcher``'s cache index (numba's own layout:
    ``_cache._cache_file._index_path``; None where it differs)."""
    try:
        path = dispatcher._cache._cache_file._index_path
    except (AttributeError, TypeError):
        return None
    return path if isinstance(path, str) else None


#: Whether this process holds a first-compile lock (one at a time: no two processes
#: can then wait for each other's).
_holding = False


@contextlib.contextmanager
def _first_compile(dispatcher: Any) -> Iterator[None]:
    """Hold a file lock beside ``dispatcher``'s cache index around its first call: a
    second process (pytest's other worker) waits, then loads what the first compiled
    from numba's cache instead of compiling it again. No lock where there is no cache
    or it cannot be written, nor inside another first call."""
    global _holding
    index = _index_path(dispatcher)
    if index is None or _holding:
        yield
        return
    try:
        os.makedirs(os.path.dirname(index), exist_ok=True)
        lock = open(index + ".lock", "a+b")  # noqa: SIM115 - closed below
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(ImportError, OSError):
            import fcntl

            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        _holding = True
        yield
    finally:
        _holding = False
        lock.close()  # releases the lock


@contextlib.contextmanager
def announced(
    what: str, dispatcher: Any, *, after: float | None = None, stream: TextIO | None = None
) -> Iterator[None]:
    """Around the first call of the numba ``dispatcher`` in a process: compiled once
    across processes (:func:`_first_compile`), and ``compiling WHAT for this machine
    (once): N s`` on ``stream`` (stderr) when numba compiles it (the call has no
    compiled form after ``after`` seconds: :data:`AFTER`, or :data:`CACHED_AFTER` when
    the cache has an index for it). Loading from the cache, or a kernel compiled earlier
    in the process, prints nothing."""
    overloads = getattr(dispatcher, "overloads", None)
    if overloads is None or len(overloads) > 0:  # plain Python, or compiled already
        yield
        return
    import threading
    import time

    if after is None:
        index = _index_path(dispatcher)
        after = CACHED_AFTER if index is not None and os.path.exists(index) else AFTER
    out = stream if stream is not None else sys.stderr
    stop = threading.Event()
    t0 = time.perf_counter()

    def watch() -> None:
        if stop.wait(after) or len(overloads) > 0:
            return
        _say_compiling(what, out)
        while len(overloads) == 0 and not stop.wait(0.05):
            pass
        _say_took(time.perf_counter() - t0, out)

    with _first_compile(dispatcher):
        watcher = threading.Thread(target=watch, name="cosched-compile-notice", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            stop.set()
            watcher.join()


# -- what is declared, built and compiled -----------------------------------------------


def catalogue() -> dict[str, list[str]]:
    """What compilation knows in this process: ``groups``, the kernel groups declared
    (each built as one module ahead of time when asked for); ``loaded``, the modules
    compiled ahead of time loaded (groups' and the engine's bound loops', by name);
    ``jitted``, the functions compiled just in time (by qualified name)."""
    return {
        "groups": sorted(GROUPS),
        "loaded": sorted(_loaded),
        "jitted": sorted({f"{f.__module__}.{f.__qualname__}" for f, _ in _DISPATCHERS}),
    }
