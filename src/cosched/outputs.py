"""Per-job results written for the tools researchers already use.

Formats (:data:`JOB_FORMATS`), chosen by ``--jobs-format`` or the file's extension:

* ``csv``: cosched's outcome table (:func:`cosched.metrics.outcomes`), written by
  pyarrow's columnar CSV writer; a column whose values are all whole numbers is written
  as integers, the others in the shortest form that reads back to the same double;
* ``parquet``: the same table as Parquet;
* ``batsim``: Batsim's ``jobs.csv`` layout (``job_id``, ``submission_time``,
  ``starting_time``, ``finish_time``, ``requested_number_of_resources``,
  ``allocated_resources`` as an interval set such as ``0-3 8``, ...), which evalys
  loads and draws;
* ``swf``: the simulated schedule as Standard Workload Format: the input's fields kept,
  the wait (field 3) and run time (field 4) filled from the simulation, and a header
  ``Note`` naming cosched's version and the policy with its parameters. SWF holds whole
  seconds: start and end are rounded to the nearest second (wait = round(start) -
  submit, run = round(end) - round(start)), so a schedule with fractional times (jobs
  slowed by co-location) reads back within half a second.

Resources in ``allocated_resources``: a placement-aware run (jobs on named nodes) gives
each job slots on its nodes; slot ``s`` of node ``n`` is resource ``n x slots per node +
s`` (a core, or a hardware thread with ``mpl`` > 1). A count-based run (a pool of
processors) records no identities, so they are assigned after the fact: each job takes
the lowest-numbered resources free at its start (ends before starts at one instant),
which always succeeds because the engine never over-commits.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from cosched.errors import ConfigError
from cosched.platform import Allocation, Platform
from cosched.workload.columns import Columns

if TYPE_CHECKING:
    from types import ModuleType

    import pandas as pd
    import pyarrow
    import pyarrow.parquet

__all__ = [
    "JOB_FORMATS",
    "JobFormat",
    "JobsWriter",
    "assign_resources",
    "interval_set",
    "write_jobs",
]

JobFormat = Literal["csv", "parquet", "batsim", "swf"]
JOB_FORMATS: tuple[str, ...] = get_args(JobFormat)


def job_format(path: Path, given: str | None) -> str:
    """The format for ``path``: ``given``, else from the extension (default csv)."""
    if given is not None:
        if given not in JOB_FORMATS:
            raise ConfigError(f"--jobs-format must be one of {', '.join(JOB_FORMATS)}")
        return given
    name = path.name.lower()
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith((".swf", ".swf.gz")):
        return "swf"
    return "csv"


def interval_set(ids: Sequence[int]) -> str:
    """``[0, 1, 2, 3, 8]`` -> ``"0-3 8"`` (Batsim's and procset's notation)."""
    out: list[str] = []
    ordered = sorted(ids)
    k = 0
    while k < len(ordered):
        lo = hi = ordered[k]
        while k + 1 < len(ordered) and ordered[k + 1] == hi + 1:
            k += 1
            hi = ordered[k]
        out.append(str(lo) if lo == hi else f"{lo}-{hi}")
        k += 1
    return " ".join(out)


def _events(
    start: np.ndarray, end: np.ndarray, jobs: Sequence[int]
) -> list[tuple[float, int, int]]:
    """(time, 0 for an end / 1 for a start, job) in time order, ends first."""
    ev = [(float(end[j]), 0, j) for j in jobs] + [(float(start[j]), 1, j) for j in jobs]
    ev.sort()
    return ev


def _take(pool: list[int], n: int, what: str) -> list[int]:
    if n > len(pool):
        raise ConfigError(f"cannot assign resources: {what} needs {n}, {len(pool)} free")
    return [heapq.heappop(pool) for _ in range(n)]


def assign_resources(
    jobs: pd.DataFrame,
    platform: Platform,
    placements: Mapping[int, Sequence[tuple[int, int]]] | None = None,
) -> list[list[int]]:
    """The resource ids each job held (see the module docstring), by row."""
    start = jobs["start_time"].to_numpy(dtype=float)
    end = jobs["end_time"].to_numpy(dtype=float)
    held: list[list[int]] = [[] for _ in range(len(jobs))]
    if placements:
        per_node = platform.cores * platform.mpl
        pools: dict[int, list[int]] = {}
        for t, kind, j in _events(start, end, list(placements)):
            for node, slots in placements[j]:
                pool = pools.setdefault(node, list(range(per_node)))
                if kind == 0:
                    for r in held[j]:
                        if r // per_node == node:
                            heapq.heappush(pool, r % per_node)
                else:
                    got = _take(pool, slots, f"job {int(jobs['job_id'].iloc[j])} at {t:g}")
                    held[j].extend(node * per_node + s for s in got)
        return held
    size = jobs["size"].to_numpy()
    if platform.allocation is Allocation.NODES:  # a unit is a whole node
        units = platform.nodes
    else:
        units = platform.nodes * platform.cores
    pool = list(range(units))
    for t, kind, j in _events(start, end, range(len(jobs))):
        if kind == 0:
            for r in held[j]:
                heapq.heappush(pool, r)
        else:
            held[j] = _take(pool, int(size[j]), f"job {int(jobs['job_id'].iloc[j])} at {t:g}")
    return held


def _whole(arr: np.ndarray) -> bool:
    return bool(
        np.isfinite(arr).all()
        and (arr == np.floor(arr)).all()
        and np.abs(arr).max(initial=0) < 2**53
    )


def _integral(table: pd.DataFrame) -> pd.DataFrame:
    """Whole-number float columns as int64 (times of a schedule without rates are)."""
    out = table.copy()
    for col in out.columns:
        values = out[col]
        if values.dtype.kind == "f":
            arr = values.to_numpy()
            if _whole(arr):
                out[col] = arr.astype(np.int64)
    return out


def _integral_columns(table: Columns) -> Columns:
    """:func:`_integral` on numpy columns."""
    out = Columns()
    for col, arr in table.items():
        out[col] = arr.astype(np.int64) if arr.dtype.kind == "f" and _whole(arr) else arr
    return out


def _arrow_array(pa: ModuleType, values: np.ndarray) -> pyarrow.Array:
    """A numeric numpy column as a pyarrow array, without pyarrow's pandas checks."""
    kinds = {np.dtype(np.int64): pa.int64(), np.dtype(np.float64): pa.float64()}
    kind = kinds.get(values.dtype)
    if kind is None:
        return pa.array(values)
    data = np.ascontiguousarray(values)
    return pa.Array.from_buffers(kind, len(data), [None, pa.py_buffer(data)])


#: Rows pyarrow's CSV writer formats at a time. Its default (1,024) took 25-26 ms for
#: SDSC-SP2's 54,034 rows, 16,384 about 21 ms (the same bytes; docs/performance.md,
#: "The fixed cost of a run"), for about 1 MiB of text held at once.
CSV_BATCH_ROWS = 16_384


def _write_csv(table: pd.DataFrame | Columns, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    if isinstance(table, Columns):
        # The arrays pandas would hand pyarrow (int64, float64): the same file. Built from
        # their buffers: ``pa.array`` and ``pa.table`` load pandas (0.3 s) to look for
        # pandas objects.
        arrow = pa.Table.from_arrays(
            [_arrow_array(pa, v) for v in table.values()], names=table.columns
        )
    else:
        arrow = pa.Table.from_pandas(table, preserve_index=False)
    pacsv.write_csv(
        arrow,
        str(path),
        write_options=pacsv.WriteOptions(quoting_style="needed", batch_size=CSV_BATCH_ROWS),
    )


def batsim_table(
    jobs: pd.DataFrame,
    platform: Platform,
    placements: Mapping[int, Sequence[tuple[int, int]]] | None = None,
) -> pd.DataFrame:
    """The schedule in Batsim's ``jobs.csv`` layout (one row per job)."""
    import pandas as pd

    held = assign_resources(jobs, platform, placements)
    start = jobs["start_time"].to_numpy(dtype=float)
    end = jobs["end_time"].to_numpy(dtype=float)
    submit = jobs["submit_time"].to_numpy(dtype=float)
    run = jobs["run_time"].to_numpy(dtype=float)
    execution = end - start
    turnaround = end - submit
    return pd.DataFrame(
        {
            "job_id": jobs["job_id"].to_numpy(),
            "workload_name": "w0",
            "profile": "delay",
            "submission_time": submit,
            "requested_number_of_resources": [len(h) for h in held],
            "requested_time": jobs["requested_time"].to_numpy(dtype=float),
            "success": 1,
            "final_state": "COMPLETED_SUCCESSFULLY",
            "starting_time": start,
            "execution_time": execution,
            "finish_time": end,
            "waiting_time": start - submit,
            "turnaround_time": turnaround,
            "stretch": turnaround / np.maximum(run, 1e-9),
            "allocated_resources": [interval_set(h) for h in held],
            "consumed_energy": -1,
            "metadata": "",
        }
    )


def write_jobs(
    jobs: pd.DataFrame | Columns,
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    platform: Platform,
    placements: Mapping[int, Sequence[tuple[int, int]]] | None = None,
    workload: object = None,
    tau: float = 10.0,
    policy: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> str:
    """Write a run's per-job table; returns the format used.

    Args:
        jobs: the engine's job table (``SimulationResult.jobs``, or its
            ``job_columns``: csv is then written without pandas).
        path: where to write.
        fmt: one of :data:`JOB_FORMATS` (None: from the extension).
        platform: the machine (for resource ids).
        placements: the run's placements, if placement-aware.
        workload: the :class:`~cosched.workload.job.Workload` that ran (for ``swf``).
        tau: bound of the bounded slowdown (csv, parquet).
        policy: the policy that made the schedule, recorded with cosched's version in
            an SWF header's ``Note`` lines.
        params: the policy's parameters, recorded beside it.
    """
    from cosched.metrics.summary import outcome_columns, outcomes

    target = Path(path)
    kind = job_format(target, fmt)
    if kind == "csv":
        _write_csv(_integral_columns(outcome_columns(jobs, tau=tau)), target)
        return kind
    if isinstance(jobs, Columns):
        jobs = jobs.to_frame()
    if kind == "batsim":
        _write_csv(_integral(batsim_table(jobs, platform, placements)), target)
    elif kind == "swf":
        from cosched.workload.job import Workload
        from cosched.workload.swf_write import write_swf

        if not isinstance(workload, Workload):
            raise ConfigError("writing a schedule as SWF needs the workload that ran")
        t = workload.table.copy()
        start = np.rint(jobs["start_time"].to_numpy(dtype=float))
        end = np.rint(jobs["end_time"].to_numpy(dtype=float))
        t["wait_time"] = start - np.rint(t["submit_time"].to_numpy(dtype=float))
        t["run_time"] = end - start
        out = Workload.from_table(
            t,
            name=workload.name,
            max_procs=workload.max_procs,
            max_nodes=workload.max_nodes,
            header=_provenance(workload.header, policy, params),
            notes=workload.notes,
        )
        write_swf(out, target)
    else:
        outcomes(jobs, tau=tau).to_parquet(target, index=False)
    return kind


def _provenance(
    header: Mapping[str, str], policy: str | None, params: Mapping[str, Any] | None
) -> dict[str, str]:
    """The source's header with a ``Note`` saying cosched (version) wrote the schedule,
    and under which policy and parameters: the source's notes describe the log, not
    the simulated schedule."""
    from cosched import __version__

    line = f"schedule simulated by cosched {__version__}"
    if policy is not None:
        line += f" under policy {policy}"
        if params:
            line += " (" + ", ".join(f"{k}={v}" for k, v in sorted(params.items())) + ")"
    out = {str(k): str(v) for k, v in header.items()}
    out["Note"] = f"{out['Note']}\n{line}" if out.get("Note") else line
    return out


class JobsWriter:
    """Writes a streamed run's per-job table as it comes, a chunk at a time.

    ``csv`` appends each chunk's rows (pyarrow's writer, the header once); ``parquet``
    writes each chunk as a row group. The rows and values are those :func:`write_jobs`
    writes for the whole table; one difference is possible in CSV: a column whose
    values are whole numbers in one chunk and not in another is written as integers
    in the first and as doubles in the second, and pyarrow writes a whole double of
    12 digits or more in exponent form (``1.23456789012e+11``), which reads back to
    the same number. Batsim and SWF need the whole schedule (resource ids, column
    widths) and are refused.

    Args:
        path: where to write.
        fmt: ``csv`` or ``parquet`` (None: from the extension).
        tau: bound of the bounded slowdown.
    """

    def __init__(self, path: str | os.PathLike[str], *, fmt: str | None = None, tau: float = 10.0):
        self.path = Path(path)
        self.kind = job_format(self.path, fmt)
        if self.kind not in ("csv", "parquet"):
            raise ConfigError(
                f"a streamed run writes its jobs as csv or parquet, not {self.kind} "
                "(which needs the whole schedule: run in memory)"
            )
        self.tau = tau
        self._fh = open(self.path, "wb")  # noqa: SIM115 (closed by close())
        self._parquet: pyarrow.parquet.ParquetWriter | None = None
        self._first = True

    def write(self, jobs: pd.DataFrame) -> None:
        """Append the next rows of the engine's job table."""
        import pyarrow as pa

        from cosched.metrics import outcomes

        table = outcomes(jobs, tau=self.tau)
        if self.kind == "parquet":
            import pyarrow.parquet as pq

            arrow = pa.Table.from_pandas(table, preserve_index=False)
            if self._parquet is None:
                self._parquet = pq.ParquetWriter(self._fh, arrow.schema)
            self._parquet.write_table(arrow)
            return
        import pyarrow.csv as pacsv

        pacsv.write_csv(
            pa.Table.from_pandas(_integral(table), preserve_index=False),
            self._fh,
            write_options=pacsv.WriteOptions(
                quoting_style="needed", include_header=self._first, batch_size=CSV_BATCH_ROWS
            ),
        )
        self._first = False

    def close(self) -> None:
        """Finish the file (a run without jobs still gets the header)."""
        if self._first and self._parquet is None:
            import pandas as pd

            from cosched.engine.feed import OUTCOME_COLUMNS

            self.write(pd.DataFrame({c: np.empty(0) for c in OUTCOME_COLUMNS}))
        if self._parquet is not None:
            self._parquet.close()
        self._fh.close()
