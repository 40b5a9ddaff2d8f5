"""The result store: one Parquet file per finished cell, one results table.

Layout of a store folder ``DIR``::

    DIR/cells/<key>.parquet     one row: the cell's parameters, seed, status and metrics
    DIR/failed/<key>.parquet    the same for a failed cell, with its error (retried on rerun)
    DIR/<table>/<key>.parquet   optional per-cell tables (e.g. the sweep's per-job outcomes)
    DIR/results.parquet         every cell of the experiment, sorted by key
    DIR/runs.jsonl              one line per invocation: command line, executor, times
    DIR/timings.jsonl           one line per finished cell: its wall time and the cell's
                                own ``info`` (what differs from run to run)

Each file is written to a temporary file in its folder and moved into place with
``os.replace``, so a reader (or a rerun after a crash) sees a whole file or none. The
cell file is written last: its presence marks the cell finished, and its metadata holds
the SHA-256 of each per-cell table, so a table damaged or deleted later (a full disk, a
copy cut short, a stray ``rm``) is seen, and its row names its key, so a cell file
copied, linked or moved onto another cell's name is seen too. A rerun recomputes a
cell whose files fail that check (:meth:`Store.damage`, :meth:`Store.forget`), and a
reader of a table or row gets a :class:`StoreError` naming the file, never a pyarrow
traceback; a store whose folders are files, or whose cell file is a folder, is one
:class:`StoreError` before any cell runs (:meth:`Store.check_layout`). A cell file
holds only what the cell computed (its metadata: label and tables' checksums), so two
identical runs write the same bytes; wall times go to ``timings.jsonl``. ``results.parquet`` is
built from the cell files alone, in key order, and its metadata holds only what defines
the experiment, so it is byte-identical whatever the number of workers, the executor or
the interruptions. The command lines of the invocations go to ``runs.jsonl`` instead.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
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
    "StoreError",
    "read_results",
]

#: Key of the provenance JSON in the Parquet file metadata.
META_KEY = b"cosched"

#: Key, in a cell file's metadata, of its tables' checksums: ``{name: {"sha256": hex}}``.
TABLES_KEY = "stored_tables"

#: What pyarrow raises on a file it cannot read (truncated, not Parquet, unreadable).
_UNREADABLE = (pa.ArrowException, OSError, ValueError)


class StoreError(ConfigError):
    """A file of a store cannot be used; names the file and how to recompute it.

    Attributes:
        path: the damaged or missing file.
    """

    def __init__(self, path: Path, problem: str, fix: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}; {fix}")


@dataclass
class CellResult:
    """What a cell function may return instead of a plain metrics mapping.

    Attributes:
        metrics: metric name -> number, string, bool, None or a list of numbers.
        tables: extra per-cell tables, stored as ``DIR/<name>/<key>.parquet``.
        info: kept in ``timings.jsonl`` beside the store, never in the results or
            the cell file (e.g. wall-clock diagnostics, which differ from run to run);
            :meth:`Store.info` returns it.
    """

    metrics: Mapping[str, Any]
    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    info: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class CellOutcome:
    """A finished cell as a worker sends it back to the parent (picklable).

    ``error`` is None for a success; ``info`` holds what is kept beside the results
    (wall time in ``timings.jsonl``, a failure's traceback in its failure file).
    """

    metrics: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)


@contextmanager
def atomic(path: Path) -> Iterator[Path]:
    """Yield a temporary path in ``path``'s folder; on success move it onto ``path``.

    Raises:
        StoreError: the folder cannot be made (a file stands in its place).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        bad = next(p for p in (path.parent, *path.parent.parents) if p.exists())
        raise StoreError(bad, "is a file, not a folder", _FIX_FOLDER) from None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _column(values: Sequence[object], name: str) -> pa.Array:
    try:
        return pa.array(list(values))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        kinds = sorted({type(v).__name__ for v in values if v is not None})
        raise ConfigError(f"column {name!r} mixes types ({', '.join(kinds)}): {exc}") from None


def _table(rows: Sequence[Mapping[str, object]], order: Sequence[str]) -> pa.Table:
    """Rows to a table with the columns in ``order`` (missing values are nulls)."""
    return pa.table({c: _column([r.get(c) for r in rows], c) for c in order})


def _write(table: pa.Table, path: Path, meta: Mapping[str, object] | None = None) -> None:
    if meta is not None:
        blob = json.dumps(meta, sort_keys=True, allow_nan=True).encode()
        table = table.replace_schema_metadata({META_KEY: blob})
    with atomic(path) as tmp:
        pq.write_table(table, tmp)


def _clean(value: object) -> object:
    """Numpy scalars to Python; NaN stays NaN (Parquet keeps it)."""
    if hasattr(value, "item") and not isinstance(value, list | tuple):
        return value.item()
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read(path: Path) -> pa.Table:
    """A whole Parquet file, or :class:`StoreError` naming it."""
    try:
        return pq.read_table(path)
    except FileNotFoundError:
        raise StoreError(path, "missing", _FIX) from None
    except _UNREADABLE as exc:
        raise StoreError(path, f"cannot be read ({_reason(exc)})", _FIX) from None


def _reason(exc: BaseException) -> str:
    """The first line of pyarrow's message, without the path the error names already."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return re.sub(r"^Could not open Parquet input source '[^']*': ", "", text)


_FIX = "remove it and rerun the command that wrote the store to recompute that cell"
_FIX_FOLDER = "move it away and rerun the command that wrote the store"
#: The store's own folders (a per-cell table's folder is named by the cell function).
_FOLDERS = ("cells", "failed")


def _one_row(path: Path) -> dict[str, Any]:
    rows: list[dict[str, Any]] = _read(path).to_pylist()
    if len(rows) != 1:
        raise StoreError(path, f"holds {len(rows)} rows, not 1", _FIX)
    return rows[0]


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

    def table_path(self, name: str, key: str) -> Path:
        """The file of cell ``key``'s per-cell table ``name``."""
        return self.root / name / f"{key}.parquet"

    def check_layout(self, keys: Sequence[str] = ()) -> None:
        """Refuse a store the runner cannot write: the folder, ``cells/`` or ``failed/``
        a file, or a cell's file (of ``keys``) a folder.

        Raises:
            StoreError: naming the path.
        """
        for path in (self.root, *(self.root / f for f in _FOLDERS)):
            if path.exists() and not path.is_dir():
                raise StoreError(path, "is a file, not a store folder", _FIX_FOLDER)
        for key in keys:
            for path in (self.cell_path(key), self.failed_path(key)):
                if path.is_dir():
                    raise StoreError(path, "is a folder, not a cell file", _FIX_FOLDER)

    def done(self, key: str) -> bool:
        """Whether cell ``key`` finished (a failed cell is not done: it is retried).

        Only the cell file's presence is looked at; :meth:`damage` checks its contents.
        """
        return self.cell_path(key).is_file()

    def damage(self, key: str) -> str | None:
        """Why finished cell ``key`` cannot be used as stored, or None if it can.

        The cell file must read whole with one row, and each table its metadata lists
        must be present with the recorded SHA-256. A cell file without that record (a
        store written before checksums were kept) has its tables' footers read instead,
        which catches a truncated file but not a deleted one.
        """
        path = self.cell_path(key)
        try:
            table = _read(path)
            meta = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
        except StoreError as exc:
            return f"{exc.path}: {exc.problem}"
        except ValueError as exc:
            return f"{path}: metadata cannot be read ({_reason(exc)})"
        if table.num_rows != 1:
            return f"{path}: holds {table.num_rows} rows, not 1"
        if "key" in table.column_names:
            stored = table.column("key")[0].as_py()
            if stored != key:
                return f"{path}: holds the row of cell {stored} (copied or moved from its file)"
        sums = meta.get(TABLES_KEY)
        if sums is None:
            return self._legacy_damage(key)
        for name, want in sorted(sums.items()):
            sub = self.table_path(name, key)
            if sub.parent.exists() and not sub.parent.is_dir():
                raise StoreError(sub.parent, "is a file, not a folder", _FIX_FOLDER)
            if sub.is_dir():
                raise StoreError(sub, "is a folder, not a cell's table", _FIX_FOLDER)
            if not sub.is_file():
                return f"{sub}: missing"
            if _sha256(sub) != want.get("sha256"):
                return f"{sub}: damaged (its SHA-256 differs from the one recorded in {path})"
        return None

    def _legacy_damage(self, key: str) -> str | None:
        for sub in sorted(self.root.glob(f"*/{key}.parquet")):
            if sub.parent.name in ("cells", "failed"):
                continue
            try:
                pq.read_metadata(sub)
            except _UNREADABLE as exc:
                return f"{sub}: cannot be read ({_reason(exc)})"
        return None

    def forget(self, key: str) -> None:
        """Remove finished cell ``key``'s files (its cell file and per-cell tables), so
        that it runs again; its failure record, if any, stays until the rerun."""
        self.cell_path(key).unlink(missing_ok=True)
        for sub in self.root.glob(f"*/{key}.parquet"):
            if sub.parent.name != "failed":
                sub.unlink(missing_ok=True)

    def table(self, name: str, key: str) -> pd.DataFrame:
        """Cell ``key``'s per-cell table ``name``, checked against its cell file's record.

        Raises:
            StoreError: the cell has not finished, the table is missing, damaged or
                unreadable; the message names the file and how to recompute it.
        """
        if not self.done(key):
            raise StoreError(self.cell_path(key), "missing (the cell has not finished)", _FIX)
        path = self.table_path(name, key)
        want = self.info(key).get(TABLES_KEY, {}).get(name)
        if want is not None and path.is_file() and _sha256(path) != want.get("sha256"):
            raise StoreError(path, "damaged (its SHA-256 differs from the recorded one)", _FIX)
        return _read(path).to_pandas()

    def write(self, task: CellTask, outcome: CellOutcome) -> None:
        """Store one finished or failed cell atomically (the parent calls this)."""
        columns: dict[str, Scalar] = dict(task.columns)
        clash = sorted(set(columns) & set(outcome.metrics))
        if clash:
            outcome = CellOutcome(
                error=f"ConfigError: metrics {clash} have the names of parameters", info={}
            )
        row: dict[str, Any] = {"key": task.key, **columns}
        if outcome.error is not None:
            row |= {"status": "failed", "error": outcome.error}
            info = {"label": task.label, **outcome.info}
            _write(_table([row], list(row)), self.failed_path(task.key), info)
            return
        sums: dict[str, dict[str, Any]] = {}
        for name, frame in sorted(outcome.tables.items()):
            with atomic(self.table_path(name, task.key)) as tmp:
                frame.to_parquet(tmp, index=False)
                sums[name] = {"sha256": _sha256(tmp)}
        row |= {"status": "ok", "error": ""}
        row |= {k: _clean(v) for k, v in outcome.metrics.items()}
        if outcome.info:  # before the cell file, which marks the cell finished
            self._log_timing(task.key, outcome.info)
        meta = {"label": task.label, TABLES_KEY: sums}
        _write(_table([row], list(row)), self.cell_path(task.key), meta)
        self.failed_path(task.key).unlink(missing_ok=True)

    def _log_timing(self, key: str, info: Mapping[str, object]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        record = {"key": key, **{k: _clean(v) for k, v in info.items()}}
        with (self.root / "timings.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, sort_keys=True, allow_nan=True) + "\n")

    def timings(self, key: str) -> dict[str, Any]:
        """The last ``timings.jsonl`` record of cell ``key`` (without the key; empty if
        none). A line cut short by an interrupted run is skipped."""
        path = self.root / "timings.jsonl"
        found: dict[str, Any] = {}
        if not path.is_file():
            return found
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("key") == key:
                    found = {k: v for k, v in record.items() if k != "key"}
        return found

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
                return _one_row(path)
        return {"key": task.key, **task.columns, "status": "missing", "error": ""}

    def finished(self, key: str) -> dict[str, Any] | None:
        """The stored row of finished cell ``key`` (None if it has not finished).

        Raises:
            StoreError: its cell file cannot be read.
        """
        path = self.cell_path(key)
        return _one_row(path) if path.is_file() else None

    def info(self, key: str) -> dict[str, Any]:
        """What is kept beside a stored cell: its file's metadata (label, the checksums
        of its tables; a failure's traceback) and, for a finished cell, its last
        ``timings.jsonl`` record (wall time, the cell's own ``info``).

        Raises:
            StoreError: the cell or failure file cannot be read.
        """
        for path in (self.cell_path(key), self.failed_path(key)):
            if path.is_file():
                try:
                    meta = pq.read_schema(path).metadata or {}
                    stored = dict(json.loads(meta.get(META_KEY, b"{}")))
                except _UNREADABLE as exc:
                    raise StoreError(path, f"cannot be read ({_reason(exc)})", _FIX) from None
                if path == self.cell_path(key):
                    stored = self.timings(key) | stored
                return stored
        return {}

    def assemble(self, tasks: Sequence[CellTask], meta: Mapping[str, object]) -> pd.DataFrame:
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

    def log_run(self, record: Mapping[str, object]) -> None:
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
    table, meta = _read_results(path)
    return table.to_pandas(), meta


def _read_results(path: Path) -> tuple[pa.Table, dict[str, Any]]:
    """``results.parquet`` and its metadata; a damaged file is a :class:`StoreError`."""
    fix = f"rerun the command that wrote {path.parent} to rebuild it from the cell files"
    try:
        table = pq.read_table(path)
        meta = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
    except _UNREADABLE as exc:
        raise StoreError(path, f"cannot be read ({_reason(exc)})", fix) from None
    return table, dict(meta)


def attach_claims(root: str | os.PathLike[str], claims: pd.DataFrame) -> None:
    """Carry the judged claim table in ``DIR/results.parquet``'s metadata.

    The rows are unchanged; the provenance gains ``claim_table``: one record per claim
    (the columns of ``claims.parquet``), so the results file alone says how each of the
    paper's claims came out. :func:`read_claims` reads it back.
    """
    table, meta = _read_results(Path(root) / "results.parquet")
    meta["claim_table"] = [
        {k: _clean(v) for k, v in row.items()} for row in claims.to_dict("records")
    ]
    _write(table, Path(root) / "results.parquet", meta)


def read_claims(root: str | os.PathLike[str]) -> pd.DataFrame:
    """The claim table carried by ``DIR/results.parquet``, columns in the order of
    ``claims.parquet`` (empty if it carries none)."""
    from cosched.experiments.claims import COLUMNS

    _, meta = read_results(root)
    frame = pd.DataFrame(meta.get("claim_table", []))
    return frame[[c for c in COLUMNS if c in frame.columns]]


def finite(value: object) -> bool:
    """Whether ``value`` is a finite number."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
