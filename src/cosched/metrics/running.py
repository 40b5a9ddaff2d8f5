"""The summary metrics of :func:`~cosched.metrics.summary.summarize`, a chunk at a time.

A streamed run hands out its outcome table in chunks (:mod:`cosched.engine.feed`);
:class:`RunningSummary` folds them in and keeps memory bounded:

* counts, maxima, makespan, utilization, throughput, offered load and the per-class
  counts and means come from running sums. A sum of whole numbers below 2**53 (the
  waits, turnarounds, work and busy time of a schedule in whole seconds) is exact in
  any order, so those means equal the in-memory ones bit for bit; a sum of fractions
  (bounded slowdowns, or times of jobs slowed by co-location) is added in another
  order than in memory and may differ in the last bits (relative 1e-15).
* quantiles (medians, ``p90_wait``...): whole values are counted exactly (a count
  per distinct value, up to ``exact_values`` of them: waits and turnarounds in whole
  seconds), fractions (bounded slowdowns) go into a log-bucketed histogram; a
  quantile is exact when every value was counted exactly, and otherwise within a
  relative error of ``relative_error`` (1e-4 by default, plus rounding). Either way
  the interpolation between order statistics is numpy's ``linear`` method, as in
  memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from cosched.errors import ConfigError
from cosched.metrics.summary import (
    _CLASS_METRICS,
    DEFAULT_CLASSES,
    DEFAULT_PERCENTILES,
    JobClasses,
    outcomes,
)

__all__ = ["QuantileCounter", "RunningSummary"]


class QuantileCounter:
    """Quantiles of a stream of values >= 0: whole ones counted exactly, fractions in a
    log-bucketed histogram.

    Whole values are counted one count per distinct value while there are at most
    ``exact_values`` of them (then they join the histogram); a value in the histogram
    stands for the middle of its bucket ``(g**(i-1), g**i]``, ``g = (1 + a) / (1 - a)``,
    so it is off by a relative ``a`` = ``relative_error`` at most, and so is any order
    statistic and any interpolation between two of them.

    Args:
        exact_values: distinct whole values counted exactly.
        relative_error: the histogram's bound on the relative error.
    """

    def __init__(self, exact_values: int = 1 << 20, relative_error: float = 1e-4) -> None:
        if not 0 < relative_error < 1:
            raise ConfigError(f"relative_error must be in (0, 1), got {relative_error!r}")
        self.limit = exact_values
        self._log_gamma = math.log((1 + relative_error) / (1 - relative_error))
        self.n = 0
        self._whole: tuple[np.ndarray, np.ndarray] | None = (np.empty(0), _NO_COUNTS)
        self._buckets: tuple[np.ndarray, np.ndarray] = (np.empty(0), _NO_COUNTS)

    @property
    def exact(self) -> bool:
        """Whether every value so far is counted exactly."""
        return self._whole is not None and not self._buckets[0].size

    def add(self, values: np.ndarray) -> None:
        """Count more values (each finite and >= 0)."""
        if not values.size:
            return
        if not np.isfinite(values).all() or (values < 0).any():
            raise ConfigError("quantiles are kept for finite values >= 0 only")
        self.n += values.size
        whole = values == np.floor(values)
        if self._whole is not None:
            self._whole = _merge(self._whole, np.unique(values[whole], return_counts=True))
            values = values[~whole]
            if self._whole[0].size > self.limit:
                self._buckets = _merge(self._buckets, self._bucketed(*self._whole))
                self._whole = None
        if values.size:
            self._buckets = _merge(self._buckets, self._bucketed(values, None))

    def _bucketed(
        self, values: np.ndarray, counts: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Bucket keys and counts of ``values`` (each counted once without ``counts``)."""
        zero = values == 0  # bucket "-inf": 0 is kept as it is
        keys = np.full(values.size, -np.inf)
        keys[~zero] = np.ceil(np.log(values[~zero]) / self._log_gamma)
        ones = np.ones(values.size, dtype=np.int64) if counts is None else counts
        return _merge((np.empty(0), _NO_COUNTS), (keys, ones))

    def _order_stat(self, k: int) -> float:
        """The ``k``-th smallest value (0-based), exact or within the relative error."""
        keys, counts = self._buckets
        g = math.exp(self._log_gamma)
        middle = np.where(np.isinf(keys), 0.0, 2.0 * np.exp(keys * self._log_gamma) / (g + 1))
        values, counts = (
            np.concatenate((middle, self._whole[0] if self._whole else [])),
            (np.concatenate((counts, self._whole[1] if self._whole else _NO_COUNTS))),
        )
        order = np.argsort(values, kind="stable")
        cum = np.cumsum(counts[order])
        return float(values[order][int(np.searchsorted(cum, k, side="right"))])

    def percentile(self, p: float) -> float:
        """The ``p``-th percentile by numpy's default (``linear``) method."""
        if not self.n:
            return math.nan
        vi = (self.n - 1) * (p / 100.0)
        lo = min(math.floor(vi), self.n - 1)
        hi = min(lo + 1, self.n - 1)
        t = vi - lo
        a, b = self._order_stat(lo), self._order_stat(hi)
        diff = b - a
        return b - diff * (1 - t) if t >= 0.5 else a + diff * t


_NO_COUNTS = np.empty(0, dtype=np.int64)


def _merge(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Two (sorted distinct keys, counts) merged into one."""
    keys, inverse = np.unique(np.concatenate((a[0], b[0])), return_inverse=True)
    counts = np.bincount(inverse, weights=np.concatenate((a[1], b[1])), minlength=keys.size)
    return keys, counts.astype(np.int64)


class RunningSummary:
    """:func:`~cosched.metrics.summary.summarize`, fed the outcome table in chunks.

    Args:
        capacity, capacity_procs, tau, percentiles, classes: as ``summarize``.
        exact_values, relative_error: of each :class:`QuantileCounter`.
    """

    def __init__(
        self,
        *,
        capacity: int,
        capacity_procs: int | None = None,
        tau: float = 10.0,
        percentiles: Sequence[int] = DEFAULT_PERCENTILES,
        classes: JobClasses | None = DEFAULT_CLASSES,
        exact_values: int = 1 << 20,
        relative_error: float = 1e-4,
    ) -> None:
        if capacity < 1:
            raise ConfigError(f"capacity must be >= 1, got {capacity!r}")
        self.capacity = capacity
        self.capacity_procs = capacity if capacity_procs is None else capacity_procs
        self.tau = tau
        self.percentiles = tuple(percentiles)
        self.classes = classes
        self.n = 0
        self.sums = dict.fromkeys(_CLASS_METRICS, 0.0)
        self.busy = self.work = 0.0
        self.first_submit = self.last_submit = math.inf
        self.max_submit = self.max_end = self.max_wait = -math.inf
        self.quantiles = {m: QuantileCounter(exact_values, relative_error) for m in _CLASS_METRICS}
        self._class_n = np.zeros(6, dtype=np.int64)
        self._class_sums = {m: np.zeros(6) for m in _CLASS_METRICS}

    def add(self, jobs: pd.DataFrame) -> None:
        """Fold in the next rows of the outcome table."""
        if not len(jobs):
            return
        o = outcomes(jobs, tau=self.tau)
        self.n += len(o)
        for m in _CLASS_METRICS:
            values = o[m].to_numpy(dtype=np.float64)
            self.sums[m] += float(values.sum())
            self.quantiles[m].add(values)
        submit = o["submit_time"].to_numpy()
        self.first_submit = min(self.first_submit, float(submit.min()))
        self.max_submit = max(self.max_submit, float(submit.max()))
        self.max_end = max(self.max_end, float(o["end_time"].max()))
        self.max_wait = max(self.max_wait, float(o["wait_time"].max()))
        held = o["occupancy"] if "occupancy" in o else o["size"]
        self.busy += float((held * o["execution_time"]).sum())
        self.work += float((o["run_time"] * o["procs"]).sum())
        if self.classes is not None:
            self._add_classes(o)

    def _add_classes(self, o: pd.DataFrame) -> None:
        """Per-class counts and sums: class code = duration index x 2 + wide."""
        c = self.classes
        assert c is not None
        duration = np.searchsorted([c.short, c.medium, np.inf], o["run_time"].to_numpy())
        wide = o["procs"].to_numpy() > c.wide_fraction * self.capacity_procs
        code = duration * 2 + wide
        self._class_n += np.bincount(code, minlength=6)
        for m in _CLASS_METRICS:
            self._class_sums[m] += np.bincount(code, weights=o[m].to_numpy(), minlength=6)

    def result(self) -> dict[str, float]:
        """The summary: the keys and order of :func:`summarize` (no node-busy metric)."""
        n = self.n
        out: dict[str, float] = {"jobs": float(n)}
        if n == 0:
            return out
        makespan = self.max_end - self.first_submit
        span = self.max_submit - self.first_submit
        q = self.quantiles
        out.update(
            mean_wait=self.sums["wait_time"] / n,
            median_wait=q["wait_time"].percentile(50),
            max_wait=self.max_wait,
            mean_turnaround=self.sums["turnaround"] / n,
            median_turnaround=q["turnaround"].percentile(50),
            mean_bounded_slowdown=self.sums["bounded_slowdown"] / n,
            median_bounded_slowdown=q["bounded_slowdown"].percentile(50),
            utilization=self.busy / (self.capacity * makespan) if makespan > 0 else math.nan,
            makespan=makespan,
            throughput=n / makespan * 3600.0 if makespan > 0 else math.nan,
            offered_load=self.work / (self.capacity_procs * span) if span > 0 else math.nan,
        )
        for p in self.percentiles:
            out[f"p{p}_wait"] = q["wait_time"].percentile(p)
            out[f"p{p}_turnaround"] = q["turnaround"].percentile(p)
            out[f"p{p}_bounded_slowdown"] = q["bounded_slowdown"].percentile(p)
        if self.classes is not None:
            for d, duration in enumerate(self.classes.duration_names()):
                for w, width in enumerate(("narrow", "wide")):
                    name, code = f"{duration}_{width}", d * 2 + w
                    k = int(self._class_n[code])
                    out[f"{name}_jobs"] = float(k)
                    for m in _CLASS_METRICS:
                        short = "wait" if m == "wait_time" else m
                        total = float(self._class_sums[m][code])
                        out[f"{name}_mean_{short}"] = total / k if k else math.nan
        return out
