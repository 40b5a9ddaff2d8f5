"""``cosched run`` (one simulation) and ``cosched policies`` (what can be run)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosched.cli._checks import MAX_SIZE, check_writable, check_writable_dir, count
from cosched.errors import ConfigError
from cosched.workload.rules import NonpositiveRun, Overrun, ProcsField, TooWide

if TYPE_CHECKING:  # the heavy modules load when a command runs, not for --help
    from cosched.engine import SimulationResult
    from cosched.metrics import JobClasses
    from cosched.platform import Platform
    from cosched.policies.base import Policy
    from cosched.policies.requirements import MachineFlags, Requirements
    from cosched.workload.importers import ImportOptions
    from cosched.workload.job import Workload

from cosched.cli._parser import Handler

__all__ = [
    "MAX_SIZE",
    "PARSERS",
    "check_writable",
    "check_writable_dir",
    "count",
    "describe_policy",
    "machine_flags",
    "policy_flags",
    "streams",
    "text_bytes",
]

SHOWN = [
    ("jobs", "jobs", "{:.0f}"),
    ("mean_wait", "mean wait (s)", "{:.1f}"),
    ("median_wait", "median wait (s)", "{:.1f}"),
    ("p90_wait", "90th pct wait (s)", "{:.1f}"),
    ("mean_turnaround", "mean turnaround (s)", "{:.1f}"),
    ("mean_bounded_slowdown", "mean bounded slowdown", "{:.3f}"),
    ("utilization", "utilization", "{:.4f}"),
    ("node_busy_utilization", "node-busy utilization", "{:.4f}"),
    ("offered_load", "offered load", "{:.4f}"),
    ("makespan", "makespan (s)", "{:.0f}"),
    ("throughput", "throughput (jobs/h)", "{:.2f}"),
]


def _run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "workload",
        nargs="?",
        default="bundled:example",
        help="SWF trace (plain or .gz; its .profile.parquet sidecar is joined), a Slurm sacct "
        "dump or PBS accounting file or folder (converted on the fly), "
        "bundled:example (default), or lublin:jobs=K,nodes=N[,typeless][,alpha=A][,load=L]",
    )
    policy_flags(
        p,
        "policy name (see `cosched policies`), path/to/file.py:Class or package.module:Class",
    )
    _machine_flags(p)
    lo = loader_flags(p)
    lo.add_argument("--load", type=float, help="scale arrivals to this offered load")
    p.add_argument(
        "--profiles",
        type=Path,
        help="per-job profile columns (Parquet sidecar with job_id) for coscheduling policies",
    )
    p.add_argument(
        "--estimates",
        choices=["requested", "exact"],
        default="requested",
        help="run-time estimates the scheduler sees (default: the users' requests)",
    )
    p.add_argument("--tau", type=float, default=10.0, help="bounded-slowdown bound (s)")
    p.add_argument(
        "--seed",
        type=count(0),
        default=0,
        help="seed of generated workloads, annotators and randomised policies",
    )
    c = p.add_argument_group("per-class breakdown")
    c.add_argument("--by-class", action="store_true", help="print the per-class table")
    c.add_argument("--short", type=float, default=60.0, help="short jobs run <= this (s)")
    c.add_argument("--medium", type=float, default=3600.0, help="medium jobs run <= this (s)")
    c.add_argument(
        "--wide-fraction",
        type=float,
        default=0.1,
        help="wide jobs take more than this share of the processors",
    )
    p.add_argument(
        "--jobs-out",
        type=Path,
        help="write the per-job table (format from --jobs-format or the extension: "
        ".csv, .parquet, .swf[.gz])",
    )
    p.add_argument(
        "--jobs-format",
        choices=["csv", "parquet", "batsim", "swf"],
        help="csv (cosched's columns), parquet, batsim (Batsim's jobs.csv layout with "
        "allocated_resources, for evalys) or swf (the simulated schedule)",
    )
    p.add_argument("--summary-out", type=Path, help="write the summary (JSON)")
    p.add_argument(
        "--stream",
        nargs="?",
        const="always",
        default="auto",
        choices=["auto", "always", "never"],
        help="read the trace, simulate and write --jobs-out a chunk at a time, in memory that "
        "grows with the jobs in the system, not the trace (SWF files; csv or parquet job "
        "tables; quantiles of fractional metrics within 0.01%%, see docs/metrics.md). "
        "auto (default): only SWF files of more than 1 GiB of text (some 14 million jobs), "
        "which in memory would take some 4.5 GiB; --stream alone: always",
    )


def _policies_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable, for scripts")


def loader_flags(p: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """The loader-rule flags, ``--limit`` and the workload-format flags."""
    lo = p.add_argument_group("loader rules")
    for flag, rule, default, words in (
        ("--procs-field", ProcsField, "allocated",
         "which SWF field is the job's size (default allocated: field 5, else 8)"),
        ("--overrun", Overrun, "extend",
         "a run time above the request: raise the request (extend), keep, or kill"),
        ("--nonpositive-run", NonpositiveRun, "drop",
         "jobs with a run time <= 0: drop them or give them 1 s"),
        ("--too-wide", TooWide, "error", "jobs larger than the machine: error, drop or clip"),
    ):  # fmt: skip
        lo.add_argument(flag, choices=[e.value for e in rule], default=default, help=words)
    lo.add_argument(
        "--limit",
        type=count(0),
        metavar="K",
        help="keep the first K jobs of the trace that the loader rules keep",
    )
    workload_format_flags(p)
    return lo


def workload_format_flags(p: argparse.ArgumentParser) -> None:
    """``--format`` and the accounting-log flags (time zone, unstarted jobs, ...)."""
    from cosched.cli.traceinfo import import_options

    p.add_argument(
        "--format",
        choices=["swf", "slurm", "pbs"],
        help="what the workload file is (default: recognised from its content); slurm: "
        "sacct --parsable2 output, pbs: PBS accounting files (see `cosched trace import`)",
    )
    import_options(p)


#: The accounting-log flags at their defaults: the options they give are
#: ``ImportOptions()``'s own (held by a test), so a command line without such flags
#: passes None and a run of an SWF trace does not load the importers.
LOG_DEFAULTS = {
    "tz": None,  # UTC, with a warning where a Slurm dump has local date-times
    "unstarted": "drop",
    "partition": None,
    "arrival": "eligible",
    "ids": None,
}


def log_options(args: argparse.Namespace) -> ImportOptions | None:
    """The accounting-log options of a parsed command line (None: the defaults)."""
    if all(getattr(args, k) == v for k, v in LOG_DEFAULTS.items()):
        return None
    from cosched.cli.traceinfo import import_opts

    return import_opts(args, None, None)


def policy_flags(p: argparse.ArgumentParser, policy_help: str) -> None:
    """``--policy`` (default easy) and the repeatable ``-P/--param NAME=VALUE``."""
    p.add_argument("--policy", default="easy", help=policy_help)
    p.add_argument(
        "-P",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="policy parameter, repeatable (e.g. -P window=150)",
    )


def _machine_flags(p: argparse.ArgumentParser) -> None:
    m = p.add_argument_group(
        "machine (default: from the trace header and what the policy's family needs)"
    )
    size = count(1, MAX_SIZE)
    m.add_argument("--procs", type=size, help="N processors (N / cores nodes)")
    m.add_argument("--nodes", type=size, help="N nodes")
    m.add_argument("--cores", type=size, help="cores per node")
    m.add_argument(
        "--allocation",
        choices=["cores", "nodes"],
        help="what a job takes: cores (a pool, default) or whole nodes",
    )
    m.add_argument("--mpl", type=size, help="slots per core (hardware threads or time shares)")
    m.add_argument("--max-jobs-per-node", type=size, help="cap on jobs sharing a node")


def machine_flags(args: argparse.Namespace) -> MachineFlags:
    """The machine flags of a parsed command line."""
    from cosched.policies.requirements import MachineFlags

    return MachineFlags(
        procs=args.procs,
        nodes=args.nodes,
        cores=args.cores,
        allocation=args.allocation,
        mpl=args.mpl,
        max_jobs_per_node=args.max_jobs_per_node,
    )


def open_for(args: argparse.Namespace, cls: type[Policy]) -> Workload:
    """The workload of a parsed command line (trace or log, loader rules, --limit), the
    too-wide check against the machine the flags give, if they give one."""
    from cosched.policies.requirements import build_platform
    from cosched.workload.loader import LoadRules
    from cosched.workload.sources import open_workload

    rules = LoadRules(args.procs_field, args.overrun, args.nonpositive_run, args.too_wide)
    flags = machine_flags(args)
    given = None
    if flags.procs is not None or flags.nodes is not None:
        given, _ = build_platform(cls.requires, flags, None)
    return open_workload(
        args.workload,
        rules=rules,
        platform=given,
        limit=args.limit,
        seed=args.seed,
        fmt=args.format,
        log_options=log_options(args),
    )


def load_for(args: argparse.Namespace, cls: type[Policy]) -> tuple[Workload, Platform, list[str]]:
    from cosched.policies.requirements import fit_workload

    flags = machine_flags(args)
    w = open_for(args, cls)
    w, platform, notes = fit_workload(
        cls.requires, w, flags, profiles=args.profiles, seed=args.seed
    )
    if args.load is not None:
        from cosched.workload.transforms import scale_to_load

        w = scale_to_load(w, args.load, platform.procs)
    return w, platform, notes


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
    from cosched.cli.stream import refuse_unsupported

    try:
        refuse_unsupported(args, cls)
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


#: The cyclic collector's first-generation threshold for a ``cosched run`` process. A run
#: allocates a few objects per job and frees them as jobs finish, with few cycles among
#: them; at Python's default (700-2,000 allocations) the collector rescans the young
#: objects hundreds of thousands of times for nothing. Measured on 1,000,000 Lublin jobs,
#: EASY ``--stream``: 18.2 s CPU at the default, 16.5 s at 100,000 (docs/performance.md).
GC_THRESHOLD = (100_000, 50, 100)

#: glibc's ``mallopt`` settings for a ``cosched run`` process: free memory above 16 MiB at
#: the top of the heap goes back to the system (``M_TRIM_THRESHOLD``, -1) and blocks of
#: 32 MiB or more are mapped on their own (``M_MMAP_THRESHOLD``, -3), both fixed. By
#: default glibc raises its mmap threshold after the first large block is freed, and
#: from then on the reader's and the loader's freed copies stay in the heap: a full
#: CEA-Curie EASY run peaked at 306 MiB instead of about 275 MiB (docs/performance.md).
#: Thresholds of 1 MiB map every column afresh: a Curie run took 117,000 page faults,
#: 0.25 s of system time, against 43,000 and 0.13 s with a 4 MiB trim threshold. At 4
#: MiB the parsed trace's freed copies went back to the system and the simulation
#: faulted the same memory in again: 16 MiB takes KTH-SP2 LOMARC from 16,900 faults to
#: 13,100 and Curie EASY from 41,500 to 37,200, the peaks unchanged; 64 MiB raised
#: Curie's peak from 162 to 187 MiB (docs/design/engine.md, docs/performance.md).
MALLOC_OPTIONS = ((-1, 16 << 20), (-3, 32 << 20))


def _return_freed_memory() -> None:
    """Apply :data:`MALLOC_OPTIONS` where the C library is glibc; elsewhere nothing."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        for option, value in MALLOC_OPTIONS:
            libc.mallopt(option, value)
    except (OSError, AttributeError):  # not glibc (musl has no mallopt): keep defaults
        return


def _run(args: argparse.Namespace) -> int:
    import gc

    check_writable(args.jobs_out, args.summary_out, flags=("--jobs-out", "--summary-out"))
    # Before the imports (numpy's, pyarrow's: at the default threshold the collector ran
    # about 4 ms of a 0.26 s run on SDSC-SP2 rescanning their new objects).
    gc.set_threshold(*GC_THRESHOLD)  # this process is ours: timing only, never results
    _return_freed_memory()  # memory only, never results

    from cosched.cli.progress import ProgressBar
    from cosched.engine import Simulation
    from cosched.metrics import JobClasses, summarize
    from cosched.policies.base import make_policy, parse_params, policy_class

    classes = JobClasses(args.short, args.medium, args.wide_fraction)
    cls = policy_class(args.policy)
    policy = make_policy(args.policy, **parse_params(args.policy, args.param))
    if streams(args, cls):
        from cosched.cli.stream import run_streamed

        return run_streamed(args, cls, policy, classes)
    try:
        w, platform, notes = load_for(args, cls)
    except ConfigError as exc:
        raise ConfigError(f"policy {cls.name!r}: {exc}") from None
    notes += policy.assumptions()
    bar = ProgressBar(f"{cls.name} on {w.name}")
    sim = Simulation(
        w,
        platform,
        policy,
        estimates=args.estimates,
        rng=int(args.seed),  # the generator is built if a policy uses it
        progress=bar.update,
    )
    result = sim.run()
    bar.close()
    # The per-class breakdown (pandas' groupby) only when it is printed or saved.
    wanted = args.by_class or args.summary_out is not None
    metrics = summarize(
        result.job_columns,
        capacity=platform.capacity,
        capacity_procs=platform.procs,
        tau=args.tau,
        classes=classes if wanted else None,
        placements=result.placements,
        nodes=platform.nodes,
    )
    print(_table(w, platform, result.policy, result.params, metrics, notes))
    if args.by_class:
        print("\n" + _class_table(metrics, classes))
    if args.jobs_out:
        from cosched.outputs import write_jobs

        write_jobs(
            result.job_columns,
            args.jobs_out,
            fmt=args.jobs_format,
            platform=platform,
            placements=result.placements,
            workload=w,
            tau=args.tau,
            policy=result.policy,
            params=result.params,
        )
    if args.summary_out:
        record = _summary_record(args, w, platform, result, metrics, notes)
        args.summary_out.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return 0


def _clean(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _summary_record(
    args: argparse.Namespace,
    w: Workload,
    platform: Platform,
    result: SimulationResult,
    metrics: dict[str, float],
    notes: list[str],
) -> dict[str, Any]:
    from cosched import __version__

    return {
        "workload": w.name,
        "source": args.workload,
        "policy": result.policy,
        "params": {k: _clean(v) for k, v in result.params.items()},
        "platform": {
            "nodes": platform.nodes,
            "cores": platform.cores,
            "allocation": platform.allocation.value,
            "mpl": platform.mpl,
            "max_jobs_per_node": platform.max_jobs_per_node,
        },
        "estimates": args.estimates,
        "tau": args.tau,
        "seed": args.seed,
        "metrics": {k: _clean(v) for k, v in metrics.items()},
        "diagnostics": {k: _clean(v) for k, v in result.diagnostics.items()},
        "notes": list(w.notes),
        "assumptions": notes,
        "acknowledge": w.header.get("Acknowledge"),
        "cosched_version": __version__,
    }


def _table(
    w: Workload,
    platform: Platform,
    policy: str,
    params: Mapping[str, Any],
    m: dict[str, float],
    assumed: list[str],
) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in params.items())
    lines = [
        f"workload  {w.name} ({int(m.get('jobs', len(w)))} jobs)",
        f"machine   {platform.describe()}",
        f"policy    {policy}({shown})",
    ]
    lines += [f"note      {n}" for n in w.notes]
    lines += [f"assumed   {n}" for n in assumed]
    if w.header.get("Acknowledge"):
        lines.append(f"trace by  {w.header['Acknowledge']} (Parallel Workloads Archive)")
    lines.append("")
    width = max(len(label) for _, label, _ in SHOWN)
    for key, label, fmt in SHOWN:
        if key in m:
            lines.append(f"  {label:<{width}}  {fmt.format(m[key])}")
    return "\n".join(lines)


def _class_table(m: dict[str, float], classes: JobClasses) -> str:
    head = f"  {'class':<14} {'jobs':>7} {'mean wait (s)':>14} {'mean turnaround (s)':>20}"
    lines = [
        f"per class (short <= {classes.short:g} s < medium <= {classes.medium:g} s < long; "
        f"wide > {classes.wide_fraction:g} of the processors)",
        head + f" {'mean bsld':>10}",
    ]
    for d in classes.duration_names():
        for wd in ("narrow", "wide"):
            k = f"{d}_{wd}"
            lines.append(
                f"  {d + ' ' + wd:<14} {m[k + '_jobs']:>7.0f} {m[k + '_mean_wait']:>14.1f} "
                f"{m[k + '_mean_turnaround']:>20.1f} {m[k + '_mean_bounded_slowdown']:>10.3f}"
            )
    return "\n".join(lines)


def describe_policy(cls: type[Policy]) -> dict[str, Any]:
    """A policy's name, family, summary, parameters and requirements, as plain data."""
    from cosched.policies.base import describe_parameters

    req = cls.requires
    return {
        "name": cls.name,
        "family": cls.family,
        "class": f"{cls.__module__}:{cls.__qualname__}",
        "summary": (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else "",
        "parameters": [
            {
                "name": p.name,
                "type": p.type,
                "default": _clean(p.default),
                "choices": list(p.choices),
            }
            for p in describe_parameters(cls)
        ],
        "requires": {
            "allocation": req.allocation.value if req.allocation else None,
            "cores_per_node": req.cores_per_node,
            "default_cores": req.default_cores,
            "mpl": req.mpl,
            "max_jobs_per_node": req.max_jobs_per_node,
            "per_processor_nodes": req.per_processor_nodes,
            "profile_columns": list(req.profile_columns),
            "annotator": req.annotator,
        },
    }


def _policies(args: argparse.Namespace) -> int:
    from cosched.policies.base import all_policies, describe_parameters

    found = all_policies()
    if args.json:
        print(json.dumps([describe_policy(c) for c in found.values()], indent=2))
        return 0
    for name, cls in found.items():
        info = describe_policy(cls)
        print(f"{name}: [{cls.family}] {info['summary']}")
        req = cls.requires
        if req.shared or req.profile_columns:
            print(f"    needs: {_needs(req)}")
        for p in describe_parameters(cls):
            kind = f"one of {', '.join(p.choices)}" if p.choices else p.type
            print(f"    {p.name} ({kind}) = {p.default!r}")
    sys.stdout.flush()
    return 0


def _needs(req: Requirements) -> str:
    parts = []
    if req.allocation is not None:
        parts.append(f"{req.allocation.value} allocation")
    if req.cores_per_node is not None:
        parts.append(f"{req.cores_per_node}-core nodes")
    if req.mpl > 1:
        parts.append(f"mpl {req.mpl}")
    if req.max_jobs_per_node is not None:
        parts.append(f"up to {req.max_jobs_per_node} jobs a node")
    if req.profile_columns:
        parts.append(f"profiles from the {req.annotator!r} annotator")
    return ", ".join(parts)


#: ``cosched run`` and ``cosched policies`` (their texts: :mod:`cosched.cli.commands`).
PARSERS = {
    "run": Handler(_run, _run_arguments),
    "policies": Handler(_policies, _policies_arguments),
}
