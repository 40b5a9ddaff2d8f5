"""The node-sharing policies' pass, compiled: :data:`NODESHARE_PASS
<cosched.nodeshare.fast.NODESHARE_PASS>` on the engine's event loop
(:mod:`cosched.engine.loop`).

The loop does the engine's part (completions, submissions, the starts in decision
order, the rate changes); this pass does what
:class:`~cosched.nodeshare.policies.Coscheduling` and
:class:`~cosched.nodeshare.policies.CoschedulingBackfill` do when their passes run as
one kernel call, step for step, with the same kernels:

* the node book (:class:`~cosched.nodeshare.placement.NodeBook`'s arrays, built in
  :func:`ns_init` from the parameters) and the backfill window's per-job and per-key
  arrays (:class:`~cosched.nodeshare.window.WindowScan`'s, from the pass's table);
* each pass is :func:`~cosched.nodeshare._window_kernels.easy_pass`: for ``nodeshare``
  from the queue's head with an empty window, skipped while nothing ended and the head
  still blocks; for ``nodeshare-easy`` a full pass (the heads, the reservation over
  the estimated ends, refreshed from the engine's for the jobs started or given a rate
  since the last full pass, the window) or, while nothing ended or was backfilled and
  the head still blocks, the arrivals inside the window under the reservation in force;
* a job's end takes it off its nodes (:func:`~cosched.nodeshare._book_kernels.move`);
* the rates (:func:`ns_rates`): ``at-start``, ``1 / factor`` of each job started;
  ``dynamic``, the jobs touched by the instant's starts and ends whose factor changed
  (:func:`~cosched.nodeshare._book_kernels.new_factors`), in index order, as the
  policy's rate model hands them to the engine; a rate equal to the job's current one
  is left out, as :meth:`Simulation.set_rate
  <cosched.engine.simulation.Simulation.set_rate>` skips it.

A started job's nodes go to :attr:`Jobs.placed <cosched.engine.loop.Jobs.placed>` in
start order, in the order Algorithm 1 took them (the pass's own layout, up to four
nodes per unit of size: :attr:`CompiledPass.room
<cosched.engine.compiled.CompiledPass.room>`), each job's offset, node count and
cores per node in its table row; the running jobs' spans in that array are the node
lists the rates read. This module imports no numba: run as plain Python (calling the
kernels compiled or as source), compiled by numba or loaded compiled ahead of time, the
same source gives the same schedules.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from cosched.engine.loop import Floats, Ints  # NsParams's field types, read at run time
from cosched.nodeshare._book_kernels import BASE, jobs_on, move, new_factors
from cosched.nodeshare._window_kernels import easy_pass

if TYPE_CHECKING:
    from cosched.engine.loop import Bools, Instant, IntTable, Jobs, Table

__all__ = [
    "NsParams",
    "NsRules",
    "NsState",
    "NsStore",
    "ns_ended",
    "ns_init",
    "ns_pass",
    "ns_rates",
    "ns_report",
]

#: Configurations a job can have at most (one per paper shape).
WIDTH = 7
# Columns of the per-job table: inputs (key id, class, victim weight, then per
# configuration a, b, nodes, cores per node and paper shape; nodes -1: none), then the
# outputs the pass writes: the shape and factor of the configuration it started in,
# its nodes' offset in Jobs.placed, their count, cores per node, its rank among starts
# (-1: none), its rank among blocked records (-1: none), blocked by capacity (1) or
# fragmentation (0).
KID, SENS, VIC = 0, 1, 2
A = 3
B = A + WIDTH
NEED = B + WIDTH
PER_NODE = NEED + WIDTH
SHAPE = PER_NODE + WIDTH
CHOSEN_SHAPE = SHAPE + WIDTH
FACTOR = CHOSEN_SHAPE + 1
OFF = FACTOR + 1
NNODES = OFF + 1
CORES_USED = NNODES + 1
STARTED = CORES_USED + 1
BLOCKED = STARTED + 1
CAPACITY = BLOCKED + 1
TABLE_COLUMNS = CAPACITY + 1
#: Counters ``ns_report`` writes: placements tried.
REPORTS = 1
#: Cores of a key with no configuration (more than any book has free).
_NONE = np.iinfo(np.int64).max


class NsParams(NamedTuple):
    """The node-sharing pass's parameters: the policy's, the machine's and the node
    book's rules (:func:`cosched.nodeshare.book.state_rules`), one entry per state code
    of a node (``codes`` of them) in the last four."""

    nodes: int  #: nodes in the machine
    cores: int  #: cores per node
    cap: int  #: jobs a node may hold
    window: int  #: the backfill window
    easy: bool  #: EASY's reservation and window (nodeshare-easy)
    dynamic: bool  #: a job's rate follows its co-runners (else fixed at its start)
    order: Ints  #: the buckets in placement order
    ok: Ints  #: per class s and code c, at ``s * codes + c``: a job of s may join (1)
    below_cap: Ints  #: per code: a node in it holds fewer than ``cap`` jobs (1)
    pressure: Floats  #: pressure by class (3)
    victim: Floats  #: victim weight by class (3)
    pressure_of: Floats  #: per code: the summed pressure of a node's jobs


class NsRules(NamedTuple):
    """What the pass reads of its parameters after :func:`ns_init`."""

    cores: int  #: cores per node
    window: int  #: the backfill window
    easy: bool  #: EASY's reservation and window
    dynamic: bool  #: rates follow co-runners


class NsStore(NamedTuple):
    """The pass's arrays, changed in place."""

    rules: NsRules  #: the parameters the pass reads
    table: Table  #: per-job inputs and outputs (the columns above)
    #: WindowScan's per-job arrays: key id, blocked, (a, b), victim, estimate, size
    jobs: tuple[Ints, Bools, Table, Floats, Floats, Ints]
    #: the per-key table: class, needs, cores, pressures, fits, version
    keys: tuple[Ints, IntTable, IntTable, Table, Bools, Ints]
    kmin: Ints  #: per key: fewest cores of a configuration
    kdead: Bools  #: per key: found unfit in this pass
    held: IntTable  #: per key and configuration: relevant nodes it takes (-1: not counted)
    fstate: Floats  #: the shadow time
    istate: Ints  #: extra nodes, the book's version, its free cores below the cap, head
    #: NodeBook.fit_arrays: order, state code, state free, state pressure, ok
    book: tuple[Ints, Ints, Ints, Floats, Bools]
    links: tuple[Ints, Ints, Ints, Ints, Ints]  #: cnt, head, tail, nxt, prv
    #: code, free, below cap, pressure of a code, node pressure, node jobs, count
    state: tuple[Ints, Ints, Bools, Floats, Floats, IntTable, Ints]
    buf: Ints  #: scratch: nodes
    #: a pass's starts: job, configuration, end of its nodes, the nodes
    out: tuple[Ints, Ints, Ints, Ints]
    out_factor: Floats  #: a pass's starts: factor
    out_blocked: IntTable  #: a pass's blocked records: job, by capacity
    queued: Bools  #: per job: submitted and not started
    ends: Floats  #: per job: the estimated end the reservation reads (last: padding)
    relevant: Bools  #: per node: the head counts on it
    stale: Ints  #: the jobs whose estimated end is to be read again
    sflag: Bools  #: per job: in ``stale``
    spans: IntTable  #: per running job: its nodes in Jobs.placed (empty: not running)
    sens: Ints  #: per job: class
    ca: Floats  #: per started job: a of its configuration
    cb: Floats  #: per started job: b
    factor: Floats  #: per running job: its factor (at-start: at its start)
    fresh: Bools  #: per job: started, not given a rate yet
    touched: Ints  #: the jobs whose factor may have changed since the last rates
    tflag: Bools  #: per job: in ``touched``
    shared: Bools  #: per running job: has had a co-runner on one of its nodes
    rout: Ints  #: scratch: the jobs new_factors found
    rrate: Floats  #: scratch: their rates
    victim: Floats  #: victim weight by class
    pressure: Floats  #: pressure by class


class NsState(NamedTuple):
    """The pass's scalars, replaced at each call."""

    dirty: bool  #: a job ended since the last full pass
    head: int  #: the blocked head of the last full pass (-1: none)
    backfilled: bool  #: the last pass backfilled a job
    shadow: float  #: the reservation's shadow time
    extra: int  #: its extra nodes
    nq: int  #: jobs queued
    submitted: int  #: one past the last job submitted
    cursor: int  #: entries of Jobs.placed written
    nstarted: int
    nblocked: int
    nstale: int
    ntouched: int
    place_calls: int


def ns_init(jobs: Jobs, capacity: int, params: NsParams) -> tuple[NsStore, NsState]:
    n = jobs.submit.shape[0]
    t = jobs.table
    nodes, cores, cap = params.nodes, params.cores, params.cap
    codes = params.pressure_of.shape[0]
    width = cores + 1
    order = params.order.copy()
    ok = np.zeros((3, codes), dtype=np.bool_)
    for s in range(3):
        for c in range(codes):
            ok[s, c] = params.ok[s * codes + c] != 0
    below_cap = np.zeros(codes, dtype=np.bool_)
    pressure_of = params.pressure_of.copy()
    for c in range(codes):
        below_cap[c] = params.below_cap[c] != 0
    nst = codes * width
    st_code = np.empty(nst, dtype=np.int64)
    st_free = np.empty(nst, dtype=np.int64)
    st_press = np.empty(nst, dtype=np.float64)
    for i in range(nst):
        st_code[i] = i // width
        st_free[i] = i % width
        st_press[i] = pressure_of[i // width]
    cnt = np.zeros(nst, dtype=np.int64)
    head = np.full(nst, -1, dtype=np.int64)
    tail = np.full(nst, -1, dtype=np.int64)
    nxt = np.arange(1, nodes + 1).astype(np.int64)
    prv = np.arange(-1, nodes - 1).astype(np.int64)
    if nodes > 0:
        nxt[nodes - 1] = -1
        cnt[cores] = nodes
        head[cores] = 0
        tail[cores] = nodes - 1
    # Per job: WindowScan's arrays; per key, its table (numbered by the Python side).
    kid = np.zeros(n, dtype=np.int64)
    sens = np.zeros(n, dtype=np.int64)
    vic = np.zeros(n, dtype=np.float64)
    coef = np.zeros((n, WIDTH, 2), dtype=np.float64)
    nkeys = 1
    for j in range(n):
        kid[j] = int(t[j, KID])
        sens[j] = int(t[j, SENS])
        vic[j] = t[j, VIC]
        for c in range(WIDTH):
            coef[j, c, 0] = t[j, A + c]
            coef[j, c, 1] = t[j, B + c]
        if kid[j] + 1 > nkeys:
            nkeys = kid[j] + 1
        t[j, CHOSEN_SHAPE] = -1.0
        t[j, FACTOR] = 0.0
        t[j, OFF] = 0.0
        t[j, NNODES] = 0.0
        t[j, CORES_USED] = 0.0
        t[j, STARTED] = -1.0
        t[j, BLOCKED] = -1.0
        t[j, CAPACITY] = 0.0
    ks = np.zeros(nkeys, dtype=np.int64)
    kneed = np.full((nkeys, WIDTH), -1, dtype=np.int64)
    kcores = np.full((nkeys, WIDTH), -1, dtype=np.int64)
    kp = np.full((nkeys, WIDTH), np.nan)
    kfit = np.zeros(nkeys, dtype=np.bool_)
    kver = np.full(nkeys, -1, dtype=np.int64)
    kmin = np.zeros(nkeys, dtype=np.int64)
    seen = np.zeros(nkeys, dtype=np.bool_)
    for j in range(n):
        k = kid[j]
        if seen[k]:
            continue
        seen[k] = True
        ks[k] = sens[j]
        fewest = _NONE
        for c in range(WIDTH):
            need = int(t[j, NEED + c])
            if need < 0:
                continue
            per = int(t[j, PER_NODE + c])
            kneed[k, c] = need
            kcores[k, c] = per
            if need * per < fewest:
                fewest = need * per
        kmin[k] = fewest
    window = params.window
    room = max(nodes * cap, 1)
    istate = np.zeros(4, dtype=np.int64)
    istate[2] = nodes * cores
    store = NsStore(
        NsRules(cores, window, params.easy, params.dynamic),
        t,
        (kid, np.zeros(n, dtype=np.bool_), coef, vic, jobs.est, jobs.size),
        (ks, kneed, kcores, kp, kfit, kver),
        kmin,
        np.zeros(nkeys, dtype=np.bool_),
        np.full((nkeys, WIDTH), -1, dtype=np.int64),
        np.zeros(1, dtype=np.float64),
        istate,
        (order, st_code, st_free, st_press, ok),
        (cnt, head, tail, nxt, prv),
        (
            np.zeros(nodes, dtype=np.int64),
            np.full(nodes, cores, dtype=np.int64),
            below_cap,
            pressure_of,
            np.zeros(nodes, dtype=np.float64),
            np.full((cap, nodes), n, dtype=np.int64),
            np.zeros(nodes, dtype=np.int64),
        ),
        np.zeros(nodes, dtype=np.int64),
        (
            np.zeros(room, dtype=np.int64),
            np.zeros(room, dtype=np.int64),
            np.zeros(room, dtype=np.int64),
            np.zeros(room, dtype=np.int64),
        ),
        np.zeros(room, dtype=np.float64),
        np.zeros((window + 1, 2), dtype=np.int64),
        np.zeros(n, dtype=np.bool_),
        np.full(n + 1, -np.inf),
        np.zeros(nodes, dtype=np.bool_),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.bool_),
        np.zeros((n, 2), dtype=np.int64),
        sens,
        np.zeros(n, dtype=np.float64),
        np.zeros(n, dtype=np.float64),
        np.zeros(n, dtype=np.float64),
        np.zeros(n, dtype=np.bool_),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.bool_),
        np.zeros(n, dtype=np.bool_),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.float64),
        params.victim.copy(),
        params.pressure.copy(),
    )
    state = NsState(True, -1, False, 0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return store, state


def _once(flag: Bools, into: Ints, n: int, j: int) -> int:
    """Job ``j`` into the list ``into[:n]`` unless ``flag[j]`` says it is there; the new
    count. Both lists of the store: the touched jobs (``tflag``, ``touched``), and the
    jobs whose estimated end is to be read again at the next full pass (``sflag``,
    ``stale``)."""
    if flag[j]:
        return n
    flag[j] = True
    into[n] = j
    return n + 1


def ns_pass(
    st: NsStore, s: NsState, jobs: Jobs, queue: Ints, chosen: Ints, at: Instant
) -> tuple[NsState, int, int, int, float]:
    head, tail, fresh, now = at.head, at.tail, at.fresh, at.now
    rules = st.rules
    t = st.table
    queued = st.queued
    for i in range(fresh, tail):
        queued[queue[i]] = True
    nq = s.nq + tail - fresh
    submitted = s.submitted
    if tail > fresh:
        submitted = queue[tail - 1] + 1
    while head < tail and not queued[queue[head]]:
        head += 1
    dirty, last, backfilled = s.dirty, s.head, s.backfilled
    shadow, extra, nstale = s.shadow, s.extra, s.nstale
    if head == tail:  # nothing queued: nodeshare's pass forgets its head
        if not rules.easy:
            dirty = False
            last = -1
        return (
            NsState(dirty, last, backfilled, shadow, extra, nq, submitted, s.cursor,
                    s.nstarted, s.nblocked, nstale, s.ntouched, s.place_calls),
            head, tail, 0, math.nan,
        )  # fmt: skip
    first = queue[head]
    easy = rules.easy
    window = rules.window
    cand = queue[fresh:fresh]
    if not easy:
        if not dirty and first == last:
            return (
                NsState(dirty, last, backfilled, shadow, extra, nq, submitted, s.cursor,
                        s.nstarted, s.nblocked, nstale, s.ntouched, s.place_calls),
                head, tail, 0, math.nan,
            )  # fmt: skip
        dirty = False
        st.fstate[0] = 0.0
        st.istate[0] = 0
    else:
        if not (dirty or backfilled) and first == last:
            # Nothing ended and nothing was backfilled: the head still blocks, the
            # reservation stands, and only arrivals inside the window are new.
            skip = nq - (tail - fresh) - 1
            m = min(tail - fresh, max(window - skip, 0))
            if m == 0:
                return (
                    NsState(dirty, last, backfilled, shadow, extra, nq, submitted, s.cursor,
                            s.nstarted, s.nblocked, nstale, s.ntouched, s.place_calls),
                    head, tail, 0, math.nan,
                )  # fmt: skip
            cand = queue[fresh : fresh + m]
            first = -1
        else:
            dirty = False
            # The estimated ends the engine may have changed since they were read.
            ends, est_end = st.ends, jobs.est_end
            for i in range(nstale):
                j = st.stale[i]
                st.sflag[j] = False
                e = est_end[j]
                ends[j] = now if now > e else e  # the view's estimated_end: max(e, now)
            nstale = 0
        st.fstate[0] = shadow
        st.istate[0] = extra
    ns, heads, nb, tried, _ = easy_pass(
        first, cand, queued, submitted, window, st.ends, now, st.relevant, st.jobs,
        st.keys, st.kmin, st.kdead, st.held, st.fstate, st.istate, st.book, st.links,
        st.state, rules.cores + 1, jobs.submit.shape[0], st.buf, st.out, st.out_factor,
        st.out_blocked,
    )  # fmt: skip
    place_calls = s.place_calls + tried
    if first >= 0:
        last = st.istate[3]
    if easy:
        shadow = st.fstate[0]
        extra = st.istate[0]
        backfilled = ns > heads
    nblocked = s.nblocked
    for r in range(nb):
        j = st.out_blocked[r, 0]
        t[j, BLOCKED] = nblocked
        t[j, CAPACITY] = st.out_blocked[r, 1]
        nblocked += 1
    out_job, out_cfg, out_end, out_nodes = st.out
    placed = jobs.placed
    cursor = s.cursor
    nstarted = s.nstarted
    lo = 0
    for i in range(ns):
        j = out_job[i]
        c = out_cfg[i]
        hi = out_end[i]
        for m in range(lo, hi):
            placed[cursor + m - lo] = out_nodes[m]
        st.spans[j, 0] = cursor
        st.spans[j, 1] = cursor + hi - lo
        t[j, CHOSEN_SHAPE] = t[j, SHAPE + c]
        t[j, FACTOR] = st.out_factor[i]
        t[j, OFF] = cursor
        t[j, NNODES] = hi - lo
        t[j, CORES_USED] = t[j, PER_NODE + c]
        t[j, STARTED] = nstarted
        nstarted += 1
        cursor += hi - lo
        lo = hi
        st.ca[j] = t[j, A + c]
        st.cb[j] = t[j, B + c]
        st.factor[j] = st.out_factor[i]
        st.fresh[j] = True
        chosen[i] = j
        if easy:
            nstale = _once(st.sflag, st.stale, nstale, j)
    nt = s.ntouched
    if ns > 0 and rules.dynamic:
        if rules.cores > 1:
            node_jobs, count = st.state[5], st.state[6]
            on = jobs_on(out_nodes[:lo], node_jobs, count)
            for i in range(on.shape[0]):
                nt = _once(st.tflag, st.touched, nt, on[i])
            if on.shape[0] > lo:  # some node holds more than one: they may share
                for i in range(on.shape[0]):
                    st.shared[on[i]] = True
        else:  # a one-core node holds one job: the jobs on them are those started
            for i in range(ns):
                nt = _once(st.tflag, st.touched, nt, out_job[i])
    nq -= ns
    while head < tail and not queued[queue[head]]:
        head += 1
    state = NsState(dirty, last, backfilled, shadow, extra, nq, submitted, cursor, nstarted,
                    nblocked, nstale, nt, place_calls)  # fmt: skip
    return state, head, tail, ns, math.nan


def ns_ended(st: NsStore, s: NsState, jobs: Jobs, j: int, now: float) -> NsState:
    lo, hi = st.spans[j, 0], st.spans[j, 1]
    nodes = jobs.placed[lo:hi]
    cores = int(st.table[j, CORES_USED])
    links, state = st.links, st.state
    node_jobs, count = state[5], state[6]
    _, delta = move(
        j, nodes, -(BASE ** st.sens[j]), -cores, st.rules.cores + 1, state[0], state[1],
        links[0], links[1], links[2], links[3], links[4], state[2], state[3], state[4],
        node_jobs, count, jobs.submit.shape[0],
    )  # fmt: skip
    st.istate[1] += 1
    st.istate[2] += delta
    st.spans[j, 0] = 0
    st.spans[j, 1] = 0
    nt = s.ntouched
    if st.rules.dynamic and st.shared[j]:  # else no job is left on its nodes
        st.shared[j] = False
        on = jobs_on(nodes, node_jobs, count)
        for i in range(on.shape[0]):
            nt = _once(st.tflag, st.touched, nt, on[i])
    return NsState(True, s.head, s.backfilled, s.shadow, s.extra, s.nq, s.submitted,
                   s.cursor, s.nstarted, s.nblocked, s.nstale, nt, s.place_calls)  # fmt: skip


def ns_rates(
    st: NsStore, s: NsState, jobs: Jobs, turn: Ints, who: Ints, rates: Floats, at: Instant
) -> tuple[NsState, int]:
    easy = st.rules.easy
    rate = jobs.rate
    m = 0
    nstale = s.nstale
    nt = s.ntouched
    if not st.rules.dynamic:
        if at.started == 0:
            return s, 0
        for j in np.sort(turn[at.ended : at.ended + at.started]):
            r = 1.0 / st.factor[j]
            if easy:
                nstale = _once(st.sflag, st.stale, nstale, j)
            if r != rate[j]:
                who[m] = j
                rates[m] = r
                m += 1
    else:
        if nt == 0:
            return s, 0
        sel = np.sort(st.touched[:nt])
        for i in range(nt):
            st.tflag[sel[i]] = False
        nt = 0
        got = new_factors(
            sel, st.spans, jobs.placed, st.state[4], st.sens, st.ca, st.cb, st.victim,
            st.pressure, st.factor, st.fresh, st.rout, st.rrate,
        )  # fmt: skip
        for i in range(got):
            j = st.rout[i]
            if easy:
                nstale = _once(st.sflag, st.stale, nstale, j)
            if st.rrate[i] != rate[j]:
                who[m] = j
                rates[m] = st.rrate[i]
                m += 1
    state = NsState(s.dirty, s.head, s.backfilled, s.shadow, s.extra, s.nq, s.submitted,
                    s.cursor, s.nstarted, s.nblocked, nstale, nt, s.place_calls)  # fmt: skip
    return state, m


def ns_report(st: NsStore, s: NsState, out: Ints, fout: Floats) -> None:
    out[0] = s.place_calls
