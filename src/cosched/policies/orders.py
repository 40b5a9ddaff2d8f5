"""Queue orders: which queued job a policy considers first.

Each order is a function of the view returning the queued jobs, best first; ties are
always broken by submit order, so every order is deterministic.

* ``submit``: first come, first served.
* ``sjf``: shortest estimate first.
* ``wfp``: Cobalt's WFP utility, ``(wait / requested) ** 3 * size``, largest first.
* ``priority``: the classes of lomarc-hyperthreaded-coscheduling.txt section 6.2: short
  (estimate <= 1 min), medium (<= 1 h) and long jobs, short first; aging raises a job one
  class per ``aging_time`` seconds of waiting (by default the mean wait of the jobs
  started so far, as in the paper), so a long job reaches a short job's priority after
  two aging periods.
* ``queue``: the job's queue (SWF field 15) as a priority class, lower number first, a
  job without one last. A log's queue numbers need not rank its queues: ``cosched
  validate --fit`` renumbers them by the waits it learns from the log
  (:mod:`cosched.experiments.fit`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from cosched.engine.view import SystemView
from cosched.errors import UnknownNameError
from cosched.workload.job import Job

__all__ = ["MEDIUM_MAX", "ORDERS", "SHORT_MAX", "job_class", "ordered", "priority_indices"]

#: Upper bounds (seconds) of the short and medium classes.
SHORT_MAX = 60.0
MEDIUM_MAX = 3600.0

Order = Callable[[SystemView, float | None], list[Job]]


def _by_submit(view: SystemView, aging_time: float | None) -> list[Job]:
    return list(view.queue)


def _sjf(view: SystemView, aging_time: float | None) -> list[Job]:
    est = view.estimates
    return sorted(view.queue, key=lambda j: (est[j.index], j.index))


def _wfp(view: SystemView, aging_time: float | None) -> list[Job]:
    est, size, now = view.estimates, view.sizes, view.now

    def utility(j: Job) -> tuple[float, int]:
        return (-(((now - j.submit_time) / est[j.index]) ** 3) * size[j.index], j.index)

    return sorted(view.queue, key=utility)


def _by_queue(view: SystemView, aging_time: float | None) -> list[Job]:
    return sorted(view.queue, key=lambda j: (math.inf if j.queue is None else j.queue, j.index))


def job_class(estimate: float) -> int:
    """0 for short, 1 for medium and 2 for long jobs."""
    return 0 if estimate <= SHORT_MAX else (1 if estimate <= MEDIUM_MAX else 2)


def priority_indices(view: SystemView, aging_time: float | None) -> np.ndarray:
    """Indices of the queued jobs in the ``priority`` order (vectorised over the queue).

    A job's level is its class minus one per aging period waited, at least 0; lower
    levels first, ties by submit order (a stable sort of the queue, which is in submit
    order).
    """
    cols, now = view.columns, view.now
    period = aging_time if aging_time is not None else view.mean_wait
    # No job has waited yet: nothing to age by, the classes alone decide.
    inv = 1.0 / period if period > 0 else 0.0
    queue = view.queue_indices()
    est = cols.estimate[queue]
    level = (est > SHORT_MAX).astype(np.float64) + (est > MEDIUM_MAX)
    level -= np.floor((now - cols.submit[queue]) * inv)
    np.maximum(level, 0.0, out=level)
    return queue[np.argsort(level, kind="stable")]


def _priority(view: SystemView, aging_time: float | None) -> list[Job]:
    job = view.job
    return [job(i) for i in priority_indices(view, aging_time).tolist()]


ORDERS: dict[str, Order] = {
    "submit": _by_submit,
    "sjf": _sjf,
    "wfp": _wfp,
    "priority": _priority,
    "queue": _by_queue,
}


def ordered(view: SystemView, order: str, aging_time: float | None = None) -> list[Job]:
    """The queue in the named order."""
    try:
        fn = ORDERS[order]
    except KeyError:
        raise UnknownNameError("queue order", order, ORDERS) from None
    return fn(view, aging_time)
