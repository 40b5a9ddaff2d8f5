"""The paper's outputs beyond the core metrics (section 5).

* :func:`turnaround_ratios` / :func:`ratio_quartiles`: per-job turnaround ratio of two
  policies with the paper's negate-and-invert convention (Table 1).
* :func:`execution_changes`: jobs sped up, slowed down or unchanged, and how many were
  slowed by more than 20%, 2x, 3x, 4x, 5x (section 5.2, Figure 3).
* :func:`blocked_counts`: jobs blocked by fragmentation versus capacity (Table 2).
* :func:`configuration_counts`: configurations used, degraded ones in total (Figure 5).
* :func:`placement_time`: mean placement time per job, a wall-clock diagnostic that
  must never enter a deterministic summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from cosched.errors import ConfigError
from cosched.nodeshare.configurations import PAPER_SHAPES

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SLOWDOWN_THRESHOLDS",
    "blocked_counts",
    "configuration_counts",
    "execution_changes",
    "placement_time",
    "ratio_quartiles",
    "shape_label",
    "turnaround_ratios",
]

#: Slowdown factors counted in section 5.2.
SLOWDOWN_THRESHOLDS: tuple[float, ...] = (1.2, 2.0, 3.0, 4.0, 5.0)


def turnaround_ratios(first: pd.DataFrame, second: pd.DataFrame) -> np.ndarray:
    """Per-job turnaround of ``first`` over ``second``, negated and inverted below 1.

    A value ``r >= 1`` means the second policy was ``r`` times better for that job; a
    ratio ``q < 1`` is shown as ``-1/q``: the first policy was ``1/q`` times better.
    Jobs are matched by ``job_id``.

    Raises:
        ConfigError: the two tables do not hold the same jobs.
    """
    a = first.set_index("job_id")
    b = second.set_index("job_id")
    if len(a) != len(b) or not a.index.equals(b.index):
        raise ConfigError("turnaround_ratios needs two outcome tables of the same jobs")
    ta = (a["end_time"] - a["submit_time"]).to_numpy()
    tb = (b["end_time"] - b["submit_time"]).to_numpy()
    q = ta / tb
    return np.where(q >= 1.0, q, -1.0 / q)


def ratio_quartiles(ratios: np.ndarray) -> dict[str, float]:
    """Minimum, quartiles and maximum (Table 1's 0%, 25%, 50%, 75%, 100%)."""
    qs = np.percentile(ratios, [0, 25, 50, 75, 100])
    return {f"q{p}": float(v) for p, v in zip((0, 25, 50, 75, 100), qs, strict=True)}


def execution_changes(jobs: pd.DataFrame, *, tol: float = 1e-9) -> dict[str, int]:
    """Jobs whose execution time went down, up or stayed, and slowdown counts.

    Execution time against the trace's run time: ``(end - start) / run_time``.
    ``slowed_over_1.2`` counts jobs more than 20% slower, ``slowed_over_2`` at least
    2x slower, and so on (the paper's "slowed down by factors of two, three...").
    """
    f = (jobs["end_time"] - jobs["start_time"]).to_numpy() / jobs["run_time"].to_numpy()
    out = {
        "sped_up": int((f < 1 - tol).sum()),
        "slowed_down": int((f > 1 + tol).sum()),
        "unchanged": int((np.abs(f - 1) <= tol).sum()),
    }
    for t in SLOWDOWN_THRESHOLDS:
        key = f"slowed_over_{t:g}"
        out[key] = int((f > t).sum()) if t < 2 else int((f >= t).sum())
    return out


def blocked_counts(blocked: Mapping[int, str]) -> dict[str, int]:
    """Jobs blocked at least once as queue head, by the reason of their first block."""
    c = Counter(blocked.values())
    return {"fragmentation": c.get("fragmentation", 0), "capacity": c.get("capacity", 0)}


def shape_label(shape: int) -> str:
    """The paper's label of configuration shape ``shape`` (e.g. ``(2n x 8)`` for C=16)."""
    m, f = PAPER_SHAPES[shape]
    n = "n" if m == 1 else (f"{m}n" if m.denominator == 1 else f"n/{m.denominator}")
    return f"({n} x {f}C)" if f != 1 else f"({n} x C)"


def configuration_counts(chosen: Mapping[int, tuple[int, bool, float]]) -> dict[str, int]:
    """Jobs per configuration shape, and ``degraded``: jobs in a degraded one."""
    shapes = Counter(s for s, _, _ in chosen.values())
    out = {shape_label(k): shapes.get(k, 0) for k in range(len(PAPER_SHAPES))}
    out["degraded"] = sum(1 for _, d, _ in chosen.values() if d)
    return out


def placement_time(stats: Mapping[str, Any], jobs: int) -> dict[str, float]:
    """Mean placement time per job and per attempt, in microseconds (diagnostic only);
    empty after a run on the compiled pass, which does not time its placements
    (``place_ns`` 0 with placements tried)."""
    ns, calls = float(stats["place_ns"]), int(stats["place_calls"])
    if ns == 0 and calls > 0:
        return {}
    calls = max(calls, 1)
    return {"us_per_job": ns / 1e3 / max(jobs, 1), "us_per_attempt": ns / 1e3 / calls}
