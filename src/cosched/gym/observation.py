"""What an agent sees at a decision, as numpy arrays (no gymnasium needed).

The observation is a dict of four arrays (``float32`` unless said):

* ``jobs``, shape ``(K, 6)``: one row per visible job (the first K queued jobs in
  submit order; rows past the queue's end are zeros), with the columns of
  :data:`JOB_FEATURES`: ``size`` (units / machine units), ``estimate`` (the scheduler's
  run-time estimate / ``time_scale``), ``wait`` (seconds waited so far / ``time_scale``),
  ``user`` (the SWF user id hashed into (0, 1), 0 when the trace has none), ``submit``
  (submit time / ``time_scale``, for age-based scores such as F1) and ``fits`` (1 when
  the job fits the free units now);
* ``machine``, shape ``(1 + 2R,)``: the free units / machine units, then for the R
  running jobs expected to end first, ``(expected end - now) / time_scale`` and their
  units / machine units, earliest first (zeros past the last running job);
* ``action_mask``, ``int8``, shape ``(K,)``: 1 for the slots that hold a job;
* ``scales``, shape ``(2,)``: the machine's units and ``time_scale`` in seconds
  (constant over an episode: they let score-based agents recover seconds and units).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence

import numpy as np

from cosched.engine.view import SystemView
from cosched.errors import ConfigError
from cosched.gym.rules import Pass
from cosched.workload.job import Job

__all__ = ["JOB_FEATURES", "Encoding", "user_hash"]

#: The columns of the ``jobs`` array, in order.
JOB_FEATURES: tuple[str, ...] = ("size", "estimate", "wait", "user", "submit", "fits")

#: The time scale of the features by default: 12 hours, RLScheduler's normalisation
#: of waits and run times (its MAX_WAIT_TIME and MAX_RUN_TIME).
TIME_SCALE = 12 * 3600.0

_GOLDEN = 2654435761  # Knuth's multiplicative hash constant (2**32 / golden ratio)


def user_hash(user_id: int | None) -> float:
    """A user id spread over (0, 1), the same for the same id in every run; 0 for none."""
    if user_id is None:
        return 0.0
    return (((user_id + 1) * _GOLDEN) % (1 << 32) + 1) / ((1 << 32) + 1)


class Encoding:
    """How a decision's state becomes an observation (see the module docstring).

    Args:
        slots: K, the visible jobs.
        releases: R, the running jobs shown by expected end.
        time_scale: seconds that make one unit of the time features.
    """

    __slots__ = ("releases", "slots", "time_scale")

    def __init__(self, slots: int = 128, releases: int = 16, time_scale: float = TIME_SCALE):
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise ConfigError(f"slots must be an integer >= 1, got {slots!r}")
        if isinstance(releases, bool) or not isinstance(releases, int) or releases < 0:
            raise ConfigError(f"releases must be an integer >= 0, got {releases!r}")
        ok = isinstance(time_scale, int | float) and not isinstance(time_scale, bool)
        if not ok or not 0 < time_scale < float("inf"):
            raise ConfigError(f"time_scale must be a number > 0, got {time_scale!r}")
        self.slots = slots
        self.releases = releases
        self.time_scale = float(time_scale)

    def encode(self, view: SystemView, p: Pass, visible: Sequence[Job]) -> dict[str, np.ndarray]:
        """The observation of a decision: ``visible`` jobs, the machine after ``p``."""
        k, n, scale, cap = self.slots, len(visible), self.time_scale, float(view.capacity)
        jobs = np.zeros((k, len(JOB_FEATURES)), dtype=np.float32)
        if n:
            # Per job from the view's sequences (lists, or a streamed run's dicts).
            sizes, est = view.sizes, view.estimates
            size = np.array([sizes[j.index] for j in visible], dtype=np.float64)
            submit = np.array([j.submit_time for j in visible], dtype=np.float64)
            block = jobs[:n]
            block[:, 0] = size / cap
            block[:, 1] = np.array([est[j.index] for j in visible], dtype=np.float64) / scale
            block[:, 2] = (view.now - submit) / scale
            block[:, 3] = [user_hash(j.user_id) for j in visible]
            block[:, 4] = np.maximum(submit, 0.0) / scale
            block[:, 5] = size <= p.free
        mask = np.zeros(k, dtype=np.int8)
        mask[:n] = 1
        return {
            "jobs": jobs,
            "machine": self._machine(view, p),
            "action_mask": mask,
            "scales": np.array([cap, scale], dtype=np.float32),
        }

    def _machine(self, view: SystemView, p: Pass) -> np.ndarray:
        out = np.zeros(1 + 2 * self.releases, dtype=np.float32)
        cap, scale, now = float(view.capacity), self.time_scale, view.now
        out[0] = p.free / cap
        if self.releases:
            merged = heapq.merge(view.releases(), p.ends) if p.ends else view.releases()
            first = list(itertools.islice(merged, self.releases))
            if first:
                ends = np.array([e for e, _, _ in first], dtype=np.float64)
                units = np.array([u for _, _, u in first], dtype=np.float64)
                out[1 : 1 + 2 * len(first) : 2] = np.maximum(ends - now, 0.0) / scale
                out[2 : 2 + 2 * len(first) : 2] = units / cap
        return out
