"""The compiled LOMARC pass's steps per candidate (:mod:`cosched.lomarc._kernel`): the
pair screens (:func:`_screen`, the class rule and the pair slowdown of
:class:`~cosched.lomarc.slowdown.SlowdownModel`), a start with a partner from the queue
(:func:`_queue_match`, :func:`_start`), a ride on running jobs (the host lists,
:func:`_ride`), and the EASY admission and the heuristic's profit of each. Inlined into
the pass (:attr:`CompiledPass.helpers <cosched.engine.compiled.CompiledPass.helpers>`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cosched.lomarc._layout import (
    ADD,
    ADDS,
    CHECK,
    CLS,
    CNT,
    CPU,
    DISK,
    DRAW,
    FIRST,
    FREE,
    FUN,
    GEN,
    HAS_MAX,
    HAS_OV,
    HOST,
    HOST_N,
    HT,
    INV,
    MAX_SL,
    MEM,
    MEM_SL,
    NET,
    OFF,
    OV,
    OV_LIST,
    PAIRS_Q,
    PAIRS_R,
    QORD,
    RESPONSE,
    RIDE,
    RTS,
    RUN,
    SEARCH_ADJACENT,
    SOLO,
    STD_CF,
    SURV_POS,
    SURV_SL,
    TAKEN,
    U1,
    LomarcParams,
    Model,
    Row,
)
from cosched.lomarc.matching import classes_match, response_impact, u_gain
from cosched.lomarc.slowdown import CLASS_CPU, CLASS_DISK, pair_ends, pair_value
from cosched.policies.orders import SHORT_MAX
from cosched.policies.reservation import admit

if TYPE_CHECKING:
    from cosched.engine.loop import Floats, Ints, IntTable, Table


__all__: list[str] = []


def _cpu_factor(pa: Row, pb: Row, a_later: bool, mt: Model) -> float:
    """``SlowdownModel.cpu_factor``: the later job's draw on hyperthreaded CPUs."""
    if not mt[HT]:
        return mt[STD_CF]  # type: ignore[no-any-return]
    return pa[DRAW] if a_later else pb[DRAW]  # type: ignore[no-any-return]


def _pair_sl(pa: Row, pb: Row, a_later: bool, mt: Model, formula: int) -> float:
    """``SlowdownModel.slowdown`` of two jobs, from their profile rows ``pa`` and
    ``pb`` (``a_later``: the first has the larger index)."""
    return pair_value(
        _cpu_factor(pa, pb, a_later, mt),
        min(pa[CPU], pb[CPU]),
        min(pa[NET], pb[NET]) + min(pa[DISK], pb[DISK]),
        pa[MEM] + pb[MEM] > 1.0,
        mt[MEM_SL],
        formula,
    )


def _screen(pa: Row, pb: Row, a_later: bool, mt: Model, formula: int) -> tuple[int, float]:
    """``MatchRules.screen``: the stage the pair fails at (0 memory, 1 classes, 2
    slowdown; 3 passes) and its slowdown.

    The callers write each profile row out as a tuple where they read it: a helper
    handed the table would count a reference to it at every screen."""
    if mt[CHECK]:
        if pa[MEM] + pb[MEM] > 1.0:
            return 0, 0.0
        cf = _cpu_factor(pa, pb, a_later, mt)
        if not classes_match(pa[CLS], pb[CLS], cf, mt[HT] != 0.0):
            return 1, 0.0
    sl = _pair_sl(pa, pb, a_later, mt, formula)
    if mt[HAS_MAX] and sl > mt[MAX_SL]:
        return 2, sl
    return 3, sl


def _put(j: int, nodes: Ints, jnodes: Ints, ji: IntTable, ni: IntTable) -> None:
    """``PassState._place``'s nodes: job ``j`` goes on ``nodes`` in this pass."""
    for q in range(nodes.size):
        nd = nodes[q]
        jnodes[ji[OFF, j] + q] = nd
        ni[ADD + ni[ADDS, nd], nd] = j
        ni[ADDS, nd] += 1


def _override(x: int, end: float, ji: IntTable, jf: Table, nov: int) -> int:
    """Job ``x``'s end overridden in this pass (listed once); the overrides' count."""
    if not ji[HAS_OV, x]:
        ji[HAS_OV, x] = True
        ji[OV_LIST, nov] = x
        nov += 1
    jf[OV, x] = end
    return nov


def _queue_match(
    j: int, k: int, qlen: int, ntaken: int, prof: Table, est: Floats, size: Ints,
    ji: IntTable, jf: Table, tally: Ints, par: LomarcParams, model: Model,
    future: tuple[float, float, float, float], ahead: float,
) -> tuple[int, int, float]:  # fmt: skip
    """``queue_match``: the partner from the queue for the job ``j`` at position ``k``
    of the priority order, its position and the pair's slowdown (-1, -1, 1.0: none);
    the funnel counted on the way."""
    ml_only, heuristic, bound, nodes = par.medium_long_only, par.heuristic, par.bound, par.nodes
    first_match = heuristic == FIRST
    sj = size[j]
    ej = est[j]
    pj = (prof[j, 0], prof[j, 1], prof[j, 2], prof[j, 3], prof[j, 4], prof[j, 5])
    tally[FUN + 0] += 1
    tally[FUN + 1] += qlen - ntaken
    nsurv = 0
    for p in range(k + 1, qlen):
        if ji[TAKEN, p]:
            continue
        b = ji[QORD, p]
        if not ml_only or est[b] > SHORT_MAX:
            tally[FUN + 2] += 1
            if size[b] <= sj:
                tally[FUN + 3] += 1
                pb = (prof[b, 0], prof[b, 1], prof[b, 2], prof[b, 3], prof[b, 4], prof[b, 5])
                stage, sl = _screen(pj, pb, j > b, model, par.formula)
                if stage >= 1:
                    tally[FUN + 4] += 1
                if stage >= 2:
                    tally[FUN + 5] += 1
                if stage == 3:
                    tally[FUN + 6] += 1
                    ji[SURV_POS, nsurv] = p
                    jf[SURV_SL, nsurv] = sl
                    nsurv += 1
                    if first_match:
                        break
        if par.search == SEARCH_ADJACENT:
            break
    if nsurv == 0:
        return -1, -1, 1.0
    choice = 0 if first_match else -1
    if not first_match:
        last = qlen - 1
        best = 0.0
        for m in range(nsurv):
            p = ji[SURV_POS, m]
            b = ji[QORD, p]
            if heuristic == RESPONSE:
                profit = response_impact(
                    ej, sj, est[b], size[b], jf[SURV_SL, m], nodes,
                    max(jf[RTS, k], bound), jf[RTS, p],
                    jf[INV, p] - jf[INV, k + 1], p - k - 1,
                    jf[INV, last + 1] - jf[INV, p + 1], last - p,
                    future, bound, ahead,
                )  # fmt: skip
            else:
                profit = u_gain(sj, ej, size[b], est[b], jf[SURV_SL, m], heuristic == U1)
            if profit > best:
                choice, best = m, profit
    if choice < 0:
        return -1, -1, 1.0
    tally[FUN + 7] += 1
    tally[FUN + 8] += choice + 1
    ppos = ji[SURV_POS, choice]
    return ji[QORD, ppos], ppos, jf[SURV_SL, choice]


def _start(
    j: int, k: int, partner: int, ppos: int, psl: float, fptr: int, now: float,
    ndec: int, nov: int, est: Floats, size: Ints, ji: IntTable, jf: Table, ni: IntTable,
    jnodes: Ints, tally: Ints, chosen: Ints,
) -> tuple[int, int]:  # fmt: skip
    """``_start_with_partner``: job ``j`` (position ``k``) on the empty nodes listed
    from ``fptr``, its partner (position ``ppos``, or -1) on the same nodes, their ends
    overridden; the decisions' and the overrides' counts."""
    ej = est[j]
    _put(j, ni[FREE, fptr : fptr + size[j]], jnodes, ji, ni)
    chosen[ndec] = j
    ndec += 1
    ji[TAKEN, k] = True
    nov = _override(j, now + ej, ji, jf, nov)
    if partner >= 0:
        src = jnodes[ji[OFF, j] : ji[OFF, j] + size[partner]]
        _put(partner, src, jnodes, ji, ni)
        chosen[ndec] = partner
        ndec += 1
        ji[TAKEN, ppos] = True
        th, tp = pair_ends(ej, est[partner], psl)
        jf[OV, j] = now + th
        nov = _override(partner, now + tp, ji, jf, nov)
        tally[PAIRS_Q] += 1
    return ndec, nov


def _list_hosts(
    ni: IntTable, ji: IntTable, est: Floats, nrun: int, ml_only: bool
) -> tuple[int, int]:
    """The ride hosts in ni[HOST] (running jobs, medium or long if ``ml_only``, with
    nodes to themselves) and those nodes' counts in ni[HOST_N]; the hosts' number and
    the largest count. Until a ride, a pass's starts are on empty nodes, so a running
    job's unpartnered nodes are those it has to itself (ji[SOLO])."""
    nhosts = 0
    max_solo = 0
    for r in range(nrun):
        hj = ni[RUN, r]
        if ml_only and not est[hj] > SHORT_MAX:
            continue
        c = ji[SOLO, hj]
        if c > 0:
            ni[HOST, nhosts] = hj
            ni[HOST_N, nhosts] = c
            nhosts += 1
            if c > max_solo:
                max_solo = c
    return nhosts, max_solo


def _eligible_hosts(
    gk: int, sj: int, nhosts: int, prof: Table, ni: IntTable, ge_idx: IntTable,
    ge_n: IntTable, gen: int,
) -> None:  # fmt: skip
    """The hosts with at least ``sj`` unpartnered nodes (of class ``gk - 1`` if ``gk >
    0``), in order, into ge_idx[gk, sj], their number and the generation ``gen`` into
    ge_n[:, gk, sj]: kept until a ride changes a host's count."""
    c = 0
    for h in range(nhosts):
        hk = ni[HOST, h]
        if ni[HOST_N, h] >= sj and (gk == 0 or prof[hk, CLS] == gk - 1):
            ge_idx[gk, sj, c] = h
            c += 1
    ge_n[0, gk, sj] = c
    ge_n[1, gk, sj] = gen


def _ride(
    j: int, k: int, h: int, sl: float, now: float, ndec: int, nov: int, est: Floats,
    size: Ints, rate: Floats, est_end: Floats, ji: IntTable, jf: Table, ni: IntTable,
    jnodes: Ints, tally: Ints, chosen: Ints,
) -> tuple[int, int]:  # fmt: skip
    """``PassState.ride``: job ``j`` (position ``k``) on the first unpartnered nodes of
    the ``h``-th host, in its nodes' order, with the pair's slowdown ``sl``; both ends
    overridden. The decisions' and the overrides' counts."""
    sj = size[j]
    hj = ni[HOST, h]
    end_h = jf[OV, hj] if ji[HAS_OV, hj] else max(est_end[hj], now)
    rem = max(end_h - now, 0.0) * (1.0 if ji[HAS_OV, hj] else rate[hj])
    th, tc = pair_ends(rem, est[j], sl)
    c = 0
    for q in range(ji[OFF, hj], ji[OFF, hj] + size[hj]):
        nd = jnodes[q]
        if ni[CNT, nd] + ni[ADDS, nd] == 1:
            ni[RIDE, c] = nd
            c += 1
            if c == sj:
                break
    _put(j, ni[RIDE, :sj], jnodes, ji, ni)
    chosen[ndec] = j
    ji[TAKEN, k] = True
    nov = _override(hj, max(end_h, now + th), ji, jf, nov)
    nov = _override(j, now + tc, ji, jf, nov)
    ni[HOST_N, h] -= sj
    tally[GEN] += 1  # the host lists are out of date
    tally[PAIRS_R] += 1
    return ndec + 1, nov


def _memo_swap(memo_i: IntTable, memo_sl: Table, j: int, m: int, g: int) -> int:
    """Job ``j``'s remembered screens ``m`` and ``g`` swapped, so that the host now at
    position ``g`` of its host list is found there first at the next pass (a screen is
    a pure function of the two jobs: where it is kept changes no answer); ``g``."""
    h, st, sl = memo_i[0, j, m], memo_i[1, j, m], memo_sl[j, m]
    memo_i[0, j, m], memo_i[1, j, m], memo_sl[j, m] = (
        memo_i[0, j, g], memo_i[1, j, g], memo_sl[j, g]
    )  # fmt: skip
    memo_i[0, j, g], memo_i[1, j, g], memo_sl[j, g] = h, st, sl
    return g


def _list_free(ni: IntTable, nodes: int) -> None:
    """The empty nodes, in node order, into ni[FREE]."""
    c = 0
    for nd in range(nodes):
        if ni[CNT, nd] == 0:
            ni[FREE, c] = nd
            c += 1


def _host_key(cls: float, par: LomarcParams) -> int:
    """The host lists a job of class ``cls`` screens: 0 every host; on standard CPUs
    with the class rule, where only a CPU-bound job and a disk-bound one match, 1 + the
    other class (-1: none)."""
    if not par.check_match or par.hyperthreaded:
        return 0
    if cls != CLASS_CPU and cls != CLASS_DISK:
        return -1
    return 1 + CLASS_DISK if cls == CLASS_CPU else 1 + CLASS_CPU


def _admit_start(
    now: float, ej: float, sj: int, paired: bool, ep: float, psl: float, shadow: float,
    extra: int,
) -> tuple[bool, bool, int]:  # fmt: skip
    """Behind the EASY head: whether a job (estimate ``ej``, ``sj`` nodes) starts with
    its partner (if ``paired``: estimate ``ep``, the pair's slowdown ``psl``) by the
    shadow time or within the extra nodes, else alone; whether it keeps the partner;
    the extra nodes left."""
    if paired:
        pe = pair_ends(ej, ep, psl)
        ok, left = admit(now + max(pe[0], pe[1]), sj, shadow, extra)
        if ok:
            return True, True, left
    ok, left = admit(now + ej, sj, shadow, extra)
    return ok, False, left


def _ride_profit(
    rem: float, sh: int, ej: float, sj: int, sl: float, rts_k: float, inv_after: float,
    after: int, future: tuple[float, float, float, float], ahead: float, par: LomarcParams,
) -> float:  # fmt: skip
    """The heuristic's profit of a ride on a host of ``sh`` nodes with ``rem`` seconds
    left (response: the job at position ``k``, ``rts_k`` its cumulative run-time
    share, ``after`` jobs behind it, ``inv_after`` their inverses' sum)."""
    if par.heuristic == RESPONSE:
        return response_impact(
            rem, sh, ej, sj, sl, par.nodes, max(rem, par.bound), rts_k, 0.0, 0, inv_after,
            after, future, par.bound, ahead,
        )  # fmt: skip
    return u_gain(sh, rem, sj, ej, sl, par.heuristic == U1)
