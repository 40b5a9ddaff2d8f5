"""How much PE time do sparsely filled gang rows leave without a process of the active
row, in the FCS reproduction's dynamic workload?

    python scripts/fcs_gang_holes.py [--jobs 1000] [--load 0.9] [--seed 20031110]

Runs Figure 7's workload (the spec's parameters, load set by run times) under GS and
FCS at MPL 6 and, from each job's matrix row, start and end, computes the share of PE
time, while any job runs, in which the active row has no process on a PE (a hole):
every non-empty row gets an equal share of time, so with rows r holding o_r PEs the
hole share is 1 - sum(o_r) / (rows x PEs), averaged over time. Under GS a hole idles
its PE; under FCS the PE's DC and F processes of other rows may fill it.
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

from cosched.timesharing import kernel as K
from cosched.timesharing.engine import TimeSharingSim
from cosched.timesharing.fcs_experiment import _params
from cosched.timesharing.workloads import dynamic_workload


def hole_share(start: np.ndarray, end: np.ndarray, row: np.ndarray, procs: np.ndarray,
               pes: int, mpl: int) -> float:  # fmt: skip
    """Time-averaged share of PE time in holes of the active row (see the module)."""
    times = np.unique(np.concatenate([start, end]))
    holes = busy = 0.0
    for a, b in itertools.pairwise(times):
        live = (start <= a) & (end >= b)
        if not live.any():
            continue
        occ = np.bincount(row[live], weights=procs[live], minlength=mpl)
        rows = int((occ > 0).sum())
        holes += (b - a) * (1.0 - occ.sum() / (rows * pes))
        busy += b - a
    return holes / busy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=20031110)
    args = ap.parse_args()
    ts = _params({"quantum": 0.1, "cslots_min": 20, "f_preempt": 0})
    for scheme in ("GS", "FCS"):
        rng = np.random.default_rng(args.seed)
        w = dynamic_workload(args.jobs, rng=rng, pes=32, load=args.load, max_run=600.0,
                             time_scale=10.0, params=ts, load_by="runtimes")  # fmt: skip
        sim = TimeSharingSim(w, scheme=scheme, nodes=32, mpl=6, rng=rng, params=ts, easy=True)
        r = sim.run(np.inf)
        ji = sim.state.I[sim.jb :][: len(w)]
        jf = sim.state.F[sim.jb :][: len(w)]
        share = hole_share(jf[:, K.J_START], jf[:, K.J_END], ji[:, K.J_ROW].astype(np.int64),
                           ji[:, K.J_NPROCS].astype(float), 32, 6)  # fmt: skip
        used = ("compute", "spin", "context_switch", "interrupt")
        idle = 1.0 - sum(float(r.nodes[c].sum()) for c in used) / (32 * r.end_time)
        print(f"{scheme}: holes in the active row {share:.3f} of PE time while jobs run; "
              f"PEs idle {idle:.3f} of the makespan")  # fmt: skip


if __name__ == "__main__":
    main()
