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
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

import numpy as np

from cosched.lomarc.matching import classes_match, expected_arrivals, response_impact, u_gain
from cosched.lomarc.search import pair_ends
from cosched.lomarc.slowdown import CLASS_CPU, CLASS_DISK, pair_value
from cosched.policies.orders import MEDIUM_MAX, SHORT_MAX
from cosched.policies.reservation import admit

if TYPE_CHECKING:
    from cosched.engine.loop import Floats, Instant, Ints, IntTable, Jobs, Table

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

# Heuristic codes (``LomarcParams.heuristic``) and search codes (``.search``); the
# slowdown formula's code (``.formula``) indexes FORMULAS.
U1, U2, RESPONSE, FIRST = 0, 1, 2, 3
SEARCH_QUEUE, SEARCH_ADJACENT, SEARCH_NONE = 0, 1, 2


# Columns of the profile table (one row per job) and entries of the model array.
CLS, CPU, NET, DISK, MEM, DRAW = range(6)
HT, STD_CF, MEM_SL, CHECK, HAS_MAX, MAX_SL = range(6)
# Ride screens remembered per job (the first MEMO positions of its host list).
MEMO = 8

#: A job's profile row (CLS ... DRAW), written out as a tuple where the pass reads it.
Row: TypeAlias = tuple[float, float, float, float, float, float]
#: The slowdown model (HT ... MAX_SL), a tuple of numbers.
Model: TypeAlias = tuple[float, float, float, float, float, float]


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


class LomarcParams(NamedTuple):
    """The pass's parameters (:func:`cosched.lomarc.fast.arguments` reads them from the
    policy)."""

    hyperthreaded: bool  #: the slowdown model's CPU
    check_match: bool
    medium_long_only: bool
    search: int  #: the search's code (SEARCH_QUEUE, ...)
    running: bool
    heuristic: int  #: the heuristic's code (FIRST, U1, ...)
    pairing: bool  #: pairs slow each other (False: PSS, no rate model)
    predict: bool
    arrivals_queue: bool  #: arrivals counted from the queue
    has_weak_spare: bool
    has_max_slowdown: bool
    has_aging: bool
    formula: int  #: the slowdown formula's index in FORMULAS
    nodes: int
    weak_spare: float
    max_slowdown: float
    mem_slowdown: float
    aging_time: float
    bound: float
    standard_cpu_factor: float  #: the standard CPU's overlap factor


class LomarcStore(NamedTuple):
    """The pass's arrays (changed in place) and fixed parameters."""

    prof: Table  #: the profile table (Jobs.table): class, CPU, network, disk, memory, draw
    model: Model  #: the slowdown model (HT ... MAX_SL)
    params: LomarcParams
    formula: int  #: the slowdown formula's reading: its index in FORMULAS
    nodes: int
    jnodes: Ints  #: each job's nodes in placement order from ji[OFF, job] (Jobs.placed)
    ji: IntTable  #: per-job integers and flags (OFF ... SOLO)
    jf: Table  #: per-job reals (OV ... SURV_SL)
    ni: IntTable  #: per-node integers and lists (CNT ... RIDE)
    acc_f: Floats  #: A_FIRST ... SH_TIME
    tally: Ints  #: A_COUNT ... SH_COUNT
    ge_idx: IntTable  #: the hosts with enough unpartnered nodes, by class key and size
    #: their number (row 0) and the generation they were listed in (row 1): a list is
    #: current while its generation is tally[GEN], which a pass and a ride advance
    #: (rather than clearing every list, a memset of the whole table each time)
    ge_n: IntTable
    memo_i: IntTable  #: each job's last ride screens: host job + 1 (row 0), stage (row 1)
    memo_sl: Table  #: and slowdown
    occ: Table  #: the nodes' emptying times, the pass's overrides, scratch (EMPTIES ...)


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
        ji, np.zeros((4, n + 1)), ni, np.zeros(7), np.zeros(SH_COUNT + 1, np.int64),
        np.empty((4, nodes + 1, 2 * nodes), np.int64),
        np.zeros((2, 4, nodes + 1), np.int64), memo_i, np.empty((n, MEMO)),
        np.full((3, nodes), -np.inf),
    )  # fmt: skip
    store.tally[N_EMPTY] = nodes
    return store, 0


def lomarc_ended(store: LomarcStore, state: int, jobs: Jobs, idx: int, now: float) -> int:
    """Job ``idx`` ended: off the running list and its nodes."""
    ji, ni, tally, jnodes, size = store.ji, store.ni, store.tally, store.jnodes, jobs.size
    nrun = tally[N_RUN]
    w = 0
    for r in range(nrun):
        if ni[RUN, r] != idx:
            ni[RUN, w] = ni[RUN, r]
            w += 1
    tally[N_RUN] = w
    for q in range(ji[OFF, idx], ji[OFF, idx] + size[idx]):
        nd = jnodes[q]
        if ni[JOB + 0, nd] == idx:
            ni[JOB + 0, nd] = ni[JOB + 1, nd]
        ni[JOB + 1, nd] = -1
        ni[CNT, nd] -= 1
        if ni[CNT, nd] == 0:
            tally[N_EMPTY] += 1
        else:  # the job left on it has it to itself
            ji[SOLO, ni[JOB + 0, nd]] += 1
    _mark(idx, ji, ni, jnodes, tally, size[idx])
    return state


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


def _list_free(ni: IntTable, nodes: int) -> None:
    """The empty nodes, in node order, into ni[FREE]."""
    c = 0
    for nd in range(nodes):
        if ni[CNT, nd] == 0:
            ni[FREE, c] = nd
            c += 1


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
    for lb in range(4):
        tally[NLEV + lb] = 0
    units = 0
    for p in range(tail - head):
        j = queue[head + p]
        units += size[j]
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
    for p in range(tail - head):
        lb = ji[LEVEL, p]
        ji[QORD, tally[POS0 + lb]] = queue[head + p]
        tally[POS0 + lb] += 1
    return units


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
                _list_free(ni, nodes)
            before = ndec
            ndec, nov = _start(
                j, k, partner, ppos, psl, fptr, now, ndec, nov, est, size, ji, jf, ni, jnodes,
                tally, chosen,
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
