"""The report of ``cosched reproduce coupled``: figures, tables, the paper beside cosched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cosched.coupled.reproduce import LOADS, MACHINES, PROPORTIONS, SCHEMES, mean_over_seeds

__all__ = ["PAPER", "write_report"]

#: The paper's findings (section V-D/E), as stated there.
PAPER = {
    "cost": "Intrepid: extra mean wait under 4 min (load 0.25) and 10 min (0.5), 42 min at "
    "0.75 (base 61 min); Eureka: extra wait under 5 min except YY at 0.5 (+7) and HH at "
    "0.75 (+8).",
    "sync": "Hold gives shorter sync time than yield on the same machine: Intrepid with hold "
    "from <10 to >150 min as Eureka's load rises; Eureka 35-111 min with hold, 52-137 min "
    "with yield.",
    "loss": "Service units lost to holding: Intrepid 0.46-4.6% of a month's node-hours "
    "(load study), 0.7-9.3% (proportion study); Eureka 3.5-4.9% (load), 1-21% (proportion).",
    "yield": "For medium and high load, and with 10% or more paired jobs, hold has worse "
    "wait and slowdown than yield; with 33% paired, hold is much worse (Intrepid up to 187 "
    "min vs about 100 min with yield).",
}

_METRICS = (
    ("mean_wait", "mean wait (min)", 1 / 60),
    ("mean_slowdown", "mean slowdown", 1.0),
    ("mean_sync_time", "mean sync time (min)", 1 / 60),
    ("lost_share", "SU lost to holding (%)", 100.0),
)


def _figure(
    path: Path,
    table: dict[tuple[float, str], Any],
    xs: tuple[float, ...],
    xlabel: str,
    base: dict[float, Any],
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 4, figsize=(16, 7))
    width = 0.2
    for row, machine in enumerate(MACHINES):
        for col, (metric, label, scale) in enumerate(_METRICS):
            ax = axes[row][col]
            for k, scheme in enumerate(SCHEMES):
                ys = [
                    table.get((x, scheme), {}).get(machine, {}).get(metric, float("nan"))
                    for x in xs
                ]
                pos = [i + (k - 1.5) * width for i in range(len(xs))]
                ax.bar(pos, [y * scale for y in ys], width, label=scheme)
            if col < 2 and base:
                ax.scatter(
                    range(len(xs)),
                    [base[x][machine][metric] * scale if x in base else np.nan for x in xs],
                    marker="_",
                    s=600,
                    color="black",
                    label="no cosched",
                    zorder=3,
                )
            ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
            ax.set_xlabel(xlabel)
            ax.set_title(f"{machine}: {label}", fontsize=9)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def _table(
    table: dict[tuple[float, str], Any], xs: tuple[float, ...], xname: str, base: dict[float, Any]
) -> list[str]:
    lines = [
        f"| {xname} | scheme | machine | mean wait (min) | mean slowdown | bounded slowdown "
        "| sync (min) | SU lost (node-h) | SU lost (%) | paired |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for x in xs:
        rows = [("base", base.get(x))] + [(s, table.get((x, s))) for s in SCHEMES]
        for scheme, ms in rows:
            if ms is None:
                continue
            for m in MACHINES:
                v = ms[m]
                lines.append(
                    f"| {x:g} | {scheme} | {m} | {v['mean_wait'] / 60:.1f} | "
                    f"{v['mean_slowdown']:.2f} | {v['mean_bounded_slowdown']:.2f} | "
                    f"{v['mean_sync_time'] / 60:.1f} | {v['lost_node_hours']:.0f} | "
                    f"{100 * v['lost_share']:.2f} | {v['paired_jobs']:.0f} |"
                )
    return lines


def _findings(
    load: dict[tuple[float, str], Any], prop: dict[tuple[float, str], Any], base: dict[float, Any]
) -> list[str]:
    out = []

    def extra(x: float, s: str, m: str) -> float:
        return (load[(x, s)][m]["mean_wait"] - base[x][m]["mean_wait"]) / 60

    for x in LOADS:
        if x not in base or any((x, s) not in load for s in SCHEMES):
            continue
        for m in MACHINES:
            vals = ", ".join(f"{s} {extra(x, s, m):+.1f}" for s in SCHEMES)
            out.append(f"- load {x:g}, {m}: extra mean wait vs no coscheduling (min): {vals}")
    for name, tab in (("load", load), ("proportion", prop)):
        h_sync = y_sync = h_better = n = 0
        for (x, s), ms in tab.items():
            # Same remote scheme, local hold vs local yield, per machine.
            for i, m in enumerate(MACHINES):
                if s[i] != "H":
                    continue
                other = s[:i] + "Y" + s[i + 1 :]
                if (x, other) not in tab:
                    continue
                n += 1
                hs, ys = ms[m]["mean_sync_time"], tab[(x, other)][m]["mean_sync_time"]
                h_sync += hs < ys
                y_sync += ys < hs
                h_better += ms[m]["mean_wait"] < tab[(x, other)][m]["mean_wait"]
        out.append(
            f"- {name} study: local hold has the shorter sync time in {h_sync} of {n} "
            f"comparisons (yield shorter in {y_sync}); hold has the lower mean wait in "
            f"{h_better} of {n}."
        )
    for x in (0.75,):
        if (x, "HH") in load and (x, "YY") in load:
            out.append(_vs(f"load {x:g}", load[(x, "HH")], load[(x, "YY")]))
    for x in (0.2, 0.33):
        if (x, "HH") in prop and (x, "YY") in prop:
            out.append(_vs(f"{x:.0%} paired", prop[(x, "HH")], prop[(x, "YY")]))
    return out


def _vs(label: str, hh: Any, yy: Any) -> str:
    parts = [
        f"{m} HH {hh[m]['mean_wait'] / 60:.1f} vs YY {yy[m]['mean_wait'] / 60:.1f} min"
        for m in MACHINES
    ]
    return f"- {label}: mean wait " + "; ".join(parts)


def write_report(
    out: Path, records: list[dict[str, Any]], *, quick: bool, settings: dict[str, Any]
) -> Path:
    """Write ``out/report.md`` and its figures; returns the report's path."""
    load = mean_over_seeds(records, "load")
    prop = mean_over_seeds(records, "proportion")
    base = {x: load[(x, "base")] for x in LOADS if (x, "base") in load}
    prop_base = {x: base[0.5] for x in PROPORTIONS} if 0.5 in base else {}
    load_only = {k: v for k, v in load.items() if k[1] != "base"}
    _figure(out / "fig-load.png", load_only, LOADS, "analysis machine load", base)
    _figure(out / "fig-proportion.png", prop, PROPORTIONS, "paired proportion", prop_base)
    bad = [r["key"] for r in records if r.get("status") != "ok"]
    lines = [
        "# Coupled machines: reproduction of the coupled-systems coscheduling paper",
        "",
        "Command: `cosched reproduce coupled" + (" --quick" if quick else "") + " --out DIR`.",
        "",
        "## Set-up",
        "",
        *[f"- {k}: {v}" for k, v in settings.items()],
        "- load study: mates by submission within 2 minutes; proportion study: analysis "
        "load 0.5, the given share of the analysis jobs paired with the nearest compute job "
        "(mean over seeds).",
        "- scheme names: compute machine first (HY = hold on compute, yield on analysis).",
        "- sync time = start minus the time the scheduler first made the job ready; every "
        "coscheduled cell was checked: each paired job started at the same instant as its "
        "mate.",
        "",
        "## Findings: the paper beside cosched",
        "",
        *[f"- paper ({k}): {v}" for k, v in PAPER.items()],
        "",
        "cosched:",
        "",
        *_findings(load_only, prop, base),
        "",
    ]
    if bad:
        lines += ["Cells that did not finish normally: " + ", ".join(bad), ""]
    lines += [
        "## Load study (Figures 3-6)",
        "",
        "![load](fig-load.png)",
        "",
        *_table(load_only, LOADS, "load", base),
        "",
        "## Proportion study (Figures 7-10)",
        "",
        "![proportion](fig-proportion.png)",
        "",
        "Base rows: coscheduling off on the load-0.5 workloads (pairing does not matter "
        "then); the last column counts the pairs of the load study's proximity rule there.",
        "",
        *_table(prop, PROPORTIONS, "paired", prop_base),
        "",
    ]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
