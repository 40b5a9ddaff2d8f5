"""Summary metrics of a schedule, one definition each (see docs/metrics.md).

All functions take the per-job outcome table of a simulation (columns ``job_id,
submit_time, start_time, end_time, procs, size, run_time``) and never the engine, so
they apply equally to any result loaded back from disk.

* wait = start - submit; turnaround = end - submit; execution = end - start;
* bounded slowdown = max(1, turnaround / max(run_time, tau)), tau = 10 s by default;
* utilization = busy unit-seconds / (capacity units x makespan), where a unit is what
  the platform allocates (a core, or a whole node in node allocation) and makespan =
  last end - first submit; on a shared platform a job's units are its ``occupancy``
  (the slots it really holds, in units), not its nominal size;
* throughput = jobs finished per hour of makespan;
* offered load = sum(run_time x procs) / (capacity procs x (last submit - first submit));
* per class (short / medium / long by run time x narrow / wide by processors, thresholds
  in :class:`JobClasses`): jobs, mean wait, mean turnaround, mean bounded slowdown, as
  ``<duration>_<width>_<metric>`` (e.g. ``short_narrow_mean_wait``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from cosched.errors import ConfigError
from cosched.workload.columns import Columns, columns_of

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DURATION_CLASSES",
    "JobClasses",
    "by_class",
    "class_metrics",
    "node_busy_seconds",
    "outcomes",
    "summarize",
]

#: Run-time classes (upper bounds in seconds), as in lomarc-hyperthreaded-coscheduling.txt.
DURATION_CLASSES: tuple[tuple[str, float], ...] = (
    ("short", 60.0),
    ("medium", 3600.0),
    ("long", np.inf),
)

DEFAULT_PERCENTILES: tuple[int, ...] = (90, 95, 99)


@dataclass(frozen=True)
class JobClasses:
    """Thresholds of the per-class breakdown.

    Attributes:
        short: run times up to this (s) are short (60 s: lomarc-hyperthreaded-
            coscheduling.txt, section 6.2).
        medium: run times up to this (s) are medium, longer ones long (1 h, same source).
        wide_fraction: a job is wide when it takes more than this share of the machine's
            processors.
    """

    short: float = 60.0
    medium: float = 3600.0
    wide_fraction: float = 0.1

    def __post_init__(self) -> None:
        if not 0 < self.short < self.medium:
            raise ConfigError(
                f"class thresholds need 0 < short < medium, got {self.short}, {self.medium}"
            )
        if not 0 < self.wide_fraction < 1:
            raise ConfigError(f"wide_fraction must be in (0, 1), got {self.wide_fraction}")

    def duration_names(self) -> list[str]:
        """The run-time class names, shortest first."""
        return [c for c, _ in DURATION_CLASSES]

    def label(self, procs: np.ndarray, run_time: np.ndarray, capacity_procs: int) -> pd.DataFrame:
        """``duration_class`` and ``width_class`` of each job, as categoricals."""
        idx = np.searchsorted([self.short, self.medium, np.inf], run_time, side="left")
        wide = procs > self.wide_fraction * capacity_procs
        import pandas as pd

        return pd.DataFrame(
            {
                "duration_class": pd.Categorical.from_codes(idx, categories=self.duration_names()),
                "width_class": pd.Categorical(np.where(wide, "wide", "narrow"), ["narrow", "wide"]),
            }
        )


DEFAULT_CLASSES = JobClasses()
_CLASS_METRICS = ("wait_time", "turnaround", "bounded_slowdown")


def outcomes(jobs: pd.DataFrame, *, tau: float = 10.0) -> pd.DataFrame:
    """The table with ``wait_time, turnaround, execution_time, bounded_slowdown`` added."""
    _check_tau(tau)
    out = jobs.copy()
    out["wait_time"] = out["start_time"] - out["submit_time"]
    out["turnaround"] = out["end_time"] - out["submit_time"]
    out["execution_time"] = out["end_time"] - out["start_time"]
    denom = np.maximum(out["run_time"].to_numpy(), tau)
    out["bounded_slowdown"] = np.maximum(1.0, out["turnaround"].to_numpy() / denom)
    return out


def _check_tau(tau: float) -> None:
    if not tau > 0:
        raise ConfigError(f"tau must be > 0, got {tau!r}")


def outcome_columns(jobs: pd.DataFrame | Columns, *, tau: float = 10.0) -> Columns:
    """:func:`outcomes` as numpy columns (the same values, no pandas)."""
    _check_tau(tau)
    out = Columns(columns_of(jobs))  # new columns added; the given ones shared, unchanged
    submit, start, end = out["submit_time"], out["start_time"], out["end_time"]
    out["wait_time"] = start - submit
    out["turnaround"] = end - submit
    out["execution_time"] = end - start
    denom = np.maximum(out["run_time"], tau)
    out["bounded_slowdown"] = np.maximum(1.0, out["turnaround"] / denom)
    return out


def _mean(values: np.ndarray) -> float:
    # pandas' mean: the sum (numpy's pairwise add) divided by the count.
    return float(values.sum() / len(values))


def _quantiles(values: np.ndarray, percentiles: Sequence[float]) -> tuple[float, list[float]]:
    """``np.median(values)`` and ``np.percentile(values, p)`` (linear method) for each
    ``p`` of a non-empty 1-D array, bit for bit, from one partial sort.

    numpy's steps: the median is the middle one or two order statistics and their mean
    (``ndarray.mean``); a percentile's virtual index is ``(n - 1) * (p / 100)``, its
    previous index the floor (-1, the last value, from ``n - 1`` on), ``gamma`` the
    virtual index minus the previous one, and the value ``a + (b - a) * gamma``, or ``b
    - (b - a) * (1 - gamma)`` when ``gamma >= 0.5``. NaN when any value is NaN.
    ``np.median`` and ``np.percentile`` check for NaN and masked arrays through
    ``numpy.ma``, whose import is about 6 ms of a 0.26 s ``cosched run`` on SDSC-SP2,
    and partition the column once each (docs/performance.md, "The fixed cost of a run"). Held
    to numpy's by hypothesis tests (tests/metrics/test_quantiles.py).
    """
    if values.dtype.kind == "f" and np.isnan(values).any():
        return float("nan"), [float("nan")] * len(percentiles)
    n = len(values)
    half = n // 2
    middle = [half - 1, half] if n % 2 == 0 else [half]
    steps = []
    for p in percentiles:
        virtual = (n - 1) * np.true_divide(p, 100)
        previous = int(np.floor(virtual)) if virtual < n - 1 else -1
        lo, hi = (previous, previous + 1) if previous >= 0 else (n - 1, n - 1)
        steps.append((lo, hi, float(virtual - previous)))
    kth = {0, n - 1, *middle, *(k for lo, hi, _ in steps for k in (lo, hi))}
    part = np.partition(values, sorted(kth))
    median = float(part[middle[0] : half + 1].mean())
    out = []
    for lo, hi, gamma in steps:
        a, b = part[lo], part[hi]
        diff = b - a
        if gamma >= 0.5:
            out.append(float(np.subtract(b, diff * (1 - gamma))))
        else:
            out.append(float(np.add(a, diff * gamma)))
    return median, out


def summarize(
    jobs: pd.DataFrame | Columns,
    *,
    capacity: int,
    capacity_procs: int | None = None,
    tau: float = 10.0,
    percentiles: Sequence[int] = DEFAULT_PERCENTILES,
    classes: JobClasses | None = DEFAULT_CLASSES,
    placements: Mapping[int, Sequence[tuple[int, int]]] | None = None,
    nodes: int | None = None,
) -> dict[str, float]:
    """The summary metrics of a schedule, the per-class breakdown included.

    Args:
        jobs: the outcome table (a DataFrame or numpy :class:`Columns`).
        capacity: allocation units of the machine (for utilization).
        capacity_procs: processors of the machine (for offered load); defaults to
            ``capacity``.
        tau: bound of the bounded slowdown, in seconds.
        percentiles: which percentiles of wait, turnaround and bounded slowdown to add
            (as ``p90_wait`` etc.).
        classes: thresholds of the per-class breakdown (None leaves it out).
        placements: where each job ran, for placement-aware runs; with ``nodes``, adds
            ``node_busy_utilization`` (nodes holding at least one job, docs/metrics.md).
        nodes: the machine's node count.
    """
    if capacity < 1:
        raise ConfigError(f"capacity must be >= 1, got {capacity!r}")
    n = len(jobs)
    out: dict[str, float] = {"jobs": float(n)}
    if n == 0:
        return out
    o: Any = outcome_columns(jobs, tau=tau)
    first_submit = float(o["submit_time"].min())
    makespan = float(o["end_time"].max()) - first_submit
    held = o["occupancy"] if "occupancy" in o else o["size"]
    busy = float((held * o["execution_time"]).sum())
    cap_procs = capacity if capacity_procs is None else capacity_procs
    span = float(o["submit_time"].max()) - first_submit
    work = float((o["run_time"] * o["procs"]).sum())
    q = {c: _quantiles(o[c], percentiles) for c in ("wait_time", "turnaround", "bounded_slowdown")}
    out.update(
        mean_wait=_mean(o["wait_time"]),
        median_wait=q["wait_time"][0],
        max_wait=float(o["wait_time"].max()),
        mean_turnaround=_mean(o["turnaround"]),
        median_turnaround=q["turnaround"][0],
        mean_bounded_slowdown=_mean(o["bounded_slowdown"]),
        median_bounded_slowdown=q["bounded_slowdown"][0],
        utilization=busy / (capacity * makespan) if makespan > 0 else float("nan"),
        makespan=makespan,
        throughput=n / makespan * 3600.0 if makespan > 0 else float("nan"),
        offered_load=work / (cap_procs * span) if span > 0 else float("nan"),
    )
    if "wasted" in o and makespan > 0:  # a partitioned machine (Platform.partition)
        out["partition_waste"] = float((o["wasted"] * o["execution_time"]).sum()) / (
            capacity * makespan
        )
    if placements and nodes and makespan > 0:
        out["node_busy_utilization"] = node_busy_seconds(jobs, placements) / (nodes * makespan)
    for k, p in enumerate(percentiles):
        for col, name in (("wait_time", "wait"), ("turnaround", "turnaround")):
            out[f"p{p}_{name}"] = q[col][1][k]
        out[f"p{p}_bounded_slowdown"] = q["bounded_slowdown"][1][k]
    if classes is not None:
        frame = jobs if not isinstance(jobs, Columns) else jobs.to_frame()
        out.update(class_metrics(frame, capacity_procs=cap_procs, tau=tau, classes=classes))
    return out


def by_class(
    jobs: pd.DataFrame,
    *,
    capacity_procs: int,
    tau: float = 10.0,
    wide_fraction: float | None = None,
    classes: JobClasses = DEFAULT_CLASSES,
) -> pd.DataFrame:
    """Mean wait, turnaround and bounded slowdown per run-time class and width class.

    Jobs are short / medium / long by run time and narrow / wide by whether they take
    more than ``classes.wide_fraction`` of the machine's processors (``wide_fraction``
    overrides it). Every class appears, with 0 jobs and NaN means when empty.
    """
    if wide_fraction is not None:
        classes = JobClasses(classes.short, classes.medium, wide_fraction)
    import pandas as pd

    o = outcomes(jobs, tau=tau)
    labels = classes.label(o["procs"].to_numpy(), o["run_time"].to_numpy(), capacity_procs)
    o = pd.concat([o.reset_index(drop=True), labels], axis=1)
    g = o.groupby(["duration_class", "width_class"], observed=False)[list(_CLASS_METRICS)]
    table = g.mean().add_prefix("mean_")
    table.insert(0, "jobs", g.size())
    return table.reset_index()


def class_metrics(
    jobs: pd.DataFrame,
    *,
    capacity_procs: int,
    tau: float = 10.0,
    classes: JobClasses = DEFAULT_CLASSES,
) -> dict[str, float]:
    """:func:`by_class` flattened: ``<duration>_<width>_jobs`` and ``..._mean_<metric>``."""
    out: dict[str, float] = {}
    table = by_class(jobs, capacity_procs=capacity_procs, tau=tau, classes=classes)
    for row in table.itertuples(index=False):
        prefix = f"{row.duration_class}_{row.width_class}"
        out[f"{prefix}_jobs"] = float(row.jobs)
        for m in _CLASS_METRICS:
            short = "wait" if m == "wait_time" else m  # as in mean_wait
            out[f"{prefix}_mean_{short}"] = float(getattr(row, f"mean_{m}"))
    return out


def node_busy_seconds(
    jobs: pd.DataFrame | Columns, placements: Mapping[int, Sequence[tuple[int, int]]]
) -> float:
    """Node-seconds during which a node held at least one job.

    A node shared by several jobs at once counts once (the union of their intervals),
    so ``node_busy_seconds / (nodes x makespan)`` never exceeds 1: the
    ``node_busy_utilization`` of docs/metrics.md.

    Args:
        jobs: the outcome table (row ``i`` is job index ``i``: ``start_time``,
            ``end_time``).
        placements: ``{job index: ((node, slots), ...)}`` of a placement-aware run; a
            mapping with an ``entries()`` method (a compiled run's
            :class:`~cosched.engine.ledger.Placements`) is read from its flat arrays.
    """
    t = columns_of(jobs)
    start = np.asarray(t["start_time"], dtype=float)
    end = np.asarray(t["end_time"], dtype=float)
    flat = getattr(placements, "entries", None)
    if flat is not None:  # a compiled run's placements (engine.ledger.Placements)
        job_of, nodes = flat()
    else:
        held = placements.values()
        counts = np.fromiter(map(len, held), dtype=np.int64, count=len(placements))
        pairs = list(chain.from_iterable(held))
        nodes = np.fromiter(map(itemgetter(0), pairs), dtype=np.int64, count=len(pairs))
        job_of = np.repeat(np.fromiter(placements, dtype=np.int64, count=len(placements)), counts)
    if nodes.size == 0:
        return 0.0
    busy = _compiled_busy(start, end, job_of, nodes)
    if busy is not None:
        return busy
    # Nodes in order of first appearance (g: each entry's node by that rank), each
    # node's intervals by start: the order in which the plain loop (kept in
    # _node_busy_loop) adds the merged lengths. The loop sorts a node's intervals as
    # (start, end) tuples; among equal starts the order of the ends changes no merged
    # interval, so ordering by start alone gives the same lengths.
    g = _first_appearance_ranks(nodes)
    groups = int(g.max()) + 1
    if (np.diff(start[job_of]) >= 0).all():  # jobs in start order (a run's placements)
        o = np.argsort(g.astype(np.int16) if groups <= 1 << 15 else g, kind="stable")
    else:
        o = np.lexsort((start[job_of], g))
    job = job_of[o]
    s, e = start[job], end[job]
    if not (np.isfinite(s).all() and np.isfinite(e).all() and (e >= s).all()):
        return _node_busy_loop(start, end, placements)
    n = e.size
    g = g[o]
    bounds = np.cumsum(np.bincount(g, minlength=groups))[:-1]
    # hi: the running maximum of the ends within each node.
    if groups * 64 <= n:  # few nodes, many intervals each: one accumulation per node
        hi = np.empty(n)
        for lo, up in zip([0, *bounds.tolist()], [*bounds.tolist(), n], strict=True):
            np.maximum.accumulate(e[lo:up], out=hi[lo:up])
    else:  # exactly: the maximum of node rank x n + rank of the end, read back as the end
        by_end = np.argsort(e, kind="stable")
        erank = np.empty(n, dtype=np.int64)
        erank[by_end] = np.arange(n)
        hi = e[by_end][np.maximum.accumulate(g * n + erank) - g * n]
    new = np.ones(n, dtype=bool)
    new[1:] = s[1:] > hi[:-1]
    new[bounds] = True
    heads = np.flatnonzero(new)
    tails = np.append(heads[1:] - 1, n - 1)
    # cumsum adds in order, one by one, as the loop does (sum() may compensate).
    return float(np.cumsum(hi[tails] - s[heads])[-1])


def _compiled_busy(
    start: np.ndarray, end: np.ndarray, job_of: np.ndarray, nodes: np.ndarray
) -> float | None:
    """:func:`~cosched.metrics._busy_kernel.node_busy` compiled ahead of time (the same
    sum in one pass, docs/performance.md), or None where it does not apply: the
    ``busy`` module not built (it is built from :data:`~cosched.metrics._busy_kernel.
    BUILD_FROM` entries), node numbers that are not a small table's indices, entries not
    in start order, a time not finite or backwards."""
    from cosched.compile import compiled_kernel
    from cosched.metrics import _busy_kernel

    node_busy = compiled_kernel(
        _busy_kernel.__name__, "node_busy", build=nodes.size >= _busy_kernel.BUILD_FROM
    )
    if node_busy is None:
        return None
    top = int(nodes.max())
    if int(nodes.min()) < 0 or top >= 4 * nodes.size:
        return None
    # The arrays the compiled function reads as its signature says (a copy only for
    # one that is not: a read-only column of a table read back, say).
    got = node_busy(
        np.require(start, np.float64, ("C", "W")),
        np.require(end, np.float64, ("C", "W")),
        np.require(job_of, np.int64, ("C", "W")),
        np.require(nodes, np.int64, ("C", "W")),
        top + 1,
    )
    return None if got == _busy_kernel.UNSUITED else float(got)


def _first_appearance_ranks(nodes: np.ndarray) -> np.ndarray:
    """Each entry's node numbered by the node's first appearance in ``nodes`` (0, 1,
    ...)."""
    if nodes.min() >= 0 and nodes.max() < 4 * nodes.size:  # node ids: a table by id
        first = np.full(int(nodes.max()) + 1, nodes.size, dtype=np.int64)
        np.minimum.at(first, nodes, np.arange(nodes.size))
        seen = np.flatnonzero(first < nodes.size)
        rank = np.empty(first.size, dtype=np.int64)
        rank[seen[np.argsort(first[seen])]] = np.arange(seen.size)
        return rank[nodes]
    uniq, at = np.unique(nodes, return_index=True)
    rank = np.empty(uniq.size, dtype=np.int64)
    rank[np.argsort(at)] = np.arange(uniq.size)
    return rank[np.searchsorted(uniq, nodes)]


def _node_busy_loop(
    start: np.ndarray, end: np.ndarray, placements: Mapping[int, Sequence[tuple[int, int]]]
) -> float:
    """:func:`node_busy_seconds` one interval at a time (for non-finite or reversed
    times, where the arrays' order could differ from the tuples' sort)."""
    spans: dict[int, list[tuple[float, float]]] = {}
    for idx, placement in placements.items():
        for node, _ in placement:
            spans.setdefault(node, []).append((float(start[idx]), float(end[idx])))
    total = 0.0
    for intervals in spans.values():
        intervals.sort()
        lo, hi = intervals[0]
        for a, b in intervals[1:]:
            if a > hi:
                total += hi - lo
                lo, hi = a, b
            elif b > hi:
                hi = b
        total += hi - lo
    return total
