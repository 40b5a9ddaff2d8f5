"""Compiled kernels of ``nodeshare-easy``: its reservation and its backfill window scan
(:class:`cosched.nodeshare.window.WindowScan`).

Imported with the node-sharing policies (the family's own kernels, like those of
:mod:`cosched.nodeshare._book_kernels`: no other policy loads them). Marked with
:func:`cosched.compile.kernel` like those: callers take the compiled forms from
``cosched.compile.kernels(__name__)`` (ahead of time, else numba's, compiled in place by
:func:`cosched.compile.jitted`); until then they run as plain Python on the same arrays,
with the same results.
"""

from __future__ import annotations

import numpy as np

from cosched.compile import B1, F1, F2, F3, I1, I2, kernel, tuple_of
from cosched.nodeshare._book_kernels import BASE, BOOK_ARRAYS, choose, fit_row, move, take

__all__ = [
    "NOTHING",
    "VISIT",
    "easy_pass",
    "key_row",
    "kth_smallest",
    "node_shadow",
    "queued_after",
    "scan",
]


#: The per-key table ``(class, needs, cores, pressures, fits, version)`` of
#: :class:`~cosched.nodeshare.window.WindowScan`, five of the book's arrays, and the
#: book's seven arrays of state.
Keys = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
Arrays5 = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
Arrays7 = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]

#: What :func:`scan` found: nothing to do, or a job to visit.
NOTHING, VISIT = 0, 1


@kernel
def key_row(
    k: int,
    keys: Keys,
    version: int,
    book: Arrays5,
    cnt: np.ndarray,
) -> bool:
    """Whether any configuration of key ``k`` fits; its row of pressures (``keys[3][k]``)
    recomputed by :func:`~cosched.nodeshare._book_kernels.fit_row` first if it is not
    for the book's ``version``."""
    ks, kneed, kcores, kp, kfit, kver = keys
    if kver[k] != version:
        order, st_code, st_free, st_press, ok = book
        kfit[k] = fit_row(
            ks[k], kneed[k], kcores[k], kp[k], order, st_code, st_free, st_press, ok, cnt
        )
        kver[k] = version
    return bool(kfit[k])


@kernel
def scan(
    jobs: np.ndarray,
    start: int,
    kid: np.ndarray,
    keys: Keys,
    kdead: np.ndarray,
    held: np.ndarray,
    blocked: np.ndarray,
    coef: np.ndarray,
    vic: np.ndarray,
    est: np.ndarray,
    now: float,
    shadow: float,
    extra: int,
    relevant: np.ndarray,
    version: int,
    book: Arrays5,
    cnt: np.ndarray,
    head: np.ndarray,
    nxt: np.ndarray,
    buf: np.ndarray,
) -> tuple[int, int]:
    """The first position from ``start`` in ``jobs`` whose visit does something.

    Returns ``(VISIT, i)``: visit ``jobs[i]``; ``(NOTHING, -1)``: no job from ``start``
    does anything.

    ``keys`` is the per-key table ``(class, needs, cores, pressures, fits, version)``
    (see :class:`~cosched.nodeshare.window.WindowScan`), each row read through
    :func:`key_row` (``book`` = ``NodeBook.fit_arrays``, ``cnt``). ``held[k, c]``
    (``-1``: not counted since the last start) is the number of nodes the
    head counts on (``relevant``) among those configuration ``c`` of key ``k`` takes
    (:func:`~cosched.nodeshare._book_kernels.take`, into ``buf``).

    A job does something if its key is not dead (found unfit in this pass) and either
    no configuration of its key fits and the job is not ``blocked`` yet (its visit
    records why; a job already recorded only makes the key dead, which the scan does
    itself), or no factor is finite, or Algorithm 1's choice
    (:func:`~cosched.nodeshare._book_kernels.choose`, as ``NodeBook.best``) ends by
    ``shadow`` or holds at most ``extra`` relevant nodes.
    """
    ks, kneed, kcores, kp, kfit, kver = keys
    order, st_code, st_free, _, ok = book
    for i in range(start, len(jobs)):
        j = jobs[i]
        k = kid[j]
        if kdead[k]:
            continue
        if not (kfit[k] if kver[k] == version else key_row(k, keys, version, book, cnt)):
            if blocked[j]:  # nothing to record: the key is dead for this pass
                kdead[k] = True
                continue
            return VISIT, i
        bc, best = choose(kp[k], coef[j], vic[j])
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


@kernel
def _blocked(
    j: int, k: int, usable_free: int, kmin: np.ndarray, blocked: np.ndarray,
    out_blocked: np.ndarray, nb: int,
) -> int:  # fmt: skip
    """Record job ``j`` (key ``k``) as blocked, once: ``out_blocked[nb] = (j, 1)`` when
    too few cores are free below the cap for its smallest configuration (capacity,
    ``NodeBook.blocked_by_capacity``), ``(j, 0)`` otherwise (fragmentation); returns
    the new count."""
    if blocked[j]:
        return nb
    blocked[j] = True
    out_blocked[nb, 0] = j
    out_blocked[nb, 1] = 1 if usable_free < kmin[k] else 0
    return nb + 1


@kernel
def _start(
    j: int,
    k: int,
    c: int,
    factor: float,
    ns: int,
    nn: int,
    keys: Keys,
    book: Arrays5,
    links: Arrays5,
    state: Arrays7,
    width: int,
    pad: int,
    out: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    out_factor: np.ndarray,
    queued: np.ndarray,
) -> int:
    """Start job ``j`` (key ``k``) in configuration ``c``: its nodes
    (:func:`~cosched.nodeshare._book_kernels.take`) from ``out_nodes[nn]`` on, the book
    changed (:func:`~cosched.nodeshare._book_kernels.move`), the job no longer
    ``queued``, the start written as row ``ns`` of ``out``; returns the change in free
    cores below the cap."""
    ks, kneed, kcores, _, _, _ = keys
    order, st_code, st_free, _, ok = book
    cnt, head, tail, nxt, prv = links
    code, free, below_cap, pressure_of, node_pressure, node_jobs, count = state
    out_job, out_cfg, out_end, out_nodes = out
    n = take(ks[k], kneed[k, c], kcores[k, c], out_nodes[nn:], order, st_code, st_free, ok,
             cnt, head, nxt)  # fmt: skip
    _, delta = move(j, out_nodes[nn : nn + n], BASE ** ks[k], kcores[k, c], width, code, free,
                    cnt, head, tail, nxt, prv, below_cap, pressure_of, node_pressure,
                    node_jobs, count, pad)  # fmt: skip
    out_job[ns], out_cfg[ns], out_end[ns], out_factor[ns] = j, c, nn + n, factor
    queued[j] = False
    return int(delta)


@kernel
def _choice(
    j: int,
    k: int,
    keys: Keys,
    version: int,
    book: Arrays5,
    cnt: np.ndarray,
    coef: np.ndarray,
    vic: np.ndarray,
) -> tuple[int, float]:
    """Algorithm 1's choice for job ``j`` of key ``k`` now: ``(configuration, factor)``
    (:func:`~cosched.nodeshare._book_kernels.choose` on the key's row), ``(-1, inf)`` if
    none fits."""
    if not key_row(k, keys, version, book, cnt):
        return -1, np.inf
    return choose(keys[3][k], coef[j], vic[j])


@kernel
def easy_pass(
    first: int,
    cand: np.ndarray,
    queued: np.ndarray,
    submitted: int,
    window: int,
    ends: np.ndarray,
    now: float,
    relevant: np.ndarray,
    jobs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    keys: Keys,
    kmin: np.ndarray,
    kdead: np.ndarray,
    held: np.ndarray,
    fstate: np.ndarray,
    istate: np.ndarray,
    book: Arrays5,
    links: Arrays5,
    state: Arrays7,
    width: int,
    pad: int,
    buf: np.ndarray,
    out: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    out_factor: np.ndarray,
    out_blocked: np.ndarray,
) -> tuple[int, int, int, int, int]:
    """One scheduling pass of ``nodeshare-easy``, with the node book's own kernels.

    ``first >= 0``: a full pass. The queued jobs (``queued[:submitted]``) from ``first``
    are placed in order by Algorithm 1 (:func:`key_row`,
    :func:`~cosched.nodeshare._book_kernels.choose`,
    :func:`~cosched.nodeshare._book_kernels.take`) and started
    (:func:`~cosched.nodeshare._book_kernels.move`; their estimated end ``now`` +
    estimate x factor into ``ends``) until one fits nowhere: the head (recorded as
    blocked; ``istate[3]``, -1 if every queued job started). The head gets the EASY
    reservation (:func:`node_shadow`: ``fstate[0]`` the shadow time, ``istate[0]``
    the extra nodes, ``relevant``) and the next ``window`` queued jobs behind it are
    the backfill window. ``first < 0``: the window is ``cand``, under the reservation
    already in ``fstate``, ``istate`` and ``relevant``.

    The window is :func:`scan`'s, each job it finds visited here: a key that fits
    nowhere, or no finite factor, records the job as blocked (once) and makes the key
    dead for the pass; otherwise the job starts on Algorithm 1's choice, and if it ends
    after the shadow time the nodes the head counts on among its nodes come out of the
    extra nodes.

    ``jobs`` = ``(key id, blocked, (a, b) per configuration, victim, estimate, size)``
    by job index and ``keys`` the per-key table (:class:`~cosched.nodeshare.window.
    WindowScan`); ``book`` = ``NodeBook.fit_arrays``, ``links`` = ``(cnt, head, tail,
    nxt, prv)``, ``state`` = ``(code, free, below_cap, pressure_of, node_pressure,
    node_jobs, count)`` as :func:`~cosched.nodeshare._book_kernels.move` takes them;
    ``istate[1]`` the book's version and ``istate[2]`` its free cores below the cap,
    both kept up to date. Starts go to ``out`` = ``(job, configuration, end of its nodes
    in out_nodes, out_nodes)`` and ``out_factor``, blocked records to ``out_blocked``
    as ``(job, capacity)`` rows.

    Returns ``(starts, heads started, blocked records, placements tried, status)``;
    status 1: the head is wider than the machine (``node_reservation`` raises for the
    caller), with the heads' starts made.
    """
    kid, blocked, coef, vic, est, size = jobs
    cnt, head, nxt = links[0], links[1], links[3]
    node_jobs, count = state[5], state[6]
    out_end, out_nodes = out[2], out[3]
    version, usable_free = istate[1], istate[2]
    ns = 0  # starts
    nn = 0  # nodes written to out_nodes
    nb = 0  # blocked records
    tried = 0
    heads = 0
    extra = istate[0]
    shadow = fstate[0]
    window_jobs = cand
    if first >= 0:
        top = -1
        for j in range(first, submitted):
            if not queued[j]:
                continue
            k = kid[j]
            tried += 1
            bc, best = _choice(j, k, keys, version, book, cnt, coef, vic)
            if bc < 0:
                nb = _blocked(j, k, usable_free, kmin, blocked, out_blocked, nb)
                top = j
                break
            usable_free += _start(j, k, bc, best, ns, nn, keys, book, links, state, width,
                                  pad, out, out_factor, queued)  # fmt: skip
            version += 1
            nn = out_end[ns]
            ns += 1
            ends[j] = now + est[j] * best
        heads = ns
        istate[3] = top
        if top < 0:
            istate[1], istate[2] = version, usable_free
            return ns, heads, nb, tried, 0
        shadow, extra, fine = node_shadow(ends, node_jobs, count, now, size[top], relevant)
        if not fine:
            istate[1], istate[2] = version, usable_free
            return ns, heads, nb, tried, 1
        window_jobs = queued_after(queued, top + 1, submitted, window)
    kdead[:] = False
    held[:] = -1
    pos = 0
    while pos < len(window_jobs):
        _, pos = scan(window_jobs, pos, kid, keys, kdead, held, blocked, coef, vic, est,
                      now, shadow, extra, relevant, version, book, cnt, head, nxt, buf)  # fmt: skip
        if pos < 0:
            break
        j = window_jobs[pos]
        k = kid[j]
        tried += 1
        bc, best = _choice(j, k, keys, version, book, cnt, coef, vic)
        if bc < 0:
            nb = _blocked(j, k, usable_free, kmin, blocked, out_blocked, nb)
            kdead[k] = True
        else:
            usable_free += _start(j, k, bc, best, ns, nn, keys, book, links, state, width,
                                  pad, out, out_factor, queued)  # fmt: skip
            version += 1
            if now + est[j] * best > shadow:
                # It holds its nodes past the shadow time: those the head counts on
                # come out of the extra nodes (scan found no more than extra).
                for m in range(nn, out_end[ns]):
                    if relevant[out_nodes[m]]:
                        relevant[out_nodes[m]] = False
                        extra -= 1
            nn = out_end[ns]
            ns += 1
            held[:] = -1
        pos += 1
    fstate[0] = shadow
    istate[0], istate[1], istate[2] = extra, version, usable_free
    return ns, heads, nb, tried, 0


@kernel
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


#: Up to this k, :func:`kth_smallest` keeps the k smallest in a sorted buffer.
_FEW = 32


@kernel
def kth_smallest(values: np.ndarray, k: int) -> float:
    """The ``k``-th smallest of ``values`` (1-based; ``np.partition(values, k - 1)[k -
    1]``, an order statistic, so exact). For a small ``k`` one pass keeps the ``k``
    smallest so far in a sorted buffer (most values are larger than its last and cost
    one comparison); otherwise ``np.partition``."""
    if k > _FEW:
        return float(np.partition(values, k - 1)[k - 1])
    buf = np.empty(k)
    n = 0
    for i in range(len(values)):
        v = values[i]
        if n == k:
            if not v < buf[k - 1]:
                continue
            pos = k - 1
        else:
            pos = n
            n += 1
        while pos > 0 and buf[pos - 1] > v:  # insertion: shift the larger ones up
            buf[pos] = buf[pos - 1]
            pos -= 1
        buf[pos] = v
    return float(buf[k - 1])


@kernel
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
        shadow = kth_smallest(occupied[:m], k)
    by_shadow = 0
    for i in range(m):
        if occupied[i] <= shadow:
            by_shadow += 1
    for n in range(nodes):
        relevant[n] = empty_at[n] <= shadow
    return shadow, free + by_shadow - need, True


# -- compiled ahead of time (cosched.compile, the group of _book_kernels) -------------------

#: WindowScan's per-key table, as the kernels receive it.
_KEYS = tuple_of(I1, I2, I2, F2, B1, I1)

#: The kernels called from Python (:class:`~cosched.nodeshare.window.WindowScan` and
#: nodeshare-easy's pass), with the arrays their callers pass (``WindowScan._arrays``,
#: ``NodeBook``'s fit arrays, links and state).
SIGNATURES = {
    "easy_pass": (
        f"Tuple((i8, i8, i8, i8, i8))(i8, {I1}, {B1}, i8, i8, {F1}, f8, {B1},"
        f" {tuple_of(I1, B1, F3, F1, F1, I1)}, {_KEYS}, {I1}, {B1}, {I2}, {F1}, {I1},"
        f" {BOOK_ARRAYS}, {tuple_of(*[I1] * 5)}, {tuple_of(I1, I1, B1, F1, F1, I2, I1)},"
        f" i8, i8, {I1}, {tuple_of(*[I1] * 4)}, {F1}, {I2})"
    ),
    "node_shadow": f"Tuple((f8, i8, b1))({F1}, {I2}, {I1}, f8, i8, {B1})",
    "queued_after": f"{I1}({B1}, i8, i8, i8)",
    "scan": (
        f"Tuple((i8, i8))({I1}, i8, {I1}, {_KEYS}, {B1}, {I2}, {B1}, {F3}, {F1}, {F1},"
        f" f8, f8, i8, {B1}, i8, {BOOK_ARRAYS}, {I1}, {I1}, {I1}, {I1})"
    ),
}
