"""How closely a simulated schedule matches the recorded one, as functions of two tables.

Both tables are per-job outcome tables (``job_id, submit_time, start_time, end_time,
procs, run_time``) of the same jobs in the same order: the ``recorded`` policy's replay
and a simulated policy's run. :func:`compare_schedules` gives the numbers of
``cosched validate``, :func:`judge` what they mean for a what-if, :func:`binned_level`
the utilization and queue length over time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from cosched.errors import ConfigError
from cosched.metrics.summary import JobClasses, summarize

__all__ = [
    "CLOSE",
    "LOOSE",
    "Judgement",
    "LogMachine",
    "ScheduleComparison",
    "binned_level",
    "compare_schedules",
    "judge",
    "log_machine",
    "over_time",
    "peak_level",
]

#: ``(largest KS statistic, smallest share started within the tolerance)`` of a close
#: match: the two wait distributions are nowhere more than 10 percentage points apart
#: and four jobs in five start within the tolerance of their logged start.
CLOSE = (0.10, 0.80)
#: The same bounds of a loose match: 25 points, half the jobs.
LOOSE = (0.25, 0.50)
#: The largest factor between the logged and the simulated mean wait, and between their
#: tails (95th percentile, else 90th), of a close and of a loose match: a distribution
#: can be near in KS and within-the-hour share while its mean is off four times.
FACTORS = {"close": 1.5, "loose": 2.0}
#: Waits below this share of the tolerance count as this (no factor from seconds).
_FLOOR = 0.1


@dataclass(frozen=True)
class ScheduleComparison:
    """The recorded schedule beside a simulated one.

    Attributes:
        recorded: summary metrics of the recorded schedule (per class included).
        simulated: the same metrics of the simulated schedule.
        ks_statistic: two-sample Kolmogorov-Smirnov statistic between the two wait
            distributions (0: identical, 1: disjoint).
        ks_pvalue: its p-value (scipy's ``ks_2samp``, two-sided).
        within_share: share of jobs whose simulated start is within ``within`` seconds
            of the recorded one.
        within: that tolerance in seconds.
    """

    recorded: dict[str, float]
    simulated: dict[str, float]
    ks_statistic: float
    ks_pvalue: float
    within_share: float
    within: float


@dataclass(frozen=True)
class Judgement:
    """What a :class:`ScheduleComparison` says about a what-if on this machine.

    Attributes:
        level: ``close``, ``loose`` or ``poor``.
        why: the numbers against the thresholds.
        meaning: how far a what-if's numbers can be read as the machine's.
    """

    level: str
    why: str
    meaning: str


_MEANING = {
    "close": "the simulated baseline reproduces the machine's schedule, so a what-if's "
    "numbers (hours of wait and turnaround) can be read as this machine's",
    "loose": "the simulated baseline has the machine's character but not its numbers: "
    "read a what-if as the difference between policies, not as the hours this machine "
    "would see",
    "poor": "the simulated baseline is not what the machine did (its priorities, "
    "reservations, limits or downtime are not in the model): a what-if compares "
    "policies on a model machine fed this workload, and its hours say nothing about "
    "this site's own waits",
}


def judge(cmp: ScheduleComparison) -> Judgement:
    """``close`` when both the KS statistic and the share started within the tolerance
    meet :data:`CLOSE`, ``loose`` when they meet :data:`LOOSE`, else ``poor``.

    The thresholds bound the size of the gap, not its significance: with thousands of
    jobs any difference is significant (p near 0), so a p-value cannot grade the match.
    """
    ks, within = cmp.ks_statistic, cmp.within_share
    errors = wait_errors(cmp)
    worst = max((f for _, _, _, f in errors), default=1.0)
    level = "poor"
    for name, (ks_max, within_min) in (("close", CLOSE), ("loose", LOOSE)):
        if ks <= ks_max and within >= within_min and worst <= FACTORS[name]:
            level = name
            break
    why = (
        f"KS {ks:.3f} and {100 * within:.1f}% within {cmp.within:g} s; close needs KS <= "
        f"{CLOSE[0]:g} and >= {100 * CLOSE[1]:g}%, loose KS <= {LOOSE[0]:g} and "
        f">= {100 * LOOSE[1]:g}% (the largest gap between the two wait distributions, "
        "and the share of jobs started near their logged start)"
    )
    if errors:
        said = ", ".join(
            f"{name} {rec / 3600:.2f} h logged against {sim / 3600:.2f} h simulated ({f:.1f}x)"
            for name, rec, sim, f in errors
        )
        why += (
            f"; {said}: close needs both within {FACTORS['close']:g}x, loose within "
            f"{FACTORS['loose']:g}x"
        )
    return Judgement(level, why, _MEANING[level])


def wait_errors(cmp: ScheduleComparison) -> list[tuple[str, float, float, float]]:
    """``(what, logged, simulated, factor)`` of the mean wait and of the tail (95th
    percentile, else 90th) where both schedules' metrics give them; the factor is the
    larger over the smaller, each at least a tenth of the tolerance."""
    out: list[tuple[str, float, float, float]] = []
    floor = _FLOOR * cmp.within
    for key, name in (("mean_wait", "mean wait"), ("p95_wait", "95th percentile wait"),
                      ("p90_wait", "90th percentile wait")):  # fmt: skip
        if name.startswith("90th") and any(o[0].startswith("95th") for o in out):
            continue
        rec, sim = cmp.recorded.get(key), cmp.simulated.get(key)
        if rec is None or sim is None or not (np.isfinite(rec) and np.isfinite(sim)):
            continue
        hi, lo = max(rec, sim, floor), max(min(rec, sim), floor)
        out.append((name, float(rec), float(sim), hi / lo))
    return out


def compare_schedules(
    recorded: pd.DataFrame,
    simulated: pd.DataFrame,
    *,
    capacity: int,
    capacity_procs: int | None = None,
    classes: JobClasses | None = None,
    within: float = 3600.0,
) -> ScheduleComparison:
    """Compare two outcome tables of the same jobs.

    Raises:
        ConfigError: the tables do not hold the same jobs in the same order.
    """
    if len(recorded) != len(simulated) or not np.array_equal(
        recorded["job_id"].to_numpy(), simulated["job_id"].to_numpy()
    ):
        raise ConfigError("the recorded and simulated schedules do not hold the same jobs")
    if len(recorded) == 0:
        raise ConfigError("no job to compare")
    classes = classes or JobClasses()
    kw = {"capacity": capacity, "capacity_procs": capacity_procs, "classes": classes}
    rec_wait = (recorded["start_time"] - recorded["submit_time"]).to_numpy()
    sim_wait = (simulated["start_time"] - simulated["submit_time"]).to_numpy()
    ks = stats.ks_2samp(rec_wait, sim_wait)
    gap = np.abs(simulated["start_time"].to_numpy() - recorded["start_time"].to_numpy())
    return ScheduleComparison(
        recorded=summarize(recorded, **kw),  # type: ignore[arg-type]
        simulated=summarize(simulated, **kw),  # type: ignore[arg-type]
        ks_statistic=float(ks.statistic),
        ks_pvalue=float(ks.pvalue),
        within_share=float((gap <= within).mean()),
        within=within,
    )


def binned_level(
    begin: np.ndarray, end: np.ndarray, weight: np.ndarray, edges: np.ndarray
) -> np.ndarray:
    """Time-average, over each bin of ``edges``, of sum(weight) over intervals [begin, end).

    Exact for the step function (no sampling): the running level is integrated between
    events and the integral read at the bin edges.
    """
    times = np.concatenate([begin, end]).astype(np.float64)
    deltas = np.concatenate([weight, -weight]).astype(np.float64)
    order = np.argsort(times, kind="stable")
    times, deltas = times[order], deltas[order]
    level = np.cumsum(deltas)  # level from times[k] on
    area = np.concatenate([[0.0], np.cumsum(level[:-1] * np.diff(times))])  # at times[k]
    k = np.searchsorted(times, edges, side="right") - 1
    inside = k >= 0
    kk = np.clip(k, 0, None)
    at_edges = np.where(inside, area[kk] + level[kk] * (edges - times[kk]), 0.0)
    return np.diff(at_edges) / np.diff(edges)


def peak_level(begin: np.ndarray, end: np.ndarray, weight: np.ndarray) -> float:
    """Largest sum of ``weight`` over intervals [begin, end) open at once (an interval
    ending at t does not overlap one starting at t)."""
    if len(begin) == 0:
        return 0.0
    times = np.concatenate([begin, end]).astype(np.float64)
    deltas = np.concatenate([weight, -np.asarray(weight)]).astype(np.float64)
    order = np.lexsort((deltas, times))  # at a tie, ends (negative) first
    return float(np.cumsum(deltas[order]).max())


#: A log that never has more than this share of the stated processors busy at once
#: names a machine too large for it (a wrong cores per node, most often).
UNUSED = 0.5


@dataclass(frozen=True)
class LogMachine:
    """The logged schedule against the stated machine.

    Attributes:
        peak: most processors busy at once in the logged schedule (logged starts).
        procs: processors of the stated machine.
        jobs: jobs with a logged start.
    """

    peak: float
    procs: int
    jobs: int

    def warning(self, flags: str, cores: int | None = None) -> str | None:
        """One line when the log and the machine disagree (None when they agree).

        Args:
            flags: the flags that state the machine, as the command spells them.
            cores: cores per node stated, to say what one core per node would give.
        """
        if self.jobs == 0 or self.procs <= 0:
            return None
        if self.peak > self.procs:
            return (
                f"the log has up to {self.peak:.0f} processors busy at once, more than the "
                f"{self.procs} of the stated machine: check {flags} (the machine may have "
                "grown during the log, or the log counts more than its processors); a replay "
                "of the logged schedule on this machine delays jobs"
            )
        if self.peak < UNUSED * self.procs:
            one = ""
            if cores is not None and cores > 1:
                one = f"; with one core per node it would have {self.procs // cores}"
            return (
                f"the log never has more than {self.peak:.0f} of the stated {self.procs} "
                f"processors busy at once ({100 * self.peak / self.procs:.0f}%): the stated "
                f"machine is likely too large; check {flags} (a wrong cores per node "
                f"multiplies it{one}), else every simulated wait is too short"
            )
        return None


def log_machine(
    submit: np.ndarray, wait: np.ndarray, run: np.ndarray, procs: np.ndarray, capacity: int
) -> LogMachine:
    """:class:`LogMachine` of a log's columns (a wait that is NaN or negative: no
    logged start; a run time that is NaN: none)."""
    submit, wait = np.asarray(submit, dtype=float), np.asarray(wait, dtype=float)
    run, procs = np.asarray(run, dtype=float), np.asarray(procs, dtype=float)
    ok = np.isfinite(wait) & (wait >= 0) & np.isfinite(run) & np.isfinite(procs)
    begin = submit[ok] + wait[ok]
    peak = peak_level(begin, begin + np.maximum(run[ok], 0.0), procs[ok])
    return LogMachine(peak, int(capacity), int(ok.sum()))


def over_time(jobs: pd.DataFrame, capacity_procs: int, edges: np.ndarray) -> pd.DataFrame:
    """Per bin: ``utilization`` (busy processors / capacity) and ``queue`` (mean jobs
    waiting), from an outcome table."""
    procs = jobs["procs"].to_numpy(dtype=np.float64)
    busy = binned_level(jobs["start_time"].to_numpy(), jobs["end_time"].to_numpy(), procs, edges)
    ones = np.ones(len(jobs))
    queue = binned_level(jobs["submit_time"].to_numpy(), jobs["start_time"].to_numpy(), ones, edges)
    return pd.DataFrame({"start": edges[:-1], "utilization": busy / capacity_procs, "queue": queue})
