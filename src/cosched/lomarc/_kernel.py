"""The built-in LOMARC policies' pass, compiled: :data:`LOMARC_PASS` on the engine's
event loop (:mod:`cosched.engine.loop`).

The pass itself (:func:`~cosched.lomarc._pass.lomarc_pass`) and its steps are in
:mod:`cosched.lomarc._pass`; this module holds the pass's store, its layout, the
screens, the EASY head's shadow time, the ends and the rates.

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

from cosched.lomarc.matching import classes_match
from cosched.lomarc.slowdown import pair_value

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


def _cpu_factor(pa: Any, pb: Any, a_later: bool, mt: Any) -> float:
    """``SlowdownModel.cpu_factor``: the later job's draw on hyperthreaded CPUs."""
    if not mt[HT]:
        return mt[STD_CF]  # type: ignore[no-any-return]
    return pa[DRAW] if a_later else pb[DRAW]  # type: ignore[no-any-return]


def _pair_sl(pa: Any, pb: Any, a_later: bool, mt: Any, formula: int) -> float:
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


def _screen(pa: Any, pb: Any, a_later: bool, mt: Any, formula: int) -> tuple[int, float]:
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


def _put(j: int, nodes: Any, jnodes: Any, ji: Any, ni: Any) -> None:
    """``PassState._place``'s nodes: job ``j`` goes on ``nodes`` in this pass."""
    for q in range(nodes.size):
        nd = nodes[q]
        jnodes[ji[OFF, j] + q] = nd
        ni[ADD + ni[ADDS, nd], nd] = j
        ni[ADDS, nd] += 1


def _kth_smallest(a: Any, row: int, n: int, k: int) -> float:
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


def _mark(x: int, ji: Any, ni: Any, jnodes: Any, tally: Any, n: int) -> None:
    """Job ``x``'s ``n`` nodes: their emptying times (LomarcStore.occ[EMPTIES]) are out of
    date until the next shadow time works them out again."""
    for q in range(ji[OFF, x], ji[OFF, x] + n):
        nd = jnodes[q]
        if not ni[DIRTY, nd]:
            ni[DIRTY, nd] = True
            ni[DIRTY_LIST, tally[N_DIRTY]] = nd
            tally[N_DIRTY] += 1


# The store keeps its per-job, per-node and counter arrays as rows of a few 2-D arrays,
# read in place (``ji[QORD, p]``): numba counts a reference to every array a pass is
# handed and to every one it names, on the way in and out of each of the loop's calls
# (a pass, an end, the rates), so that count, not the pass's work, is what separate
# arrays would cost. Rejected: one array per quantity (some forty), which spent about a
# third of the loop's time counting references on KTH-SP2.
# Rows of ``ji`` (int, one column per job): each job's first unit in Jobs.placed, the
# pass's priority order, each queued job's level, the jobs with an end overridden in
# this pass, the surviving partners' positions; flags: started, taken in this pass,
# end overridden in this pass, marked by the rates; each running job's nodes it has
# to itself (kept by the starts and the ends).
OFF, QORD, LEVEL, OV_LIST, SURV_POS, STARTED, TAKEN, HAS_OV, MARKED, SOLO = range(10)
# Rows of ``jf`` (real, one column per job and one more): the overridden ends, the
# queue's cumulative run-time shares and their inverses' sums, the partners' slowdowns.
OV, RTS, INV, SURV_SL = range(4)
# Rows of ``ni`` (int, 2 x nodes columns): jobs on each node, the pass's empty nodes,
# this pass's starts on each node, nodes a start or an end touched, the running jobs (in
# start order), the hosts of a ride and their unpartnered nodes' counts, the jobs the
# rates revisit; then the two jobs on each node (JOB, JOB + 1) and this pass's two
# starts on it (ADD, ADD + 1); last, the nodes whose emptying time is out of date (a
# flag per node, DIRTY, and their list, DIRTY_LIST), and a ride's nodes (RIDE).
CNT, FREE, ADDS, TOUCHED, RUN, HOST, HOST_N, AFF = range(8)
JOB, ADD = 8, 10
DIRTY, DIRTY_LIST, RIDE = 12, 13, 14
# Rows of ``occ`` (real, one column per node): each node's emptying time, the largest
# estimated end of its running jobs (-inf when empty; kept up to date by _shadow_time
# for the nodes _mark listed), the pass's overrides on each node (-inf where none),
# and the scratch the selection permutes.
EMPTIES, OVERRIDES, SCRATCH = range(3)
# Entries of ``acc_f``: the arrival statistics (ArrivalStats) and the waits; the last
# shadow time's selected emptying time and the shadow time (see _shadow_time).
A_FIRST, A_LAST, A_SW, A_LW, WAIT_SUM, SH_KTH, SH_TIME = range(7)
# Entries of ``tally``: arrival counts, jobs started, running, empty nodes; Funnel's
# counters (from FUN); queue and running pairs; the pass's jobs per level (NLEV) and
# each level's next position (POS0); the host lists' generation (GEN).
A_COUNT, A_SHORT, N_STARTED, N_RUN, N_EMPTY = range(5)
FUNNEL = 9  # Funnel's fields
FUN = 5
PAIRS_Q, PAIRS_R = FUN + FUNNEL, FUN + FUNNEL + 1
NLEV = PAIRS_R + 1
POS0 = NLEV + 4
GEN = POS0 + 4  # the host lists' generation (see LomarcStore.ge_n)
N_DIRTY = GEN + 1  # the nodes in ni[DIRTY_LIST]
# The last shadow time's inputs and results (see _shadow_time): whether it may be
# reused (worked out without overrides), its empty nodes and head's size, the occupied
# nodes listed in occ[SCRATCH] and the nodes that empty by the shadow time.
SH_OK, SH_FREE, SH_SIZE, SH_NOCC, SH_COUNT = range(N_DIRTY + 1, N_DIRTY + 6)
REPORTS = FUNNEL + 2 + 2  # the funnel, queue and running pairs, arrival counts
FREPORTS = 4  # first, last, short work, long work


def _shadow_time(
    ni: Any,
    ji: Any,
    jf: Any,
    jnodes: Any,
    size: Any,
    tally: Any,
    acc_f: Any,
    nov: int,
    est_end: Any,
    occ: Any,
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
    for d in range(tally[N_DIRTY]):
        nd = ni[DIRTY_LIST, d]
        ni[DIRTY, nd] = False
        e = -inf
        for q in range(ni[CNT, nd]):
            x = est_end[ni[JOB + q, nd]]
            if x > e:
                e = x
        if e != occ[EMPTIES, nd]:
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
    # The occupied nodes' times, and how many are below and at the last selection's
    # result: when the (sj - fr)-th falls among the latter, it is that time again.
    last = acc_f[SH_KTH]
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
    if fr < sj:
        k = sj - fr
        if not (below < k <= below + at):
            acc_f[SH_KTH] = _kth_smallest(occ, SCRATCH, nocc, k)
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


class LomarcStore(NamedTuple):
    """The pass's arrays (changed in place) and fixed parameters."""

    prof: Any  #: the profile table (Jobs.table): class, CPU, network, disk, memory, draw
    model: tuple[float, float, float, float, float, float]  #: the slowdown model (HT ... MAX_SL)
    ip: Any  #: the policy's integer parameters (see lomarc.fast)
    fp: Any  #: its real parameters
    formula: int  #: the slowdown formula's reading: its index in FORMULAS
    nodes: int
    jnodes: Any  #: each job's nodes in placement order from ji[OFF, job] (Jobs.placed)
    ji: Any  #: per-job integers and flags (OFF ... SOLO)
    jf: Any  #: per-job reals (OV ... SURV_SL)
    ni: Any  #: per-node integers and lists (CNT ... RIDE)
    acc_f: Any  #: A_FIRST ... SH_TIME
    tally: Any  #: A_COUNT ... SH_COUNT
    ge_idx: Any  #: the hosts with enough unpartnered nodes, by class key and size
    #: their number (row 0) and the generation they were listed in (row 1): a list is
    #: current while its generation is tally[GEN], which a pass and a ride advance
    #: (rather than clearing every list, a memset of the whole table each time)
    ge_n: Any
    memo_i: Any  #: each job's last ride screens: host job + 1 (row 0), stage (row 1)
    memo_sl: Any  #: and slowdown
    occ: Any  #: the nodes' emptying times, the pass's overrides, scratch (EMPTIES ...)


def lomarc_init(jobs: Any, capacity: int, iparams: Any, fparams: Any) -> tuple[LomarcStore, int]:
    """The pass's arrays for ``jobs`` on ``iparams[13]`` single-CPU nodes."""
    n = jobs.submit.shape[0]
    nodes = iparams[13]
    # A tuple of numbers, as the profile rows the screens read: passed by value, so
    # the screens inlined into the pass count no references.
    model = (
        float(iparams[0]), float(fparams[5]), float(fparams[2]), float(iparams[1]),
        float(iparams[10]), float(fparams[1]),
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
        jobs.table, model, iparams, fparams, iparams[12], nodes, jobs.placed,
        ji, np.zeros((4, n + 1)), ni, np.zeros(7), np.zeros(SH_COUNT + 1, np.int64),
        np.empty((4, nodes + 1, 2 * nodes), np.int64),
        np.zeros((2, 4, nodes + 1), np.int64), memo_i, np.empty((n, MEMO)),
        np.full((3, nodes), -np.inf),
    )  # fmt: skip
    store.tally[N_EMPTY] = nodes
    return store, 0


def lomarc_ended(store: LomarcStore, state: int, jobs: Any, idx: int, now: float) -> int:
    """Job ``idx`` ended: off the running list and its nodes."""
    ji, ni, tally, jnodes = store.ji, store.ni, store.tally, store.jnodes
    nrun = tally[N_RUN]
    w = 0
    for r in range(nrun):
        if ni[RUN, r] != idx:
            ni[RUN, w] = ni[RUN, r]
            w += 1
    tally[N_RUN] = w
    for q in range(ji[OFF, idx], ji[OFF, idx] + jobs.size[idx]):
        nd = jnodes[q]
        if ni[JOB + 0, nd] == idx:
            ni[JOB + 0, nd] = ni[JOB + 1, nd]
        ni[JOB + 1, nd] = -1
        ni[CNT, nd] -= 1
        if ni[CNT, nd] == 0:
            tally[N_EMPTY] += 1
        else:  # the job left on it has it to itself
            ji[SOLO, ni[JOB + 0, nd]] += 1
    _mark(idx, ji, ni, jnodes, tally, jobs.size[idx])
    return state


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
    jnodes, ji, ni, size, rate = store.jnodes, store.ji, store.ni, jobs.size, jobs.rate
    # The jobs now on the nodes of the jobs that ended or started (each node once).
    naff = 0
    for f in range(nended + k):
        x = ended[f] if f < nended else chosen[f - nended]
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
    for f in range(nended + k):
        x = ended[f] if f < nended else chosen[f - nended]
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
            _mark(idx, ji, ni, jnodes, store.tally, size[idx])  # and its est_end
            who[m] = idx
            rates[m] = new
            m += 1
    return state, m


def lomarc_report(store: LomarcStore, state: int, out: Any, fout: Any) -> None:
    """The funnel, the pair counts and the arrival statistics, as the policy keeps them."""
    for i in range(FUNNEL):
        out[i] = store.tally[FUN + i]
    out[FUNNEL] = store.tally[PAIRS_Q]
    out[FUNNEL + 1] = store.tally[PAIRS_R]
    out[FUNNEL + 2] = store.tally[A_COUNT]
    out[FUNNEL + 3] = store.tally[A_SHORT]
    for i in range(FREPORTS):
        fout[i] = store.acc_f[i]
