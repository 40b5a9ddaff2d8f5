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
(:func:`~cosched.lomarc.search.pair_ends`) are those functions, compiled into the pass
(:attr:`CompiledPass.helpers <cosched.engine.compiled.CompiledPass.helpers>`: inlined,
so the pass makes no call per screen or per start). This module imports no numba: run
as plain Python (``NUMBA_DISABLE_JIT=1``), or loaded compiled ahead of time, the same
source gives the same schedules.

Per pass the work is kept to what a pass reads: the empty nodes are counted by the
starts and ends and listed only at the pass's first start on them; the head's shadow
time is a selection (:func:`_kth_smallest`), not a sort, over the nodes' emptying
times, read node by node from the node table.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from cosched.lomarc.matching import classes_match, expected_arrivals, response_impact, u_gain
from cosched.lomarc.search import pair_ends
from cosched.lomarc.slowdown import CLASS_CPU, CLASS_DISK, pair_value
from cosched.policies.orders import MEDIUM_MAX, SHORT_MAX

__all__ = [
    "FIRST",
    "RESPONSE",
    "SEARCH_ADJACENT",
    "SEARCH_NONE",
    "U1",
    "U2",
    "LomarcStore",
    "lomarc_ended",
    "lomarc_init",
    "lomarc_pass",
    "lomarc_rates",
    "lomarc_report",
]

# Heuristic codes (``iparams[5]``) and search codes (``iparams[3]``); the slowdown
# formula's code (``iparams[12]``) indexes FORMULAS.
U1, U2, RESPONSE, FIRST = 0, 1, 2, 3
SEARCH_QUEUE, SEARCH_ADJACENT, SEARCH_NONE = 0, 1, 2


# Columns of the profile table (one row per job) and entries of the model array.
CLS, CPU, NET, DISK, MEM, DRAW = range(6)
HT, STD_CF, MEM_SL, CHECK, HAS_MAX, MAX_SL = range(6)
# Ride screens remembered per job (the first MEMO positions of its host list).
MEMO = 8


def _cpu_factor(a: int, b: int, prof: Any, model: Any) -> float:
    """``SlowdownModel.cpu_factor``: the later job's draw on hyperthreaded CPUs."""
    if not model[HT]:
        return model[STD_CF]  # type: ignore[no-any-return]
    return prof[a, DRAW] if a > b else prof[b, DRAW]  # type: ignore[no-any-return]


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


def _put(j: int, nodes: Any, jnodes: Any, off: Any, add_job: Any, add_cnt: Any) -> None:
    """``PassState._place``'s nodes: job ``j`` goes on ``nodes`` in this pass."""
    for q in range(nodes.size):
        nd = nodes[q]
        jnodes[off[j] + q] = nd
        add_job[nd, add_cnt[nd]] = j
        add_cnt[nd] += 1


def _kth_smallest(a: Any, n: int, k: int) -> float:
    """The ``k``-th smallest of ``a[:n]`` (1-based; ``np.sort(a[:n])[k - 1]``, an order
    statistic, so exact for values without NaN), found by selection in place: ``a[:n]``
    is left permuted."""
    lo = 0
    hi = n - 1
    t = k - 1
    while lo < hi:
        # Hoare's partition of a[lo:hi + 1] around its middle element.
        pivot = a[(lo + hi) // 2]
        i = lo
        j = hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                x = a[i]
                a[i] = a[j]
                a[j] = x
                i += 1
                j -= 1
        # a[lo:j + 1] <= pivot <= a[i:hi + 1]; between them, elements equal to it.
        if t <= j:
            hi = j
        elif t >= i:
            lo = i
        else:
            return a[t]  # type: ignore[no-any-return]
    return a[t]  # type: ignore[no-any-return]


# Entries of the accumulators: the arrival statistics (ArrivalStats) and the waits.
A_FIRST, A_LAST, A_SW, A_LW, WAIT_SUM = range(5)
A_COUNT, A_SHORT, N_STARTED, N_RUN, N_EMPTY = range(5)
FUNNEL = 9  # Funnel's fields
REPORTS = FUNNEL + 2 + 2  # the funnel, queue and running pairs, arrival counts
FREPORTS = 4  # first, last, short work, long work


class LomarcStore(NamedTuple):
    """The pass's arrays (changed in place) and fixed parameters."""

    prof: Any  #: the profile table (Jobs.table): class, CPU, network, disk, memory, draw
    model: Any  #: the slowdown model's entries (HT ... MAX_SL)
    ip: Any  #: the policy's integer parameters (see lomarc.fast)
    fp: Any  #: its real parameters
    formula: str  #: the slowdown formula's reading
    nodes: int
    jnodes: Any  #: each job's nodes in placement order at off[job] (Jobs.placed)
    off: Any
    node_job: Any  #: the (up to two) jobs on each node
    node_cnt: Any
    run_list: Any  #: the running jobs, in start order
    is_started: Any
    acc_f: Any  #: A_FIRST ... WAIT_SUM
    acc_i: Any  #: A_COUNT ... N_EMPTY
    funnel: Any  #: Funnel's counters
    counts: Any  #: queue pairs, running pairs
    # Work arrays of a pass.
    qord: Any
    level: Any
    taken: Any
    ov: Any
    has_ov: Any
    ov_list: Any
    free: Any
    add_cnt: Any
    add_job: Any
    host_job: Any
    host_solo: Any
    host_n: Any
    ge_idx: Any
    ge_n: Any
    ge_ok: Any
    rts: Any
    inv: Any
    surv_pos: Any
    surv_sl: Any
    memo_h: Any
    memo_st: Any
    memo_sl: Any
    nlev: Any
    pos0: Any
    occ: Any
    node_mark: Any
    job_mark: Any
    aff: Any


def lomarc_init(jobs: Any, capacity: int, iparams: Any, fparams: Any) -> tuple[LomarcStore, int]:
    """The pass's arrays for ``jobs`` on ``iparams[13]`` single-CPU nodes."""
    n = jobs.submit.shape[0]
    nodes = iparams[13]
    model = np.array(
        [iparams[0], fparams[5], fparams[2], iparams[1], iparams[10], fparams[1]],
        dtype=np.float64,
    )
    formula = "printed" if iparams[12] == 1 else "overlap"
    off = np.zeros(n, np.int64)
    for j in range(1, n):
        off[j] = off[j - 1] + jobs.size[j - 1]
    store = LomarcStore(
        jobs.table, model, iparams, fparams, formula, nodes, jobs.placed, off,
        np.full((nodes, 2), -1, np.int64), np.zeros(nodes, np.int64),
        np.empty(2 * nodes, np.int64), np.zeros(n, np.bool_), np.zeros(5), np.zeros(5, np.int64),
        np.zeros(FUNNEL, np.int64), np.zeros(2, np.int64),
        np.empty(n, np.int64), np.empty(n, np.int64), np.zeros(n, np.bool_), np.zeros(n),
        np.zeros(n, np.bool_), np.empty(n, np.int64), np.empty(nodes, np.int64),
        np.zeros(nodes, np.int64), np.empty((nodes, 2), np.int64), np.empty(2 * nodes, np.int64),
        np.empty((2 * nodes, nodes), np.int64), np.empty(2 * nodes, np.int64),
        np.empty((4, nodes + 1, 2 * nodes), np.int64), np.zeros((4, nodes + 1), np.int64),
        np.zeros((4, nodes + 1), np.bool_), np.empty(n), np.empty(n + 1), np.empty(n, np.int64),
        np.empty(n),
        # Each job's last MEMO ride screens (host job, stage, slowdown), by position in
        # its host list (looked up there first, then in every slot): a screen is a pure
        # function of the two jobs, so a hit is exact.
        np.full((n, MEMO), -1, np.int64), np.empty((n, MEMO), np.int64), np.empty((n, MEMO)),
        np.zeros(4, np.int64), np.zeros(4, np.int64), np.empty(nodes), np.zeros(nodes, np.bool_),
        np.zeros(n, np.bool_),
        np.empty(2 * nodes, np.int64),
    )  # fmt: skip
    store.acc_i[N_EMPTY] = nodes
    return store, 0


def lomarc_ended(store: LomarcStore, state: int, jobs: Any, idx: int, now: float) -> int:
    """Job ``idx`` ended: off the running list and its nodes."""
    run_list, node_job, node_cnt = store.run_list, store.node_job, store.node_cnt
    acc_i, jnodes, off = store.acc_i, store.jnodes, store.off
    nrun = acc_i[N_RUN]
    w = 0
    for r in range(nrun):
        if run_list[r] != idx:
            run_list[w] = run_list[r]
            w += 1
    acc_i[N_RUN] = w
    for q in range(off[idx], off[idx] + jobs.size[idx]):
        nd = jnodes[q]
        if node_job[nd, 0] == idx:
            node_job[nd, 0] = node_job[nd, 1]
        node_job[nd, 1] = -1
        node_cnt[nd] -= 1
        if node_cnt[nd] == 0:
            acc_i[N_EMPTY] += 1
    return state


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
    submit, est, size, rate, est_end = jobs.submit, jobs.est, jobs.size, jobs.rate, jobs.est_end
    prof, model, formula, nodes = store.prof, store.model, store.formula, store.nodes
    iparams, fparams = store.ip, store.fp
    jnodes, off, node_job, node_cnt = store.jnodes, store.off, store.node_job, store.node_cnt
    run_list, acc_f, acc_i = store.run_list, store.acc_f, store.acc_i
    funnel, counts = store.funnel, store.counts
    qord, level, taken, ov, has_ov = store.qord, store.level, store.taken, store.ov, store.has_ov
    ov_list, free, add_cnt, add_job = store.ov_list, store.free, store.add_cnt, store.add_job
    host_job, host_solo, host_n = store.host_job, store.host_solo, store.host_n
    ge_idx, ge_n, ge_ok = store.ge_idx, store.ge_n, store.ge_ok
    rts, inv, surv_pos, surv_sl = store.rts, store.inv, store.surv_pos, store.surv_sl
    memo_h, memo_st, memo_sl = store.memo_h, store.memo_st, store.memo_sl
    nlev, pos0, occ = store.nlev, store.pos0, store.occ
    inf = math.inf
    ht = iparams[0] != 0
    check_match = iparams[1] != 0
    ml_only = iparams[2] != 0
    search_code = iparams[3]
    running = iparams[4] != 0
    heuristic = iparams[5]
    predict = iparams[7] != 0
    arrivals_queue = iparams[8] != 0
    has_weak = iparams[9] != 0
    has_aging = iparams[11] != 0
    weak_spare = fparams[0]
    aging = fparams[3]
    bound = fparams[4]
    first_match = heuristic == FIRST
    timed = heuristic == U1
    # Submissions (ArrivalStats.add).
    for p in range(fresh, tail):
        j = queue[p]
        if acc_i[A_COUNT] == 0:
            acc_f[A_FIRST] = submit[j]
        acc_i[A_COUNT] += 1
        acc_f[A_LAST] = submit[j]
        work = est[j] * size[j]
        if est[j] <= SHORT_MAX:
            acc_i[A_SHORT] += 1
            acc_f[A_SW] += work
        else:
            acc_f[A_LW] += work
    a_count, a_short = acc_i[A_COUNT], acc_i[A_SHORT]
    a_first, a_last, a_sw, a_lw = acc_f[A_FIRST], acc_f[A_LAST], acc_f[A_SW], acc_f[A_LW]
    total_wait, n_started, nrun = acc_f[WAIT_SUM], acc_i[N_STARTED], acc_i[N_RUN]
    queue = queue[head:tail]
    qn = tail - head
    # -- the pass: the priority order (orders.priority_indices) ----------------------
    period = aging if has_aging else (total_wait / n_started if n_started else 0.0)
    invp = 1.0 / period if period > 0 else 0.0
    nlev[:] = 0
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
    pos0[0] = 0
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
        # PassState. The empty nodes (free, in node order) are listed at the pass's
        # first start on them; until then only their number (kept by the starts and
        # ends) is read.
        nfree = acc_i[N_EMPTY]
        listed = False
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
                future = expected_arrivals(a_count, a_first, a_last, a_short, a_sw, a_lw, rts[last])
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
                if not listed:
                    listed = True
                    c = 0
                    for nd in range(nodes):
                        if node_cnt[nd] == 0:
                            free[c] = nd
                            c += 1
                _put(j, free[fptr : fptr + sj], jnodes, off, add_job, add_cnt)
                fptr += sj
                chosen[ndec] = j
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
                    chosen[ndec] = partner
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
                            if host_n[h] >= sj and (gk == 0 or prof[host_job[h], CLS] == gk - 1):
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
                        chosen[ndec] = j
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
                # The EASY head: its per-node shadow time (PassState.compute_shadow). A
                # node empties at the largest estimated end of its running jobs and of
                # this pass's starts on it; the shadow time is the (sj - fr)-th
                # smallest of those times (at least now) over the occupied nodes.
                nocc = 0
                for nd in range(nodes):
                    e = -inf
                    for q in range(node_cnt[nd]):
                        hj = node_job[nd, q]
                        e_job = ov[hj] if has_ov[hj] else max(est_end[hj], now)
                        if e_job > e:
                            e = e_job
                    for q in range(add_cnt[nd]):
                        e_job = ov[add_job[nd, q]]
                        if e_job > e:
                            e = e_job
                    if e > -inf:
                        occ[nocc] = max(e, now)
                        nocc += 1
                fr = nfree - fptr
                shadow = now if fr >= sj else _kth_smallest(occ, nocc, sj - fr)
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

    # -- the starts, in decision order: their nodes, the running list, the waits -----
    for d in range(ndec):
        j = chosen[d]
        run_list[nrun] = j
        nrun += 1
        for q in range(off[j], off[j] + size[j]):
            nd = jnodes[q]
            if node_cnt[nd] >= 2:
                raise RuntimeError("the LOMARC pass: a third job on a node")
            if node_cnt[nd] == 0:
                acc_i[N_EMPTY] -= 1
            node_job[nd, node_cnt[nd]] = j
            node_cnt[nd] += 1
        store.is_started[j] = True
        n_started += 1
        total_wait += now - submit[j]
    acc_f[WAIT_SUM] = total_wait
    acc_i[N_STARTED] = n_started
    acc_i[N_RUN] = nrun
    w = 0
    if ndec:
        for p in range(qn):
            if not store.is_started[queue[p]]:
                queue[w] = queue[p]
                w += 1
    else:
        w = qn
    return state, head, head + w, ndec, math.nan


def lomarc_rates(
    store: LomarcStore,
    state: int,
    jobs: Any,
    ended: Any,
    nended: int,
    chosen: Any,
    k: int,
    now: float,
    who: Any,
    rates: Any,
) -> tuple[int, int]:
    """PairRates.update: the jobs on the nodes a start or an end touched, in index
    order, each at the inverse of its worst pair slowdown (those whose rate changes)."""
    if store.ip[6] == 0 or (k == 0 and nended == 0):  # PSS: no rate model
        return state, 0
    prof, model, formula = store.prof, store.model, store.formula
    jnodes, off, size = store.jnodes, store.off, jobs.size
    node_job, node_cnt, node_mark = store.node_job, store.node_cnt, store.node_mark
    job_mark, aff = store.job_mark, store.aff
    for f in range(nended):
        x = ended[f]
        for q in range(off[x], off[x] + size[x]):
            node_mark[jnodes[q]] = True
    for d in range(k):
        x = chosen[d]
        for q in range(off[x], off[x] + size[x]):
            node_mark[jnodes[q]] = True
    naff = 0
    for nd in range(store.nodes):
        if node_mark[nd]:
            node_mark[nd] = False
            for q in range(node_cnt[nd]):
                x = node_job[nd, q]
                if not job_mark[x]:
                    job_mark[x] = True
                    aff[naff] = x
                    naff += 1
    for a in range(1, naff):  # in index order (insertion sort: a few jobs)
        x = aff[a]
        b = a
        while b > 0 and aff[b - 1] > x:
            aff[b] = aff[b - 1]
            b -= 1
        aff[b] = x
    m = 0
    for a in range(naff):
        idx = aff[a]
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
        if new != jobs.rate[idx]:
            who[m] = idx
            rates[m] = new
            m += 1
    return state, m


def lomarc_report(store: LomarcStore, state: int, out: Any, fout: Any) -> None:
    """The funnel, the pair counts and the arrival statistics, as the policy keeps them."""
    for i in range(FUNNEL):
        out[i] = store.funnel[i]
    out[FUNNEL] = store.counts[0]
    out[FUNNEL + 1] = store.counts[1]
    out[FUNNEL + 2] = store.acc_i[A_COUNT]
    out[FUNNEL + 3] = store.acc_i[A_SHORT]
    for i in range(FREPORTS):
        fout[i] = store.acc_f[i]
