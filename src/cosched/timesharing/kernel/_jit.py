"""How numba compiles the kernel: the decorator every kernel function wears.

Each function is compiled with ``cache=True`` (once per machine and source), without
numba's reference counting, and inlined into its callers unless it is an entry point or
runs rarely (``_OUT_OF_LINE``). numba's disk cache checks only the file a function is
written in, while a compiled function carries the machine code of every function it
calls, from whichever module of the package; so each function's cache entry is named by
the cosched-wide cache key (:func:`cosched.compile.key`) of the whole package's source
(``SOURCE_TAG``), and an edit to any module compiles every function anew, as an edit to
the one file of a single-module kernel did.
With ``NUMBA_DISABLE_JIT=1`` (or without numba) ``njit`` returns the function itself: the
same source runs as plain Python.

What is inlined trades the first compile against speed (docs/performance.md, "First-run
compile times"). Inlined code is compiled once per caller and again in each caller's
callers, so a large function called from several places (``_SHARED``) is compiled out of
line: the kernel compiles in about 2 min of CPU instead of 7-9, at 0.85-1.0 of the
fully inlined speed.
``COSCHED_KERNEL_INLINE=all`` inlines those too, for long campaigns (its compiled
functions are cached under their own names).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cosched.compile import key

__all__ = ["INLINE_ALL", "SOURCE_TAG", "_NUMBA", "njit"]


#: The package's source hash that names every compiled function's cache entry: the
#: :func:`cosched.compile.key` of every module of the kernel package (read once per
#: process).
SOURCE_TAG = key(files=[str(p) for p in Path(__file__).resolve().parent.glob("*.py")], length=12)
#: ``COSCHED_KERNEL_INLINE=all``: inline the shared functions too (a longer first
#: compile, a faster kernel).
INLINE_ALL = os.environ.get("COSCHED_KERNEL_INLINE", "") == "all"

try:  # pragma: no cover - numba is a dependency; plain Python still works (slowly)
    from numba import config
    from numba import njit as _njit

    #: numba's options for every kernel function (``_nrt`` is not in numba's stubs).
    _OPTIONS: dict[str, Any] = {"cache": True, "error_model": "numpy", "_nrt": False}
    #: Functions compiled out of line: the entry points, what runs at most once per
    #: job, slot or second, and Linux 2.4's reschedule_idle (a call only ``linux24``
    #: pays), and NIC contention's send and deposit (calls only that reading pays).
    #: Every other function is inlined into its callers.
    _OUT_OF_LINE = frozenset(
        ("run_kernel", "fold_all", "raise_all", "gang_slot", "fcs_slot", "fcs_enter",
         "start_job", "try_start", "place", "gang_start", "fcs_start", "end_job",
         "check_all", "snapshot", "lazy_flush", "linux_place", "linux_fcs_modes",
         "noise_arm", "nic_send", "nic_in")
    )  # fmt: skip

    #: Functions called from several kernel functions whose body, with what it inlines,
    #: exceeds ``SHARED_LINES`` lines (``tests/timesharing/test_kernel_inlining.py``
    #: checks the list against the source): out of line unless :data:`INLINE_ALL`.
    _SHARED = frozenset(
        ("dispatch", "pick", "pick_fcs", "linux_choice", "linux_recalc", "linux_schedule",
         "request_preempt", "leave")
    )  # fmt: skip
    SHARED_LINES = 400

    #: Functions that allocate scratch arrays (the EASY front's reservation, run once
    #: per admission attempt): compiled out of line with numba's reference counting on.
    _ALLOCATING = frozenset(("easy_start", "easy_shadow"))

    _NUMBA = not getattr(config, "DISABLE_JIT", False)

    def njit(f: Any) -> Any:
        """Compile ``f`` (cached on disk under a name that carries ``SOURCE_TAG``)
        without numba's reference counting, inlined into its callers unless it is in
        ``_OUT_OF_LINE`` (``_ALLOCATING``: with reference counting, out of line).

        The kernel allocates nothing: it only reads and writes the arrays it is handed.
        With the runtime's reference counting on (numba's default), every function that
        takes an array out of the state tuple pays a call to increment and one to
        decrement its owner's count. And a call passes the state tuple as some sixty
        machine words on the stack, so the hot path is compiled as one function
        (``forceinline``: LLVM's ``alwaysinline``). Both give the same bits, faster
        (docs/performance.md, "A faster process-level kernel").
        """
        if _NUMBA:
            # numba names a function's cache entry by its module and qualified name.
            f.__qualname__ = f"{f.__qualname__}_{SOURCE_TAG}{'_inline' if INLINE_ALL else ''}"
        if f.__name__ in _ALLOCATING:
            return _njit(f, **{**_OPTIONS, "_nrt": True})
        apart = _OUT_OF_LINE if INLINE_ALL else _OUT_OF_LINE | _SHARED
        return _njit(f, **_OPTIONS, forceinline=f.__name__ not in apart)

except ImportError:  # pragma: no cover

    def njit(f: Any) -> Any:
        return f

    _NUMBA = False
