"""Table 4's collapse at high MPL: the cells where the dynamic coscheduling paper's
spinning schemes collapse (Local and SY at MPL 5, PB-SY at MPL 16, against MPL 2), run
with a horizon of ``--horizon-factor`` times (last submission + longest job).

The reproduction stops a run at 4 times that span (``HORIZON_FACTOR``) and its claims
read the mean response of the jobs that finished; a saturated scheme's unfinished jobs
are left out. A larger factor lets every job finish, so the response counts them all.

    python docs/studies/dyncosched_collapse.py --jobs 300 --seeds 3 --horizon-factor 4
    python docs/studies/dyncosched_collapse.py --jobs 300 --seeds 3 --horizon-factor 40

Prints one CSV row per cell and seed (jobs finished and not, mean response, CPU shares,
the CPU seconds the cell took), then each collapse entry's change of response against
MPL 2 per seed and its mean beside the paper's.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import cosched.timesharing.experiment as E
from cosched.experiments.model import CellEnv
from cosched.timesharing.report import PAPER_TABLE4, TABLE4_COLS

#: (scheme, workload, the high MPL) of Table 4's collapse entries.
ENTRIES = (("Local", "WL5", 5), ("SY", "WL4", 5), ("SY", "WL5", 5), ("PB-SY", "WL5", 16),
           ("PB-SY", "WL4", 16))  # fmt: skip


def main() -> None:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--seeds", type=int, default=3, help="seeds 20020601, 20020602, ...")
    ap.add_argument("--horizon-factor", type=float, default=E.HORIZON_FACTOR)
    args = ap.parse_args()
    E.HORIZON_FACTOR = args.horizon_factor
    cols = "frac_spin", "frac_context_switch", "compute_share"
    print("scheme,workload,mpl,seed,finished,unfinished,mean_response,horizon," + ",".join(cols)
          + ",cpu_s", flush=True)  # fmt: skip
    resp: dict[tuple[str, str, int, int], float] = {}
    for scheme, wl, high in ENTRIES:
        for mpl in (2, high):
            for seed in (20020601 + k for k in range(args.seeds)):
                p = {"workload": wl, "load": 1.0, "skew": 0.2, "mpl": mpl, "scheme": scheme,
                     "n_jobs": args.jobs, "msg_factor": 1, "variant": ""}  # fmt: skip
                t0 = time.process_time()
                o = E.run_cell(p, seed, CellEnv())
                resp[scheme, wl, mpl, seed] = o["mean_response"]
                shares = ",".join(f"{o[c]:.4g}" for c in cols)
                print(f"{scheme},{wl},{mpl},{seed},{o['jobs']:.0f},{o['unfinished']:.0f},"
                      f"{o['mean_response']:.4g},{o['horizon']:.4g},{shares},"
                      f"{time.process_time() - t0:.1f}", flush=True)  # fmt: skip
    print()
    changes: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for (scheme, wl, mpl, seed), r in resp.items():
        if mpl != 2:
            changes[scheme, wl, mpl].append(r / resp[scheme, wl, 2, seed] - 1)
    for (scheme, wl, mpl), v in changes.items():
        paper = PAPER_TABLE4[scheme][TABLE4_COLS.index((wl, mpl))]
        per = ", ".join(f"{x:+.2f}" for x in v)
        print(
            f"{scheme} {wl} MPL {mpl} vs 2: mean {sum(v) / len(v):+.2f} ({per}); paper {paper:+.2f}"
        )


if __name__ == "__main__":
    main()
