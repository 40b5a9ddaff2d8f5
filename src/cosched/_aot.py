"""Numba kernels compiled ahead of time: the machinery, for the kernels a module
declares.

Importing numba and loading a cached just-in-time kernel costs about half a second of
CPU per process; the same functions compiled once into an extension module by numba's
ahead-of-time compiler (``numba.pycc``) load in about a millisecond, without numba
(docs/performance.md, "The batch loop and parser compiled ahead of time"). The
source is the same: a kernel module declares its functions' numba signatures
(``SIGNATURES``, beside the functions: the node-sharing family's modules; the SWF
parser's, whose module imports numba, are declared with its group here), kernel modules are built in
groups (:class:`Group`: ``batch`` here, a family's registered by the family), and this
module compiles them for those fixed argument types. It imports no other cosched
module: a group names its modules, found by name where they are needed (in the child
process that builds them); the engine's event loop is built by
:mod:`cosched.engine.aot` through :func:`load_built`.

The module is built on first use, in a child process (``python -m cosched._aot``), into
a folder of the user's cache (``$COSCHED_AOT_DIR``, else ``$XDG_CACHE_HOME/cosched/
kernels`` or ``~/.cache/cosched/kernels``) named by a hash of the kernels' source and
the Python, numpy and numba versions, so an upgrade or an edit builds a new one. It is
written to a temporary folder and renamed into place, under a file lock, so that
parallel processes build it once and never load half a file. When it cannot be built
(no C compiler, no ``numba.pycc``, an unwritable cache) or ``COSCHED_AOT=0`` is set,
:func:`load` returns None and the callers use numba's just-in-time kernels, as before:
the same functions, so the same results. A failed build leaves ``failed.txt`` with the
compiler's output in the folder, so later processes do not try again (delete the
folder to retry).

The compiled functions check nothing about their arguments (a wrong dtype or layout
crashes the process); :func:`parse_block` here checks them first.
The other kernels are called by cosched's own classes on arrays they build, and
:class:`Checked` checks each call against its declared signature when asked to
(:func:`checking`; the test suite always does).

Kernels that call each other (the node-sharing family's) are marked with :func:`kernel`
instead of being decorated with numba at import: their module stays plain Python, so
importing it loads no numba. :func:`kernels` hands a caller the compiled form of a
module's kernels: the ahead-of-time ones when the module is built, else numba's, which
:func:`jitted` makes by compiling the module's marked functions in place (each marked
function becomes one numba dispatcher, in its own module and in every module that
imported it, so that compiled kernels call compiled kernels).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "B1",
    "B2",
    "CHECK",
    "ENABLED",
    "F1",
    "F2",
    "F3",
    "GROUPS",
    "I1",
    "I2",
    "Checked",
    "Group",
    "available",
    "build",
    "checking",
    "compiled_kernel",
    "jitted",
    "kernel",
    "kernel_dir",
    "kernels",
    "load",
    "parse_block",
    "register",
    "tuple_of",
]

F = TypeVar("F", bound=Callable[..., Any])

#: Bumped when the way the module is built changes.
_FORMAT = 2
_PACKAGE = Path(__file__).resolve().parent

# Argument types as signatures write them: every array C-contiguous where the callers
# pass fresh arrays (a family's kernel module writes its signatures with these).
I1, I2, F1, F2, F3 = "i8[::1]", "i8[:, ::1]", "f8[::1]", "f8[:, ::1]", "f8[:, :, ::1]"
B1, B2 = "b1[::1]", "b1[:, ::1]"


def tuple_of(*items: str) -> str:
    """The signature type of a tuple of ``items``."""
    return "Tuple((" + ", ".join(items) + "))"


@dataclass(frozen=True)
class Group:
    """Kernels built as one extension module, so that a family builds only what it
    runs. Each of ``modules`` declares its kernels as ``SIGNATURES`` (function name:
    numba signature) beside the functions; a family declares its group in one of them
    and :func:`register` s it on import.

    Attributes:
        name: the group's name (``load(group=...)``, the cache folder's key).
        extension: the built module's name.
        modules: the kernel modules, by name.
        check: ``module:function`` called with the built module, which raises if it
            differs from the source on small cases (before the build is kept).
        declared: (module, function, signature) of each kernel, for modules that
            import numba (their signatures cannot be read without it): the SWF parser's.
    """

    name: str
    extension: str
    modules: tuple[str, ...]
    check: str
    declared: tuple[tuple[str, str, str], ...] = ()


#: The groups by name: ``batch`` (the SWF parser, which every long trace uses, and the
#: node-busy sum of a placement-aware run's summary) and
#: those the families register (the node-sharing family's ``nodeshare``). (The engine's
#: event loop is one module per policy pass: :mod:`cosched.engine.aot`.)
GROUPS: dict[str, Group] = {
    "batch": Group(
        "batch",
        "_cosched_kernels",
        ("cosched.workload._swf_kernel", "cosched.metrics._busy_kernel"),
        "cosched._aot:_self_check",
        (
            (
                "cosched.workload._swf_kernel",
                "parse_block",
                "Tuple((f8[:, :], i8[:], b1))(u1[::1], b1[::1], b1[::1])",
            ),
            (
                "cosched.metrics._busy_kernel",
                "node_busy",
                "f8(f8[::1], f8[::1], i8[::1], i8[::1], i8)",
            ),
        ),
    )
}


def register(group: Group) -> None:
    """Make ``group`` known (a family's kernel module calls it on import)."""
    GROUPS[group.name] = group


def _group(module: str) -> str:
    """The group of the kernel module ``module``."""
    for g in GROUPS.values():
        if module in g.modules:
            return g.name
    return "batch"


def _kernels_in(group: str) -> tuple[tuple[str, str, str], ...]:
    """(module, function, numba signature) of every kernel of ``group``."""
    if GROUPS[group].declared:
        return GROUPS[group].declared
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


def _source_file(module: str) -> Path:
    return _PACKAGE.joinpath(*module.split(".")[1:]).with_suffix(".py")


def _numba_version() -> str:
    """numba's version from its installed metadata, without importing numba."""
    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        return "none"
    site = Path(spec.origin).parent.parent
    with contextlib.suppress(OSError):
        for name in os.listdir(site):
            if name.startswith("numba-") and name.endswith((".dist-info", ".egg-info")):
                return name
    return "unknown"


def version_key(*parts: str) -> str:
    """A hash of ``parts`` and of the versions compiled code depends on (Python, its
    extension suffix, numpy, numba, this module's build format)."""
    h = hashlib.sha256()
    for part in (str(_FORMAT), sys.version, _EXT_SUFFIX, np.__version__, _numba_version()):
        h.update(part.encode() + b"\0")
    for part in parts:
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:20]


def _key(group: str = "batch") -> str:
    """A hash of what a group's built module depends on: its kernels' source and the
    versions."""
    h = hashlib.sha256()
    parts = [
        str(_FORMAT),
        sys.version,
        _EXT_SUFFIX,
        np.__version__,
        _numba_version(),
        group,
        repr(_kernels_in(group)),
    ]
    for part in parts:
        h.update(part.encode() + b"\0")
    for module in sorted({m for m, _, _ in _kernels_in(group)}):
        h.update(_source_file(module).read_bytes() + b"\0")
    return h.hexdigest()[:20]


def cache_root() -> Path:
    """The folder that holds compiled modules, one subfolder per key
    (``$COSCHED_AOT_DIR``, else the user's cache)."""
    return _cache_root()


def _cache_root() -> Path:
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


def kernel_dir(group: str = "batch") -> Path:
    """The folder that holds (or will hold) this installation's compiled kernels of
    ``group``."""
    return _cache_root() / _key(group)


def _module_path(folder: Path, group: str = "batch") -> Path:
    known = GROUPS.get(group)
    return folder / ((known.extension if known else group) + _EXT_SUFFIX)


#: Whether the ahead-of-time kernels may be used (tests set it to False to run numba's).
ENABLED = True


def available() -> bool:
    """Whether ahead-of-time kernels may be used at all: :data:`ENABLED` and
    ``COSCHED_AOT`` is not ``0``."""
    env = os.environ.get("COSCHED_AOT", "1").strip().lower()
    return ENABLED and env not in {"0", "no", "off", "false"}


def load(*, build: bool = False, group: str = "batch") -> ModuleType | None:
    """The compiled kernels of ``group``, building them first if ``build`` and they are
    missing.

    None when they are disabled, missing (and not to be built) or cannot be built: the
    caller then runs numba's just-in-time kernels. Never raises for a missing compiler
    or an unwritable cache.
    """
    if not available():
        return None
    got = _loaded.get(group)
    if got is not None:
        return got
    try:
        folder = kernel_dir(group)
        path = _module_path(folder, group)
        if not path.is_file():
            if not build or group in _tried_build:
                return None
            _tried_build.add(group)
            if not _build_in_child(folder, group, args=(GROUPS[group].modules[0],)):
                return None
        got = _loaded[group] = _import(path, group)
    except (OSError, ImportError):
        return None
    return got


def _import(path: Path, group: str = "batch") -> ModuleType:
    known = GROUPS.get(group)
    spec = importlib.util.spec_from_file_location(known.extension if known else group, path)
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
        path = _module_path(folder, name)
        if not path.is_file():
            if not build or name in _tried_build:
                return None
            _tried_build.add(name)
            if not _build_in_child(folder, name, entry=entry, args=args, label=label):
                return None
        got = _loaded[name] = _import(path, name)
    except (OSError, ImportError):
        return None
    return got


def _build_in_child(
    folder: Path,
    group: str = "batch",
    *,
    entry: str = "cosched._aot:build",
    args: tuple[str, ...] = (),
    label: str = "",
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
        if _module_path(folder, group).is_file():
            return True
        if (folder / "failed.txt").exists():
            return False
        import subprocess
        import tempfile
        import time

        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
        what = label or f"cosched's {group} kernels"
        sys.stderr.write(f"compiling {what} for this machine (once): ")
        sys.stderr.flush()
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
                ok = done.returncode == 0 and _module_path(tmp, group).is_file()
            except (OSError, subprocess.TimeoutExpired) as exc:
                output, ok = f"{type(exc).__name__}: {exc}", False
            took = time.perf_counter() - t0
            if ok:
                os.replace(_module_path(tmp, group), _module_path(folder, group))
                sys.stderr.write(f"{took:.1f} s\n")
            else:
                _write_atomically(folder / "failed.txt", _failure_text(output))
                failed = folder / "failed.txt"
                sys.stderr.write(f"failed after {took:.1f} s; numba's code instead ({failed})\n")
            return ok
        finally:
            for p in sorted(tmp.rglob("*"), reverse=True):
                with contextlib.suppress(OSError):
                    p.unlink() if not p.is_dir() else p.rmdir()
            with contextlib.suppress(OSError):
                tmp.rmdir()


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
_DISPATCHERS: dict[Callable[..., Any], Any] = {}
_JITTED: set[str] = set()


def kernel(f: F) -> F:
    """Mark ``f`` as a kernel: a plain function until :func:`jitted` compiles its module
    with numba (``cache=True``, ``nogil=True``), or compiled ahead of time when its
    module's ``SIGNATURES`` name it. Importing a module of marked kernels loads no numba."""
    _MARKED.add(f)
    return f


def jitted(name: str) -> ModuleType:
    """The module ``name`` with each marked function in its namespace replaced by its
    numba dispatcher, and so the modules those functions come from (a compiled kernel's
    callees must be compiled too). Without numba, or with ``NUMBA_DISABLE_JIT=1``, the
    functions stay (or are) plain Python, with the same results."""
    import importlib

    module = importlib.import_module(name)
    if name in _JITTED:
        return module
    try:
        from numba import njit
    except ImportError:  # pragma: no cover - numba is a dependency
        _JITTED.add(name)
        return module
    _JITTED.add(name)  # before the walk: modules may import each other's kernels
    for attr, value in list(vars(module).items()):
        if not (isinstance(value, FunctionType) and value in _MARKED):
            continue
        if value.__module__ != name:
            jitted(value.__module__)
        dispatcher = _DISPATCHERS.get(value)
        if dispatcher is None:
            dispatcher = _DISPATCHERS[value] = njit(cache=True, nogil=True)(value)
        setattr(module, attr, dispatcher)
    return module


@dataclass(frozen=True)
class _Array:
    dtype: np.dtype[Any]
    ndim: int
    contiguous: bool


#: An argument's type as a signature writes it: a scalar code, an
#: array or a tuple of types.
_Type = str | _Array | tuple[Any, ...]
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


def _describe(a: Any) -> str:
    if isinstance(a, np.ndarray):
        layout = "contiguous" if a.flags.c_contiguous else "strided"
        ro = "" if a.flags.writeable else "read-only "
        return f"a {ro}{a.ndim}-d {layout} {a.dtype} array"
    return f"{type(a).__name__} {a!r}"[:80]


def _check(kind: _Type, a: Any, where: str) -> None:
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
        self._last: list[Any] = [_NOT_SEEN] * len(self._kinds)

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

    def __reduce__(self) -> tuple[Any, tuple[str]]:
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
    """The signatures of the kernels of ``module``, by function."""
    return {f: sig for m, f, sig in _kernels_in(_group(module)) if m == module}


_HANDED: dict[tuple[str, bool, bool], _Kernels] = {}

#: Whether :func:`kernels` hands out the compiled kernels wrapped in :class:`Checked`
#: (``COSCHED_CHECK_KERNELS=1`` also turns it on; the test suite does).
CHECK = False


def checking() -> bool:
    """Whether the kernels :func:`kernels` hands out check every call (:data:`CHECK`)."""
    env = os.environ.get("COSCHED_CHECK_KERNELS", "0").strip().lower()
    return CHECK or env not in {"0", "no", "off", "false", ""}


def kernels(name: str, *, build: bool = True) -> Any:
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
    compiled = load(build=build, group=_group(name))
    key = (name, compiled is not None, checking())
    got = _HANDED.get(key)
    if got is None:
        got = _HANDED[key] = _Kernels(name, compiled)
    return got


def compiled_kernel(module: str, name: str) -> Callable[..., Any] | None:
    """Kernel ``name`` of kernel module ``module`` as compiled ahead of time when its
    group's module is built, else None: nothing is built and numba is not imported, for
    a caller with a numpy form of its own to fall back on (the node-busy sum). Wrapped
    in :class:`Checked` when :func:`checking`, as :func:`kernels` hands them out."""
    compiled = load(build=False, group=_group(module))
    signature = _signatures(module).get(name)
    if compiled is None or signature is None:
        return None
    func: Callable[..., Any] = getattr(compiled, name)
    return Checked(name, func, signature) if checking() else func


def build(
    out: str | os.PathLike[str],
    key: str | None = None,
    group: str = "batch",
    home: str | None = None,
) -> Path:
    """Compile the kernels of ``group`` into ``out`` (imports numba; seconds' to tens of
    seconds' worth of nothing else), after importing ``home`` (the module that
    registers the group, in a child process).

    ``key``, when given, must be this source's :func:`_key` (the parent process asked
    for this source's module). The built module is loaded and checked against the
    kernels run as Python on a small workload before it is reported built.
    """
    import warnings

    if home is not None:
        importlib.import_module(home)
    if key is not None and key != _key(group):
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
    path = _module_path(Path(out), group)
    built = _import(path, group)
    module, function = GROUPS[group].check.split(":")
    getattr(importlib.import_module(module), function)(built)
    return path


def _self_check(module: ModuleType) -> None:
    """The compiled SWF parser and node-busy sum give the Python functions' results on
    small cases."""
    jit_parse = jitted("cosched.workload._swf_kernel").parse_block
    text = (
        b"1 0 10 5 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        b"2 1.5 0 5 4 -1 -1 4 10.25 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    data = np.frombuffer(text, dtype=np.uint8).copy()
    flags = np.ones(18, dtype=np.bool_)
    a, where, ok = module.parse_block(data, flags, flags)
    b, where2, ok2 = getattr(jit_parse, "py_func", jit_parse)(data, flags, flags)
    if not (ok and ok2 and np.array_equal(a, b) and np.array_equal(where, where2)):
        raise RuntimeError("the compiled SWF parser differs from its source")
    node_busy = importlib.import_module("cosched.metrics._busy_kernel").node_busy  # by name
    # Three jobs on nodes 2 and 0: node 2 busy over [0, 7] and [9.5, 12], node 0 over
    # [1, 7]; then a job out of start order (not the kernel's case).
    start, end = np.array([0.0, 1.0, 9.5]), np.array([5.0, 7.0, 12.0])
    cases = (
        (np.array([0, 1, 1, 2]), np.array([2, 2, 0, 2]), 15.5),
        (np.array([1, 0]), np.array([0, 2]), -1.0),
    )
    for job_of, nodes, want in cases:
        got = module.node_busy(start, end, job_of, nodes, 3)
        if not got == node_busy(start, end, job_of, nodes, 3) == want:
            raise RuntimeError("the compiled node-busy sum differs from its source")


def parse_block(
    module: ModuleType, data: np.ndarray, signed: np.ndarray, fractional: np.ndarray
) -> tuple[np.ndarray, np.ndarray, bool]:
    """``module.parse_block`` after checking the arrays (see
    :func:`cosched.workload._swf_kernel.parse_block`); ``data`` may be read-only (the
    kernel only reads it)."""
    data = np.ascontiguousarray(data, dtype=np.uint8)
    signed = np.ascontiguousarray(signed, dtype=np.bool_)
    fractional = np.ascontiguousarray(fractional, dtype=np.bool_)
    if data.ndim != 1 or signed.shape != (18,) or fractional.shape != (18,):
        raise TypeError("parse_block needs 1-d bytes and 18 flags of each kind")
    values, where, ok = module.parse_block(data, signed, fractional)
    return values, where, bool(ok)


if __name__ == "__main__":  # pragma: no cover (``python -m cosched._aot OUT``)
    print(build(sys.argv[1]))
