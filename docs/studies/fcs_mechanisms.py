"""The FCS paper's claims with and without each optional mechanism.

Runs the fcs spec's section 3 and 4 grids (the scenarios of its tables: balanced,
imbalanced, complementing, mixed on 8 PEs; SWEEP3D, SAGE and both on 16; FCFS, GS, SB and
FCS, with the spec's Linux 2.4 configuration) once per reading, on ``--seeds`` seeds
(20031110, 20031111, ...: the spec's first seed first), and judges the spec's claims on
each (:func:`cosched.experiments.claims.evaluate`). The dynamic workload's claims
(Figures 7-9) are left out of the tallies unless ``--loads`` runs the spec's dynamic
grids at the loads given (those of its sweep; Figure 9's at those of its own). A reading
is a comma-separated list of the cell's optional parameters (``noise_period``,
``noise_duration``, ``wake_cost``, ``comm_cost``, ``nic_bandwidth``, ``nodes``, ...;
docs/timesharing.md), as in ``docs/studies/dyncosched_mechanisms.py``; the first reading
is the baseline the others are compared with; a parameter prefixed ``s4:`` applies to
section 4's application pairs alone (``--reading s4:gs_switch=8e-3``).

    python docs/studies/fcs_mechanisms.py --reading "" \\
        --reading noise_period=0.001,noise_duration=1e-5 --save DIR
    python docs/studies/fcs_mechanisms.py --seeds 3 --loads 0.6 0.74 0.78 0.86 0.9 1.0 1.2

Prints, per reading, the claim tally, the end times of SB's and FCS's jobs in section
3.4 (the mixed set: the paper's SB ends job 3 last), and every claim whose verdict
differs from the baseline's. ``--save DIR`` writes each reading's claim table to
``DIR/<reading>.csv``; ``--tally BASE.csv OTHER.csv --fit PATTERN ...`` prints the two
saved tables' tallies with a reading's fit set (claim ids or patterns) left out of both.
``--copy NAME`` writes the last reading's claims, judged with the calibrations of the
study ``NAME`` (``cosched.experiments.calibration``: ``fcs-noise``, ``fcs-wake``,
``fcs-gang-switch``, ``fcs-overheads``), to
``docs/claims/NAME.csv`` with this command (a mechanism's copy, ``fcs-nic``, with the
reproduction's); without ``--loads`` it holds sections 3 and 4's claims only:

    python docs/studies/fcs_mechanisms.py --reading noise_period=0.001,noise_duration=1e-5 \\
        --copy fcs-noise
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import tomllib
from fnmatch import fnmatchcase
from importlib.resources import files
from pathlib import Path
from typing import Any

import pandas as pd

from cosched.experiments.calibration import CALIBRATIONS
from cosched.experiments.claims import agreement, evaluate
from cosched.experiments.model import CellEnv
from cosched.timesharing.fcs_claims import claims
from cosched.timesharing.fcs_experiment import run_cell

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dyncosched_mechanisms import compare, parse_reading

#: The spec's scenarios of sections 3 and 4 (the grids this study runs).
STATIC = ("balanced", "imbalanced", "complementing", "mixed", "sweep3d", "sage", "sage+sweep3d")


def spec_cells(loads: list[float] | None = None) -> list[dict[str, Any]]:
    """The fcs spec's section 3 and 4 grids, one dict of parameters per cell; with
    ``loads``, also its dynamic grids (Figures 7-9) at those of their loads."""
    spec = tomllib.loads(files("cosched.experiments.specs").joinpath("fcs.toml").read_text())
    cells = []
    for grid in spec["grid"]:
        scen = grid["scenario"]
        dynamic = not set(scen if isinstance(scen, list) else [scen]) <= set(STATIC)
        if dynamic and loads is None:
            continue
        fixed = {k: v for k, v in grid.items() if k != "seeds"}
        if dynamic:
            fixed["load"] = [x for x in fixed["load"] if x in (loads or [])]
        keys = list(fixed)
        values = [v if isinstance(v, list) else [v] for v in fixed.values()]
        for combo in itertools.product(*values):
            cells.append({**spec["params"], **dict(zip(keys, combo, strict=True))})
    return cells


#: Section 4's application pairs: a reading's ``s4:``-prefixed parameters apply to them
#: alone (``s4:gs_switch=8e-3``: the applications' gang switch, section 3's block keeping
#: the model's).
S4 = ("sweep3d", "sage", "sage+sweep3d")


def cell_reading(cell: dict[str, Any], reading: dict[str, float]) -> dict[str, float]:
    """The parameters of ``reading`` that apply to ``cell``, the ``s4:`` prefix dropped."""
    out = {}
    for key, value in reading.items():
        grid, _, name = key.rpartition(":")
        if grid not in ("", "s4"):
            raise SystemExit(f"--reading: {key!r} has an unknown grid prefix (only 's4:')")
        if grid == "" or cell["scenario"] in S4:
            out[name] = value
    return out


def run(reading: dict[str, float], seeds: list[int], loads: list[float] | None) -> pd.DataFrame:
    """Every cell under ``reading``: the results table the claims read."""
    rows = []
    env = CellEnv()
    for cell in spec_cells(loads):
        params = {**cell, **cell_reading(cell, reading)}
        for seed in seeds:
            out = run_cell(params, seed, env)
            rows.append({**params, "seed": seed, "status": "ok", **out})
    return pd.DataFrame(rows)


def mixed_order(results: pd.DataFrame) -> str:
    """Section 3.4's end times under SB and FCS (mean over seeds), job 1 / 2 / 3."""
    out = []
    for scheme in ("SB", "FCS"):
        r = results[(results["scenario"] == "mixed") & (results["scheme"] == scheme)]
        ends = [r[f"job{j}_end"].mean() for j in (1, 2, 3) if f"job{j}_end" in r]
        out.append(f"{scheme} " + " / ".join(f"{e:.1f}" for e in ends))
    return "; ".join(out)


def write_copy(name: str, results: pd.DataFrame, sections_only: bool) -> Path:
    """``docs/claims/NAME.csv``: the claims judged on ``results`` with the study
    ``name``'s calibrations, the command that ran them first (the copy's columns)."""
    # A study's copy is judged with its calibrations; a mechanism's (its parameters
    # stated, none fitted: cosched.timesharing.family) with the reproduction's.
    studies = {c.family for c in CALIBRATIONS}
    table = evaluate(claims(), results, name if name in studies else "fcs")
    if sections_only:
        table = table[table["claim"].str.startswith(("s3-", "s4-"))]
    command = " ".join(["python", "docs/studies/fcs_mechanisms.py", *sys.argv[1:]])
    table.insert(0, "command", command)
    table["judged"] = "when the study ran"
    out = Path(__file__).resolve().parents[1] / "claims" / f"{name}.csv"
    table.to_csv(out, index=False, float_format="%.6g", lineterminator="\n")
    return out


def held_out(base: pd.DataFrame, other: pd.DataFrame, fit: list[str]) -> None:
    """Print two claim tables' tallies with the claims of ``fit`` left out of both."""
    keep = [not any(fnmatchcase(str(c), p) for p in fit) for c in base["claim"]]
    out = other.set_index("claim").loc[base["claim"][keep]].reset_index()
    print(f"fit set: {len(keep) - sum(keep)} claims left out ({' '.join(fit) or 'none'})")
    print(f"without: {agreement(base[keep]).text()}")
    print(f"with: {agreement(out).text()}")


def main() -> None:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reading", action="append", default=None, help='e.g. "wake_cost=2e-5"')
    ap.add_argument("--seeds", type=int, default=1, help="seeds 20031110, 20031111, ...")
    ap.add_argument(
        "--loads",
        type=float,
        nargs="*",
        default=None,
        help="also the dynamic grids (Figures 7-9) at these of their loads",
    )
    ap.add_argument("--save", default=None, help="folder for each reading's claim table")
    ap.add_argument("--copy", default=None, metavar="NAME", help="a study's claim copy")
    ap.add_argument("--tally", nargs=2, default=None, metavar="CSV")
    ap.add_argument("--fit", nargs="*", default=[], help="fit-set patterns for --tally")
    args = ap.parse_args()
    if args.tally:
        base, other = (pd.read_csv(f) for f in args.tally)
        held_out(base, other, args.fit)
        return
    readings = args.reading if args.reading is not None else [""]
    seeds = [20031110 + k for k in range(args.seeds)]
    tables = {}
    for text in readings:
        t0 = time.process_time()
        results = run(parse_reading(text), seeds, args.loads)
        table = evaluate(claims(), results, "fcs")
        if args.loads is None:
            table = table[table["claim"].str.startswith(("s3-", "s4-"))]
        tables[text] = table
        if args.save:
            Path(args.save).mkdir(parents=True, exist_ok=True)
            table.to_csv(Path(args.save) / f"{text or 'none'}.csv", index=False)
        if args.copy and text == readings[-1]:
            print(f"wrote {write_copy(args.copy, results, args.loads is None)}")
        print(f"## reading: {text or 'none'}  ({time.process_time() - t0:.0f} s of CPU)")
        print(f"claims: {agreement(table).text()}")
        print(f"section 3.4 end times (s): {mixed_order(results)}")
        print(flush=True)
    for text in readings[1:]:
        compare(tables[readings[0]], tables[text], f"{readings[0] or 'none'} -> {text}")


if __name__ == "__main__":
    main()
