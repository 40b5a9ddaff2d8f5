"""The two machines of the reproduction, built from Parallel Workloads Archive traces.

The paper's Intrepid (40,960-node Blue Gene/P) and Eureka (100-node analysis cluster)
traces are not public. Stand-ins:

* compute machine: **LLNL Atlas** (1,152 nodes x 8 cores, whole-node jobs of 8 to
  9,120 processors, no serial jobs). Like Intrepid it is a capability machine whose
  jobs take whole nodes (a partition on Intrepid), with a high and steady load (0.73 to
  0.80 a month after its first month) and thousands of jobs a month (Intrepid: 9,219
  in the paper's month). Simulated as 1,152 nodes allocated whole.
* analysis machine: **KTH SP2** (100 nodes, jobs of 1 to 100 nodes): the same node count
  and job-size range as Eureka. Its arrivals are packed, as in the paper, so that one
  month holds the wanted utilization: the prefix of the trace whose work fills
  ``load x 100 nodes x span`` is taken and its inter-arrival times scaled so that it
  spans the compute month.

The compute machine may instead be the **Intrepid stand-in**
(:func:`cosched.workload.models.intrepid.intrepid_standin`): a month of jobs drawn to
the paper's description of Intrepid, on a Blue Gene/P allocated in partitions of
midplanes (``compute = "intrepid"`` in the spec; :func:`compute_machine`).

:func:`thin_pairs` keeps a drawn share of the mates the 2-minute rule finds, so that the
share of paired jobs is the paper's (5-10%) rather than what the traces' densities give.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from cosched.errors import ConfigError
from cosched.platform import Platform
from cosched.platform.machine import Allocation
from cosched.workload import load_workload
from cosched.workload.job import Workload
from cosched.workload.models.intrepid import INTREPID_JOBS, INTREPID_PLATFORM, intrepid_standin
from cosched.workload.transforms import first_n, rebase, scale_arrivals, time_window

__all__ = [
    "ANALYSIS_MONTH",
    "ANALYSIS_PLATFORM",
    "ANALYSIS_TRACE",
    "COMPUTE_MACHINES",
    "COMPUTE_PLATFORM",
    "COMPUTE_TRACE",
    "DRAWN",
    "MONTH",
    "STANDIN_SIGMA",
    "analysis_workload",
    "compute_machine",
    "compute_workload",
    "drawn_start",
    "pack",
    "pair_nearest",
    "special_analysis",
    "thin_pairs",
]

#: Seconds in the simulated month.
MONTH = 30 * 86400.0
COMPUTE_TRACE = "LLNL-Atlas-2006-2.1-cln.swf.gz"
ANALYSIS_TRACE = "KTH-SP2-1996-2.1-cln.swf.gz"
COMPUTE_PLATFORM = Platform(nodes=1152, cores=8, allocation=Allocation.NODES)
ANALYSIS_PLATFORM = Platform.of_procs(100)
#: Which month of the Atlas trace (0-based, from its first submission) is simulated:
#: month 5 has 8,990 jobs at offered load 0.78, the closest to Intrepid's month.
COMPUTE_MONTH = 5
#: ``month`` of :func:`compute_machine` that draws Atlas's month from the seed's stream
#: (and ``month`` of :func:`analysis_workload` / :func:`special_analysis`: KTH's).
DRAWN = "drawn"
#: Which month of the analysis trace the packed analysis month starts at unless drawn:
#: the trace's start, the same for every seed.
ANALYSIS_MONTH = 0
#: A drawn Atlas month starts no earlier than this many months in: the trace's first
#: month is the machine's start-up (2,207 jobs at offered load 0.37; later months 0.73
#: to 0.79).
FIRST_DRAWN_MONTH = 1
#: The compute machines a spec can name (``compute``).
COMPUTE_MACHINES = ("atlas", "intrepid")
#: The Intrepid stand-in's run-time shape (log-normal sigma), fitted with its load to
#: the paper's base mean wait and slowdown (docs/coupled.md).
STANDIN_SIGMA = 1.7


def compute_machine(
    machine: str,
    traces: Path | None,
    *,
    span: float,
    load: float | None,
    rng: np.random.Generator,
    sigma: float = STANDIN_SIGMA,
    month: int | str = COMPUTE_MONTH,
) -> tuple[Workload, Platform]:
    """The compute machine's month and platform: Atlas's trace or the Intrepid stand-in.

    ``load`` packs Atlas's month (None: its own month) or sets the stand-in's offered
    load (required); ``rng`` draws the stand-in's month, and Atlas's when ``month`` is
    ``"drawn"`` (:func:`drawn_start`; an integer: that month of the trace, the same for
    every seed).

    Raises:
        ConfigError: an unknown machine, the stand-in without a load, or a bad ``month``.
    """
    if machine == "atlas":
        if traces is None:
            raise ConfigError("the atlas compute machine needs the traces folder")
        if month == DRAWN:
            return compute_workload(traces, span=span, load=load, rng=rng), COMPUTE_PLATFORM
        if isinstance(month, bool) or not isinstance(month, int) or month < 0:
            raise ConfigError(f"compute_month must be an integer >= 0 or 'drawn', got {month!r}")
        return compute_workload(traces, span=span, month=month, load=load), COMPUTE_PLATFORM
    if machine == "intrepid":
        if load is None:
            raise ConfigError("the intrepid compute machine needs 'compute_load'")
        # The paper's month held 9,219 jobs: a shorter span holds its share of them.
        jobs = max(1, round(INTREPID_JOBS * span / MONTH))
        w = intrepid_standin(rng, load=load, span=span, sigma=sigma, jobs=jobs)
        return w, INTREPID_PLATFORM
    raise ConfigError(f"compute must be one of {', '.join(COMPUTE_MACHINES)}, got {machine!r}")


def compute_workload(
    traces: Path,
    *,
    span: float = MONTH,
    month: int = COMPUTE_MONTH,
    load: float | None = None,
    rng: np.random.Generator | None = None,
) -> Workload:
    """One ``span`` of the compute trace, starting ``month`` months in, rebased to 0.

    With ``load``, the jobs from that month on are packed (:func:`pack`, the paper's way
    with its Eureka traces) so that ``span`` carries offered load ``load``: Atlas's own
    month (load 0.78) leaves its queue nearly empty (0.6 min mean wait against Intrepid's
    61); the reproduction's spec packs it to 0.94 (docs/coupled.md). With ``rng`` the
    start is drawn instead (:func:`drawn_start`), so each seed samples a month of the log.
    """
    w = rebase(load_workload(traces / COMPUTE_TRACE, platform=COMPUTE_PLATFORM))
    if rng is not None:
        t0 = drawn_start(w, rng, load=load, capacity_procs=COMPUTE_PLATFORM.procs, span=span)
    else:
        t0 = month * MONTH
    if load is None:
        return rebase(time_window(w, t0, t0 + span))
    later = rebase(time_window(w, t0, float(w.table["submit_time"].max()) + 1.0))
    return pack(later, load=load, capacity_procs=COMPUTE_PLATFORM.procs, span=span)


def drawn_start(
    w: Workload,
    rng: np.random.Generator,
    *,
    load: float | None,
    capacity_procs: int,
    span: float,
    earliest: float = FIRST_DRAWN_MONTH * MONTH,
) -> float:
    """A start time drawn uniformly from the starts at which ``w`` still has a month.

    The latest start is the last submission from which the rest of the log still fills
    ``span`` (without ``load``: ``span`` of time before its last submission; with it: the
    work of ``load`` x ``capacity_procs`` x ``span``, which :func:`pack` needs). Months
    drawn this way overlap when the log is short; they sample the log's months, one per
    seed, the way the Intrepid stand-in draws one per seed.

    Raises:
        ConfigError: no start after ``earliest`` leaves enough of the log.
    """
    t = w.table
    sub = t["submit_time"].to_numpy(dtype=np.float64)
    if load is None:
        latest = float(sub[-1]) - span
    else:
        work = t["run_time"].to_numpy() * t["procs"].to_numpy(dtype=np.float64)
        rest = np.cumsum(work[::-1])[::-1]  # the work submitted from each job on
        enough = np.flatnonzero(rest >= load * capacity_procs * span)
        latest = float(sub[enough[-1]]) if enough.size else -math.inf
    if latest < earliest:
        what = "a span" if load is None else f"offered load {load:g}"
        raise ConfigError(
            f"{w.name!r}: no start after {earliest:g} s leaves {what} over {span:g} s to draw"
        )
    return float(rng.uniform(earliest, latest))


def analysis_workload(
    traces: Path,
    *,
    load: float,
    span: float = MONTH,
    month: int | str = ANALYSIS_MONTH,
    rng: np.random.Generator | None = None,
) -> Workload:
    """The analysis trace packed so that ``span`` seconds carry offered load ``load``.

    The jobs are taken from ``month`` months into the trace on (the trace's start by
    default, the same for every seed), or with ``month = "drawn"`` from a start drawn
    with ``rng`` (:func:`drawn_start`, from the trace's start to the last start that
    still leaves the load's work), so that each seed samples its own analysis month the
    way the compute side does.

    Raises:
        ConfigError: a bad ``month``, ``"drawn"`` without ``rng``, or too little trace.
    """
    w = rebase(load_workload(traces / ANALYSIS_TRACE, platform=ANALYSIS_PLATFORM))
    t0 = _analysis_start(w, month, rng, load=load, span=span)
    if t0 > 0:
        w = rebase(time_window(w, t0, float(w.table["submit_time"].max()) + 1.0))
    return pack(w, load=load, capacity_procs=ANALYSIS_PLATFORM.procs, span=span)


def _analysis_start(
    w: Workload, month: int | str, rng: np.random.Generator | None, *, load: float, span: float
) -> float:
    """Where in the analysis trace its month starts (:func:`analysis_workload`)."""
    if month == DRAWN:
        if rng is None:
            raise ConfigError("analysis_month = 'drawn' needs the seed's generator")
        return drawn_start(
            w, rng, load=load, capacity_procs=ANALYSIS_PLATFORM.procs, span=span, earliest=0.0
        )
    if isinstance(month, bool) or not isinstance(month, int) or month < 0:
        raise ConfigError(f"analysis_month must be an integer >= 0 or 'drawn', got {month!r}")
    return month * MONTH


def special_analysis(
    traces: Path,
    *,
    jobs: int,
    load: float,
    span: float = MONTH,
    month: int | str = ANALYSIS_MONTH,
    rng: np.random.Generator | None = None,
) -> Workload:
    """The proportion study's analysis workload as the paper made it: ``jobs`` jobs in
    ``span`` at offered load ``load`` (section V-E: "a special workload that has the same
    number of jobs and is within the same time span as the Intrepid trace").

    The first ``jobs`` jobs of the analysis trace from ``month`` months in (the trace's
    start by default), or with ``month = "drawn"`` from a job drawn uniformly with
    ``rng`` among those that still have ``jobs`` jobs after them; their arrivals scaled
    to span the month (as :func:`pack`), their run and requested times scaled by one
    factor so that the month carries ``load`` (run times rounded, at least 1 s).

    Raises:
        ConfigError: a bad parameter, or a trace with fewer jobs.
    """
    if not (isinstance(jobs, int) and jobs >= 2 and load > 0 and span > 0):
        raise ConfigError(f"jobs >= 2, load > 0 and span > 0 needed, got {jobs!r}, {load!r}")
    w = rebase(load_workload(traces / ANALYSIS_TRACE, platform=ANALYSIS_PLATFORM))
    sub = w.table["submit_time"].to_numpy()
    if month == DRAWN:
        if rng is None:
            raise ConfigError("analysis_month = 'drawn' needs the seed's generator")
        first = int(rng.integers(0, len(w) - jobs + 1)) if len(w) >= jobs else 0
    else:
        first = int(np.searchsorted(sub, _analysis_start(w, month, None, load=load, span=span)))
    if len(w) - first < jobs:
        raise ConfigError(f"{w.name!r} has {len(w) - first} jobs, fewer than {jobs}")
    if first > 0:
        w = rebase(time_window(w, float(sub[first]), float(sub[-1]) + 1.0))
    head = first_n(w, jobs)
    sub = head.table["submit_time"].to_numpy()
    spread = rebase(scale_arrivals(head, span * (jobs - 1) / jobs / float(sub[-1] - sub[0])))
    t = spread.table
    work = float(np.dot(t["run_time"].to_numpy(), t["procs"].to_numpy(dtype=np.float64)))
    factor = load * ANALYSIS_PLATFORM.procs * span / work
    run = np.maximum(np.round(t["run_time"].to_numpy() * factor), 1.0)
    req = np.maximum(np.round(t["requested_time"].to_numpy() * factor), run)
    note = f"run and requested times scaled by {factor:.4g} to offered load {load:g}"
    return spread.replace_table(t.assign(run_time=run, requested_time=req), note)


def pack(w: Workload, *, load: float, capacity_procs: int, span: float) -> Workload:
    """The shortest prefix of ``w`` carrying ``load`` over ``span``, its arrivals scaled to fit.

    The arrival pattern keeps its shape (every inter-arrival time is scaled by the same
    factor), as the paper made its Eureka traces.
    """
    if not (load > 0 and span > 0):
        raise ConfigError(f"load and span must be > 0, got {load!r}, {span!r}")
    t = w.table
    work = np.cumsum(t["run_time"].to_numpy() * t["procs"].to_numpy(dtype=np.float64))
    need = load * capacity_procs * span
    n = int(np.searchsorted(work, need)) + 1
    if n > len(w):
        raise ConfigError(
            f"{w.name!r} carries only {work[-1] / (capacity_procs * span):.3g} of load over "
            f"{span:g} s, not {load:g}"
        )
    head = first_n(w, n)
    sub = head.table["submit_time"].to_numpy()
    # n jobs spread so that the last arrives one mean inter-arrival before the end.
    factor = span * (n - 1) / n / float(sub[-1] - sub[0])
    return rebase(scale_arrivals(head, factor))


def pair_nearest(
    a: Workload, b: Workload, *, proportion: float, rng: np.random.Generator
) -> tuple[Workload, Workload]:
    """Pair a share of jobs with mates close in time (the proportion study, section V-E).

    ``round(proportion * min(len(a), len(b)))`` jobs of the smaller workload are drawn at
    random; in submit order, each takes as mate the job of the other workload nearest
    in submit time that has no mate yet (ties: the earlier one). Adds ``coupled_mate``
    to both, like :func:`cosched.workload.profiles.coupled.pair_workloads`, whose
    proportion mode pairs the i-th drawn job of one workload with the i-th of the other
    and so leaves mates hours to days apart in a month-long trace.
    """
    if not 0.0 <= proportion <= 1.0:
        raise ConfigError(f"proportion must be in [0, 1], got {proportion!r}")
    swap = len(b) < len(a)
    small, big = (b, a) if swap else (a, b)
    k = int(np.floor(proportion * len(small) + 0.5))
    picked = np.sort(rng.choice(len(small), size=k, replace=False))
    ts = small.table["submit_time"].to_numpy()
    tb = big.table["submit_time"].to_numpy()
    free = np.ones(len(tb), dtype=bool)
    mate_small = np.full(len(small), -1, dtype=np.int64)
    mate_big = np.full(len(big), -1, dtype=np.int64)
    ids_s = small.table["job_id"].to_numpy()
    ids_b = big.table["job_id"].to_numpy()
    for i in picked.tolist():
        j = _nearest_free(tb, free, float(ts[i]))
        free[j] = False
        mate_small[i], mate_big[j] = ids_b[j], ids_s[i]
    note = f"coupled profile: {k} mate pairs, nearest in submit time, proportion {proportion:g}"
    ws = small.replace_table(small.table.assign(coupled_mate=mate_small), note)
    wb = big.replace_table(big.table.assign(coupled_mate=mate_big), note)
    return (wb, ws) if swap else (ws, wb)


def _nearest_free(t: np.ndarray, free: np.ndarray, when: float) -> int:
    """Index of the free entry of sorted ``t`` nearest to ``when`` (earlier on ties)."""
    k = int(np.searchsorted(t, when))
    lo, hi = k - 1, k
    while lo >= 0 and not free[lo]:
        lo -= 1
    while hi < len(t) and not free[hi]:
        hi += 1
    if hi >= len(t) or (lo >= 0 and when - t[lo] <= t[hi] - when):
        return lo
    return hi


def thin_pairs(
    a: Workload, b: Workload, *, share: float, rng: np.random.Generator
) -> tuple[Workload, Workload]:
    """Keep ``round(share x len(smaller))`` of the mate pairs of ``a`` and ``b``, drawn at
    random (all of them if there are fewer); the others lose their mate.

    Both workloads carry ``coupled_mate`` (:func:`pair_workloads` or :func:`pair_nearest`).
    The paper's 2-minute rule paired 5-10% of its jobs (section V-D); on the stand-in
    traces it pairs several times more, so the reproduction keeps that rule and draws
    which of its pairs stay, to the paper's share.
    """
    if not 0.0 <= share <= 1.0:
        raise ConfigError(f"pair_share must be in [0, 1], got {share!r}")
    ma = a.table["coupled_mate"].to_numpy()
    paired = np.flatnonzero(ma >= 0)
    k = min(paired.size, int(np.floor(share * min(len(a), len(b)) + 0.5)))
    keep_a = np.zeros(len(a), dtype=bool)
    keep_a[rng.choice(paired, size=k, replace=False)] = True
    kept_ids = set(ma[keep_a].tolist())
    mb = b.table["coupled_mate"].to_numpy()
    ids_b = b.table["job_id"].to_numpy()
    keep_b = np.fromiter((i in kept_ids for i in ids_b.tolist()), dtype=bool, count=len(b))
    note = f"coupled profile: {k} of {paired.size} mate pairs kept (share {share:g})"
    wa = a.replace_table(a.table.assign(coupled_mate=np.where(keep_a, ma, -1)), note)
    wb = b.replace_table(b.table.assign(coupled_mate=np.where(keep_b & (mb >= 0), mb, -1)), note)
    return wa, wb
