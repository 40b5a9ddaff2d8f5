"""Where FCS's PE time goes on the dynamic workload, and how its processes end up
classified, under each reading of its slot clock.

    python scripts/fcs_pe_states.py [--jobs 1000] [--load 0.9] [--seed 20031110]
        [--slot-clocks assigned heartbeat] [--dt 0.0173] [--reading key=value,...]

Runs Figure 7's workload (the spec's parameters, load set by run times) under FCS and
samples every PE every ``dt`` simulated seconds (not a divisor of the 100 ms slot, so
the samples fall at every phase of it) from the first arrival to the last end. Each
sample is put in one state:

* ``empty``: the PE holds no process;
* ``CS slot``: the active row's process on the PE is CS and has the PE to itself
  (Algorithm 1), ``computing``, ``polling`` (in a receive) or ``other`` (a switch or
  an interrupt under way);
* ``local slot``: the active row has no live process on the PE (a hole of the matrix)
  or its process is DC or F, and the local scheduler runs the PE's DC and F processes:
  ``computing``, ``spinning``, ``other``, or idle, either with a DC or F process there
  (all blocked, waiting for messages: ``idle, DC/F blocked``), or with CS processes only,
  blocked (``idle, CS only``), or with a CS process ready to run (``idle, a CS process
  ready``: it runs only in its own slot).

Then, per job kind and rank role (``fine``, ``imbalanced fast``, ``imbalanced slow``,
``coarse``, ``serial``: a one-rank job), the class each process ends with, among the
processes Algorithm 2 evaluated at least once (tslots >= cslots_MIN), beside the class
the paper's thresholds give the kind when it runs alone (fine CS, imbalanced fast F,
imbalanced slow DC, coarse and serial DC), and the median granularity the processes had
measured since their last reset, with T_comm read both ways (``TSParams.fcs_tcomm``:
wall time, or spin and blocked time only). ``--reading`` takes the keys of
``scripts/fcs_fig7_readings.py`` (e.g. ``quantum=0.2``).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

import numpy as np

from cosched.timesharing import kernel as K
from cosched.timesharing.engine import FCS_CLASSES, TimeSharingSim
from cosched.timesharing.fcs_experiment import _params
from cosched.timesharing.workloads import dynamic_workload

STATES = ("empty", "CS slot, computing", "CS slot, polling", "CS slot, other",
          "local slot, computing", "local slot, spinning", "local slot, other",
          "local slot, idle, DC/F blocked", "local slot, idle, CS only",
          "local slot, idle, a CS process ready")  # fmt: skip
#: The class the thresholds of Table 2 give each role alone (docs/timesharing.md).
INTENDED = {"fine": "CS", "imbalanced fast": "F", "imbalanced slow": "DC", "coarse": "DC",
            "serial": "DC"}  # fmt: skip


def advance(sim: TimeSharingSim, t: float) -> None:
    """Run the kernel to ``t`` without building a result (the state stays exact)."""
    sim.state.GF[K.R_HORIZON] = t
    while K.run_kernel(sim.state, sim.margin) == K.RET_GROW:
        sim._grow()


def sample(S: Any, pes: int, t: float, counts: np.ndarray) -> None:
    """Add one sample of every PE's state (index into :data:`STATES`) to ``counts``."""
    SI, SF = S.I, S.F
    for n in range(pes):
        k = SI[n, K.N_NPROCS]
        if k == 0:
            counts[0] += 1
            continue
        cur = SI[n, K.N_CUR]
        busy_ovh = SF[n, K.N_OVH] > t
        if SI[n, K.N_MODE] == K.MODE_CS:
            if busy_ovh or cur < 0:
                counts[3] += 1
            else:
                counts[2 if SI[cur, K.P_INRECV] else 1] += 1
            continue
        if busy_ovh:
            counts[6] += 1
        elif cur >= 0:
            counts[5 if SI[cur, K.P_INRECV] else 4] += 1
        else:
            procs = SI[n, K.N_PL : K.N_PL + k]
            cs = SI[procs, K.P_KLASS] == K.CL_CS
            if (cs & (SI[procs, K.P_STATE] == K.READY)).any():
                counts[9] += 1
            else:
                counts[8 if cs.all() else 7] += 1


def roles(sim: TimeSharingSim, kinds: list[str]) -> list[str]:
    """Each process's role (see the module), in process-row order."""
    S = sim.state
    out = []
    for p in range(sim.nodes, sim.jb):
        j = int(S.I[p, K.P_JOB])
        if j < 0 or j >= len(kinds):
            continue
        kind = kinds[j]
        if S.I[sim.jb + j, K.J_NPROCS] == 1:
            out.append("serial")
        elif kind == "imbalanced":
            slow = S.F[p, K.P_JCOMP] > 1.01 * S.F[sim.jb + j, K.J_COMP]
            out.append("imbalanced slow" if slow else "imbalanced fast")
        else:
            out.append(kind)
    return out


def median_g(S: Any, ps: list[int], running: bool) -> str:
    """The median granularity (ms) of processes ``ps`` over their measurements since
    the last reset, with T_comm read as ``running`` (spin + blocked) or wall time."""
    if not ps:
        return "-"
    g = []
    for p in ps:
        wait = S.F[p, K.P_SPIN_T] + S.F[p, K.P_BLOCKED_T] - S.F[p, K.P_TWAIT0]
        tcomm = wait if running else S.F[p, K.P_TCOMM]
        g.append((S.F[p, K.P_COMPUTE_T] - S.F[p, K.P_TCPU0] + tcomm) / S.I[p, K.P_CCOMM])
    return f"{1e3 * float(np.median(g)):.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=20031110)
    ap.add_argument("--dt", type=float, default=0.0173)
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
        sim = TimeSharingSim(w, scheme="FCS", nodes=32, mpl=6, rng=rng, params=ts, easy=True)
        S = sim.state
        counts = np.zeros(len(STATES), dtype=np.int64)
        t = float(w.table["submit_time"].min())
        while True:
            t += args.dt
            advance(sim, t)
            if S.G[K.S_RUNNING] == 0 and S.G[K.S_I] >= len(w):
                break
            sample(S, 32, t, counts)
        sim.run()
        share = counts / counts.sum()
        print(f"\nslot clock {clock} ({spec}): PE states, share of {counts.sum()} samples")
        for name, v in zip(STATES, share, strict=True):
            print(f"  {name}: {v:.3f}")
        print(
            "  role | processes | evaluated | final class of the evaluated (CS/F/DC) | "
            "intended | median g since the last reset (ms)"
        )
        rl = roles(sim, list(w.table["kind"]))
        procs = range(sim.nodes, sim.nodes + len(rl))
        for role in INTENDED:
            ps = [p for p, r in zip(procs, rl, strict=True) if r == role]
            ev = [p for p in ps if S.I[p, K.P_TSLOTS] >= ts.fcs_cslots_min]
            cls = Counter(FCS_CLASSES[S.I[p, K.P_KLASS]] for p in ev)
            gm = " / ".join(median_g(S, [p for p in ev if S.I[p, K.P_CCOMM] > 0], w)
                            for w in (False, True))  # fmt: skip
            shares = "/".join(f"{cls[c] / max(len(ev), 1):.2f}" for c in FCS_CLASSES)
            print(f"  {role} | {len(ps)} | {len(ev)} | {shares} | {INTENDED[role]} | {gm}")
        print(f"  CPU {time.process_time() - t0:.1f} s")


if __name__ == "__main__":
    main()
