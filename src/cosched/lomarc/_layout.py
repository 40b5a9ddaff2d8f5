"""The layout of the compiled LOMARC pass's store (:mod:`cosched.lomarc._kernel`): its
parameters (:class:`LomarcParams`), its arrays (:class:`LomarcStore`), and the named rows
and entries the pass's functions read them by (numba reads these module constants as
compile-time constants)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from cosched.engine.loop import Floats, Ints, IntTable, Table

__all__ = [
    "FIRST",
    "FREPORTS",
    "REPORTS",
    "RESPONSE",
    "SEARCH_ADJACENT",
    "SEARCH_NONE",
    "SEARCH_QUEUE",
    "TALLY",
    "U1",
    "U2",
    "LomarcParams",
    "LomarcStore",
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
# The empty nodes' list, ni[FREE, FREE_BASE:FREE_BASE + N_EMPTY] in node order, is
# current (FREE_OK) from its listing on: a pass's starts take its first nodes
# (FREE_BASE moves past them) and an end merges in the nodes it leaves empty.
FREE_OK, FREE_BASE = SH_COUNT + 1, SH_COUNT + 2
# The occupied nodes whose emptying time without the pass (occ[EMPTIES]) is below and
# at the last selection's result (acc_f[SH_KTH]): kept by _shadow_time as it works the
# marked nodes' times out again, counted afresh when a selection moves that result.
SH_BELOW, SH_AT = FREE_BASE + 1, FREE_BASE + 2
TALLY = SH_AT + 1  # the entries of ``tally``
REPORTS = FUNNEL + 2 + 2  # the funnel, queue and running pairs, arrival counts
FREPORTS = 4  # first, last, short work, long work


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
