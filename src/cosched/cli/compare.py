"""``cosched compare`` (the operator's answer on a trace) and ``cosched report DIR``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosched.cli._checks import count

if TYPE_CHECKING:
    from cosched.compare.cost import Cost
    from cosched.policies.requirements import MachineFlags
    from cosched.workload.job import Workload

from cosched.cli._parser import Handler
from cosched.cli.validate import UNAVAILABILITY_HELP

__all__ = ["PARSERS"]


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "trace",
        nargs="?",
        default="bundled:example",
        help="SWF trace (plain or .gz), bundled:example (default), or "
        "lublin:jobs=K,nodes=N for a generated workload",
    )
    p.add_argument("--out", type=Path, required=True, help="folder for the store and the report")
    p.add_argument(
        "--policies",
        help="comma-separated policies, each NAME or NAME(key=value,...) "
        "(default: fcfs, easy, conservative and the policies each installed family "
        "declares for compare, those whose machine fits the trace)",
    )
    p.add_argument(
        "--baseline",
        metavar="fitted[:DIR]|POLICY",
        help="the one baseline the others are measured against: a policy such as "
        "easy(order=sjf,window=20), or fitted: the configuration `cosched validate --fit` "
        "chooses for this log (its fit stored in OUT/fit; fitted:DIR reuses the fit "
        "`cosched validate --fit --out DIR` stored), with its held-out match and warnings "
        "in the report; its partitions, per-user limits, fair-share order and outages run "
        "in every arm that can take them, the others named with why; EASY and FCFS run "
        "beside it (default: the best of fcfs, easy and conservative)",
    )
    p.add_argument(
        "--unavailability",
        type=Path,
        metavar="FILE",
        help="with --baseline fitted: "
        + UNAVAILABILITY_HELP
        + "; every arm that can take the fitted outages runs on them",
    )
    p.add_argument(
        "--smt",
        action="store_true",
        help="the processors have SMT (hyperthreads): LOMARC pairs jobs on them (default: "
        "standard processors, as a site without SMT, or with it off, has)",
    )
    p.add_argument(
        "--malleable",
        action="store_true",
        help="the jobs are malleable: node sharing may run a job on fewer processors than "
        "it asked for (default: rigid jobs, as MPI jobs are)",
    )
    p.add_argument(
        "--exclusive",
        action="store_true",
        help="the site gives each job whole nodes: the baselines (FCFS, EASY, conservative) "
        "allocate whole nodes of the machine's shape (default: as the trace header says, "
        "its NodeAllocation written by `trace import --exclusive`; else a pool of processors)",
    )
    p.add_argument(
        "--seeds",
        type=int,
        default=3,
        help="runs of each randomised policy (profiles drawn by its annotator; default 3)",
    )
    p.add_argument(
        "--machine",
        help="the machine when the trace header does not say: nodes=N,cores=C "
        "(also procs=P, max_jobs_per_node=K)",
    )
    p.add_argument("--limit", type=count(0), metavar="K", help="keep the first K jobs of the trace")
    p.add_argument(
        "--gantt-window",
        metavar="START:END",
        help="the Gantt chart's window in seconds of the trace's clock (default: the "
        "busiest day of the best coscheduling policy)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="one seed per policy and no robustness sweeps: the fastest first answer",
    )
    p.add_argument(
        "--no-robustness",
        action="store_true",
        help="skip the robustness sweeps (interference strength, gang's switch cost, "
        "LOMARC's job-type mixes)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace the comparison of another trace that --out holds",
    )
    p.add_argument("--workers", type=int, default=1, help="parallel processes (default 1)")
    p.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the simulations on Dask instead: local:N starts a LocalCluster of N "
        "worker processes, tcp://HOST:PORT uses a running scheduler",
    )


def _flags(text: str | None) -> MachineFlags | None:
    from cosched.errors import ConfigError
    from cosched.policies.requirements import MachineFlags

    if not text:
        return None
    allowed = {"nodes", "cores", "procs", "max_jobs_per_node"}
    values: dict[str, int] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in allowed:
            raise ConfigError(
                f"--machine {text!r}: expected name=value pairs among {', '.join(sorted(allowed))}"
            )
        try:
            values[key] = int(value)
        except ValueError:
            raise ConfigError(f"--machine {key} must be an integer, got {value!r}") from None
        if values[key] < 1:
            raise ConfigError(f"--machine {key} must be >= 1, got {value}")
    if "nodes" in values and "cores" not in values:
        raise ConfigError(
            f"--machine {text!r}: missing cores: give the cores per node, "
            f"e.g. --machine nodes={values['nodes']},cores=C"
        )
    return MachineFlags(
        procs=values.get("procs"),
        nodes=values.get("nodes"),
        cores=values.get("cores"),
        max_jobs_per_node=values.get("max_jobs_per_node"),
    )


def _workload(trace: str, limit: int | None) -> dict[str, Any]:
    from cosched.errors import ConfigError

    if trace.startswith("lublin:"):
        entry: dict[str, Any] = {"kind": "lublin", "name": "lublin"}
        for part in trace.removeprefix("lublin:").split(","):
            key, sep, value = part.partition("=")
            if key == "typeless" and not sep:
                entry["typeless"] = True
            elif key in ("jobs", "nodes"):
                entry[key] = int(value)
            elif key in ("alpha", "load"):
                entry[key] = float(value)
            else:
                raise ConfigError(f"{trace!r}: unknown lublin option {key!r}")
        return entry
    if not trace.startswith("bundled:"):
        path = Path(trace)
        if not path.exists() and "/" not in trace:
            from cosched.experiments.traces import find_trace

            path = find_trace(trace)  # an archive log by name; names where it looked
        if not path.exists():
            raise ConfigError(f"trace {trace!r} does not exist")
        trace = str(path.resolve())
    entry = {"kind": "swf", "path": trace, "name": Path(trace.removeprefix("bundled:")).stem}
    if limit is not None:
        entry["limit"] = limit
    return entry


def _window(text: str | None) -> tuple[float, float] | None:
    from cosched.errors import ConfigError

    if text is None:
        return None
    start, sep, end = text.partition(":")
    try:
        lo, hi = float(start), float(end)
    except ValueError:
        lo = hi = -1.0
    if not sep or not 0 <= lo < hi:
        raise ConfigError(f"--gantt-window {text!r}: expected START:END seconds, START < END")
    return lo, hi


def _split(text: str) -> list[str]:
    """Policies separated by ``;`` or by commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch in ";," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur]


def _compare(args: argparse.Namespace) -> int:
    from cosched.cli._checks import check_writable_dir
    from cosched.cli.progress import ProgressBar
    from cosched.compare.cost import cost, workload_jobs
    from cosched.compare.study import build_report, plan, run

    flags = _flags(args.machine)
    if args.exclusive:
        from dataclasses import replace

        from cosched.policies.requirements import MachineFlags

        flags = replace(flags or MachineFlags(), exclusive=True)
    workload = _workload(args.trace, args.limit)
    _same_trace(args.out, workload, force=args.force)
    probe = None
    if workload["kind"] == "swf":
        probe = _probe(workload["path"], args.limit, flags)
    policies = None
    if args.policies:
        policies = [p.strip() for p in _split(args.policies) if p.strip()]
    seeds = 1 if args.quick else args.seeds
    robust = not (args.quick or args.no_robustness)
    given = {
        "policies": policies, "seeds": seeds, "flags": flags, "probe": probe,
        "smt": args.smt, "malleable": args.malleable,
    }  # fmt: skip
    if _fitted(args.baseline):  # the other flags' errors before the fit's long work
        plan(workload, **given, robustness=False)
    baseline, fit_notes, gone, parts = _baseline(args, probe, flags)
    site = _site(baseline, gone, parts) if _fitted(args.baseline) else None
    comparison = plan(workload, **given, robustness=robust, baseline=baseline, site=site)
    comparison.notes += fit_notes
    comparison.gantt_window = _window(args.gantt_window)
    for note in comparison.notes:
        print(f"note      {note}")
    if args.quick:
        print(
            "note      --quick: one seed per policy and no robustness sweeps (the report "
            "lists what they leave out); the control runs stay"
        )
    for line in _cost_lines(cost(comparison, args.out, workload_jobs(workload, probe)), args):
        print(line, flush=True)
    check_writable_dir(args.out)
    bar = ProgressBar("compare", unit="runs")
    run(comparison, args.out, workers=args.workers, dask=args.dask, progress=bar.update)
    bar.close()
    from cosched.cli.report import report_with_warnings

    path = report_with_warnings(build_report, args.out, "compare")
    print(f"cosched compare: report in {path} and {path.with_suffix('.html')}")
    return 0


def _probe(path: str, limit: int | None, flags: MachineFlags | None) -> Workload:
    """The trace, loaded on the machine ``--machine`` states (else its header's); a
    job too wide for it is an error naming compare's flags and the import's."""
    from cosched.errors import ConfigError, WorkloadError
    from cosched.policies.requirements import Requirements, build_platform
    from cosched.workload.sources import open_workload

    given = None
    if flags is not None and (flags.procs is not None or flags.nodes is not None):
        given, _ = build_platform(Requirements(), flags, None)
    try:
        return open_workload(path, limit=limit, platform=given)
    except WorkloadError as exc:
        text = str(exc)
        if "--too-wide" not in text:
            raise
        head = text.split(" Use --too-wide")[0]
        raise ConfigError(
            f"{head} Give the machine's size with --machine nodes=N,cores=C, or import the "
            "log again with the right --nodes and --cores (a wrong cores per node makes "
            "the machine too small)"
        ) from None


def _baseline(
    args: argparse.Namespace, probe: Workload | None, flags: MachineFlags | None
) -> tuple[
    str | None, list[str], tuple[tuple[float, float, int], ...], tuple[tuple[float, int], ...]
]:
    """``--baseline``: the arm, and for ``fitted`` the notes of the fit (run first, or
    read from the store ``fitted:DIR`` names), the outages it replays and the partitions
    it runs in."""
    if not _fitted(args.baseline):
        if args.unavailability is not None:
            from cosched.errors import ConfigError

            raise ConfigError("--unavailability goes with --baseline fitted (the fit replays it)")
        return args.baseline, [], (), ()
    from cosched.cli._checks import check_writable_dir
    from cosched.cli._fit import fitted_arm
    from cosched.errors import ConfigError
    from cosched.experiments.executors import make_executor

    if probe is None:
        raise ConfigError("--baseline fitted needs a log with recorded starts, not a model")
    check_writable_dir(args.out)
    executor = make_executor(args.workers, args.dask)
    _, _, given = str(args.baseline).partition(":")
    store = Path(given) if given else args.out / "fit"
    if given and not store.is_dir():
        raise ConfigError(
            f"--baseline {args.baseline}: {store} is not a folder; give the --out of "
            "`cosched validate --fit --out DIR`, or --baseline fitted to fit here"
        )
    if given:
        print(
            f"note      reusing the fit stored in {store} (configurations stored are not run again)"
        )
    return fitted_arm(probe, args.trace, flags, store, executor, args.unavailability)


def _site(
    arm: str | None,
    gone: tuple[tuple[float, float, int], ...] = (),
    parts: tuple[tuple[float, int], ...] = (),
) -> dict[str, Any] | None:
    """The site rules of a fitted baseline (its user limits, fair-share order, the
    outages it replays, ``unavailable``, and the partitions it runs in, ``partitions``),
    which ``compare`` applies to every arm that takes them."""
    from cosched.compare.site import SITE_RULES
    from cosched.compare.study import parse_arm

    if arm is None:
        return None
    params = parse_arm(arm).params
    rules: dict[str, Any] = {k: v for k, v in params.items() if k in SITE_RULES and k != "order"}
    if params.get("order") == "fairshare":
        rules["order"] = "fairshare"
    if gone:
        rules["unavailable"] = [list(x) for x in gone]
    if parts:
        rules["partitions"] = [list(x) for x in parts]
    return rules or None


def _fitted(baseline: str | None) -> bool:
    """``--baseline fitted`` or ``fitted:DIR``."""
    return baseline is not None and (baseline == "fitted" or baseline.startswith("fitted:"))


def _same_trace(out: Path, workload: dict[str, Any], *, force: bool) -> None:
    """Refuse an --out that holds another trace's comparison (unless --force, which
    clears it): one store must never mix two traces' runs."""
    import json
    import shutil

    from cosched.errors import ConfigError

    plan = out / "plan.json"
    if not plan.is_file():
        return
    try:
        held = json.loads(plan.read_text())["workload"]
    except (ValueError, KeyError, TypeError):
        held = None
    if held == workload:
        return
    if not force:
        what = _describe(held)
        raise ConfigError(
            f"--out {out} holds the comparison of {what}; choose a new folder, or pass "
            "--force to replace it"
        )
    for name in ("store", "figures"):
        shutil.rmtree(out / name, ignore_errors=True)
    for name in ("plan.json", "results.parquet", "report.md", "report.html"):
        (out / name).unlink(missing_ok=True)


def _describe(workload: object) -> str:
    """A stored plan's trace, as the refusal names it."""
    if not isinstance(workload, dict):
        return "an unreadable plan"
    what = str(workload.get("path") or workload.get("name") or workload.get("kind"))
    if workload.get("kind") == "lublin":
        what = "a generated lublin workload"
    if workload.get("limit") is not None:
        what += f" (first {workload['limit']} jobs)"
    return what


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{max(seconds, 1):.0f} s" if seconds > 0 else "0 s"
    return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"


def _cost_lines(c: Cost, args: argparse.Namespace) -> list[str]:
    """What will run and about how long it takes, before it starts."""
    from cosched.compare.cost import REPORT_SECONDS

    todo = ", ".join(f"{what} {n}" for what, n in sorted(c.todo.items()))
    left = c.runs - c.stored
    lines = [
        f"plan      {c.runs} runs"
        + (f", {c.stored} already stored, {left} to do" if c.stored else "")
        + (f": {todo}" if todo else "")
    ]
    workers = max(1, args.workers)
    first = c.cpu_seconds - c.later_seconds
    wall = f" (runs on {workers} workers: about {_duration(first / workers)})"
    cpu = _duration(c.cpu_seconds)
    if c.later_seconds > 0:
        cpu = f"{_duration(first)} (up to {cpu} with gang's whole switch-cost sweep)"
    lines.append(
        f"estimate  about {cpu} of CPU for the runs and "
        f"{_duration(REPORT_SECONDS)} for the report{wall if workers > 1 and left else ''}, "
        "from each family's speed measured on a 2-core development machine "
        "(cosched.compare.cost.jobs_per_second); a loaded machine takes longer"
    )
    if c.compiling:
        lines.append(
            f"note      the first {', '.join(c.compiling)} run compiles its numba kernels "
            "(10-45 s, once: numba caches them)"
        )
    return lines


#: ``cosched compare`` (its texts: :mod:`cosched.cli.commands`).
PARSERS = {"compare": Handler(_compare, _arguments)}
