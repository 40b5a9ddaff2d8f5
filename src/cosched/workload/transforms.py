"""Pure transforms of workloads: windows, filters, time shifts and load scaling.

Each function returns a new :class:`~cosched.workload.job.Workload` (the input is never
modified) carrying one more note that says what was done, so a report can tell how a
simulated workload was derived from its trace.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np

from cosched.errors import ConfigError, WorkloadError
from cosched.workload.job import Workload

if TYPE_CHECKING:  # pandas is loaded only where a transform needs it
    import pandas as pd

__all__ = [
    "filter_jobs",
    "first_n",
    "merge",
    "offered_load",
    "rebase",
    "scale_arrivals",
    "scale_to_load",
    "shift",
    "time_window",
    "window",
]

Predicate = Callable[["pd.DataFrame"], "np.ndarray | pd.Series"]


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or int(value) < 0:
        raise ConfigError(f"{name} must be an integer >= 0, got {value!r}")
    return int(value)


def _finite(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ConfigError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def _positive(name: str, value: object) -> float:
    v = _finite(name, value)
    if v <= 0:
        raise ConfigError(f"{name} must be > 0, got {value!r}")
    return v


def _with_submit(w: Workload, submit: np.ndarray, note: str) -> Workload:
    return w.with_columns({"submit_time": submit}, note)


def _scaled_submit(w: Workload, factor: float) -> np.ndarray:
    sub = w.columns["submit_time"]
    first = float(sub[0]) if len(sub) else 0.0
    return first + (sub - first) * factor


def first_n(w: Workload, n: int) -> Workload:
    """The first ``n`` jobs in submit order.

    Args:
        w: the workload.
        n: how many jobs to keep (>= 0; more than there are keeps all).

    Returns:
        The shorter workload.

    Raises:
        ConfigError: ``n`` is not an integer >= 0.
    """
    n = _count("n", n)
    return w.rows(slice(0, n), f"kept the first {n} of {len(w)} jobs (first_n)")


def window(w: Workload, start: int, count: int) -> Workload:
    """Jobs ``start`` to ``start + count - 1`` (0-based, in submit order).

    Args:
        w: the workload.
        start: index of the first job kept (>= 0).
        count: how many jobs to keep (>= 0).

    Returns:
        The window (shorter when it runs past the end).

    Raises:
        ConfigError: ``start`` or ``count`` is not an integer >= 0.
    """
    start = _count("start", start)
    count = _count("count", count)
    n = len(range(len(w))[start : start + count])
    return w.rows(
        slice(start, start + count),
        f"kept jobs {start}..{start + count - 1} in submit order ({n} jobs, window)",
    )


def time_window(w: Workload, t0: float, t1: float) -> Workload:
    """Jobs submitted in ``[t0, t1)``.

    Args:
        w: the workload.
        t0: first submit time kept.
        t1: submit times from here on are left out (``t1 >= t0``).

    Returns:
        The jobs in the window, submit times unchanged.

    Raises:
        ConfigError: a bound is not finite, or ``t1 < t0``.
    """
    lo = _finite("t0", t0)
    hi = _finite("t1", t1)
    if hi < lo:
        raise ConfigError(f"t1 must be >= t0, got t0={t0!r}, t1={t1!r}")
    sub = w.columns["submit_time"]
    kept = (sub >= lo) & (sub < hi)
    return w.rows(
        kept, f"kept the {int(kept.sum())} jobs submitted in [{lo:g}, {hi:g}) (time_window)"
    )


def filter_jobs(w: Workload, mask_or_predicate: np.ndarray | pd.Series | Predicate) -> Workload:
    """The jobs selected by a boolean mask, or by a function of the table returning one.

    Args:
        w: the workload.
        mask_or_predicate: one boolean per job (submit order), or a callable taking
            ``w.table`` and returning such a mask.

    Returns:
        The selected jobs.

    Raises:
        ConfigError: the mask is not boolean or has the wrong length.
    """
    mask = mask_or_predicate(w.table) if callable(mask_or_predicate) else mask_or_predicate
    arr = np.asarray(mask)
    if arr.dtype != np.bool_ or arr.shape != (len(w),):
        raise ConfigError(
            f"mask_or_predicate must give {len(w)} booleans, got dtype {arr.dtype} "
            f"and shape {arr.shape}"
        )
    return w.rows(arr, f"kept {int(arr.sum())} of {len(w)} jobs (filter_jobs)")


def rebase(w: Workload) -> Workload:
    """Shift submit times so that the first job is submitted at 0.

    Args:
        w: the workload.

    Returns:
        The shifted workload (an empty one is returned unchanged, with a note).
    """
    sub = w.columns["submit_time"]
    first = float(sub[0]) if len(sub) else 0.0
    return _with_submit(w, sub - first, f"shifted submit times by {-first:g} s (rebase)")


def shift(w: Workload, seconds: float) -> Workload:
    """Add ``seconds`` to every submit time.

    Args:
        w: the workload.
        seconds: the shift (may be negative, as long as no submit time becomes < 0).

    Returns:
        The shifted workload.

    Raises:
        ConfigError: ``seconds`` is not finite or would make a submit time negative.
    """
    s = _finite("seconds", seconds)
    sub = w.columns["submit_time"] + s
    if len(sub) and sub[0] < 0:
        raise ConfigError(f"seconds={seconds!r} would make the first submit time {sub[0]:g} < 0")
    return _with_submit(w, sub, f"shifted submit times by {s:g} s (shift)")


def scale_arrivals(w: Workload, factor: float) -> Workload:
    """Multiply every inter-arrival time by ``factor``, keeping the first submit time.

    A factor below 1 packs the jobs closer together, raising the offered load by
    ``1 / factor``.

    Args:
        w: the workload.
        factor: the inter-arrival multiplier (> 0).

    Returns:
        The rescaled workload.

    Raises:
        ConfigError: ``factor`` is not a finite number > 0.
    """
    f = _positive("factor", factor)
    note = f"multiplied inter-arrival times by {f:.6g} (scale_arrivals)"
    return _with_submit(w, _scaled_submit(w, f), note)


def offered_load(w: Workload, capacity_procs: int) -> float:
    """Work offered per unit of machine capacity over the submit span.

    ``sum(run_time * procs) / (capacity_procs * (last submit - first submit))``.

    Args:
        w: the workload.
        capacity_procs: processors in the machine (> 0).

    Returns:
        The offered load (1.0 means the machine would be exactly full).

    Raises:
        ConfigError: ``capacity_procs`` is not > 0.
        WorkloadError: the workload has no submit span (fewer than two distinct submit
            times).
    """
    cap = _positive("capacity_procs", capacity_procs)
    sub = w.columns["submit_time"]
    span = float(sub[-1] - sub[0]) if len(sub) else 0.0
    if span <= 0:
        raise WorkloadError(
            f"workload {w.name!r}: offered load is undefined, all {len(sub)} jobs "
            "are submitted at the same time"
        )
    t = w.columns
    work = float(np.dot(t["run_time"], t["procs"].astype(np.float64)))
    return work / (cap * span)


def scale_to_load(w: Workload, target: float, capacity_procs: int) -> Workload:
    """Scale inter-arrival times so that the offered load becomes ``target``.

    Args:
        w: the workload.
        target: the wanted offered load (> 0).
        capacity_procs: processors in the machine (> 0).

    Returns:
        The rescaled workload (:func:`offered_load` equals ``target`` to rounding error).

    Raises:
        ConfigError: ``target`` or ``capacity_procs`` is not > 0.
        WorkloadError: the workload has no submit span.
    """
    goal = _positive("target", target)
    current = offered_load(w, capacity_procs)
    # The load is inversely proportional to the span, which scales with the factor.
    note = f"scaled arrivals from offered load {current:.4g} to {goal:.4g} (scale_to_load)"
    return _with_submit(w, _scaled_submit(w, current / goal), note)


def merge(a: Workload, b: Workload) -> Workload:
    """Both workloads' jobs together, re-sorted by submit time (ties: ``a`` first).

    Job ids are kept as they are, so they may repeat. The result is named ``a+b``,
    keeps ``a``'s header, the larger known machine size, and both lists of notes.

    Args:
        a: the first workload.
        b: the second workload.

    Returns:
        The merged workload.
    """
    import pandas as pd

    table = pd.concat([a.table, b.table], ignore_index=True)
    ids = table["job_id"].to_numpy()
    dup = len(ids) - len(np.unique(ids))
    clash = f"; {dup} job ids repeat" if dup else ""
    note = f"merged {len(a)} jobs of {a.name!r} with {len(b)} jobs of {b.name!r}{clash} (merge)"
    return Workload.from_table(
        table,
        name=f"{a.name}+{b.name}",
        max_procs=_larger(a.max_procs, b.max_procs),
        max_nodes=_larger(a.max_nodes, b.max_nodes),
        header=dict(a.header),
        notes=(*a.notes, *b.notes, note),
    )


def _larger(x: int | None, y: int | None) -> int | None:
    known = [v for v in (x, y) if v is not None]
    return max(known) if known else None
