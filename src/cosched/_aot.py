"""The numba kernels of the batch fast path and the SWF reader, compiled ahead of time.

Importing numba and loading a cached just-in-time kernel costs about half a second of
CPU per process; the same functions compiled once into an extension module by numba's
ahead-of-time compiler (``numba.pycc``) load in about a millisecond, without numba
(docs/performance.md, "The batch loop and parser compiled ahead of time"). The
source is the same: :data:`KERNELS` names the Python functions numba compiles just in
time (:func:`cosched.engine._batch_kernels.batch_loop`,
:func:`cosched.workload._swf_kernel.parse_block`), and this module compiles them for
fixed argument types.

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
crashes the process); :func:`batch_loop` and :func:`parse_block` here check them first.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

__all__ = [
    "ENABLED",
    "KERNELS",
    "available",
    "batch_loop",
    "build",
    "kernel_dir",
    "load",
    "parse_block",
]

_NAME = "_cosched_kernels"
#: Bumped when the way the module is built changes.
_FORMAT = 1
_PACKAGE = Path(__file__).resolve().parent

#: (module, function, numba signature) of every exported kernel. Arrays are
#: C-contiguous (``[::1]``) where the callers pass fresh arrays.
KERNELS: tuple[tuple[str, str, str], ...] = (
    (
        "cosched.engine._batch_kernels",
        "batch_loop",
        "void(f8[::1], f8[::1], f8[::1], i8[::1], i8, i8, i8, f8[::1], f8[::1], i8[::1],"
        " f8[::1], i8[::1], i8[::1], f8[::1], i8[::1], i8[::1])",
    ),
    (
        "cosched.workload._swf_kernel",
        "parse_block",
        "Tuple((f8[:, :], i8[:], b1))(u1[::1], b1[::1], b1[::1])",
    ),
)

_loaded: ModuleType | None = None
_tried_build = False


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


def _key() -> str:
    """A hash of what the built module depends on: the kernels' source and the versions."""
    h = hashlib.sha256()
    parts = [
        str(_FORMAT),
        sys.version,
        _EXT_SUFFIX,
        np.__version__,
        _numba_version(),
        repr(KERNELS),
    ]
    for part in parts:
        h.update(part.encode() + b"\0")
    for module in sorted({m for m, _, _ in KERNELS}):
        h.update(_source_file(module).read_bytes() + b"\0")
    return h.hexdigest()[:20]


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


def kernel_dir() -> Path:
    """The folder that holds (or will hold) this installation's compiled kernels."""
    return _cache_root() / _key()


def _module_path(folder: Path) -> Path:
    return folder / (_NAME + _EXT_SUFFIX)


#: Whether the ahead-of-time kernels may be used (tests set it to False to run numba's).
ENABLED = True


def available() -> bool:
    """Whether ahead-of-time kernels may be used at all: :data:`ENABLED` and
    ``COSCHED_AOT`` is not ``0``."""
    env = os.environ.get("COSCHED_AOT", "1").strip().lower()
    return ENABLED and env not in {"0", "no", "off", "false"}


def load(*, build: bool = False) -> ModuleType | None:
    """The compiled kernels, building them first if ``build`` and they are missing.

    None when they are disabled, missing (and not to be built) or cannot be built: the
    caller then runs numba's just-in-time kernels. Never raises for a missing compiler
    or an unwritable cache.
    """
    global _loaded, _tried_build
    if not available():
        return None
    if _loaded is not None:
        return _loaded
    try:
        folder = kernel_dir()
        path = _module_path(folder)
        if not path.is_file():
            if not build or _tried_build:
                return None
            _tried_build = True
            if not _build_in_child(folder):
                return None
        _loaded = _import(path)
    except (OSError, ImportError):
        return None
    return _loaded


def _import(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(_NAME, path)
    if spec is None or spec.loader is None:  # pragma: no cover
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build_in_child(folder: Path) -> bool:
    """Build the module into ``folder`` in a child process, once across processes."""
    if (folder / "failed.txt").exists():
        return False
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a+b") as lock:
        with contextlib.suppress(ImportError):
            import fcntl

            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # another process may be building
        if _module_path(folder).is_file():
            return True
        if (folder / "failed.txt").exists():
            return False
        import subprocess
        import tempfile

        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
        try:
            code = (
                "import sys; sys.path.insert(0, sys.argv[1]); "
                "from cosched._aot import build; build(sys.argv[2], sys.argv[3])"
            )
            try:
                done = subprocess.run(
                    [sys.executable, "-c", code, str(_PACKAGE.parent), str(tmp), folder.name],
                    capture_output=True,
                    timeout=900,
                    check=False,
                )
                output = (done.stdout + done.stderr).decode(errors="replace")
                ok = done.returncode == 0 and _module_path(tmp).is_file()
            except (OSError, subprocess.TimeoutExpired) as exc:
                output, ok = f"{type(exc).__name__}: {exc}", False
            if ok:
                os.replace(_module_path(tmp), _module_path(folder))
            else:
                _write_atomically(folder / "failed.txt", _failure_text(output))
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


def build(out: str | os.PathLike[str], key: str | None = None) -> Path:
    """Compile :data:`KERNELS` into ``out`` (imports numba; minutes' worth of nothing else).

    ``key``, when given, must be this source's :func:`_key` (the parent process asked
    for this source's module). The built module is loaded and checked against the
    kernels run as Python on a small workload before it is reported built.
    """
    import importlib
    import warnings

    if key is not None and key != _key():
        raise RuntimeError(f"the kernels' source changed during the build ({key})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba.pycc is pending deprecation
        from numba.pycc import CC

        cc = CC(_NAME)
        cc.output_dir = os.fspath(out)
        cc.verbose = False
        for module, name, signature in KERNELS:
            func = getattr(importlib.import_module(module), name)
            cc.export(name, signature)(getattr(func, "py_func", func))
        cc.compile()
    path = _module_path(Path(out))
    _self_check(_import(path))
    return path


def _self_check(module: ModuleType) -> None:
    """The compiled kernels give the Python functions' results on a small case."""
    from cosched.engine._batch_kernels import batch_loop as plain_loop
    from cosched.workload._swf_kernel import parse_block as jit_parse

    rng = np.random.default_rng(0)
    n = 300
    submit = np.sort(rng.integers(0, 2000, n)).astype(np.float64)
    run = rng.integers(1, 300, n).astype(np.float64)
    est = run + rng.integers(-20, 200, n)
    size = rng.integers(1, 9, n).astype(np.int64)
    for policy in (0, 1):
        got = _run_loop(module.batch_loop, submit, run, est, size, 16, policy, -1)
        want = _run_loop(plain_loop, submit, run, est, size, 16, policy, -1)
        if not all(np.array_equal(a, b, equal_nan=True) for a, b in zip(got, want, strict=True)):
            raise RuntimeError("the compiled batch loop differs from its source")
    text = (
        b"1 0 10 5 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        b"2 1.5 0 5 4 -1 -1 4 10.25 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    data = np.frombuffer(text, dtype=np.uint8).copy()
    flags = np.ones(18, dtype=np.bool_)
    a, where, ok = module.parse_block(data, flags, flags)
    b, where2, ok2 = jit_parse.py_func(data, flags, flags)
    if not (ok and ok2 and np.array_equal(a, b) and np.array_equal(where, where2)):
        raise RuntimeError("the compiled SWF parser differs from its source")


def _run_loop(
    loop: Any,
    submit: np.ndarray,
    run: np.ndarray,
    est: np.ndarray,
    size: np.ndarray,
    capacity: int,
    policy: int,
    window: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(submit)
    start, end, counts = np.full(n, np.nan), np.full(n, np.nan), np.zeros(3, dtype=np.int64)
    i64, f64 = np.int64, np.float64
    loop(
        submit, run, est, size, capacity, policy, window, start, end,
        np.empty(n, dtype=i64), np.empty(n, dtype=f64), np.empty(n, dtype=i64),
        np.empty(n, dtype=i64), np.empty(n, dtype=f64), np.empty(n, dtype=i64), counts,
    )  # fmt: skip
    return start, end, counts


def _checked(a: Any, dtype: type) -> np.ndarray:
    if not (
        isinstance(a, np.ndarray)
        and a.dtype == dtype
        and a.ndim == 1
        and a.flags.c_contiguous
        and a.flags.writeable
    ):
        raise TypeError(
            f"a compiled kernel needs a writeable 1-d contiguous {dtype.__name__} array"
        )
    return a


def batch_loop(module: ModuleType, *args: Any) -> None:
    """``module.batch_loop(*args)`` after checking every array's dtype and layout
    (the arguments of :func:`cosched.engine._batch_kernels.batch_loop`)."""
    if len(args) != 16:
        raise TypeError(f"batch_loop takes 16 arguments, not {len(args)}")
    f, i = np.float64, np.int64
    kinds = (f, f, f, i, int, int, int, f, f, i, f, i, i, f, i, i)
    checked = [
        int(a) if kind is int else _checked(a, kind) for a, kind in zip(args, kinds, strict=True)
    ]
    module.batch_loop(*checked)


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
