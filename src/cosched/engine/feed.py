"""A streamed workload fed to the engine a chunk at a time, finished jobs handed out.

With a :class:`~cosched.workload.stream.WorkloadStream` instead of a workload, the
:class:`~cosched.engine.simulation.Simulation` keeps its per-job state in dicts that
hold only the jobs in the system: loaded and not yet submitted (at most one chunk
ahead, the look-ahead), queued, running, or finished but waiting for an earlier job
to finish (outcomes go out in submit order, as rows of the in-memory outcome table).
Memory therefore grows with the jobs in the system and the span between the oldest
unfinished job and the newest submitted one, not with the trace.

What a streamed run does not support (each refused with an error): platforms whose
jobs share nodes or are placed on named nodes (their placements would be kept for
the whole run) and :class:`~cosched.engine.decisions.Hold` (its ``held_time`` column
would be known only at the end).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from cosched.errors import ConfigError, WorkloadError

if TYPE_CHECKING:
    import pandas as pd

    from cosched.engine.simulation import Simulation
    from cosched.platform import Platform
    from cosched.workload.columns import Columns
    from cosched.workload.job import Workload
    from cosched.workload.stream import WorkloadStream

__all__ = ["OUTCOME_COLUMNS", "JobFeed", "unit_sizes"]

#: The columns of the outcome table, in order (``SimulationResult.jobs``).
OUTCOME_COLUMNS = (
    "job_id",
    "submit_time",
    "start_time",
    "end_time",
    "procs",
    "size",
    "run_time",
    "requested_time",
)
#: Finished jobs handed out at a time.
OUT_ROWS = 1 << 16
#: The engine's per-job state set when a job is loaded, with its initial value.
_INITIAL: dict[str, float] = {
    "_start": math.nan,
    "_end": math.nan,
    "_est_end": math.nan,
    "_rate": 1.0,
    "_done": 0.0,
    "_upd": 0.0,
    "_ver": 0,
}
#: Every per-job store, dropped when the job has finished.
_STATE = ("_jobs", "_submit", "_sizes", "_run", "_est", *_INITIAL)
#: The stores an outcome row is read from.
_READ = ("_jobs", "_start", "_end", "_sizes")


def unit_sizes(platform: Platform, name: str, columns: Columns) -> np.ndarray:
    """The jobs' sizes in the machine's allocation units; a :class:`WorkloadError`
    naming the first job wider than the machine (workload ``name``)."""
    sizes = platform.units_array(columns["procs"])
    too_wide = np.flatnonzero(sizes > platform.capacity)
    if too_wide.size:
        row = int(too_wide[0])
        raise WorkloadError(
            f"workload {name!r}: job {int(columns['job_id'][row])} needs "
            f"{int(columns['procs'][row])} procs but the machine is "
            f"{platform.describe()}; load it with too_wide=drop or clip"
        )
    return sizes


class JobFeed:
    """Loads a simulation's jobs chunk by chunk and hands finished ones to ``sink``.

    Args:
        sim: the simulation (its per-job dicts are filled and emptied here).
        stream: the jobs.
        sink: called with each table of finished jobs, in submit order.
        rows: finished jobs per table handed out.
    """

    def __init__(
        self,
        sim: Simulation,
        stream: WorkloadStream,
        sink: Callable[[pd.DataFrame], None],
        rows: int = OUT_ROWS,
    ) -> None:
        if sim._ledger is not None:
            raise ConfigError(
                "a streamed run needs a platform that counts units: jobs sharing nodes or "
                "placed on named nodes are not supported (run the workload in memory)"
            )
        self.sim = sim
        self.sink = sink
        self.rows = rows
        self._chunks: Iterator[Workload] = iter(stream)
        self.loaded = 0  # jobs loaded so far: indices 0 .. loaded - 1
        self.handed = 0  # jobs handed out: every index below it
        #: Jobs that finished at this instant (state dropped by release()).
        self.ended_now: list[int] = []
        self._waiting: dict[int, tuple[float, ...]] = {}  # finished, an earlier job not
        self._out: list[tuple[float, ...]] = []
        self.peak_in_system = 0
        # The per-job stores release() empties besides those it reads.
        self._others: list[dict[int, Any]] = [
            getattr(sim, name) for name in _STATE if name not in _READ
        ]

    def load(self) -> bool:
        """Load the next chunk; False when the stream has no more jobs."""
        w = next(self._chunks, None)
        while w is not None and not len(w):
            w = next(self._chunks, None)
        if w is None:
            return False
        sim, off, m = self.sim, self.loaded, len(w)
        t = w.columns
        sizes = unit_sizes(sim.platform, w.name, t)
        keys = range(off, off + m)
        col = "run_time" if sim.estimates == "exact" else "requested_time"
        given: tuple[tuple[str, list[Any]], ...] = (
            ("_jobs", w.job_records(off)),
            ("_submit", t["submit_time"].tolist()),
            ("_sizes", sizes.tolist()),
            ("_run", t["run_time"].tolist()),
            ("_est", t[col].tolist()),
        )
        for name, values in given:
            getattr(sim, name).update(zip(keys, values, strict=True))
        for name, value in _INITIAL.items():
            getattr(sim, name).update(dict.fromkeys(keys, value))
        self.loaded += m
        sim._n_loaded = self.loaded
        self.peak_in_system = max(self.peak_in_system, len(sim._submit))
        return True

    def release(self) -> None:
        """Record the outcomes of the jobs that ended and forget their state."""
        sim, waiting = self.sim, self._waiting
        jobs, start, end, sizes = sim._jobs, sim._start, sim._end, sim._sizes
        others = self._others
        for idx in self.ended_now:
            job = jobs.pop(idx)
            waiting[idx] = (
                job.job_id,
                job.submit_time,
                start.pop(idx),
                end.pop(idx),
                job.procs,
                sizes.pop(idx),
                job.run_time,
                job.requested_time,
            )
            for store in others:
                del store[idx]
        self.ended_now.clear()
        h, out = self.handed, self._out
        while h in waiting:
            out.append(waiting.pop(h))
            h += 1
        self.handed = h
        if len(out) >= self.rows:
            self.flush()

    def flush(self) -> None:
        """Hand out the finished jobs recorded so far (in submit order)."""
        if not self._out:
            return
        # Column by column: far faster than a frame built from rows of objects.
        columns = zip(*self._out, strict=True)
        self._out = []
        ints = ("job_id", "procs", "size")
        import pandas as pd

        self.sink(
            pd.DataFrame(
                {
                    c: np.array(values, dtype=np.int64 if c in ints else np.float64)
                    for c, values in zip(OUTCOME_COLUMNS, columns, strict=True)
                }
            )
        )
