"""``cosched run`` (one simulation) and ``cosched policies`` (what can be run)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from cosched.cli.progress import ProgressBar
from cosched.engine import Simulation
from cosched.errors import ConfigError
from cosched.metrics import outcomes, summarize
from cosched.platform import Platform
from cosched.policies import REGISTRY, make_policy, parse_params
from cosched.policies.base import describe_parameters
from cosched.workload.job import Workload
from cosched.workload.loader import LoadRules, NonpositiveRun, Overrun, ProcsField, TooWide
from cosched.workload.sources import open_workload
from cosched.workload.transforms import scale_to_load

__all__ = ["register"]

SHOWN = [
    ("jobs", "jobs", "{:.0f}"),
    ("mean_wait", "mean wait (s)", "{:.1f}"),
    ("median_wait", "median wait (s)", "{:.1f}"),
    ("p90_wait", "90th pct wait (s)", "{:.1f}"),
    ("mean_turnaround", "mean turnaround (s)", "{:.1f}"),
    ("mean_bounded_slowdown", "mean bounded slowdown", "{:.3f}"),
    ("utilization", "utilization", "{:.4f}"),
    ("offered_load", "offered load", "{:.4f}"),
    ("makespan", "makespan (s)", "{:.0f}"),
    ("throughput", "throughput (jobs/h)", "{:.2f}"),
]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``run`` and ``policies`` to the command line."""
    p = sub.add_parser("run", help="simulate one policy on one workload")
    p.add_argument(
        "workload",
        nargs="?",
        default="bundled:example",
        help="SWF trace (plain or .gz), bundled:example (default), or "
        "lublin:jobs=K,nodes=N[,typeless][,alpha=A][,load=L]",
    )
    p.add_argument("--policy", default="easy", help="policy name (see `cosched policies`)")
    p.add_argument(
        "-P",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="policy parameter, repeatable (e.g. -P window=150)",
    )
    m = p.add_argument_group("machine (default: the trace header's MaxProcs)")
    m.add_argument("--procs", type=int, help="a pool of N processors")
    m.add_argument("--nodes", type=int, help="N nodes (with --cores)")
    m.add_argument("--cores", type=int, default=1, help="cores per node (default 1)")
    m.add_argument("--allocation", choices=["cores", "nodes"], default="cores")
    lo = p.add_argument_group("loader rules")
    lo.add_argument("--procs-field", choices=[e.value for e in ProcsField], default="allocated")
    lo.add_argument("--overrun", choices=[e.value for e in Overrun], default="extend")
    lo.add_argument("--nonpositive-run", choices=[e.value for e in NonpositiveRun], default="drop")
    lo.add_argument("--too-wide", choices=[e.value for e in TooWide], default="error")
    lo.add_argument("--limit", type=int, help="keep the first K jobs of the trace")
    lo.add_argument("--load", type=float, help="scale arrivals to this offered load")
    p.add_argument("--estimates", choices=["requested", "exact"], default="requested")
    p.add_argument("--tau", type=float, default=10.0, help="bounded-slowdown bound (s)")
    p.add_argument("--seed", type=int, default=0, help="seed for generated workloads")
    p.add_argument("--jobs-out", type=Path, help="write the per-job table (CSV)")
    p.add_argument("--summary-out", type=Path, help="write the summary (JSON)")
    p.set_defaults(func=_run)
    q = sub.add_parser("policies", help="list policies and their parameters")
    q.set_defaults(func=_policies)


def _machine(args: argparse.Namespace, w: Workload | None) -> Platform | None:
    if args.procs is not None and args.nodes is not None:
        raise ConfigError("give either --procs or --nodes/--cores, not both")
    if args.procs is not None:
        return Platform.of_procs(args.procs)
    if args.nodes is not None:
        return Platform(args.nodes, args.cores, args.allocation)
    if w is None:
        return None
    size = w.max_procs or w.max_nodes
    if not size:
        raise ConfigError(f"{w.name}: the trace header gives no MaxProcs; pass --procs N")
    return Platform.of_procs(int(size))


def _load(args: argparse.Namespace) -> tuple[Workload, Platform]:
    rules = LoadRules(args.procs_field, args.overrun, args.nonpositive_run, args.too_wide)
    given = _machine(args, None)
    w = open_workload(args.workload, rules=rules, platform=given, limit=args.limit, seed=args.seed)
    platform = given or _machine(args, w)
    assert platform is not None
    if args.load is not None:
        w = scale_to_load(w, args.load, platform.procs)
    return w, platform


def _run(args: argparse.Namespace) -> int:
    policy = make_policy(args.policy, **parse_params(args.policy, args.param))
    w, platform = _load(args)
    bar = ProgressBar(f"{args.policy} on {w.name}")
    sim = Simulation(
        w,
        platform,
        policy,
        estimates=args.estimates,
        rng=np.random.default_rng(args.seed),
        progress=bar.update,
    )
    result = sim.run()
    bar.close()
    metrics = summarize(
        result.jobs, capacity=platform.capacity, capacity_procs=platform.procs, tau=args.tau
    )
    print(_table(w, platform, result.policy, result.params, metrics))
    if args.jobs_out:
        outcomes(result.jobs, tau=args.tau).to_csv(args.jobs_out, index=False)
    if args.summary_out:
        record = _summary_record(args, w, platform, result.policy, result.params, metrics)
        args.summary_out.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return 0


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _summary_record(
    args: argparse.Namespace,
    w: Workload,
    platform: Platform,
    policy: str,
    params: dict[str, Any],
    metrics: dict[str, float],
) -> dict[str, Any]:
    return {
        "workload": w.name,
        "source": args.workload,
        "policy": policy,
        "params": {k: _clean(v) for k, v in params.items()},
        "platform": {
            "nodes": platform.nodes,
            "cores": platform.cores,
            "allocation": platform.allocation.value,
        },
        "estimates": args.estimates,
        "tau": args.tau,
        "metrics": {k: _clean(v) for k, v in metrics.items()},
        "notes": list(w.notes),
        "acknowledge": w.header.get("Acknowledge"),
    }


def _table(
    w: Workload, platform: Platform, policy: str, params: dict[str, Any], m: dict[str, float]
) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in params.items())
    lines = [
        f"workload  {w.name} ({len(w)} jobs)",
        f"machine   {platform.describe()}",
        f"policy    {policy}({shown})",
    ]
    lines += [f"note      {n}" for n in w.notes]
    if w.header.get("Acknowledge"):
        lines.append(f"trace by  {w.header['Acknowledge']} (Parallel Workloads Archive)")
    lines.append("")
    width = max(len(label) for _, label, _ in SHOWN)
    for key, label, fmt in SHOWN:
        if key in m:
            lines.append(f"  {label:<{width}}  {fmt.format(m[key])}")
    return "\n".join(lines)


def _policies(args: argparse.Namespace) -> int:
    import cosched.policies  # noqa: F401  (registers the built-ins)

    for name in sorted(REGISTRY):
        cls = REGISTRY[name]
        doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        print(f"{name}: {doc}")
        for p in describe_parameters(cls):
            kind = f"one of {', '.join(p.choices)}" if p.choices else p.type
            print(f"    {p.name} ({kind}) = {p.default!r}")
    sys.stdout.flush()
    return 0
