"""docs/fidelity.md: per paper, the claims' verdicts, the calibrations and each gap's cause.

The counts come from the stored claim tables (``docs/claims/*.csv``, written by
``scripts/readme_status.py``); the causes are data each family declares
(:attr:`Family.causes <cosched.families.Family.causes>`, gathered in :data:`CAUSES`): for
each claim cosched does not reproduce (*disagrees*, or *direction*: the sign right, the
size not), its cause, classified as one of :data:`KINDS`, and the evidence that would close it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal, cast

import pandas as pd

from cosched.errors import ConfigError
from cosched.experiments.calibration import Calibration, all_calibrations, calibrations
from cosched.experiments.claims import SEED_CAP, VERDICTS, agreement
from cosched.experiments.declarations import Kind as FieldKind
from cosched.experiments.declarations import read
from cosched.families import gathered, papers, readings

__all__ = [
    "CHANGE_COLUMNS",
    "KINDS",
    "REJUDGED",
    "Cause",
    "cause_of",
    "causes",
    "declared_causes",
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


#: The keys of a ``[[cause]]`` entry: the record's fields, every one required.
_FIELDS: dict[str, FieldKind] = {
    "family": "name",
    "claims": "names",
    "kind": "name",
    "cause": "text",
    "evidence": "text",
}


def declared_causes(package: str, filename: str = "causes.toml") -> tuple[Cause, ...]:
    """The causes ``package`` declares in its data file ``filename``, in the file's order.

    Raises:
        ConfigError: the file's error (:func:`cosched.experiments.declarations.read`) or
            a ``kind`` not in :data:`KINDS`.
    """
    out = []
    for entry in read(package, filename, "cause", _FIELDS, frozenset(_FIELDS)):
        v = cast(dict[str, str], entry.values)
        if v["kind"] not in KINDS:
            raise ConfigError(
                f"{entry.where}: kind: {v['kind']!r} is not one of {', '.join(KINDS)}"
            )
        claims = cast(tuple[str, ...], entry.values["claims"])
        out.append(Cause(v["family"], claims, cast(Kind, v["kind"]), v["cause"], v["evidence"]))
    return tuple(out)


def causes() -> tuple[Cause, ...]:
    """Every registered cause: what each family declares (:attr:`Family.causes
    <cosched.families.Family.causes>`), loaded once and kept as :data:`CAUSES`."""
    return gathered(globals(), "CAUSES", "causes", Cause)


def __getattr__(name: str) -> tuple[Cause, ...]:
    # CAUSES is read on first use: the families' declarations load their packages.
    if name == "CAUSES":
        return causes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cause_of(family: str, claim: str) -> Cause | None:
    """The first cause of ``family`` whose patterns hold ``claim`` (else None)."""
    for c in causes():
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
        groups.setdefault(causes().index(c) if c else -1, []).append(row)
    lines = []
    for key, rows in groups.items():
        if key < 0:
            lines += ["**Unclassified.**", ""]
        else:
            c = causes()[key]
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
    return tuple(c for c in all_calibrations() if c.claims_of == paper)


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

        # Like with like: the claims no fit of the study read, and the study ran; a claim
        # fitted on either side (a calibration the other copy does not carry) counts on
        # neither.
        def fitted(claim: str, group: list[Calibration] = group) -> bool:
            return any(k.fits(claim) for k in group)

        held, under, left = _like_with_like(frame, studies[family], fitted)
        scope = _left_out(left, "the study did not run")
        lines.append(
            f"| {fit.family} | {_cell(fit.parameter)} = {_cell(fit.value)} | "
            f"{', '.join(fit.fitted_to)} | {agreement(held).text()}{scope} | "
            f"{agreement(under).text()} |"
        )
        details += _study_details(name, fit, held, under, runs_of(studies[family]))
    return [*lines, "", *details]


def _moved(held: pd.DataFrame, under: pd.DataFrame) -> list[str]:
    """One table row per claim whose verdict differs between ``held`` (without) and
    ``under`` (with): claim, paper, each side's number and verdict."""
    before = held.set_index("claim")
    rows = []
    for r in under.itertuples(index=False):
        b = before.loc[r.claim]
        if b["verdict"] != r.verdict:
            rows.append(
                f"| {r.claim} | {_cell(b['paper'])} | {_num(float(b['cosched']))}: "
                f"{b['verdict']} | {_num(float(r.cosched))}: {r.verdict} |"
            )
    return rows


def _like_with_like(
    frame: pd.DataFrame, other: pd.DataFrame, fitted: Callable[[str], bool]
) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """``frame``'s claims that ``other`` ran, that no fit of ``fitted`` read and that
    neither table counts as calibrated; those claims' rows in ``other``; and how many of
    ``frame``'s claims ``other`` did not run."""
    study = other.set_index("claim")
    ran = study.index[study["verdict"] != "not run"]
    calibrated = set(study.index[study["verdict"] == "calibrated"])
    calibrated |= set(frame.loc[frame["verdict"] == "calibrated", "claim"])
    held = frame[[not fitted(c) and c in ran and c not in calibrated for c in frame["claim"]]]
    return held, study.loc[held["claim"]].reset_index(), int((~frame["claim"].isin(ran)).sum())


def _left_out(left: int, what: str) -> str:
    return f" ({left} claim{'s' * (left != 1)} {what} left out of both)" if left else ""


def _readings(name: str, frame: pd.DataFrame, copies: dict[str, pd.DataFrame]) -> list[str]:
    """Per mechanism or reading of ``name`` with a claim copy
    (:func:`cosched.families.readings`): the agreement without it (the table above) and
    with it, every claim the copy ran and neither table calibrates, and the claims whose
    verdict it moves."""
    declared = [m for m in readings(name) if m.name in copies]
    if not declared:
        return []
    lines = [
        "### Mechanisms and readings switched on",
        "",
        "Each mechanism or reading below (declared in its family's `Family.readings`) runs "
        "with parameters a paper or the literature states, none fitted, so every claim tests "
        "it: judged without it (the table above) and with it (`docs/claims/<name>.csv`), "
        "on the claims the mechanism's runs cover, every claim calibrated in either table "
        "left out of both.",
        "",
        "| mechanism | reading | stated by | without | with |",
        "|---|---|---|---|---|",
    ]
    details: list[str] = []
    for m in declared:
        held, under, left = _like_with_like(frame, copies[m.name], lambda _c: False)
        lines.append(
            f"| {m.name}{' (default)' * m.default} | {_cell(m.reading)} | {_cell(m.source)} "
            f"| {agreement(held).text()}{_left_out(left, 'not run with it')} | "
            f"{agreement(under).text()} |"
        )
        seeds = int(under["seeds"].max()) if under["seeds"].notna().any() else 0
        moved = _moved(held, under)
        details += [
            f"**{m.name}** (numbers from {runs_of(copies[m.name])}, up to {seeds} "
            f"seed{'s' * (seeds != 1)}): "
            + (
                f"the {len(moved)} claims whose verdict it moves:"
                if moved
                else "it moves no verdict."
            ),
            "",
        ]
        if moved:
            details += ["| claim | paper | without | with |", "|---|---|---|---|", *moved, ""]
    return [*lines, "", *details]


def _study_details(
    name: str, fit: Calibration, held: pd.DataFrame, under: pd.DataFrame, command: str
) -> list[str]:
    seeds = int(under["seeds"].max()) if under["seeds"].notna().any() else 0
    lines = [
        f"**{fit.family}** (numbers from {command}, up to {seeds} seed{'s' * (seeds != 1)}). "
        "Held-out claims whose verdict the fit changes:",
        "",
        "| claim | paper | default | fitted |",
        "|---|---|---|---|",
    ]
    changed = _moved(held, under)
    lines += changed
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
        groups.setdefault(causes().index(c) if c else -1, []).append(f"{r.claim} ({r.verdict})")
    lines += [f"Held out and not agreeing under {fit.family}, by cause:", ""]
    for key, claims in sorted(groups.items()):
        if key < 0:
            lines.append(f"* **Unclassified**: {', '.join(claims)}.")
        else:
            c = causes()[key]
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
    switched: dict[str, pd.DataFrame] | None = None,
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
        *_readings(name, frame, switched or {}),
        *_sensitivity(sensitivity),
        *_quick(name, frame, quick),
    ]


def fidelity_markdown(
    copies: dict[str, pd.DataFrame],
    quick: dict[str, pd.DataFrame] | None = None,
    changes: pd.DataFrame | None = None,
    studies: dict[str, pd.DataFrame] | None = None,
    sensitivity: dict[str, pd.DataFrame] | None = None,
    switched: dict[str, pd.DataFrame] | None = None,
) -> str:
    """docs/fidelity.md from the claim copies (reproduction -> its table), from the
    copies of the reproductions' quick runs (``quick``: a paper's section lists the
    claims whose verdict the quick grid gives differently), from the stored verdict
    changes (``changes``: :func:`verdict_changes`), from the claim copies of the
    calibrated studies (``studies``: study family -> its table, :func:`studies_of`) and
    from the sensitivity tables (``sensitivity``: reproduction -> its sweep's table,
    :func:`sensitivity_classes`) and from the claim copies of the runs with a mechanism
    switched on (``switched``: mechanism name -> its table, :func:`_mechanisms`)."""
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
            name, frame, (quick or {}).get(name), studies, (sensitivity or {}).get(name), switched
        )
    lines += _changes(changes)
    return "\n".join(lines).rstrip() + "\n"
