"""How often FCS's classification dynamics act on Figure 7's workload: the share of
processes Algorithm 2 evaluated at least once (tslots >= cslots_MIN) and the share that
end F or DC, i.e. whose CS slot was handed to the local scheduler (docs/timesharing.md,
"Classification dynamics"), under each slot clock.

    python docs/studies/fcs_class_dynamics.py [--jobs 1000] [--load 0.9]
        [--seed 20031110] [--slot-clocks assigned heartbeat] [--reading key=value,...]

The workload and parameters are those of ``scripts/fcs_pe_states.py`` (git show
fc88f54): the fcs spec's Figure 7 cell (32 PEs, MPL 6, 100 ms slots, cslots_MIN 20,
load by run times, Lublin jobs 10x shorter), one seed.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from cosched.timesharing.engine import FCS_CLASSES, TimeSharingSim
from cosched.timesharing.fcs_experiment import _params
from cosched.timesharing.workloads import dynamic_workload


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=20031110)
    ap.add_argument("--slot-clocks", nargs="+", default=["assigned", "heartbeat"])
    ap.add_argument("--reading", default="")
    args = ap.parse_args()
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
