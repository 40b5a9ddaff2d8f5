"""EASY's reservation rule, written once for every family that backfills.

The head of the queue gets a reservation at its *shadow time*: walking the running jobs
by estimated end, the first end at which enough units are free for it. The *extra*
units are those free at the shadow time beyond what the head needs. Families differ only
in what a release frees (a job's units, or the nodes that become empty when the last of
their jobs ends), so they feed :class:`ShadowWalk` with ``(end, units freed)`` pairs in
end order and share the rule itself.

Families that count *nodes* (a node is freed when the last of its jobs ends) can give
the time each occupied node becomes empty instead: :func:`node_reservation` applies the
same rule to those times with one partial sort, without walking the releases.

The compiled event loop (:mod:`cosched.engine.loop`) runs EASY's pass on arrays: it
keeps the running jobs sorted by estimated end (:func:`insert_release`,
:func:`drop_release`), walks them with :func:`shadow_walk`, the rule
:class:`ShadowWalk` applies, and backfills by :func:`admit`, the rule
:class:`Reservation` applies (which calls it). LOMARC's and gang's compiled passes
backfill by :func:`admit` too; which pass keeps which half of the rule its own, and why,
is in docs/design/engine.md ("EASY's reservation rule in the compiled passes").
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = [
    "Reservation",
    "ShadowWalk",
    "admit",
    "drop_release",
    "insert_release",
    "node_reservation",
    "reservation",
    "shadow_walk",
    "window_next",
]


def admit(end: float, units: int, shadow: float, extra: int) -> tuple[bool, int]:
    """EASY's backfill rule: whether a job ending at ``end`` and holding ``units`` may
    start now against the reservation ``(shadow, extra)``, and the extra units left.

    It may if it ends by the shadow time, or if its units fit in the extra units, which
    it then consumes.
    """
    if end <= shadow:
        return True, extra
    if units <= extra:
        return True, extra - units
    return False, extra


def window_next(
    queue: np.ndarray, r: int, last: int, w: int, seen: int, window: int, start: np.ndarray
) -> tuple[int, int, int, int]:
    """The next job of ``queue[r:last]`` a backfill scan considers, with the scan's new
    ``(r, w, seen)``; job -1 when none is left.

    The scan compacts the queue into ``queue[:w]`` as it goes: a job already started
    (``start[j]`` not NaN) is dropped, and every job past the first ``window`` not
    started (``window`` < 0: no limit) is kept in place, not considered. ``seen``
    counts the jobs considered; the caller keeps a considered job it does not start by
    writing it at ``queue[w]``.
    """
    while r < last:
        j = queue[r]
        r += 1
        if start[j] == start[j]:
            continue
        if window >= 0 and seen >= window:
            queue[w] = j
            w += 1
            continue
        return j, r, w, seen + 1
    return -1, r, w, seen


class Reservation:
    """The head's reservation and EASY's backfill rule against it.

    A job may start behind the head if it ends (by its estimate) by the shadow time,
    or if the units it holds past the shadow time fit in the extra units, which it then
    consumes. Families count units their own way (allocation units, nodes the head
    counts on) and share the rule.
    """

    __slots__ = ("extra", "shadow")

    def __init__(self, shadow: float, extra: int) -> None:
        self.shadow = shadow
        self.extra = extra

    def fits(self, end: float, units: int) -> bool:
        """Whether a job ending at ``end`` and holding ``units`` past the shadow time
        may start now."""
        return end <= self.shadow or units <= self.extra

    def take(self, end: float, units: int) -> None:
        """Record a backfilled job: past the shadow time, it uses extra units."""
        if end > self.shadow:
            self.extra -= units

    def admit(self, end: float, units: int) -> bool:
        """:meth:`fits`, and :meth:`take` if it does (:func:`admit`)."""
        ok, self.extra = admit(end, units, self.shadow, self.extra)
        return ok


class ShadowWalk:
    """Accumulates releases in end order until the head's reservation is known.

    Args:
        free: units free now (after this pass's starts).
        need: units the head needs.
        now: the current time; ends in the past (overrunning jobs) count as ``now``.

    A walk is *done* once it has seen a release later than the shadow time: every
    release ending at the shadow time has then been counted.
    """

    __slots__ = ("avail", "need", "now", "shadow")

    def __init__(self, free: int, need: int, now: float) -> None:
        self.avail = free
        self.need = need
        self.now = now
        self.shadow: float | None = now if free >= need else None

    def add(self, end: float, units: int) -> bool:
        """Count ``units`` freed at ``end``; False (nothing counted) once past the shadow."""
        end = max(end, self.now)
        if self.shadow is not None and end > self.shadow:
            return False
        self.avail += units
        if self.shadow is None and self.avail >= self.need:
            self.shadow = end
        return True

    def result(self) -> tuple[float, int]:
        """``(shadow time, extra units)``.

        Raises:
            ValueError: the releases never free enough units (the head is larger than
                the machine; the engine rejects such jobs before any pass).
        """
        if self.shadow is None:
            raise ValueError(f"the releases never free {self.need} units (head too large)")
        return self.shadow, self.avail - self.need


def shadow_walk(
    ends: np.ndarray,
    jobs: np.ndarray,
    count: int,
    size: np.ndarray,
    free: int,
    need: int,
    now: float,
) -> tuple[float, int]:
    """:class:`ShadowWalk` over the first ``count`` running jobs of two arrays, in
    estimated end order (``ends``; ``jobs``, whose units ``size`` gives):
    ``(shadow time, extra units)`` for a head of ``need`` units with ``free`` free now.

    Written in numba's subset of Python for the compiled event loop; the head always
    fits the machine there, so the walk always finds its shadow time.
    """
    avail = free
    shadow = now
    found = False
    for k in range(count):
        e = ends[k]
        if e < now:
            e = now
        if found and e > shadow:
            break
        avail += size[jobs[k]]
        if not found and avail >= need:
            found = True
            shadow = e
    return shadow, avail - need


def _release_slot(ends: np.ndarray, jobs: np.ndarray, count: int, end: float, j: int) -> int:
    """Where ``(end, j)`` goes among the first ``count`` releases sorted by (end, job)."""
    lo = 0
    hi = count
    while lo < hi:
        mid = (lo + hi) // 2
        if ends[mid] < end or (ends[mid] == end and jobs[mid] < j):
            lo = mid + 1
        else:
            hi = mid
    return lo


def insert_release(ends: np.ndarray, jobs: np.ndarray, count: int, end: float, j: int) -> int:
    """Insert job ``j`` (estimated end ``end``) into the first ``count`` running jobs
    sorted by (estimated end, job); the new count."""
    lo = _release_slot(ends, jobs, count, end, j)
    for k in range(count, lo, -1):
        ends[k] = ends[k - 1]
        jobs[k] = jobs[k - 1]
    ends[lo] = end
    jobs[lo] = j
    return count + 1


def drop_release(ends: np.ndarray, jobs: np.ndarray, count: int, end: float, j: int) -> int:
    """Remove job ``j`` (estimated end ``end``) from the sorted running jobs; the new
    count."""
    lo = _release_slot(ends, jobs, count, end, j)
    for k in range(lo, count - 1):
        ends[k] = ends[k + 1]
        jobs[k] = jobs[k + 1]
    return count - 1


def reservation(
    releases: Iterable[tuple[float, int]], *, free: int, need: int, now: float
) -> tuple[float, int]:
    """The head's shadow time and extra units.

    Args:
        releases: ``(estimated end, units freed)`` in nondecreasing end order.
        free: units free now.
        need: units the head needs.
        now: the current time.
    """
    walk = ShadowWalk(free, need, now)
    for end, units in releases:
        if not walk.add(end, units):
            break
    return walk.result()


def node_reservation(
    empty_at: np.ndarray, *, free: int, need: int, now: float
) -> tuple[float, int]:
    """The head's shadow time and extra nodes, from when each occupied node empties.

    The same rule as :func:`reservation` fed with one release per node: a node whose
    jobs end (by their estimates) at ``e1 <= e2 <= ...`` is freed at the last end, and
    the walk frees, in end order, the nodes whose last job ends there. Walking stops at
    the first end at which ``need`` nodes are free, counting every node freed at that
    same end; so the shadow time is the ``(need - free)``-th smallest emptying time
    (ends in the past count as ``now``), and the extra nodes are all the nodes empty
    by then beyond ``need``. Callers find the nodes the head counts on as those empty
    now or with ``empty_at <= shadow``.

    Args:
        empty_at: for each occupied node, the largest estimated end of its jobs.
        free: nodes empty now.
        need: nodes the head needs.
        now: the current time.

    Raises:
        ValueError: fewer than ``need`` nodes in all (the head is larger than the machine).
    """
    ends = np.maximum(empty_at, now)
    if free >= need:
        shadow = now
    else:
        k = need - free
        if k > ends.size:
            raise ValueError(f"the releases never free {need} units (head too large)")
        shadow = float(np.partition(ends, k - 1)[k - 1])
    return shadow, free + int(np.count_nonzero(ends <= shadow)) - need
