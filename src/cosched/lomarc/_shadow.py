"""The compiled LOMARC pass's shadow time (:mod:`cosched.lomarc._kernel`): each node's
emptying time, kept between passes and worked out again only where a start, an end or a
rate change touched it (:func:`_mark`), and the EASY head's shadow time and extra nodes
as a selection over those times (:func:`_kth_smallest`, :func:`_shadow_time`). Inlined
into the pass (:attr:`CompiledPass.helpers <cosched.engine.compiled.CompiledPass.helpers>`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from cosched.lomarc._layout import (
    CNT,
    DIRTY,
    DIRTY_LIST,
    EMPTIES,
    JOB,
    N_DIRTY,
    OFF,
    OV,
    OV_LIST,
    OVERRIDES,
    SCRATCH,
    SH_AT,
    SH_BELOW,
    SH_COUNT,
    SH_FREE,
    SH_KTH,
    SH_NOCC,
    SH_OK,
    SH_SIZE,
    SH_TIME,
    TOUCHED,
)

if TYPE_CHECKING:
    from cosched.engine.loop import Floats, Ints, IntTable, Table


__all__: list[str] = []


def _kth_smallest(a: Table, row: int, n: int, k: int) -> float:
    """The ``k``-th smallest of ``a[row, :n]`` (1-based; ``np.sort(a[row, :n])[k - 1]``,
    an order statistic, so exact for values without NaN), found by selection in place:
    ``a[row, :n]`` is left permuted."""
    lo = 0
    hi = n - 1
    t = k - 1
    while lo < hi:
        # Hoare's partition of a[row, lo:hi + 1] around its middle element.
        pivot = a[row, (lo + hi) // 2]
        i = lo
        j = hi
        while i <= j:
            while a[row, i] < pivot:
                i += 1
            while a[row, j] > pivot:
                j -= 1
            if i <= j:
                x = a[row, i]
                a[row, i] = a[row, j]
                a[row, j] = x
                i += 1
                j -= 1
        # a[row, lo:j + 1] <= pivot <= a[row, i:hi + 1]; between them, the equal ones.
        if t <= j:
            hi = j
        elif t >= i:
            lo = i
        else:
            return a[row, t]  # type: ignore[no-any-return]
    return a[row, t]  # type: ignore[no-any-return]


def _mark(x: int, ji: IntTable, ni: IntTable, jnodes: Ints, tally: Ints, n: int) -> None:
    """Job ``x``'s ``n`` nodes: their emptying times (LomarcStore.occ[EMPTIES]) are out of
    date until the next shadow time works them out again."""
    for q in range(ji[OFF, x], ji[OFF, x] + n):
        nd = jnodes[q]
        if not ni[DIRTY, nd]:
            ni[DIRTY, nd] = True
            ni[DIRTY_LIST, tally[N_DIRTY]] = nd
            tally[N_DIRTY] += 1


def _shadow_time(
    ni: IntTable,
    ji: IntTable,
    jf: Table,
    jnodes: Ints,
    size: Ints,
    tally: Ints,
    acc_f: Floats,
    nov: int,
    est_end: Floats,
    occ: Table,
    nodes: int,
    now: float,
    fr: int,
    sj: int,
) -> tuple[float, int]:
    """``PassState.compute_shadow``: the EASY head's shadow time and extra nodes, for a
    head of ``sj`` nodes with ``fr`` empty ones. A node empties at the largest of its
    running jobs' estimated ends (at least now) and of this pass's overrides of its
    jobs' ends (its starts, its ride hosts); the shadow time is the (sj - fr)-th
    smallest of those times over the occupied nodes.

    Worked out from each node's emptying time without the pass (occ[EMPTIES]), kept
    between passes: only the nodes that a start, an end or a rate change touched since
    (_mark) are worked out again. A host's override is never earlier than its estimated
    end (at least now), so the larger of the two rows is the node's time. Clamping at
    now commutes with an order statistic, so the selection reads the unclamped times
    and clamps its result; and a time is at most a shadow time (never before now)
    exactly when its clamped time is.

    When no node's emptying time changed since the last shadow time, which was worked
    out without overrides, and the pass has none and the same head and empty nodes,
    the selection's result is the last one: only the clamp and the count are redone,
    on the times occ[SCRATCH] still holds. Otherwise the times are listed again, and
    those below and at the last selection's result counted on the way: when the
    (sj - fr)-th falls among the latter, it is that time and nothing is selected (a
    few nodes change between passes, so it mostly does)."""
    inf = math.inf
    changed = False
    last = acc_f[SH_KTH]
    for d in range(tally[N_DIRTY]):
        nd = ni[DIRTY_LIST, d]
        ni[DIRTY, nd] = False
        e = -inf
        for q in range(ni[CNT, nd]):
            x = est_end[ni[JOB + q, nd]]
            if x > e:
                e = x
        old = occ[EMPTIES, nd]
        if e != old:
            if old > -inf:
                if old < last:
                    tally[SH_BELOW] -= 1
                elif old == last:
                    tally[SH_AT] -= 1
            if e > -inf:
                if e < last:
                    tally[SH_BELOW] += 1
                elif e == last:
                    tally[SH_AT] += 1
            occ[EMPTIES, nd] = e
            changed = True
    tally[N_DIRTY] = 0
    if not changed and nov == 0 and tally[SH_OK] and tally[SH_FREE] == fr and tally[SH_SIZE] == sj:
        nocc = tally[SH_NOCC]
        shadow = now if fr >= sj else max(acc_f[SH_KTH], now)
        if shadow == acc_f[SH_TIME]:
            return shadow, fr + tally[SH_COUNT] - sj
        c = 0
        for q in range(nocc):
            if occ[SCRATCH, q] <= shadow:
                c += 1
        acc_f[SH_TIME] = shadow
        tally[SH_COUNT] = c
        return shadow, fr + c - sj
    for o in range(nov):
        x = ji[OV_LIST, o]
        v = jf[OV, x]
        for q in range(ji[OFF, x], ji[OFF, x] + size[x]):
            nd = jnodes[q]
            if v > occ[OVERRIDES, nd]:
                occ[OVERRIDES, nd] = v
    # How many occupied nodes' times are below and at the last selection's result:
    # those without the pass (kept), the overridden nodes' moved (each node once). When
    # the (sj - fr)-th falls among the latter and is not before now, it is the shadow
    # time again, and no node is listed.
    below = tally[SH_BELOW]
    at = tally[SH_AT]
    for o in range(nov):
        x = ji[OV_LIST, o]
        for q in range(ji[OFF, x], ji[OFF, x] + size[x]):
            nd = jnodes[q]
            if not ni[TOUCHED, nd]:
                ni[TOUCHED, nd] = True
                v = occ[OVERRIDES, nd]
                b = occ[EMPTIES, nd]
                if v > b:
                    if b > -inf:
                        if b < last:
                            below -= 1
                        elif b == last:
                            at -= 1
                    if v < last:
                        below += 1
                    elif v == last:
                        at += 1
    if fr < sj and below < sj - fr <= below + at and last >= now:
        for o in range(nov):
            x = ji[OV_LIST, o]
            for q in range(ji[OFF, x], ji[OFF, x] + size[x]):
                occ[OVERRIDES, jnodes[q]] = -inf
                ni[TOUCHED, jnodes[q]] = False
        tally[SH_OK] = False  # occ[SCRATCH] not listed
        return last, fr + below + at - sj
    # The occupied nodes' times, and how many are below and at the last selection's
    # result: when the (sj - fr)-th falls among the latter, it is that time again.
    below = 0
    at = 0
    nocc = 0
    for nd in range(nodes):
        e = occ[EMPTIES, nd]
        v = occ[OVERRIDES, nd]
        if v > e:
            e = v
        if e > -inf:
            occ[SCRATCH, nocc] = e
            nocc += 1
            if e < last:
                below += 1
            elif e == last:
                at += 1
    for o in range(nov):
        x = ji[OV_LIST, o]
        for q in range(ji[OFF, x], ji[OFF, x] + size[x]):
            occ[OVERRIDES, jnodes[q]] = -inf
            ni[TOUCHED, jnodes[q]] = False
    if fr < sj:
        k = sj - fr
        if not (below < k <= below + at):
            kth = _kth_smallest(occ, SCRATCH, nocc, k)
            acc_f[SH_KTH] = kth
            if kth != last:  # the nodes' times without the pass, counted against it
                nb = 0
                na = 0
                for nd in range(nodes):
                    e = occ[EMPTIES, nd]
                    if e > -inf:
                        if e < kth:
                            nb += 1
                        elif e == kth:
                            na += 1
                tally[SH_BELOW] = nb
                tally[SH_AT] = na
    shadow = now if fr >= sj else max(acc_f[SH_KTH], now)
    if shadow == last:  # no count needed either
        c = below + at
    else:
        c = 0
        for q in range(nocc):
            if occ[SCRATCH, q] <= shadow:
                c += 1
    tally[SH_OK] = nov == 0
    tally[SH_FREE] = fr
    tally[SH_SIZE] = sj
    tally[SH_NOCC] = nocc
    acc_f[SH_TIME] = shadow
    tally[SH_COUNT] = c
    return shadow, fr + c - sj
