"""The dyncosched report section: figures (PNG) and markdown tables with the paper's
numbers beside cosched's, read from the results table of the dyncosched spec."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cosched.metrics.saturation import DEFAULT_FACTOR, saturation_point
from cosched.timesharing.experiment import MAX_RUN, NODES, TIME_SCALE
from cosched.timesharing.params import SCHEMES

__all__ = ["PAPER_SATURATION", "PAPER_TABLE4", "PAPER_TABLE5", "report_section"]

_KEY = ("workload", "load", "skew", "mpl", "scheme", "variant")
#: Table 5: the schemes and their cost variants, the paper's default costs first.
TABLE5_SCHEMES = ("GS", "SB", "DCS", "DCS-SB", "PB-SB", "PB")
OVERHEADS_GS = (("Q=200ms, CS=2ms", ""), ("Q=100ms, CS=1ms", ""), ("Q=100ms, CS=2ms", ""))
OVERHEADS_DCS = (("CS=200us, I=50us", ""), ("CS=100us, I=25us", ""), ("CS=100us, I=50us", ""))


@dataclass(frozen=True)
class Grid:
    """The shape of the grid the results cover (read off the results)."""

    loads: tuple[float, ...]
    base_load: float
    mpls: tuple[int, ...]


#: Figure 3 / section 4.1: utilization at which each scheme saturates (WL7).
PAPER_SATURATION: dict[str, str] = {
    "Local": "< 50%",
    "SY": "< 50%",
    "DCS": "< 50%",
    "DCS-SY": "< 50%",
    "GS": "~57%",
    "DCS-SB": "> 57%",
    "PB-SY": "> 57%",
    "PB": "~77%",
    "PB-SB": "~77%",
    "SB": "~77%",
}
#: Table 4: normalized change of response time w.r.t. MPL 2 (None: not given).
TABLE4_COLS = (("WL2", 5), ("WL4", 5), ("WL4", 16), ("WL5", 5), ("WL5", 16))
PAPER_TABLE4: dict[str, tuple[float | None, ...]] = {
    "Local": (0.30, 0.37, None, 15.44, None),
    "GS": (-0.25, -0.20, -0.34, -0.30, -0.41),
    "SB": (-0.69, -0.36, -0.48, -0.44, -0.54),
    "DCS": (-0.27, -0.13, -0.34, 0.18, None),
    "DCS-SB": (-0.68, -0.35, -0.44, -0.21, -0.38),
    "PB": (-0.65, -0.25, -0.38, -0.41, -0.52),
    "PB-SB": (-0.71, -0.34, -0.45, -0.43, -0.54),
    "SY": (-0.29, 2.82, None, 4.59, None),
    "PB-SY": (-0.64, -0.24, 0.36, -0.28, 2.78),
    "DCS-SY": (-0.58, -0.44, -0.81, -0.42, -0.94),
}
#: Table 5: response time normalized to the default costs (WL5); PB's third value is
#: lost in our copy of the paper.
PAPER_TABLE5: dict[str, tuple[float | None, ...]] = {
    "GS": (1.0, 0.896, 0.977),
    "SB": (1.0, 0.647, 0.659),
    "DCS": (1.0, 0.902, 0.904),
    "DCS-SB": (1.0, 0.710, 0.804),
    "PB-SB": (1.0, 0.670, 0.687),
    "PB": (1.0, 0.89, None),
}


#: One configuration's row (:func:`_records`): its key columns, then each numeric metric
#: averaged over the seeds (None where no seed has it).
Record = dict[str, Any]


def _f(v: float | None, fmt: str = "{:.2f}") -> str:
    return "-" if v is None else fmt.format(v)


def _index(records: list[Record]) -> dict[tuple[object, ...], Record]:
    return {
        (r["workload"], r["load"], r["skew"], r["mpl"], r["scheme"], r["variant"]): r
        for r in records
    }


def _resp(r: Record | None) -> float | None:
    return None if r is None else r.get("mean_response")


def _sat(r: Record) -> str:
    return f" ({int(r['unfinished'])} unfinished)" if r.get("unfinished") else ""


def _fig3(out: Path, idx: dict, grid: Grid) -> list[str]:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    lines = [
        "## Figure 3: response time against utilization (WL7, p=32, MPL=5, s=20%)",
        "",
        "![Figure 3](fig3.png)",
        "",
        "| scheme | "
        + " | ".join(f"load {x:g}: util / resp (s)" for x in grid.loads)
        + " | max util (cosched) | saturation load (cosched) | saturates at (paper) |",
        "|---" * (len(grid.loads) + 4) + "|",
    ]
    # One bound for every scheme: 5 x the best response at the lowest load.
    lowest = [idx.get(("WL7", grid.loads[0], 0.2, 5, s, "")) for s in SCHEMES] if grid.loads else []
    firsts = [r["mean_response"] for r in lowest if r and r.get("mean_response")]
    common = min(firsts) if firsts else None
    for s in SCHEMES:
        rs = [idx.get(("WL7", x, 0.2, 5, s, "")) for x in grid.loads]
        # the paper's utilization under the cell's reading (claims.FIG3_METRIC)
        util = [r.get("useful_share") if r else None for r in rs]
        resp = [_resp(r) for r in rs]
        pts = [(u, q) for u, q in zip(util, resp, strict=True) if u is not None and q is not None]
        ax.plot([u for u, _ in pts], [q for _, q in pts], marker="o", label=s)
        cellv = [
            f"{_f(u)} / {_f(q, '{:.1f}')}{_sat(r) if r else ''}"
            for u, q, r in zip(util, resp, rs, strict=True)
        ]
        best = max((u for u in util if u is not None), default=None)
        done = [(x, r) for x, r in zip(grid.loads, rs, strict=True) if r is not None]
        sat = (
            saturation_point(
                [x for x, _ in done],
                [r["mean_response"] for _, r in done],
                [r["unfinished"] for _, r in done],
                reference=common,
            ).label()
            if done
            else "-"
        )
        lines.append(
            f"| {s} | " + " | ".join(cellv) + f" | {_f(best)} | {sat} | {PAPER_SATURATION[s]} |"
        )
    ax.set_xlabel("utilization (useful work share)")
    ax.set_ylabel("mean response time (scaled s)")
    ax.set_yscale("log")
    ax.legend(ncol=2, fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig3.png", dpi=100)
    plt.close(fig)
    return [*lines, ""]


def _fig4(out: Path, idx: dict, grid: Grid) -> list[str]:
    b = grid.base_load
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    lines = [
        f"## Figure 4: response = wait + execution (p=32, MPL=5, s=20%, load {b:g})",
        "",
        "![Figure 4](fig4.png)",
        "",
        "| scheme | "
        + " | ".join(f"{wl} wait / exec" for wl in ("WL4", "WL5", "WL2", "WL3"))
        + " |",
        "|---" * 5 + "|",
    ]
    table: dict[str, list[str]] = {s: [] for s in SCHEMES}
    for ax, wl in zip(axes.flat, ("WL4", "WL5", "WL2", "WL3"), strict=True):
        waits, execs = [], []
        for s in SCHEMES:
            r = idx.get((wl, b, 0.2, 5, s, ""))
            w = r["mean_wait"] if r else 0.0
            e = r["mean_execution"] if r else 0.0
            waits.append(w)
            execs.append(e)
            table[s].append(f"{w:.1f} / {e:.1f}{_sat(r) if r else ''}")
        ax.bar(list(SCHEMES), waits, label="wait")
        ax.bar(list(SCHEMES), execs, bottom=waits, label="execution")
        ax.set_title(wl)
        ax.tick_params(axis="x", rotation=60, labelsize=7)
        ax.set_ylabel("mean response (scaled s)")
    axes.flat[0].legend()
    fig.tight_layout()
    fig.savefig(out / "fig4.png", dpi=100)
    plt.close(fig)
    lines += [f"| {s} | " + " | ".join(v) + " |" for s, v in table.items()]
    return [*lines, ""]


def _table4(idx: dict, grid: Grid) -> list[str]:
    b = grid.base_load
    cols = [c for c in TABLE4_COLS if c[1] in grid.mpls]
    head = " | ".join(f"{wl} MPL={m} cosched (paper)" for wl, m in cols)
    lines = [
        "## Table 4: change of response time relative to MPL=2 (p=32, s=20%)",
        "",
        f"| scheme | {head} |",
        "|---" * (len(cols) + 1) + "|",
    ]
    for s in SCHEMES:
        vals = []
        for wl, m in cols:
            base = _resp(idx.get((wl, b, 0.2, 2, s, "")))
            r = idx.get((wl, b, 0.2, m, s, ""))
            v = _resp(r)
            ch = None if base in (None, 0) or v is None else v / base - 1.0
            paper = PAPER_TABLE4[s][TABLE4_COLS.index((wl, m))]
            vals.append(f"{_f(ch)}{_sat(r) if r else ''} ({_f(paper)})")
        lines.append(f"| {s} | " + " | ".join(vals) + " |")
    return [*lines, ""]


def _fig5(out: Path, idx: dict, grid: Grid) -> list[str]:
    b = grid.base_load
    fig, ax = plt.subplots(figsize=(8, 4))
    lo = [_resp(idx.get(("WL4", b, 0.2, 5, s, ""))) or 0.0 for s in SCHEMES]
    hi = [_resp(idx.get(("WL4", b, 1.5, 5, s, ""))) or 0.0 for s in SCHEMES]
    x = range(len(SCHEMES))
    ax.bar([i - 0.2 for i in x], lo, width=0.4, label="s=20%")
    ax.bar([i + 0.2 for i in x], hi, width=0.4, label="s=150%")
    ax.set_xticks(list(x), list(SCHEMES), rotation=60, fontsize=8)
    ax.set_ylabel("mean response (scaled s)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "fig5.png", dpi=100)
    plt.close(fig)
    lines = [
        "## Figure 5: skew 20% against 150% (WL4, p=32, MPL=5)",
        "",
        "![Figure 5](fig5.png)",
        "",
        "| scheme | response s=20% | response s=150% | ratio |",
        "|---|---|---|---|",
    ]
    for s, a, c in zip(SCHEMES, lo, hi, strict=True):
        lines.append(f"| {s} | {a:.2f} | {c:.2f} | {_f(c / a if a else None)} |")
    return [*lines, ""]


def _table5(idx: dict, grid: Grid) -> list[str]:
    b = grid.base_load
    lines = [
        "## Table 5: response time under other overheads, normalized (WL5, MPL=5, s=20%)",
        "",
        "| scheme | columns | cosched | paper |",
        "|---|---|---|---|",
    ]
    for s in TABLE5_SCHEMES:
        variants = OVERHEADS_GS if s == "GS" else OVERHEADS_DCS
        base = _resp(idx.get(("WL5", b, 0.2, 5, s, "")))
        ours = []
        for k, (label, _) in enumerate(variants):
            v = base if k == 0 else _resp(idx.get(("WL5", b, 0.2, 5, s, label)))
            ours.append(None if base in (None, 0) or v is None else v / base)
        labels = "; ".join(label for label, _ in variants)
        ours_s = ", ".join(_f(v, "{:.3f}") for v in ours)
        paper_s = ", ".join(_f(v, "{:.3f}") for v in PAPER_TABLE5[s])
        lines.append(f"| {s} | {labels} | {ours_s} | {paper_s} |")
    return [*lines, ""]


def _breakdown(idx: dict, grid: Grid) -> list[str]:
    cats = ("compute", "spin", "context_switch", "interrupt", "queue", "endpoint_check", "idle")
    if not grid.loads:  # a spec without Figure 3's WL7 load sweep: nothing to break down
        return []
    load = grid.loads[len(grid.loads) // 2]
    lines = [
        f"## CPU time breakdown (WL7, load {load:g}, MPL=5, s=20%), share of CPU time",
        "",
        "| scheme | " + " | ".join(cats) + " | I/O s per CPU s |",
        "|---" * (len(cats) + 2) + "|",
    ]
    for s in SCHEMES:
        r = idx.get(("WL7", load, 0.2, 5, s, ""))
        if r is None:
            continue
        vals = " | ".join(f"{r[f'frac_{c}']:.3f}" for c in cats)
        lines.append(f"| {s} | {vals} | {r['io_per_cpu']:.3f} |")
    return [*lines, ""]


def _records(results: pd.DataFrame) -> list[Record]:
    """One record per configuration: numeric metrics averaged over the seeds."""
    ok = results[results["status"] == "ok"]
    out = []
    for key, rows in ok.groupby(list(_KEY), sort=True):
        rec: Record = dict(zip(_KEY, key, strict=True))
        for col in rows.columns:
            if col in _KEY or col in ("key", "seed", "status", "error"):
                continue
            if pd.api.types.is_numeric_dtype(rows[col]):
                x = rows[col].to_numpy(dtype=np.float64)
                v = float(np.mean(x[~np.isnan(x)])) if (~np.isnan(x)).any() else math.nan
                rec[col] = None if math.isnan(v) else v
        rec["mpl"] = int(rec["mpl"])
        out.append(rec)
    return out


def report_section(results: pd.DataFrame, out: Path, meta: Mapping[str, Any]) -> list[str]:
    """The dyncosched section of the report (writes ``fig3``-``fig5`` PNGs into ``out``)."""
    records = _records(results)
    wl7 = sorted({r["load"] for r in records if r["workload"] == "WL7"})
    others = sorted({r["load"] for r in records if r["workload"] != "WL7"})
    grid = Grid(
        tuple(wl7), others[0] if others else 1.0, tuple(sorted({r["mpl"] for r in records}))
    )
    idx = _index(records)
    params = meta.get("spec", {}).get("params", {})
    seeds = meta.get("seeds", [])
    head = [
        "## Reproduction: dynamic coscheduling on a simulated cluster",
        "",
        f"{NODES} nodes, {params.get('n_jobs')} Lublin jobs per run (run times clipped at "
        f"{MAX_RUN:g} s, times divided by {TIME_SCALE:g}), messages of "
        f"{4096 * int(params.get('msg_factor', 1))} bytes; {len(seeds)} seed(s), values are "
        "means over the seeds (the summary table below gives their 95% intervals). Times "
        f"are in scaled seconds (multiply by {TIME_SCALE:g} for the workload's own scale). "
        "A scheme with unfinished jobs at the run's horizon is saturated; its response is "
        "then a lower bound. The saturation load is the highest offered load of the sweep "
        "whose runs, and those at every lower load, finished every job with a mean "
        f"response at most {DEFAULT_FACTOR:g} x the best scheme's response at the lowest "
        "load (one bound for all schemes), and the next load of the sweep (docs/metrics.md, "
        "`cosched.metrics.saturation_point`). See "
        "docs/timesharing.md for the model and the scale's effects.",
        "",
    ]
    body = (
        _fig3(out, idx, grid)
        + _breakdown(idx, grid)
        + _fig4(out, idx, grid)
        + _table4(idx, grid)
        + _fig5(out, idx, grid)
        + _table5(idx, grid)
    )
    return head + [("#" + line) if line.startswith("## ") else line for line in body]
