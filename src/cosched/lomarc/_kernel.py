"""The built-in LOMARC policies' pass, compiled: :data:`LOMARC_PASS` on the engine's
event loop (:mod:`cosched.engine.loop`).

The loop does the engine's part (completions, stale entries of re-planned jobs
included, since an instant at a stale entry's time runs a pass; submissions; the starts
in decision order; the rate changes); this pass does what
:class:`~cosched.lomarc.policies.Lomarc` and :class:`~cosched.lomarc.rates.PairRates`
do, step for step, so the schedules, placements, Table 5 counters and engine counters
are the same bit for bit as the general loop's (the differential tests in
``tests/lomarc/test_fast.py`` hold it to that):

* the arrival statistics of the one-level prediction, for the jobs submitted now;
* the pass as in :mod:`cosched.lomarc.policies` and :mod:`cosched.lomarc.search`: the
  ``priority`` order, starts with a partner from the queue, rides on running jobs, the
  EASY head's per-node shadow time and backfilling with the same matching. Where the
  Python pass visits only the backfill candidates that could act (a vectorised
  superset), this pass visits every one; a visit that cannot act changes nothing;
* the new rates (:func:`lomarc_rates`) of the jobs on the nodes a start or an end
  touched, in index order.

The rules that are plain arithmetic are not written here a second time: the pair
slowdown (:func:`~cosched.lomarc.slowdown.pair_value` over
:func:`~cosched.lomarc.slowdown.shared_cost`), the class rule
(:func:`~cosched.lomarc.matching.classes_match`), the heuristics
(:func:`~cosched.lomarc.matching.u_gain`,
:func:`~cosched.lomarc.matching.response_impact`), the arrival prediction
(:func:`~cosched.lomarc.matching.expected_arrivals`) and the pair run times
(:func:`~cosched.lomarc.slowdown.pair_ends`) are those functions, compiled into the pass
(:attr:`CompiledPass.helpers <cosched.engine.compiled.CompiledPass.helpers>`: inlined,
so the pass makes no call per screen or per start). This module imports no numba: run
as plain Python (``NUMBA_DISABLE_JIT=1``), or loaded compiled ahead of time, the same
source gives the same schedules.

Per pass the work is kept to what a pass reads: the empty nodes are counted by the
starts and ends and listed only at the pass's first start on them; the head's shadow
time is a selection (:func:`~cosched.lomarc._shadow._kth_smallest`), not a sort, over
the nodes' emptying times, read node by node from the node table.

This module holds the pass's hooks (once a run: :func:`lomarc_init`; once an end; once
a pass: the arrival statistics, the priority order, the pass and its close; the rates;
the report); the steps a pass takes per start and per ride are
:mod:`cosched.lomarc._steps`'s, the shadow time :mod:`cosched.lomarc._shadow`'s, and
the store's layout (parameters, arrays, their named rows) :mod:`cosched.lomarc._layout`'s.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from cosched.lomarc._layout import (
    A_COUNT,
    A_FIRST,
    A_LAST,
    A_LW,
    A_SHORT,
    A_SW,
    ADDS,
    AFF,
    CLS,
    CNT,
    FIRST,
    FREE,
    FREE_BASE,
    FREE_OK,
    FREPORTS,
    FUN,
    FUNNEL,
    GEN,
    HAS_OV,
    HOST,
    HOST_N,
    INV,
    JOB,
    LEVEL,
    MARKED,
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
    RTS,
    RUN,
    SEARCH_NONE,
    SOLO,
    STARTED,
    TAKEN,
    TALLY,
    TOUCHED,
    WAIT_SUM,
    LomarcParams,
    LomarcStore,
)
from cosched.lomarc._shadow import _mark, _shadow_time
from cosched.lomarc._steps import (
    _admit_start,
    _eligible_hosts,
    _host_key,
    _list_free,
    _list_hosts,
    _memo_swap,
    _pair_sl,
    _queue_match,
    _ride,
    _ride_profit,
    _screen,
    _start,
)
from cosched.lomarc.matching import expected_arrivals
from cosched.lomarc.slowdown import pair_ends
from cosched.policies.orders import MEDIUM_MAX, SHORT_MAX
from cosched.policies.reservation import admit

if TYPE_CHECKING:
    from cosched.engine.loop import Floats, Instant, Ints, IntTable, Jobs, Table


__all__ = [
    "lomarc_ended",
    "lomarc_init",
    "lomarc_pass",
    "lomarc_rates",
    "lomarc_report",
]


def lomarc_init(jobs: Jobs, capacity: int, p: LomarcParams) -> tuple[LomarcStore, int]:
    """The pass's arrays for ``jobs`` on ``p.nodes`` single-CPU nodes."""
    n = jobs.submit.shape[0]
    nodes = p.nodes
    # A tuple of numbers, as the profile rows the screens read: passed by value, so
    # the screens inlined into the pass count no references.
    model = (
        1.0 if p.hyperthreaded else 0.0, p.standard_cpu_factor, p.mem_slowdown,
        1.0 if p.check_match else 0.0, 1.0 if p.has_max_slowdown else 0.0, p.max_slowdown,
    )  # fmt: skip
    ji = np.zeros((10, n), np.int64)
    for j in range(1, n):
        ji[OFF, j] = ji[OFF, j - 1] + jobs.size[j - 1]
    ni = np.zeros((15, 2 * nodes), np.int64)
    for q in range(2):
        for nd in range(2 * nodes):
            ni[JOB + q, nd] = -1
    # Each job's last MEMO ride screens (host job + 1, 0 for none; stage; slowdown), by
    # position in its host list (looked up there first, then in every slot): a screen
    # is a pure function of the two jobs, so a hit is exact.
    memo_i = np.zeros((2, n, MEMO), np.int64)
    store = LomarcStore(
        jobs.table, model, p, p.formula, nodes, jobs.placed,
        ji, np.zeros((4, n + 1)), ni, np.zeros(7), np.zeros(TALLY, np.int64),
        np.empty((4, nodes + 1, 2 * nodes), np.int64),
        np.zeros((2, 4, nodes + 1), np.int64), memo_i, np.empty((n, MEMO)),
        np.full((3, nodes), -np.inf),
    )  # fmt: skip
    store.tally[N_EMPTY] = nodes
    return store, 0


def lomarc_ended(store: LomarcStore, state: int, jobs: Jobs, idx: int, now: float) -> int:
    """Job ``idx`` ended: off the running list and its nodes."""
    ji, ni, tally, jnodes, size = store.ji, store.ni, store.tally, store.jnodes, jobs.size
    nodes = store.nodes
    nrun = tally[N_RUN]
    w = 0
    for r in range(nrun):
        if ni[RUN, r] != idx:
            ni[RUN, w] = ni[RUN, r]
            w += 1
    tally[N_RUN] = w
    m = 0  # the nodes it leaves empty, in ni[AFF] (the rates' scratch)
    for q in range(ji[OFF, idx], ji[OFF, idx] + size[idx]):
        nd = jnodes[q]
        if ni[JOB + 0, nd] == idx:
            ni[JOB + 0, nd] = ni[JOB + 1, nd]
        ni[JOB + 1, nd] = -1
        ni[CNT, nd] -= 1
        if ni[CNT, nd] == 0:
            tally[N_EMPTY] += 1
            ni[AFF, m] = nd
            m += 1
        else:  # the job left on it has it to itself
            ji[SOLO, ni[JOB + 0, nd]] += 1
    if m and tally[FREE_OK]:
        _free_merge(ni, tally, m, nodes)
    _mark(idx, ji, ni, jnodes, tally, size[idx])
    return state


def _free_merge(ni: IntTable, tally: Ints, m: int, nodes: int) -> None:
    """The ``m`` nodes an end left empty (ni[AFF, :m]) merged into the empty nodes'
    list (ni[FREE], from tally[FREE_BASE]), kept in node order; the list is marked out
    of date instead when those nodes are not in node order."""
    for f in range(1, m):
        if ni[AFF, f] < ni[AFF, f - 1]:
            tally[FREE_OK] = 0
            return
    c = tally[N_EMPTY] - m  # the list's nodes before the end
    base = tally[FREE_BASE]
    if base + c + m > 2 * nodes:  # moved to the row's start to make room
        for i in range(c):
            ni[FREE, i] = ni[FREE, base + i]
        base = 0
        tally[FREE_BASE] = 0
    i, f, w = base + c - 1, m - 1, base + c + m - 1
    while f >= 0:  # from the back, each place taken by the larger node
        if i >= base and ni[FREE, i] > ni[AFF, f]:
            ni[FREE, w] = ni[FREE, i]
            i -= 1
        else:
            ni[FREE, w] = ni[AFF, f]
            f -= 1
        w -= 1


def _response_inputs(
    ji: IntTable, jf: Table, est: Floats, size: Ints, tally: Ints, acc_f: Floats, qlen: int,
    par: LomarcParams,
) -> tuple[tuple[float, float, float, float], float]:  # fmt: skip
    """The response heuristic's sums over the priority order: the cumulative run-time
    shares (jf[RTS]) and the cumulative sums of their bounded inverses (jf[INV]); the
    predicted arrivals (zero without the prediction) and the queue's work ahead (zero
    unless arrivals are counted from the queue)."""
    for p in range(qlen):
        x = est[ji[QORD, p]] * size[ji[QORD, p]] / par.nodes
        jf[RTS, p] = x if p == 0 else jf[RTS, p - 1] + x
    jf[INV, 0] = 0.0
    for p in range(qlen):
        x = 1.0 / max(jf[RTS, p], par.bound)
        jf[INV, p + 1] = x if p == 0 else jf[INV, p] + x
    work = jf[RTS, qlen - 1]
    future = (0.0, 0.0, 0.0, 0.0)
    if par.predict:
        future = expected_arrivals(
            tally[A_COUNT], acc_f[A_FIRST], acc_f[A_LAST], tally[A_SHORT], acc_f[A_SW],
            acc_f[A_LW], work,
        )  # fmt: skip
    return future, work if par.arrivals_queue else 0.0


def _order(
    queue: Ints, head: int, tail: int, fresh: int, now: float, submit: Floats, est: Floats,
    size: Ints, ji: IntTable, tally: Ints, acc_f: Floats, par: LomarcParams,
) -> int:  # fmt: skip
    """The arrival statistics of the jobs submitted now, ``queue[fresh:tail]``
    (``ArrivalStats.add``), and the priority order of the queued jobs, ``queue[head:
    tail]``, into ji[QORD] (``orders.priority_indices``: by level, short, medium or
    long, less a level per aging period waited; stable, NaN last; by counting). The
    queued jobs' units."""
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
    n_started = tally[N_STARTED]
    period = par.aging_time if par.has_aging else (
        acc_f[WAIT_SUM] / n_started if n_started else 0.0
    )  # fmt: skip
    invp = 1.0 / period if period > 0 else 0.0
    units = 0
    # Levels that do not fall along the submit order are the stable order itself: the
    # queue is copied as it is listed, and sorted only when a level falls.
    in_order = True
    prev = 0
    for p in range(tail - head):
        j = queue[head + p]
        units += size[j]
        e = est[j]
        lv = (1.0 if e > SHORT_MAX else 0.0) + (1.0 if e > MEDIUM_MAX else 0.0)
        x = (now - submit[j]) * invp
        # math.floor(x) is int(x) from 0 up: no call to the C library's floor per job.
        lv -= int(x) if x >= 0.0 else math.floor(x)
        if lv != lv:
            lb = 3  # NaN sorts last, as in a stable argsort
        elif lv <= 0.0:
            lb = 0
        else:
            lb = int(lv)
        ji[LEVEL, p] = lb
        ji[QORD, p] = j
        if lb < prev:
            in_order = False
        prev = lb
    if in_order:
        return units
    for lb in range(4):
        tally[NLEV + lb] = 0
    for p in range(tail - head):
        tally[NLEV + ji[LEVEL, p]] += 1
    tally[POS0 + 0] = 0
    for lb in range(1, 4):
        tally[POS0 + lb] = tally[POS0 + lb - 1] + tally[NLEV + lb - 1]
    for p in range(tail - head):
        lb = ji[LEVEL, p]
        ji[QORD, tally[POS0 + lb]] = queue[head + p]
        tally[POS0 + lb] += 1
    return units


def _finish(
    queue: Ints, head: int, tail: int, chosen: Ints, ndec: int, nov: int, qlen: int,
    now: float, submit: Floats, size: Ints, ji: IntTable, ni: IntTable, jnodes: Ints,
    tally: Ints, acc_f: Floats,
) -> int:  # fmt: skip
    """After a pass with starts: its marks cleared; the starts, in decision order, on
    their nodes, on the running list, their waits counted; the queue compacted. The
    queue's new tail."""
    for p in range(qlen):
        ji[TAKEN, p] = False
    for q in range(nov):
        ji[HAS_OV, ji[OV_LIST, q]] = False
    nrun = tally[N_RUN]
    for d in range(ndec):
        j = chosen[d]
        ni[RUN, nrun] = j
        nrun += 1
        for q in range(ji[OFF, j], ji[OFF, j] + size[j]):
            nd = jnodes[q]
            ni[ADDS, nd] = 0
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
        tally[N_STARTED] += 1
        acc_f[WAIT_SUM] += now - submit[j]
    tally[N_RUN] = nrun
    w = 0
    for p in range(head, tail):
        if not ji[STARTED, queue[p]]:
            queue[head + w] = queue[p]
            w += 1
    return head + w


def lomarc_pass(
    store: LomarcStore, state: int, jobs: Jobs, queue: Ints, chosen: Ints, at: Instant
) -> tuple[int, int, int, int, float]:
    """One LOMARC pass at ``at.now`` over ``queue[at.head:at.tail]`` (kept in submit
    order from ``head``), the jobs it starts into ``chosen`` in decision order
    (``PassState``)."""
    head, tail, fresh, now = at.head, at.tail, at.fresh, at.now
    submit, est, size, rate, est_end = jobs.submit, jobs.est, jobs.size, jobs.rate, jobs.est_end
    prof, model, nodes, par = store.prof, store.model, store.nodes, store.params
    ji, jf, ni, jnodes, tally = store.ji, store.jf, store.ni, store.jnodes, store.tally
    acc_f, occ, ge_idx, ge_n = store.acc_f, store.occ, store.ge_idx, store.ge_n
    memo_i, memo_sl = store.memo_i, store.memo_sl
    queued_units = _order(queue, head, tail, fresh, now, submit, est, size, ji, tally, acc_f, par)
    qlen = tail - head
    # The empty nodes (free, in node order) are listed at the pass's first start on
    # them (``listed``); until then only their number (kept by the starts and ends) is
    # read. ``fptr``: the empty nodes taken; ``ntaken``: the jobs; ``ndec``: the
    # decisions; ``nov``: the jobs whose ends this pass overrides.
    nfree = tally[N_EMPTY]
    listed = hosts_known = backfill = False
    fptr = ntaken = ndec = nov = nhosts = k = 0
    # The EASY head's shadow time and extra nodes, known or not (see below).
    shadow, extra, known, head_size, head_free = math.inf, 0, True, 0, 0
    tally[GEN] += 1  # no host list is current
    max_solo = -1
    last = qlen - 1
    future = (0.0, 0.0, 0.0, 0.0)
    ahead = 0.0
    if par.heuristic == RESPONSE and qlen > 0:
        future, ahead = _response_inputs(ji, jf, est, size, tally, acc_f, qlen, par)
    while k < qlen:
        if backfill and fptr == nfree and (not par.running or (hosts_known and max_solo == 0)):
            break  # no empty node and no host: nothing behind the head can start
        if ji[TAKEN, k]:
            k += 1
            continue
        j = ji[QORD, k]
        sj = size[j]
        ej = est[j]
        nleft = nfree - fptr
        may_pair = (not par.medium_long_only or ej > SHORT_MAX) and (
            not par.has_weak_spare or queued_units > (1.0 - par.weak_spare) * nleft
        )
        if sj <= nleft:  # _start_with_partner
            if backfill and not known:
                shadow, extra = _shadow_time(
                    ni, ji, jf, jnodes, size, tally, acc_f, nov, est_end, occ, nodes, now,
                    head_free, head_size,
                )  # fmt: skip
                known = True
            if backfill and not admit(now + ej, sj, shadow, extra)[0]:
                k += 1
                continue
            partner, ppos, psl = -1, -1, 1.0
            if par.search != SEARCH_NONE and may_pair:
                partner, ppos, psl = _queue_match(
                    j, k, qlen, ntaken, prof, est, size, ji, jf, tally, par, model, future, ahead
                )
            if backfill:
                ep = est[partner] if partner >= 0 else 0.0
                ok, paired, extra = _admit_start(now, ej, sj, partner >= 0, ep, psl, shadow, extra)
                if not paired:
                    partner, ppos, psl = -1, -1, 1.0
                if not ok:
                    k += 1
                    continue
            if not listed:  # the first empty nodes
                listed = True
                if not tally[FREE_OK]:
                    _list_free(ni, nodes)
                    tally[FREE_OK] = 1
                    tally[FREE_BASE] = 0
            before = ndec
            ndec, nov = _start(
                j, k, partner, ppos, psl, tally[FREE_BASE] + fptr, now, ndec, nov, est, size, ji,
                jf, ni, jnodes, tally, chosen,
            )  # fmt: skip
            fptr += sj
            ntaken += ndec - before
            queued_units -= sj + (size[partner] if partner >= 0 else 0)
            k += 1
            continue
        # _ride: running_match, on the hosts of the job's key (_host_key).
        rode = False
        gk = _host_key(prof[j, CLS], par)
        if par.running and may_pair and gk >= 0:
            if not hosts_known:
                hosts_known = True
                nhosts, max_solo = _list_hosts(ni, ji, est, tally[N_RUN], par.medium_long_only)
            if sj <= max_solo:
                pj = (prof[j, 0], prof[j, 1], prof[j, 2], prof[j, 3], prof[j, 4], prof[j, 5])
                best_h, best_sl, best_profit = -1, 0.0, 0.0
                rts_k, inv_after = jf[RTS, k], jf[INV, last + 1] - jf[INV, k + 1]
                if ge_n[1, gk, sj] != tally[GEN]:
                    _eligible_hosts(gk, sj, nhosts, prof, ni, ge_idx, ge_n, tally[GEN])
                for g in range(ge_n[0, gk, sj]):
                    h = ge_idx[gk, sj, g]
                    hj = ni[HOST, h]
                    m = g if g < MEMO else 0
                    if memo_i[0, j, m] != hj + 1:
                        # a host list that lost a host: the others shifted
                        for m in range(MEMO):
                            if memo_i[0, j, m] == hj + 1:
                                break
                        if m != g and g < MEMO and memo_i[0, j, m] == hj + 1:
                            m = _memo_swap(memo_i, memo_sl, j, m, g)
                    if memo_i[0, j, m] == hj + 1:  # a screen is a pure function of the jobs
                        stage, sl = memo_i[1, j, m], memo_sl[j, m]
                    else:
                        ph = (prof[hj, 0], prof[hj, 1], prof[hj, 2], prof[hj, 3], prof[hj, 4],
                              prof[hj, 5])  # fmt: skip
                        stage, sl = _screen(pj, ph, j > hj, model, par.formula)
                        if g < MEMO:
                            memo_i[0, j, g], memo_i[1, j, g], memo_sl[j, g] = hj + 1, stage, sl
                    if stage != 3:
                        continue
                    end_h = jf[OV, hj] if ji[HAS_OV, hj] else max(est_end[hj], now)
                    rem = max(end_h - now, 0.0) * (1.0 if ji[HAS_OV, hj] else rate[hj])
                    if backfill and not known:
                        shadow, extra = _shadow_time(
                            ni, ji, jf, jnodes, size, tally, acc_f, nov, est_end, occ, nodes,
                            now, head_free, head_size,
                        )  # fmt: skip
                        known = True
                    if backfill and end_h <= shadow:
                        th, tc = pair_ends(rem, ej, sl)
                        if shadow < max(max(end_h, now + th), now + tc):
                            continue
                    if par.heuristic == FIRST:
                        best_h, best_sl = h, sl
                        break
                    profit = _ride_profit(
                        rem, size[hj], ej, sj, sl, rts_k, inv_after, last - k, future, ahead, par
                    )
                    if profit > best_profit:
                        best_h, best_sl, best_profit = h, sl, profit
                if best_h >= 0:
                    ndec, nov = _ride(
                        j, k, best_h, best_sl, now, ndec, nov, est, size, rate, est_end, ji,
                        jf, ni, jnodes, tally, chosen,
                    )  # fmt: skip
                    ntaken += 1
                    queued_units -= sj
                    max_solo = 0
                    for h in range(nhosts):
                        max_solo = max(max_solo, ni[HOST_N, h])
                    rode = True
        if not rode and not backfill:
            # The EASY head: its shadow time and extra nodes (_shadow_time), worked out
            # when a later job first reads them. Only a start or a ride changes what
            # they depend on, and each reads them first, so they are the values of this
            # moment; a pass whose later jobs cannot act skips them.
            head_size, head_free, known, backfill = sj, nfree - fptr, False, True
        k += 1
    if ndec == 0:
        return state, head, tail, 0, math.nan
    tally[FREE_BASE] += fptr  # the empty nodes this pass took
    tail = _finish(
        queue, head, tail, chosen, ndec, nov, qlen, now, submit, size, ji, ni, jnodes, tally,
        acc_f,
    )  # fmt: skip
    return state, head, tail, ndec, math.nan


def lomarc_rates(
    store: LomarcStore, state: int, jobs: Jobs, turn: Ints, who: Ints, rates: Floats, at: Instant
) -> tuple[int, int]:
    """PairRates.update: the jobs on the nodes a start or an end touched, in index
    order, each at the inverse of its worst pair slowdown (those whose rate changes)."""
    # The store and the job columns are read in the first lines only: numba then counts
    # a reference to each array bound here, not to every array of the two named tuples
    # (an argument read further down, past the early return, is counted whole, on the
    # way in and out of each call).
    prof, model, formula, pairing = store.prof, store.model, store.formula, store.params.pairing
    jnodes, ji, ni, tally, size, rate = (
        store.jnodes, store.ji, store.ni, store.tally, jobs.size, jobs.rate
    )  # fmt: skip
    touched = at.ended + at.started  # the jobs that ended or started: turn[:touched]
    if not pairing or touched == 0:  # PSS: no rate model
        return state, 0
    # The jobs now on the nodes of the jobs that ended or started (each node once).
    naff = 0
    for f in range(touched):
        x = turn[f]
        for q in range(ji[OFF, x], ji[OFF, x] + size[x]):
            nd = jnodes[q]
            if not ni[TOUCHED, nd]:
                ni[TOUCHED, nd] = True
                for o in range(ni[CNT, nd]):
                    y = ni[JOB + o, nd]
                    if not ji[MARKED, y]:
                        ji[MARKED, y] = True
                        ni[AFF, naff] = y
                        naff += 1
    for f in range(touched):
        x = turn[f]
        for q in range(ji[OFF, x], ji[OFF, x] + size[x]):
            ni[TOUCHED, jnodes[q]] = False
    for a in range(1, naff):  # in index order (insertion sort: a few jobs)
        x = ni[AFF, a]
        b = a
        while b > 0 and ni[AFF, b - 1] > x:
            ni[AFF, b] = ni[AFF, b - 1]
            b -= 1
        ni[AFF, b] = x
    m = 0
    for a in range(naff):
        idx = ni[AFF, a]
        ji[MARKED, idx] = False
        worst = 1.0
        pi = (prof[idx, 0], prof[idx, 1], prof[idx, 2], prof[idx, 3], prof[idx, 4], prof[idx, 5])
        for q in range(ji[OFF, idx], ji[OFF, idx] + size[idx]):
            nd = jnodes[q]
            for o in range(ni[CNT, nd]):
                other = ni[JOB + o, nd]
                if other != idx:
                    po = (
                        prof[other, 0],
                        prof[other, 1],
                        prof[other, 2],
                        prof[other, 3],
                        prof[other, 4],
                        prof[other, 5],
                    )
                    sl = _pair_sl(pi, po, idx > other, model, formula)
                    if sl > worst:
                        worst = sl
        new = 1.0 / worst
        if new != rate[idx]:
            _mark(idx, ji, ni, jnodes, tally, size[idx])  # and its est_end
            who[m] = idx
            rates[m] = new
            m += 1
    return state, m


def lomarc_report(store: LomarcStore, state: int, out: Ints, fout: Floats) -> None:
    """The funnel, the pair counts and the arrival statistics, as the policy keeps them."""
    for i in range(FUNNEL):
        out[i] = store.tally[FUN + i]
    out[FUNNEL] = store.tally[PAIRS_Q]
    out[FUNNEL + 1] = store.tally[PAIRS_R]
    out[FUNNEL + 2] = store.tally[A_COUNT]
    out[FUNNEL + 3] = store.tally[A_SHORT]
    for i in range(FREPORTS):
        fout[i] = store.acc_f[i]
