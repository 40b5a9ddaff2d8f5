"""Compiled kernels behind :class:`cosched.policies.profile.Profile`.

A profile lives in two preallocated arrays, ``times`` (float64) and ``free`` (int64),
of which the first ``n`` entries are in use; every kernel that can change the number
of segments returns the new ``n``. Callers make sure the arrays have room: each
:func:`add` needs at most two free slots.

The kernels are compiled with numba (:func:`cosched.compile.jit`: ``cache=True``, so a
process pays the compile cost once per machine, not per run). With
``NUMBA_DISABLE_JIT=1`` or without numba they run as plain Python on the same arrays,
with the same results.
"""

from __future__ import annotations

import math

import numpy as np

from cosched.compile import jit

__all__ = [
    "add",
    "advance",
    "coalesce",
    "compress",
    "could_start_before",
    "earliest",
    "reserve",
]


NONE = math.nan  # "no start": what Profile.earliest returns as None


@jit
def _bisect_right(times: np.ndarray, n: int, t: float) -> int:
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if t < times[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@jit
def earliest(
    times: np.ndarray, free: np.ndarray, n: int, size: int, duration: float, not_after: float
) -> float:
    """Earliest segment start at which ``size`` units stay free for ``duration``; NaN if none
    starts at or before ``not_after``."""
    k = 0
    while k < n:
        start = times[k]
        if start > not_after:
            return NONE
        if free[k] < size:
            k += 1
            continue
        end = start + duration
        m = k + 1
        while m < n and times[m] < end and free[m] >= size:
            m += 1
        if m == n or times[m] >= end:
            return start
        k = m + 1
    return NONE


@jit
def _split(times: np.ndarray, free: np.ndarray, n: int, t: float) -> int:
    """Make a segment start exactly at ``t`` (the profile grows to ``n + 1`` if needed);
    return its index, or ``-1 - k`` when it was inserted at ``k``."""
    k = _bisect_right(times, n, t) - 1
    if k >= 0 and times[k] == t:
        return k
    k += 1
    # As list.insert(k, ...) with the value of the segment before (index -1 wraps).
    value = free[k - 1] if k > 0 else free[n - 1]
    for j in range(n, k, -1):
        times[j] = times[j - 1]
        free[j] = free[j - 1]
    times[k] = t
    free[k] = value
    return -1 - k


@jit
def add(
    times: np.ndarray, free: np.ndarray, n: int, start: float, duration: float, units: int
) -> int:
    """Add ``units`` over ``[start, start + duration)``; return the new segment count."""
    a = _split(times, free, n, start)
    if a < 0:
        a = -1 - a
        n += 1
    b = _split(times, free, n, start + duration)
    if b < 0:
        b = -1 - b
        n += 1
    for k in range(a, b):
        free[k] += units
    return n


@jit
def could_start_before(times: np.ndarray, free: np.ndarray, n: int, t: float, size: int) -> bool:
    """Whether some segment starting before ``t`` has ``size`` units free."""
    for k in range(n):
        if times[k] >= t:
            return False
        if free[k] >= size:
            return True
    return False


@jit
def coalesce(times: np.ndarray, free: np.ndarray, n: int) -> int:
    """Merge neighbouring segments with equal free units; return the new count."""
    w = 1
    for k in range(1, n):
        if free[k] != free[w - 1]:
            times[w] = times[k]
            free[w] = free[k]
            w += 1
    return w if n > 0 else 0


@jit
def advance(times: np.ndarray, free: np.ndarray, n: int, now: float) -> int:
    """Forget the segments that ended before ``now``; return the new count."""
    k = _bisect_right(times, n, now) - 1
    if k > 0:
        for j in range(k, n):
            times[j - k] = times[j]
            free[j - k] = free[j]
        n -= k
    times[0] = now
    return n


@jit
def reserve(
    times: np.ndarray,
    free: np.ndarray,
    n: int,
    sizes: np.ndarray,
    durations: np.ndarray,
    starts: np.ndarray,
) -> int:
    """Reserve jobs one after the other at their earliest start (written to ``starts``).

    Needs room for ``2 * len(sizes)`` more segments; returns the new count.
    """
    for j in range(sizes.shape[0]):
        start = earliest(times, free, n, sizes[j], durations[j], math.inf)
        n = add(times, free, n, start, durations[j], -sizes[j])
        starts[j] = start
    return n


@jit
def compress(
    times: np.ndarray,
    free: np.ndarray,
    n: int,
    now: float,
    sizes: np.ndarray,
    durations: np.ndarray,
    starts: np.ndarray,
) -> tuple[int, int]:
    """Compress reservations, in the given order: each job whose start is after ``now``
    and that could start earlier gives up its reservation and takes the earliest start
    no later than it (or, only after an overrun, the earliest at all).

    ``starts`` holds the reservations and receives the new ones. Needs room for
    ``4 * len(sizes)`` more segments; returns the new count and how many reservations
    moved later.
    """
    delayed = 0
    for j in range(sizes.shape[0]):
        old = starts[j]
        size = sizes[j]
        if old <= now or not could_start_before(times, free, n, old, size):
            continue  # cannot move earlier: nothing to do
        duration = durations[j]
        n = add(times, free, n, old, duration, size)
        start = earliest(times, free, n, size, duration, old)
        if math.isnan(start):  # only after an overrun
            start = earliest(times, free, n, size, duration, math.inf)
            delayed += 1
        n = add(times, free, n, start, duration, -size)
        starts[j] = start
    return n, delayed
