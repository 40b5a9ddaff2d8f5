"""The LOMARC pass, step by step (:func:`lomarc_pass`, the ``schedule`` of
:data:`~cosched.lomarc.fast.LOMARC_PASS`): the arrival statistics, the priority order,
starts with a partner from the queue, rides on running jobs, the EASY head's backfilling,
the starts' bookkeeping. Each step is a function of the pass's store
(:class:`~cosched.lomarc._kernel.LomarcStore`), inlined into the pass when compiled
(:attr:`CompiledPass.helpers <cosched.engine.compiled.CompiledPass.helpers>`); the store's
layout, the screens and the EASY head's shadow time are in :mod:`cosched.lomarc._kernel`.
This module imports no numba.
"""

from __future__ import annotations

import math
from typing import Any

from cosched.lomarc._kernel import (
    A_COUNT,
    A_FIRST,
    A_LAST,
    A_LW,
    A_SHORT,
    A_SW,
    ADDS,
    CLS,
    CNT,
    FIRST,
    FREE,
    FUN,
    GEN,
    HAS_OV,
    HOST,
    HOST_N,
    INV,
    JOB,
    LEVEL,
    MEMO,
    N_EMPTY,
    N_RUN,
    N_STARTED,
    NLEV,
    OFF,
    OV,
    OV_LIST,
    PAIRS_Q,
    PAIRS_R,
    POS0,
    QORD,
    RESPONSE,
    RIDE,
    RTS,
    RUN,
    SEARCH_ADJACENT,
    SEARCH_NONE,
    SOLO,
    STARTED,
    SURV_POS,
    SURV_SL,
    TAKEN,
    U1,
    WAIT_SUM,
    LomarcStore,
    _mark,
    _put,
    _screen,
    _shadow_time,
)
from cosched.lomarc.matching import expected_arrivals, response_impact, u_gain
from cosched.lomarc.search import pair_ends
from cosched.lomarc.slowdown import CLASS_CPU, CLASS_DISK
from cosched.policies.orders import MEDIUM_MAX, SHORT_MAX

__all__ = ["lomarc_pass"]


def _count_arrivals(store: LomarcStore, jobs: Any, queue: Any, fresh: int, tail: int) -> None:
    """The submissions of ``queue[fresh:tail]`` into the arrival statistics
    (``ArrivalStats.add``)."""
    submit, est, size = jobs.submit, jobs.est, jobs.size
    tally, acc_f = store.tally, store.acc_f
    for p in range(fresh, tail):
        j = queue[p]
        if tally[A_COUNT] == 0:
            acc_f[A_FIRST] = submit[j]
        tally[A_COUNT] += 1
        acc_f[A_LAST] = submit[j]
        work = est[j] * size[j]
        if est[j] <= SHORT_MAX:
            tally[A_SHORT] += 1
            acc_f[A_SW] += work
        else:
            acc_f[A_LW] += work


def _priority_order(
    store: LomarcStore, jobs: Any, queue: Any, qn: int, now: float, invp: float
) -> None:
    """``ji[QORD, :qn]``: the queue in priority order (``orders.priority_indices``):
    by aged level (short, medium, long, less one per aging period waited), stably."""
    est, submit = jobs.est, jobs.submit
    ji, tally = store.ji, store.tally
    for lb in range(4):
        tally[NLEV + lb] = 0
    for p in range(qn):
        j = queue[p]
        e = est[j]
        lv = (1.0 if e > SHORT_MAX else 0.0) + (1.0 if e > MEDIUM_MAX else 0.0)
        lv -= math.floor((now - submit[j]) * invp)
        if lv != lv:
            lb = 3  # NaN sorts last, as in a stable argsort
        elif lv <= 0.0:
            lb = 0
        else:
            lb = int(lv)
        ji[LEVEL, p] = lb
        tally[NLEV + lb] += 1
    tally[POS0 + 0] = 0
    for lb in range(1, 4):
        tally[POS0 + lb] = tally[POS0 + lb - 1] + tally[NLEV + lb - 1]
    for p in range(qn):
        lb = ji[LEVEL, p]
        ji[QORD, tally[POS0 + lb]] = queue[p]
        tally[POS0 + lb] += 1


def _response_sums(
    store: LomarcStore, jobs: Any, qlen: int
) -> tuple[tuple[float, float, float, float], float]:
    """For the response-time heuristic: the queue's running sums (``jf[RTS]``, the
    inverse sums ``jf[INV]``), the arrivals expected (when predicted) and the queue's
    own work ahead (when arrivals queue)."""
    est, size = jobs.est, jobs.size
    ji, jf, tally, acc_f = store.ji, store.jf, store.tally, store.acc_f
    nodes, bound = store.nodes, store.fp[4]
    last = qlen - 1
    for p in range(qlen):
        x = est[ji[QORD, p]] * size[ji[QORD, p]] / nodes
        jf[RTS, p] = x if p == 0 else jf[RTS, p - 1] + x
    jf[INV, 0] = 0.0
    for p in range(qlen):
        x = 1.0 / max(jf[RTS, p], bound)
        jf[INV, p + 1] = x if p == 0 else jf[INV, p] + x
    future = (0.0, 0.0, 0.0, 0.0)
    if store.ip[7] != 0:  # predict
        future = expected_arrivals(
            tally[A_COUNT], acc_f[A_FIRST], acc_f[A_LAST], tally[A_SHORT], acc_f[A_SW],
            acc_f[A_LW], jf[RTS, last],
        )  # fmt: skip
    ahead = jf[RTS, last] if store.ip[8] != 0 else 0.0  # arrivals queue
    return future, ahead


def _queue_match(
    store: LomarcStore,
    jobs: Any,
    k: int,
    qlen: int,
    ntaken: int,
    future: tuple[float, float, float, float],
    ahead: float,
) -> tuple[int, int, float]:
    """``queue_match``: the partner chosen for the job at ``ji[QORD, k]`` among the
    queued jobs behind it (job, position, slowdown), or (-1, -1, 1.0)."""
    est, size = jobs.est, jobs.size
    prof, model, formula, nodes = store.prof, store.model, store.formula, store.nodes
    ji, jf, tally = store.ji, store.jf, store.tally
    ml_only = store.ip[2] != 0
    search_code = store.ip[3]
    heuristic = store.ip[5]
    bound = store.fp[4]
    first_match = heuristic == FIRST
    last = qlen - 1
    j = ji[QORD, k]
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
                stage, sl = _screen(pj, pb, j > b, model, formula)
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
        if search_code == SEARCH_ADJACENT:
            break
    choice = -1
    if nsurv > 0:
        if first_match:
            choice = 0
        else:
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
    store: LomarcStore,
    jobs: Any,
    k: int,
    partner: int,
    ppos: int,
    psl: float,
    now: float,
    chosen: Any,
    ndec: int,
    nov: int,
    fptr: int,
) -> tuple[int, int]:
    """Start the job at ``ji[QORD, k]`` on the next empty nodes (``ni[FREE, fptr:]``),
    and ``partner`` (at ``ppos``, slowdown ``psl``) on the first of them when it is a
    job: their decisions from ``chosen[ndec]``, their ends' overrides. The new
    ``(ndec, nov)``."""
    est, size = jobs.est, jobs.size
    ji, jf, ni, jnodes, tally = store.ji, store.jf, store.ni, store.jnodes, store.tally
    j = ji[QORD, k]
    sj = size[j]
    ej = est[j]
    _put(j, ni[FREE, fptr : fptr + sj], jnodes, ji, ni)
    chosen[ndec] = j
    ndec += 1
    ji[TAKEN, k] = True
    if not ji[HAS_OV, j]:
        ji[HAS_OV, j] = True
        ji[OV_LIST, nov] = j
        nov += 1
    jf[OV, j] = now + ej
    if partner >= 0:
        sp = size[partner]
        src = jnodes[ji[OFF, j] : ji[OFF, j] + sp]
        _put(partner, src, jnodes, ji, ni)
        chosen[ndec] = partner
        ndec += 1
        ji[TAKEN, ppos] = True
        th, tp = pair_ends(ej, est[partner], psl)
        jf[OV, j] = now + th
        ji[HAS_OV, partner] = True
        ji[OV_LIST, nov] = partner
        nov += 1
        jf[OV, partner] = now + tp
        tally[PAIRS_Q] += 1
    return ndec, nov


def _list_hosts(store: LomarcStore, jobs: Any) -> tuple[int, int]:
    """The running jobs that may host a rider, with their unpartnered nodes, into
    ``ni[HOST]`` and ``ni[HOST_N]``: their number and the largest count. Until a ride,
    this pass's starts are on empty nodes: a running job's unpartnered nodes are those
    it has to itself (``ji[SOLO]``)."""
    est, ji, ni = jobs.est, store.ji, store.ni
    ml_only = store.ip[2] != 0
    nhosts = 0
    max_solo = 0
    for r in range(store.tally[N_RUN]):
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


def _host_screen(store: LomarcStore, j: int, g: int, hj: int) -> tuple[int, float]:
    """The screen of job ``j`` riding on ``hj`` (the ``g``-th host listed), from
    ``j``'s memo of its last ride screens when it holds it, else screened (and kept
    in the memo's first slots)."""
    prof, memo_i, memo_sl = store.prof, store.memo_i, store.memo_sl
    m = g if g < MEMO else 0
    if memo_i[0, j, m] != hj + 1:
        # a host list that lost a host: the others shifted
        for m in range(MEMO):
            if memo_i[0, j, m] == hj + 1:
                break
    if memo_i[0, j, m] == hj + 1:
        return memo_i[1, j, m], memo_sl[j, m]
    pj = (prof[j, 0], prof[j, 1], prof[j, 2], prof[j, 3], prof[j, 4], prof[j, 5])
    ph = (prof[hj, 0], prof[hj, 1], prof[hj, 2], prof[hj, 3], prof[hj, 4], prof[hj, 5])
    stage, sl = _screen(pj, ph, j > hj, store.model, store.formula)
    if g < MEMO:
        memo_i[0, j, g] = hj + 1
        memo_i[1, j, g] = stage
        memo_sl[j, g] = sl
    return stage, sl


def _hosts_of(store: LomarcStore, gk: int, sj: int, nhosts: int) -> int:
    """The hosts with at least ``sj`` unpartnered nodes (of class ``gk - 1`` if ``gk``
    > 0), in order, into ``ge_idx[gk, sj]``: their number. Kept until a ride changes a
    host's count."""
    ge_idx, ge_n, ni, prof, tally = store.ge_idx, store.ge_n, store.ni, store.prof, store.tally
    if ge_n[1, gk, sj] != tally[GEN]:
        c = 0
        for h in range(nhosts):
            hk = ni[HOST, h]
            if ni[HOST_N, h] >= sj and (gk == 0 or prof[hk, CLS] == gk - 1):
                ge_idx[gk, sj, c] = h
                c += 1
        ge_n[0, gk, sj] = c
        ge_n[1, gk, sj] = tally[GEN]
    return ge_n[0, gk, sj]


def _host_end(store: LomarcStore, jobs: Any, hj: int, now: float) -> tuple[float, float]:
    """Host ``hj``'s end (its override, else its estimated end, at least now) and its
    remaining time alone at its rate."""
    ji, jf = store.ji, store.jf
    end_h = jf[OV, hj] if ji[HAS_OV, hj] else max(jobs.est_end[hj], now)
    rem = max(end_h - now, 0.0) * (1.0 if ji[HAS_OV, hj] else jobs.rate[hj])
    return end_h, rem


def _ride(store: LomarcStore, jobs: Any, k: int, h: int, sl: float, now: float, nhosts: int) -> int:
    """``PassState.ride``: the job at ``ji[QORD, k]`` on the ``h``-th host's first
    unpartnered nodes (in its nodes' order), both ends' overrides; the largest count of
    unpartnered nodes left."""
    est, size = jobs.est, jobs.size
    ji, jf, ni, jnodes, tally = store.ji, store.jf, store.ni, store.jnodes, store.tally
    j = ji[QORD, k]
    sj = size[j]
    hj = ni[HOST, h]
    end_h, rem = _host_end(store, jobs, hj, now)
    th, tc = pair_ends(rem, est[j], sl)
    new_h = max(end_h, now + th)
    c = 0
    for q in range(ji[OFF, hj], ji[OFF, hj] + size[hj]):
        nd = jnodes[q]
        if ni[CNT, nd] + ni[ADDS, nd] == 1:
            ni[RIDE, c] = nd
            c += 1
            if c == sj:
                break
    _put(j, ni[RIDE, :sj], jnodes, ji, ni)
    ji[TAKEN, k] = True
    jf[OV, hj] = new_h
    jf[OV, j] = now + tc
    ni[HOST_N, h] -= sj
    tally[GEN] += 1
    max_solo = 0
    for x in range(nhosts):
        max_solo = max(max_solo, ni[HOST_N, x])
    tally[PAIRS_R] += 1
    return max_solo


def _overridden(store: LomarcStore, x: int, nov: int) -> int:
    """Job ``x`` in the list of jobs whose ends this pass overrides: the list's new
    length."""
    ji = store.ji
    if not ji[HAS_OV, x]:
        ji[HAS_OV, x] = True
        ji[OV_LIST, nov] = x
        nov += 1
    return nov


def _clear_marks(
    store: LomarcStore, jobs: Any, chosen: Any, ndec: int, qlen: int, nov: int
) -> None:
    """The pass's marks back to their resting values: taken, overridden, the starts'
    added counts on their nodes."""
    ji, ni, jnodes, size = store.ji, store.ni, store.jnodes, jobs.size
    for p in range(qlen):
        ji[TAKEN, p] = False
    for q in range(nov):
        ji[HAS_OV, ji[OV_LIST, q]] = False
    for d in range(ndec):  # the starts' counts back to 0, node by node
        x = chosen[d]
        for q in range(ji[OFF, x], ji[OFF, x] + size[x]):
            ni[ADDS, jnodes[q]] = 0


def _commit_starts(store: LomarcStore, jobs: Any, chosen: Any, ndec: int, now: float) -> None:
    """The starts, in decision order: their nodes, the running list, the waits."""
    submit, size = jobs.submit, jobs.size
    ji, ni, jnodes, tally, acc_f = store.ji, store.ni, store.jnodes, store.tally, store.acc_f
    total_wait, n_started, nrun = acc_f[WAIT_SUM], tally[N_STARTED], tally[N_RUN]
    for d in range(ndec):
        j = chosen[d]
        ni[RUN, nrun] = j
        nrun += 1
        for q in range(ji[OFF, j], ji[OFF, j] + size[j]):
            nd = jnodes[q]
            if ni[CNT, nd] >= 2:
                raise RuntimeError("the LOMARC pass: a third job on a node")
            if ni[CNT, nd] == 0:
                tally[N_EMPTY] -= 1
            else:  # the job alone on it shares it now
                ji[SOLO, ni[JOB + 0, nd]] -= 1
            ni[JOB + ni[CNT, nd], nd] = j
            ni[CNT, nd] += 1
            if ni[CNT, nd] == 1:
                ji[SOLO, j] += 1
        _mark(j, ji, ni, jnodes, tally, size[j])  # the engine sets its est_end next
        ji[STARTED, j] = True
        n_started += 1
        total_wait += now - submit[j]
    acc_f[WAIT_SUM] = total_wait
    tally[N_STARTED] = n_started
    tally[N_RUN] = nrun


def _shadow(
    store: LomarcStore, jobs: Any, nov: int, now: float, head_free: int, head_size: int
) -> tuple[float, int]:
    """The EASY head's shadow time and extra nodes (:func:`_shadow_time`)."""
    return _shadow_time(
        store.ni, store.ji, store.jf, store.jnodes, jobs.size, store.tally, store.acc_f, nov,
        jobs.est_end, store.occ, store.nodes, now, head_free, head_size,
    )  # fmt: skip


def _list_empty(store: LomarcStore) -> bool:
    """The empty nodes, in node order, into ``ni[FREE]`` (True: listed)."""
    ni = store.ni
    c = 0
    for nd in range(store.nodes):
        if ni[CNT, nd] == 0:
            ni[FREE, c] = nd
            c += 1
    return True


def _best_host(
    store: LomarcStore,
    jobs: Any,
    k: int,
    qlen: int,
    gk: int,
    nhosts: int,
    now: float,
    nov: int,
    backfill: bool,
    known: bool,
    shadow: float,
    extra: int,
    head_free: int,
    head_size: int,
    future: tuple[float, float, float, float],
    ahead: float,
) -> tuple[int, float, float, int, bool]:
    """``running_match``: the host (its index in ``ni[HOST]``, -1 for none) and
    slowdown of the best ride for the job at ``ji[QORD, k]`` among the hosts of class
    key ``gk``; behind the EASY head, only a ride that ends by the head's shadow time
    or leaves its host's end after it (the shadow time and extra nodes worked out here
    when not ``known``, and handed back with ``known``)."""
    est, size = jobs.est, jobs.size
    ji, jf, ni = store.ji, store.jf, store.ni
    heuristic = store.ip[5]
    bound = store.fp[4]
    last = qlen - 1
    j = ji[QORD, k]
    sj = size[j]
    ej = est[j]
    best_h = -1
    best_sl = 0.0
    best_profit = 0.0
    for g in range(_hosts_of(store, gk, sj, nhosts)):
        h = store.ge_idx[gk, sj, g]
        hj = ni[HOST, h]
        stage, sl = _host_screen(store, j, g, hj)
        if stage != 3:
            continue
        end_h, rem = _host_end(store, jobs, hj, now)
        if backfill and not known:
            shadow, extra = _shadow(store, jobs, nov, now, head_free, head_size)
            known = True
        if backfill and end_h <= shadow:
            th, tc = pair_ends(rem, ej, sl)
            if shadow < max(max(end_h, now + th), now + tc):
                continue
        if heuristic == FIRST:
            best_h, best_sl = h, sl
            break
        if heuristic == RESPONSE:
            profit = response_impact(
                rem, size[hj], ej, sj, sl, store.nodes, max(rem, bound),
                jf[RTS, k], 0.0, 0, jf[INV, last + 1] - jf[INV, k + 1], last - k,
                future, bound, ahead,
            )  # fmt: skip
        else:
            profit = u_gain(size[hj], rem, sj, ej, sl, heuristic == U1)
        if profit > best_profit:
            best_h, best_sl, best_profit = h, sl, profit
    return best_h, best_sl, shadow, extra, known


def _behind_head(
    jobs: Any, j: int, partner: int, psl: float, now: float, shadow: float, extra: int
) -> tuple[bool, bool, int]:
    """Behind the EASY head, a start of ``j`` (with ``partner`` at slowdown ``psl``,
    when one; else alone) must end by the head's shadow time or fit in its extra nodes:
    (the partner kept, the start fits, the extra nodes left)."""
    ej, sj = jobs.est[j], jobs.size[j]
    if partner < 0:
        e_end = now + ej
    else:
        pe = pair_ends(ej, jobs.est[partner], psl)
        e_end = now + max(pe[0], pe[1])
    kept = partner >= 0
    if not (e_end <= shadow or sj <= extra) and kept:
        kept = False
        e_end = now + ej
    if not (e_end <= shadow or sj <= extra):
        return kept, False, extra
    if e_end > shadow:
        extra -= sj
    return kept, True, extra


def lomarc_pass(
    store: LomarcStore,
    state: int,
    jobs: Any,
    queue: Any,
    head: int,
    tail: int,
    fresh: int,
    free_units: int,
    epoch: int,
    now: float,
    chosen: Any,
) -> tuple[int, int, int, int, float]:
    """One LOMARC pass at ``now`` over ``queue[head:tail]`` (kept in submit order from
    ``head``), the jobs it starts into ``chosen`` in decision order."""
    est, size = jobs.est, jobs.size
    prof = store.prof
    iparams, fparams = store.ip, store.fp
    ji, ni, tally, acc_f = store.ji, store.ni, store.tally, store.acc_f
    inf = math.inf
    ht = iparams[0] != 0
    check_match = iparams[1] != 0
    ml_only = iparams[2] != 0
    search_code = iparams[3]
    running = iparams[4] != 0
    heuristic = iparams[5]
    has_weak = iparams[9] != 0
    has_aging = iparams[11] != 0
    weak_spare = fparams[0]
    aging = fparams[3]
    _count_arrivals(store, jobs, queue, fresh, tail)
    queue = queue[head:tail]
    qn = tail - head
    # -- the pass: the priority order (orders.priority_indices) ----------------------
    total_wait, n_started = acc_f[WAIT_SUM], tally[N_STARTED]
    period = aging if has_aging else (total_wait / n_started if n_started else 0.0)
    _priority_order(store, jobs, queue, qn, now, 1.0 / period if period > 0 else 0.0)
    qlen = qn
    ndec = 0
    nov = 0
    if qlen > 0:
        # PassState. The empty nodes (free, in node order) are listed at the pass's
        # first start on them; until then only their number (kept by the starts and
        # ends) is read.
        nfree = tally[N_EMPTY]
        listed = False
        fptr = 0
        queued_units = 0
        for p in range(qlen):
            queued_units += size[ji[QORD, p]]
        ntaken = 0
        shadow, extra, known = inf, 0, True  # the EASY head's, once there is one
        head_size, head_free = 0, 0
        hosts_known, nhosts, max_solo = False, 0, -1
        tally[GEN] += 1  # no host list is current
        future, ahead = (0.0, 0.0, 0.0, 0.0), 0.0
        if heuristic == RESPONSE:
            future, ahead = _response_sums(store, jobs, qlen)
        backfill = False
        k = 0
        while k < qlen:
            if backfill and fptr == nfree and (not running or (hosts_known and max_solo == 0)):
                break  # no empty node and no host: nothing behind the head can start
            if ji[TAKEN, k]:
                k += 1
                continue
            j = ji[QORD, k]
            sj = size[j]
            ej = est[j]
            nleft = nfree - fptr
            may_pair = (not ml_only or ej > SHORT_MAX) and (
                not has_weak or queued_units > (1.0 - weak_spare) * nleft
            )
            if sj <= nleft:
                # _start_with_partner
                if backfill and not known:
                    shadow, extra = _shadow(store, jobs, nov, now, head_free, head_size)
                    known = True
                if backfill and not (now + ej <= shadow or sj <= extra):
                    k += 1
                    continue
                partner, ppos, psl = -1, -1, 1.0
                if search_code != SEARCH_NONE and may_pair:
                    partner, ppos, psl = _queue_match(store, jobs, k, qlen, ntaken, future, ahead)
                if backfill:
                    kept, fits, extra = _behind_head(jobs, j, partner, psl, now, shadow, extra)
                    if not fits:
                        k += 1
                        continue
                    if not kept:
                        partner, ppos, psl = -1, -1, 1.0
                if not listed:  # the empty nodes, at the pass's first start on them
                    listed = _list_empty(store)
                started = ndec
                ndec, nov = _start(store, jobs, k, partner, ppos, psl, now, chosen, ndec, nov, fptr)
                fptr += sj
                ntaken += ndec - started
                queued_units -= sj if partner < 0 else sj + size[partner]
                k += 1
                continue
            # _ride: running_match
            rode = False
            # On standard CPUs only a CPU-bound job and a disk-bound one match:
            # the hosts of the other class are the only ones screened (gk 1 + it).
            gk = 0
            if check_match and not ht:
                gk = 1 + CLASS_DISK if prof[j, CLS] == CLASS_CPU else 1 + CLASS_CPU
                if prof[j, CLS] != CLASS_CPU and prof[j, CLS] != CLASS_DISK:
                    gk = -1
            if running and may_pair and gk >= 0:
                if not hosts_known:
                    hosts_known = True
                    nhosts, max_solo = _list_hosts(store, jobs)
                if sj <= max_solo:
                    best_h, best_sl, shadow, extra, known = _best_host(
                        store, jobs, k, qlen, gk, nhosts, now, nov, backfill, known, shadow,
                        extra, head_free, head_size, future, ahead,
                    )  # fmt: skip
                    if best_h >= 0:
                        hj = ni[HOST, best_h]
                        max_solo = _ride(store, jobs, k, best_h, best_sl, now, nhosts)
                        chosen[ndec] = j
                        ndec += 1
                        ntaken += 1
                        queued_units -= sj
                        nov = _overridden(store, hj, nov)
                        nov = _overridden(store, j, nov)
                        rode = True
            if not rode and not backfill:
                # The EASY head: its shadow time and extra nodes (_shadow_time), worked
                # out when a later job first reads them. Only a start or a ride changes
                # what they depend on, and each reads them first, so they are the
                # values of this moment; a pass whose later jobs cannot act skips them.
                head_size = sj
                head_free = nfree - fptr
                known = False
                backfill = True
            k += 1
        _clear_marks(store, jobs, chosen, ndec, qlen, nov)
    _commit_starts(store, jobs, chosen, ndec, now)
    w = 0
    if ndec:
        for p in range(qn):
            if not ji[STARTED, queue[p]]:
                queue[w] = queue[p]
                w += 1
    else:
        w = qn
    return state, head, head + w, ndec, math.nan
