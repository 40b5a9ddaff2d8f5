"""The fit's search space and its input: the baseline configurations and the log they run on.

:class:`Baseline` is one configuration of the baseline scheduler; :func:`space` declares
the configurations ``cosched validate TRACE --fit`` searches first and :func:`site_space`
those of its site stage (:mod:`cosched.experiments.fit` runs, scores and chooses them).
:func:`prepare` turns a workload annotated with its logged starts into the
:class:`FitInput` every configuration runs on: split into the fit and held-out parts,
its queues ranked, its partitions sized, its users' peaks and its unavailability read.

Readings the input declares:

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
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cosched.errors import ConfigError
from cosched.experiments.unavailability import Unavailability, infer
from cosched.platform.machine import Allocation, Platform
from cosched.workload.job import Workload

if TYPE_CHECKING:
    from cosched.experiments.outage_records import OutageRecords

__all__ = [
    "FEATURES",
    "HALF_LIVES",
    "PLAIN_EASY",
    "SPLIT",
    "WINDOWS",
    "Baseline",
    "FitInput",
    "partition_procs",
    "prepare",
    "site_space",
    "space",
    "user_peaks",
]

#: The default share of the jobs (first by submit time) the fit is chosen on.
SPLIT = 0.5
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
#: EASY's backfill windows in the space (None: the whole queue).
WINDOWS: tuple[int | None, ...] = (None, 20)
#: The orders each policy offers (``queue`` only where the log has queues).
_ORDERS = {
    "fcfs": ("submit", "sjf", "wfp", "queue"),
    "easy": ("submit", "sjf", "wfp", "queue"),
    "conservative": ("submit", "sjf"),
}


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
