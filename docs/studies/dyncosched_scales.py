"""Figure 4's WL5 (load 1) and Figure 3's WL7 (load 1.2) at several time scales, the
same jobs at each: one CSV row per scale, workload and scheme.

    python docs/studies/dyncosched_scales.py 60 400,100,1

Arguments: the number of jobs, the comma-separated time scales (``time_scale``, the
divisor of run and inter-arrival times; 1 is the paper's own durations), then optional
``NAME=VALUE`` readings of the dyncosched cell. Seed 20020601, MPL 5, s = 20%. Each
row gives the jobs finished and not, the mean response, the CPU shares, the simulated
time, the events and the CPU seconds the cell took.
"""

from __future__ import annotations

import sys
import time

from cosched.experiments.model import CellEnv
from cosched.timesharing.experiment import run_cell
from cosched.timesharing.params import SCHEMES


def main() -> None:
    """Command line entry."""
    jobs = int(sys.argv[1])
    scales = [float(x) for x in sys.argv[2].split(",")]
    extra = dict(a.split("=") for a in sys.argv[3:])
    print("time_scale,workload,load,scheme,jobs,finished,unfinished,mean_response,"
          "compute_share,frac_spin,frac_context_switch,frac_io_cpu,sim_time,events,cpu_s",
          flush=True)  # fmt: skip
    for ts in scales:
        for wl, load in (("WL5", 1.0), ("WL7", 1.2)):
            for scheme in SCHEMES:
                p = {"workload": wl, "load": load, "skew": 0.2, "mpl": 5, "scheme": scheme,
                     "n_jobs": jobs, "msg_factor": 1, "variant": "", "time_scale": ts,
                     **{k: float(v) for k, v in extra.items()}}  # fmt: skip
                t0 = time.process_time()
                o = run_cell(p, 20020601, CellEnv())
                print(f"{ts:g},{wl},{load},{scheme},{jobs},{o['jobs']:.0f},"
                      f"{o['unfinished']:.0f},{o.get('mean_response', float('nan')):.4g},"
                      f"{o['compute_share']:.4g},{o['frac_spin']:.4g},"
                      f"{o['frac_context_switch']:.4g},{o['frac_io_cpu']:.4g},"
                      f"{o['sim_time']:.4g},{o['events']:.4g},"
                      f"{time.process_time() - t0:.1f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
