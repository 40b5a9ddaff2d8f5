"""A workload read and loaded a chunk at a time, for traces too large to hold.

:func:`stream_workload` opens an SWF file (:class:`~cosched.workload.swf.SwfStream`)
and applies the loader's rules (:func:`~cosched.workload.loader.apply_rules`) to each
chunk of jobs as it is read; the engine takes the chunks as it needs them
(:mod:`cosched.engine.feed`). The jobs, rules and notes are those of
:func:`~cosched.workload.loader.load_workload` on the same file, with one condition:
a workload is sorted by submit time, and a stream can sort only within a chunk, so a
job submitted before a job of an earlier chunk is an error naming its line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from cosched.errors import WorkloadFormatError
from cosched.platform.machine import Platform
from cosched.workload.columns import Columns
from cosched.workload.job import REQUIRED_COLUMNS, Workload
from cosched.workload.loader import (
    COLUMNS,
    DEFAULT_RULES,
    LoadRules,
    _State,
    _workload_name,
    apply_rules,
)
from cosched.workload.swf import BLOCK_BYTES, SwfStream

__all__ = ["WorkloadStream", "stream_workload"]


@dataclass(eq=False)
class WorkloadStream:
    """A workload's facts at once and its jobs as chunks, in submit order (read once).

    Attributes:
        name, max_procs, max_nodes, header: as :class:`~cosched.workload.job.Workload`.
        counts: what each loader rule did so far (final once the stream is read).
    """

    name: str
    max_procs: int | None
    max_nodes: int | None
    header: dict[str, str]
    chunks: Iterator[Workload]
    counts: dict[str, int] = field(default_factory=dict)
    templates: dict[str, str] = field(default_factory=dict)

    def __iter__(self) -> Iterator[Workload]:
        return self.chunks

    def head(self) -> Workload:
        """A workload with these facts and no jobs (what building a machine reads)."""
        empty = Columns({c: np.empty(0) for c in REQUIRED_COLUMNS})
        return Workload.from_table(
            empty,
            name=self.name,
            max_procs=self.max_procs,
            max_nodes=self.max_nodes,
            header=self.header,
        )

    @property
    def notes(self) -> tuple[str, ...]:
        """One note per rule that changed anything, with the counts so far."""
        return tuple(
            self.templates[k].format(n=n)
            for k, n in self.counts.items()
            if k in self.templates and n
        )


def stream_workload(
    path: str | os.PathLike[str],
    *,
    rules: LoadRules = DEFAULT_RULES,
    platform: Platform | None = None,
    block_bytes: int = BLOCK_BYTES,
) -> WorkloadStream:
    """Open an SWF trace as a :class:`WorkloadStream` (the header is read now).

    Args:
        path: the trace (plain or gzip).
        rules: the loader rules (see :class:`~cosched.workload.loader.LoadRules`).
        platform: the machine for the too-wide rule (default: the header's).
        block_bytes: text read and parsed at a time.

    Raises:
        WorkloadFormatError: as :func:`~cosched.workload.swf.read_swf`, when the chunk
            with the problem is read; also for a job submitted before a job of an
            earlier chunk.
    """
    swf = SwfStream(path, block_bytes=block_bytes)
    h = swf.header
    stream = WorkloadStream(
        name=_workload_name(swf.path),
        max_procs=h.max_procs,
        max_nodes=h.max_nodes,
        header=dict(h.raw),
        chunks=iter(()),
    )
    stream.chunks = _chunks(swf, stream, rules, platform)
    return stream


def _chunks(
    swf: SwfStream, stream: WorkloadStream, rules: LoadRules, platform: Platform | None
) -> Iterator[Workload]:
    last = -np.inf
    for chunk in swf:
        s = _State(Columns(chunk.columns), chunk.line_numbers, {"lines": len(chunk.columns)}, [])
        apply_rules(s, rules, swf, platform)
        for key, n in s.counts.items():
            stream.counts[key] = stream.counts.get(key, 0) + n
        stream.templates.update(s.templates)
        if not len(s.table):
            continue
        submit = s.table["submit_time"]
        if submit.min() < last:
            k = int(np.argmax(submit < last))
            raise WorkloadFormatError(
                f"submitted before a job read earlier (at {last:g}); a streamed trace must "
                "be sorted by submit time beyond one block: load it whole",
                path=swf.path,
                line=int(s.lines[k]),
                field="submit_time",
                value=f"{submit[k]:g}",
            )
        last = float(submit.max())
        yield Workload.from_table(
            s.table.select(COLUMNS),
            name=stream.name,
            max_procs=stream.max_procs,
            max_nodes=stream.max_nodes,
            header=stream.header,
        )
