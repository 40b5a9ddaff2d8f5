"""The event queues and their merge.

Events are kept in three queues by kind: the nodes' CPU events in a tournament tree
over the nodes (:func:`cpu_update`: replacing a node's event is one walk up the tree),
messages in a FIFO (:func:`push_msg`: every message takes the same latency, so arrivals
are due in the order they were sent), and the rest (I/O completions, the raise, the
gang slot, noise hits) in a binary heap (:func:`push`, :func:`pop`). Every event takes
a sequence number from one counter when it is scheduled (:func:`next_seq`), so merging
the queues by (time, sequence number) (:func:`next_event`, :func:`due_by`) is the order
of a single heap of all events. A replaced CPU event is counted as that single heap
would have skipped it (:func:`cpu_replaced`). :func:`next_tick` is the scheduler's
tick grid.
"""

from __future__ import annotations

import numpy as np

from cosched.timesharing.kernel._jit import njit
from cosched.timesharing.kernel.layout import (
    ERR_HEAP,
    INF,
    N_DUE,
    R_HORIZON,
    R_TICK,
    S_BEYOND,
    S_ERR,
    S_HSIZE,
    S_MHEAD,
    S_MTAIL,
    S_P2,
    S_SEQ,
    S_STALE,
    S_STALET,
    S_TREEB,
    S_TREEF,
    Floats,
    Ints,
    State,
)


@njit
def _move(HT: Floats, HI: Ints, i: int, j: int) -> None:
    """Copy heap entry ``j`` to slot ``i``."""
    HT[i] = HT[j]
    for c in range(4):
        HI[i, c] = HI[j, c]


@njit
def _put(HT: Floats, HI: Ints, i: int, t: float, seq: int, kind: int, obj: int, ver: int) -> None:
    """Write an event into heap slot ``i``."""
    HT[i] = t
    HI[i, 0] = seq
    HI[i, 1] = kind
    HI[i, 2] = obj
    HI[i, 3] = ver


@njit
def next_seq(S: State) -> int:
    """The next sequence number: every event takes one when scheduled, whatever its
    queue, so (time, sequence) orders all events as one heap would."""
    seq = S.G[S_SEQ] + 1
    S.G[S_SEQ] = seq
    return seq


@njit
def push(S: State, t: float, kind: int, obj: int, ver: int) -> None:
    """Add an event; ties keep insertion order (the sequence number)."""
    si = S.G
    seq = next_seq(S)
    HT = S.HT
    HI = S.HI
    i = si[S_HSIZE]
    if i >= HT.shape[0]:  # cannot happen with the caller's margin; never write past
        si[S_ERR] = ERR_HEAP
        return
    si[S_HSIZE] = i + 1
    while i > 0:
        par = (i - 1) >> 1
        pt = HT[par]
        if pt < t or (pt == t and HI[par, 0] < seq):
            break
        _move(HT, HI, i, par)
        i = par
    _put(HT, HI, i, t, seq, kind, obj, ver)


@njit
def pop(S: State) -> None:
    """Remove the earliest event (read it from index 0 first)."""
    si = S.G
    HT = S.HT
    HI = S.HI
    n = si[S_HSIZE] - 1
    si[S_HSIZE] = n
    if n == 0:
        return
    t = HT[n]
    seq = HI[n, 0]
    kind = HI[n, 1]
    obj = HI[n, 2]
    ver = HI[n, 3]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        r = c + 1
        if r < n and (HT[r] < HT[c] or (HT[r] == HT[c] and HI[r, 0] < HI[c, 0])):
            c = r
        if HT[c] < t or (HT[c] == t and HI[c, 0] < seq):
            _move(HT, HI, i, c)
            i = c
        else:
            break
    _put(HT, HI, i, t, seq, kind, obj, ver)


@njit
def push_msg(S: State, t: float, q: int, side: int) -> None:
    """A message for process ``q`` (``side`` 0: from its left neighbour, 1: right)
    arrives at ``t``: append it to the FIFO (arrivals are due in sending order)."""
    si = S.G
    seq = next_seq(S)
    MT = S.MT
    MI = S.MI
    tail = si[S_MTAIL]
    if tail >= MT.shape[0]:  # compact: move the live range to the front
        head = si[S_MHEAD]
        if head == 0:  # cannot happen with the caller's margin; never write past
            si[S_ERR] = ERR_HEAP
            return
        for k in range(head, tail):
            MT[k - head] = MT[k]
            for c in range(3):
                MI[k - head, c] = MI[k, c]
        tail -= head
        si[S_MHEAD] = 0
    MT[tail] = t
    MI[tail, 0] = seq
    MI[tail, 1] = q
    MI[tail, 2] = side
    si[S_MTAIL] = tail + 1


@njit
def cpu_update(S: State, n: int) -> None:
    """Node ``n``'s CPU event changed: replay the tree's matches on its path to the root.

    The tree has ``P2`` leaves (leaf ``P2 + n`` is node ``n``; the leaves past the last
    node never have an event) and node ``k`` holds the first event of its subtree by
    (time, sequence number): its node ``G[S_TREEB + k]`` (-1: none), sequence number
    ``G[S_TREEB + 2 * P2 + k]`` and time ``GF[S_TREEF + k]`` (INF: none), so node 1
    holds the earliest CPU event of all. The matches are branch-free selections; the
    indices are unsigned, so that the compiled walk skips negative-index handling.
    """
    G = S.G
    GF = S.GF
    one = np.uint64(1)
    tw = np.uint64(G[S_TREEB])
    p2 = np.uint64(G[S_P2])
    ts = tw + p2 + p2
    tt = np.uint64(G[S_TREEF])
    k = p2 + np.uint64(n)
    # The path's first event so far, carried up (only the siblings are read).
    t = S.F[n, N_DUE]
    sq = G[ts + k]
    w = n
    GF[tt + k] = t
    while k > one:
        o = k ^ one
        to = GF[tt + o]
        so = G[ts + o]
        wo = G[tw + o]
        # the sibling comes first if earlier (on a full tie: if it is the left one)
        other = (to < t) | ((to == t) & ((so < sq) | ((so == sq) & ((k & one) == one))))
        t = to if other else t
        sq = so if other else sq
        w = wo if other else w
        k >>= one
        GF[tt + k] = t
        G[ts + k] = sq
        G[tw + k] = w


@njit
def cpu_replaced(S: State, old: float) -> None:
    """A pending CPU event due at ``old`` was replaced: count it as the single heap of
    earlier versions did (it sat there and was skipped when it came up, if it came up
    within the horizon)."""
    if old <= S.GF[R_HORIZON]:
        S.G[S_STALE] += 1
        if old > S.GF[S_STALET]:
            S.GF[S_STALET] = old
    else:
        S.G[S_BEYOND] = 1  # it would still be in the heap at the end: a horizon stop


@njit
def next_tick(S: State, t: float) -> float:
    """The first scheduler tick strictly after ``t``."""
    tick = S.GF[R_TICK]
    return (np.floor(t / tick + 1e-9) + 1.0) * tick


@njit
def due_by(S: State, t: float) -> bool:
    """Is an event of the heap, the message FIFO or the CPU-event tree due at ``t`` or
    earlier (the tree may still show the event being handled)?"""
    G = S.G
    if G[S_HSIZE] > 0 and S.HT[0] <= t:
        return True
    h = G[S_MHEAD]
    if h < G[S_MTAIL] and S.MT[h] <= t:
        return True
    return S.GF[G[S_TREEF] + 1] <= t


@njit
def next_event(S: State) -> tuple[float, int]:
    """The earliest event of the three queues by (time, sequence number): its time and
    its queue (0: none, 1: the heap, 2: the message FIFO, 3: a node's CPU event)."""
    G = S.G
    t = INF
    src = 0
    sq = 0
    if G[S_HSIZE] > 0:
        t = S.HT[0]
        sq = S.HI[0, 0]
        src = 1
    h = G[S_MHEAD]
    if h < G[S_MTAIL]:
        x = S.MT[h]
        xs = S.MI[h, 0]
        if src == 0 or x < t or (x == t and xs < sq):
            t = x
            sq = xs
            src = 2
    x = S.GF[G[S_TREEF] + 1]
    if x < INF:
        xs = G[G[S_TREEB] + 2 * G[S_P2] + 1]
        if src == 0 or x < t or (x == t and xs < sq):
            t = x
            src = 3
    return t, src
