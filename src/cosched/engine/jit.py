"""Saying so when numba compiles a kernel just in time.

A numba kernel's first call in a process either loads its machine code from numba's
cache (a fraction of a second) or, on a fresh install or after an upgrade, compiles it
(2 min for the time-sharing kernel; the engine's event loop with a pass bound, when it
cannot be compiled ahead of time).
:func:`announced` wraps such a call: if, after a moment, the kernel still has no
compiled form in this process, numba is compiling it, and one line on stderr says so,
completed by the compile's time when it ends. Loading from the cache, or a kernel
compiled earlier in the process, prints nothing. The engine's own event loop is
compiled ahead of time instead (:mod:`cosched.engine.aot`), which says so the same way.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = ["AFTER", "CACHED_AFTER", "announced"]

#: Seconds a first call may take before it is taken to be compiling: loading a cached
#: kernel takes 0.1-0.5 s on a quiet machine (docs/performance.md, "First-run compile
#: times"), and took 4.8 s with nine processes on two cores. With numba's cache index
#: of the kernel on disk (a cache hit, unless the source changed), :data:`CACHED_AFTER`.
AFTER = 1.0
CACHED_AFTER = 10.0


def _indexed(dispatcher: Any) -> bool:
    """Whether numba's cache holds an index for ``dispatcher`` (numba's own layout:
    ``_cache._cache_file._index_path``; False where it differs)."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except (AttributeError, TypeError):
        return False


@contextmanager
def announced(
    what: str, dispatcher: Any, *, after: float | None = None, stream: TextIO | None = None
) -> Iterator[None]:
    """Around the first call of the numba ``dispatcher``: ``compiling WHAT for this
    machine (once): N s`` on ``stream`` (stderr) when numba compiles it (the call has
    no compiled form after ``after`` seconds: :data:`AFTER`, or :data:`CACHED_AFTER`
    when the cache has an index for it)."""
    overloads = getattr(dispatcher, "overloads", None)
    if overloads is None or len(overloads) > 0:  # plain Python, or compiled already
        yield
        return
    if after is None:
        after = CACHED_AFTER if _indexed(dispatcher) else AFTER
    out = stream if stream is not None else sys.stderr
    stop = threading.Event()
    t0 = time.perf_counter()

    def watch() -> None:
        if stop.wait(after) or len(overloads) > 0:
            return
        out.write(f"compiling {what} for this machine (once): ")
        out.flush()
        while len(overloads) == 0 and not stop.wait(0.05):
            pass
        out.write(f"{time.perf_counter() - t0:.1f} s\n")
        out.flush()

    watcher = threading.Thread(target=watch, name="cosched-compile-notice", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()
