"""The built-in LOMARC policies' whole simulation as one loop over arrays.

:func:`lomarc_loop` does what the general engine (:mod:`cosched.engine.simulation`)
does with a built-in :class:`~cosched.lomarc.policies.Lomarc` variant and its
:class:`~cosched.lomarc.rates.PairRates`, step for step, so the schedules, placements,
Table 5 counters and engine counters are the same bit for bit (the differential tests
in ``tests/lomarc/test_fast.py`` hold it to that):

* one instant at a time: completions (the completion heap, stale entries of re-planned
  jobs included, since an instant at a stale entry's time runs a pass), submissions
  (the arrival statistics of the one-level prediction), one scheduling pass (LOMARC
  passes even with an empty queue), the starts applied in decision order (the mean
  wait sums in that order), then the new rates of the jobs on the nodes a start or an
  end touched, in index order;
* the pass as in :mod:`cosched.lomarc.policies` and :mod:`cosched.lomarc.search`: the
  ``priority`` order, starts with a partner from the queue, rides on running jobs, the
  EASY head's per-node shadow time and backfilling with the same matching. Where the
  Python pass visits only the backfill candidates that could act (a vectorised
  superset), this loop visits every one; a visit that cannot act changes nothing.

The rules that are plain arithmetic are not written here a second time: the pair
slowdown (:func:`~cosched.lomarc.slowdown.pair_value` over
:func:`~cosched.lomarc.slowdown.shared_cost`), the class rule
(:func:`~cosched.lomarc.matching.classes_match`), the heuristics
(:func:`~cosched.lomarc.matching.u_gain`,
:func:`~cosched.lomarc.matching.response_impact`), the arrival prediction
(:func:`~cosched.lomarc.matching.expected_arrivals`) and the pair run times
(:func:`~cosched.lomarc.search.pair_ends`) are those functions, compiled. With
``NUMBA_DISABLE_JIT=1`` everything runs as plain Python on the same arrays.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numba import njit

from cosched.lomarc import matching, search, slowdown
from cosched.lomarc.slowdown import CLASS_CPU, CLASS_DISK
from cosched.policies.orders import MEDIUM_MAX, SHORT_MAX

__all__ = ["FIRST", "RESPONSE", "SEARCH_ADJACENT", "SEARCH_NONE", "U1", "U2", "lomarc_loop"]

F = TypeVar("F", bound=Callable[..., Any])

# Heuristic codes (``iparams[5]``) and search codes (``iparams[3]``).
U1, U2, RESPONSE, FIRST = 0, 1, 2, 3
SEARCH_QUEUE, SEARCH_ADJACENT, SEARCH_NONE = 0, 1, 2


def _jit(f: F, **calls: Any) -> F:
    """``f`` compiled; ``calls`` rebinds the names of the functions it calls to their
    compiled forms (a compiled function cannot call a plain one)."""
    if calls:
        f = types.FunctionType(  # type: ignore[assignment]
            f.__code__, {**f.__globals__, **calls}, f.__name__, f.__defaults__, f.__closure__
        )
    return njit(cache=True, nogil=True)(f)  # type: ignore[return-value]


shared_cost = _jit(slowdown.shared_cost)
pair_value = _jit(slowdown.pair_value, shared_cost=shared_cost)
classes_match = _jit(matching.classes_match)
u_gain = _jit(matching.u_gain)
response_impact = _jit(matching.response_impact)
expected_arrivals = _jit(matching.expected_arrivals)
pair_ends = _jit(search.pair_ends)


# Columns of the profile table (one row per job) and entries of the model array.
CLS, CPU, NET, DISK, MEM, DRAW = range(6)
HT, STD_CF, MEM_SL, CHECK, HAS_MAX, MAX_SL = range(6)
# Ride screens remembered per job (the first MEMO positions of its host list).
MEMO = 8


@njit(cache=True, nogil=True)
def _cpu_factor(a: int, b: int, prof: Any, model: Any) -> float:
    """``SlowdownModel.cpu_factor``: the later job's draw on hyperthreaded CPUs."""
    if not model[HT]:
        return model[STD_CF]  # type: ignore[no-any-return]
    return prof[a, DRAW] if a > b else prof[b, DRAW]  # type: ignore[no-any-return]


@njit(cache=True, nogil=True)
def _pair_sl(a: int, b: int, prof: Any, model: Any, formula: str) -> float:
    """``SlowdownModel.slowdown`` of jobs ``a`` and ``b``."""
    return pair_value(
        _cpu_factor(a, b, prof, model),
        min(prof[a, CPU], prof[b, CPU]),
        min(prof[a, NET], prof[b, NET]) + min(prof[a, DISK], prof[b, DISK]),
        prof[a, MEM] + prof[b, MEM] > 1.0,
        model[MEM_SL],
        formula,
    )


@njit(cache=True, nogil=True)
def _screen(a: int, b: int, prof: Any, model: Any, formula: str) -> tuple[int, float]:
    """``MatchRules.screen``: the stage the pair fails at (0 memory, 1 classes, 2
    slowdown; 3 passes) and its slowdown."""
    if model[CHECK]:
        if prof[a, MEM] + prof[b, MEM] > 1.0:
            return 0, 0.0
        cf = _cpu_factor(a, b, prof, model)
        if not classes_match(prof[a, CLS], prof[b, CLS], cf, model[HT] != 0.0):
            return 1, 0.0
    sl = _pair_sl(a, b, prof, model, formula)
    if model[HAS_MAX] and sl > model[MAX_SL]:
        return 2, sl
    return 3, sl


@njit(cache=True, nogil=True)
def _put(j: int, nodes: Any, jnodes: Any, off: Any, add_job: Any, add_cnt: Any) -> None:
    """``PassState._place``'s nodes: job ``j`` goes on ``nodes`` in this pass."""
    for q in range(nodes.size):
        nd = nodes[q]
        jnodes[off[j] + q] = nd
        add_job[nd, add_cnt[nd]] = j
        add_cnt[nd] += 1


@njit(cache=True, nogil=True)
def _heap_push(
    ht_: Any, hs: Any, hi: Any, hv: Any, hn: int, t: float, s: int, i: int, v: int
) -> int:
    """Push ``(t, s, i, v)`` on the heap of ``hn`` entries (ordered by ``(t, s)``)."""
    c = hn
    while c > 0:
        p = (c - 1) >> 1
        if ht_[p] < t or (ht_[p] == t and hs[p] < s):
            break
        ht_[c], hs[c], hi[c], hv[c] = ht_[p], hs[p], hi[p], hv[p]
        c = p
    ht_[c], hs[c], hi[c], hv[c] = t, s, i, v
    return hn + 1


@njit(cache=True, nogil=True)
def _heap_pop(ht_: Any, hs: Any, hi: Any, hv: Any, hn: int) -> int:
    """Drop the smallest entry; returns the new size."""
    hn -= 1
    t, s, i, v = ht_[hn], hs[hn], hi[hn], hv[hn]
    c = 0
    while True:
        m = 2 * c + 1
        if m >= hn:
            break
        if m + 1 < hn and (ht_[m + 1] < ht_[m] or (ht_[m + 1] == ht_[m] and hs[m + 1] < hs[m])):
            m += 1
        if t < ht_[m] or (t == ht_[m] and s < hs[m]):
            break
        ht_[c], hs[c], hi[c], hv[c] = ht_[m], hs[m], hi[m], hv[m]
        c = m
    if hn > 0:
        ht_[c], hs[c], hi[c], hv[c] = t, s, i, v
    return hn


@njit(cache=True, nogil=True)
def lomarc_loop(
    submit: Any,
    run: Any,
    est: Any,
    size: Any,
    prof: Any,
    nodes: int,
    iparams: Any,
    fparams: Any,
    formula: str,
    start: Any,
    end: Any,
    jnodes: Any,
    off: Any,
    started_order: Any,
    funnel: Any,
    counts: Any,
    stats: Any,
    arrivals_f: Any,
    arrivals_i: Any,
) -> None:
    """Simulate a built-in LOMARC variant on ``nodes`` single-CPU nodes.

    Args:
        submit, run, est, size: per-job columns in submit order (``est``: what the
            scheduler believes; ``size`` in nodes).
        prof: the ``lomarc_*`` profile columns, one row per job: class, CPU, network,
            disk, memory, the CPU-pairing draw.
        iparams: hyperthreaded, check_match, medium_long_only, search code, running,
            heuristic code, pairing (a rate model runs), predict, arrivals ``queue``,
            weak_spare given, max_slowdown given, aging_time given.
        fparams: weak_spare, max_slowdown, mem_slowdown, aging_time, bound, the
            standard CPU's overlap factor.
        formula: the slowdown formula's reading.
        start, end: outputs per job.
        jnodes: output, each job's nodes in placement order at ``off[job]``.
        started_order: output, the jobs in start order.
        funnel: output, the Table 5 counters in :class:`Funnel`'s field order.
        counts: output, queue pairs and running pairs.
        stats: output, passes, decisions, rate changes.
        arrivals_f, arrivals_i: output, the arrival statistics (first, last, short
            work, long work; count, short count).
    """
    n = submit.size
    inf = math.inf
    ht = iparams[0] != 0
    check_match = iparams[1] != 0
    ml_only = iparams[2] != 0
    search_code = iparams[3]
    running = iparams[4] != 0
    heuristic = iparams[5]
    pairing = iparams[6] != 0
    predict = iparams[7] != 0
    arrivals_queue = iparams[8] != 0
    has_weak = iparams[9] != 0
    has_max = iparams[10] != 0
    has_aging = iparams[11] != 0
    weak_spare = fparams[0]
    max_sl = fparams[1]
    mem_sl = fparams[2]
    aging = fparams[3]
    bound = fparams[4]
    std_cf = fparams[5]
    first_match = heuristic == FIRST
    model = np.array([ht, std_cf, mem_sl, check_match, has_max, max_sl], dtype=np.float64)
    timed = heuristic == U1
    # Engine state.
    node_job = np.full((nodes, 2), -1, np.int64)
    node_cnt = np.zeros(nodes, np.int64)
    run_list = np.empty(2 * nodes, np.int64)
    nrun = 0
    rate = np.ones(n)
    done = np.zeros(n)
    upd = np.zeros(n)
    ver = np.zeros(n, np.int64)
    est_end = np.full(n, np.nan)
    is_started = np.zeros(n, np.bool_)
    cap = n + 16
    h_t = np.empty(cap)
    h_s = np.empty(cap, np.int64)
    h_i = np.empty(cap, np.int64)
    h_v = np.empty(cap, np.int64)
    hn = 0
    seq = 0
    queue = np.empty(n, np.int64)
    qn = 0
    nxt = 0
    total_wait = 0.0
    n_started = 0
    a_count, a_short = 0, 0
    a_first, a_last, a_sw, a_lw = 0.0, 0.0, 0.0, 0.0
    # Work arrays of a pass.
    qord = np.empty(n, np.int64)
    level = np.empty(n, np.int64)
    taken = np.zeros(n, np.bool_)
    ov = np.zeros(n)
    has_ov = np.zeros(n, np.bool_)
    ov_list = np.empty(n, np.int64)
    free = np.empty(nodes, np.int64)
    add_cnt = np.zeros(nodes, np.int64)
    add_job = np.empty((nodes, 2), np.int64)
    dec = np.empty(n, np.int64)
    host_job = np.empty(2 * nodes, np.int64)
    host_solo = np.empty((2 * nodes, nodes), np.int64)
    host_n = np.empty(2 * nodes, np.int64)
    ge_idx = np.empty((4, nodes + 1, 2 * nodes), np.int64)
    ge_n = np.zeros((4, nodes + 1), np.int64)
    ge_ok = np.zeros((4, nodes + 1), np.bool_)
    rts = np.empty(n)
    inv = np.empty(n + 1)
    surv_pos = np.empty(n, np.int64)
    # Each job's last MEMO ride screens (host job, stage, slowdown), by position in
    # its host list (looked up there first, then in every slot): a screen is a pure
    # function of the two jobs, so a hit is exact.
    memo_h = np.full((n, MEMO), -1, np.int64)
    memo_st = np.empty((n, MEMO), np.int64)
    memo_sl = np.empty((n, MEMO))
    surv_sl = np.empty(n)
    fin = np.empty(2 * nodes, np.int64)
    empty_at = np.empty(nodes)
    occ = np.empty(nodes)
    node_mark = np.zeros(nodes, np.bool_)
    job_mark = np.zeros(n, np.bool_)
    aff = np.empty(2 * nodes, np.int64)
    n_out = 0
    while True:
        now = submit[nxt] if nxt < n else inf
        if hn > 0 and h_t[0] < now:
            now = h_t[0]
        if now == inf:
            break
        # Completions.
        nfin = 0
        while hn > 0 and h_t[0] <= now:
            idx, v = h_i[0], h_v[0]
            hn = _heap_pop(h_t, h_s, h_i, h_v, hn)
            if v != ver[idx]:
                continue
            w = 0
            for r in range(nrun):
                if run_list[r] != idx:
                    run_list[w] = run_list[r]
                    w += 1
            nrun = w
            for q in range(off[idx], off[idx] + size[idx]):
                nd = jnodes[q]
                if node_job[nd, 0] == idx:
                    node_job[nd, 0] = node_job[nd, 1]
                node_job[nd, 1] = -1
                node_cnt[nd] -= 1
            end[idx] = now
            fin[nfin] = idx
            nfin += 1
        # Submissions (ArrivalStats.add).
        while nxt < n and submit[nxt] <= now:
            queue[qn] = nxt
            qn += 1
            if a_count == 0:
                a_first = submit[nxt]
            a_count += 1
            a_last = submit[nxt]
            work = est[nxt] * size[nxt]
            if est[nxt] <= SHORT_MAX:
                a_short += 1
                a_sw += work
            else:
                a_lw += work
            nxt += 1
        stats[0] += 1
        # -- the pass: the priority order (orders.priority_indices) ----------------------
        period = aging if has_aging else (total_wait / n_started if n_started else 0.0)
        invp = 1.0 / period if period > 0 else 0.0
        nlev = np.zeros(4, np.int64)
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
            level[p] = lb
            nlev[lb] += 1
        pos0 = np.zeros(4, np.int64)
        for lb in range(1, 4):
            pos0[lb] = pos0[lb - 1] + nlev[lb - 1]
        for p in range(qn):
            lb = level[p]
            qord[pos0[lb]] = queue[p]
            pos0[lb] += 1
        qlen = qn
        ndec = 0
        nov = 0
        if qlen > 0:
            # PassState.
            nfree = 0
            for nd in range(nodes):
                if node_cnt[nd] == 0:
                    free[nfree] = nd
                    nfree += 1
            fptr = 0
            queued_units = 0
            for p in range(qlen):
                queued_units += size[qord[p]]
            ntaken = 0
            shadow = inf
            extra = 0
            hosts_known = False
            ge_ok[:, :] = False
            nhosts = 0
            max_solo = -1
            last = qlen - 1
            future = (0.0, 0.0, 0.0, 0.0)
            ahead = 0.0
            if heuristic == RESPONSE:
                for p in range(qlen):
                    x = est[qord[p]] * size[qord[p]] / nodes
                    rts[p] = x if p == 0 else rts[p - 1] + x
                inv[0] = 0.0
                for p in range(qlen):
                    x = 1.0 / max(rts[p], bound)
                    inv[p + 1] = x if p == 0 else inv[p] + x
                if predict:
                    future = expected_arrivals(
                        a_count, a_first, a_last, a_short, a_sw, a_lw, rts[last]
                    )
                if arrivals_queue:
                    ahead = rts[last]
            backfill = False
            k = 0
            while k < qlen:
                if backfill and fptr == nfree and (not running or (hosts_known and max_solo == 0)):
                    break  # no empty node and no host: nothing behind the head can start
                if taken[k]:
                    k += 1
                    continue
                j = qord[k]
                sj = size[j]
                ej = est[j]
                nleft = nfree - fptr
                may_pair = (not ml_only or ej > SHORT_MAX) and (
                    not has_weak or queued_units > (1.0 - weak_spare) * nleft
                )
                if sj <= nleft:
                    # _start_with_partner
                    if backfill and not (now + ej <= shadow or sj <= extra):
                        k += 1
                        continue
                    partner = -1
                    ppos = -1
                    psl = 1.0
                    if search_code != SEARCH_NONE and may_pair:
                        # queue_match
                        funnel[0] += 1
                        funnel[1] += qlen - ntaken
                        nsurv = 0
                        for p in range(k + 1, qlen):
                            if taken[p]:
                                continue
                            b = qord[p]
                            if not ml_only or est[b] > SHORT_MAX:
                                funnel[2] += 1
                                if size[b] <= sj:
                                    funnel[3] += 1
                                    stage, sl = _screen(j, b, prof, model, formula)
                                    if stage >= 1:
                                        funnel[4] += 1
                                    if stage >= 2:
                                        funnel[5] += 1
                                    if stage == 3:
                                        funnel[6] += 1
                                        surv_pos[nsurv] = p
                                        surv_sl[nsurv] = sl
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
                                    p = surv_pos[m]
                                    b = qord[p]
                                    if heuristic == RESPONSE:
                                        profit = response_impact(
                                            ej, sj, est[b], size[b], surv_sl[m], nodes,
                                            max(rts[k], bound), rts[p], inv[p] - inv[k + 1],
                                            p - k - 1, inv[last + 1] - inv[p + 1], last - p,
                                            future, bound, ahead,
                                        )  # fmt: skip
                                    else:
                                        profit = u_gain(sj, ej, size[b], est[b], surv_sl[m], timed)
                                    if profit > best:
                                        choice, best = m, profit
                            if choice >= 0:
                                funnel[7] += 1
                                funnel[8] += choice + 1
                                ppos = surv_pos[choice]
                                partner = qord[ppos]
                                psl = surv_sl[choice]
                    if backfill:
                        if partner < 0:
                            e_end = now + ej
                        else:
                            pe = pair_ends(ej, est[partner], psl)
                            e_end = now + max(pe[0], pe[1])
                        if not (e_end <= shadow or sj <= extra) and partner >= 0:
                            partner, ppos, psl = -1, -1, 1.0
                            e_end = now + ej
                        if not (e_end <= shadow or sj <= extra):
                            k += 1
                            continue
                        if e_end > shadow:
                            extra -= sj
                    # start: the first empty nodes
                    _put(j, free[fptr : fptr + sj], jnodes, off, add_job, add_cnt)
                    fptr += sj
                    dec[ndec] = j
                    ndec += 1
                    taken[k] = True
                    ntaken += 1
                    queued_units -= sj
                    if not has_ov[j]:
                        has_ov[j] = True
                        ov_list[nov] = j
                        nov += 1
                    ov[j] = now + ej
                    if partner >= 0:
                        sp = size[partner]
                        src = jnodes[off[j] : off[j] + sp]
                        _put(partner, src, jnodes, off, add_job, add_cnt)
                        dec[ndec] = partner
                        ndec += 1
                        taken[ppos] = True
                        ntaken += 1
                        queued_units -= sp
                        th, tp = pair_ends(ej, est[partner], psl)
                        ov[j] = now + th
                        has_ov[partner] = True
                        ov_list[nov] = partner
                        nov += 1
                        ov[partner] = now + tp
                        counts[0] += 1
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
                        max_solo = 0
                        for r in range(nrun):
                            hj = run_list[r]
                            if ml_only and not est[hj] > SHORT_MAX:
                                continue
                            c = 0
                            for q in range(off[hj], off[hj] + size[hj]):
                                nd = jnodes[q]
                                if node_cnt[nd] + add_cnt[nd] == 1:
                                    host_solo[nhosts, c] = nd
                                    c += 1
                            if c > 0:
                                host_job[nhosts] = hj
                                host_n[nhosts] = c
                                nhosts += 1
                                if c > max_solo:
                                    max_solo = c
                    if sj <= max_solo:
                        best_h = -1
                        best_sl = 0.0
                        best_profit = 0.0
                        if not ge_ok[gk, sj]:
                            # The hosts with at least sj unpartnered nodes (of class
                            # gk - 1 if gk > 0), in order, kept until a ride changes a
                            # host's count.
                            c = 0
                            for h in range(nhosts):
                                if host_n[h] >= sj and (
                                    gk == 0 or prof[host_job[h], CLS] == gk - 1
                                ):
                                    ge_idx[gk, sj, c] = h
                                    c += 1
                            ge_n[gk, sj] = c
                            ge_ok[gk, sj] = True
                        for g in range(ge_n[gk, sj]):
                            h = ge_idx[gk, sj, g]
                            hj = host_job[h]
                            m = g if g < MEMO else 0
                            if memo_h[j, m] != hj:
                                # a host list that lost a host: the others shifted
                                for m in range(MEMO):
                                    if memo_h[j, m] == hj:
                                        break
                            if memo_h[j, m] == hj:
                                stage, sl = memo_st[j, m], memo_sl[j, m]
                            else:
                                stage, sl = _screen(j, hj, prof, model, formula)
                                if g < MEMO:
                                    memo_h[j, g] = hj
                                    memo_st[j, g] = stage
                                    memo_sl[j, g] = sl
                            if stage != 3:
                                continue
                            end_h = ov[hj] if has_ov[hj] else max(est_end[hj], now)
                            rem = max(end_h - now, 0.0) * (1.0 if has_ov[hj] else rate[hj])
                            if backfill and end_h <= shadow:
                                th, tc = pair_ends(rem, ej, sl)
                                if shadow < max(max(end_h, now + th), now + tc):
                                    continue
                            if first_match:
                                best_h, best_sl = h, sl
                                break
                            if heuristic == RESPONSE:
                                profit = response_impact(
                                    rem, size[hj], ej, sj, sl, nodes, max(rem, bound),
                                    rts[k], 0.0, 0, inv[last + 1] - inv[k + 1], last - k,
                                    future, bound, ahead,
                                )  # fmt: skip
                            else:
                                profit = u_gain(size[hj], rem, sj, ej, sl, timed)
                            if profit > best_profit:
                                best_h, best_sl, best_profit = h, sl, profit
                        if best_h >= 0:
                            # PassState.ride
                            hj = host_job[best_h]
                            end_h = ov[hj] if has_ov[hj] else max(est_end[hj], now)
                            rem = max(end_h - now, 0.0) * (1.0 if has_ov[hj] else rate[hj])
                            th, tc = pair_ends(rem, ej, best_sl)
                            new_h = max(end_h, now + th)
                            src = host_solo[best_h, :sj]
                            _put(j, src, jnodes, off, add_job, add_cnt)
                            dec[ndec] = j
                            ndec += 1
                            taken[k] = True
                            ntaken += 1
                            queued_units -= sj
                            for x in (hj, j):
                                if not has_ov[x]:
                                    has_ov[x] = True
                                    ov_list[nov] = x
                                    nov += 1
                            ov[hj] = new_h
                            ov[j] = now + tc
                            c = host_n[best_h]
                            for q in range(sj, c):
                                host_solo[best_h, q - sj] = host_solo[best_h, q]
                            host_n[best_h] = c - sj
                            ge_ok[:, :] = False
                            max_solo = 0
                            for h in range(nhosts):
                                max_solo = max(max_solo, host_n[h])
                            counts[1] += 1
                            rode = True
                if not rode and not backfill:
                    # The EASY head: its per-node shadow time (PassState.compute_shadow).
                    empty_at[:] = -inf
                    for r in range(nrun):
                        hj = run_list[r]
                        e = ov[hj] if has_ov[hj] else max(est_end[hj], now)
                        for q in range(off[hj], off[hj] + size[hj]):
                            nd = jnodes[q]
                            if e > empty_at[nd]:
                                empty_at[nd] = e
                    for nd in range(nodes):
                        for q in range(add_cnt[nd]):
                            e = ov[add_job[nd, q]]
                            if e > empty_at[nd]:
                                empty_at[nd] = e
                    nocc = 0
                    for nd in range(nodes):
                        if empty_at[nd] > -inf:
                            occ[nocc] = max(empty_at[nd], now)
                            nocc += 1
                    fr = nfree - fptr
                    if fr >= sj:
                        shadow = now
                    else:
                        srt = np.sort(occ[:nocc])
                        shadow = srt[sj - fr - 1]
                    c = 0
                    for q in range(nocc):
                        if occ[q] <= shadow:
                            c += 1
                    extra = fr + c - sj
                    backfill = True
                k += 1
            for p in range(qlen):
                taken[p] = False
            for q in range(nov):
                has_ov[ov_list[q]] = False
            if ndec:
                add_cnt[:] = 0
        # -- the engine applies the starts, in decision order ----------------------------
        for d in range(ndec):
            j = dec[d]
            run_list[nrun] = j
            nrun += 1
            for q in range(off[j], off[j] + size[j]):
                nd = jnodes[q]
                if node_cnt[nd] >= 2:
                    raise RuntimeError("lomarc_loop: a third job on a node")
                node_job[nd, node_cnt[nd]] = j
                node_cnt[nd] += 1
            is_started[j] = True
            start[j] = now
            upd[j] = now
            n_started += 1
            total_wait += now - submit[j]
            seq += 1
            if hn == h_t.size:
                h_t, h_s = np.concatenate((h_t, h_t)), np.concatenate((h_s, h_s))
                h_i, h_v = np.concatenate((h_i, h_i)), np.concatenate((h_v, h_v))
            hn = _heap_push(h_t, h_s, h_i, h_v, hn, now + run[j], seq, j, 0)
            est_end[j] = now + est[j]
            started_order[n_out] = j
            n_out += 1
        if ndec:
            w = 0
            for p in range(qn):
                if not is_started[queue[p]]:
                    queue[w] = queue[p]
                    w += 1
            qn = w
        stats[1] += ndec
        # -- PairRates.update: the jobs on the nodes a start or an end touched ----------
        if pairing and (ndec or nfin):
            for f in range(nfin):
                x = fin[f]
                for q in range(off[x], off[x] + size[x]):
                    node_mark[jnodes[q]] = True
            for d in range(ndec):
                x = dec[d]
                for q in range(off[x], off[x] + size[x]):
                    node_mark[jnodes[q]] = True
            naff = 0
            for nd in range(nodes):
                if node_mark[nd]:
                    node_mark[nd] = False
                    for q in range(node_cnt[nd]):
                        x = node_job[nd, q]
                        if not job_mark[x]:
                            job_mark[x] = True
                            aff[naff] = x
                            naff += 1
            affected = np.sort(aff[:naff])
            for a in range(naff):
                idx = affected[a]
                job_mark[idx] = False
                worst = 1.0
                for q in range(off[idx], off[idx] + size[idx]):
                    nd = jnodes[q]
                    for o in range(node_cnt[nd]):
                        other = node_job[nd, o]
                        if other != idx:
                            sl = _pair_sl(idx, other, prof, model, formula)
                            if sl > worst:
                                worst = sl
                new = 1.0 / worst
                old = rate[idx]
                if new == old:
                    continue
                # Simulation.set_rate
                done[idx] += (now - upd[idx]) * old
                upd[idx] = now
                rate[idx] = new
                ver[idx] += 1
                seq += 1
                remaining = max(run[idx] - done[idx], 0.0)
                if hn == h_t.size:
                    h_t, h_s = np.concatenate((h_t, h_t)), np.concatenate((h_s, h_s))
                    h_i, h_v = np.concatenate((h_i, h_i)), np.concatenate((h_v, h_v))
                hn = _heap_push(h_t, h_s, h_i, h_v, hn, now + remaining / new, seq, idx, ver[idx])
                est_left = max(est[idx] - done[idx], 0.0)
                est_end[idx] = now + est_left / new
                stats[2] += 1
    arrivals_f[0] = a_first
    arrivals_f[1] = a_last
    arrivals_f[2] = a_sw
    arrivals_f[3] = a_lw
    arrivals_i[0] = a_count
    arrivals_i[1] = a_short
