"""LOMARC: the unknown inputs swept over their ranges, and a fit held out.

    cosched sweep docs/claims/lomarc-sensitivity.toml --out runs/lomarc-sensitivity
    python docs/studies/lomarc_unknowns.py sweep --seeds 0-4 \\
        --from-sweep runs/lomarc-sensitivity --claims docs/claims --write docs/lomarc.md
    python docs/studies/lomarc_unknowns.py fit --seeds 0-9 --out runs/lomarc-unknowns \\
        --write docs/lomarc.md
    python docs/studies/lomarc_unknowns.py heldout --seeds 0-19 --out runs/lomarc-unknowns \\
        --default-store runs/lomarc-20seeds --claims docs/claims --write docs/lomarc.md
    python docs/studies/lomarc_unknowns.py probe --seeds 0-19 --out runs/lomarc-unknowns \\
        --write docs/lomarc.md

The unknowns and their ranges are declared in :mod:`cosched.lomarc.unknowns` (W1's
offered load, with W2 and W3 at Table 4's ratios; the short-job share; how the memory
slowdown combines with the shared parts). Every run is stored as it finishes (one
Parquet file per point, seed and workload), so a rerun runs only what is missing (a
stored cell written before a metric column existed lacks it: the readings that need
it are then left out).

* ``sweep``: every variant (and AC under each memory reading) at every point of the
  grid ``w1_load x short_share`` of :data:`~cosched.lomarc.unknowns.UNKNOWNS`, M1 on
  W1-W3 and M2, M3 on W1. Each claim is judged at each point (and memory reading) by
  :func:`cosched.experiments.claims.evaluate`, the claim tables' rule, then sorted by
  :func:`cosched.experiments.fidelity.sensitivity_classes`: **robust** (agrees at every
  point inside the ranges), **explained** (at some, not all: the unknown decides it),
  **model's** (at none). Points outside a range (``Unknown.outside``) are reported but
  not counted. ``--claims DIR`` writes the rows as ``DIR/lomarc-sensitivity.csv``.
* ``fit``: :func:`cosched.experiments.calibration.grid_fit` of ``w1_load`` and
  ``short_share`` on Table 5's queue lengths and medium-or-long counts (the fit set of
  the calibration registered as family ``lomarc-fitted``), over a finer grid, with L-U1,
  L-U2 and L-R only (the variants Table 5 reports).
* ``heldout``: the default (paper-alpha) workloads and the fitted point, every claim at
  the given seeds, the fit set excluded from both, and the fitted point under the
  other memory and metric readings; ``--claims DIR`` writes the fitted point's claim
  table as ``DIR/lomarc-fitted.csv`` (the study's copy docs/fidelity.md reads).
* ``probe``: the mechanisms behind the claims still apart at the fitted point.

``--write PAGE`` replaces the page's generated block of the command (between its
``lomarc_unknowns:<command>`` markers).
"""

from __future__ import annotations

import argparse
import itertools
import re
import shlex
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from cosched.engine.simulation import Simulation
from cosched.experiments.calibration import calibrations, grid_fit
from cosched.experiments.claims import Improvement, agreement, evaluate
from cosched.experiments.fidelity import sensitivity_classes
from cosched.experiments.stats import Interval, mean_ci
from cosched.lomarc.claims import claims
from cosched.lomarc.diagnostics import run_metrics
from cosched.lomarc.experiment import (
    METRIC_READINGS,
    NODES,
    RUNS,
    cell_workload,
    under_metric_reading,
    under_preset,
)
from cosched.lomarc.matching import Funnel, matchable
from cosched.lomarc.policies import Lomarc, lomarc_platform
from cosched.lomarc.slowdown import SlowdownModel, profile_of
from cosched.lomarc.unknowns import UNKNOWNS, sensitivity_workload
from cosched.policies.base import make_policy
from cosched.workload.job import Workload
from cosched.workload.models.lublin import generate_lublin

PAIRS = (("W1", "M1"), ("W2", "M1"), ("W3", "M1"), ("W1", "M2"), ("W1", "M3"))
VARIANTS = (
    "PSS",
    "AC",
    "AM",
    "L-N",
    "L-U1",
    "L-U2",
    "L-R",
    "L-FM",
    "AC-overlap-add",
    "AC-overlap-excess",
)
MEMORY = ("overlap", "overlap-add", "overlap-excess")
FIT_LOADS = (0.55, 0.65, 0.75, 0.85, 0.9, 0.95, 0.975, 0.99)
FIT_SHARES = (0.25, 0.42, 0.55, 0.71)
FIT_VARIANTS = ("L-U1", "L-U2", "L-R")
FAMILY = "lomarc-fitted"
#: Probes of the mechanisms behind the claims the fit leaves disagreeing (``probe``).
PROBES: dict[str, tuple[str, dict[str, object]]] = {
    "L-R-short": ("lomarc-r", {"medium_long_only": False}),
    "L-FM-short": ("lomarc-fm", {"medium_long_only": False}),
    "L-N-short": ("lomarc-n", {"medium_long_only": False}),
}
MARK = "<!-- lomarc_unknowns:{}:{} -->"
_W = ("W1", "W2", "W3")
#: The verdicts that test a claim at a point (the others: calibrated, input, untestable,
#: not run, not simulated).
TESTED = ("agrees", "direction", "inconclusive", "disagrees")


def command() -> str:
    """The command line that is running, as a claims copy's ``command`` cell."""
    return shlex.join(["python", "docs/studies/lomarc_unknowns.py", *sys.argv[1:]])


def write_copy(path: Path, table: pd.DataFrame, judged: str | None = None) -> None:
    """``table`` as a ``docs/claims`` copy: the command first; with ``judged``, the
    claim table's ``judged`` cell last (a sensitivity table has none)."""
    frame = table.copy()
    frame.insert(0, "command", command())
    if judged is not None:
        frame["judged"] = judged
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, float_format="%.6g", lineterminator="\n")


def study_table(results: pd.DataFrame) -> pd.DataFrame:
    """The fitted study's claim table: its fit set *calibrated* (family ``lomarc-fitted``),
    and the reproduction's own fits too (Table 2's estimates, fitted by the ``overlap``
    reading the study keeps)."""
    table = evaluate(claims(), results, FAMILY)
    own = evaluate(claims(), results, "lomarc")
    kept = own["verdict"] == "calibrated"
    table.loc[kept, ["verdict", "reason"]] = own.loc[kept, ["verdict", "reason"]]
    return table


def _seeds(text: str) -> list[int]:
    if re.fullmatch(r"\d+-\d+", text):
        a, b = map(int, text.split("-"))
        return list(range(a, b + 1))
    return [int(s) for s in text.split(",")]


def _point(load: float | None, share: float | None) -> str:
    return "paper-alpha" if load is None else f"{load:g}/{share:g}"


def _workload(
    w: str, m: str, seed: int, jobs: int, load: float | None, share: float | None
) -> Workload:
    if load is None or share is None:
        return cell_workload("paper-alpha", w, m, seed, jobs)
    return sensitivity_workload(w, m, seed, jobs, load, share)


def runs(
    out: Path,
    load: float | None,
    share: float | None,
    seeds: Iterable[int],
    variants: Iterable[str],
    pairs: Iterable[tuple[str, str]],
    jobs: int,
) -> pd.DataFrame:
    """The rows of one grid point (run where missing, stored per seed and pair)."""
    frames = []
    want = tuple(variants)
    for seed, (w, m) in itertools.product(seeds, pairs):
        f = out / "cells" / f"{_point(load, share).replace('/', '_')}-{seed}-{w}-{m}-{jobs}.parquet"
        have = pd.read_parquet(f) if f.is_file() else pd.DataFrame({"variant": []})
        missing = [v for v in want if v not in set(have["variant"])]
        if missing:
            wl = _workload(w, m, seed, jobs, load, share)
            rows = []
            for v in missing:
                name, extra = RUNS[v] if v in RUNS else PROBES[v]
                result = Simulation(wl, lomarc_platform(NODES), make_policy(name, **extra)).run()
                rows.append(
                    {
                        "set": "paper-alpha",
                        "workload": w,
                        "mixture": m,
                        "variant": v,
                        "seed": seed,
                        "n_jobs": jobs,
                        "status": "ok",
                        **run_metrics(result, NODES),
                    }
                )
            have = (
                pd.concat([have, pd.DataFrame(rows)], ignore_index=True)
                if len(have)
                else pd.DataFrame(rows)
            )
            f.parent.mkdir(parents=True, exist_ok=True)
            have.to_parquet(f)
        frames.append(have[have["variant"].isin(want)])
    return pd.concat(frames, ignore_index=True)


def point_tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per memory reading: the claim table of one grid point's runs (the reproduction's
    calibrations apply: Table 2's estimates are *calibrated*)."""
    return {
        reading: evaluate(
            claims(), results if reading == "overlap" else under_preset(results, reading), "lomarc"
        )
        for reading in MEMORY
    }


def _inside(load: float, share: float) -> bool:
    """Whether a point of the grid lies inside the ranges the paper's text allows."""
    ranges = {u.name: u for u in UNKNOWNS}
    w1, short = ranges["w1_load"], ranges["short_share"]
    assert w1.low is not None and w1.high is not None
    return w1.low < load < w1.high and share not in short.outside


def sensitivity(args: argparse.Namespace) -> pd.DataFrame:
    """One row per grid point, memory reading and claim judged there (the columns of
    ``docs/claims/<paper>-sensitivity.csv``: unknowns, point, inside, claim, cosched,
    seeds, verdict)."""
    loads, shares, _memory = (u.values for u in UNKNOWNS)
    stored = _swept(args.from_sweep, args.jobs) if args.from_sweep else None
    rows = []
    for load, share in itertools.product(loads, shares):
        assert isinstance(load, float) and isinstance(share, float)
        if stored is None:
            res = runs(args.out, load, share, args.seeds, VARIANTS, PAIRS, args.jobs)
        else:
            res = _point_rows(stored, load, share, args.seeds)
        for reading, table in point_tables(res).items():
            judged = table[table["verdict"].isin(TESTED)]
            for r in judged.itertuples(index=False):
                rows.append(
                    {
                        "unknowns": "w1_load,short_share,slowdown",
                        "point": f"w1_load={load:g} short_share={share:g} slowdown={reading}",
                        "inside": _inside(load, share),
                        "claim": r.claim,
                        "cosched": r.cosched,
                        "seeds": r.seeds,
                        "verdict": r.verdict,
                    }
                )
    return pd.DataFrame(rows)


def _swept(store: Path, jobs: int) -> pd.DataFrame:
    """The runs of a ``cosched sweep docs/claims/lomarc-sensitivity.toml`` store."""
    from cosched.experiments.store import read_results

    results, _ = read_results(store)
    if "w1_load" not in results.columns or "short_share" not in results.columns:
        raise SystemExit(f"lomarc_unknowns: {store} holds no w1_load / short_share runs")
    return results[(results["n_jobs"] == jobs) & (results["status"] == "ok")]


def _point_rows(stored: pd.DataFrame, load: float, share: float, seeds: list[int]) -> pd.DataFrame:
    """One point's rows of a sweep store: every variant, pair and seed, or an exit
    naming what is missing."""
    at = stored[
        np.isclose(stored["w1_load"], load)
        & np.isclose(stored["short_share"], share)
        & stored["seed"].isin(seeds)
        & stored["variant"].isin(VARIANTS)
    ]
    want = len(seeds) * len(VARIANTS) * len(PAIRS)
    if len(at) != want:
        raise SystemExit(
            f"lomarc_unknowns: the sweep store holds {len(at)} of the {want} runs of "
            f"w1_load={load:g} short_share={share:g} at seeds {seeds}"
        )
    return at.drop(columns=["w1_load", "short_share"]).reset_index(drop=True)


def model_short_share(typeless: bool, jobs: int) -> float:
    """The share of jobs of at most 60 s in a Lublin workload (seed 0, 128 nodes)."""
    w = generate_lublin(jobs, nodes=NODES, rng=np.random.default_rng(0), typeless=typeless)
    return float((np.asarray(w.columns["run_time"]) <= 60).mean())


def _head(*columns: str) -> list[str]:
    """A Markdown table's header and rule lines."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def sweep(args: argparse.Namespace) -> list[str]:
    loads, shares, _memory = (u.values for u in UNKNOWNS)
    table = sensitivity(args)
    if args.claims:
        write_copy(args.claims / "lomarc-sensitivity.csv", table)
    inside = table[table["inside"]]
    points = sorted(set(inside["point"]))
    classes = sensitivity_classes(table)
    ids = sorted({*classes["robust"], *classes["explained"], *classes["model's"]})
    outside = sorted({float(s) for u in UNKNOWNS if u.name == "short_share" for s in u.outside})
    kept = [s for s in shares if s not in outside]
    lines = [
        f"Generated by `{command()}` ({args.jobs} jobs, seeds "
        f"{args.seeds_text}; each claim judged at each point by "
        "`cosched.experiments.claims.evaluate`, as in the claim tables, and sorted as "
        "docs/fidelity.md sorts `docs/claims/lomarc-sensitivity.csv`). "
        f"{len(points)} points inside the ranges: w1_load {', '.join(f'{x:g}' for x in loads)} "
        f"x short_share {', '.join(f'{x:g}' for x in kept)} x memory reading "
        f"{', '.join(MEMORY)}; {len(ids)} claims judged (Table 2's six formula evaluations "
        "are the reproduction's calibration and are left out).",
        "",
    ]
    typeless, separated = (model_short_share(t, args.jobs) for t in (True, False))
    lines[0] += (
        f" The short-job share's range: the typeless Lublin model gives {typeless:.2f} of "
        f"its jobs short, the class-separated model {separated:.2f} ({args.jobs} jobs, "
        "seed 0)."
    )
    lines += _head("claims", "count", "share")
    for kind in ("robust", "explained", "model's"):
        members = classes[kind]
        lines.append(f"| {kind} | {len(members)} | {100 * len(members) / len(ids):.0f}% |")
    lines += [
        "",
        *_head(
            "explained claim", "agrees at (w1_load / short_share / memory)", "unknowns that flip it"
        ),
    ]
    names = ("w1_load", "short_share", "slowdown")

    def key(point: str) -> tuple[str, ...]:
        return tuple(part.split("=")[1] for part in point.split(" "))

    for cid in classes["explained"]:
        mine = inside[inside["claim"] == cid]
        hit = {key(p): v == "agrees" for p, v in zip(mine["point"], mine["verdict"], strict=True)}
        at = [k for k, v in hit.items() if v]
        flips = [
            name
            for i, name in enumerate(names)
            if any(
                hit[k] != hit[o]
                for k in hit
                for o in hit
                if all(k[j] == o[j] for j in range(3) if j != i)
            )
        ]
        shown = ", ".join("/".join(k) for k in at[:3]) + (" ..." if len(at) > 3 else "")
        lines.append(f"| {cid} | {len(at)} of {len(hit)}: {shown} | {', '.join(flips)} |")
    lines += ["", "Robust: " + ", ".join(f"`{c}`" for c in classes["robust"]) + "."]
    lines += [
        "",
        "Model's (agrees at no point inside the ranges): "
        + ", ".join(f"`{c}`" for c in classes["model's"])
        + ".",
    ]
    rescued = []
    out_pts = table[~table["inside"] & (table["verdict"] == "agrees")]
    for cid in classes["outside only"]:
        at = [key(p) for p in out_pts.loc[out_pts["claim"] == cid, "point"]]
        rescued.append(f"`{cid}` ({', '.join('/'.join(k) for k in at[:3])})")
    if rescued:
        lines += [
            "",
            f"Of those, agreeing only outside the ranges (short_share "
            f"{', '.join(f'{x:g}' for x in outside)}): " + ", ".join(rescued) + ".",
        ]
    return lines


def fit(args: argparse.Namespace) -> list[str]:
    (cal,) = calibrations(FAMILY)
    points = {
        _point(load, share): runs(
            args.out, load, share, args.seeds, FIT_VARIANTS, PAIRS[:3], args.jobs
        )
        for load, share in itertools.product(FIT_LOADS, FIT_SHARES)
    }
    # The fit chooses among the points inside the declared ranges; the others' losses
    # are shown beside them.
    outside = {u.name: set(u.outside) for u in UNKNOWNS}
    inside = {
        k: v for k, v in points.items() if float(k.split("/")[1]) not in outside["short_share"]
    }
    best, losses = grid_fit(inside, claims(), cal.fitted_to)
    losses = {**grid_fit(points, claims(), cal.fitted_to)[1]}
    lines = [
        f"Generated by `python docs/studies/lomarc_unknowns.py fit --seeds {args.seeds_text} "
        f"--out DIR --write docs/lomarc.md` ({args.jobs} jobs; L-U1, L-U2, L-R on W1-W3, "
        f"M1): the loss of each point, mean |ln(cosched / paper)| over "
        f"{', '.join(f'`{p}`' for p in cal.fitted_to)}.",
        "",
        *_head(
            "w1_load",
            *(
                f"short {x:g}" + (" (outside)" if x in outside["short_share"] else "")
                for x in FIT_SHARES
            ),
        ),
    ]
    for load in FIT_LOADS:
        cells = []
        for share in FIT_SHARES:
            k = _point(load, share)
            cells.append(f"**{losses[k]:.3f}**" if k == best else f"{losses[k]:.3f}")
        lines.append(f"| {load:g} | " + " | ".join(cells) + " |")
    return [*lines, "", f"Best inside the ranges (bold): w1_load / short_share = {best}."]


def heldout(args: argparse.Namespace) -> list[str]:
    (cal,) = calibrations(FAMILY)
    load, share = (float(x) for x in cal.value.split(" ")[0].split("/"))
    tables = {}
    for label, (ld, sh) in (
        ("default (paper-alpha)", (None, None)),
        (f"fitted ({load:g} / {share:g})", (load, share)),
    ):
        if ld is None and args.default_store:
            stored = pd.read_parquet(args.default_store / "results.parquet")
            res = stored[stored["variant"].isin(VARIANTS) & stored["seed"].isin(args.seeds)]
            res = res[res["status"] == "ok"].reset_index(drop=True)
        else:
            res = runs(args.out, ld, sh, args.seeds, VARIANTS, PAIRS, args.jobs)
        tables[label] = study_table(res)
        if ld is not None and args.claims:
            write_copy(args.claims / f"{FAMILY}.csv", tables[label], "when the study ran")
        if ld is not None:  # the fitted inputs under the other readings
            for reading in MEMORY[1:]:
                tables[f"fitted, {reading}"] = study_table(under_preset(res, reading))
            for reading in METRIC_READINGS:
                read = under_metric_reading(res, reading)
                if (
                    read is not None
                    and read[list(METRIC_READINGS[reading].values())].notna().all().all()
                ):
                    tables[f"fitted, {reading}"] = study_table(read)
    ids = list(next(iter(tables.values()))["claim"])
    held = [c for c in ids if cal.holds_out(c)]
    lines = [
        f"Generated by `python docs/studies/lomarc_unknowns.py heldout --seeds "
        f"{args.seeds_text} --out DIR --write docs/lomarc.md` ({args.jobs} jobs, seeds "
        f"{args.seeds_text}); fit: `{cal.parameter}` = {cal.value}, fitted to "
        f"{', '.join(f'`{p}`' for p in cal.fitted_to)} (excluded from both columns).",
        "",
        *_head("held-out claims", *tables),
    ]
    groups = {"Figures 6-9 and the text": ("fig", "text"), "Table 5, other columns": ("table5",)}
    for name, prefixes in groups.items():
        cells = []
        for t in tables.values():
            sub = t[t["claim"].isin([c for c in held if c.startswith(prefixes)])]
            cells.append(agreement(sub).text())
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    all_cells = [agreement(t[t["claim"].isin(held)]).text() for t in tables.values()]
    lines.append("| **all held out** | " + " | ".join(all_cells) + " |")
    lines += [
        "",
        "Held-out claims whose verdict the fit changes:",
        "",
        *_head("claim", "paper", *list(tables)[:2]),
    ]
    a, b, *others = tables.values()
    readings = [label.split(", ")[1] for label in list(tables)[2:]]
    for k, cid in enumerate(ids):
        if cid in held and (a["verdict"].iloc[k] != b["verdict"].iloc[k]):
            lines.append(
                f"| {cid} | {a['paper'].iloc[k]} | {a['cosched'].iloc[k]:.3g} "
                f"({a['verdict'].iloc[k]}) | {b['cosched'].iloc[k]:.3g} "
                f"({b['verdict'].iloc[k]}) |"
            )
    failing = b[b["claim"].isin(held) & ~b["verdict"].isin(("agrees",))]
    by_head: dict[str, list[str]] = {}
    for cid in failing["claim"]:
        by_head.setdefault(cid.split("-")[0], []).append(cid)
    lines += ["", "Held out and still not agreeing under the fitted inputs:", ""]
    lines += [f"* {head} ({len(c)}): {', '.join(c)}" for head, c in by_head.items()]
    rescued = []
    for k, cid in enumerate(ids):
        ok = [r for r, t in zip(readings, others, strict=True) if t["verdict"].iloc[k] == "agrees"]
        if cid in set(failing["claim"]) and ok:
            rescued.append(f"`{cid}` ({', '.join(ok)})")
    if rescued:
        lines += [
            "",
            "Of those, agreeing under another reading: " + ", ".join(rescued) + ".",
        ]
    if args.tables:
        for label, t in tables.items():
            name = label.split(" (")[0].replace(", ", "-")
            t.to_csv(args.tables / f"lomarc-{name}.csv", index=False)
    return lines


def _gain(results: pd.DataFrame, workload: str, variant: str, metric: str) -> Interval:
    """Mean and 95% interval over the seeds of ``variant``'s improvement over PSS (M1)."""
    return mean_ci(
        Improvement(
            {"workload": workload, "mixture": "M1", "variant": variant},
            {"workload": workload, "mixture": "M1", "variant": "PSS"},
            metric,
        )(results)
    )


def probe(args: argparse.Namespace) -> list[str]:
    """At the fitted point: L-R, L-FM and L-N with short jobs allowed to pair
    (``<variant>-short``), Figure 5's readings, Table 5's columns under the ``printed``
    reading beside the default, and Table 5's MAX_SLOWDOWN stage on the profiles."""
    (cal,) = calibrations(FAMILY)
    load, share = (float(x) for x in cal.value.split(" ")[0].split("/"))
    paired = ("L-R", "L-FM", "L-N")
    shorts = tuple(f"{v}-short" for v in paired)
    res = runs(args.out, load, share, args.seeds, ("PSS", *paired, *shorts), PAIRS[:3], args.jobs)
    lines = [
        f"Generated by `python docs/studies/lomarc_unknowns.py probe --seeds {args.seeds_text} "
        f"--out DIR --write docs/lomarc.md` ({args.jobs} jobs, seeds {args.seeds_text}, the "
        f"fitted point {load:g} / {share:g}, M1): mean and 95% interval over the seeds of the "
        "improvement over PSS, each variant as the paper's rule has it (medium and long "
        "jobs pair) and with short jobs pairing too (`medium_long_only=False`).",
        "",
        *_head(
            "workload", "variant", "metric", "paper", "medium and long pair", "short jobs pair too"
        ),
    ]
    # The paper's numbers (lines 1367-1371, 1394-1401, 1407-1411); "-" where it gives none.
    figures = {
        ("L-R", "mean_turnaround"): ("+48%", "-", "+56%"),
        ("L-R", "mean_bounded_slowdown"): ("+50%", "-", "+66%"),
        ("L-FM", "mean_turnaround"): ("+40%", "+41%", "+48%"),
        ("L-FM", "mean_bounded_slowdown"): ("+47%", "+42%", "+52%"),
        ("L-N", "mean_turnaround"): ("+23%", "+27%", "+31%"),
        ("L-N", "mean_bounded_slowdown"): ("+7%", "+17%", "+40%"),
    }
    paper = {
        (w, v, m): value
        for (v, m), values in figures.items()
        for w, value in zip(_W, values, strict=True)
    }
    for w in _W:
        for v in paired:
            for metric in ("mean_turnaround", "mean_bounded_slowdown"):
                cells = []
                for run in (v, f"{v}-short"):
                    ci = _gain(res, w, run, metric)
                    cells.append(
                        f"{ci.mean:+.1f} [{ci.mean - ci.half:+.1f}, {ci.mean + ci.half:+.1f}]"
                    )
                what = "response" if metric == "mean_turnaround" else "rel. bounded response"
                lines.append(
                    f"| {w} | {v} | {what} | {paper.get((w, v, metric), '-')} | "
                    + " | ".join(cells)
                    + " |"
                )
    readings = ("L-FM", "L-R", "L-R-np", "L-R-own")
    fig5 = runs(args.out, load, share, args.seeds, ("PSS", *readings), PAIRS[:3], args.jobs)
    lines += [
        "",
        "Figure 5's readings against L-FM (paper: L-FM 17% worse than L-R in response and "
        "24% in relative bounded response on W3), improvement over PSS:",
        "",
        *_head("workload", "metric", *readings),
    ]
    for w in ("W1", "W3"):
        for metric in ("mean_turnaround", "mean_bounded_slowdown"):
            cells = []
            for v in readings:
                ci = _gain(fig5, w, v, metric)
                cells.append(f"{ci.mean:+.1f} ± {ci.half:.1f}")
            what = "response" if metric == "mean_turnaround" else "rel. bounded response"
            lines.append(f"| {w} | {what} | " + " | ".join(cells) + " |")
    t5 = runs(args.out, load, share, args.seeds, ("L-U1-printed", "L-U2-printed", "L-R-printed"),
              PAIRS[:3], args.jobs)  # fmt: skip
    printed = under_preset(pd.concat([res, t5], ignore_index=True), "printed")
    default = runs(args.out, load, share, args.seeds, FIT_VARIANTS, PAIRS[:3], args.jobs)
    lines += [
        "",
        "Table 5's columns held out of the fit, the fitted workloads under each reading:",
        "",
    ]
    for label, frame in (("overlap (default)", default), ("printed", printed)):
        table = evaluate(claims(), frame, FAMILY)
        held = table[[cal.holds_out(c) and c.startswith("table5-L") for c in table["claim"]]]
        lines.append(f"* {label}: {agreement(held).text()}")
    passes = {f: slowdown_pass(f, args.jobs) for f in ("overlap", "printed")}
    lines += [
        "",
        "Table 5's MAX_SLOWDOWN stage on the profiles alone: of random pairs of M1 jobs "
        f"(W1, seed 0, {PAIR_DRAWS:,} draws) that fit in memory and are matchable, the share "
        "whose estimate is at most 1.6: "
        + ", ".join(f"{f} {100 * v:.0f}%" for f, v in passes.items())
        + " (Table 5: slowdown <= max over matchable 5/6, 8/10, 14/16 for L-U1 on W1-W3, "
        "80-88%).",
    ]
    return lines


#: Random pairs drawn by :func:`slowdown_pass`.
PAIR_DRAWS = 20_000


def slowdown_pass(formula: str, jobs: int) -> float:
    """The share of random memory-fitting, matchable pairs of M1 profiles (W1, seed 0)
    whose estimated slowdown under ``formula`` is at most MAX_SLOWDOWN (1.6)."""
    w = cell_workload("paper-alpha", "W1", "M1", 0, jobs)
    cols = w.columns
    names = [c for c in cols if c.startswith("lomarc_")]
    profiles = [profile_of(i, {c: cols[c][i] for c in names}) for i in range(len(w))]
    model = SlowdownModel(formula=formula)
    rng = np.random.default_rng(0)
    passed = tried = 0
    for _ in range(PAIR_DRAWS):
        i, j = rng.choice(len(profiles), 2, replace=False)
        a, b = profiles[int(i)], profiles[int(j)]
        if a.mem + b.mem > 1.0 or not matchable(a, b, model):
            continue
        tried += 1
        passed += model.slowdown(a, b) <= 1.6
    return passed / tried


#: Table 5's stages, as the funnel counts them and as the run's diagnostics name them.
STAGES = {
    "queue": "avg_queue_length",
    "medium_long": "avg_medium_long",
    "size_ok": "avg_size_ok",
    "memory_ok": "avg_memory_fit",
    "matchable": "avg_matchable",
    "slowdown_ok": "avg_slowdown_ok",
}


class FoundFunnel(Funnel):
    """The funnel, plus the same sums over only the searches that selected a partner.

    The Python pass (:func:`cosched.lomarc.search.queue_match`) adds to ``searches``
    when a search starts and to ``selected`` when it chooses a partner; the counts a
    search adds in between are kept in ``found`` when it selected one.
    """

    __slots__ = ("_hit", "_ready", "_snap", "found")

    def __init__(self) -> None:
        object.__setattr__(self, "found", dict.fromkeys([*STAGES, "searches"], 0))
        object.__setattr__(self, "_snap", None)
        object.__setattr__(self, "_hit", False)
        object.__setattr__(self, "_ready", False)
        super().__init__()
        object.__setattr__(self, "_ready", True)

    def __setattr__(self, name: str, value: int) -> None:
        if not self._ready:
            object.__setattr__(self, name, value)
            return
        if name == "searches":
            self.close()
        object.__setattr__(self, name, value)
        if name == "searches":
            object.__setattr__(self, "_snap", {k: getattr(self, k) for k in STAGES})
        elif name == "selected":
            object.__setattr__(self, "_hit", True)

    def close(self) -> None:
        """Count the last search into ``found`` if it selected a partner."""
        if self._hit and self._snap is not None:
            for k in STAGES:
                self.found[k] += getattr(self, k) - self._snap[k]
            self.found["searches"] += 1
        object.__setattr__(self, "_hit", False)

    def found_averages(self) -> dict[str, float]:
        """Per-search averages over the searches that selected a partner."""
        self.close()
        n = self.found["searches"]
        return {col: self.found[k] / n if n else float("nan") for k, col in STAGES.items()}


def table5(args: argparse.Namespace) -> list[str]:
    """Table 5's counts at the fitted point averaged over every search (cosched's reading)
    and over the searches that selected a partner only, by the Python pass."""
    (cal,) = calibrations(FAMILY)
    load, share = (float(x) for x in cal.value.split(" ")[0].split("/"))
    rows: dict[str, list[dict[str, object]]] = {"every search": [], "searches that found": []}
    for seed, (w, m) in itertools.product(args.seeds, PAIRS[:3]):
        wl = _workload(w, m, seed, args.jobs, load, share)
        for v in FIT_VARIANTS:
            name, extra = RUNS[v]
            policy = make_policy(name, **extra)
            assert isinstance(policy, Lomarc)
            funnel = FoundFunnel()
            policy.funnel = funnel
            Simulation(wl, lomarc_platform(NODES), policy, fast=False).run()
            key = {"set": "paper-alpha", "workload": w, "mixture": m, "variant": v,
                   "seed": seed, "status": "ok"}  # fmt: skip
            rows["every search"].append({**key, **funnel.averages()})
            found = funnel.found_averages()
            rows["searches that found"].append({**key, **funnel.averages(), **found})
    lines = [
        f"Generated by `python docs/studies/lomarc_unknowns.py table5 --seeds "
        f"{args.seeds_text} --out DIR --write docs/lomarc.md` ({args.jobs} jobs, seeds "
        f"{args.seeds_text}, the fitted point {load:g} / {share:g}, L-U1 / L-U2 / L-R on "
        "W1-W3, the Python pass): Table 5's counts averaged over every search in the queue "
        "(cosched's reading) and over the searches that selected a partner only.",
        "",
        *_head("reading", "held-out Table 5 claims", "the fit set (queue, medium or long)"),
    ]
    for label, frame in rows.items():
        table = evaluate(claims(), pd.DataFrame(frame), "lomarc")
        held = table[[cal.holds_out(c) and c.startswith("table5-") for c in table["claim"]]]
        fitted = table[[cal.fits(c) for c in table["claim"]]]
        lines.append(f"| {label} | {agreement(held).text()} | {agreement(fitted).text()} |")
    mean = pd.DataFrame(rows["searches that found"]).groupby("workload")[list(STAGES.values())]
    lines += [
        "",
        "L-U1, L-U2 and L-R together, over the searches that found a partner (Table 5's "
        "L-U1 in brackets):",
        "",
        *_head("workload", *STAGES),
    ]
    paper = {"W1": (36, 24, 10, 8, 6, 5), "W2": (81, 45, 21, 12, 10, 8),
             "W3": (213, 86, 40, 20, 16, 14)}  # fmt: skip
    for w, r in mean.mean().iterrows():
        cells = [f"{v:.1f} ({p})" for v, p in zip(r, paper[str(w)], strict=True)]
        lines.append(f"| {w} | " + " | ".join(cells) + " |")
    return lines


def write(page: Path, block: str, lines: list[str]) -> None:
    """Replace the page's generated block ``block`` with ``lines``."""
    begin, end = MARK.format(block, "begin"), MARK.format(block, "end")
    text = page.read_text()
    if begin not in text or end not in text:
        raise SystemExit(f"{page}: no {begin} ... {end} block")
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    page.write_text(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("sweep", "fit", "heldout", "probe", "table5"))
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--jobs", type=int, default=8000)
    ap.add_argument("--out", type=Path, default=Path("runs/lomarc-unknowns"))
    ap.add_argument("--write", type=Path, default=None)
    ap.add_argument("--tables", type=Path, default=None)
    ap.add_argument(
        "--claims",
        type=Path,
        default=None,
        help="write the docs/claims copies to this folder: heldout the fitted study's "
        "claim table (lomarc-fitted.csv), sweep the sensitivity table "
        "(lomarc-sensitivity.csv)",
    )
    ap.add_argument(
        "--default-store",
        type=Path,
        default=None,
        help="heldout: read the default workloads' runs from this store of "
        "docs/claims/lomarc-20seeds.toml instead of running them",
    )
    ap.add_argument(
        "--from-sweep",
        type=Path,
        default=None,
        help="sweep: read every point's runs from this store of "
        "docs/claims/lomarc-sensitivity.toml (cosched sweep) instead of running them",
    )
    args = ap.parse_args()
    args.seeds_text = args.seeds
    args.seeds = _seeds(args.seeds)
    commands = {
        "sweep": sweep,
        "fit": fit,
        "heldout": heldout,
        "probe": probe,
        "table5": table5,
    }
    lines = commands[args.command](args)
    print("\n".join(lines))
    if args.write:
        write(args.write, args.command, lines)


if __name__ == "__main__":
    main()
