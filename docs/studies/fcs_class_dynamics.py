"""How often FCS's classification dynamics act on Figure 7's workload: the share of
processes Algorithm 2 evaluated at least once (tslots >= cslots_MIN) and the share that
end F or DC, i.e. whose CS slot was handed to the local scheduler (docs/timesharing.md,
"Classification dynamics"), under each slot clock.

    python docs/studies/fcs_class_dynamics.py [--jobs 1000] [--load 0.9]
        [--seed 20031110] [--slot-clocks assigned heartbeat] [--reading key=value,...]
    python docs/studies/fcs_class_dynamics.py --section3

The workload and parameters are those of ``scripts/fcs_pe_states.py`` (git show
fc88f54): the fcs spec's Figure 7 cell (32 PEs, MPL 6, 100 ms slots, cslots_MIN 20,
load by run times, Lublin jobs 10x shorter), one seed. ``--section3`` runs instead
section 3's four scenarios under FCS as the fcs spec's first grid sets them, with
``cs_local`` 0 (the default) and 1 (CS processes also in the DC slots and holes of the
matrix), and prints each job's end time beside the paper's and the mean
``|ln(cosched / paper)|`` over the jobs.
"""

from __future__ import annotations

import argparse
import math
import time
import tomllib
from collections import Counter
from importlib import resources

import numpy as np

from cosched.timesharing.engine import FCS_CLASSES, TimeSharingSim
from cosched.timesharing.fcs_experiment import _params, run_cell
from cosched.timesharing.fcs_report import PAPER
from cosched.timesharing.workloads import dynamic_workload


def section3() -> None:
    """Section 3's scenarios under FCS with ``cs_local`` 0 and 1."""
    spec_file = resources.files("cosched.experiments") / "specs" / "fcs.toml"
    spec = tomllib.loads(spec_file.read_text())
    grid = {k: v for k, v in spec["grid"][0].items() if k not in ("seeds", "scheme")}
    scenarios = grid.pop("scenario")
    for cs_local in (0, 1):
        errs = []
        for sc in scenarios:
            p = {**spec["params"], **grid, "scenario": sc, "scheme": "FCS", "cs_local": cs_local}
            out = run_cell(p, spec["grid"][0]["seeds"][0], None)  # type: ignore[arg-type]
            paper = PAPER[sc]["FCS"][:-2]
            ends = [out[f"job{k + 1}_end"] for k in range(len(paper))]
            errs += [abs(math.log(e / q)) for e, q in zip(ends, paper, strict=True)]
            got = " / ".join(f"{e:.1f}" for e in ends)
            want = " / ".join(f"{q:g}" for q in paper)
            print(f"cs_local {cs_local} {sc}: {got} ({want})")
        print(f"cs_local {cs_local}: mean |ln(cosched / paper)| {sum(errs) / len(errs):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=20031110)
    ap.add_argument("--slot-clocks", nargs="+", default=["assigned", "heartbeat"])
    ap.add_argument("--reading", default="")
    ap.add_argument("--section3", action="store_true")
    args = ap.parse_args()
    if args.section3:
        section3()
        return
    extra = dict(part.split("=", 1) for part in filter(None, args.reading.split(",")))
    for clock in args.slot_clocks:
        t0 = time.process_time()
        spec = {"quantum": 0.1, "cslots_min": 20, "f_preempt": 0, "slot_clock": clock, **extra}
        ts = _params(spec)
        rng = np.random.default_rng(args.seed)
        w = dynamic_workload(args.jobs, rng=rng, pes=32, load=args.load, max_run=600.0,
                             time_scale=10.0, params=ts, load_by="runtimes")  # fmt: skip
        r = TimeSharingSim(w, scheme="FCS", nodes=32, mpl=6, rng=rng, params=ts, easy=True).run()
        p = r.procs
        n = len(p)
        evaluated = p["tslots"] >= ts.fcs_cslots_min
        final = Counter(FCS_CLASSES[k] for k in p["klass"])
        left = sum(final[c] for c in ("F", "DC"))
        print(f"slot clock {clock} ({spec}): {n} processes, {len(r.jobs)} jobs")
        print(f"  evaluated at least once: {int(evaluated.sum())} ({evaluated.mean():.3f})")
        print(f"  ending CS / F / DC: {final['CS']} / {final['F']} / {final['DC']}")
        print(f"  left their CS slot (end F or DC): {left} ({left / n:.3f})")
        print(f"  CPU {time.process_time() - t0:.1f} s")


if __name__ == "__main__":
    main()
