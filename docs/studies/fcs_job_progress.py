"""Each job's progress over time in one FCS scenario.

Runs one of the fcs cell's section 3-4 scenarios under one scheme, stopping at each
horizon given, and prints per job the mean over its ranks of the CPU time computed, spun
and blocked (s), the messages received and the context switches. It shows who gets the
CPU while the jobs share it, for instance whether SB's balanced job 3 of the mixed set
is starved while the imbalanced pair runs (the paper's 213 / 214 / 276 s imply it is):

    python docs/studies/fcs_job_progress.py --scenario mixed --scheme SB --horizons 50 100 150
        [--reading local=linux24,linux_hz=4096,linux_smp=4,block=4,...]

``--reading`` takes the fcs cell's parameters as in ``docs/studies/fcs_linux_local.py``
(its ``BASE`` below them; section 4's scenarios use the 200 ms quantum).
"""

from __future__ import annotations

import argparse

from fcs_linux_local import BASE  # this script's folder is first on sys.path

from cosched.timesharing.fcs_experiment import parse, scenario_sim

COLUMNS = ["compute", "spin", "blocked", "received", "switches"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="mixed")
    ap.add_argument("--scheme", default="SB")
    ap.add_argument("--horizons", type=float, nargs="+", default=[50.0, 100.0, 150.0])
    ap.add_argument("--reading", default="")
    ap.add_argument("--seed", type=int, default=20031110)
    args = ap.parse_args()
    how = dict(part.split("=", 1) for part in filter(None, args.reading.split(",")))
    params = {**BASE, "scenario": args.scenario, "scheme": args.scheme, **how}
    if args.scenario in ("sweep3d", "sage", "sage+sweep3d"):
        params["quantum"] = 0.2
    sim = scenario_sim(parse(params), args.seed)
    print("time (s) | job | " + " | ".join(COLUMNS) + " (means over the job's ranks)")
    for h in sorted(args.horizons):
        r = sim.run(horizon=h)
        by_job = r.procs.groupby("job_id")[COLUMNS].mean()
        for job, row in by_job.iterrows():
            cells = " | ".join(f"{row[c]:.2f}" for c in COLUMNS)
            print(f"{h:g} | {job} | {cells}", flush=True)
        done = r.jobs.sort_values("job_id")
        for _, j in done.iterrows():
            print(f"{h:g} | job {j['job_id']} ended at {j['end_time']:.1f} s")


if __name__ == "__main__":
    main()
