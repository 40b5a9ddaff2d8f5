"""The work of ``cosched validate`` (loaded only when the command runs)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cosched.cli.progress import ProgressBar
from cosched.cli.run import check_writable, machine_flags, open_for
from cosched.engine import Simulation, SimulationResult
from cosched.metrics import JobClasses
from cosched.metrics.validate import (
    LogMachine,
    ScheduleComparison,
    compare_schedules,
    judge,
    over_time,
    peak_level,
)
from cosched.platform import Platform
from cosched.policies.base import make_policy, parse_params, policy_class
from cosched.policies.recorded import Recorded
from cosched.policies.requirements import fit_workload
from cosched.workload.job import Workload

__all__ = ["logged_schedule"]


def _simulate(
    w: Workload, platform: Platform, policy: Any, seed: int, label: str, estimates: str
) -> SimulationResult:
    bar = ProgressBar(f"{label} on {w.name}")
    sim = Simulation(
        w,
        platform,
        policy,
        estimates=estimates,  # type: ignore[arg-type]
        rng=np.random.default_rng(seed),
        progress=bar.update,
    )
    result = sim.run()
    bar.close()
    return result


def _validate(args: argparse.Namespace) -> int:
    check_writable(args.figure, args.json)
    cls = policy_class(args.policy)
    policy = make_policy(args.policy, **parse_params(args.policy, args.param))
    flags = machine_flags(args)
    w = open_for(args, cls)
    from cosched.cli._fit import require_starts

    require_starts(
        w, args.workload, "validate compares the logged starts with a simulated schedule"
    )
    w_rec, p_rec, notes = fit_workload(Recorded.requires, w, flags, seed=args.seed)
    w_sim, p_sim, more = fit_workload(cls.requires, w_rec, flags, seed=args.seed)
    rec = _simulate(w_rec, p_rec, Recorded(), args.seed, "recorded", "requested")
    sim = _simulate(w_sim, p_sim, policy, args.seed, cls.name, args.estimates)
    logged = logged_schedule(rec.jobs, w_rec)
    classes = JobClasses()
    cmp = compare_schedules(
        logged,
        sim.jobs,
        capacity=p_sim.capacity,
        capacity_procs=p_sim.procs,
        classes=classes,
        within=args.within,
    )
    peak = peak_level(
        logged["start_time"].to_numpy(), logged["end_time"].to_numpy(), logged["procs"].to_numpy()
    )
    notes = [*notes, *more, *policy.assumptions()]
    print(_report(w_rec, p_sim, cls.name, cmp, rec, notes, peak))
    if args.figure:
        _figure(logged, sim.jobs, p_sim.procs, args.bin, args.figure, w_rec.name, cls.name)
        print(f"\nfigure    {args.figure}")
    if args.json:
        args.json.write_text(json.dumps(_record(cmp, rec, w_rec, cls.name), indent=2) + "\n")
    return 0


def _report(
    w: Workload,
    platform: Platform,
    name: str,
    cmp: ScheduleComparison,
    rec: SimulationResult,
    notes: list[str],
    peak: float,
) -> str:
    lines = [
        "does the simulated baseline look like your machine?",
        f"workload  {w.name} ({len(w)} jobs with a recorded start)",
        f"machine   {platform.describe()}",
    ]
    lines += [f"note      {n}" for n in w.notes]
    # The annotator's generic note does not apply: the recorded starts are read, not drawn.
    lines += [f"assumed   {n}" for n in notes if "'recorded' annotator" not in n]
    d = rec.diagnostics
    lines.append(
        f"log       at most {peak:.0f} processors busy at once in the logged schedule "
        f"(the simulated machine has {platform.procs})"
    )
    check = LogMachine(peak, platform.procs, len(w)).warning(
        "--nodes and --cores (or --procs)", platform.cores if platform.cores > 1 else None
    )
    if check is not None:
        lines.append(f"warning   {check}")
    lines.append(
        f"replay    the simulated machine cannot hold {d['recorded_delayed_jobs']:.0f} jobs at "
        f"their logged start (the log's machine held more); `--policy recorded` delays them "
        f"(mean {d['recorded_delay_mean']:.0f} s, max {d['recorded_delay_max']:.0f} s). "
        "The comparison below uses the logged starts."
    )
    lines += ["", f"  {'':<26} {'recorded':>12} {name:>12}"]
    rows = [
        ("mean wait (s)", "mean_wait"),
        ("median wait (s)", "median_wait"),
        ("90th pct wait (s)", "p90_wait"),
        ("mean bounded slowdown", "mean_bounded_slowdown"),
        ("utilization", "utilization"),
    ]
    for d_ in ("short", "medium", "long"):
        for wd in ("narrow", "wide"):
            rows.append((f"mean wait {d_} {wd} (s)", f"{d_}_{wd}_mean_wait"))
    for label, key in rows:
        a, b = cmp.recorded[key], cmp.simulated[key]
        fmt = "{:>12.4f}" if key == "utilization" or "slowdown" in key else "{:>12.1f}"
        lines.append(f"  {label:<26} {fmt.format(a)} {fmt.format(b)}")
    lines += [
        "",
        f"  KS statistic of the waits  {cmp.ks_statistic:.4f} (p = {cmp.ks_pvalue:.3g})",
        f"  started within {cmp.within:g} s of the recorded start  {cmp.within_share:.4f}",
    ]
    j = judge(cmp)
    lines += ["", f"judgement {j.level}: {j.why}", f"meaning   {j.meaning}"]
    return "\n".join(lines)


def _record(
    cmp: ScheduleComparison, rec: SimulationResult, w: Workload, name: str
) -> dict[str, Any]:
    def clean(m: dict[str, float]) -> dict[str, float | None]:
        return {k: (v if np.isfinite(v) else None) for k, v in m.items()}

    return {
        "workload": w.name,
        "jobs": len(w),
        "policy": name,
        "recorded": clean(cmp.recorded),
        "simulated": clean(cmp.simulated),
        "ks_statistic": cmp.ks_statistic,
        "ks_pvalue": cmp.ks_pvalue,
        "within": cmp.within,
        "within_share": cmp.within_share,
        "judgement": judge(cmp).level,
        "replay": dict(rec.diagnostics),
    }


def logged_schedule(replay: pd.DataFrame, w: Workload) -> pd.DataFrame:
    """The replay's job table with each job at its logged start, as the machine ran it.

    The comparison uses the log itself, not the replay: where the log's machine held
    more than the simulated one (see the replay line of the report), the replay had to
    delay jobs, and those delays are the simulator's, not the site's.
    """
    out = replay.copy()
    out["start_time"] = w.table["recorded_start"].to_numpy(dtype=np.float64)
    out["end_time"] = out["start_time"] + out["run_time"]
    return out


def _figure(
    rec: pd.DataFrame,
    sim: pd.DataFrame,
    procs: int,
    width: float,
    path: Path,
    workload: str,
    name: str,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t0 = float(rec["submit_time"].min())
    t1 = float(max(rec["end_time"].max(), sim["end_time"].max()))
    edges = np.arange(t0, t1 + width, width)
    a, b = over_time(rec, procs, edges), over_time(sim, procs, edges)
    days = (edges[:-1] - t0) / 86400.0
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(9, 5.5))
    top.step(days, a["utilization"], where="post", label="recorded (the log)", lw=0.8)
    top.step(days, b["utilization"], where="post", label=name, lw=0.8)
    top.set_ylabel("utilization")
    top.legend(loc="upper right")
    top.set_title(f"{workload}: recorded schedule vs {name} (bins of {width / 3600:g} h)")
    bottom.step(days, a["queue"], where="post", label="recorded", lw=0.8)
    bottom.step(days, b["queue"], where="post", label=name, lw=0.8)
    bottom.set_ylabel("jobs waiting (mean)")
    bottom.set_xlabel("days from the first submission")
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
