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

``overheads`` fits the three overheads section 4 names (line 320: "Context-switch
overhead, interruptions to synchronous communication, cache flushing ... FCS suffers from
relatively high reclassification overhead, because of the high number of communication
events"), one per scheme on its SWEEP3D pair, in an order where no fit moves an earlier
one's cell: the wake-up cost (``wake_cost``) on SB's (GS never blocks and FCS is
fitted last), the gang switch (``gs_switch``, section 4 alone) on GS's (SB
has no gang switch), then with both fixed FCS's monitoring cost per synchronous
communication (``comm_cost``: ``TSParams.fcs_comm_cost``, sections 3-4) on FCS's; each
the grid value minimising |ln(cosched / paper)| of the turnaround (for FCS the same as
its per-job slowdown, 4.95%, over FCFS's 222 s). Prints the fits, the held-out cells of
sections 3-4 at the fitted values and at none, FCS's section 4 cells under each cost
alone and SWEEP3D's classes over the last grid (:func:`split`), and the
``fcs_mechanisms.py`` reading.
The wake-up cost and the gang switch apply to section 4's applications alone
(:data:`S4_ONLY`); ``--wake-everywhere``, the wake-up cost to section 3 as well:

    python docs/studies/fcs_held_out_fits.py overheads [--wake-everywhere]
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


#: The ``overheads`` fit: each parameter's grid and its one cell, in fit order.
OVERHEADS = (
    ("wake_cost", (0.0, 1e-4, 2e-4, 3e-4, 4e-4, 5e-4, 6e-4, 7e-4, 8e-4, 1e-3), ("sweep3d", "SB")),
    ("gs_switch", (2e-3, 4e-3, 6e-3, 8e-3, 1e-2, 1.2e-2), ("sweep3d", "GS")),
    ("comm_cost", (0.0, 1e-5, 2e-5, 3e-5, 4e-5, 5e-5, 6e-5, 8e-5, 1e-4), ("sweep3d", "FCS")),
)


#: The ``overheads`` parameters that apply to section 4's applications alone, where line
#: 320 names them with their working sets ("cache flushing"; 270 and 335 MB a process,
#: lines 310 and 324); FCS's classification cost applies to both sections (line 244
#: names it in section 3.1). ``--wake-everywhere`` applies the wake-up cost to both.
S4_ONLY = ("wake_cost", "gs_switch")


def overheads(nodes: int, wake_everywhere: bool) -> None:
    """The three overheads fitted one after another, then held out together."""
    s4_only = ("gs_switch",) if wake_everywhere else S4_ONLY
    t0 = time.process_time()
    fitted: dict[str, float] = {}
    for name, grid, cell in OVERHEADS:
        scores = {}
        for value in grid:
            print(f"{name} = {value:g} s ({', '.join(f'{k} {v:g}' for k, v in fitted.items())}):")
            scores[value] = score([cell], {**fitted, name: value}, 8)
        fitted[name] = min(scores, key=lambda v: (scores[v], v))
        print(f"fitted {name} = {fitted[name]:g} s (score {scores[fitted[name]]:.4f}); "
              f"{time.process_time() - t0:.1f} CPU s", flush=True)  # fmt: skip
    fit_cells = {cell for _, _, cell in OVERHEADS}
    # GS's section 3 has none of the three (its gang switch stays 2 ms there)
    held = [c for c in PAPER if c not in fit_cells and (c[0] in S4 or c[1] != "GS")]
    for label, reading in (("none", {}), ("fitted", fitted)):
        print(f"held out, {label}:", flush=True)
        s3 = {k: v for k, v in reading.items() if k not in s4_only}
        a = score([c for c in held if c[0] not in S4], s3, nodes)
        b = score([c for c in held if c[0] in S4], reading, nodes)
        print(f"  held-out score: section 3 {a:.4f}, section 4 {b:.4f}", flush=True)
    split(fitted)
    text = ",".join(f"{'s4:' if k in s4_only else ''}{k}={v:g}" for k, v in fitted.items())
    print(f"reading: {text}; {time.process_time() - t0:.1f} CPU s in all")


def split(fitted: dict[str, float]) -> None:
    """FCS's section 4 cells under each fitted cost alone (with the gang switch), and
    SWEEP3D's classes over the ``comm_cost`` grid: job ends and the processes' final
    classes (CS / F / DC)."""
    base = {**SPEC, "scheme": "FCS", "quantum": 0.2, "nodes": 16, "gs_switch": fitted["gs_switch"]}
    runs = [("sage", {}), ("sage", {"wake_cost": fitted["wake_cost"]})]
    runs += [("sage", {"comm_cost": fitted["comm_cost"]}), ("sage", fitted)]
    runs += [("sage+sweep3d", r) for _, r in runs[:4]]
    wake = fitted["wake_cost"]
    runs += [("sweep3d", {"wake_cost": wake, "comm_cost": c}) for c in OVERHEADS[2][1]]
    print("FCS, each cost alone (gang switch fitted):", flush=True)
    for scenario, reading in runs:
        out = run_cell({**base, "scenario": scenario, **reading}, 20031110, CellEnv())
        shown = ", ".join(f"{k} {v:g}" for k, v in reading.items() if k != "gs_switch")
        print(f"  {scenario} ({shown or 'neither'}): {out['job1_end']:.1f} / "
              f"{out['job2_end']:.1f} s; classes {out['procs_cs']:g} / {out['procs_f']:g} / "
              f"{out['procs_dc']:g}", flush=True)  # fmt: skip


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
    ap.add_argument("parameter", choices=sorted([*FITS, "overheads"]))
    ap.add_argument("--nodes", type=int, nargs="*", default=[8])
    ap.add_argument("--table5", action="store_true")
    ap.add_argument("--wake-everywhere", action="store_true", help="overheads: also section 3")
    ap.add_argument("--scenarios", nargs="*", help="held-out scenarios (default: all)")
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--schemes", nargs="*", default=["SB", "DCS-SB", "PB-SB"])
    ap.add_argument("--values", type=float, nargs="*", help="the grid (default: built in)")
    args = ap.parse_args()
    if args.parameter == "overheads":
        overheads(args.nodes[0] if args.nodes else 8, args.wake_everywhere)
        return
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
