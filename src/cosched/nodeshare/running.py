"""The running jobs of a node-sharing policy in arrays, for the dynamic rates.

Under ``rates="dynamic"`` a job's run-time factor ``a (1 + victim x co-runner pressure)
+ b`` follows every start and end on its nodes. :class:`RunningJobs` keeps each running
job's class, coefficients, current factor and nodes (a span of one growing array), so
the factors of every job touched by a pass are recomputed by one kernel call
(:func:`~cosched.nodeshare._book_kernels.new_factors`, which reads the co-runner
pressure with the book's own rule, :func:`~cosched.nodeshare._book_kernels.co_pressure`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from cosched.compile import kernels
from cosched.nodeshare import _book_kernels
from cosched.nodeshare.interference import InterferenceModel

__all__ = ["RunningJobs"]


class RunningJobs:
    """Class, ``(a, b)``, factor and nodes of each running job, by job index.

    Args:
        jobs: jobs in the run.
        model: the interference model (victim weights and pressures by class).
    """

    def __init__(self, jobs: int, model: InterferenceModel) -> None:
        self._kern = kernels(_book_kernels.__name__)
        self._spans = np.zeros((jobs, 2), dtype=np.int64)  # empty span: not running
        self._arena = np.zeros(1024, dtype=np.int64)
        self._used = 0
        self._sens = np.zeros(jobs, dtype=np.int64)
        self._ca = np.zeros(jobs)
        self._cb = np.zeros(jobs)
        self._factor = np.zeros(jobs)
        self._fresh = np.zeros(jobs, dtype=np.bool_)
        self._victim = np.array(model.victim, dtype=float)
        self._pressure = np.array(model.pressure, dtype=float)
        self._out = np.zeros(jobs, dtype=np.int64)
        self._rate = np.zeros(jobs)

    def start(
        self, idx: int, nodes: Sequence[int], sensitivity: int, a: float, b: float, factor: float
    ) -> None:
        """Job ``idx`` starts on ``nodes`` with ``factor`` (the engine's rate is still 1)."""
        if self._used + len(nodes) > len(self._arena):
            self._compact(len(nodes))
        lo, hi = self._used, self._used + len(nodes)
        self._arena[lo:hi] = nodes
        self._used = hi
        self._spans[idx] = lo, hi
        self._sens[idx], self._ca[idx], self._cb[idx] = sensitivity, a, b
        self._factor[idx] = factor
        self._fresh[idx] = True

    def _compact(self, room: int) -> None:
        """Keep only the running jobs' spans (in index order), with room for ``room``
        more nodes and as much again (so compactions stay rare)."""
        spans, arena = self._spans, self._arena
        live = np.flatnonzero(spans[:, 1] > spans[:, 0])
        parts = [arena[lo:hi] for lo, hi in spans[live].tolist()]
        kept = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        self._arena = np.zeros(max(2 * (len(kept) + room), 1024), dtype=np.int64)
        self._arena[: len(kept)] = kept
        lengths = spans[live, 1] - spans[live, 0]
        ends = np.cumsum(lengths)
        spans[live, 0], spans[live, 1] = ends - lengths, ends
        self._used = len(kept)

    def finish(self, idx: int) -> None:
        """Job ``idx`` ended."""
        self._spans[idx] = 0, 0

    def new_rates(self, touched: Iterable[int], node_pressure: np.ndarray) -> dict[int, float]:
        """``{job: 1 / factor}`` for the running jobs among ``touched`` whose factor
        changed since their last rate (every job just started), in index order."""
        jobs = np.array(sorted(touched), dtype=np.int64)
        if jobs.ndim != 1:  # the compiled kernel checks nothing (cosched.compile.kernels)
            raise ValueError(f"touched must be job indices, got shape {jobs.shape}")
        n = self._kern.new_factors(
            jobs, self._spans, self._arena, node_pressure, self._sens, self._ca, self._cb,
            self._victim, self._pressure, self._factor, self._fresh, self._out, self._rate,
        )  # fmt: skip
        return dict(zip(self._out[:n].tolist(), self._rate[:n].tolist(), strict=True))
