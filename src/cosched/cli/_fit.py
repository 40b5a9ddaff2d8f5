"""The work of ``cosched validate TRACE --fit`` (loaded only when the command runs)."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from cosched.cli.progress import ProgressBar
from cosched.cli.run import check_writable, machine_flags, open_for
from cosched.errors import ConfigError
from cosched.experiments.fit import (
    PLAIN_EASY,
    SPLIT,
    FitResult,
    best_runnable,
    lacks,
    partition_procs,
    prepare,
    run_fit,
    unrunnable,
)
from cosched.experiments.outage_records import OutageRecords, read_outage_records
from cosched.metrics.validate import Judgement, ScheduleComparison, judge
from cosched.platform import Platform
from cosched.policies.base import policy_class
from cosched.policies.recorded import Recorded
from cosched.policies.requirements import MachineFlags, fit_workload
from cosched.workload.job import Workload

__all__ = ["fit_command", "fitted_arm"]

#: How many configurations the report lists (plain EASY is always shown too).
TOP = 8


def require_starts(
    w: Workload, source: str, why: str = "--fit matches the logged starts and needs them"
) -> None:
    """Refuse a log without recorded starts: a fit or a validation has nothing to match.

    Raises:
        ConfigError: no job has a wait (SWF field 3) of 0 or more.
    """
    t = w.columns
    wait = np.asarray(t["wait_time"], dtype=np.float64) if "wait_time" in t else np.array([])
    if not (wait[~np.isnan(wait)] >= 0).any():
        raise ConfigError(
            f"{source}: no job records its start (SWF field 3, wait_time, is -1 or missing on "
            f"every line); {why}"
        )


def outage_records(
    path: Path | None, w: Workload, platform: Platform, tz: str | None
) -> OutageRecords | None:
    """``--unavailability FILE``: the site's records of node failures and reservations
    (:mod:`cosched.experiments.outage_records`), in the log's time (from its
    ``UnixStartTime``); an event still open ends at the last submission plus the
    longest run time. None without the flag.

    Raises:
        ConfigError: the log states no UnixStartTime, or the file is not one the reader
            knows.
        WorkloadFormatError: a record is malformed (file, line and field).
    """
    if path is None:
        return None
    origin = w.header.get("UnixStartTime", "").strip()
    if not origin.lstrip("-").isdigit():
        raise ConfigError(
            f"--unavailability {path}: the log states no UnixStartTime (SWF header), so its "
            "times cannot be matched to the records' dates"
        )
    t = w.columns
    horizon = float(np.nanmax(t["submit_time"])) + float(np.nanmax(t["run_time"]))
    zone = tz or w.header.get("TimeZoneString", "").strip() or "UTC"
    return read_outage_records(path, platform, float(origin), horizon, zone)


def fit_command(args: argparse.Namespace) -> int:
    """Fit, print the report; write ``--json`` if asked."""
    from cosched.experiments.executors import make_executor

    check_writable(args.json)
    if args.out is not None:
        from cosched.cli._checks import check_writable_dir

        check_writable_dir(args.out)
    if args.figure is not None:
        raise ConfigError("--figure goes without --fit (the fit compares many schedules)")
    split = SPLIT if args.split is None else args.split
    if not 0.0 < split < 1.0:
        raise ConfigError(f"--split must be between 0 and 1 (exclusive), got {split:g}")
    flags = machine_flags(args)
    easy = policy_class("easy")
    w = open_for(args, easy)
    require_starts(w, args.workload)
    w_rec, _, notes = fit_workload(Recorded.requires, w, flags, seed=args.seed)
    _, platform, more = fit_workload(easy.requires, w_rec, flags, seed=args.seed)
    records = outage_records(args.unavailability, w_rec, platform, args.tz)
    inp = prepare(w_rec, platform, split, records)
    executor = make_executor(args.workers, args.dask)
    bar = ProgressBar(f"fitting {w_rec.name}", unit="configurations")
    with tempfile.TemporaryDirectory(prefix="cosched-fit-") as tmp:
        out = args.out if args.out is not None else Path(tmp)
        result = run_fit(
            inp, out, seed=args.seed, within=args.within, executor=executor, progress=bar.update
        )
    bar.close()
    notes = [n for n in [*notes, *more] if "'recorded' annotator" not in n]
    print(report(result, w_rec, notes, split, args.out))
    if args.json:
        args.json.write_text(json.dumps(record(result), indent=2) + "\n")
    return 0


def held_judgement(result: FitResult, row: Any) -> Judgement:
    """The judgement (:func:`cosched.metrics.validate.judge`) of a configuration's
    held-out KS statistic and share started within the tolerance."""
    ks, within = float(row["held.ks"]), float(row["held.within"])
    log, sim = ({"mean_wait": float(row[f"held.mean_wait_{k}"])} for k in ("log", "sim"))
    return judge(ScheduleComparison(log, sim, ks, float("nan"), within, result.within))


def _row_line(result: FitResult, i: int) -> str:
    r = result.table.iloc[i]
    mark = "*" if r["config"] == result.chosen.label() else " "
    return (
        f" {mark} {r['config']:<62} {r['search.score']:>7.4f} {r['val.score']:>7.4f} "
        f"{r['held.score']:>7.4f} {r['held.ks']:>7.4f} {r['held.within']:>7.4f}"
    )


def _caveats(result: FitResult) -> str:
    """What the flags do not carry of the chosen configuration."""
    out = []
    if result.chosen.partitions:
        out.append(
            "partitions=on has no flag of cosched run: the fit and compare --baseline fitted "
            "run each partition alone"
        )
    if result.chosen.outages:
        out.append("outages=on has no flag: the intervals read are on the assumed line")
    if result.chosen.order == "queue":
        out.append("with these flags the queue order ranks queues by number, not by the fit")
    return f" ({'; '.join(out)})" if out else ""


def report(result: FitResult, w: Workload, notes: list[str], split: float, out: Path | None) -> str:
    """The printed report of a fit."""
    inp, t = result.input, result.table
    k, n = inp.fit_jobs, len(inp.workload)
    lines = [
        "which simple scheduler reproduces this machine's schedule? (fitted, then held out)",
        f"workload  {w.name} ({n} jobs with a recorded start; fit on the first {k} by submit "
        f"time (--split {split:g}), held out the other {n - k})",
        f"machine   {inp.platform.describe()}",
    ]
    lines += [f"note      {x}" for x in w.notes]
    lines += [f"assumed   {x}" for x in [*notes, *inp.notes]]
    lines.append(
        "score     KS statistic of the waits + mean over job classes of |sim - log| / "
        "max(sim, log) of the class's mean wait (0 best, 2 worst); the choice reads the fit "
        "part only: the halving ranks by its earlier two thirds (search), the choice is the "
        "lowest score on its last third (val) among plain EASY and the configurations that "
        "beat plain EASY on both, ties to the earlier configuration of the declared space"
    )
    whole = result.whole()
    ranked = np.lexsort((t["val.score"].to_numpy(), ~whole))
    shown = [int(i) for i in ranked[: min(TOP, int(whole.sum()))]]
    plain = int(np.flatnonzero(t["config"] == PLAIN_EASY.label())[0])
    head = f"configuration (best {len(shown)} of {int(whole.sum())} run whole, by val score)"
    lines += [
        "",
        f"   {head:<62} {'search':>7} {'val':>7} {'held':>7} {'held KS':>7} {'within':>7}",
    ]
    lines += [_row_line(result, i) for i in shown]
    if plain not in shown:
        lines += ["   ...", _row_line(result, plain)]
    c, pe = result.row(result.chosen), result.row(PLAIN_EASY)
    tol = f"{result.within:g} s"
    lines += [
        "",
        f"chosen    {result.chosen.label()}",
        f"          as flags: {result.chosen.flags()}{_caveats(result)}",
        f"fit       score {c['fit.score']:.4f}  KS {c['fit.ks']:.4f}  within {tol} "
        f"{c['fit.within']:.4f}  (search {c['search.score']:.4f}, val {c['val.score']:.4f}; "
        f"plain EASY {pe['search.score']:.4f}, {pe['val.score']:.4f})",
        f"held out  score {c['held.score']:.4f}  KS {c['held.ks']:.4f}  within {tol} "
        f"{c['held.within']:.4f}",
        f"plain     EASY held out: score {pe['held.score']:.4f}  KS {pe['held.ks']:.4f}  "
        f"within {tol} {pe['held.within']:.4f}",
    ]
    contrib = result.contributions()
    if contrib:
        lines.append("features  held-out score with that feature alone reset to plain EASY's:")
        for feature, change, delta in contrib:
            verdict = "helps" if delta > 0 else ("no effect" if delta == 0 else "hurts")
            lines.append(f"          {feature:<10} {change:<40} {delta:+.4f} ({verdict})")
    else:
        lines.append("features  the chosen configuration is plain EASY")
    j = held_judgement(result, c)
    lines += ["", f"judgement {j.level} (held out): {j.why}", f"meaning   {j.meaning}"]
    lines += [f"lacks     {x}" for x in lacks(result, j.level)]
    where = f"cells stored in {out}" if out is not None else "cells not kept; --out DIR keeps them"
    halved = len(t) - int(whole.sum())
    if halved:
        lines.append(
            f"halving   {halved} of {len(t)} configurations stopped on a prefix of the fit "
            f"part (successive halving from the first {int(t['jobs'].min())} jobs)"
        )
    lines.append(f"time      {result.seconds:.1f} s for {len(t)} configurations ({where})")
    return "\n".join(lines)


def record(result: FitResult) -> dict[str, Any]:
    """The numbers of a fit (``--json``)."""
    t = result.table.astype(object).where(result.table.notna(), None)
    return {
        "workload": result.input.workload.name,
        "fit_jobs": result.input.fit_jobs,
        "jobs": len(result.input.workload),
        "chosen": result.chosen.label(),
        "chosen_flags": result.chosen.flags(),
        "seconds": result.seconds,
        "configurations": t.to_dict(orient="records"),
        "contributions": [
            {"feature": f, "change": c, "held_score_delta": d} for f, c, d in result.contributions()
        ],
    }


def fitted_arm(
    w: Workload,
    source: str,
    flags: MachineFlags | None,
    out: Path,
    executor: Any,
    records: Path | None = None,
    tz: str | None = None,
) -> tuple[str, list[str], tuple[tuple[float, float, int], ...], tuple[tuple[float, int], ...]]:
    """``compare --baseline fitted``: the fitted configuration as an arm, the notes
    that say how well it matched the held-out jobs, and the unavailability intervals it
    replays (the fit part's read from its recorded starts, the held-out part's from its
    submissions only: :mod:`cosched.experiments.unavailability`; empty unless the
    configuration has ``outages`` on), and the partitions it runs in
    (:func:`cosched.experiments.fit.partition_procs`; empty unless it has
    ``partitions`` on). With ``records`` (``--unavailability FILE``), the outages are the
    recorded ones (:func:`outage_records`) on both parts.

    Raises:
        ConfigError: the log records no starts, or the record file is not one the
            reader knows.
    """
    require_starts(w, source)
    flags = flags or MachineFlags()
    w_rec, _, _ = fit_workload(Recorded.requires, w, flags)
    _, platform, _ = fit_workload(policy_class("easy").requires, w_rec, flags)
    recorded = outage_records(records, w_rec, platform, tz)
    result = run_fit(prepare(w_rec, platform, records=recorded), out, executor=executor)
    b = best_runnable(result)
    r = result.row(b)
    j = held_judgement(result, r)
    k, n = result.input.fit_jobs, len(result.input.workload)
    from cosched.compare.render import FITTED_BASELINE

    lines = [
        f"{FITTED_BASELINE}{b.label()}, chosen among {len(result.table)} configurations on the "
        f"first {k} of {n} jobs (cosched validate --fit); on the {n - k} held-out jobs: KS "
        f"{r['held.ks']:.3f}, {100 * r['held.within']:.1f}% started within "
        f"{result.within:g} s of their logged start, a {j.level} match: {j.meaning}"
    ]
    if b != result.chosen:
        c = result.row(result.chosen)
        lines.append(
            f"the best fit, {result.chosen.label()} (held-out KS {c['held.ks']:.3f}), needs "
            f"what compare's arms do not run: {'; '.join(unrunnable(result.chosen))}; the "
            "reference is the best fit among those they run"
        )
    from cosched.compare.render import FIT_WARNING

    if recorded is not None and b.outages:
        lines.append(recorded.note())
    lines += [f"{FIT_WARNING}{x}" for x in lacks(result, j.level)]
    gone = result.input.unavailable if b.outages else ()
    parts = partition_procs(w_rec, result.input) if b.partitions and result.input.sizes else ()
    return b.policy_string(), lines, gone, parts
