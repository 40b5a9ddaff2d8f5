"""``cosched trace info FILE``: header facts, job count and offered load of a trace."""

from __future__ import annotations

import argparse

from cosched.workload.loader import load_workload_with_report
from cosched.workload.swf import read_swf
from cosched.workload.transforms import offered_load

__all__ = ["register"]

FACTS = (
    "computer",
    "installation",
    "max_nodes",
    "max_procs",
    "max_jobs",
    "unix_start_time",
    "time_zone_string",
    "start_time",
    "end_time",
    "max_runtime",
    "acknowledge",
)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``trace info``, ``trace fetch`` and ``trace list`` to the command line."""
    p = sub.add_parser("trace", help="inspect SWF traces")
    tsub = p.add_subparsers(dest="trace_command", metavar="ACTION")
    tsub.required = True
    info = tsub.add_parser("info", help="header facts, job count and offered load")
    info.add_argument("file")
    info.set_defaults(func=_info)
    from cosched.cli.trace import add_verbs

    add_verbs(tsub)


def _info(args: argparse.Namespace) -> int:
    trace = read_swf(args.file)
    print(f"file            {trace.path}")
    for fact in FACTS:
        value = getattr(trace.header, fact)
        if value is not None:
            print(f"{fact:<15} {value}")
    w, counts = load_workload_with_report(trace, rules=_lenient())
    print(f"data lines      {counts['lines']}")
    print(f"jobs loaded     {counts['jobs']} (default rules, too-wide jobs dropped)")
    for note in w.notes:
        print(f"  note: {note}")
    procs = trace.header.max_procs or trace.header.max_nodes
    if procs and len(w) > 1:
        span = w.table["submit_time"].iloc[-1] - w.table["submit_time"].iloc[0]
        print(f"submit span     {span / 86400:.1f} days")
        print(f"offered load    {offered_load(w, procs):.4f} (on {procs} processors)")
    return 0


def _lenient():  # type: ignore[no-untyped-def]
    from cosched.workload.loader import LoadRules

    return LoadRules(too_wide="drop")
