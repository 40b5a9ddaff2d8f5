"""Gang scheduling at MPL 2-4 against EASY on archive traces, per job class.

For each trace: EASY on the machine of the trace header, then ``gang`` (first fit,
alternate scheduling, backfilling, quantum 30 s, switch cost ``--switch-cost``) at
each MPL. Prints mean response (turnaround) and mean bounded slowdown (tau 10 s) with
95% intervals (mean +- 1.96 standard errors; the tails are heavy, so read them as a
rough guide), overall and per run-time class (short <= 60 s < medium <= 3600 s < long,
the project's ``JobClasses``), then the literature's expected directions checked:
short jobs gain (lower mean slowdown than EASY), long jobs lose (higher mean
response), overall mean slowdown falls. Usage::

    python docs/studies/gang_study.py                       # SDSC-SP2 and LANL-CM5, 20,000 jobs
    python docs/studies/gang_study.py --limit 0             # whole traces (slow)
    python docs/studies/gang_study.py --traces KTH-SP2-1996-2.1-cln --limit 5000
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

TRACES = Path(__file__).resolve().parents[1] / ".." / "shared" / "traces"
DEFAULT = ["SDSC-SP2-1998-4.2-cln", "LANL-CM5-1994-4.1-cln"]
CLASSES = (("short", 0.0, 60.0), ("medium", 60.0, 3600.0), ("long", 3600.0, math.inf))


def _ci(x: np.ndarray) -> tuple[float, float]:
    m = float(np.mean(x)) if len(x) else math.nan
    h = 1.96 * float(np.std(x, ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else math.nan
    return m, h


def _rows(trace: str, label: str, jobs: pd.DataFrame) -> list[dict[str, object]]:
    out = []
    run = jobs["run_time"].to_numpy()
    for cls, lo, hi in (("all", -math.inf, math.inf), *CLASSES):
        sel = (run > lo) & (run <= hi)
        resp, rh = _ci(jobs["turnaround"].to_numpy()[sel])
        bsld, bh = _ci(jobs["bounded_slowdown"].to_numpy()[sel])
        out.append(
            {
                "trace": trace,
                "policy": label,
                "class": cls,
                "jobs": int(sel.sum()),
                "resp": resp,
                "resp_ci": rh,
                "bsld": bsld,
                "bsld_ci": bh,
            }
        )
    return out


def main() -> None:
    """Run the study and print the tables and the checks."""
    from cosched.engine.simulation import Simulation
    from cosched.gang import Gang
    from cosched.metrics.summary import outcomes
    from cosched.platform import Platform
    from cosched.policies.easy import EasyBackfilling
    from cosched.workload.sources import open_workload

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", nargs="*", default=DEFAULT)
    ap.add_argument("--limit", type=int, default=20000, help="first N jobs (0: all)")
    ap.add_argument("--mpl", type=int, nargs="*", default=[2, 3, 4])
    ap.add_argument("--switch-cost", type=float, default=1.0)
    ap.add_argument("--quantum", type=float, default=30.0)
    args = ap.parse_args()
    rows: list[dict[str, object]] = []
    for name in args.traces:
        path = TRACES / f"{name}.swf.gz"
        if not path.is_file():
            raise SystemExit(f"trace {path} not found")
        w = open_workload(str(path), limit=args.limit or None)
        procs = int(w.max_procs or w.table["procs"].max())
        t = w.table
        run, area = t["run_time"].to_numpy(), (t["run_time"] * t["procs"]).to_numpy()
        span = float(t["submit_time"].max() - t["submit_time"].min())
        print(
            f"# {name}: {len(w)} jobs; short {np.mean(run <= 60):.2f}, long "
            f"{np.mean(run > 3600):.2f} of jobs; long jobs "
            f"{area[run > 3600].sum() / area.sum():.2f} of the work; median run time "
            f"{np.median(run):.0f} s; offered load "
            f"{area.sum() / (procs * span):.2f}",
            flush=True,
        )
        runs = [("easy", EasyBackfilling(), Platform(procs, 1))]
        runs += [
            (
                f"gang-mpl{m}",
                Gang(mpl=m, quantum=args.quantum, switch_cost=args.switch_cost),
                Platform(procs, 1, mpl=m),
            )
            for m in args.mpl
        ]
        for label, policy, platform in runs:
            t0 = time.process_time()
            result = Simulation(w, platform, policy).run()
            cpu = time.process_time() - t0
            print(f"# {name} ({len(w)} jobs, {procs} procs) {label}: {cpu:.1f} CPU s", flush=True)
            rows += _rows(name, label, outcomes(result.jobs))
    table = pd.DataFrame(rows)
    print()
    print("| trace | policy | class | jobs | mean response (s) | mean bounded slowdown |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['trace']} | {r['policy']} | {r['class']} | {r['jobs']} | "
            f"{r['resp']:.0f} ± {r['resp_ci']:.0f} | {r['bsld']:.2f} ± {r['bsld_ci']:.2f} |"
        )
    print()
    print("expected directions (literature: short jobs gain, long jobs lose, slowdown falls):")
    for name in args.traces:
        t = table[table["trace"] == name].set_index(["policy", "class"])
        for m in args.mpl:
            g = f"gang-mpl{m}"
            gang, easy = t.loc[g], t.loc["easy"]
            checks = [
                ("short bsld falls", gang.loc["short", "bsld"] < easy.loc["short", "bsld"]),
                ("long response rises", gang.loc["long", "resp"] > easy.loc["long", "resp"]),
                ("overall bsld falls", gang.loc["all", "bsld"] < easy.loc["all", "bsld"]),
            ]
            text = ", ".join(f"{c}: {'yes' if ok else 'NO'}" for c, ok in checks)
            print(f"  {name} {g}: {text}")


if __name__ == "__main__":
    main()
