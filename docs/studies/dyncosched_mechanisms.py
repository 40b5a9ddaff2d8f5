"""The dynamic coscheduling paper's claims with and without each optional mechanism.

Runs the dyncosched spec's quick grid (every claim has a cell: Figure 3's loads 0.6 /
1.2 / 1.8, Figure 4, Table 4's MPL 2 and 16, Figure 5, Table 5) once per reading, on
``--seeds`` seeds of ``--jobs`` jobs, and judges the spec's claims on each
(:func:`cosched.experiments.claims.evaluate`). A reading is a comma-separated list of
the cell's optional parameters (``nic_bandwidth``, ``noise_period``,
``noise_duration``, ``wake_cost``, ``io_holds_cpu``, ``time_scale``; docs/timesharing.md;
and Table 3's costs, ``context_switch=0`` and the like, for attribution); the first
reading is the baseline the others are compared with; ``""`` is the spec's own cells,
with contention at the interface (its ``nic_bandwidth``), and ``nic_bandwidth=0`` turns
it off. No reading's value is fitted here: each is stated by a paper or the literature
(docs/timesharing.md gives the source), or is a cost set to 0 to measure its share, a
counterfactual never counted as agreement.

    python docs/studies/dyncosched_mechanisms.py --seeds 1 --jobs 300 \\
        --reading nic_bandwidth=0 --reading ""

Prints, per reading, the claim tally, Figure 3's ceilings (each scheme's highest
``compute_share``, in %), Figure 4's mean responses, and every claim whose verdict
differs from the baseline's. ``--only`` restricts the grid to cells of some workloads
(a quicker look; claims on cells not run are "not run"), ``--figures`` to Figures 3
and 4's cells (MPL 5, s = 20%, the paper's costs). ``--save DIR`` writes each reading's
claim table to ``DIR/<reading>.csv`` and its results to ``DIR/<reading>-results.csv``;
``--compare A.csv B.csv`` prints the verdicts that differ between two saved tables
(readings run in separate processes). ``--copy NAME`` writes the last reading's claims
as the mechanism's copy ``docs/claims/NAME.csv`` (a ``Reading`` of
``cosched.timesharing.family``), shown in docs/fidelity.md.

A run split by seed (``--seeds 1 --first-seed S --save DIR/S``, one process per seed)
and judged together (``--judge DIR/* --reading R``) gives the table of one run over
the same seeds, number for number: each cell of a seed reads that seed only.

``--full`` runs the spec's full grid instead (Figure 3's nine loads), ``--loads`` only
some loads. The reproduction's claim table, Figure 3 from its own three seeds of the
full load sweep and the other claims at 20 seeds (``docs/claims/dyncosched.csv``)::

    python docs/studies/dyncosched_mechanisms.py --full --only WL7 --seeds 3 \
        --jobs 1000 --reading "" --save SWEEP
    python docs/studies/dyncosched_mechanisms.py --judge DIR/* --sweep SWEEP \
        --jobs 1000 --reading "" --copy dyncosched
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import tomllib
from importlib.resources import files
from pathlib import Path
from typing import Any

import pandas as pd

from cosched.experiments.claims import agreement, evaluate
from cosched.experiments.model import CellEnv
from cosched.timesharing.claims import FIG3_METRIC, claims
from cosched.timesharing.experiment import run_cell


def quick_cells(full: bool = False) -> list[dict[str, Any]]:
    """The dyncosched spec's quick grid (``full``: its full grid, Figure 3's nine loads),
    one dict of parameters per cell."""
    spec = tomllib.loads(files("cosched.experiments.specs").joinpath("dyncosched.toml").read_text())
    base = {**spec["params"], **({} if full else spec["quick"]["params"])}
    cells = []
    for grid in spec["grid"] if full else spec["quick"]["grid"]:
        keys = list(grid)
        values = [v if isinstance(v, list) else [v] for v in grid.values()]
        for combo in itertools.product(*values):
            cells.append({**base, **dict(zip(keys, combo, strict=True))})
    return cells


def parse_reading(text: str) -> dict[str, float | str]:
    """``"a=1,b=2,c=x"`` as ``{"a": 1.0, "b": 2.0, "c": "x"}`` (``""``: no reading; a
    value that is not a number, such as ``useful=compute``, stays a string)."""
    out: dict[str, float | str] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, _, value = item.partition("=")
        try:
            out[name] = float(value)
        except ValueError:
            out[name] = value
    return out


def figures_3_4(cell: dict[str, Any]) -> bool:
    """Is ``cell`` one of Figures 3 and 4 (MPL 5, s = 20%, the paper's costs)?"""
    return cell["mpl"] == 5 and cell["skew"] == 0.2 and not cell.get("variant", "")


def run(
    reading: dict[str, float | str],
    seeds: list[int],
    jobs: int,
    only: set[str],
    figs: bool = False,
    full: bool = False,
    loads: set[float] | None = None,
) -> pd.DataFrame:
    """Every quick cell (``full``: every cell of the full grid) under ``reading``
    (``figs``: Figures 3 and 4's only; ``loads``: those loads only): the results table
    the claims read."""
    rows = []
    env = CellEnv()
    for cell in quick_cells(full):
        if (only and cell["workload"] not in only) or (figs and not figures_3_4(cell)):
            continue
        if loads and float(cell["load"]) not in loads:
            continue
        params = {**cell, "n_jobs": jobs, **reading}
        for seed in seeds:
            out = run_cell(params, seed, env)
            rows.append({**params, "seed": seed, "status": "ok", **out})  # what ran
    return pd.DataFrame(rows)


def ceilings(results: pd.DataFrame) -> dict[str, float]:
    """Figure 3: each scheme's highest mean (over seeds) compute share on WL7, in %."""
    r = results[(results["workload"] == "WL7") & (results["mpl"] == 5)]
    if r.empty:
        return {}
    by = r.groupby(["scheme", "load"])[FIG3_METRIC].mean().groupby("scheme").max()
    return {str(k): 100.0 * float(v) for k, v in by.sort_values(ascending=False).items()}


def figure4(results: pd.DataFrame) -> dict[str, list[tuple[str, float]]]:
    """Figure 4: each workload's mean response (over seeds) by scheme at load 1, MPL 5,
    s = 20%, the paper's costs, fastest first."""
    r = results[[figures_3_4(c) for c in results.to_dict("records")]]
    r = r[r["workload"].isin(["WL2", "WL3", "WL4", "WL5"])]
    out = {}
    for wl, g in r.groupby("workload"):
        by = g.groupby("scheme")["mean_response"].mean().sort_values()
        out[str(wl)] = [(str(k), float(v)) for k, v in by.items()]
    return out


def _fmt(v: object) -> str:
    """A number to 3 significant digits; anything else as it is."""
    return f"{v:.3g}" if isinstance(v, int | float) else str(v)


def compare(base: pd.DataFrame, other: pd.DataFrame, title: str) -> None:
    """Print the claims whose verdict differs between two claim tables."""
    b_all, o_all = base.set_index("claim"), other.set_index("claim")
    changed = b_all.index[b_all["verdict"] != o_all.loc[b_all.index, "verdict"]]
    print(f"## verdicts that change: {title}")
    print("| claim | paper | without | with | verdict without | verdict with |")
    print("|---|---|---|---|---|---|")
    for cid in changed:
        b, o = b_all.loc[cid], o_all.loc[cid]
        print(
            f"| {cid} | {_fmt(b['paper'])} | {_fmt(b['cosched'])} | {_fmt(o['cosched'])} "
            f"| {b['verdict']} | {o['verdict']} |"
        )
    print()


def summary(title: str, table: pd.DataFrame, results: pd.DataFrame) -> None:
    """Print a reading's claim tally, Figure 3's ceilings and Figure 4's responses."""
    print(f"## reading: {title}")
    print(f"claims: {agreement(table).text()}")
    ceil = ceilings(results)
    if ceil:
        print("Figure 3 ceilings (%): " + ", ".join(f"{k} {v:.1f}" for k, v in ceil.items()))
    for wl, resp in figure4(results).items():
        print(f"Figure 4 {wl} mean response: " + ", ".join(f"{k} {v:.3g}" for k, v in resp))


def write_copy(
    name: str, table: pd.DataFrame, command: str | list[str], keep: Path | None = None
) -> Path:
    """``docs/claims/NAME.csv``: a claim copy, ``command`` (or each row's) first.

    ``keep``: a claim copy whose rows (with their own commands) stand for the claims
    this run did not run ("not run": their cells were left out with ``--only``); for a
    reading that cannot move them, so that the copy is whole without rerunning them."""
    table = table.copy()
    table.insert(0, "command", command)
    if keep is not None:
        kept = pd.read_csv(keep).set_index("claim")
        idle = table["verdict"] == "not run"
        missing = sorted(set(table.loc[idle, "claim"]) - set(kept.index))
        if missing:
            raise SystemExit(f"{keep}: no row for claim {missing[0]} (--keep)")
        rows = kept.loc[table.loc[idle, "claim"]].reset_index()[list(table.columns)]
        table = pd.concat([table[~idle], rows], ignore_index=True)
        order = {c: k for k, c in enumerate(kept.index)}
        table = table.sort_values("claim", key=lambda c: c.map(order)).reset_index(drop=True)
    table["judged"] = "when the study ran"
    out = Path(__file__).resolve().parents[1] / "claims" / f"{name}.csv"
    table.to_csv(out, index=False, float_format="%.6g", lineterminator="\n")
    return out


def _saved(dirs: list[Path], label: str) -> pd.DataFrame:
    """The results a reading's runs saved (``--save``) in ``dirs``, together."""
    parts = [pd.read_csv(d / f"{label}-results.csv") for d in dirs]
    results = pd.concat([p for p in parts if not p.empty], ignore_index=True)
    results["variant"] = results["variant"].astype(object).fillna("")
    return results


def _command(text: str, results: pd.DataFrame, jobs: int, extra: str = "") -> str:
    """The one run that gives ``results`` (runs split by seed, judged together)."""
    seeds = sorted(results["seed"].unique())
    return (
        f"python docs/studies/dyncosched_mechanisms.py {extra}--jobs {jobs} --seeds "
        f"{len(seeds)} --first-seed {int(min(seeds))} --reading {text}"
    )


def _selection(results: pd.DataFrame) -> str:
    """The ``--full`` / ``--only`` options of a run that gives ``results``' cells
    (``""`` for the quick grid of every workload)."""
    wls = sorted(set(results["workload"]))
    only = "" if len(wls) == 5 else f"--only {' '.join(wls)} "
    wl7 = results[results["workload"] == "WL7"]
    return ("--full " if wl7["load"].nunique() > 3 else "") + only


def judge(
    readings: list[str],
    dirs: list[Path],
    save: str | None,
    copy: str | None,
    jobs: int,
    sweep: list[Path] | None = None,
    keep: Path | None = None,
) -> None:
    """Judge each reading on the results saved in ``dirs`` together (runs split by seed
    across processes), print as a run does, and write the claim table to ``save``.
    ``sweep``: Figure 3's claims read the WL7 cells saved there instead (the full grid's
    nine loads, ``--full --only WL7``), the other claims ``dirs``' other cells: the
    reproduction's claim table, its Figure 3 from its own seeds, the rest at 20."""
    tables = {}
    for text in readings:
        label = text or "none"
        results = own = _saved(dirs, label)
        if sweep:
            fig3 = _saved(sweep, label)
            results = pd.concat(
                [results[results["workload"] != "WL7"], fig3[fig3["workload"] == "WL7"]],
                ignore_index=True,
            )
        table = evaluate(claims(), results, "dyncosched")
        tables[text] = table
        seeds = sorted(results["seed"].unique())
        summary(f"{label}  ({len(seeds)} seeds)", table, results)
        if save:
            Path(save).mkdir(parents=True, exist_ok=True)
            table.to_csv(Path(save) / f"{label}.csv", index=False)
        if copy and text == readings[-1]:
            others = own[own["workload"] != "WL7"]
            rest = _command(text, others if len(others) else own, jobs, _selection(own))
            if sweep:
                wl7 = results[results["workload"] == "WL7"]
                figure3 = _command(text, wl7, jobs, "--full --only WL7 ")
                command: str | list[str] = [
                    figure3 if c.startswith("fig3-") else rest for c in table["claim"]
                ]
            else:
                command = f"{rest} --copy {copy}"
            print(f"wrote {write_copy(copy, table, command, keep)}")
        print(flush=True)
    for text in readings[1:]:
        compare(tables[readings[0]], tables[text], f"{readings[0] or 'none'} -> {text}")


def main() -> None:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reading", action="append", default=None, help='e.g. "nic_bandwidth=..."')
    ap.add_argument("--seeds", type=int, default=1, help="seeds 20020601, 20020602, ...")
    ap.add_argument(
        "--first-seed", type=int, default=20020601, help="the first of the --seeds seeds"
    )
    ap.add_argument(
        "--judge",
        nargs="+",
        default=None,
        metavar="DIR",
        help="judge the results saved (--save) in these folders together, per reading",
    )
    ap.add_argument("--jobs", type=int, default=300)
    ap.add_argument("--only", nargs="*", default=[], help="workloads to run (default all)")
    ap.add_argument("--figures", action="store_true", help="Figures 3 and 4's cells only")
    ap.add_argument(
        "--full", action="store_true", help="the spec's full grid (Figure 3's nine loads)"
    )
    ap.add_argument("--loads", nargs="*", type=float, default=[], help="these loads only")
    ap.add_argument(
        "--save", default=None, help="folder for each reading's claim table and results"
    )
    ap.add_argument(
        "--sweep",
        nargs="+",
        default=None,
        metavar="DIR",
        help="with --judge: Figure 3's claims from the WL7 cells saved in these folders",
    )
    ap.add_argument("--compare", nargs=2, default=None, metavar="CSV")
    ap.add_argument("--copy", default=None, metavar="NAME", help="a mechanism's claim copy")
    ap.add_argument(
        "--keep",
        default=None,
        metavar="CSV",
        help="with --copy: the rows of this claim copy for the claims not run",
    )
    args = ap.parse_args()
    if args.compare:
        a, b = (pd.read_csv(f) for f in args.compare)
        compare(a, b, f"{args.compare[0]} -> {args.compare[1]}")
        return
    readings = args.reading if args.reading is not None else [""]
    if args.judge:
        sweep = [Path(d) for d in args.sweep] if args.sweep else None
        keep = Path(args.keep) if args.keep else None
        judge(readings, [Path(d) for d in args.judge], args.save, args.copy, args.jobs, sweep, keep)
        return
    seeds = [args.first_seed + k for k in range(args.seeds)]
    tables = {}
    for text in readings:
        t0 = time.process_time()
        results = run(
            parse_reading(text),
            seeds,
            args.jobs,
            set(args.only),
            args.figures,
            args.full,
            set(args.loads),
        )
        table = evaluate(claims(), results, "dyncosched")
        tables[text] = table
        if args.save:
            Path(args.save).mkdir(parents=True, exist_ok=True)
            table.to_csv(Path(args.save) / f"{text or 'none'}.csv", index=False)
            results.to_csv(Path(args.save) / f"{text or 'none'}-results.csv", index=False)
        label = text or "none"
        if args.copy and text == readings[-1]:
            command = " ".join(["python", "docs/studies/dyncosched_mechanisms.py", *sys.argv[1:]])
            keep = Path(args.keep) if args.keep else None
            print(f"wrote {write_copy(args.copy, table, command, keep)}")
        summary(f"{label}  ({time.process_time() - t0:.0f} s of CPU)", table, results)
        print(flush=True)
    for text in readings[1:]:
        compare(tables[readings[0]], tables[text], f"{readings[0] or 'none'} -> {text}")


if __name__ == "__main__":
    main()
