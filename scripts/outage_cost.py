"""The CPU time of plain EASY and of conservative backfilling (``sjf`` order) replaying the
unavailability the fit reads from a log, on the log's first N jobs (docs/validate.md,
"Outages").

    python scripts/outage_cost.py SDSC-BLUE-2000-4.2 20000
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from pathlib import Path

TRACES = Path(os.environ.get("COSCHED_TRACES", "/work/shared/traces"))


def main() -> int:
    from cosched.experiments.fit import Baseline, prepare, simulate_baseline
    from cosched.policies.base import policy_class
    from cosched.policies.recorded import Recorded
    from cosched.policies.requirements import MachineFlags, fit_workload
    from cosched.workload.loader import load_workload

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", help="a trace name in the traces folder")
    ap.add_argument("jobs", type=int, help="how many of the log's first jobs to run")
    args = ap.parse_args()
    w = load_workload(TRACES / f"{args.log}-cln.swf.gz")
    w_rec, _, _ = fit_workload(Recorded.requires, w, MachineFlags())
    _, platform, _ = fit_workload(policy_class("easy").requires, w_rec, MachineFlags())
    inp = prepare(w_rec, platform)
    inp = replace(inp, workload=inp.workload.rows(slice(0, args.jobs), "prefix"))
    print(f"{args.log}: {len(inp.unavailable)} intervals read, first {args.jobs} jobs")
    for b in (Baseline(outages=True), Baseline("conservative", order="sjf", outages=True)):
        cpu = time.process_time()
        simulate_baseline(inp, b)
        print(f"{b.label()}: {time.process_time() - cpu:.1f} s of CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
