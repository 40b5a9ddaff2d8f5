"""The result store: one Parquet file per finished cell, one results table.

Layout of a store folder ``DIR``::

    DIR/cells/<key>.parquet     one row: the cell's parameters, seed, status and metrics
    DIR/failed/<key>.parquet    the same for a failed cell, with its error (retried on rerun)
    DIR/<table>/<key>.parquet   optional per-cell tables (e.g. the sweep's per-job outcomes)
    DIR/results.parquet         every cell of the experiment, sorted by key
    DIR/runs.jsonl              one line per invocation: command line, executor, times

Each file is written to a temporary file in its folder and moved into place with
``os.replace``, so a reader (or a rerun after a crash) sees a whole file or none. The
cell file is written last: its presence marks the cell finished. ``results.parquet`` is
built from the cell files alone, in key order, and its metadata holds only what defines
the experiment, so it is byte-identical whatever the number of workers, the executor or
the interruptions. The command lines of the invocations go to ``runs.jsonl`` instead.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cosched.errors import ConfigError
from cosched.experiments.model import CellTask, Scalar

__all__ = [
    "META_KEY",
    "CellOutcome",
    "CellResult",
    "Store",
    "read_results",
]

#: Key of the provenance JSON in the Parquet file metadata.
META_KEY = b"cosched"


@dataclass
class CellResult:
    """What a cell function may return instead of a plain metrics mapping.

    Attributes:
        metrics: metric name -> number, string, bool, None or a list of numbers.
        tables: extra per-cell tables, stored as ``DIR/<name>/<key>.parquet``.
        info: kept in the cell file's metadata only, never in the results (e.g.
            wall-clock diagnostics, which differ from run to run).
    """

    metrics: Mapping[str, Any]
    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    info: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class CellOutcome:
    """A finished cell as a worker sends it back to the parent (picklable).

    ``error`` is None for a success; ``info`` holds what is kept in the cell file's
    metadata only (wall time, traceback), never in the results table.
    """

    metrics: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)


@contextmanager
def atomic(path: Path) -> Iterator[Path]:
    """Yield a temporary path in ``path``'s folder; on success move it onto ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _column(values: Sequence[Any], name: str) -> pa.Array:
    try:
        return pa.array(list(values))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        kinds = sorted({type(v).__name__ for v in values if v is not None})
        raise ConfigError(f"column {name!r} mixes types ({', '.join(kinds)}): {exc}") from None


def _table(rows: Sequence[Mapping[str, Any]], order: Sequence[str]) -> pa.Table:
    """Rows to a table with the columns in ``order`` (missing values are nulls)."""
    return pa.table({c: _column([r.get(c) for r in rows], c) for c in order})


def _write(table: pa.Table, path: Path, meta: Mapping[str, Any] | None = None) -> None:
    if meta is not None:
        blob = json.dumps(meta, sort_keys=True, allow_nan=True).encode()
        table = table.replace_schema_metadata({META_KEY: blob})
    with atomic(path) as tmp:
        pq.write_table(table, tmp)


def _clean(value: Any) -> Any:
    """Numpy scalars to Python; NaN stays NaN (Parquet keeps it)."""
    if hasattr(value, "item") and not isinstance(value, list | tuple):
        return value.item()
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


class Store:
    """A store folder (see the module docstring)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def cell_path(self, key: str) -> Path:
        """The file that marks cell ``key`` finished."""
        return self.root / "cells" / f"{key}.parquet"

    def failed_path(self, key: str) -> Path:
        """The file recording cell ``key``'s failure."""
        return self.root / "failed" / f"{key}.parquet"

    def done(self, key: str) -> bool:
        """Whether cell ``key`` finished (a failed cell is not done: it is retried)."""
        return self.cell_path(key).is_file()

    def write(self, task: CellTask, outcome: CellOutcome) -> None:
        """Store one finished or failed cell atomically (the parent calls this)."""
        columns: dict[str, Scalar] = dict(task.columns)
        clash = sorted(set(columns) & set(outcome.metrics))
        if clash:
            outcome = CellOutcome(
                error=f"ConfigError: metrics {clash} have the names of parameters", info={}
            )
        row: dict[str, Any] = {"key": task.key, **columns}
        info = {"label": task.label, **outcome.info}
        if outcome.error is not None:
            row |= {"status": "failed", "error": outcome.error}
            _write(_table([row], list(row)), self.failed_path(task.key), info)
            return
        for name, frame in sorted(outcome.tables.items()):
            path = self.root / name / f"{task.key}.parquet"
            with atomic(path) as tmp:
                frame.to_parquet(tmp, index=False)
        row |= {"status": "ok", "error": ""}
        row |= {k: _clean(v) for k, v in outcome.metrics.items()}
        _write(_table([row], list(row)), self.cell_path(task.key), info)
        self.failed_path(task.key).unlink(missing_ok=True)

    def remove_temporaries(self) -> int:
        """Delete the temporary files of interrupted atomic writes (``.NAME.*.tmp``).

        Only the parent process writes the store, so once its run has stopped no write
        is in flight: a temporary left then comes from an interrupt that landed outside
        :func:`atomic`'s cleanup (between ``mkstemp`` creating the file and the ``try``).
        Returns how many were deleted.
        """
        gone = 0
        for tmp in self.root.rglob(".*.tmp"):
            tmp.unlink(missing_ok=True)
            gone += 1
        return gone

    def row(self, task: CellTask) -> dict[str, Any]:
        """The stored row of a cell (``status`` ``missing`` if it never ran)."""
        for path in (self.cell_path(task.key), self.failed_path(task.key)):
            if path.is_file():
                rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
                return rows[0]
        return {"key": task.key, **task.columns, "status": "missing", "error": ""}

    def info(self, key: str) -> dict[str, Any]:
        """The metadata kept beside a stored cell (label, wall time, traceback)."""
        for path in (self.cell_path(key), self.failed_path(key)):
            if path.is_file():
                meta = pq.read_schema(path).metadata or {}
                return dict(json.loads(meta.get(META_KEY, b"{}")))
        return {}

    def assemble(self, tasks: Sequence[CellTask], meta: Mapping[str, Any]) -> pd.DataFrame:
        """Write ``results.parquet`` from the stored cells, sorted by key; return it.

        Columns: ``key``, the parameters (in the order the grid first gives them),
        ``seed``, ``status``, ``error``, then the metrics in name order.
        """
        ordered = sorted(tasks, key=lambda t: t.key)
        rows = [self.row(t) for t in ordered]
        params: dict[str, None] = {}
        for t in tasks:
            params.update(dict.fromkeys(c for c in t.columns if c != "seed"))
        fixed = ["key", *params, "seed", "status", "error"]
        metrics = sorted({c for r in rows for c in r} - set(fixed))
        table = _table(rows, fixed + metrics)
        columns = {"params": list(params), "metrics": metrics}
        _write(table, self.root / "results.parquet", {**meta, "columns": columns})
        return table.to_pandas()

    def log_run(self, record: Mapping[str, Any]) -> None:
        """Append one invocation's record to ``runs.jsonl``."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / "runs.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")


def read_results(root: str | os.PathLike[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``DIR/results.parquet`` as a DataFrame, and its provenance metadata.

    Raises:
        ConfigError: the folder has no results file.
    """
    path = Path(root) / "results.parquet"
    if not path.is_file():
        raise ConfigError(f"{path} not found: run the experiment into {Path(root)} first")
    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
    return table.to_pandas(), meta


def attach_claims(root: str | os.PathLike[str], claims: pd.DataFrame) -> None:
    """Carry the judged claim table in ``DIR/results.parquet``'s metadata.

    The rows are unchanged; the provenance gains ``claim_table``: one record per claim
    (the columns of ``claims.parquet``), so the results file alone says how each of the
    paper's claims came out. :func:`read_claims` reads it back.
    """
    path = Path(root) / "results.parquet"
    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
    meta["claim_table"] = [
        {k: _clean(v) for k, v in row.items()} for row in claims.to_dict("records")
    ]
    _write(table, path, meta)


def read_claims(root: str | os.PathLike[str]) -> pd.DataFrame:
    """The claim table carried by ``DIR/results.parquet``, columns in the order of
    ``claims.parquet`` (empty if it carries none)."""
    from cosched.experiments.claims import COLUMNS

    _, meta = read_results(root)
    frame = pd.DataFrame(meta.get("claim_table", []))
    return frame[[c for c in COLUMNS if c in frame.columns]]


def finite(value: Any) -> bool:
    """Whether ``value`` is a finite number."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
