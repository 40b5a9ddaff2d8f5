"""docs/fidelity.md and the README's status column, generated from the stored claims.

Each reproduction's report carries its claim table in ``DIR/results.parquet`` (metadata
``claim_table``; also written as ``DIR/claims.parquet``: the paper's claims judged on
the stored results: :mod:`cosched.experiments.claims`). This script keeps a readable
copy of each as ``docs/claims/NAME.csv`` (with the command that produced the numbers)
and:

* re-judges a copy's numbers under the current declarations and verdict rule without a
  new simulation (``--rejudge``);
* fills in a copy's claims that hold no number (declared after the copy's run) from a
  run of part of its grid, keeping each row's command (``--update``; the run's spec must
  hold every cell such a claim reads; rows with numbers are kept, only re-judged);
* records the verdicts that differ from the copies at a git revision
  (``--changes-from``: ``docs/claims/verdict-changes.csv``);
* writes from the copies docs/fidelity.md (per paper: counts by verdict, the agreement
  figure, the calibrations with their held-out claims, each disagreement's cause, the
  recorded verdict changes: :mod:`cosched.experiments.fidelity`), the status cell of the
  reproduction's row in README.md's "What it does today" table, and every generated
  count block of the pages in docs/ (``<!-- claims NAME [PATTERN...] -->`` ...
  ``<!-- /claims -->``).

    python scripts/readme_status.py --store lomarc=runs/lomarc --store coupled=runs/coupled
    python scripts/readme_status.py --quick-store lomarc=runs/lomarc-quick  # docs/claims/quick/
    python scripts/readme_status.py --rejudge fcs   # re-judge docs/claims/fcs.csv's numbers
    python scripts/readme_status.py --update fcs=runs/fcs-update  # rows a partial run judged
    python scripts/readme_status.py --changes-from main  # verdicts changed since main
    python scripts/readme_status.py            # rewrite docs/fidelity.md and README.md
    python scripts/readme_status.py --check    # exit 1 if either is not up to date
    python scripts/readme_status.py --held-out # each fitted parameter's held-out claims
    python scripts/readme_status.py --cells    # print the README status cells
"""

from __future__ import annotations

import argparse
import io
import math
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from cosched.experiments.calibration import CALIBRATIONS, kept_fit
from cosched.experiments.claims import COLUMNS, agreement, rejudge
from cosched.experiments.fidelity import (
    REJUDGED,
    fidelity_markdown,
    render_blocks,
    runs_of,
    studies_of,
    verdict_changes,
)
from cosched.experiments.model import resolve
from cosched.experiments.reproductions import spec_text
from cosched.experiments.store import read_claims, read_results
from cosched.families import readings

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "docs" / "claims"
#: Copies of the quick runs' claim tables (``cosched reproduce NAME --quick``): docs/fidelity.md
#: lists the claims whose verdict a quick run gives differently from the table's run.
QUICK = CLAIMS / "quick"
FIDELITY = ROOT / "docs" / "fidelity.md"
#: The verdicts that differ from the copies at a revision (``--changes-from``).
CHANGES = CLAIMS / "verdict-changes.csv"
#: Reproduction -> the module named first in its README row's "where" cell.
ROWS = {
    "lomarc": "`cosched.lomarc`",
    "nodeshare": "`cosched.nodeshare`",
    "dyncosched": "`cosched.timesharing`",
    "fcs": "`cosched.timesharing.fcs_experiment`",
    "coupled": "`cosched.coupled`",
}
#: Calibrated study -> the reproduction whose claims judge it (its copy is
#: ``docs/claims/<study>.csv``; docs/fidelity.md shows its held-out claims beside the
#: reproduction's).
STUDIES = {c.family: paper for paper in ROWS for c in studies_of(paper)}


def paper_of(name: str) -> str:
    """The reproduction whose claim declarations judge copy ``name``."""
    return STUDIES.get(name, name)


def _write(frame: pd.DataFrame, name: str, folder: Path = CLAIMS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{name}.csv"
    frame.to_csv(out, index=False, float_format="%.6g", lineterminator="\n")
    return out


def read_copy(name: str, folder: Path = CLAIMS, text: str | None = None) -> pd.DataFrame:
    """``docs/claims/NAME.csv`` as written (empty cells are empty strings or NaN), or
    the CSV ``text`` (a copy at another revision)."""
    source = io.StringIO(text) if text is not None else folder / f"{name}.csv"
    frame = pd.read_csv(source, keep_default_na=False, na_values=[""])
    for col in ("reason", "quote", "unit", "tolerance", "judged"):
        frame[col] = frame[col].fillna("") if col in frame.columns else ""
    lines = frame["paper_line"] if "paper_line" in frame.columns else [math.nan] * len(frame)
    frame["paper_line"] = pd.Series(
        [None if pd.isna(v) else int(float(v)) for v in lines], index=frame.index, dtype=object
    )
    return frame


def _store_claims(store: Path) -> pd.DataFrame:
    """The claim table ``store/results.parquet`` carries (exits if there is none)."""
    if not (store / "results.parquet").is_file():
        sys.exit(f"readme_status: {store / 'results.parquet'} not found")
    frame = read_claims(store)
    if frame.empty:
        sys.exit(f"readme_status: {store / 'results.parquet'} carries no claim table: "
                 f"run `cosched report {store}` first")  # fmt: skip
    return frame


def copy_store(name: str, store: Path, folder: Path = CLAIMS) -> Path:
    """The claim table ``store/results.parquet`` carries to ``docs/claims/NAME.csv``
    (or ``folder``), with the command that produced the results."""
    frame = _store_claims(store)
    if list(frame.columns) != list(COLUMNS):
        sys.exit(f"readme_status: {store} holds an older claim table: run `cosched report "
                 f"{store}` to judge it again")  # fmt: skip
    _, meta = read_results(store)
    judged = "when the report was built"
    if name in STUDIES:
        frame, judged = as_study(name, frame), REJUDGED
    frame.insert(0, "command", meta.get("command", ""))
    frame["judged"] = judged
    return _write(frame, name, folder)


def as_study(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """A claim table of study ``name``'s runs judged as the study: its fit set
    *calibrated*, and the reproduction's own fits that the study keeps, too (all but
    those its calibrations name in ``not_kept``)."""
    declared = resolve(tomllib.loads(spec_text(paper_of(name)))["claims"])()
    mine = rejudge(declared, frame, name)
    own = rejudge(declared, frame, paper_of(name))
    kept = (own["verdict"] == "calibrated").to_numpy() & np.array(
        [kept_fit(name, paper_of(name), str(c)) for c in own["claim"]], dtype=bool
    )
    mine.loc[kept, ["verdict", "reason"]] = own.loc[kept, ["verdict", "reason"]].to_numpy()
    return mine


def rejudge_copy(name: str, update: Path | None = None, folder: Path = CLAIMS) -> Path:
    """``docs/claims/NAME.csv`` judged again, from the numbers it holds, under the
    reproduction's current claim declarations and verdict rule; with ``update`` (a run
    store of part of the grid), the claims the copy holds no number for take that
    run's, with its command. ``folder``: where the copy is (``QUICK``: a quick run's)."""
    path = folder / f"{name}.csv"
    if not path.is_file():
        sys.exit(f"readme_status: {path} not found")
    stored = read_copy(name, folder)
    if update is not None:
        stored = _updated(stored, update)
    declared = resolve(tomllib.loads(spec_text(paper_of(name)))["claims"])()
    experiment = str(stored["experiment"].iloc[0]) if len(stored) else name
    judge = as_study if name in STUDIES else lambda _, t: rejudge(declared, t, experiment)
    frame = judge(name, stored)
    commands = dict(zip(stored["claim"], stored["command"].astype(str), strict=True))
    default = str(stored["command"].iloc[0]) if len(stored) else ""
    frame.insert(0, "command", [commands.get(c, default) for c in frame["claim"]])
    frame["judged"] = REJUDGED
    return _write(frame, name, folder)


def _updated(stored: pd.DataFrame, store: Path) -> pd.DataFrame:
    """``stored`` with the claims it holds no number for taken from ``store``'s claim
    table (those it judged, with its command); every other row is kept as it is."""
    ran = _store_claims(store)
    numbered = stored.loc[stored["seeds"].astype(int) > 0, "claim"]
    ran = ran[~ran["verdict"].isin(["not run", "not simulated"]) & ~ran["claim"].isin(numbered)]
    ran = ran.copy()
    ran.insert(0, "command", str(read_results(store)[1].get("command", "")))
    kept = stored[~stored["claim"].isin(ran["claim"])]
    return pd.concat([kept, ran], ignore_index=True)


def record_changes(rev: str, copies: dict[str, pd.DataFrame]) -> Path:
    """``docs/claims/verdict-changes.csv``: the claims whose verdict in ``copies``
    differs from the copies at git revision ``rev``."""
    before = {}
    for name in copies:
        shown = subprocess.run(
            ["git", "show", f"{rev}:docs/claims/{name}.csv"],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if shown.returncode == 0:
            before[name] = read_copy(name, text=shown.stdout)
    if not before:
        sys.exit(f"readme_status: no docs/claims copy at revision {rev!r}")
    label = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    verdict_changes(before, copies, label).to_csv(
        CHANGES, index=False, float_format="%.6g", lineterminator="\n"
    )
    return CHANGES


def read_changes() -> pd.DataFrame | None:
    """The recorded verdict changes (None when there are none)."""
    return pd.read_csv(CHANGES, keep_default_na=False) if CHANGES.is_file() else None


def pages(copies: dict[str, pd.DataFrame]) -> dict[Path, str]:
    """Every page of docs/ with a generated count block, its blocks rewritten."""
    out = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = page.read_text("utf-8")
        if "<!-- claims " not in text or page == FIDELITY:
            continue
        try:
            out[page] = render_blocks(text, copies)
        except ValueError as exc:
            sys.exit(f"readme_status: {page.relative_to(ROOT)}: {exc}")
    return out


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


def study_tables() -> dict[str, pd.DataFrame]:
    """The stored claim copies of the calibrated studies, by study (those that exist)."""
    return {n: read_copy(n) for n in STUDIES if (CLAIMS / f"{n}.csv").is_file()}


def sensitivity_tables() -> dict[str, pd.DataFrame]:
    """``docs/claims/<paper>-sensitivity.csv`` (a sweep of the paper's unknown inputs:
    each claim's verdict at each point), by reproduction (those that exist)."""
    return {
        n: pd.read_csv(CLAIMS / f"{n}-sensitivity.csv", keep_default_na=False, na_values=[""])
        for n in ROWS
        if (CLAIMS / f"{n}-sensitivity.csv").is_file()
    }


def mechanism_tables() -> dict[str, pd.DataFrame]:
    """The stored claim copies of the runs with a declared mechanism switched on
    (:func:`cosched.families.readings`), by mechanism (those that exist)."""
    names = [m.name for paper in ROWS for m in readings(paper)]
    return {n: read_copy(n) for n in names if (CLAIMS / f"{n}.csv").is_file()}


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
    ap.add_argument(
        "--rejudge", action="append", default=[], metavar="NAME", choices=[*ROWS, *STUDIES]
    )
    ap.add_argument("--update", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--changes-from", metavar="REV", help="record verdicts changed since REV")
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
            if not sep or name not in (*ROWS, *STUDIES):
                sys.exit(f"readme_status: {flag} wants NAME=DIR with NAME in "
                         f"{', '.join((*ROWS, *STUDIES))}")  # fmt: skip
            print(f"wrote {copy_store(name, Path(folder), into).relative_to(ROOT)}")
    for name in args.rejudge:
        print(f"re-judged {rejudge_copy(name).relative_to(ROOT)}")
        if (QUICK / f"{name}.csv").is_file():
            print(f"re-judged {rejudge_copy(name, folder=QUICK).relative_to(ROOT)}")
    for item in args.update:
        name, sep, folder = item.partition("=")
        if not sep or name not in ROWS:
            sys.exit(f"readme_status: --update wants NAME=DIR with NAME in {', '.join(ROWS)}")
        print(f"updated {rejudge_copy(name, Path(folder)).relative_to(ROOT)}")
    copies = tables()
    if args.changes_from:
        print(f"wrote {record_changes(args.changes_from, copies).relative_to(ROOT)}")
    if args.held_out:
        print_held_out(copies)
        return 0
    if args.cells:
        for name, frame in copies.items():
            print(f"{ROWS[name]}: {status(name, frame)}")
        return 0
    page = fidelity_markdown(
        copies,
        quick_tables(),
        read_changes(),
        study_tables(),
        sensitivity_tables(),
        mechanism_tables(),
    )
    outputs = {FIDELITY: page}
    quick = {f"quick/{name}": frame for name, frame in quick_tables().items()}
    outputs.update(pages({**copies, **quick}))
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
