"""Compiled kernels of ``nodeshare-easy``: its reservation and its backfill window scan
(:class:`cosched.nodeshare.window.WindowScan`).

Imported only by ``nodeshare-easy`` once its head blocks (the family's own kernels: no
other policy loads numba for them). Compiled with numba
(``cache=True``: once per machine); with ``NUMBA_DISABLE_JIT=1`` or without numba they
run as plain Python on the same arrays, with the same results.
"""

from __future__ import annotations

import numpy as np

# The same decorator as the profile kernels (numba with cache=True, else plain Python).
from cosched.policies._profile_kernels import _jit

__all__ = ["NEED_HELD", "NOTHING", "VISIT", "node_shadow", "scan", "stale_keys"]


#: What :func:`scan` found: nothing to do, a job to visit, or a count it needs first.
NOTHING, VISIT, NEED_HELD = 0, 1, 2


@_jit
def stale_keys(jobs: np.ndarray, kid: np.ndarray, kver: np.ndarray, version: int) -> np.ndarray:
    """The distinct keys of ``jobs`` whose table row is not for book ``version``, in
    order of first appearance."""
    out = np.empty(len(jobs), dtype=np.int64)
    n = 0
    seen = np.zeros(len(kver), dtype=np.bool_)
    for i in range(len(jobs)):
        k = kid[jobs[i]]
        if kver[k] != version and not seen[k]:
            seen[k] = True
            out[n] = k
            n += 1
    return out[:n]


@_jit
def scan(
    jobs: np.ndarray,
    start: int,
    kid: np.ndarray,
    kp: np.ndarray,
    kfit: np.ndarray,
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
) -> tuple[int, int, int]:
    """The first position from ``start`` in ``jobs`` whose visit does something.

    Returns ``(what, position, configuration)``: ``(VISIT, i, -1)``: visit ``jobs[i]``;
    ``(NEED_HELD, i, c)``: fill ``held[kid[jobs[i]], c]`` (nodes the head counts on among
    those configuration ``c`` of the key takes) and scan again from ``i``;
    ``(NOTHING, -1, -1)``: no job from ``start`` does anything.

    A job does something if its key is not dead (found unfit in this pass) and either
    no configuration of its key fits and the job is not ``blocked`` yet (its visit
    records why; a job already recorded only makes the key dead, which the scan does
    itself), or no
    factor is finite, or Algorithm 1's choice (smallest ``a (1 + victim x pressure) +
    b`` over the fitting configurations, the first on ties; the same operations as
    ``NodeBook.best``) ends by ``shadow`` or holds at most ``extra`` relevant nodes.
    """
    width = kp.shape[1]
    for i in range(start, len(jobs)):
        j = jobs[i]
        k = kid[j]
        if kdead[k]:
            continue
        if not kfit[k]:
            if blocked[j]:  # nothing to record: the key is dead for this pass
                kdead[k] = True
                continue
            return VISIT, i, -1
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
            return VISIT, i, -1
        if now + est[j] * best <= shadow:
            return VISIT, i, -1
        h = held[k, bc]
        if h < 0:
            return NEED_HELD, i, bc
        if h <= extra:
            return VISIT, i, -1
    return NOTHING, -1, -1


@_jit
def node_shadow(
    ends: np.ndarray, node_jobs: np.ndarray, now: float, need: int, relevant: np.ndarray
) -> tuple[float, int, bool]:
    """:func:`~cosched.policies.reservation.node_reservation` over the book's nodes.

    ``node_jobs[:, node]`` holds the jobs on ``node`` padded with an index whose
    ``ends`` entry is ``-inf``; a node empties at the largest estimated end of its jobs
    (``-inf``: empty now). Returns ``(shadow, extra, True)`` and sets ``relevant[node]``
    (the head counts on the node: empty by the shadow time), or ``(nan, 0, False)``
    when too few nodes exist (``node_reservation`` raises for the caller). The same
    values as ``node_reservation`` on the occupied nodes' emptying times: a maximum and
    the ``(need - free)``-th smallest are exact whatever the order of the work.
    """
    cap, nodes = node_jobs.shape
    empty_at = np.empty(nodes)
    occupied = np.empty(nodes)
    m = 0
    free = 0
    for n in range(nodes):
        e = -np.inf
        for r in range(cap):
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
    count = 0
    for i in range(m):
        if occupied[i] <= shadow:
            count += 1
    for n in range(nodes):
        relevant[n] = empty_at[n] <= shadow
    return shadow, free + count - need, True
