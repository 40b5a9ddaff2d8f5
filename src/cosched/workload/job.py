"""The job record and the in-memory workload.

A :class:`Workload` is columnar: one row per job, sorted by submit time, with
the resolved scheduling fields (``procs``, ``run_time``, ``requested_time``) always
present and every other SWF field or profile column optional. Columnar storage makes
transforms (load scaling, windows, filters) vectorised and lets profile annotators add
typed columns without the batch policies knowing about them. The engine turns rows into
:class:`Job` records, the read-only objects a policy sees.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from cosched.errors import WorkloadError
from cosched.workload.columns import Columns, FrameField

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["OPTIONAL_COLUMNS", "REQUIRED_COLUMNS", "SWF_FIELDS", "Job", "Workload"]

#: The 18 Standard Workload Format fields, in file order, by their cosched names.
SWF_FIELDS: tuple[str, ...] = (
    "job_id",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_procs",
    "avg_cpu_time",
    "used_memory",
    "requested_procs",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
)

#: Columns every workload has, with no missing value.
REQUIRED_COLUMNS: tuple[str, ...] = ("job_id", "submit_time", "run_time", "procs", "requested_time")

#: SWF columns a workload may carry along (NaN means "missing", SWF's -1).
OPTIONAL_COLUMNS: tuple[str, ...] = tuple(
    f for f in SWF_FIELDS if f not in REQUIRED_COLUMNS and f != "allocated_procs"
)

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Job:
    """One rigid parallel job as a policy sees it.

    Attributes:
        index: position in the workload (0-based, submit order); the engine's key.
        job_id: the trace's job number (SWF field 1).
        submit_time: seconds from the workload's start.
        run_time: seconds of work at full speed (progress rate 1).
        requested_time: the user's estimate (wall-clock limit) in seconds.
        procs: processors (cores) requested.
        user_id: SWF field 12, or None when missing.
        queue: SWF field 15, or None when missing.
        extra: profile fields added by annotators (read-only mapping).
    """

    index: int
    job_id: int
    submit_time: float
    run_time: float
    requested_time: float
    procs: int
    user_id: int | None = None
    queue: int | None = None
    extra: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)


def _job_maker() -> Callable[..., Job]:
    """:class:`Job`'s constructor without its per-field checks: the fields set through
    the slots' own descriptors, which is what the frozen ``__init__`` does through
    ``object.__setattr__`` one call at a time (half the cost when a workload builds
    its jobs; a test holds the two equal)."""
    names = [f.name for f in fields(Job)]
    if names != list(Job.__slots__):  # pragma: no cover - a field added out of order
        raise RuntimeError(f"Job's fields {names} are not its slots {Job.__slots__}")
    setters = [getattr(Job, name).__set__ for name in names]
    new = object.__new__
    s0, s1, s2, s3, s4, s5, s6, s7, s8 = setters

    def make(
        index: int,
        job_id: int,
        submit_time: float,
        run_time: float,
        requested_time: float,
        procs: int,
        user_id: int | None,
        queue: int | None,
        extra: Mapping[str, Any],
    ) -> Job:
        job = new(Job)
        s0(job, index)
        s1(job, job_id)
        s2(job, submit_time)
        s3(job, run_time)
        s4(job, requested_time)
        s5(job, procs)
        s6(job, user_id)
        s7(job, queue)
        s8(job, extra)
        return job

    return make


_new_job = _job_maker()


_REQUIRED_DTYPES: dict[str, type[np.generic]] = {
    "job_id": np.int64,
    "submit_time": np.float64,
    "run_time": np.float64,
    "procs": np.int64,
    "requested_time": np.float64,
}


def _has_missing(values: np.ndarray) -> bool:
    """Whether a column holds a missing value (NaN, None or NaT), as pandas' isna."""
    if values.dtype.kind in "fc":
        return bool(np.isnan(values).any())
    if values.dtype.kind in "iub":
        return False
    import pandas as pd

    return bool(pd.isna(values).any())


def _optional_int(values: np.ndarray) -> list[int | None]:
    return [None if v != v else int(v) for v in values.tolist()]


@dataclass(frozen=True, eq=False)
class Workload:
    """A set of jobs ready to simulate, plus facts about where it came from.

    Attributes:
        table: one row per job, sorted by ``submit_time`` (ties keep trace order), as a
            pandas DataFrame; a workload may be built from :class:`Columns` instead
            (the command line's reader does), and the DataFrame is then made on first
            use. :attr:`columns` gives the same table as numpy columns.
        name: a short label (file stem or model name) used in reports.
        max_procs: the machine size the workload was recorded or generated for, if known.
        max_nodes: the node count of that machine, if known.
        header: other header facts (SWF ``; Key: value`` lines), as text.
        notes: what loading or transforming did (dropped jobs, clipped sizes...).
    """

    if TYPE_CHECKING:  # a DataFrame to read; Columns too when built (see FrameField)
        table: pd.DataFrame
    else:
        table: FrameField = FrameField()
    name: str = "workload"
    max_procs: int | None = None
    max_nodes: int | None = None
    header: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        t = self.columns
        missing = [c for c in REQUIRED_COLUMNS if c not in t]
        if missing:
            raise WorkloadError(f"workload {self.name!r} lacks columns {missing}")
        if len(t):
            if any(_has_missing(t[c]) for c in REQUIRED_COLUMNS):
                raise WorkloadError(f"workload {self.name!r}: required column has missing values")
            if (t["run_time"] <= 0).any():
                raise WorkloadError(f"workload {self.name!r}: run_time must be > 0")
            if (t["procs"] < 1).any():
                raise WorkloadError(f"workload {self.name!r}: procs must be >= 1")
            if (t["requested_time"] <= 0).any():
                raise WorkloadError(f"workload {self.name!r}: requested_time must be > 0")
            if (np.diff(t["submit_time"]) < 0).any():
                raise WorkloadError(f"workload {self.name!r}: jobs must be sorted by submit_time")

    @property
    def columns(self) -> Columns:
        """The table as numpy columns (no pandas needed)."""
        return Workload.__dict__["table"].columns(self)  # type: ignore[no-any-return]

    @classmethod
    def from_table(cls, table: pd.DataFrame | Columns, **facts: Any) -> Workload:
        """Build a workload from any table with the required columns.

        Sorts by submit time (stable), resets the index and fixes the dtypes of the
        required columns. A :class:`Columns` table stays one (no pandas).
        """
        if not isinstance(table, Columns):
            t = table.sort_values("submit_time", kind="stable").reset_index(drop=True)
            return cls(t.astype(_REQUIRED_DTYPES), **facts)
        sub = np.asarray(table["submit_time"], dtype=np.float64)
        if len(sub) and (np.diff(sub) < 0).any():
            table = table.rows(np.argsort(sub, kind="stable"))
        cols = Columns()
        for name in table:
            values = table[name]
            dtype = _REQUIRED_DTYPES.get(name)
            cols[name] = values if dtype is None else values.astype(dtype, copy=False)
        return cls(cols, **facts)

    @classmethod
    def from_jobs(
        cls,
        rows: list[tuple[float, int, float, float]] | list[tuple[float, int, float]],
        **facts: Any,
    ) -> Workload:
        """Build a small workload from ``(submit, procs, run[, requested])`` tuples.

        Job ids are 1, 2, ... in the given order. Handy for examples and tests.
        """
        import pandas as pd

        recs = [(*r, r[2]) if len(r) == 3 else r for r in rows]
        t = pd.DataFrame(recs, columns=["submit_time", "procs", "run_time", "requested_time"])
        t.insert(0, "job_id", np.arange(1, len(t) + 1))
        return cls.from_table(t, **facts)

    def __len__(self) -> int:
        return len(self.columns)

    @property
    def profile_columns(self) -> tuple[str, ...]:
        """Columns that are neither SWF fields nor required: the annotators' fields."""
        known = set(SWF_FIELDS) | set(REQUIRED_COLUMNS)
        return tuple(c for c in self.columns if c not in known)

    def jobs(self) -> list[Job]:
        """The jobs as :class:`Job` records, in submit order.

        Built once per workload object and cached (the table is not to be mutated in
        place; transforms return new workloads), so many simulations share them.
        """
        cached: list[Job] | None = self.__dict__.get("_jobs_cache")
        if cached is None:
            cached = self._build_jobs()
            object.__setattr__(self, "_jobs_cache", cached)
        return list(cached)

    def job_records(self, offset: int = 0) -> list[Job]:
        """The jobs as :class:`Job` records with indices from ``offset`` (not cached).

        A streamed workload's chunks use it: their jobs' indices run on across chunks.
        """
        return self._build_jobs(offset)

    def _build_jobs(self, offset: int = 0) -> list[Job]:
        t = self.columns
        n = len(t)
        users = _optional_int(t["user_id"]) if "user_id" in t else [None] * n
        queues = _optional_int(t["queue"]) if "queue" in t else [None] * n
        prof = self.profile_columns
        if prof:
            cols = [t[c].tolist() for c in prof]
            keys = itertools.repeat(prof)
            extras: list[Mapping[str, Any]] = list(
                map(MappingProxyType, map(dict, map(zip, keys, zip(*cols, strict=True))))
            )
        else:
            extras = [_EMPTY] * n
        columns = (t["job_id"], t["submit_time"], t["run_time"], t["requested_time"], t["procs"])
        values = [c.tolist() for c in columns]
        return list(map(_new_job, range(offset, offset + n), *values, users, queues, extras))

    def __iter__(self) -> Iterator[Job]:
        return iter(self.jobs())

    def _in_columns(self) -> bool:
        """Whether the table was given as :class:`Columns` (its DataFrame, if any, made
        from them since)."""
        return isinstance(self.__dict__[Workload.__dict__["table"].slot], Columns)

    def rows(self, which: slice | np.ndarray, note: str) -> Workload:
        """A copy with the rows ``which`` selects (a slice, or one boolean per job, in
        submit order) and one more note; a table held as numpy columns stays so (no
        pandas), a DataFrame stays one."""
        if self._in_columns():
            return self.replace_table(self.columns.rows(which), note)
        t = self.table
        return self.replace_table(t.iloc[which] if isinstance(which, slice) else t.loc[which], note)

    def with_columns(self, columns: Mapping[str, ArrayLike], note: str) -> Workload:
        """A copy with ``columns`` added (or replaced) and one more note; a table held as
        numpy columns stays so (no pandas), a DataFrame stays one."""
        if not self._in_columns():
            return self.replace_table(self.table.assign(**columns), note)
        cols = Columns(self.columns)  # the arrays are shared, not copied
        for name, values in columns.items():
            cols[name] = values
        return self.replace_table(cols, note)

    def replace_table(self, table: pd.DataFrame | Columns, note: str | None = None) -> Workload:
        """A copy with another table (re-sorted) and, optionally, one more note."""
        notes = self.notes if note is None else (*self.notes, note)
        return Workload.from_table(
            table,
            name=self.name,
            max_procs=self.max_procs,
            max_nodes=self.max_nodes,
            header=dict(self.header),
            notes=notes,
        )
