"""``cosched trace info FILE`` (header facts, job count and offered load of a trace) and
``cosched trace import slurm|pbs FILE... -o OUT.swf`` (an accounting log as SWF)."""

from __future__ import annotations

import argparse
import re
from typing import Any

from cosched.cli._parser import Handler

__all__ = ["PARSERS"]

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


def _info_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="an SWF trace, a sacct dump or a PBS accounting file/folder")
    import_options(p)


def _import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("format", choices=["slurm", "pbs"], help="the log's format")
    p.add_argument("files", nargs="+", help="log files (PBS: files or folders of them)")
    p.add_argument("-o", "--output", required=True, help="the SWF file to write (.gz: compressed)")
    p.add_argument("--nodes", type=int, help="the machine's nodes (default: inferred)")
    p.add_argument("--cores", type=int, help="cores per node (with --nodes)")
    p.add_argument(
        "--exclusive",
        action="store_true",
        help="the site gives each job whole nodes (recorded in the header: the baselines "
        "of run, validate and compare then allocate whole nodes)",
    )
    import_options(p)


def import_options(p: argparse.ArgumentParser) -> None:
    """The flags that say how a log becomes SWF (shared with commands reading logs)."""
    g = p.add_argument_group("accounting logs (Slurm sacct, PBS)")
    g.add_argument(
        "--tz",
        default=None,
        help="IANA time zone of local time stamps (default UTC, with a warning where the "
        "log has local date-times; epoch seconds need none)",
    )
    g.add_argument(
        "--unstarted",
        choices=["drop", "keep"],
        default="drop",
        help="jobs that never started: drop (default) or keep with wait and run time -1",
    )
    g.add_argument("--partition", help="keep only this Slurm partition (PBS: queue)")
    g.add_argument(
        "--arrival",
        choices=["eligible", "submit"],
        default="eligible",
        help="a job arrives when eligible (default, if later than submitted) or submitted",
    )
    g.add_argument(
        "--ids",
        help='JSON mapping names to numbers, e.g. {"user": {"alice": 7}} (kinds: user, '
        "group, account, queue, partition)",
    )


def import_opts(args: argparse.Namespace, nodes: int | None, cores: int | None):  # type: ignore[no-untyped-def]
    """The :class:`ImportOptions` of a parsed command line."""
    from cosched.workload.importers import ImportOptions, read_ids

    return ImportOptions(
        tz=args.tz or "UTC",
        unstarted=args.unstarted,
        partition=args.partition,
        nodes=nodes,
        cores=cores,
        ids=read_ids(args.ids) if args.ids else {},
        arrival=args.arrival,
    )


def _import(args: argparse.Namespace) -> int:
    from dataclasses import replace
    from pathlib import Path

    from cosched.cli.run import check_writable
    from cosched.workload.importers import import_log
    from cosched.workload.swf_write import write_swf

    check_writable(Path(args.output))
    opts = replace(import_opts(args, args.nodes, args.cores), exclusive=args.exclusive)
    result = import_log(args.format, args.files, opts)
    write_swf(result.trace, args.output)
    for note in result.notes:
        print(f"note      {note}")
    h = result.trace.header
    print(f"counts    {h.raw['ImportCounts']}")
    print(f"machine   MaxNodes {h.max_nodes} MaxProcs {h.max_procs}")
    for warning in (_tz_warning(args), _machine_warning(result.trace, args.cores)):
        if warning is not None:
            print(f"warning   {warning}")
    print(f"wrote     {args.output} ({len(result.trace)} jobs)")
    return 0


#: A Slurm local date-time as sacct prints it without ``SLURM_TIME_FORMAT=%s``.
_LOCAL_STAMP = re.compile(rb"\|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\||$)", re.MULTILINE)


def _tz_warning(args: argparse.Namespace) -> str | None:
    """Local date-times read as UTC because no ``--tz`` was given (Slurm dumps; a PBS
    record's own stamp is local too, but its job times are epoch seconds)."""
    if args.tz is not None or args.format != "slurm":
        return None
    for name in args.files:
        try:
            with open(name, "rb") as f:
                head = f.read(1 << 16)
        except OSError:
            continue
        if _LOCAL_STAMP.search(head):
            return (
                f"{name} has local date-times (sacct prints local time unless "
                "SLURM_TIME_FORMAT=%s) and no --tz was given: they were read as UTC. Give "
                "the cluster's zone (--tz Europe/Berlin, an IANA name) so that waits and "
                "runs across a daylight-saving change come out right"
            )
    return None


def _machine_warning(trace: Any, cores: int | None) -> str | None:
    """The logged schedule against the machine the header states (``--nodes``/``--cores``)."""
    from cosched.metrics.validate import log_machine

    t, capacity = trace.table, trace.header.max_procs
    if not capacity or not len(t):
        return None
    from cosched.compare.study import held_procs

    procs = held_procs(t.assign(procs=t["requested_procs"]))
    m = log_machine(t["submit_time"], t["wait_time"], t["run_time"], procs, capacity)
    return m.warning("--nodes and --cores", cores)


def _info(args: argparse.Namespace) -> int:
    from cosched.workload.importers import import_log
    from cosched.workload.loader import load_workload_with_report
    from cosched.workload.sources import log_format
    from cosched.workload.swf import read_swf
    from cosched.workload.transforms import offered_load

    fmt = log_format(args.file)
    if fmt is None:
        trace = read_swf(args.file)
    else:
        result = import_log(fmt, [args.file], import_opts(args, None, None))
        trace = result.trace
        for note in result.notes:
            print(f"{fmt} log: {note}")
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


#: ``cosched trace info`` and ``cosched trace import`` (their texts:
#: :mod:`cosched.cli.commands`).
PARSERS = {
    "trace info": Handler(_info, _info_arguments),
    "trace import": Handler(_import, _import_arguments),
}
