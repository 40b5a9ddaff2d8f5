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
from typing import TYPE_CHECKING

from cosched.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd

    from cosched.metrics import JobClasses
    from cosched.policies.base import Policy

__all__ = ["refuse_unsupported", "run_streamed"]


def refuse_unsupported(args: argparse.Namespace, cls: type[Policy]) -> None:
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

    refuse_unsupported(args, cls)
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
