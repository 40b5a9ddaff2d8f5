"""docs/fidelity.md and the README's status column, generated from the stored claims.

Each reproduction's report carries its claim table in ``DIR/results.parquet`` (metadata
``claim_table``; also written as ``DIR/claims.parquet``: the paper's claims judged on
the stored results: :mod:`cosched.experiments.claims`). This script keeps a readable
copy of each as ``docs/claims/NAME.csv`` (with the command that produced the numbers),
re-judges a copy's numbers under the current declarations and verdict rule without a
new simulation (``--rejudge``), and writes from the copies docs/fidelity.md (per paper:
counts by verdict, the agreement figure, the calibrations with their held-out claims,
and each disagreement's cause: :mod:`cosched.experiments.fidelity`) and the status cell
of the reproduction's row in README.md's "What it does today" table.

    python scripts/readme_status.py --store lomarc=runs/lomarc --store coupled=runs/coupled
    python scripts/readme_status.py --quick-store lomarc=runs/lomarc-quick  # docs/claims/quick/
    python scripts/readme_status.py --rejudge fcs   # re-judge docs/claims/fcs.csv's numbers
    python scripts/readme_status.py            # rewrite docs/fidelity.md and README.md
    python scripts/readme_status.py --check    # exit 1 if either is not up to date
    python scripts/readme_status.py --held-out # each fitted parameter's held-out claims
    python scripts/readme_status.py --cells    # print the README status cells
"""

from __future__ import annotations

import argparse
import math
import sys
import tomllib
from pathlib import Path

import pandas as pd

from cosched.experiments.calibration import CALIBRATIONS
from cosched.experiments.claims import COLUMNS, agreement, rejudge
from cosched.experiments.fidelity import REJUDGED, fidelity_markdown, runs_of
from cosched.experiments.model import resolve
from cosched.experiments.reproductions import spec_text
from cosched.experiments.store import read_claims, read_results

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "docs" / "claims"
#: Copies of the quick runs' claim tables (``cosched reproduce NAME --quick``): docs/fidelity.md
#: lists the claims whose verdict a quick run gives differently from the table's run.
QUICK = CLAIMS / "quick"
FIDELITY = ROOT / "docs" / "fidelity.md"
#: Reproduction -> the module named first in its README row's "where" cell.
ROWS = {
    "lomarc": "`cosched.lomarc`",
    "nodeshare": "`cosched.nodeshare`",
    "dyncosched": "`cosched.timesharing`",
    "fcs": "`cosched.timesharing.fcs_experiment`",
    "coupled": "`cosched.coupled`",
}


def _write(frame: pd.DataFrame, name: str, folder: Path = CLAIMS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{name}.csv"
    frame.to_csv(out, index=False, float_format="%.6g", lineterminator="\n")
    return out


def read_copy(name: str, folder: Path = CLAIMS) -> pd.DataFrame:
    """``docs/claims/NAME.csv`` as written (empty cells are empty strings or NaN)."""
    frame = pd.read_csv(folder / f"{name}.csv", keep_default_na=False, na_values=[""])
    for col in ("reason", "quote", "unit", "tolerance", "judged"):
        frame[col] = frame[col].fillna("") if col in frame.columns else ""
    lines = frame["paper_line"] if "paper_line" in frame.columns else [math.nan] * len(frame)
    frame["paper_line"] = pd.Series(
        [None if pd.isna(v) else int(float(v)) for v in lines], index=frame.index, dtype=object
    )
    return frame


def copy_store(name: str, store: Path, folder: Path = CLAIMS) -> Path:
    """The claim table ``store/results.parquet`` carries to ``docs/claims/NAME.csv``
    (or ``folder``), with the command that produced the results."""
    if not (store / "results.parquet").is_file():
        sys.exit(f"readme_status: {store / 'results.parquet'} not found")
    frame = read_claims(store)
    if frame.empty:
        sys.exit(f"readme_status: {store / 'results.parquet'} carries no claim table: "
                 f"run `cosched report {store}` first")  # fmt: skip
    if list(frame.columns) != list(COLUMNS):
        sys.exit(f"readme_status: {store} holds an older claim table: run `cosched report "
                 f"{store}` to judge it again")  # fmt: skip
    _, meta = read_results(store)
    frame.insert(0, "command", meta.get("command", ""))
    frame["judged"] = "when the report was built"
    return _write(frame, name, folder)


def rejudge_copy(name: str) -> Path:
    """``docs/claims/NAME.csv`` judged again, from the numbers it holds, under the
    reproduction's current claim declarations and verdict rule."""
    path = CLAIMS / f"{name}.csv"
    if not path.is_file():
        sys.exit(f"readme_status: {path} not found")
    stored = read_copy(name)
    declared = resolve(tomllib.loads(spec_text(name))["claims"])()
    experiment = str(stored["experiment"].iloc[0]) if len(stored) else name
    frame = rejudge(declared, stored, experiment)
    frame.insert(0, "command", str(stored["command"].iloc[0]) if len(stored) else "")
    frame["judged"] = REJUDGED
    return _write(frame, name)


def status(name: str, frame: pd.DataFrame) -> str:
    """The status cell of one reproduction."""
    command = runs_of(frame)
    seeds = int(frame["seeds"].max()) if len(frame) else 0
    over = "1 seed" if seeds == 1 else f"up to {seeds} seeds"
    return (
        f"built and reproduced; of the paper's {len(frame)} declared claims "
        f"{agreement(frame).text()} ({command}, {over}; docs/fidelity.md)"
    )


def print_held_out(copies: dict[str, pd.DataFrame]) -> None:
    """Each registered calibration's fit set and held-out claims, as stored."""
    for fit in CALIBRATIONS:
        frame = copies.get(fit.family)
        if frame is None:
            continue
        print(f"{fit.family}: {fit.parameter} = {fit.value}")
        for r in frame.itertuples(index=False):
            role = "fit" if fit.fits(r.claim) else "held out" if fit.holds_out(r.claim) else ""
            if role:
                print(f"  {role:8} {r.claim}: paper {r.paper}, cosched {r.cosched:.4g} "
                      f"({r.seeds} seeds): {r.verdict}")  # fmt: skip
        held = frame[[fit.holds_out(c) for c in frame["claim"]]]
        print(f"  held out: {agreement(held).text()}")


def _where(line: str) -> str:
    """The first module of a "What it does today" row's second cell ('' otherwise)."""
    parts = line.split(" | ")
    if not line.startswith("| ") or len(parts) < 3:
        return ""
    return parts[1].split(" ")[0]


def tables() -> dict[str, pd.DataFrame]:
    """The stored claim copies, by reproduction (those that exist)."""
    return {name: read_copy(name) for name in ROWS if (CLAIMS / f"{name}.csv").is_file()}


def quick_tables() -> dict[str, pd.DataFrame]:
    """The stored copies of the quick runs' claim tables, by reproduction."""
    return {n: read_copy(n, QUICK) for n in ROWS if (QUICK / f"{n}.csv").is_file()}


def render(readme: str, copies: dict[str, pd.DataFrame]) -> str:
    """README.md with the status cell of every reproduction with a claims copy."""
    lines = readme.split("\n")
    for name, frame in copies.items():
        module = ROWS[name]
        hits = [i for i, line in enumerate(lines) if _where(line) in (module, module + ",")]
        if len(hits) != 1:
            sys.exit(f"readme_status: expected one README row for {module}, found {len(hits)}")
        parts = lines[hits[0]].split(" | ")
        parts[-1] = status(name, frame) + " |"
        lines[hits[0]] = " | ".join(parts)
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--quick-store", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--rejudge", action="append", default=[], metavar="NAME", choices=ROWS)
    ap.add_argument("--check", action="store_true", help="exit 1 if an output is stale")
    ap.add_argument("--cells", action="store_true", help="print the README status cells")
    ap.add_argument("--skip-readme", action="store_true", help="leave README.md as it is")
    ap.add_argument(
        "--held-out", action="store_true", help="print each fitted parameter's held-out claims"
    )
    args = ap.parse_args()
    for flag, items, into in (
        ("--store", args.store, CLAIMS),
        ("--quick-store", args.quick_store, QUICK),
    ):
        for item in items:
            name, sep, folder = item.partition("=")
            if not sep or name not in ROWS:
                sys.exit(f"readme_status: {flag} wants NAME=DIR with NAME in {', '.join(ROWS)}")
            print(f"wrote {copy_store(name, Path(folder), into).relative_to(ROOT)}")
    for name in args.rejudge:
        print(f"re-judged {rejudge_copy(name).relative_to(ROOT)}")
    copies = tables()
    if args.held_out:
        print_held_out(copies)
        return 0
    if args.cells:
        for name, frame in copies.items():
            print(f"{ROWS[name]}: {status(name, frame)}")
        return 0
    outputs = {FIDELITY: fidelity_markdown(copies, quick_tables())}
    if not args.skip_readme:
        outputs[ROOT / "README.md"] = render((ROOT / "README.md").read_text("utf-8"), copies)
    stale = [p for p, text in outputs.items() if not p.is_file() or p.read_text("utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run python scripts/readme_status.py")
        return 1 if stale else 0
    for path in stale:
        path.write_text(outputs[path], encoding="utf-8")
        print(f"updated {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
