"""A step function of free units over time, for reservation-based policies."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from cosched.policies import _profile_kernels as K

__all__ = ["Profile"]


class Profile:
    """Free units from ``now`` on: segment ``k`` starts at ``times[k]`` with ``free[k]``.

    The last segment runs to infinity. Built from the units free now and the
    ``(time, units)`` releases expected later.

    The segments live in preallocated numpy arrays (the first ``n`` entries are in
    use) and every operation is a compiled kernel (:mod:`._profile_kernels`); the
    batched :meth:`reserve` and :meth:`compress` run a whole scheduling step in one
    call.
    """

    __slots__ = ("_free", "_times", "n")

    def __init__(self, now: float, free_now: int, releases: Iterable[tuple[float, int]]) -> None:
        times = [now]
        free = [free_now]
        for t, units in sorted(releases):
            t = max(t, now)
            if t == times[-1]:
                free[-1] += units
            else:
                times.append(t)
                free.append(free[-1] + units)
        self.n = len(times)
        cap = max(64, 2 * self.n)
        self._times = np.zeros(cap, dtype=np.float64)
        self._free = np.zeros(cap, dtype=np.int64)
        self._times[: self.n] = times
        self._free[: self.n] = free

    @property
    def times(self) -> list[float]:
        """Segment starts (a copy)."""
        return self._times[: self.n].tolist()  # type: ignore[no-any-return]

    @property
    def free(self) -> list[int]:
        """Free units of each segment (a copy)."""
        return self._free[: self.n].tolist()  # type: ignore[no-any-return]

    def _room(self, extra: int) -> None:
        """Make sure ``extra`` more segments fit."""
        need = self.n + extra
        cap = self._times.shape[0]
        if need > cap:
            cap = max(need, 2 * cap)
            times = np.zeros(cap, dtype=np.float64)
            free = np.zeros(cap, dtype=np.int64)
            times[: self.n] = self._times[: self.n]
            free[: self.n] = self._free[: self.n]
            self._times, self._free = times, free

    def earliest(self, size: int, duration: float, not_after: float = math.inf) -> float | None:
        """Earliest start at which ``size`` units stay free for ``duration``.

        Returns None when no start at or before ``not_after`` exists.
        """
        start = K.earliest(self._times, self._free, self.n, size, duration, not_after)
        return None if math.isnan(start) else float(start)

    def add(self, start: float, duration: float, units: int) -> None:
        """Add ``units`` (negative to take them) over ``[start, start + duration)``."""
        self._room(2)
        self.n = K.add(self._times, self._free, self.n, start, duration, units)

    def could_start_before(self, t: float, size: int) -> bool:
        """Whether some segment starting before ``t`` has ``size`` units free.

        A necessary condition for a job reserved at ``t`` to move earlier (its own
        reservation lies at or after ``t``).
        """
        return bool(K.could_start_before(self._times, self._free, self.n, t, size))

    def coalesce(self) -> None:
        """Merge neighbouring segments with equal free units (keeps the profile small)."""
        self.n = K.coalesce(self._times, self._free, self.n)

    def advance(self, now: float) -> None:
        """Forget the segments that ended before ``now``."""
        self.n = K.advance(self._times, self._free, self.n, now)

    def reserve(self, sizes: np.ndarray, durations: np.ndarray) -> np.ndarray:
        """Reserve jobs in order, each at its earliest start; return the starts.

        Same as ``earliest`` then ``add(start, duration, -size)`` for each job.
        """
        starts = np.empty(sizes.shape[0], dtype=np.float64)
        self._room(2 * sizes.shape[0])
        self.n = K.reserve(self._times, self._free, self.n, sizes, durations, starts)
        if np.isnan(starts).any():
            raise AssertionError("the last segment must have every unit free")
        return starts

    def compress(
        self, now: float, sizes: np.ndarray, durations: np.ndarray, starts: np.ndarray
    ) -> int:
        """Compress the reservations ``starts`` (updated in place), in the given order.

        Same as, for each job: skip it if its start is not after ``now`` or
        ``could_start_before(start, size)`` fails; otherwise ``add(start, duration,
        size)``, take ``earliest(size, duration, not_after=start)`` (or, when there is
        none, the earliest at all) and ``add`` the job back there. Returns how many
        reservations had to move later (only possible after an overrun).
        """
        self._room(4 * sizes.shape[0])
        self.n, delayed = K.compress(self._times, self._free, self.n, now, sizes, durations, starts)
        return int(delayed)

    def __repr__(self) -> str:
        return f"Profile({list(zip(self.times, self.free, strict=True))})"
