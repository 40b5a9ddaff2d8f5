"""Writing SWF files: a trace or a workload in the Standard Workload Format, whole or a
chunk at a time, byte-identical either way (the reader: :mod:`cosched.workload.swf`).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cosched.workload.job import SWF_FIELDS, Workload
from cosched.workload.swf import FRACTIONAL_FIELDS, SwfHeader, SwfTrace

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["swf_table", "write_swf", "write_swf_chunks"]


@dataclass
class _ColumnFormat:
    """What a whole column needs to be written right-aligned, learnt chunk by chunk.

    A column whose every value is a whole number (after -1 for missing and rounding in
    integer fields) is written with ``%d``; otherwise every value is text with at most
    6 decimals and no trailing zeros. Either way the width is the widest value's.
    """

    integral: bool = True
    int_width: int = 1
    text_width: int = 1

    def learn(self, filled: np.ndarray) -> None:
        if not filled.size:
            return
        whole = bool((filled == np.floor(filled)).all())
        if whole:
            ints = filled.astype(np.int64)
            w = max(len(str(int(ints.min()))), len(str(int(ints.max()))))
            self.int_width = max(self.int_width, w)
            self.text_width = max(self.text_width, w)
        else:
            self.integral = False
            self.text_width = max(self.text_width, max(map(len, _texts(filled))))

    @property
    def spec(self) -> str:
        return f"%{self.int_width}d" if self.integral else f"%{self.text_width}s"

    def values(self, filled: np.ndarray) -> list[int] | list[str]:
        return filled.astype(np.int64).tolist() if self.integral else _texts(filled)


def _texts(filled: np.ndarray) -> list[str]:
    out = []
    for v in filled.tolist():
        text = f"{v:.6f}".rstrip("0").rstrip(".")
        out.append("0" if text == "-0" else text)
    return out


def _filled(table: pd.DataFrame) -> list[np.ndarray]:
    """Each SWF field of ``table`` with -1 for missing, integer fields rounded."""
    n = len(table)
    out = []
    for name in SWF_FIELDS:
        if name in table.columns:
            values = table[name].to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            values = np.full(n, np.nan)
        filled = np.where(np.isnan(values), -1.0, values)
        out.append(filled if name in FRACTIONAL_FIELDS else np.rint(filled))
    return out


def _data_lines(table: pd.DataFrame, formats: list[_ColumnFormat]) -> list[str]:
    columns = [f.values(col) for f, col in zip(formats, _filled(table), strict=True)]
    line = " ".join(f.spec for f in formats)
    return [line % row for row in zip(*columns, strict=True)]


def _header_lines(header: SwfHeader | Mapping[str, str]) -> list[str]:
    if isinstance(header, SwfHeader):
        if header.comments:
            return list(header.comments)
        header = header.raw
    lines = []
    for key, value in header.items():
        for part in str(value).split("\n") or [""]:
            lines.append(f"; {key}: {part}".rstrip())
    return lines


def _workload_table(w: Workload) -> pd.DataFrame:
    return swf_table(w.table)


def swf_table(t: pd.DataFrame) -> pd.DataFrame:
    """A workload table's columns as SWF fields (``procs`` is field 5, and field 8 too
    unless the table has ``requested_procs``), for :func:`write_swf_chunks`."""
    import pandas as pd

    out = pd.DataFrame(index=t.index)
    for name in SWF_FIELDS:
        if name == "allocated_procs":
            out[name] = t["procs"]
        elif name == "requested_procs":
            out[name] = t["requested_procs"] if "requested_procs" in t else t["procs"]
        elif name in t.columns:
            out[name] = t[name]
    return out


def _workload_header(w: Workload) -> dict[str, str]:
    raw = {str(k): str(v) for k, v in w.header.items()}
    if w.max_nodes is not None:
        raw["MaxNodes"] = str(w.max_nodes)
    if w.max_procs is not None:
        raw["MaxProcs"] = str(w.max_procs)
    return raw


def write_swf(
    data: Workload | SwfTrace,
    path: str | os.PathLike[str],
    *,
    header: SwfHeader | Mapping[str, str] | None = None,
) -> None:
    """Write a trace or a workload as SWF (gzip-compressed when ``path`` ends in .gz).

    Missing values are written as -1, integer-valued numbers without decimals and the
    others with at most 6 decimals and no trailing zeros. SWF defines every field except
    ``avg_cpu_time``, ``used_memory`` and ``requested_memory`` as an integer, so those
    other fields are rounded to the nearest integer (a workload whose arrivals were
    scaled has fractional submit times). Columns are right-aligned. The output depends
    only on the data (the gzip header carries no time stamp), so it is byte-identical
    across runs.

    For a :class:`Workload`, field 4 is ``run_time``, field 5 ``procs``, field 8 the
    ``requested_procs`` column when present (else ``procs``), field 9
    ``requested_time``; other fields come from the table's SWF-named columns, or -1.

    Args:
        data: a raw trace or a workload.
        path: where to write.
        header: header to write instead of the data's own: an :class:`SwfHeader`
            (its verbatim lines, or its ``raw`` facts when it has none) or a mapping
            written as ``; Key: value`` lines (multi-line values as repeated keys).
            By default a trace's own header, or for a workload its ``header`` facts
            with ``MaxNodes``/``MaxProcs`` from ``max_nodes``/``max_procs``.
    """
    if isinstance(data, SwfTrace):
        table = data.table
        head: SwfHeader | Mapping[str, str] = data.header if header is None else header
    else:
        table = _workload_table(data)
        head = _workload_header(data) if header is None else header
    write_swf_chunks(lambda: [table], path, head)


def write_swf_chunks(
    chunks: Callable[[], Iterable[pd.DataFrame]],
    path: str | os.PathLike[str],
    header: SwfHeader | Mapping[str, str],
) -> None:
    """Write a trace given as tables of consecutive jobs, a chunk at a time.

    The file is byte-identical to :func:`write_swf` of all the chunks as one table, in
    memory of one chunk: ``chunks()`` is called twice, once to learn each column's
    format and width, once to write.

    Args:
        chunks: gives a fresh iterable of tables (columns named by SWF field; a
            missing column is all -1) every time it is called.
        path: where to write (gzip-compressed when it ends in .gz).
        header: the header, as for :func:`write_swf`.
    """
    formats = [_ColumnFormat() for _ in SWF_FIELDS]
    for table in chunks():
        for f, col in zip(formats, _filled(table), strict=True):
            f.learn(col)
    spath = os.fspath(path)
    # wbits=31: the gzip container with mtime 0, as gzip.compress(..., mtime=0) makes.
    packer = zlib.compressobj(6, zlib.DEFLATED, 31) if spath.endswith(".gz") else None
    with open(spath, "wb") as fh:

        def put(lines: list[str]) -> None:
            data = "".join(f"{line}\n" for line in lines).encode("utf-8")
            fh.write(data if packer is None else packer.compress(data))

        put(_header_lines(header))
        for table in chunks():
            put(_data_lines(table, formats))
        if packer is not None:
            fh.write(packer.flush())
