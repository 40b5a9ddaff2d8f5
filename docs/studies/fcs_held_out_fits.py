"""FCS's fitted machine costs, each fitted on a declared subset and tested on the rest.

Two fits over the fcs spec's sections 3-4 configuration (Linux 2.4 at HZ 4096, one run
queue per four-way node, the imbalance on alternating nodes, F processes favoured
everywhere: docs/timesharing-fidelity.md, "Alternating nodes and F processes favoured
everywhere"), each scored by the mean over jobs of |ln(cosched / paper)| (per-job end
times in section 3, the turnaround in section 4):

* ``context_switch``: the local context switch, fitted on sections 3.1-3.2 under SB and
  FCS (GS and FCFS do not use it) and held out on 3.3-3.4 and section 4;
* ``gs_switch``: the gang switch of section 4's applications (their working sets
  reloaded after each switch), fitted on GS's SWEEP3D pair only, held out on GS's SAGE
  and SAGE + SWEEP3D and on FCS's three pairs (section 4's grid alone: section 3's
  synthetic block keeps the model's 2 ms);
* ``wake_cost``: the wake-up cost of a block (``TSParams.wake_cost``), fitted on SB's
  section 3.1 and SWEEP3D pair only, held out on SB and FCS in 3.2-3.4 and section 4,
  and on the dynamic coscheduling paper's Table 5 (``--table5``: its blocking schemes
  on WL5 at MPL 5, each cost variant over the default costs, ``--jobs`` jobs, one
  seed) and at the paper's 128 PEs (``--nodes 128``).

    python docs/studies/fcs_held_out_fits.py context_switch
    python docs/studies/fcs_held_out_fits.py gs_switch
    python docs/studies/fcs_held_out_fits.py wake_cost [--table5] [--nodes 8 128]
        [--values ...] [--scenarios ...] [--schemes SB DCS-SB PB-SB] [--jobs 300]

``--nodes`` with no value skips the held-out cells (Table 5 alone, with ``--table5``).
"""

from __future__ import annotations

import argparse
import math
import time

from fcs_linux_local import PAPER as LINUX_PAPER  # this script's folder is first on sys.path

from cosched.experiments.model import CellEnv
from cosched.timesharing.fcs_experiment import run_cell

#: The paper's end times (s) per scenario and scheme (sections 3.1-3.4; section 4's
#: turnaround), SB, FCS and GS: the table fcs_linux_local.py holds.
PAPER = {k: v for k, v in LINUX_PAPER.items() if k[1] in ("SB", "FCS", "GS")}
S4 = ("sweep3d", "sage", "sage+sweep3d")
#: The fcs spec's sections 3-4 grids (specs/fcs.toml), the fitted value aside.
SPEC = {"nodes": 8, "job_time": 60.0, "grain": 0.001, "quantum": 0.1, "cslots_min": 20,
        "topology": "ring", "local": "linux24", "linux_hz": 4096, "linux_smp": 4,
        "linux_wake_preempt": 0, "block": 4, "f_all": 1, "f_preempt": 1,
        "context_switch": 5e-5}  # fmt: skip
FITS = {
    "context_switch": {
        "grid": (1e-5, 2e-5, 5e-5, 1e-4, 2e-4),
        "fit": [(s, k) for s in ("balanced", "imbalanced") for k in ("SB", "FCS")],
        "held": [(s, k) for s in ("complementing", "mixed", *S4) for k in ("SB", "FCS")],
    },
    "wake_cost": {
        "grid": (0.0, 5e-5, 1e-4, 2e-4, 2.5e-4, 3e-4, 3.5e-4, 4e-4, 5e-4, 6e-4),
        "fit": [("balanced", "SB"), ("sweep3d", "SB")],
        "held": [("balanced", "FCS")]
        + [(s, k) for s in ("imbalanced", "complementing", "mixed") for k in ("SB", "FCS")]
        + [("sweep3d", "FCS"), ("sage", "SB"), ("sage", "FCS")]
        + [("sage+sweep3d", "SB"), ("sage+sweep3d", "FCS")],
    },
    # the gang switch of section 4's applications (a working set reloaded at each switch:
    # "because of the applications' large working set ... a time slice of 200 ms to
    # amortize some of the context-switching cost", line 304), on section 4's grid only
    "gs_switch": {
        "grid": (2e-3, 4e-3, 6e-3, 8e-3, 1e-2, 1.2e-2),
        "fit": [("sweep3d", "GS")],
        "default": 2e-3,  # TSParams.gs_context_switch
        "held": [("sage", "GS"), ("sage+sweep3d", "GS")] + [(s, "FCS") for s in S4],
    },
}


def ends(scenario: str, scheme: str, reading: dict[str, float], nodes: int) -> list[float]:
    """cosched's end times (section 4: the turnaround) of one cell, in the paper's terms."""
    params = {**SPEC, "scenario": scenario, "scheme": scheme, **reading}
    if scenario in S4:  # the spec's section 4 on 16 PEs; the paper's on 128
        params.update(quantum=0.2, nodes=nodes if nodes > 8 else 16)
    else:
        params["nodes"] = nodes
    out = run_cell(params, 20031110, CellEnv())
    if scenario in S4:
        return [out["turnaround"]]
    return [out[f"job{k}_end"] for k in (1, 2, 3) if not math.isnan(out[f"job{k}_end"])]


def score(cells: list[tuple[str, str]], reading: dict[str, float], nodes: int) -> float:
    """Mean |ln(cosched / paper)| over the cells' jobs, printing each cell."""
    errs: list[float] = []
    for scenario, scheme in cells:
        got = ends(scenario, scheme, reading, nodes)
        paper = PAPER[(scenario, scheme)]
        errs += [abs(math.log(g / p)) for g, p in zip(got, paper, strict=True)]
        shown = " / ".join(f"{g:.1f}" for g in got)
        print(f"  {scenario} {scheme}: {shown} (paper {' / '.join(map(str, paper))})")
    return sum(errs) / len(errs)


def table5(wake: float, jobs: int, schemes: list[str]) -> None:
    """The dynamic coscheduling paper's Table 5 for its blocking schemes, at ``wake``."""
    from cosched.timesharing.experiment import run_cell as dyn_cell
    from cosched.timesharing.report import PAPER_TABLE5

    base = {"workload": "WL5", "load": 1.0, "skew": 0.2, "mpl": 5, "n_jobs": jobs,
            "msg_factor": 1, "wake_cost": wake}  # fmt: skip
    for scheme in schemes:
        resp = {
            v: dyn_cell({**base, "scheme": scheme, "variant": v}, 20020601, CellEnv())[
                "mean_response"
            ]
            for v in ("", "CS=100us, I=25us", "CS=100us, I=50us")
        }
        ratios = [resp[v] / resp[""] for v in ("CS=100us, I=25us", "CS=100us, I=50us")]
        paper = PAPER_TABLE5[scheme][1:]
        print(f"  Table 5 {scheme} (wake {wake * 1e6:g} us): normalised response "
              f"{ratios[0]:.3f} / {ratios[1]:.3f} (paper {paper[0]} / {paper[1]})",
              flush=True)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parameter", choices=sorted(FITS))
    ap.add_argument("--nodes", type=int, nargs="*", default=[8])
    ap.add_argument("--table5", action="store_true")
    ap.add_argument("--scenarios", nargs="*", help="held-out scenarios (default: all)")
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--schemes", nargs="*", default=["SB", "DCS-SB", "PB-SB"])
    ap.add_argument("--values", type=float, nargs="*", help="the grid (default: built in)")
    args = ap.parse_args()
    fit = FITS[args.parameter]
    t0 = time.process_time()
    scores = {}
    for value in args.values or fit["grid"]:
        print(f"{args.parameter} = {value:g} s, fit set:", flush=True)
        scores[value] = score(fit["fit"], {args.parameter: value}, 8)  # type: ignore[arg-type]
        print(f"  fit score {scores[value]:.4f}", flush=True)
    best = min(scores, key=lambda v: (scores[v], v))
    print(f"\nfitted {args.parameter} = {best:g} s (fit score {scores[best]:.4f}); "
          f"{time.process_time() - t0:.1f} CPU s", flush=True)  # fmt: skip
    default = fit.get("default", SPEC.get(args.parameter, 0.0))
    for value in sorted({best, float(default)}):  # type: ignore[arg-type]
        for nodes in args.nodes:
            print(f"held out at {args.parameter} = {value:g} s, {nodes} PEs:", flush=True)
            cells = [c for c in fit["held"] if c[0] in (args.scenarios or [c[0]])]  # type: ignore[index]
            held = score(cells, {args.parameter: value}, nodes)
            print(f"  held-out score {held:.4f}; {time.process_time() - t0:.1f} CPU s")
        if args.table5:
            table5(value, args.jobs, args.schemes)
    print(f"{time.process_time() - t0:.1f} CPU s in all")


if __name__ == "__main__":
    main()
