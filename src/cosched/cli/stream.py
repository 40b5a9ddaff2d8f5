"""``cosched run --stream``: one simulation in memory bounded by the jobs in the system.

The trace is read and loaded a block at a time (:func:`cosched.workload.stream.
stream_workload`), the engine keeps only the jobs in the system
(:mod:`cosched.engine.feed`), finished jobs go to ``--jobs-out`` as they come
(:class:`cosched.outputs.JobsWriter`) and into the summary
(:class:`cosched.metrics.running.RunningSummary`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING

from cosched.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd

    from cosched.metrics import JobClasses
    from cosched.policies.base import Policy

__all__ = ["STREAM_FROM", "run_streamed", "streams", "text_bytes"]

#: ``--stream auto`` streams SWF files of at least this many bytes of text. In memory a
#: run peaks at 3.1-4.1 bytes per byte of SWF text beyond the process's 119 MiB
#: (EASY on 1M Lublin jobs, 74 MB of text: 338 MiB; on 10M, 760 MB: 3,060 MiB), and
#: runs 10-20 times faster than streamed (10M jobs: 14 s of CPU against 146 s;
#: docs/performance.md). 1 GiB of text (some 14 million jobs) takes about 4.5 GiB in
#: memory, which a laptop still has. The rule reads only the file, never the machine, so
#: the same trace takes the same path (and prints the same summary) everywhere.
STREAM_FROM = 1 << 30
#: Ratios of text to gzip size: the Parallel Workloads Archive's logs have 4.6
#: (SDSC-SP2) to 11.6 (RICC). A gzip trailer keeps the text's size modulo 4 GiB, which
#: can have wrapped only for a file of more than 4 GiB / :data:`_GZIP_MAX_RATIO`; such a
#: file's size is read as the least one at least :data:`_GZIP_MIN_RATIO` times the file.
_GZIP_MIN_RATIO = 4
_GZIP_MAX_RATIO = 30


def text_bytes(path: Path) -> int:
    """Bytes of text of an SWF file, plain or gzip (from its trailer)."""
    size = path.stat().st_size
    if path.suffix != ".gz" or size < 18:
        return size
    with path.open("rb") as fh:
        fh.seek(-4, 2)
        text = int.from_bytes(fh.read(4), "little")  # ISIZE: the text's size modulo 2**32
    if size > (1 << 32) // _GZIP_MAX_RATIO:
        while text < _GZIP_MIN_RATIO * size:
            text += 1 << 32
    return text


def streams(args: argparse.Namespace, cls: type[Policy]) -> bool:
    """Whether ``cosched run`` streams: ``--stream`` (always), never with ``--stream
    never``, and by default a plain or gzip SWF file of :data:`STREAM_FROM` bytes of
    text or more, when the run can be streamed whole (a batch policy, no profiles, a
    csv or parquet job table): the run says so in a note. Otherwise in memory."""
    if args.stream != "auto":
        return bool(args.stream == "always")
    path = Path(str(args.workload))
    if not path.is_file() or args.format in ("slurm", "pbs"):
        return False
    size = text_bytes(path)
    if size < STREAM_FROM:
        return False
    try:
        _refuse_unsupported(args, cls)
    except ConfigError:
        return False  # cannot be streamed: in memory, as asked for by the flags
    from cosched.outputs import job_format
    from cosched.policies.requirements import Requirements

    if args.jobs_out is not None and job_format(args.jobs_out, args.jobs_format) not in (
        "csv",
        "parquet",
    ):
        return False  # a job table that needs the whole schedule
    if cls.requires != Requirements() or args.mpl not in (None, 1) or args.max_jobs_per_node:
        return False  # a family that shares nodes or time: a node ledger, never streamed
    args.auto_stream_note = (
        f"streamed: {path.name} holds {size / (1 << 30):.1f} GiB of text, which in memory "
        f"would take some {4.5 * size / (1 << 30):.0f} GiB (from {STREAM_FROM >> 30} GiB "
        "cosched streams; --stream never to run it in memory)"
    )
    return True


def _refuse_unsupported(args: argparse.Namespace, cls: type[Policy]) -> None:
    kind, sep, _ = str(args.workload).partition(":")
    if (sep and kind in ("bundled", "lublin", "slurm", "pbs")) or args.format in ("slurm", "pbs"):
        raise ConfigError("--stream reads SWF files (plain or .gz); convert the workload first")
    for flag, value in (("--limit", args.limit), ("--load", args.load)):
        if value is not None:
            raise ConfigError(f"--stream cannot be combined with {flag}")
    if args.profiles is not None or cls.requires.profile_columns:
        raise ConfigError(
            f"policy {cls.name!r} needs per-job profiles, which --stream does not supply"
        )


def run_streamed(
    args: argparse.Namespace, cls: type[Policy], policy: Policy, classes: JobClasses
) -> int:
    """Handle ``cosched run --stream`` (arguments already parsed and checked)."""
    import numpy as np

    from cosched.cli.progress import ProgressBar
    from cosched.cli.run import _summary_record, _table, machine_flags
    from cosched.engine import Simulation
    from cosched.metrics.running import RunningSummary
    from cosched.outputs import JobsWriter
    from cosched.policies.requirements import build_platform
    from cosched.workload.loader import LoadRules
    from cosched.workload.stream import stream_workload

    _refuse_unsupported(args, cls)
    rules = LoadRules(args.procs_field, args.overrun, args.nonpositive_run, args.too_wide)
    flags = machine_flags(args)
    given = None
    if flags.procs is not None or flags.nodes is not None:
        given, _ = build_platform(cls.requires, flags, None)
    stream = stream_workload(args.workload, rules=rules, platform=given)
    try:
        platform, notes = build_platform(cls.requires, flags, stream.head())
    except ConfigError as exc:
        raise ConfigError(f"policy {cls.name!r}: {exc}") from None
    notes += policy.assumptions()
    summary = RunningSummary(
        capacity=platform.capacity, capacity_procs=platform.procs, tau=args.tau, classes=classes
    )
    writer = None
    if args.jobs_out:
        writer = JobsWriter(args.jobs_out, fmt=args.jobs_format, tau=args.tau)

    def sink(jobs: pd.DataFrame) -> None:
        summary.add(jobs)
        if writer is not None:
            writer.write(jobs)

    bar = ProgressBar(f"{cls.name} on {stream.name}")
    sim = Simulation(
        stream,
        platform,
        policy,
        estimates=args.estimates,
        rng=np.random.default_rng(args.seed),
        progress=bar.update,
        sink=sink,
    )
    try:
        result = sim.run()
    finally:
        if writer is not None:
            writer.close()
    bar.close()
    metrics = summary.result()
    auto = getattr(args, "auto_stream_note", None)
    w = dataclasses.replace(
        stream.head(), notes=(*stream.notes, auto) if auto is not None else stream.notes
    )
    print(_table(w, platform, result.policy, result.params, metrics, notes))
    if args.by_class:
        from cosched.cli.run import _class_table

        print("\n" + _class_table(metrics, classes))
    if args.summary_out:
        record = _summary_record(args, w, platform, result, metrics, notes)
        args.summary_out.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return 0
