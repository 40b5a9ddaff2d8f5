"""docs/fidelity.md: per paper, the claims' verdicts, the calibrations and each gap's cause.

The counts come from the stored claim tables (``docs/claims/*.csv``, written by
``scripts/readme_status.py``); the causes are data here (:data:`CAUSES`): for each claim
cosched does not reproduce (*disagrees*, or *direction*: the sign right, the size not),
its cause, classified as one of :data:`KINDS`, and the evidence that would close it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

import pandas as pd

from cosched.experiments.calibration import CALIBRATIONS, Calibration, calibrations
from cosched.experiments.claims import SEED_CAP, VERDICTS, agreement
from cosched.families import papers

__all__ = [
    "CAUSES",
    "CHANGE_COLUMNS",
    "KINDS",
    "REJUDGED",
    "Cause",
    "cause_of",
    "fidelity_markdown",
    "render_blocks",
    "runs_of",
    "sensitivity_classes",
    "studies_of",
    "verdict_changes",
]

Kind = Literal["missing mechanism", "reading without evidence", "paper under-specified", "bug"]
#: The kinds of cause of a gap between cosched and a paper.
KINDS: tuple[Kind, ...] = (
    "missing mechanism",
    "reading without evidence",
    "paper under-specified",
    "bug",
)
#: The ``judged`` cell of a claims copy whose verdicts were re-judged from its numbers.
REJUDGED = "re-judged from the stored numbers (scripts/readme_status.py --rejudge)"
#: Verdicts whose cause docs/fidelity.md gives.
GAPS = ("disagrees", "direction")
#: Columns of ``docs/claims/verdict-changes.csv``: each claim whose verdict differs
#: between the tables at revision ``before_rev`` and the current ones (``before`` is
#: "undeclared" for a claim the older table did not hold).
CHANGE_COLUMNS = ("paper", "claim", "before", "after", "cosched", "before_rev")
#: A generated count in a page: ``<!-- claims NAME [PATTERN...] -->`` ... ``<!-- /claims
#: -->``; the text between is the verdict counts of NAME's claims matching any PATTERN
#: (every claim without one), rewritten by ``scripts/readme_status.py`` (NAME
#: ``quick/lomarc``: the quick run's copy).
_BLOCK = re.compile(r"(<!-- claims ([a-z/]+)((?: [^ >]+)*) -->)(.*?)(<!-- /claims -->)", re.S)


@dataclass(frozen=True)
class Cause:
    """Why some claims of a reproduction are not reproduced.

    Attributes:
        family: the reproduction, or a calibrated study (whose held-out gaps take its
            own causes before the reproduction's).
        claims: claim ids or :func:`fnmatch.fnmatchcase` patterns.
        kind: one of :data:`KINDS`.
        cause: what in the model, the reading or the paper makes the gap.
        evidence: what would close it (a measurement, a trace, a test).
    """

    family: str
    claims: tuple[str, ...]
    kind: Kind
    cause: str
    evidence: str


def cause_of(family: str, claim: str) -> Cause | None:
    """The first cause of ``family`` whose patterns hold ``claim`` (else None)."""
    for c in CAUSES:
        if c.family == family and any(fnmatchcase(claim, p) for p in c.claims):
            return c
    return None


def _num(v: float) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "n/a"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def _cell(text: object) -> str:
    return str(text).replace("|", "/").replace("\n", " ")


def _summary(copies: dict[str, pd.DataFrame]) -> list[str]:
    head = ["paper", "claims", *VERDICTS, "agreement"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, frame in copies.items():
        t = agreement(frame)
        pct = "n/a" if math.isnan(t.agreement) else f"{100 * t.agreement:.0f}%"
        counts = [str(t.counts.get(v, 0)) for v in VERDICTS]
        lines.append(f"| {name} | {len(frame)} | " + " | ".join(counts) + f" | {pct} |")
    return [*lines, ""]


def _calibrations(name: str, frame: pd.DataFrame) -> list[str]:
    fits = calibrations(name)
    if not fits:
        return ["No parameter of this reproduction is registered as fitted to the paper.", ""]
    lines = [
        "| parameter | value | fitted to | method | held-out claims: verdicts |",
        "|---|---|---|---|---|",
    ]
    for fit in fits:
        fitted = [c for c in frame["claim"] if fit.fits(c)]
        held = frame[[fit.holds_out(c) for c in frame["claim"]]]
        tally = agreement(held).text() if len(held) else "none declared"
        lines.append(
            f"| {_cell(fit.parameter)} | {_cell(fit.value)} | {', '.join(fitted) or '-'} | "
            f"{_cell(fit.method)} | {tally} |"
        )
    return [*lines, ""]


def _gaps(name: str, frame: pd.DataFrame) -> list[str]:
    """The claims that disagree or are off in size, grouped by their cause."""
    gaps = frame[frame["verdict"].isin(GAPS)]
    if gaps.empty:
        return ["No claim disagrees or is off in size only.", ""]
    groups: dict[int, list[str]] = {}
    for r in gaps.itertuples(index=False):
        c = cause_of(name, str(r.claim))
        unit = f" {r.unit}" if r.unit else ""
        row = f"| {r.claim} | {_cell(r.paper)} | {_num(float(r.cosched))}{unit} | {r.verdict} |"
        groups.setdefault(CAUSES.index(c) if c else -1, []).append(row)
    lines = []
    for key, rows in groups.items():
        if key < 0:
            lines += ["**Unclassified.**", ""]
        else:
            c = CAUSES[key]
            lines += [f"**{c.kind.capitalize()}.** {c.cause[0].upper()}{c.cause[1:]}. "
                      f"*Evidence that would close it:* {c.evidence}.", ""]  # fmt: skip
        lines += ["| claim | paper | cosched | verdict |", "|---|---|---|---|", *rows, ""]
    return lines


def _inconclusive(frame: pd.DataFrame) -> list[str]:
    rows = frame[frame["verdict"] == "inconclusive"]
    if rows.empty:
        return []
    listed = ", ".join(f"{r.claim} ({r.seeds} seeds)" for r in rows.itertuples(index=False))
    return [
        f"**Inconclusive** (more seeds, up to {SEED_CAP}, settle them): {listed}.",
        "",
    ]


def _uncounted(frame: pd.DataFrame) -> list[str]:
    """The untestable claims (with the null outcome that would agree) and the inputs."""
    lines = []
    rows = frame[frame["verdict"] == "untestable"]
    if not rows.empty:
        nulls = rows["null"] if "null" in rows.columns else [math.nan] * len(rows)
        items = [
            f"{r.claim} (paper {_cell(r.paper)}, null {_num(float(n))}, cosched "
            f"{_num(float(r.cosched))})"
            for r, n in zip(rows.itertuples(index=False), nulls, strict=True)
        ]
        lines += [
            "**Untestable** (the null outcome would agree too; not counted until the "
            f"tolerance is tightened with a stated reason): {'; '.join(items)}.",
            "",
        ]
    rows = frame[frame["verdict"] == "input"]
    if not rows.empty:
        reasons = sorted({str(r.reason).split(", so not counted")[0] for r in rows.itertuples()})
        lines += [
            f"**Input** ({len(rows)} claims, shown and not counted: "
            f"{'; '.join(reasons)}): {', '.join(map(str, rows['claim']))}.",
            "",
        ]
    return lines


def _not_simulated(frame: pd.DataFrame) -> list[str]:
    rows = frame[frame["verdict"] == "not simulated"]
    if rows.empty:
        return []
    items = [f"{r.claim} ({_cell(r.reason)})" for r in rows.itertuples(index=False)]
    return [f"**Not simulated**: {'; '.join(items)}.", ""]


def _quick(name: str, frame: pd.DataFrame, quick: pd.DataFrame | None) -> list[str]:
    """The claims whose verdict the reproduction's quick grid gives differently."""
    if quick is None or not len(frame):
        return []
    command = str(quick["command"].iloc[0]) if len(quick) else "?"
    if command == str(frame["command"].iloc[0]):
        return []  # the table is the quick run itself
    full = frame.set_index("claim")
    # A claim the quick copy holds no number for (declared after its run) is not compared.
    both = quick[quick["claim"].isin(full.index) & (quick["verdict"] != "not run")]
    differ = both[both["verdict"].to_numpy() != full.loc[both["claim"], "verdict"].to_numpy()]
    lines = [
        "### The quick grid against this table",
        "",
        f"`{command}` (`docs/claims/quick/{name}.csv`) gives {len(both) - len(differ)} of "
        f"{len(both)} claims the verdict above"
        + (": a quick run answers as the full grid does." if differ.empty else "; these differ:"),
        "",
    ]
    if differ.empty:
        return lines
    lines += ["| claim | quick grid | seeds | this table | seeds |", "|---|---|---|---|---|"]
    for r in differ.itertuples(index=False):
        f = full.loc[r.claim]
        lines.append(
            f"| {r.claim} | {_num(r.cosched)}: {r.verdict} | {r.seeds} | "
            f"{_num(f['cosched'])}: {f['verdict']} | {f['seeds']} |"
        )
    return [*lines, ""]


def render_blocks(text: str, copies: dict[str, pd.DataFrame]) -> str:
    """``text`` (a page) with each generated count block rewritten from ``copies``.

    Raises:
        ValueError: a block names a reproduction without a claims copy, or patterns
            that match none of its claims.
    """

    def count(m: re.Match[str]) -> str:
        name, patterns = m.group(2), m.group(3).split()
        if name not in copies:
            raise ValueError(f"a claims block names {name!r}, which has no docs/claims copy")
        frame = copies[name]
        if patterns:
            hit = [any(fnmatchcase(str(c), p) for p in patterns) for c in frame["claim"]]
            frame = frame[hit]
        if frame.empty:
            raise ValueError(f"claims block {m.group(1)} matches no claim")
        return f"{m.group(1)}{len(frame)} claims: {agreement(frame).text()}{m.group(5)}"

    return _BLOCK.sub(count, text)


def verdict_changes(
    before: dict[str, pd.DataFrame], after: dict[str, pd.DataFrame], rev: str
) -> pd.DataFrame:
    """The claims whose verdict differs between two sets of claim tables (reproduction ->
    table), in the current tables' order (columns :data:`CHANGE_COLUMNS`)."""
    rows = []
    for name, frame in after.items():
        old = before.get(name)
        was = dict(zip(old["claim"], old["verdict"], strict=True)) if old is not None else {}
        for r in frame.itertuples(index=False):
            prior = str(was.get(r.claim, "undeclared"))
            if prior != r.verdict:
                rows.append((name, r.claim, prior, r.verdict, float(r.cosched), rev))
    return pd.DataFrame(rows, columns=list(CHANGE_COLUMNS))


def _changes(changes: pd.DataFrame | None) -> list[str]:
    """The verdicts the rule change moved, claim by claim."""
    if changes is None or changes.empty:
        return []
    rev = ", ".join(sorted(set(changes["before_rev"].astype(str))))
    lines = [
        "## Verdicts moved by the one-sided rule, the input verdict and the power check",
        "",
        f"Every claim whose verdict differs from the tables at {rev} "
        "(`docs/claims/verdict-changes.csv`, written by `python scripts/readme_status.py "
        "--changes-from REV`): a one-sided claim agrees only with its whole interval on "
        "the paper's side, a number the simulation was given is *input*, a claim whose "
        "null outcome would agree is *untestable*, a claim on a fitted quantity is "
        "*calibrated*; *undeclared* claims were not in the older table.",
        "",
    ]
    for name, part in changes.groupby("paper", sort=False):
        moves = part.groupby(["before", "after"], sort=False).size()
        summary = "; ".join(f"{b} to {a}: {n}" for (b, a), n in moves.items())
        lines += [f"**{name}** ({len(part)} claims; {summary})", ""]
        lines += ["| claim | before | after | cosched |", "|---|---|---|---|"]
        lines += [
            f"| {r.claim} | {r.before} | {r.after} | {_num(float(r.cosched))} |"
            for r in part.itertuples(index=False)
        ]
        lines.append("")
    return lines


def runs_of(frame: pd.DataFrame) -> str:
    """The run a claims copy's numbers come from, or its runs when its rows name several
    (each row keeps the command of its run)."""
    commands = list(dict.fromkeys(frame["command"].astype(str))) if len(frame) else ["?"]
    text = " and ".join(f"`{c}`" for c in commands)
    return text if len(commands) == 1 else f"{text} (each row names its run)"


def studies_of(paper: str) -> tuple[Calibration, ...]:
    """The calibrations registered as studies judged by ``paper``'s claims (``claims_of``):
    each keeps its claim copy as ``docs/claims/<family>.csv``."""
    return tuple(c for c in CALIBRATIONS if c.claims_of == paper)


def _held_out(name: str, frame: pd.DataFrame, studies: dict[str, pd.DataFrame]) -> list[str]:
    """Per study of ``name`` with a claim copy: the claims its fit did not read, judged
    under the default and under the study's fitted inputs (the fit set excluded from
    both), the verdicts the fit changes, and the held-out claims still not agreeing."""
    groups: dict[str, list[Calibration]] = {}
    for c in studies_of(name):
        if c.family in studies:
            groups.setdefault(c.family, []).append(c)
    if not groups:
        return []
    lines = [
        "### Held out under the calibrated inputs",
        "",
        "Each study below fits inputs the paper leaves out on a declared subset of its "
        "claims (registered in `cosched.experiments.calibration`); every other claim is "
        "held out, judged under the reproduction's default inputs (the table above) and "
        "under the fitted ones (`docs/claims/<study>.csv`). The fit set is excluded from "
        "both counts, with every claim calibrated in either table.",
        "",
        "| study | parameter = value | fitted to | held out: default | held out: fitted |",
        "|---|---|---|---|---|",
    ]
    details: list[str] = []
    for family, group in groups.items():
        fit = group[0]  # the study's own; the others are the reproduction's it keeps
        study = studies[family].set_index("claim")
        # Like with like: the claims no fit of the study read, and the study ran.
        ran = study.index[study["verdict"] != "not run"]
        # A claim fitted on either side (a calibration the other copy does not carry)
        # counts on neither.
        fitted = set(study.index[study["verdict"] == "calibrated"])
        fitted |= set(frame.loc[frame["verdict"] == "calibrated", "claim"])
        held = frame[
            [
                not any(g.fits(c) for g in group) and c in ran and c not in fitted
                for c in frame["claim"]
            ]
        ]
        under = study.loc[held["claim"]].reset_index()
        left = int((~frame["claim"].isin(ran)).sum())
        scope = (
            f" ({left} claim{'s' * (left != 1)} the study did not run left out of both)"
            if left
            else ""
        )
        lines.append(
            f"| {fit.family} | {_cell(fit.parameter)} = {_cell(fit.value)} | "
            f"{', '.join(fit.fitted_to)} | {agreement(held).text()}{scope} | "
            f"{agreement(under).text()} |"
        )
        details += _study_details(name, fit, held, under, runs_of(studies[family]))
    return [*lines, "", *details]


def _study_details(
    name: str, fit: Calibration, held: pd.DataFrame, under: pd.DataFrame, command: str
) -> list[str]:
    seeds = int(under["seeds"].max()) if under["seeds"].notna().any() else 0
    lines = [
        f"**{fit.family}** (numbers from {command}, up to {seeds} seeds). "
        "Held-out claims whose verdict the fit changes:",
        "",
        "| claim | paper | default | fitted |",
        "|---|---|---|---|",
    ]
    before = held.set_index("claim")
    changed = 0
    for r in under.itertuples(index=False):
        b = before.loc[r.claim]
        if b["verdict"] == r.verdict:
            continue
        changed += 1
        lines.append(
            f"| {r.claim} | {_cell(b['paper'])} | {_num(float(b['cosched']))}: "
            f"{b['verdict']} | {_num(float(r.cosched))}: {r.verdict} |"
        )
    if not changed:
        lines = [*lines[:1], "", "The fit changes no held-out verdict."]
    lines.append("")
    gaps = under[under["verdict"].isin([*GAPS, "inconclusive", "not run"])]
    if gaps.empty:
        return lines
    groups: dict[int, list[str]] = {}
    for r in gaps.itertuples(index=False):
        # A study's own causes (its family's) first: its inputs are not the default's.
        c = cause_of(fit.family, str(r.claim)) or cause_of(name, str(r.claim))
        groups.setdefault(CAUSES.index(c) if c else -1, []).append(f"{r.claim} ({r.verdict})")
    lines += [f"Held out and not agreeing under {fit.family}, by cause:", ""]
    for key, claims in sorted(groups.items()):
        if key < 0:
            lines.append(f"* **Unclassified**: {', '.join(claims)}.")
        else:
            c = CAUSES[key]
            lines.append(
                f"* **{c.kind.capitalize()}**: {c.cause}. *Smallest test:* {c.evidence}. "
                f"Claims: {', '.join(claims)}."
            )
    return [*lines, ""]


#: The verdicts a sensitivity point can count (the others do not test the claim there).
_TESTED = ("agrees", "direction", "inconclusive", "disagrees")


def sensitivity_classes(table: pd.DataFrame) -> dict[str, list[str]]:
    """Each claim of a sensitivity table (``docs/claims/<paper>-sensitivity.csv``: one
    row per point and claim, ``inside`` true where the point lies in the ranges the
    paper's text allows) as **robust** (agrees at every inside point it is judged at),
    **explained** (at some, not all: the unknown inputs decide it) or **model's** (at
    none); ``outside only``: model's claims that agree at a point outside the ranges."""
    inside = table["inside"].astype(str).str.lower().isin(["true", "1", "yes"])
    tested = table[table["verdict"].isin(_TESTED)]
    out: dict[str, list[str]] = {"robust": [], "explained": [], "model's": [], "outside only": []}
    for claim, rows in tested.groupby("claim", sort=True):
        agrees = rows["verdict"] == "agrees"
        ins = inside.loc[rows.index]
        if not ins.any():
            continue
        hits = int(agrees[ins].sum())
        kind = "robust" if hits == int(ins.sum()) else "explained" if hits else "model's"
        out[kind].append(str(claim))
        if kind == "model's" and bool(agrees[~ins].any()):
            out["outside only"].append(str(claim))
    return out


def _sensitivity(table: pd.DataFrame | None) -> list[str]:
    if table is None or table.empty:
        return []
    classes = sensitivity_classes(table)
    inside = table["inside"].astype(str).str.lower().isin(["true", "1", "yes"])
    unknowns = ", ".join(sorted(set(table["unknowns"].astype(str))))
    points = sorted(set(table.loc[inside, "point"].astype(str)))
    outside = sorted(set(table.loc[~inside, "point"].astype(str)))
    seeds = sorted({int(s) for s in table["seeds"]})
    lines = [
        "### Sensitivity to the unknown inputs",
        "",
        f"Each claim judged at every point of a sweep of {unknowns} over the ranges the "
        f"paper's text allows ({len(points)} points inside, {len(outside)} outside; "
        f"{'/'.join(map(str, seeds))} seeds per point): **robust** (agrees at every point "
        "inside), **explained** (at some: the unknown decides it), **model's** (at none: "
        "the model lacks what it needs)"
        + (f"; numbers from {runs_of(table)}." if "command" in table.columns else "."),
        "",
        "| class | claims | which |",
        "|---|---|---|",
    ]
    for kind in ("robust", "explained", "model's"):
        lines.append(f"| {kind} | {len(classes[kind])} | {', '.join(classes[kind]) or '-'} |")
    lines.append("")
    if classes["outside only"]:
        lines += [
            "Model's claims that agree only at a point outside the ranges: "
            f"{', '.join(classes['outside only'])}.",
            "",
        ]
    return lines


def _paper(
    name: str,
    frame: pd.DataFrame,
    quick: pd.DataFrame | None = None,
    studies: dict[str, pd.DataFrame] | None = None,
    sensitivity: pd.DataFrame | None = None,
) -> list[str]:
    command = runs_of(frame)
    judged = str(frame["judged"].iloc[0]) if "judged" in frame.columns and len(frame) else ""
    seeds = int(frame["seeds"].max()) if len(frame) else 0
    quoted = int(frame["quote"].astype(bool).sum()) if "quote" in frame.columns else 0
    return [
        f"## {name} ({papers()[name]})",
        "",
        f"Claims: {agreement(frame).text()}. Numbers from {command} (up to {seeds} "
        f"seeds); verdicts {judged or 'when the report was built'}; {quoted} of "
        f"{len(frame)} claims quote the paper's text with its line "
        f"(`docs/claims/{name}.csv`).",
        "",
        "### Calibrations",
        "",
        *_calibrations(name, frame),
        "### What is not reproduced, and why",
        "",
        *_gaps(name, frame),
        *_inconclusive(frame),
        *_uncounted(frame),
        *_not_simulated(frame),
        *_held_out(name, frame, studies or {}),
        *_sensitivity(sensitivity),
        *_quick(name, frame, quick),
    ]


def fidelity_markdown(
    copies: dict[str, pd.DataFrame],
    quick: dict[str, pd.DataFrame] | None = None,
    changes: pd.DataFrame | None = None,
    studies: dict[str, pd.DataFrame] | None = None,
    sensitivity: dict[str, pd.DataFrame] | None = None,
) -> str:
    """docs/fidelity.md from the claim copies (reproduction -> its table), from the
    copies of the reproductions' quick runs (``quick``: a paper's section lists the
    claims whose verdict the quick grid gives differently), from the stored verdict
    changes (``changes``: :func:`verdict_changes`), from the claim copies of the
    calibrated studies (``studies``: study family -> its table, :func:`studies_of`) and
    from the sensitivity tables (``sensitivity``: reproduction -> its sweep's table,
    :func:`sensitivity_classes`)."""
    lines = [
        "# Fidelity to the papers",
        "",
        "Generated by `python scripts/readme_status.py` from `docs/claims/*.csv` (the claim "
        "tables of the reproductions' runs) and from the data in "
        "`cosched.experiments.calibration` (fitted parameters) and "
        "`cosched.experiments.fidelity.CAUSES` (causes). Do not edit by hand.",
        "",
        "Each claim is a number or a comparison the paper's results state, with the line of "
        "the paper's text it quotes. Verdicts: **agrees** (cosched's mean within the "
        "paper's value widened by the claim's stated tolerance; for a one-sided claim, "
        "one with an infinite end or a declared direction, the whole 95% interval on the "
        "paper's side too), **direction** (a signed comparison whose whole interval has "
        "the paper's sign, the size outside the tolerance), **inconclusive** (the 95% "
        "interval reaching both the target and its outside: more seeds, up to "
        f"{SEED_CAP}, settle it), **disagrees**, **calibrated** (a target of a parameter "
        "fitted to the paper: shown, never counted), **input** (a number the simulation "
        "was given: shown, never counted), **untestable** (the claim's null outcome, no "
        "effect or the baseline's value, would agree too, so it cannot fail: shown, not "
        "counted until its tolerance is tightened with a stated reason), **not "
        "simulated** (with the reason), **not run** (declared, but the stored run has no "
        "cell for it). The agreement figure is agrees over all declared claims less the "
        "calibrated, input, untestable and not simulated ones.",
        "",
        "A table whose verdicts are marked *re-judged* holds the numbers of the run its "
        "command names, judged again under the current declarations and verdict rule "
        "without a new simulation (`python scripts/readme_status.py --rejudge NAME`); a "
        "claim declared after that run is *not run* until the reproduction is run again.",
        "",
        *_summary(copies),
        "Causes: **missing mechanism** (the model lacks something the paper's system "
        "has), **reading without evidence** (a choice the text does not settle, made "
        "without a measurement), **paper under-specified** (the paper omits an input: a "
        "trace that is not public, a machine detail), **bug**.",
        "",
    ]
    for name, frame in copies.items():
        lines += _paper(
            name, frame, (quick or {}).get(name), studies, (sensitivity or {}).get(name)
        )
    lines += _changes(changes)
    return "\n".join(lines).rstrip() + "\n"


_LOMARC_LOAD = (
    "the paper gives its workloads' loads only as Table 4's 'Load', not a utilization; "
    "typeless Lublin workloads offer 0.73 / 0.99 / 1.71 (W1-W3), so W2 and W3 are "
    "saturated for most of the run and any capacity cuts an ever-growing wait, while W1 "
    "and W2 leave the work done set by the arrivals"
)
_LOMARC_LOAD_CLOSE = (
    "the paper's workload files, or its W1-W3 utilizations under PSS, to set the offered "
    "loads; then a sweep of the offered load shows which claims follow it"
)
_FCS_SECTION5 = (
    "section 5's workload is given as Lublin's model at MPL 6 on 32 PEs, without the job "
    "kinds (which jobs are imbalanced or communicating), the requests or the arrival "
    "scaling; at 20 seeds FCS saturates 11 points above FCFS as in the paper, but both "
    "about ten points below the paper's 78% and 88%, and no reading of it tried brings "
    "FCS's highest accepted load above FCFS's (docs/timesharing.md, 'Figure 7's "
    "saturation, re-read', 'Figures 7-9 at 20 seeds')"
)
_DCS_WORKLOAD = (
    "the paper's LLNL workload model is not given; Lublin jobs with run times / 400 at "
    "4 KiB messages stand in, and the time scale sets how many messages, switches and "
    "interrupts a job incurs (docs/timesharing.md)"
)
_COUPLED_TRACES = (
    "the Intrepid and Eureka traces are not public: a month drawn to the paper's "
    "description of Intrepid (its size mix, run times, estimates and arrivals assumed; "
    "load and run-time shape fitted to the base wait and slowdown) and KTH SP2 stand in"
)

#: Each gap's cause, per reproduction: the first entry whose patterns hold a claim.
CAUSES: tuple[Cause, ...] = (
    # LOMARC. The first entries name what stays apart under the fitted workloads too
    # (docs/claims/lomarc-fitted.csv, w1_load 0.99, 20 seeds; docs/lomarc.md, 'Calibration
    # on Table 5's queues'), so they hold for both tables.
    Cause("lomarc", ("fig7-L-R-bounded-*", "fig7-L-FM-bounded-*", "fig7-L-N-bounded-*",
                     "fig7-LOMARC-gain-rises-*", "fig9-*-bounded-*"), "missing mechanism",
          "short jobs gaining from pairing: the relative bounded response is carried by "
          "the 42% of jobs that run 60 s or less, which the paper's rule keeps out of "
          "pairing ('Only medium and long jobs are considered for coscheduling', lines "
          "900-901); with the loads fitted to Table 5's queues L-R gains +15.6 / +28.2% "
          "(W1 / W3, paper +50 / +66) and L-N at most +2.7 (paper +7 / +17 / +40), no "
          "point of the sweep inside the text's ranges agrees, and reading the bound's "
          "run time as the time run (`bounded-executed`) moves the gains by about 2 points; "
          "letting short jobs pair, against that rule, raises L-R's to +41.9 / +61.6% and "
          "L-FM's to +36.6 / +42.0 / +54.3% (paper +47 / +42 / +52) with response almost "
          "unchanged, while L-N's stays at +3.3 / -2.5 / +15.8% (paper +7 / +17 / +40; "
          "docs/studies/lomarc_unknowns.py probe, 20 seeds): what gains the paper's short "
          "jobs is not in its text, and on standard CPUs something more is missing",
          "L-N's pairs by class and slowdown on W3 with short jobs paired, against L-R's, "
          "5 seeds: which pairs carry the bounded gain the paper reports for L-N"),
    Cause("lomarc", ("fig8-*-E-M1-*", "text-L-R-makespan-*"), "missing mechanism",
          "actual pair slowdowns below the estimate: cosched runs a pair at exactly its "
          "estimated maximum slowdown, so E (work at full speed over P T) gains only the "
          "capacity pairing adds: +3.8 / +14.3 / +21.0% for L-U1 with the loads fitted "
          "(W1-W3; paper +8.5 / +19 / +38), makespan +3.4 / +11.2 / +16.2% (paper +5 / +20 "
          "/ +33); the paper measured 'the slowdowns actually measured are in many cases "
          "much lower than our maximum estimate' (section 4.2). Reading t_i as the time "
          "run (`E-executed`) overshoots: +29.8 / +51.2 / +66.7%",
          "pairs run at 1 + 0.5 (sl - 1) instead of sl (the estimate kept for the "
          "decisions), W3, 5 seeds: E's gain against +38%"),
    Cause("lomarc", ("fig6-L-FM-response-M1-W2", "fig6-L-FM-response-M1-W3",
                     "fig*-L-FM-vs-L-R-*", "fig*-L-FM-falls-behind-*", "fig8-L-FM-E-below-*",
                     "fig6-LOMARC-gain-rises-*"), "missing mechanism",
          "what makes the paper's L-FM fall behind L-R at saturation: with W2 and W3 "
          "offering 1.21 and 1.96 (the fitted W1 at Table 4's ratios) L-FM gains +62.5 / "
          "+68.5% in response (paper +41 / +48) and is 17.6% better than L-R on W3 (paper: "
          "17% worse); no reading of "
          "Figure 5 cosched runs puts L-R ahead (docs/lomarc.md, the probe's Figure 5 "
          "table), and with both heavier workloads saturated the gains stop rising from "
          "W2 to W3",
          "the authors' Figure 5 with its n_push - n_pull divisor and 'improvement' as "
          "printed, run as a further reading on W3 at the fitted point, 5 seeds"),
    Cause("lomarc", ("table5-*-slowdown-*", "table5-candidates-left-*", "table5-*-selected-*",
                     "table5-L-U1-selects-*", "fig6-L-U1-vs-*", "fig7-L-U1-vs-*",
                     "fig*-L-R-vs-L-U1-*"), "paper under-specified",
          "too few candidates pass MAX_SLOWDOWN = 1.6: of random memory-fitting, "
          "matchable M1 pairs, 61% under the overlap reading Table 2's worked example "
          "needs and 96% under the formula as printed pass, against 80-88% in Table 5, so "
          "with the loads fitted 1.7 / 2.9 / 5.5 candidates are left for L-U1 (W1-W3; "
          "paper 5 / 8 / 14) and the heuristics choose among too few to differ as the "
          "paper's do. Averaged over the searches that found a partner only (the "
          "caption's other reading) 4.9 / 7.0 / 14.6 are left, but the queues the fit "
          "used then overshoot (W1 59.8 against 36) and the stage still passes 56% of "
          "the matchable on W1 against 83% (docs/studies/lomarc_unknowns.py table5, 3 "
          "seeds)",
          "the estimate the authors' simulator computed for a few section 6.1 pairs (a "
          "lookup); in cosched the probe's Monte Carlo of the stage "
          "(docs/studies/lomarc_unknowns.py probe) under any further reading of section "
          "4.1"),
    Cause("lomarc", ("table5-*-size-*", "table5-*-memory-*", "table5-*-matchable-*"),
          "paper under-specified",
          "the queue's class mix: even with the queue lengths fitted (the default's W1 and "
          "W2 queues hold about half of Table 5's) the queue holds fewer "
          "medium or long jobs (L-U1: 17 / 30 / 70 against 24 / 45 / 86, the fit's best "
          "compromise with the queue lengths), while each later stage keeps about the "
          "paper's share on W1 (size 44% against 42%, memory 66% against 80%, matchable "
          "69% against 75%), so the counts fall short in proportion; a smaller short-job "
          "share than the typeless Lublin model's 0.42 reaches the medium-or-long counts "
          "only outside the range the text allows",
          "the paper's job-length mix, or its queue's short-job share, then Table 5 "
          "again (the sweep's short_share 0.25 point shows the direction); and the fit "
          "redone with Table 5 averaged over the searches that found a partner (at the "
          "current fit 24 of 47 of the other columns agree under that reading against 15 "
          "of 47, 3 seeds, but its queue lengths overshoot): w1_load 0.75-0.99 by the "
          "Python pass, 3 seeds, the other columns held out"),
    Cause("lomarc", ("fig6-AC-*", "fig6-LOMARC-above-others-*", "fig9-gains-similar-response-*"),
          "paper under-specified",
          "how the memory slowdown combines with the shared parts: under the overlap "
          "reading a paging pair costs max(sl, 2.5), so AC's pairs add more capacity than "
          "they cost (with the loads fitted AC gains +32 / +48 / +63% over PSS, W1-W3); "
          "under overlap-add AC loses on W1 and LOMARC is above all others on W1 and W2, "
          "and the gains over AC stay similar across mixtures. The fit set (Table 5, "
          "L-U1 / L-U2 / L-R, which refuse paging pairs) cannot choose the reading, so "
          "the default follows the text's measured whole-pair 2.5",
          "the authors' simulator or its slowdown table; in cosched AC's paging pairs and "
          "their node-time share on W3 under each reading (docs/lomarc.md, 'The memory "
          "slowdown: three readings')"),
    Cause("lomarc", ("fig6-AC-*", "fig6-LOMARC-above-others-*"), "paper under-specified",
          "under the overlap reading of section 4.1 (the default: Table 2's worked example "
          "needs it) a pair costs at most 2 unless it pages, and a paging pair "
          "max(sl, sl_mem), so AC's pairs add more capacity than they cost and AC beats PSS "
          "and the LOMARC variants; section 6 does not say how its simulator combined "
          "sl_mem with the other terms",
          "the authors' simulator or its slowdown table; docs/lomarc.md gives every claim "
          "under the printed preset beside the default (AC loses on W1 and W2 there)"),
    Cause("lomarc", ("table5-*-queue-*", "table5-*-medium-long-*", "table5-*-size-*",
                     "table5-*-memory-*", "table5-*-matchable-*", "table5-*-slowdown-*",
                     "table5-candidates-left-*"), "paper under-specified",
          "on W1 and W2 the queues hold about half of Table 5's (the offered loads "
          "0.73 / 0.99 follow from workloads the paper does not give); on W3 the queue "
          "length matches, but fewer of its jobs are medium or long (43% of typeless "
          "Lublin jobs run 60 s or less) and fewer pass each later constraint",
          "the paper's workloads or their utilizations, and its job-length mix; then "
          "Table 5 measured again"),
    Cause("lomarc", ("fig6-*-response-M1-W2", "fig6-*-response-M1-W3", "text-L-R-makespan-*",
                     "fig8-*-E-M1-*"), "paper under-specified", _LOMARC_LOAD,
          _LOMARC_LOAD_CLOSE),
    Cause("lomarc", ("fig*-L-R-vs-L-U1-*", "fig*-L-FM-vs-L-R-*", "fig*-L-FM-falls-behind-*",
                     "fig6-L-U1-vs-*", "fig7-L-U1-vs-*", "table5-*-selected-*",
                     "table5-L-U1-selects-*"), "paper under-specified",
          "the heuristics choose among fewer candidates than Table 5's (about one left "
          "after every constraint on W1 against 5-7, five to seven on W3 against 14-17), "
          "so they differ less; the paper's candidate counts follow from workloads it "
          "does not give",
          "the paper's workloads, or Table 5's queue lengths reached by the offered load; "
          "then the heuristic-to-heuristic gaps measured again"),
    Cause("lomarc", ("fig7-*-bounded-*", "fig9-*-bounded-*"), "paper under-specified",
          "only medium and long jobs pair (the paper's rule) while 43% of the typeless "
          "Lublin jobs run 60 s or less and dominate the 60 s-bounded mean; the paper's "
          "job-length mix per class is not given",
          "the paper's workload's share of short jobs; the bounded gain measured on a "
          "workload with that share"),
    Cause("lomarc", ("fig8-utilization-*",), "reading without evidence",
          "a node running two jobs counts once in the node-busy share (the paper's "
          "'utilization' as docs/lomarc.md reads it), so pairing lowers it wherever "
          "arrivals, not capacity, set the work done (8.0 points apart on W1 with the "
          "loads fitted; with W1 at 0.99 it barely rises from W1 to W3, +0.3)",
          "the paper's definition of utilization for a paired node; the claim under the "
          "hardware-thread share"),
    Cause("lomarc", ("*",), "paper under-specified", _LOMARC_LOAD, _LOMARC_LOAD_CLOSE),
    # node sharing
    Cause("nodeshare", ("fig1-*", "fig4-*"), "paper under-specified",
          "the Cab trace is not public: RICC windows stand in (node counts kept, serial "
          "jobs on whole nodes, offered loads 0.89-1.20 of 1,158 nodes, mostly single-node "
          "jobs), so waits and what backfilling recovers differ from Cab's",
          "the Cab windows, or a public trace with Cab's job-size mix and load"),
    Cause("nodeshare", ("table1-*",), "paper under-specified",
          "a job's turnaround ratio between two policies is set by its waits, which follow "
          "the trace: on RICC's Trace1 FCFS's mean turnaround is almost twice EASY's (on "
          "Cab the median job's ratio is 1), so the per-job ratios against FCFS and the "
          "extremes (single jobs' waits) differ from the paper's",
          "the Cab windows, or a public trace whose FCFS and EASY waits are as close as "
          "Cab's"),
    Cause("nodeshare", ("table2-*",), "paper under-specified",
          "RICC's jobs are mostly single-node, so a blocked head rarely finds free cores "
          "a smaller shape could use: almost every block is a capacity block",
          "Cab's job-size distribution (the trace), or the paper's per-shape block counts"),
    Cause("nodeshare", ("fig5-*",), "paper under-specified",
          "the slowdown between sensitivity classes and the memory speedup per core "
          "fraction are not tabulated; the preset fitted to Figure 3 is mild (co-runners "
          "cost at most 9%), so avoiding them saves little execution time",
          "the paper's interference table (improvement[fractionCores], the class "
          "slowdowns), or Figure 5's execution times to fit the class slowdowns held out "
          "from Figure 3"),
    Cause("nodeshare", ("*",), "paper under-specified",
          "the Cab trace and the interference values are not given", "the Cab windows"),
    # node sharing on the Cab stand-in (the nodeshare-cab study's held-out gaps)
    Cause("nodeshare-cab", ("fig1-vs-easy-*",), "paper under-specified",
          "on the Cab stand-in EASY stays far behind coscheduling at every load the text "
          "allows: 22-28% at load 0.7, 50-65% at 0.9, 90-93% at 1.1 (Trace1, 50,000 jobs, "
          "docs/claims/nodeshare-sensitivity.csv), 60-73% on Traces 2-4 at the fitted 0.9, "
          "44-69% for run-time shapes sigma 1-2.5 (docs/nodeshare.md); the paper's 1-18% "
          "needs EASY's waits near coscheduling's, which the stand-in's assumed run times "
          "and estimates (run time / U(0.2, 1)) do not give",
          "the estimates' accuracy swept (0.2-1) at load 0.9 and sigma 2, reading EASY's "
          "mean wait against coscheduling's; or Cab's run times and estimates (ref. [12])"),
    Cause("nodeshare-cab", ("fig1-combined-*",), "paper under-specified",
          "combined's gain over coscheduling follows the load (0.8-1.1% at 0.7, 5.7-6.2% at 0.9, "
          "20-33% at 1.1 on Trace1) and the run-time spread (7.3% at sigma 1 to 0.4% at "
          "2.5, one seed, at the fitted point); at the fitted point two of the four "
          "windows stay above 3% (4.9% and 7.5%); the text gives neither",
          "the sigma probe (docs/claims/nodeshare-cab-sigma.toml) at 5 seeds on all four "
          "windows, sigma fitted beside the load with Figure 1 held out"),
    Cause("nodeshare-cab", ("table1-*",), "paper under-specified",
          "the per-job ratios follow the waits: at the fitted load FCFS's waits are long for "
          "most jobs (median FCFS / coscheduling ratio 16.4 against the paper's 1.09), and "
          "the largest ratios, single jobs' waits over the shortest run times, reach 227 "
          "(EASY over coscheduling) and 1,640 (FCFS over it) against 6,632 and 29,805; at "
          "load 0.7 five to seven of the fifteen quartiles agree, at 0.9 and 1.1 at most "
          "two, the extremes against coscheduling and every lowest extreme at none (Trace1, "
          "50,000 jobs); the paper's "
          "Cab has FCFS as good as EASY for the median job, a job mix its text does not give",
          "Cab's run times (ref. [12]), or Table 1 read on the sigma probe's per-job tables "
          "at sigma 2.5 and load 0.7"),
    Cause("nodeshare-cab", ("fig5-degraded-*",), "paper under-specified",
          "the degraded shapes follow the load: No_Restrict's count per 100,000 jobs is "
          "584-1,383 at load 0.7, 3,319-6,283 at 0.9 and 13,319-22,122 at 1.1 (Trace1, "
          "50,000 jobs); at the fitted 0.9 No_Restrict gives 2,560 against 6,106 and "
          "Max_One_High 4,990 against 9,121, while the two stricter restrictions agree",
          "a load grid between 0.9 and 1.0 on 100,000 jobs, Figure 5's counts held out"),
    Cause("nodeshare-cab", ("fig4-baselines-converge-*",), "paper under-specified",
          "at 1,400 nodes EASY's mean turnaround is still 8.4% above FCFS's on the stand-in "
          "(1.5% at 1,700, 0.1% at 2,000; the paper: one value from 1,400): its widest "
          "jobs (up to 1,024 nodes, the halving size mix assumed) still queue behind each "
          "other at the fitted load, 0.74 of 1,400 nodes; the text gives no size statistic",
          "the 1,400-node gap with the stand-in's largest size capped at 512 nodes, and at "
          "load 0.8"),
    Cause("nodeshare-cab", ("fig5-fcfs-better-than-restrictions",), "reading without evidence",
          "at every swept point every restricted variant's mean turnaround is 42-95% below "
          "FCFS's (91% at the fitted point); read as FCFS's mean below each restriction's, "
          "the sentence contradicts the paper's own Figure 1 (coscheduling over 80% below "
          "FCFS) unless a restriction multiplied the turnaround five-fold, which no "
          "interference strength in the text's range does (at 10, 46% below FCFS)",
          "Figure 5's and Figure 1's Trace1 bars read off the figures: whether the "
          "restricted bars stand above FCFS's"),
    # coupled
    Cause("coupled", ("fig4-base-slowdown-analysis-*",), "paper under-specified",
          "KTH SP2 packed to the analysis load stands in for Eureka (not public); its "
          "short jobs weigh each minute of wait by 1 / run time",
          "Eureka's trace, or a stand-in with Eureka's job lengths"),
    Cause("coupled", ("pairing-share-*",), "paper under-specified",
          "the paper does not say whose jobs its 5-10% are: 7.5% of the analysis jobs "
          "(the setting) is 0.9-2.1% of the stand-in's compute jobs, while the 2-minute "
          "rule alone pairs 4.3-9.9% of the compute jobs and 35% of the analysis jobs "
          "(docs/claims/coupled-2min.csv, docs/coupled.md)",
          "the paper's count of paired jobs, or each machine's job count, in the load study"),
    Cause("coupled", ("fig7-*", "fig8-*", "fig9-*", "fig10-*"), "paper under-specified",
          _COUPLED_TRACES + "; the proportion study pairs a share of the analysis "
          "machine's 2,047 jobs, where the paper's Eureka workload had Intrepid's 9,219: "
          "at 33% paired cosched pairs 676 compute jobs (7.3% of them), the paper about "
          "3,040, so every compute-side cost is smaller; the base slowdown of the 20 "
          "months (7.3) is above the fitted 6.1, and yield syncing sooner than hold in "
          "this study was not investigated further",
          "the paper's construction, run at 10 months with release on the machine's "
          "clock (docs/claims/coupled-special.toml, analysis_jobs = 9219: 3,042 compute "
          "jobs paired at 33%): waits rise with the share as in Figure 7 (mean compute "
          "wait 84-90 min at 2.5-10% paired, 89-103 at 20% and 103-130 at 33% with a "
          "yield, the base "
          "84.6; the run's report.md), but HH deadlocks in 1, 4 and 10 of the 10 "
          "months at 10, 20 and 33% paired, so Figure 9's hold-hold "
          "claims and the 33% comparison are not judged there; the paper's paired "
          "counts; a per-pair breakdown of the sync times"),
    Cause("coupled", ("fig3-extra-wait-analysis-*",), "paper under-specified",
          _COUPLED_TRACES + "; the analysis jobs' mates wait on a compute machine whose "
          "base wait is over an hour, and KTH's jobs are shorter than that wait. 'Under "
          "5 min' has no null by the design rule (a bound on an effect is its own null: "
          "no extra wait at all would agree), so it counts; cosched's interval at load "
          "0.25 (3.1-12.1 min over 20 months) lies mostly above it",
          "Eureka's trace, and the extra wait measured on it"),
    Cause("coupled", ("fig5-sync-compute-HH-0.25",), "paper under-specified",
          "the compute side's sync time at load 0.25 is carried by a few pairs whose "
          "analysis mates queue on the analysis stand-in, which is far busier than Eureka "
          "at this load (base slowdown 11.9 against Eureka's 1.7, "
          "fig4-base-slowdown-analysis-0.25): in the month of seed 1 (the cell's draws; "
          "7.5% paired, HH) 83 compute jobs are paired, their median sync is 0, and "
          "the 3 that wait over 30 min (31, 143 and 324 min) carry 97% of the total, "
          "each holding and re-holding at every 20-minute release while its analysis "
          "mate, submitted within the 2 minutes, was not started by the analysis "
          "machine's WFP-EASY",
          "the same HH cells at load 0.25 on an analysis workload with Eureka's base "
          "slowdown (Eureka's trace, or KTH's jobs shortened until the base slowdown is "
          "1.7): the compute sync should fall under 10 min if this is the cause"),
    Cause("coupled",
          ("fig3-extra-wait-0.75", "fig3-hold-waits-longer-*", "fig5-sync-compute-HH-0.5",
           "fig6-lost-*"),
          "paper under-specified",
          "the costs of holding follow how many compute jobs are paired, which the paper "
          "leaves open ('The resulting proportion of paired jobs was between 5% and 10%', "
          "whose jobs unsaid): at 7.5% of the analysis jobs (0.9-2.1% of the compute "
          "jobs; docs/claims/coupled.csv, 20 months) they fall below the paper's (extra "
          "wait at load 0.75 20.1 min against 42; sync with hold at 0.5 38.7 against "
          "about 50; largest lost share 1.98% / 2.59% against 4.6% / 4.9%; hold less "
          "yield at 0.5 +0.7 min with intervals across 0), with every pair of the "
          "2-minute rule (4.3-9.9% of the compute jobs; docs/claims/coupled-2min.csv, "
          "20 months, holds released on the machine's clock) above them (extra wait at "
          "load 0.75 109 min [52, 167]; lost shares 8.6% [7.1, 10.2] / 10.4% [7.6, "
          "13.3]; sync with hold at 0.5 69.7 min [42.8, 96.7]; hold less yield on the "
          "compute machine +6.4 min [1.2, 11.6] at 0.5 and +37.8 [15.5, 60.1] at 0.75, "
          "agreeing)",
          "tested at pair_share 0.2 (4.4-5.6% of the compute jobs) on the table's 20 "
          "months (docs/studies/coupled-pair-share-0.2.toml, loads 0.5 and 0.75): the "
          "costs pass the paper's (extra wait at load 0.75 114 [46, 182] min; lost "
          "shares 5.97% [4.80, 7.15] and 8.57% [5.52, 11.6]; hold worse than yield in 3 "
          "of the 4 gaps, agreeing), so the paper's values lie between 7.5% and 20% of "
          "the analysis jobs; HH deadlocked in 5 of 20 months at 0.75. A pair share "
          "fitted to the lost shares (between 0.075 and 0.2) would have to be a "
          "calibration with the extra waits and sync times held out"),
    Cause("coupled", ("fig5-yield-syncs-longer-compute-*",), "paper under-specified",
          "the compute machine's yield-less-hold sync gap is smaller than one month's "
          "spread: its mean over 20 months is on the paper's side (+1.0 min at 0.25, "
          "+1.2 at 0.75) but the 95% interval crosses 0; the stand-in's heavy-tailed "
          "month and 83-194 paired compute jobs (a third of them waiting at all, seed 1) "
          "leave the sign unsettled; with more pairs the means go negative (every "
          "2-minute pair, docs/claims/coupled-2min.csv, 20 months: +0.95 / -4.3 / -51.1 "
          "min at 0.25 / 0.5 / 0.75; pair_share 0.2, "
          "docs/studies/coupled-pair-share-0.2.toml: -16.8 / -58.6 min at 0.5 / 0.75): "
          "with more jobs holding, hold syncs later than yield",
          "the sync times of the same pairs under YH and HH compared pair by pair within "
          "each month (per-job tables), which removes the month-to-month spread"),
    Cause("coupled", ("*",), "paper under-specified",
          _COUPLED_TRACES + "; the stand-in's heavy-tailed run times make one month's "
          "waits differ from another's by tens of minutes, so an extra wait is the "
          "difference of two schedules that diverge, and a range's low end can fall "
          "below zero; with 7.5% of the analysis jobs paired, few compute jobs hold",
          "Intrepid's month (its run times and per-machine paired counts), or its "
          "run-time distribution to draw the stand-in from"),
    # coupled studies: Atlas's sampled months with every 2-minute pair
    # (docs/claims/coupled-atlas-2min.toml), and the proportion study with the paper's
    # special analysis workload (docs/claims/coupled-special.toml)
    Cause("coupled-atlas-2min",
          ("fig3-extra-wait-*", "fig4-extra-slowdown-*", "fig5-sync-*", "fig6-*",
           "fig3-hold-waits-longer-*", "fig5-yield-syncs-longer-*"),
          "paper under-specified",
          "LLNL Atlas stands in for Intrepid, and its packed load 0.94 was fitted on month "
          "5 of the log alone (64 min of base wait): over the 20 drawn months the base "
          "wait is 205 min [129, 281] and the base slowdown 414, so every cost of "
          "coscheduling is measured on a machine three times as congested as the paper's "
          "(extra wait at load 0.75 101 min against 42; compute sync with hold at 0.5 72 "
          "against about 50), with every 2-minute pair kept (3.1-6.8% of the compute "
          "jobs, 20-21% of the analysis jobs)",
          "the base runs of the same 20 months at lower packed loads "
          "(docs/studies/coupled-atlas-drawn-load.toml; python "
          "docs/studies/coupled_atlas_drawn_load.py): 1.9 / 12.8 / 33.4 / 36.6 / 86.8 / "
          "205 min of base wait at 0.8 / 0.85 / 0.87 / 0.88 / 0.9 / 0.94, so the paper's "
          "61 lies between 0.88 and 0.9; the study rerun at a load fitted on the drawn "
          "months (a calibration, its base wait the fit set) would show which gaps follow "
          "the congestion"),
    Cause("coupled-atlas-2min", ("fig4-base-slowdown",), "paper under-specified",
          "Atlas's jobs are short (median 2.6 min in month 5), so each minute of wait "
          "weighs heavily in the slowdown: 414 [311, 517] over the drawn months against "
          "Intrepid's 6.1",
          "Intrepid's log, or Atlas's months at a load whose base wait is the paper's"),
    Cause("coupled-atlas-2min", ("pairing-share-compute-0.25",), "paper under-specified",
          "at analysis load 0.25 the 2-minute rule pairs 3.1% of Atlas's drawn months' "
          "jobs (the packed KTH month has 1,112 jobs), below the paper's 5-10%; whose "
          "jobs the share counts is unsaid (docs/coupled.md)",
          "the paper's count of paired jobs per machine"),
    Cause("coupled-special", ("fig7-extra-wait-*-min",), "paper under-specified",
          _COUPLED_TRACES + "; the smallest extra wait over the schemes is pulled down by "
          "yield-yield, which costs the compute machine little here (mean compute wait "
          "over the 10 months 85.2 / 86.8 / 85.0 / 89.4 min at 2.5 / 5 / 10 / 20% paired "
          "against the base's 84.6; the run's report.md), and by the months' spread: a "
          "minimum over 4 or 12 paired differences of two schedules of a heavy-tailed "
          "month falls below its mean",
          "the same cells on Intrepid's month (its run times), or per-pair wait "
          "differences within each month, which remove the month-to-month spread"),
    Cause("coupled-special", ("fig9-sync-compute-*",), "paper under-specified",
          _COUPLED_TRACES + "; with the special workload (the first 9,219 KTH jobs, "
          "their times scaled to load 0.5: median run 96 s) an analysis mate is made "
          "ready soon, so a compute job holding for it waits 17-44 min on average (HH "
          "and HY, 2.5-20% paired) against the paper's 75-88; HH deadlocks at 33% "
          "paired in every month, so the claims over all proportions with HH are not "
          "run",
          "Eureka's trace; the sync times per pair, split by which side was ready first"),
    Cause("coupled-special", ("fig10-lost-compute",), "paper under-specified",
          "the compute machine's largest lost share is HH's at 33% paired in the paper "
          "(hold holds most); here HH at 33% deadlocks in all 10 months, so the largest "
          "comes from HY at 33% (6.2% at most) and the mean over months of the largest "
          "is 5.4% [5.0, 5.8] against 9.3%",
          "HH at 33% paired run to the end (a release rule that ends its deadlocks, or "
          "the paper's trace, on which it did not deadlock)"),
    # FCS
    Cause("fcs", ("s4-*-SB*",), "missing mechanism",
          "each block costs SB only the interrupt and a queue move, so on fine-grained "
          "balanced jobs it runs as fast as batch, against both time-sharing papers; a "
          "wake-up cost (the reading wake_cost) fitted on section 3.1 and SWEEP3D (300 us) "
          "brings SWEEP3D to 252 s (paper 275) and SAGE + SWEEP3D to 254 s (272), but "
          "held out it moves section 3.2 14-15% away and leaves 3.4's order "
          "(docs/timesharing-fidelity.md, 'The wake-up cost of a block')",
          "a measured per-block cost of Wolverine's Linux 2.4 (interrupt, wake-up path, "
          "cache refill), or SB's slowdown on balanced jobs measured without noise; the "
          "interrupt costs measured at the time (5-15 us per tick, Tsafrir 2007; 21 us of "
          "overhead per interrupt, Boosten 1998) are below the 50 us the model charges, "
          "so the gap needs a cache refill of SWEEP3D's working set, measured"),
    Cause("fcs", ("s4-*",), "missing mechanism",
          "no cache or working-set reload after a switch, which the paper blames for "
          "GS's and FCS's section 4 overhead; SAGE and SWEEP3D are skeletons; per-PE "
          "noise (1 ms or 10 ms at 1%) brings GS's SWEEP3D onto the paper's (224 to 226 "
          "and 231 s, paper 232) and FCS's with it (226 and 231 s, paper 244), and moves FCS's "
          "SAGE + SWEEP3D away (240 to 242-245 s, paper 235)",
          "a reload cost per switch from the applications' working sets, measured, and "
          "section 4 run with it (python docs/studies/fcs_mechanisms.py --reading '' "
          "--reading <the cost's reading>)"),
    Cause("fcs", ("fig7-*", "fig8-*", "fig9-*"), "paper under-specified", _FCS_SECTION5,
          "the paper's workload (job kinds, requests), or the FCS throughput gap measured "
          "on each kind of job alone"),
    Cause("fcs", ("s3-complementing-SB*",), "missing mechanism",
          "SB's communicating job 3 waits less behind the CPU-bound ranks than the "
          "paper's (227.6 s against 244): each of its blocks costs only the interrupt and "
          "a queue move; the wake-up cost fitted on 3.1 and SWEEP3D gives 243.8 s, but "
          "moves section 3.2 14-15% away, and 21 us more per wake-up (a measured "
          "interrupt overhead's size, added as a sensitivity) gives 239 s",
          "a measured per-block cost of Wolverine's Linux 2.4 (interrupt, wake-up path, "
          "cache refill)"),
    Cause("fcs", ("s3-mixed-GS*",), "paper under-specified",
          "the paper does not give section 3.4's gang matrix; in cosched each job has its "
          "own row and the rows take equal turns, so the 60 s balanced job 3 ends first "
          "(about 184 s) and the two 120 s jobs near 306 s, where the paper's GS ends jobs "
          "1-2 at 185 s and job 3 at 305 s, which neither three equal rows (job 3 at 180 s, "
          "jobs 1-2 at 300 s) nor jobs 1-2 sharing a row (120 s, 240 s) gives by hand",
          "the paper's gang matrix for section 3.4 (its rows, their order and slices)"),
    Cause("fcs", ("s3-mixed-SB*", "s3-mixed-FCS-vs-SB"), "paper under-specified",
          "in section 3.4 SB's balanced job 3 ends first (159.8 s, paper 276 s, last): "
          "under Linux 2.4's counters a process that blocks every iteration keeps ticks "
          "the CPU-bound ranks spend and wins the CPU when it wakes, so job 3's ranks "
          "compute 15.8 / 31.7 / 47.5 s by 50 / 100 / 150 s against the pair's 13.6 / "
          "27.1 / 40.7 s, where the paper's end times (276 = 214 + 60 + 2) imply job 3 "
          "computed almost nothing while the pair ran; per-PE noise (1 ms and 10 ms at "
          "1%, 1 s at 1%) and a per-block cost (21 us, 300 us) keep that share (15.7 and "
          "13.8 s at 50 s) and job 3 first (161-183 s; docs/timesharing-fidelity.md, "
          "'OS noise and the per-block cost, claim by claim (FCS)'). The noise the paper blames "
          "(lines 227, 296) is not quantified, and its reference [20]'s figures were not "
          "found in the texts searched",
          "job 3's progress under SB at 50, 100 and 150 s with the daemons of [20] (ASCI "
          "Q's measured periods and durations per node) on 128 PEs: `python "
          "docs/studies/fcs_mechanisms.py --reading nodes=128,noise_period=...`; or the "
          "paper's per-iteration times of job 3 under SB"),
    Cause("fcs", ("*",), "paper under-specified",
          "section 3.4's SB starves the balanced job 3, which the paper puts down to "
          "noise from system daemons (lines 227, 296) that it does not quantify; no "
          "reading of the documented Linux 2.4 scheduler, no noise tried (per-PE daemons "
          "at 1 and 10 ms, nodes out of step, on 8 and 128 PEs), spin, latency, context "
          "switch or wake-up cost reproduces it (docs/timesharing-fidelity.md, 'Section 3.4: the "
          "disagreement')",
          "Wolverine's noise as measured on ASCI Q's Alpha nodes (the paper's [20]: its "
          "daemons' periods and durations) run at 128 PEs, or the paper's per-iteration "
          "times of job 3 under SB"),
    # dynamic coscheduling
    Cause("dyncosched", ("table4-SY-WL5-MPL5",), "reading without evidence",
          "the claim reads the mean response of the jobs that finished by the horizon "
          "(4 x the last submission plus the longest job): SY saturates on WL5 at MPL 5 "
          "and leaves 33-121 of 300 jobs running, so its collapse drops out; run until "
          "every job ends, its response rises +1.30 to +3.46 over MPL 2 (mean +2.63 on 3 "
          "seeds of 300 jobs; paper +4.59), its processes spinning 87-92% of the CPU "
          "(docs/timesharing-fidelity.md, 'Table 4's collapse at high MPL')",
          "Table 4's WL5 cells at 20 seeds with the horizon at 40 x "
          "(docs/studies/dyncosched_collapse.py --seeds 20 --horizon-factor 40)"),
    Cause("dyncosched", ("table4-Local-*",), "missing mechanism",
          "the model's Local has collapsed at MPL 2 already: on WL5 its processes spin "
          "88% of the CPU and, every job run out, mean responses are 94-316 s against "
          "jobs of seconds, so MPL 5 has nothing left to lose (-0.18 to -0.52 against the "
          "paper's +15.44); the paper's Local is usable at MPL 2. A spinning receiver holds "
          "its CPU for its whole MLFQ quantum (20-200 ms, against iterations of 0.3-3.7 "
          "ms) whenever its partner is not scheduled",
          "Local's WL5 response at MPL 1, 2 and 3 with every job run out (horizon 40 x), "
          "one seed of 60 jobs at the paper's own durations (time_scale 1), to find the "
          "MPL at which the model's Local collapses"),
    Cause("dyncosched", ("table4-SY-WL4-*", "table4-PB-SY-*-MPL16"), "missing mechanism",
          "no cost in the model grows with the MPL for a yielding process but SY's "
          "endpoint checks (2 us per process per yield): with every job run out SY on "
          "WL4 changes -0.07 to -0.54 at MPL 5 (paper +2.82) and PB-SY -0.34 to -0.62 at "
          "MPL 16 on WL5 (paper +2.78); interface contention does not add it (-0.23 and "
          "-0.44 with it)",
          "the cost of a yield with k runnable processes on the paper's Solaris node, "
          "and Table 4's SY and PB-SY cells rerun with it"),
    Cause("dyncosched", ("fig3-saturation-*",), "paper under-specified",
          "every ceiling is about half the paper's (5 seeds of 300 jobs: GS 35.4, SB 34.9, "
          "PB-SB 34.5, PB 25.4 against 57, 77, 77, 77) and no reading tried lifts them: "
          "I/O holding the CPU moves them -3.3 to +2.9 points (GS 35.4, SB 36.3, PB 28.3), "
          "interface contention -5.6 to +0.3, jobs 4 times longer at most 3.4; at load 1.2 "
          "SB's CPU time is 32% compute, 25% switching and 27% idle; " + _DCS_WORKLOAD,
          "Figure 3's WL7 cells with free switches (context_switch 0), then with every "
          "job admitted at once, to split the gap between switching and idle slots"),
    Cause("dyncosched", ("fig3-*",), "reading without evidence",
          "PB and PB-SY receive by spinning without a bound (PB spins 44-50% of the CPU "
          "at load 1.2), so PB stays 4.5-8.6 points below GS where the paper has it 20 "
          "above; with interface contention SB, PB-SB and DCS-SB rise above GS, by 3-5 "
          "points (paper 20), on 5 seeds of 300 jobs, and with I/O holding the CPU SB "
          "by 0.3-0.9 (docs/timesharing-fidelity.md, 'The claims NIC contention moves', "
          "'The claims I/O holding the CPU moves')",
          "PB's CPU breakdown at load 1.2 under the paper's own PB heuristic parameters, "
          "or Figure 3 rerun with interface contention at 20 seeds of 1,000 jobs"),
    Cause("dyncosched", ("fig4-*",), "paper under-specified",
          "Figure 4's order depends on how many jobs queue: with 60 jobs at load 1 PB is "
          "the fastest on WL5 (0.349 s, SB 0.398, GS 0.550; PB first again with jobs 4 "
          "times longer), with 300 jobs GS is (3.75 s) and PB among the slowest (21.7); "
          "the paper gives neither its number of jobs nor its LLNL workload; "
          "I/O holding the CPU makes SB the fastest on WL5 at 300 jobs (2.21 s, GS 2.56, "
          "PB 4.25)",
          "Figure 4's WL5 at 60, 150, 300 and 1,000 jobs on 5 seeds, to find where PB "
          "loses the lead"),
    Cause("dyncosched", ("table5-*", "fig5-*"), "reading without evidence",
          "switches take a quarter of the blocking schemes' CPU time, so cheaper "
          "switches help them more than the paper's (SB -0.42 against -0.35 on 5 seeds of "
          "300 jobs); interface contention, a per-message cost the cost variants do not "
          "change, brings SB onto the paper's (-0.355 and -0.346; paper -0.353, -0.341) "
          "and Figure 5's blocking schemes above PB (+0.017)",
          "Table 5 and Figure 5 at 20 seeds of 1,000 jobs with interface contention on"),
    Cause("dyncosched", ("*",), "paper under-specified", _DCS_WORKLOAD,
          "the LLNL workload model (its job count, sizes and run times); the time scale "
          "itself moves Figures 3 and 4 little (jobs / 400, / 100 and the paper's "
          "durations: docs/timesharing-fidelity.md, 'Figures 3 and 4 at three time "
          "scales')"),
)  # fmt: skip
