"""Annotated workloads on disk: an SWF file plus a Parquet sidecar of profile columns.

SWF has 18 fixed numeric fields, so the profile columns added by the annotators of
:mod:`cosched.workload.profiles` live beside the trace: ``FILE.swf`` (or
``FILE.swf.gz``) gets ``FILE.profile.parquet``, one row per job with ``job_id`` and
the profile columns. Parquet keeps every dtype (int8 codes, bools, float64), so
reading back gives exactly the columns that were written.

Reading joins the sidecar to the loaded workload on ``job_id``: rows of jobs the
loader dropped are ignored; a loaded job without a sidecar row is an error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosched.errors import WorkloadError
from cosched.workload.job import Workload
from cosched.workload.loader import load_workload
from cosched.workload.swf_write import write_swf

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SIDECAR_SUFFIX",
    "attach_profiles",
    "read_annotated",
    "read_sidecar",
    "sidecar_path",
    "write_annotated",
    "write_sidecar",
]

#: What replaces ``.swf`` / ``.swf.gz`` in the sidecar's file name.
SIDECAR_SUFFIX = ".profile.parquet"


def sidecar_path(swf_path: str | os.PathLike[str]) -> Path:
    """The sidecar file of an SWF file: ``a/b.swf[.gz]`` -> ``a/b.profile.parquet``."""
    p = Path(swf_path)
    name = p.name
    for ext in (".swf.gz", ".swf", ".gz"):
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    return p.with_name(name + SIDECAR_SUFFIX)


def _unique_ids(w: Workload) -> pd.Series:
    ids = w.table["job_id"]
    if ids.duplicated().any():
        dup = int(ids[ids.duplicated()].iloc[0])
        raise WorkloadError(
            f"workload {w.name!r}: job_id {dup} repeats; a sidecar needs unique ids"
        )
    return ids


def write_sidecar(w: Workload, path: str | os.PathLike[str]) -> Path | None:
    """Write ``w``'s profile columns, keyed by ``job_id``, to a Parquet file.

    Args:
        w: the workload (its ``job_id`` values must be unique).
        path: the Parquet file to write.

    Returns:
        ``path``, or None when ``w`` has no profile columns (nothing is written).

    Raises:
        WorkloadError: repeated job ids.
    """
    cols = list(w.profile_columns)
    if not cols:
        return None
    import pandas as pd

    table = pd.concat([_unique_ids(w), w.table[cols]], axis=1)
    table.to_parquet(path, index=False)
    return Path(path)


def read_sidecar(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The sidecar table (``job_id`` plus profile columns) with its stored dtypes."""
    import pandas as pd

    table = pd.read_parquet(path)
    if "job_id" not in table.columns:
        raise WorkloadError(f"{os.fspath(path)}: sidecar has no job_id column")
    return table


def attach_profiles(w: Workload, profiles: pd.DataFrame) -> Workload:
    """``w`` with the profile columns of a sidecar table joined on ``job_id``.

    Args:
        w: the workload (unique ``job_id``).
        profiles: ``job_id`` plus profile columns; extra rows are ignored.

    Raises:
        WorkloadError: a job of ``w`` has no row in ``profiles``, or ids repeat.
    """
    import pandas as pd

    ids = _unique_ids(w)
    keyed = profiles.set_index("job_id")
    if keyed.index.duplicated().any():
        raise WorkloadError("sidecar: job_id values repeat")
    missing = ~ids.isin(keyed.index)
    if missing.any():
        raise WorkloadError(
            f"workload {w.name!r}: {int(missing.sum())} jobs have no sidecar row "
            f"(first job_id {int(ids[missing].iloc[0])})"
        )
    extra = keyed.loc[ids.to_numpy()].reset_index(drop=True)
    table = w.table.drop(columns=[c for c in extra.columns if c in w.table.columns])
    return Workload(
        pd.concat([table, extra.set_axis(table.index)], axis=1),
        name=w.name,
        max_procs=w.max_procs,
        max_nodes=w.max_nodes,
        header=dict(w.header),
        notes=w.notes,
    )


def write_annotated(w: Workload, path: str | os.PathLike[str]) -> Path | None:
    """Write ``w`` as SWF at ``path`` and its profile columns beside it.

    A stale sidecar from an earlier write is removed when ``w`` has no profile columns.

    Returns:
        The sidecar path, or None when there are no profile columns.
    """
    write_swf(w, path)
    side = sidecar_path(path)
    written = write_sidecar(w, side)
    if written is None:
        side.unlink(missing_ok=True)
    return written


def read_annotated(path: str | os.PathLike[str], **load_options: Any) -> Workload:
    """Load an SWF file and, when its sidecar exists, join the profile columns.

    Args:
        path: the SWF file.
        **load_options: passed to :func:`cosched.workload.loader.load_workload`.
    """
    w = load_workload(path, **load_options)
    side = sidecar_path(path)
    return attach_profiles(w, read_sidecar(side)) if side.exists() else w
