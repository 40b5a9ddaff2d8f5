"""Compiled kernels of ``nodeshare-easy``: its reservation and its backfill window scan
(:class:`cosched.nodeshare.window.WindowScan`).

Imported with the node-sharing policies (the family's own kernels, like those of
:mod:`cosched.nodeshare._book_kernels`: no other policy loads numba for them).
Compiled with numba (``cache=True``: once per machine); with ``NUMBA_DISABLE_JIT=1`` or
without numba they run as plain Python on the same arrays, with the same results.
"""

from __future__ import annotations

import numpy as np

from cosched.nodeshare._book_kernels import fit_row, take

# The same decorator as the profile kernels (numba with cache=True, else plain Python).
from cosched.policies._profile_kernels import _jit

__all__ = ["NOTHING", "VISIT", "node_shadow", "queued_after", "scan"]


#: What :func:`scan` found: nothing to do, or a job to visit.
NOTHING, VISIT = 0, 1


@_jit
def scan(
    jobs: np.ndarray,
    start: int,
    kid: np.ndarray,
    keys: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    kdead: np.ndarray,
    held: np.ndarray,
    blocked: np.ndarray,
    ca: np.ndarray,
    cb: np.ndarray,
    vic: np.ndarray,
    est: np.ndarray,
    now: float,
    shadow: float,
    extra: int,
    relevant: np.ndarray,
    version: int,
    book: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    cnt: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
    buf: np.ndarray,
) -> tuple[int, int]:
    """The first position from ``start`` in ``jobs`` whose visit does something.

    Returns ``(VISIT, i)``: visit ``jobs[i]``; ``(NOTHING, -1)``: no job from ``start``
    does anything.

    ``keys`` is the per-key table ``(class, needs, cores, pressures, fits, version)``
    (see :class:`~cosched.nodeshare.window.WindowScan`); a row not for the book's
    ``version`` is recomputed by :func:`~cosched.nodeshare._book_kernels.fit_row` from
    the book's arrays (``book`` = ``NodeBook.fit_arrays``, ``cnt``) when first read.
    ``held[k, c]`` (``-1``: not counted since the last start) is the number of nodes the
    head counts on (``relevant``) among those configuration ``c`` of key ``k`` takes
    (:func:`~cosched.nodeshare._book_kernels.take`, into ``buf``).

    A job does something if its key is not dead (found unfit in this pass) and either
    no configuration of its key fits and the job is not ``blocked`` yet (its visit
    records why; a job already recorded only makes the key dead, which the scan does
    itself), or no factor is finite, or Algorithm 1's choice (smallest ``a (1 + victim
    x pressure) + b`` over the fitting configurations, the first on ties; the same
    operations as ``NodeBook.best``) ends by ``shadow`` or holds at most ``extra``
    relevant nodes.
    """
    ks, kneed, kcores, kp, kfit, kver = keys
    order, st_code, st_free, st_press, ok = book
    width = kp.shape[1]
    for i in range(start, len(jobs)):
        j = jobs[i]
        k = kid[j]
        if kdead[k]:
            continue
        if kver[k] != version:
            kfit[k] = fit_row(
                ks[k], kneed[k], kcores[k], kp[k], order, st_code, st_free, st_press, ok, cnt
            )
            kver[k] = version
        if not kfit[k]:
            if blocked[j]:  # nothing to record: the key is dead for this pass
                kdead[k] = True
                continue
            return VISIT, i
        best = np.inf
        bc = -1
        v = vic[j]
        for c in range(width):
            p = kp[k, c]
            if p != p:  # this configuration does not fit
                continue
            f = ca[j, c] * (1.0 + v * p) + cb[j, c]
            if f < best:
                best = f
                bc = c
        if bc < 0:
            return VISIT, i
        if now + est[j] * best <= shadow:
            return VISIT, i
        h = held[k, bc]
        if h < 0:
            n = take(ks[k], kneed[k, bc], kcores[k, bc], buf, order, st_code, st_free, ok,
                     cnt, head, nxt)  # fmt: skip
            h = 0
            for m in range(n):
                if relevant[buf[m]]:
                    h += 1
            held[k, bc] = h
        if h <= extra:
            return VISIT, i
    return NOTHING, -1


@_jit
def queued_after(queued: np.ndarray, first: int, end: int, most: int) -> np.ndarray:
    """The first ``most`` indices ``i`` from ``first`` (up to ``end``) with ``queued[i]``."""
    out = np.empty(most, dtype=np.int64)
    n = 0
    for i in range(first, end):
        if n == most:
            break
        if queued[i]:
            out[n] = i
            n += 1
    return out[:n]


@_jit
def node_shadow(
    ends: np.ndarray,
    node_jobs: np.ndarray,
    count: np.ndarray,
    now: float,
    need: int,
    relevant: np.ndarray,
) -> tuple[float, int, bool]:
    """:func:`~cosched.policies.reservation.node_reservation` over the book's nodes.

    ``node_jobs[:count[node], node]`` are the jobs on ``node``; a node empties at the
    largest estimated end of its jobs (``-inf``: empty now). Returns ``(shadow, extra,
    True)`` and sets ``relevant[node]`` (the head counts on the node: empty by the
    shadow time), or ``(nan, 0, False)``
    when too few nodes exist (``node_reservation`` raises for the caller). The same
    values as ``node_reservation`` on the occupied nodes' emptying times: a maximum and
    the ``(need - free)``-th smallest are exact whatever the order of the work.
    """
    nodes = node_jobs.shape[1]
    empty_at = np.empty(nodes)
    occupied = np.empty(nodes)
    m = 0
    free = 0
    for n in range(nodes):
        e = -np.inf
        for r in range(count[n]):
            v = ends[node_jobs[r, n]]
            if v > e:
                e = v
        empty_at[n] = e
        if e > -np.inf:
            occupied[m] = e if e > now else now
            m += 1
        else:
            free += 1
    if free >= need:
        shadow = now
    else:
        k = need - free
        if k > m:
            return np.nan, 0, False
        shadow = np.partition(occupied[:m], k - 1)[k - 1]
    by_shadow = 0
    for i in range(m):
        if occupied[i] <= shadow:
            by_shadow += 1
    for n in range(nodes):
        relevant[n] = empty_at[n] <= shadow
    return shadow, free + by_shadow - need, True
