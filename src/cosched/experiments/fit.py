"""The simple batch scheduler that best reproduces a log's recorded schedule, held out.

``cosched validate TRACE --fit`` searches a declared space of baseline configurations
(:func:`space`): the policy (FCFS, EASY, conservative), EASY's backfill window, the
queue order (submit, SJF, WFP, per-queue priority), partitions on or off, and the run-time
estimates the scheduler sees (the users' requests or the exact run times). Every
configuration is simulated on the whole log, so that the queue at the split is the one
the earlier jobs left, and scored against the logged starts twice: on the *fit* part (the
first ``split`` share of the jobs by submit time) and on the *held-out* rest. The fit
part is cut again: its *search* segment (the first two thirds) ranks the search, its
*validation* segment (the last third) chooses (:func:`choose`); the held-out score is
what the report trusts, and no choice reads it.

The score (:func:`score_of`, lower is better, 0 to 2) is the Kolmogorov-Smirnov statistic
between the simulated and the logged waits plus the mean, over the job classes of
:class:`~cosched.metrics.JobClasses` that hold jobs, of the relative error of the class's
mean wait, ``|sim - log| / max(sim, log)`` (0 when both are 0): the KS statistic grades
the shape of the waits, the class errors whether the right jobs wait.

Readings the fit declares:

* **Partitions** (SWF field 16; Slurm's partition): with partitions on, every partition
  is its own machine and the jobs of each run there alone (independent simulations,
  merged). That assumes partitions do not share nodes. A partition's size is the larger
  of its widest job and the most units its fit-part jobs held at once in the logged
  schedule; when the sizes add up to more than the machine they are scaled down to it
  (never below the widest job). A job without a partition forms one more partition.
* **Queue priority** (SWF field 15; Slurm's QOS, PBS's queue): the ``queue`` order
  (:mod:`cosched.policies.orders`) serves lower ranks first; the fit ranks the queues by
  the mean logged wait of their fit-part jobs, shortest first (a queue with no fit-part
  job after all others, by number).

**Successive halving.** Each stage (the declared space, the outage stage, the site
stage) runs its configurations first on the log's first :data:`FIRST_RUNG` jobs alone,
scored on the search segment's jobs among them, keeps the best third (at least :data:`KEEP`;
plain EASY always, the report's reference), runs those on three times as many jobs, and
so on while the prefix is shorter than the fit part; the survivors run on the whole log,
and only they are chosen from. A prefix is simulated alone, so its last jobs meet fewer
competitors than in the whole log: the prefix ranks, the whole log chooses. On a log
whose fit part is no longer than the first prefix every configuration runs whole.

Each configuration is one cell of the experiments runner
(:func:`cosched.experiments.runner.run_tasks`): the store folder keeps finished cells,
so an interrupted fit resumes, and the cells run on ``--workers`` processes or Dask.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cosched.errors import ConfigError
from cosched.experiments.executors import Executor
from cosched.experiments.model import CellEnv, CellTask, canonical
from cosched.experiments.runner import run_tasks
from cosched.experiments.store import CellResult, atomic
from cosched.experiments.unavailability import Unavailability, infer
from cosched.metrics.summary import JobClasses
from cosched.metrics.validate import ScheduleComparison, compare_schedules
from cosched.platform.machine import Allocation, Platform
from cosched.workload.job import Workload

if TYPE_CHECKING:
    from cosched.experiments.outage_records import OutageRecords

__all__ = [
    "FEATURES",
    "PLAIN_EASY",
    "SPLIT",
    "Baseline",
    "FitInput",
    "FitResult",
    "choose",
    "partition_procs",
    "prepare",
    "run_fit",
    "score_of",
    "simulate_baseline",
    "site_space",
    "space",
    "user_peaks",
]

#: The default share of the jobs (first by submit time) the fit is chosen on.
SPLIT = 0.5
#: The later share of the fit part the choice is made on (the *validation* segment);
#: the earlier rest (the *search* segment) ranks the successive halving.
VALIDATION = 1.0 / 3.0
#: The two-sample Kolmogorov-Smirnov critical value at 5 %, ``c * sqrt(2 / m)`` for ``m``
#: jobs on each side: the margin by which a configuration must beat a simpler one on the
#: validation segment to be chosen over it.
KS_CRITICAL = 1.358
#: Configuration features, in the order the report lists their contributions.
FEATURES = (
    "policy",
    "window",
    "order",
    "partitions",
    "estimates",
    "max_jobs_per_user",
    "max_procs_per_user",
    "outages",
)
#: The fair-share half-lives (seconds) the site stage searches: a day and a week
#: (Slurm's default ``PriorityDecayHalfLife`` is 7 days).
HALF_LIVES: tuple[float, ...] = (86400.0, 7 * 86400.0)
#: Successive halving: the jobs of the first (shortest) prefix a stage's configurations
#: run on, and the fewest that go on to the next prefix.
FIRST_RUNG = 4000
KEEP = 3
#: How many of the best FCFS or EASY configurations (by search score, one pool) the outage
#: stage replays with the unavailability read from the log, beside plain EASY.
OUTAGE_BASES = 3
#: EASY's backfill windows in the space (None: the whole queue).
WINDOWS: tuple[int | None, ...] = (None, 20)
#: The orders each policy offers (``queue`` only where the log has queues).
_ORDERS = {
    "fcfs": ("submit", "sjf", "wfp", "queue"),
    "easy": ("submit", "sjf", "wfp", "queue"),
    "conservative": ("submit", "sjf"),
}
_CELL = "cosched.experiments.fit:fit_cell"
_VERSION = 2  # part of every cell's identity: a change of the scoring starts afresh


@dataclass(frozen=True)
class Baseline:
    """One configuration of the baseline scheduler."""

    policy: str = "easy"
    window: int | None = None
    order: str = "submit"
    partitions: bool = False
    estimates: str = "requested"
    max_jobs_per_user: int | None = None
    max_procs_per_user: int | None = None
    half_life: float | None = None  #: the fair-share half-life (order=fairshare only)
    outages: bool = False  #: replay the unavailability read from the log (FitInput)

    def params(self) -> dict[str, Any]:
        """The policy's parameters (:func:`cosched.policies.base.make_policy`)."""
        out: dict[str, Any] = {"order": self.order}
        if self.policy == "easy" and self.window is not None:
            out["window"] = self.window
        if self.max_jobs_per_user is not None:
            out["max_jobs_per_user"] = self.max_jobs_per_user
        if self.max_procs_per_user is not None:
            out["max_procs_per_user"] = self.max_procs_per_user
        if self.order == "fairshare" and self.half_life is not None:
            out["fairshare_half_life"] = self.half_life
        return out

    def policy_string(self) -> str:
        """The policy with its parameters as ``compare --policies`` takes them."""
        params = ",".join(f"{k}={v}" for k, v in self.params().items())
        return f"{self.policy}({params})"

    def flags(self) -> str:
        """The policy with its parameters as ``cosched run`` and ``validate`` take them."""
        params = "".join(f" -P {k}={v}" for k, v in self.params().items())
        return f"--policy {self.policy}{params} --estimates {self.estimates}"

    def label(self) -> str:
        """A short human label."""
        window = f" window={self.window}" if self.policy == "easy" and self.window else ""
        parts = "on" if self.partitions else "off"
        site = ""
        if self.order == "fairshare" and self.half_life is not None:
            site += f" half-life={self.half_life:g}s"
        if self.max_jobs_per_user is not None:
            site += f" max-jobs/user={self.max_jobs_per_user}"
        if self.max_procs_per_user is not None:
            site += f" max-procs/user={self.max_procs_per_user}"
        if self.outages:
            site += " outages=on"
        return (
            f"{self.policy}{window} order={self.order}{site} partitions={parts} "
            f"estimates={self.estimates}"
        )


#: The reference the fit is measured against: EASY as ``cosched run`` runs it.
PLAIN_EASY = Baseline()


def space(*, queues: bool, partitions: bool) -> list[Baseline]:
    """The declared configurations, plain EASY first, then in a fixed order (which breaks
    ties of the fit score: the earlier configuration wins)."""
    out = [PLAIN_EASY]
    for policy, orders in _ORDERS.items():
        windows = WINDOWS if policy == "easy" else (None,)
        for window, order, parts, est in itertools.product(
            windows, orders, (False, True), ("requested", "exact")
        ):
            if (order == "queue" and not queues) or (parts and not partitions):
                continue
            b = Baseline(policy, window, order, parts, est)
            if b != PLAIN_EASY:
                out.append(b)
    return out


# -- the input: the log, split, ranked and partitioned --------------------------------


@dataclass(frozen=True)
class FitInput:
    """What every configuration runs on.

    Attributes:
        workload: the jobs with a logged start (``recorded_start``), ``queue`` holding
            the learned rank and ``partition`` a partition number (0, 1, ...).
        platform: the machine.
        fit_jobs: the first ``fit_jobs`` jobs (by submit time) are the fit part.
        sizes: nodes of each partition (index: partition number); empty when the log
            has fewer than two partitions.
        queues: whether the log has two queues or more (the ``queue`` order applies).
        notes: the readings made (``assumed`` lines of the report).
        limits: the candidate per-user limits read from the fit part
            (:func:`user_peaks`): the most jobs and the most processors one user ran at
            once; None when the fit part records no users (SWF field 12).
        unavailable: the unavailability intervals ``(start, end, units)`` read from the
            log (:mod:`cosched.experiments.unavailability`: the fit part's from its
            recorded starts, the held-out part's from its submissions only), replayed by
            configurations with ``outages`` on.
        partition_limits: with two partitions or more, the same peaks counted within
            a partition (:func:`user_peaks` by partition): the limits the site stage
            searches around a configuration with partitions on, where each partition
            runs alone and a limit counts within it.
        recorded: whether ``unavailable`` is the site's records
            (:mod:`cosched.experiments.outage_records`) rather than read from the log.
    """

    workload: Workload
    platform: Platform
    fit_jobs: int
    sizes: tuple[int, ...]
    queues: bool
    notes: tuple[str, ...]
    limits: tuple[int, int] | None = None
    unavailable: tuple[tuple[float, float, int], ...] = ()
    partition_limits: tuple[int, int] | None = None
    recorded: bool = False


def prepare(
    w: Workload, platform: Platform, split: float = SPLIT, records: OutageRecords | None = None
) -> FitInput:
    """The fit's input from a workload annotated with ``recorded_start``. With
    ``records`` (the site's records of node failures and reservations:
    :mod:`cosched.experiments.outage_records`), the configurations with ``outages`` on
    replay the recorded intervals on both parts instead of the inferred ones.

    Raises:
        ConfigError: ``split`` outside (0, 1), or a part would hold no job.
    """
    if not 0.0 < split < 1.0:
        raise ConfigError(f"--split must be between 0 and 1 (exclusive), got {split:g}")
    n = len(w)
    k = math.ceil(split * n)
    if k < 1 or k >= n:
        raise ConfigError(f"--split {split:g} of {n} jobs leaves the fit or held-out part empty")
    t = w.columns
    rank, queue_note = _queue_ranks(t, k)
    group, names = _partition_groups(t)
    notes = [queue_note] if queue_note else []
    sizes: tuple[int, ...] = ()
    if len(names) >= 2:
        sizes, size_note = _partition_sizes(t, group, len(names), k, platform)
        notes.append(size_note.format(names=names))
    table = {
        "job_id": t["job_id"],
        "submit_time": t["submit_time"],
        "run_time": t["run_time"],
        "requested_time": t["requested_time"],
        "procs": t["procs"],
        "queue": rank,
        "partition": group.astype(np.float64),
        "recorded_start": t["recorded_start"],
    }
    limits = part_limits = None
    if "user_id" in t and np.isfinite(np.asarray(t["user_id"], dtype=np.float64)[:k]).any():
        table["user_id"] = t["user_id"]
        limits = user_peaks(t, k)
        notes.append(
            f"user limits are searched at the most jobs ({limits[0]}) and processors "
            f"({limits[1]}) one user (SWF field 12) ran at once in the fit part's logged "
            "schedule: the tightest limits the fit part never broke"
        )
        if sizes:
            part_limits = user_peaks(t, k, group)
            notes.append(
                f"with partitions=on, where a limit counts within a partition, at the most "
                f"jobs ({part_limits[0]}) and processors ({part_limits[1]}) one user ran "
                "at once in one partition"
            )
    if records is not None:
        notes.append(records.note())
        unavailable = records.intervals
    else:
        unavailable = _inferred(t, platform, k, limits, notes)
    fitted = Workload.from_table(pd.DataFrame(table), name=w.name)
    queues = bool(np.unique(rank[~np.isnan(rank)]).size > 1)
    return FitInput(
        fitted,
        platform,
        k,
        sizes,
        queues,
        tuple(notes),
        limits,
        unavailable,
        part_limits,
        records is not None,
    )


def _inferred(
    t: Any, platform: Platform, k: int, limits: tuple[int, int] | None, notes: list[str]
) -> tuple[tuple[float, float, int], ...]:
    """The unavailability the declared rules read from the log (its note appended)."""
    gone = infer(
        np.asarray(t["submit_time"]),
        np.asarray(t["recorded_start"]),
        np.asarray(t["run_time"]),
        platform.units_array(np.asarray(t["procs"])),
        platform.capacity,
        k,
        np.asarray(t["user_id"]) if limits is not None else None,
        limits,
        np.asarray(t["procs"]),
    )
    if gone.intervals:
        notes.append(_outage_note(gone))
    return gone.intervals


def _outage_note(gone: Unavailability) -> str:
    """The ``assumed`` line of the unavailability read."""
    hours = sum(b - a for a, b, _ in gone.fit) / 3600.0
    held = (
        f"the held-out part {len(gone.held)} from submission gaps longer than "
        f"{gone.threshold / 3600.0:.1f} h (the longest fit-part gap that overlapped none), "
        f"{gone.units} units each"
        if gone.held
        else "the held-out part none (no fit-part submission gap marked one)"
    )
    return (
        f"outages=on replays unavailability read from the log: the fit part "
        f"{len(gone.fit)} intervals ({hours:.1f} h) where its smallest queued job that its "
        f"user could start fitted the idle units for an hour or more; {held}; drained "
        "as units come free"
    )


def user_peaks(t: Any, k: int, group: np.ndarray | None = None) -> tuple[int, int]:
    """The most jobs and the most processors one user held at once among the first
    ``k`` jobs (the fit part), by their logged starts and run times; jobs without a user
    are not counted. Only the fit part's recorded starts are read. With ``group`` (each
    job's partition), a user's jobs in each partition count apart."""
    from cosched.metrics.validate import peak_level

    user = np.asarray(t["user_id"], dtype=np.float64)[:k]
    start = np.asarray(t["recorded_start"], dtype=np.float64)[:k]
    end = start + np.asarray(t["run_time"], dtype=np.float64)[:k]
    procs = np.asarray(t["procs"], dtype=np.int64)[:k]
    ones = np.ones(k, dtype=np.int64)
    jobs = procs_peak = 1
    part = np.zeros(k) if group is None else np.asarray(group, dtype=np.float64)[:k]
    for u, g in {(a, b) for a, b in zip(user, part, strict=True) if np.isfinite(a)}:
        m = (user == u) & (part == g)
        jobs = max(jobs, int(peak_level(start[m], end[m], ones[m])))
        procs_peak = max(procs_peak, int(peak_level(start[m], end[m], procs[m])))
    return jobs, procs_peak


def site_space(inp: FitInput, base: Baseline) -> list[Baseline]:
    """The site stage's configurations around ``base`` (an FCFS or EASY configuration):
    the fit part's user limits (:attr:`FitInput.limits`) on jobs, on processors and on
    both, each with ``base``'s order and with the fair-share order at each of
    :data:`HALF_LIVES`; empty when the log records no users."""
    if inp.limits is None or base.policy not in ("fcfs", "easy"):
        return []
    jobs, procs = inp.limits
    if base.partitions and inp.partition_limits is not None:
        jobs, procs = inp.partition_limits
    out = []
    orders = [(base.order, None), *(("fairshare", h) for h in HALF_LIVES)]
    for (mj, mp), (order, h) in itertools.product(
        ((None, None), (jobs, None), (None, procs), (jobs, procs)), orders
    ):
        b = replace(base, order=order, half_life=h, max_jobs_per_user=mj, max_procs_per_user=mp)
        if b != base:
            out.append(b)
    return out


def _queue_ranks(t: Any, k: int) -> tuple[np.ndarray, str]:
    """Each job's queue rank (NaN without a queue) and the note saying how they were set."""
    queue = np.asarray(t["queue"], dtype=np.float64) if "queue" in t else np.full(len(t), np.nan)
    values = np.unique(queue[~np.isnan(queue)])
    if values.size < 2:
        return queue, ""
    wait = np.asarray(t["recorded_start"]) - np.asarray(t["submit_time"])
    fit_q, fit_w = queue[:k], wait[:k]
    means = {q: float(fit_w[fit_q == q].mean()) for q in values if (fit_q == q).any()}
    order = sorted(values, key=lambda q: (q not in means, means.get(q, 0.0), q))
    rank = np.full(len(queue), np.nan)
    for r, q in enumerate(order):
        rank[queue == q] = r
    shown = ", ".join(f"{int(q)}" for q in order)
    note = (
        "order=queue ranks the queues (SWF field 15) by the mean logged wait of their "
        f"fit-part jobs, shortest first: {shown}"
    )
    return rank, note


def partition_procs(w: Workload, inp: FitInput) -> tuple[tuple[float, int], ...]:
    """Each partition of the log ``inp`` was prepared from, as ``compare`` carries it
    (:attr:`MachineFlags.partitions <cosched.policies.requirements.MachineFlags.partitions>`):
    its SWF field 16 value (-1: the jobs without one) and its processors (the fit's
    nodes, :attr:`FitInput.sizes`, times the cores per node)."""
    part = np.asarray(w.columns["partition"], dtype=np.float64)
    values = np.unique(np.where(np.isnan(part), -1.0, part))
    if len(values) != len(inp.sizes):
        raise ConfigError(f"{len(values)} partitions in the log, {len(inp.sizes)} sizes fitted")
    cores = inp.platform.cores
    return tuple((float(v), int(n) * cores) for v, n in zip(values, inp.sizes, strict=True))


def _partition_groups(t: Any) -> tuple[np.ndarray, list[str]]:
    """Each job's partition number (0, 1, ...) and the log's partition of each number."""
    if "partition" not in t:
        return np.zeros(len(t), dtype=np.int64), ["all"]
    part = np.asarray(t["partition"], dtype=np.float64)
    part = np.where(np.isnan(part), -1.0, part)
    values, group = np.unique(part, return_inverse=True)
    return group.astype(np.int64), [("none" if v < 0 else str(int(v))) for v in values]


def _partition_sizes(
    t: Any, group: np.ndarray, count: int, k: int, platform: Platform
) -> tuple[tuple[int, ...], str]:
    """Nodes of each partition (see the module's readings) and the note saying so."""
    from cosched.metrics.validate import peak_level

    units = platform.units_array(np.asarray(t["procs"]))
    start = np.asarray(t["recorded_start"], dtype=np.float64)
    end = start + np.asarray(t["run_time"], dtype=np.float64)
    fit = np.arange(len(units)) < k
    widest = np.array([units[group == g].max() for g in range(count)], dtype=np.int64)
    peak = np.array(
        [peak_level(start[m], end[m], units[m]) for g in range(count) for m in [fit & (group == g)]]
    )
    want = np.maximum(widest, peak.astype(np.int64))
    scaled = want.sum() > platform.capacity
    if scaled:
        want = np.maximum(widest, np.floor(want * platform.capacity / want.sum()).astype(np.int64))
    per_node = platform.cores if platform.allocation is Allocation.CORES else 1
    nodes = tuple(int(-(-int(u) // per_node)) for u in want)
    over = (
        f"; at least their widest jobs, they still add up to {int(want.sum())} of the "
        f"machine's {platform.capacity} units: the partitions share nodes, and "
        "partitions=on overstates the machine"
        if want.sum() > platform.capacity
        else ""
    )
    shown = ", ".join(f"{{names[{g}]}}: {n}" for g, n in enumerate(nodes))
    note = (
        "partitions=on makes each partition (SWF field 16) its own machine (assumes they "
        "share no nodes), sized by its widest job or the most units its fit-part jobs held at once "
        f"in the logged schedule{', scaled down to the machine' if scaled else ''}; "
        f"nodes {shown}{over}"
    )
    return nodes, note


# -- one configuration ------------------------------------------------------------------


def simulate_baseline(inp: FitInput, b: Baseline, seed: int = 0) -> np.ndarray:
    """Each job's simulated start under configuration ``b`` (in the workload's order)."""
    from cosched.engine.simulation import simulate
    from cosched.policies.base import make_policy

    w, p = inp.workload, inp.platform
    if b.outages and inp.unavailable and not b.partitions:
        p = replace(p, unavailable=inp.unavailable)
    if not (b.partitions and inp.sizes):
        return _starts(simulate, make_policy, w, p, b, seed)
    from cosched.engine.partitions import simulate_partitioned

    group = np.asarray(w.columns["partition"], dtype=np.int64)
    result = simulate_partitioned(
        w,
        p,
        lambda: make_policy(b.policy, **b.params()),
        group,
        inp.sizes,
        estimates=b.estimates,
        rng=np.random.default_rng(seed),
    )
    return _checked_starts(w, result)


def _starts(
    simulate: Callable[..., Any],
    make_policy: Callable[..., Any],
    w: Workload,
    p: Platform,
    b: Baseline,
    seed: int,
) -> np.ndarray:
    policy = make_policy(b.policy, **b.params())
    result = simulate(w, p, policy, estimates=b.estimates, rng=np.random.default_rng(seed))
    return _checked_starts(w, result)


def _checked_starts(w: Workload, result: Any) -> np.ndarray:
    jobs = result.jobs
    if not np.array_equal(jobs["job_id"].to_numpy(), np.asarray(w.columns["job_id"])):
        raise ConfigError(f"the simulation of {w.name} did not keep the jobs' order")
    return jobs["start_time"].to_numpy(dtype=np.float64)


def _table(inp: FitInput, start: np.ndarray) -> pd.DataFrame:
    t = inp.workload.columns
    run = np.asarray(t["run_time"], dtype=np.float64)
    return pd.DataFrame(
        {
            "job_id": t["job_id"],
            "submit_time": t["submit_time"],
            "start_time": start,
            "end_time": start + run,
            "procs": t["procs"],
            "size": inp.platform.units_array(np.asarray(t["procs"])),
            "run_time": run,
        }
    )


def _compare(inp: FitInput, sim: np.ndarray, rows: slice, within: float) -> ScheduleComparison:
    logged = np.asarray(inp.workload.columns["recorded_start"], dtype=np.float64)
    p = inp.platform
    return compare_schedules(
        _table(inp, logged).iloc[rows],
        _table(inp, sim).iloc[rows],
        capacity=p.capacity,
        capacity_procs=p.procs,
        within=within,
    )


def score_of(cmp: ScheduleComparison) -> dict[str, float]:
    """The declared score of a comparison (see the module): ``ks``, ``class_error``,
    ``score`` (their sum) and ``within`` (the share started within the tolerance)."""
    errors = []
    for d in JobClasses().duration_names():
        for wd in ("narrow", "wide"):
            key = f"{d}_{wd}_mean_wait"
            a, b = cmp.recorded.get(key, math.nan), cmp.simulated.get(key, math.nan)
            if math.isfinite(a) and math.isfinite(b):
                top = max(a, b)
                errors.append(abs(a - b) / top if top > 0 else 0.0)
    err = float(np.mean(errors)) if errors else 0.0
    return {
        "ks": cmp.ks_statistic,
        "class_error": err,
        "score": cmp.ks_statistic + err,
        "within": cmp.within_share,
        "mean_wait_sim": cmp.simulated["mean_wait"],
        "mean_wait_log": cmp.recorded["mean_wait"],
    }


def segments(k: int) -> int:
    """The search segment's jobs of a fit part of ``k`` jobs: the first ``k`` minus the
    validation segment's ``ceil(k * VALIDATION)`` (at least one job in each)."""
    return max(1, min(k - 1, k - math.ceil(k * VALIDATION))) if k > 1 else k


def evaluate(
    inp: FitInput, b: Baseline, seed: int, within: float, jobs: int | None = None
) -> dict[str, float]:
    """Fit, search, validation and held-out scores of configuration ``b`` (``fit.*``:
    the fit part; ``search.*`` and ``val.*``: its earlier and later segments,
    :func:`segments`; ``held.*``); with ``jobs`` shorter than the log, the scores of
    the first ``jobs`` jobs simulated alone (the ones of each part among them; NaN for a
    part with none of them) and no held-out scores."""
    n, k = len(inp.workload), inp.fit_jobs
    s = segments(k)
    if jobs is not None and jobs < n:
        head = np.arange(n) < jobs
        part = replace(inp, workload=inp.workload.rows(head, f"first {jobs} jobs"))
        sim = simulate_baseline(part, b, seed)
        parts = {"fit": slice(0, min(jobs, k)), "search": slice(0, min(jobs, s))}
        if jobs > s:
            parts["val"] = slice(s, min(jobs, k))
        out = {p: score_of(_compare(part, sim, r, within)) for p, r in parts.items()}
        names = list(out["fit"])
        nan = dict.fromkeys(names, math.nan)
        return {f"{p}.{m}": out.get(p, nan)[m] for p in _PARTS for m in names}
    sim = simulate_baseline(inp, b, seed)
    rows = {"fit": slice(0, k), "search": slice(0, s), "val": slice(s, k), "held": slice(k, None)}
    out = {p: score_of(_compare(inp, sim, rows[p], within)) for p in _PARTS}
    return {f"{p}.{m}": v for p in _PARTS for m, v in out[p].items()}


# -- the cells ----------------------------------------------------------------------------


@lru_cache(maxsize=2)
def _load(path: str, digest: str) -> FitInput:
    """The input a parent wrote (:func:`_write_input`), read once per worker process."""
    meta = json.loads(Path(path).with_suffix(".json").read_text())
    table = pd.read_parquet(path)
    w = Workload.from_table(table, name=meta["name"])
    p = Platform(nodes=meta["nodes"], cores=meta["cores"], allocation=meta["allocation"])
    gone = tuple((float(a), float(b), int(u)) for a, b, u in meta.get("unavailable", []))
    return FitInput(w, p, meta["fit_jobs"], tuple(meta["sizes"]), meta["queues"], (), None, gone)


def fit_cell(payload: tuple[str, str, dict[str, Any], int, float, int], env: CellEnv) -> CellResult:
    """One configuration: its fit and held-out scores (on the first ``jobs`` jobs: the
    fit scores of that prefix only)."""
    path, digest, config, seed, within, jobs = payload
    inp = _load(path, digest)
    b = Baseline(**config)
    started = time.perf_counter()
    metrics = evaluate(inp, b, seed, within, jobs)
    return CellResult(metrics, info={"seconds": time.perf_counter() - started})


def _digest(inp: FitInput) -> str:
    h = hashlib.sha256()
    t = inp.workload.columns
    for name in t:
        h.update(name.encode())
        h.update(np.ascontiguousarray(t[name], dtype=np.float64).tobytes())
    p = inp.platform
    h.update(canonical([p.nodes, p.cores, p.allocation.value, inp.fit_jobs, inp.sizes]).encode())
    if inp.unavailable:
        h.update(canonical([list(x) for x in inp.unavailable]).encode())
    return h.hexdigest()[:20]


def _write_input(inp: FitInput, out: Path, digest: str) -> str:
    path = out / f"fit-input-{digest}.parquet"
    if not path.exists():  # written last, and whole: its presence says both files are
        p = inp.platform
        meta = {
            "name": inp.workload.name,
            "nodes": p.nodes,
            "cores": p.cores,
            "allocation": p.allocation.value,
            "fit_jobs": inp.fit_jobs,
            "sizes": list(inp.sizes),
            "queues": inp.queues,
            "unavailable": [list(x) for x in inp.unavailable],
        }
        with atomic(path.with_suffix(".json")) as tmp:
            tmp.write_text(canonical(meta) + "\n")
        with atomic(path) as tmp:
            inp.workload.table.to_parquet(tmp, index=False)
    return str(path)


# -- the fit ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FitResult:
    """The fitted baseline.

    Attributes:
        table: one row per configuration (in the order searched): its features, the
            jobs of its longest run (``jobs``: the whole log, or the prefix on which the
            halving left it) and that run's scores (held-out ones NaN on a prefix).
        chosen: the configuration :func:`choose` chooses (the ``nested`` rule).
        seconds: wall time of the fit, cells already stored included at no cost.
        input: what the configurations ran on.
        within: the tolerance (s) of the ``within`` share.
        configs: the configurations of the table's rows, in order.
    """

    table: pd.DataFrame
    chosen: Baseline
    seconds: float
    input: FitInput
    within: float
    configs: tuple[Baseline, ...]

    def whole(self) -> np.ndarray:
        """Which rows ran on the whole log (the others stopped on a prefix)."""
        return np.asarray(self.table["jobs"].to_numpy() >= len(self.input.workload))

    def row(self, b: Baseline) -> pd.Series:
        """The scores of configuration ``b``."""
        return self.table.loc[self.table["config"] == b.label()].iloc[0]

    def contributions(self) -> list[tuple[str, str, float]]:
        """Per feature where the chosen configuration differs from plain EASY: the feature,
        the change, and how much the held-out score worsens when that feature alone is
        reset to plain EASY's value (positive: the feature helps)."""
        c, out = self.chosen, []
        base = float(self.row(c)["held.score"])
        for f in FEATURES:
            if getattr(c, f) == getattr(PLAIN_EASY, f):
                continue
            other = replace(c, **{f: getattr(PLAIN_EASY, f)})
            if other.policy != "easy":
                other = replace(other, window=None)
            if other.order != "fairshare":
                other = replace(other, half_life=None)
            rows = self.table["config"] == other.label()
            if not rows.any() or not np.isfinite(self.table.loc[rows, "held.score"].iloc[0]):
                continue  # not searched, or left on a prefix by the halving
            value = float(self.table.loc[rows, "held.score"].iloc[0]) - base
            change = f"{_shown(f, getattr(c, f))} (plain EASY: {_shown(f, getattr(PLAIN_EASY, f))})"
            out.append((f, change, value))
        return out


def _shown(feature: str, value: Any) -> str:
    if feature == "partitions":
        return "on" if value else "off"
    if feature == "window" and value is None:
        return "whole queue"
    if feature == "outages":
        return "on" if value else "off"
    if feature.startswith("max_") and value is None:
        return "none"
    return str(value)


def unrunnable(b: Baseline) -> list[str]:
    """What of ``b`` ``cosched compare``'s arms do not run, each with why (empty: ``b``
    runs as an arm). The outages read from the log they run: each arm whose machine is
    counted in units takes them, and the partitions each arm whose machine can be cut
    into them (:func:`cosched.compare.study.with_site`)."""
    out = []
    if b.estimates != "requested":
        out.append("exact estimates (compare's arms see the users' requests)")
    if b.order == "queue":
        out.append("learned queue ranks (compare's arms read the log's queue numbers)")
    return out


def runnable(b: Baseline) -> bool:
    """Whether ``cosched compare`` can run ``b`` as an arm (:func:`unrunnable`)."""
    return not unrunnable(b)


def best_runnable(result: FitResult) -> Baseline:
    """The configuration :func:`choose` chooses among those :func:`runnable` (plain EASY
    is one)."""
    return choose(result, keep=runnable)


def complexity(b: Baseline) -> int:
    """How many of :data:`FEATURES` ``b`` sets otherwise than plain EASY (a fair-share
    half-life is part of its order)."""
    return sum(getattr(b, f) != getattr(PLAIN_EASY, f) for f in FEATURES)


def ks_noise(result: FitResult) -> float:
    """The margin of :func:`choose`: the two-sample KS critical value at 5 % for the
    validation segment's jobs (:data:`KS_CRITICAL`)."""
    k = result.input.fit_jobs
    m = max(1, k - segments(k))
    return KS_CRITICAL * math.sqrt(2.0 / m)


#: The selection rules :func:`choose` knows: the fit's (``nested``) first, then the
#: alternatives docs/validate.md measures beside it.
RULES = ("nested", "fit", "val", "margin")


def choose(
    result: FitResult,
    rule: str = "nested",
    keep: Callable[[Baseline], bool] | None = None,
) -> Baseline:
    """The configuration chosen among those run on the whole log (and kept by ``keep``).

    ``nested`` (the fit's rule): the lowest score on the fit part's validation segment
    (its later :data:`VALIDATION` share) among plain EASY and the configurations that
    beat plain EASY's score on both the search segment (the earlier rest, which also
    ranked the halving) and the validation segment; ties by the declared order. A
    configuration that matches the first segment better and the second worse is not
    chosen over the simplest one. The held-out part is not read.

    The alternatives (:data:`RULES`, measured in docs/validate.md): ``fit``, the lowest
    score on the whole fit part; ``val``, the lowest validation score; ``margin``, the
    simplest configuration (:func:`complexity`) whose validation score is within
    :func:`ks_noise` of the lowest."""
    if rule not in RULES:
        raise ConfigError(f"unknown selection rule {rule!r}; one of {', '.join(RULES)}")
    ok = result.whole() & np.array([keep is None or keep(b) for b in result.configs])
    if not ok.any():
        raise ConfigError("no configuration of the fit ran on the whole log")
    t = result.table

    def column(name: str) -> np.ndarray:
        values = np.where(ok, t[name].to_numpy(dtype=np.float64), np.inf)
        return np.where(np.isnan(values), np.inf, values)

    val = column("val.score")
    if rule == "fit":
        return result.configs[int(np.argmin(column("fit.score")))]
    if rule == "val":
        return result.configs[int(np.argmin(val))]
    if rule == "margin":
        best = float(val.min())
        near = [i for i in range(len(val)) if val[i] <= best + ks_noise(result)]
        pick = min(near, key=lambda i: (complexity(result.configs[i]), val[i], i))
        return result.configs[pick]
    search = column("search.score")
    base = result.configs.index(PLAIN_EASY) if PLAIN_EASY in result.configs else None
    if base is not None and ok[base]:
        beat = (search < search[base]) & (val < val[base])
        beat[base] = True
        val = np.where(beat, val, np.inf)
    return result.configs[int(np.argmin(val))]


def run_fit(
    inp: FitInput,
    out: str | Path,
    *,
    seed: int = 0,
    within: float = 3600.0,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    argv: Sequence[str] | None = None,
    first_rung: int = FIRST_RUNG,
    outages: bool = True,
) -> FitResult:
    """Run the configurations of :func:`space` and of the outage and site stages into
    store ``out`` and choose.

    Each stage is searched by successive halving (see the module): its configurations
    run on the first ``first_rung`` jobs, the best third by the search segment's score
    (at least :data:`KEEP`, plain EASY always) on three times as many, and so on while
    the prefix is shorter than the fit part; the survivors run on the whole log.
    :func:`choose` chooses among the whole-log runs (rule ``nested``). ``outages=False`` leaves out
    the outage stage (with ``first_rung`` past the fit part, the search as it was before
    the outage stage and the halving: the docs' tables compare the two).
    """
    started = time.perf_counter()
    out = Path(out)
    digest = _digest(inp)
    path = _write_input(inp, out, digest)
    n, k = len(inp.workload), inp.fit_jobs
    configs: list[Baseline] = []
    tasks: list[CellTask] = []
    deepest: dict[Baseline, CellTask] = {}  # each configuration's longest run
    meta = {"experiment": "validate-fit", "input": digest, "seed": seed, "within": within}
    results = pd.DataFrame()

    def task(b: Baseline, jobs: int) -> CellTask:
        ident: dict[str, Any] = {"fit": _VERSION, "input": digest, "config": asdict(b),
                                 "seed": seed, "within": within}  # fmt: skip
        if jobs < n:
            ident["jobs"] = jobs
        key = hashlib.sha256(canonical(ident).encode()).hexdigest()[:16]
        cols = {f: (str(v) if v is not None else None) for f, v in asdict(b).items()}
        payload = (path, digest, asdict(b), seed, within, jobs)
        label = b.label() if jobs >= n else f"{b.label()} (first {jobs} jobs)"
        return CellTask(key, cols | {"seed": seed, "jobs": jobs}, _CELL, payload, label)

    def run(batch: Sequence[Baseline], jobs: int) -> None:
        nonlocal results
        more = [task(b, jobs) for b in batch]
        for b, t in zip(batch, more, strict=True):
            if b not in deepest:
                configs.append(b)
            deepest[b] = t
        tasks.extend(t for t in more if t.key not in {x.key for x in tasks})
        results = run_tasks(
            tasks, out, meta=meta, executor=executor, progress=progress, argv=argv
        ).set_index("key")

    def score(b: Baseline) -> float:
        return float(results.loc[deepest[b].key, "search.score"])

    def stage(batch: Sequence[Baseline]) -> None:
        alive = [b for b in dict.fromkeys(batch) if b not in deepest]
        jobs = first_rung
        while jobs < k and len(alive) > KEEP:
            run(alive, jobs)
            ranked = sorted(alive, key=lambda b: (score(b), alive.index(b)))
            keep = ranked[: max(KEEP, math.ceil(len(alive) / 3))]
            alive = [b for b in alive if b in keep or b == PLAIN_EASY]
            jobs *= 3
        if alive:
            run(alive, n)

    def whole(keep: Callable[[Baseline], bool]) -> list[Baseline]:
        """The configurations run on the whole log that ``keep`` keeps, best fit first."""
        done = [b for b in configs if keep(b) and deepest[b].payload[-1] >= n]
        return sorted(done, key=lambda b: (score(b), configs.index(b)))

    stage(space(queues=inp.queues, partitions=bool(inp.sizes)))
    # The outage stage: the unavailability read from the log replayed under plain EASY
    # and under the best FCFS or EASY configurations so far that run one pool (their
    # compiled pass replays it; conservative's does not, and its general loop under
    # thousands of intervals costs tens of times what EASY does: docs/validate.md).
    gone = outages and bool(inp.unavailable)
    if gone:
        bests = whole(lambda b: not b.partitions and b.policy in ("fcfs", "easy"))
        bests = bests[:OUTAGE_BASES]
        stage([replace(b, outages=True) for b in [PLAIN_EASY, *bests]])
    # The site stage: user limits and fair-share around plain EASY (with the outages too,
    # when read; in the partitions, when the log has them) and around the best FCFS or
    # EASY configuration by the search segment's score (ties: the earlier one).
    simple = whole(lambda b: b.policy in ("fcfs", "easy"))
    bases = [PLAIN_EASY, *([replace(PLAIN_EASY, outages=True)] if gone else [])]
    bases += [replace(PLAIN_EASY, partitions=True)] if inp.sizes else []
    bases += simple[:1]
    stage([b for base in bases for b in site_space(inp, base)])
    rows = []
    for b in configs:
        r = results.loc[deepest[b].key]
        rows.append(
            {"config": b.label(), **asdict(b), "jobs": deepest[b].payload[-1],
             **{c: r[c] for c in _SCORES}}
        )  # fmt: skip
    table = pd.DataFrame(rows)
    result = FitResult(table, PLAIN_EASY, 0.0, inp, within, tuple(configs))
    chosen = choose(result)
    seconds = time.perf_counter() - started
    return FitResult(table, chosen, seconds, inp, within, tuple(configs))


def lacks(result: FitResult, level: str) -> list[str]:
    """What the log does not record that the baseline would need, when the held-out match
    is not close (empty when it is)."""
    if level == "close":
        return []
    inp, c = result.input, result.row(result.chosen)
    out = []
    if not inp.queues:
        out.append("the log records no queues (SWF field 15): queue priorities cannot be fitted")
    if not inp.sizes:
        out.append("the log records no partitions (SWF field 16): the machine is one pool")
    if inp.limits is None:
        out.append(
            "the log records no users (SWF field 12): user limits and fair-share are not fitted"
        )
    sim, log = float(c["held.mean_wait_sim"]), float(c["held.mean_wait_log"])
    if log > 2 * sim:
        held = "per-queue limits" if inp.limits is not None else "per-user or per-queue limits"
        what = "" if inp.recorded else ", reservations, downtime, drained nodes"
        out.append(
            f"held-out jobs waited {log / max(sim, 1.0):.1f}x longer on the machine than under "
            f"the fitted baseline: what held them ({held}, per-group limits{what}) has no "
            "field in an SWF log"
            + ("; the outages recorded in the --unavailability file are replayed" * inp.recorded)
        )
    elif sim > 2 * log:
        out.append(_too_slow(result, sim, log))
    if float(c["held.within"]) >= 0.8:
        out += _cycle(inp)
    if inp.queues:
        out.append(
            "the log records each job's queue (SWF field 15) but not the queues' priorities, "
            "limits or reserved nodes (SWF has no field for them; a header may name them in "
            "comments, which the fit does not read): the fit ranks queues by their fit-part "
            "waits only"
        )
    out += _versus_plain(result)
    out.append(
        "read a what-if against this baseline as a comparison of policies on a model machine, "
        "not as this site's hours"
    )
    return out


def _too_slow(result: FitResult, sim: float, log: float) -> str:
    """The ``lacks`` line when the fitted baseline waits more than twice as long as the
    machine did: the outages it replays, when the same configuration without them does
    not, else a machine larger than the log states."""
    head = f"the fitted baseline waits {sim / max(log, 1.0):.1f}x longer than the machine did: "
    c = result.chosen
    if c.outages:
        rows = result.table["config"] == replace(c, outages=False).label()
        if rows.any() and np.isfinite(result.table.loc[rows, "held.mean_wait_sim"].iloc[0]):
            other = float(result.table.loc[rows, "held.mean_wait_sim"].iloc[0])
            if other <= 2 * log and result.input.recorded:
                return head + (
                    "the recorded outages it replays remove more capacity than the machine "
                    f"lost (without them {other / max(log, 1.0):.1f}x): check the records' "
                    "units, nodes and time zone against the log's"
                )
            if other <= 2 * log:
                return head + (
                    "the outages it replays remove more capacity than the machine lost "
                    f"(without them {other / max(log, 1.0):.1f}x): the log records no node's "
                    "downtime, so the rule reads it from idle stretches and submission gaps"
                )
    return head + "the machine held more than the size the log states (check MaxProcs, --procs)"


def _cycle(inp: FitInput) -> list[str]:
    """A ``lacks`` line when nearly every held-out job waited a little on the machine (the
    scheduler's cycle), which a baseline that starts a job the moment it fits does not
    (asked when the match starts most jobs within the tolerance: the schedules agree
    but for seconds)."""
    t = inp.workload.columns
    k = inp.fit_jobs
    wait = (np.asarray(t["recorded_start"]) - np.asarray(t["submit_time"]))[k:]
    if not len(wait):
        return []
    waited, median = float(np.mean(wait > 0)), float(np.median(wait))
    if waited < 0.9 or median > 60.0:
        return []
    return [
        f"{100 * waited:.0f}% of held-out jobs waited on the machine (median {median:g} s), "
        "as a scheduler that starts jobs on a cycle does, where the baselines start a job "
        "the moment it fits: the log does not record the cycle, and the waits' KS "
        "statistic reads the seconds as a whole distribution apart"
    ]


def _versus_plain(result: FitResult) -> list[str]:
    """``lacks`` lines on the fitted configuration's held-out KS against plain EASY's,
    and on whether any configuration run on the whole log did better there (read for the
    report only: the choice never reads a held-out start)."""
    c, pe = result.row(result.chosen), result.row(PLAIN_EASY)
    ks, pks = float(c["held.ks"]), float(pe["held.ks"])
    whole = result.table.loc[result.whole()]
    i = int(np.argmin(whole["held.ks"].to_numpy()))
    best, label = float(whole["held.ks"].iloc[i]), str(whole["config"].iloc[i])
    out = []
    if ks > pks:
        out.append(
            f"the fitted configuration's held-out KS ({ks:.3f}) is above plain EASY's "
            f"({pks:.3f}): it scored better than plain EASY on both segments of the fit part, "
            "and matches the held-out part less well; the log records no change of the site's "
            "rules over time, so the fit cannot tell a change from chance"
        )
    if best >= min(ks, pks):
        out.append(
            f"no configuration run on the whole log matches the held-out waits better "
            f"(lowest held-out KS {best:.3f}): what orders this site's queue is not in the "
            "space, and an SWF log has no field for accounts, QOS or job priorities"
        )
    elif result.chosen == PLAIN_EASY or ks >= pks:
        out.append(
            f"{label} matches the held-out waits better (KS {best:.3f}), but the fit part "
            "does not single it out (read from the held-out part for this line only)"
        )
    return out


_PARTS = ("fit", "search", "val", "held")
_SCORES = [f"{part}.{n}" for part in _PARTS for n in
           ("ks", "class_error", "score", "within", "mean_wait_sim", "mean_wait_log")]  # fmt: skip
