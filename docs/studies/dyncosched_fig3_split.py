"""Figure 3's cells over the arrival window: where each scheme's CPU time goes, and why
an idle CPU is idle.

Figure 3's utilization is measured between the first and the last submission
(``ts_summary``), but the CPU breakdown of a results table (``frac_*``) covers the whole
run, the drain after the last arrival included. This study runs WL7's cells of the
dyncosched spec's full grid (MPL 5, s = 20%, the spec's parameters, a ``--reading`` on
top as in docs/studies/dyncosched_mechanisms.py) up to the last submission only, and
prints per scheme and load (mean over the seeds): the work share Figure 3 reads
(``work_share``, the same number as the full run's), the window's CPU breakdown, the
share of the nodes x MPL slots held by jobs, and, sampled every ``--sample`` seconds of
simulated time, what the processes of each idle CPU were doing. An idle CPU is counted
once per sample, under the first of:

* ``empty``: no process on the node;
* ``descheduled``: a process blocked in a receive whose partner has not sent yet and is
  ready but not running on its own node (waiting for its CPU: a coscheduling miss);
* ``in flight``: a process blocked in a receive whose message is sent, not yet
  deposited (the latency and the interface);
* ``partner busy``: a process blocked on a partner that is computing or in I/O;
* ``I/O``: every process of the node in its I/O;
* ``not its turn``: a process ready but not run (under GS: not in the active row, whose
  cell on the node is empty or its process in I/O or ended).

The run is stepped to each sample time by ``TimeSharingSim.advance``, which gives the
same run as one call, bit for bit (the work shares equal ``run_cell``'s); stepping by
``TimeSharingSim.run`` would not under PB, whose result folds the nodes' accounts.

    python docs/studies/dyncosched_fig3_split.py --reading "" --schemes GS SB PB-SB PB \\
        --loads 1.2 2.0 --seeds 3 --jobs 1000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cosched.timesharing import kernel as K
from cosched.timesharing.experiment import NODES, cell_simulation
from cosched.timesharing.metrics import BREAKDOWN

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dyncosched_mechanisms import parse_reading, quick_cells

#: The idle causes, in the order an idle CPU is counted under the first that holds.
CAUSES = ("empty", "descheduled", "in flight", "partner busy", "I/O", "not its turn")


def cell_params(scheme: str, load: float, reading: dict[str, Any], jobs: int) -> dict[str, Any]:
    """The spec's WL7 cell of Figure 3 (MPL 5, s = 20%) at ``load``, ``reading`` on top."""
    for c in quick_cells(full=True):
        if (c["workload"], c["scheme"], float(c["load"]), c["mpl"], c["skew"]) == (
            "WL7",
            scheme,
            load,
            5,
            0.2,
        ) and not c.get("variant", ""):
            return {**c, "n_jobs": jobs, **reading}
    raise SystemExit(f"no WL7 cell of Figure 3 for scheme {scheme!r} at load {load}")


def idle_causes(S: K.State, started: np.ndarray, jb: int) -> list[str]:
    """The cause of each idle CPU now (see the module's docstring)."""
    PI = S.I
    rows = [
        p
        for j in started.tolist()
        for p in range(int(PI[jb + j, K.J_P0]), int(PI[jb + j, K.J_P0] + PI[jb + j, K.J_NPROCS]))
        if PI[p, K.P_STATE] != K.DONE
    ]
    by_node: dict[int, list[int]] = {}
    for p in rows:
        by_node.setdefault(int(PI[p, K.P_NODE]), []).append(p)
    out = []
    for n in range(NODES):
        if PI[n, K.N_CUR] >= 0:
            continue
        procs = by_node.get(n, [])
        found = set()
        for p in procs:
            state = PI[p, K.P_STATE]
            if state == K.IO:
                found.add("I/O")
                continue
            if state != K.BLOCKED:
                found.add("not its turn")
                continue
            q = int(PI[p, K.P_NBR0 + (PI[p, K.P_WAITING] & 1)])
            sent = PI[q, K.P_IT] > PI[p, K.P_IT] or (
                PI[q, K.P_IT] == PI[p, K.P_IT] and PI[q, K.P_PHASE] == K.P_RECV
            )
            if sent or PI[q, K.P_STATE] == K.DONE:
                found.add("in flight")
            elif PI[q, K.P_STATE] == K.READY:
                found.add("descheduled")
            else:
                found.add("partner busy")
        if not procs:
            found.add("empty")
        out.append(next(c for c in CAUSES if c in found))
    return out


def run(params: dict[str, Any], seed: int, sample: float) -> dict[str, Any]:
    """One cell up to its last submission: work share, breakdown, slots, idle causes."""
    sim, w, _ = cell_simulation(params, seed)
    mpl = int(params["mpl"])
    w1 = float(w.table["submit_time"].max())
    counts = dict.fromkeys(CAUSES, 0)
    held = 0.0
    n_samples = 0
    jb = int(sim.state.G[K.S_JB])
    for t in np.arange(sample, w1, sample):
        sim.advance(float(t))
        S = sim.state
        started = np.flatnonzero(S.I[jb:, K.J_STARTED] == 1)
        for c in idle_causes(S, started, jb):
            counts[c] += 1
        live = started[~np.isfinite(S.F[jb + started, K.J_END])]
        held += float(S.I[jb + live, K.J_NPROCS].sum()) / (NODES * mpl)
        n_samples += 1
    r = sim.run(w1)
    w0, _ = r.window
    cpu = NODES * r.end_time
    out: dict[str, Any] = {"work_share": r.window_work / (NODES * (w1 - w0))}
    for c in BREAKDOWN:
        out[c] = float(r.nodes[c].sum()) / cpu
    out["idle"] = 1.0 - sum(out[c] for c in BREAKDOWN)
    out["slots_held"] = held / max(n_samples, 1)
    samples = NODES * max(n_samples, 1)
    for c in CAUSES:  # as shares of all CPU time, so that they sum to the idle share
        out[f"idle: {c}"] = counts[c] / samples
    return out


def main() -> None:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reading", default="", help='e.g. "context_switch=0"')
    ap.add_argument("--schemes", nargs="+", default=["GS", "SB", "PB-SB", "PB"])
    ap.add_argument("--loads", nargs="+", type=float, default=[1.2, 2.0])
    ap.add_argument("--seeds", type=int, default=3, help="seeds 20020601, 20020602, ...")
    ap.add_argument("--first-seed", type=int, default=20020601)
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--sample", type=float, default=0.05, help="seconds between samples")
    args = ap.parse_args()
    if not args.sample > 0:
        raise SystemExit(f"--sample must be > 0 (got {args.sample})")
    reading = parse_reading(args.reading)
    t0 = time.process_time()
    rows = []
    for scheme in args.schemes:
        for load in args.loads:
            params = cell_params(scheme, load, reading, args.jobs)
            for k in range(args.seeds):
                out = run(params, args.first_seed + k, args.sample)
                rows.append({"scheme": scheme, "load": load, **out})
    table = pd.DataFrame(rows).groupby(["scheme", "load"], sort=False).mean()
    print(f"## reading: {args.reading or 'none'} ({args.seeds} seeds of {args.jobs} jobs)")
    print("| scheme | load | " + " | ".join(table.columns) + " |")
    print("|---|---:|" + "---:|" * len(table.columns))
    for (scheme, load), row in table.iterrows():
        cells = " | ".join(f"{100 * v:.1f}" for v in row)
        print(f"| {scheme} | {load:g} | {cells} |")
    print(f"(%; {time.process_time() - t0:.0f} s of CPU)")


if __name__ == "__main__":
    main()
