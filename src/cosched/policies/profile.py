"""A step function of free units over time, for reservation-based policies."""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterable

__all__ = ["Profile"]


class Profile:
    """Free units from ``now`` on: segment ``k`` starts at ``times[k]`` with ``free[k]``.

    The last segment runs to infinity. Built from the units free now and the
    ``(time, units)`` releases expected later.
    """

    __slots__ = ("_peak", "free", "times")

    def __init__(self, now: float, free_now: int, releases: Iterable[tuple[float, int]]) -> None:
        self.times = [now]
        self.free = [free_now]
        for t, units in sorted(releases):
            t = max(t, now)
            if t == self.times[-1]:
                self.free[-1] += units
            else:
                self.times.append(t)
                self.free.append(self.free[-1] + units)
        self._peak: list[int] | None = None

    def earliest(self, size: int, duration: float, not_after: float = math.inf) -> float | None:
        """Earliest start at which ``size`` units stay free for ``duration``.

        Returns None when no start at or before ``not_after`` exists.
        """
        times, free = self.times, self.free
        n = len(times)
        k = 0
        while k < n:
            start = times[k]
            if start > not_after:
                return None
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
        return None

    def _split(self, t: float) -> int:
        """Index of the segment starting exactly at ``t`` (creating it if needed)."""
        k = bisect.bisect_right(self.times, t) - 1
        if self.times[k] != t:
            k += 1
            self.times.insert(k, t)
            self.free.insert(k, self.free[k - 1])
        return k

    def add(self, start: float, duration: float, units: int) -> None:
        """Add ``units`` (negative to take them) over ``[start, start + duration)``."""
        a = self._split(start)
        b = self._split(start + duration)
        free = self.free
        for k in range(a, b):
            free[k] += units
        self._peak = None

    def could_start_before(self, t: float, size: int) -> bool:
        """Whether some segment starting before ``t`` has ``size`` units free.

        A necessary condition for a job reserved at ``t`` to move earlier (its own
        reservation lies at or after ``t``), answered in O(log n) from a cached
        running maximum.
        """
        if self._peak is None:
            self._peak = list(itertools.accumulate(self.free, max))
        k = bisect.bisect_left(self.times, t) - 1
        return k >= 0 and self._peak[k] >= size

    def coalesce(self) -> None:
        """Merge neighbouring segments with equal free units (keeps the profile small)."""
        times, free = self.times, self.free
        keep = [k for k in range(1, len(free)) if free[k] != free[k - 1]]
        if len(keep) + 1 < len(free):
            self.times = [times[0], *(times[k] for k in keep)]
            self.free = [free[0], *(free[k] for k in keep)]
            self._peak = None

    def advance(self, now: float) -> None:
        """Forget the segments that ended before ``now``."""
        k = bisect.bisect_right(self.times, now) - 1
        if k > 0:
            del self.times[:k]
            del self.free[:k]
            self._peak = None
        self.times[0] = now
