"""The comparison's figures: pure functions, tables in, matplotlib ``Figure`` out.

Style: the Okabe-Ito colour-blind-safe palette (one colour per policy, the same in
every figure), units in every axis label, legends outside the plotting area, sized for
a column (6.5 x 3.2 in) and readable at that width.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from cosched.compare.analysis import over_time

if TYPE_CHECKING:
    from types import ModuleType

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from cosched.compare.gantt import Lanes

__all__ = [
    "PALETTE",
    "cdf_figure",
    "class_figure",
    "gantt_figure",
    "ratio_figure",
    "robustness_figure",
    "time_figure",
]

#: Okabe & Ito (2008), "Color Universal Design": distinguishable with every common
#: colour-vision deficiency.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#000000",
    "#F0E442",  # yellow last: the faintest on white
)
_LINES = ("-", "--", "-.", ":")
WIDTH, HEIGHT = 6.5, 3.2


def _plt() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.size": 9,
            "axes.titlesize": 9,
            "axes.labelsize": 9,
            "legend.fontsize": 8,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "svg.fonttype": "none",
            "svg.hashsalt": "cosched",  # identical SVG for identical data
        }
    )
    return plt


def style(policies: Sequence[str]) -> dict[str, dict[str, str]]:
    """A colour and line style per policy, fixed by its position in ``policies``."""
    return {
        p: {"color": PALETTE[i % len(PALETTE)], "linestyle": _LINES[(i // len(PALETTE)) % 4]}
        for i, p in enumerate(policies)
    }


def legend_label(policy: str, width: int = 24) -> str:
    """A policy's label for a legend: a long parameter list broken after its commas,
    so the legend beside the plot leaves the plot its width."""
    lines = [""]
    for part in policy.replace(",", ", ").split(" "):
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return "\n".join(lines)


def _legend_right(fig: Figure, ax: Axes) -> None:
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.tight_layout()


def cdf_figure(
    tables: Mapping[str, pd.DataFrame], order: Sequence[str], *, tau: float = 10.0
) -> Figure:
    """Empirical CDFs of wait (h) and bounded slowdown, one line per policy."""
    from cosched.metrics import outcomes

    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, HEIGHT))
    st = style(order)
    for p in order:
        o = outcomes(tables[p], tau=tau)
        for ax, col, scale in ((axes[0], "wait_time", 3600.0), (axes[1], "bounded_slowdown", 1)):
            x = np.sort(o[col].to_numpy() / scale)
            y = np.arange(1, len(x) + 1) / len(x)
            ax.step(x, y, where="post", label=legend_label(p), **st[p])
    axes[0].set_xscale("symlog", linthresh=0.1)
    axes[0].set_xlabel("wait (h, log scale above 0.1 h)")
    axes[1].set_xscale("log")
    axes[1].set_xlabel(f"bounded slowdown (tau = {tau:g} s, log scale)")
    for ax in axes:
        ax.set_ylabel("share of jobs")
        ax.set_ylim(0, 1.01)
        ax.grid(alpha=0.3)
    axes[1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def class_figure(means: pd.DataFrame, order: Sequence[str], metric: str, label: str) -> Figure:
    """Grouped bars of ``metric`` per job class (x) and policy (bars), with the 95%
    confidence interval over seeds as an error bar where ``<metric>_ci`` is given."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(WIDTH, HEIGHT))
    st = style(order)
    classes = means[["duration_class", "width_class"]].drop_duplicates()
    names = [f"{d}\n{w}" for d, w in classes.itertuples(index=False)]
    x = np.arange(len(names))
    width = 0.8 / max(len(order), 1)
    ci = f"{metric}_ci"
    for i, p in enumerate(order):
        part = means[means["policy"] == p].set_index(["duration_class", "width_class"])
        keys = list(classes.itertuples(index=False, name=None))
        ys = np.array([float(part.loc[k, metric]) for k in keys])
        half = np.array([float(part.loc[k, ci]) if ci in part else 0.0 for k in keys])
        # A log axis cannot show a bar reaching 0: the lower whisker stops short of it.
        err = np.vstack([np.minimum(half, 0.99 * ys), half])
        ax.bar(
            x + (i - (len(order) - 1) / 2) * width, ys, width, label=legend_label(p),
            color=st[p]["color"],
            yerr=err if half.any() else None, error_kw={"elinewidth": 0.8, "capsize": 1.5},
        )  # fmt: skip
    ax.set_xticks(x, names)
    ax.set_ylabel(label)
    ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    _legend_right(fig, ax)
    return fig


def _smooth(values: np.ndarray, width: int) -> np.ndarray:
    """Centred moving mean over ``width`` points (shorter at the ends)."""
    kernel = np.ones(width)
    total = np.convolve(values, kernel, mode="same")
    count = np.convolve(np.ones(len(values)), kernel, mode="same")
    return np.asarray(total / count)


def time_figure(
    tables: Mapping[str, pd.DataFrame],
    order: Sequence[str],
    capacity: Mapping[str, float],
    reference: str | None = None,
    *,
    notes: Mapping[str, str] | None = None,
    points: int = 200,
    smooth: int = 9,
) -> Figure:
    """Utilization and queue length over time, one small panel per policy (rows), each
    with ``reference`` (the best baseline) in grey behind it. Utilization is the mean
    of ``smooth`` consecutive bins of ``points`` over the whole schedule; ``notes``
    (by policy) are written under the policy's name."""
    plt = _plt()
    rows = len(order)
    fig, axes = plt.subplots(
        rows, 2, figsize=(WIDTH, 0.55 + 0.75 * rows), sharex=True, squeeze=False
    )
    st = style(order)
    t0 = min(float(tables[p]["submit_time"].min()) for p in order)
    curves = {}
    for p in order:
        t, util, queued = over_time(tables[p], capacity[p], points=points)
        curves[p] = ((t - t0) / 86400.0, _smooth(util, smooth), queued)
    hours = max(float(c[0][-1] - c[0][0]) for c in curves.values()) * 24 / points * smooth
    span = f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.1f} days"
    for k, p in enumerate(order):
        days, util, queued = curves[p]
        for col, ys in ((0, util), (1, queued)):
            ax = axes[k, col]
            if reference is not None and reference != p:
                r = curves[reference]
                ax.plot(r[0], r[1 + col], color="0.7", linewidth=0.8)
            ax.plot(days, ys, color=st[p]["color"], linewidth=1)
            ax.grid(alpha=0.3)
            ax.tick_params(labelsize=7)
        axes[k, 0].set_ylim(0, 1.05)
        axes[k, 1].set_ylim(bottom=0)
        name = legend_label(p, 16) + (f"\n{notes[p]}" if notes and p in notes else "")
        axes[k, 0].set_ylabel(name, rotation=0, ha="right", va="center", fontsize=8)
    axes[0, 0].set_title(f"utilization (moving mean over {span})")
    axes[0, 1].set_title("queued jobs")
    for ax in axes[-1]:
        ax.set_xlabel("days since the first submission")
    if reference is not None:
        fig.text(0.99, 0.005, f"grey: {reference}", ha="right", va="bottom", fontsize=7)
    fig.tight_layout(h_pad=0.3)
    return fig


def ratio_figure(table: pd.DataFrame, policy: str, reference: str) -> Figure:
    """Per class: the share of jobs faster and slower under ``policy`` than ``reference``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(WIDTH, HEIGHT))
    names = [f"{d} {w}" for d, w in zip(table["duration_class"], table["width_class"], strict=True)]
    y = np.arange(len(names))
    faster = table["faster"].fillna(0).to_numpy()
    slower = table["slower"].fillna(0).to_numpy()
    ax.barh(y, faster, color=PALETTE[2], label="faster (turnaround < 95%)")
    ax.barh(y, -slower, color=PALETTE[3], label="slower (turnaround > 105%)")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, names)
    ax.set_xlim(-1, 1)
    ax.set_xticks([-1, -0.5, 0, 0.5, 1], ["100%", "50%", "0", "50%", "100%"])
    ax.set_xlabel(f"share of the class's jobs: {policy} against {reference}")
    ax.grid(axis="x", alpha=0.3)
    _legend_right(fig, ax)
    return fig


def _gantt_panel(
    ax: Axes, jobs: pd.DataFrame, lanes: Lanes, window: tuple[float, float], title: str
) -> None:
    """One policy's jobs as rectangles on their lanes (y) over time (x, hours)."""
    lo, hi = window
    start = jobs["start_time"].to_numpy(dtype=float)
    end = jobs["end_time"].to_numpy(dtype=float)
    ids = jobs["job_id"].to_numpy()
    for j, held in zip(lanes.rows, lanes.lanes, strict=True):
        color = PALETTE[int(ids[j]) % (len(PALETTE) - 2)]  # a job's colour in every panel
        ys = sorted(lanes.y(lane) for lane in held)
        runs: list[tuple[int, int]] = []
        for r in ys:
            if runs and runs[-1][1] == r - 1:
                runs[-1] = (runs[-1][0], r)
            else:
                runs.append((r, r))
        x0 = (max(start[j], lo) - lo) / 3600.0
        x1 = (min(end[j], hi) - lo) / 3600.0
        for a, b in runs:
            ax.broken_barh(
                [(x0, x1 - x0)], (a, b - a + 1), facecolors=color, edgecolors="white",
                linewidth=0.2,
            )  # fmt: skip
    ax.set_xlim(0, (hi - lo) / 3600.0)
    ax.set_ylim(0, lanes.height)
    ax.set_title(f"{title}: {_gantt_axis(ax, lanes)}", loc="left")


def _gantt_axis(ax: Axes, lanes: Lanes) -> str:
    """Label the lanes: bands of slots (a LOMARC processor's two, a gang matrix's rows)
    over processors, or nodes of several cores, or processors; returns what a lane is,
    for the panel's title."""
    from cosched.platform import Allocation

    if lanes.layers > 1:
        band = lanes.processors + 2
        word = "row" if lanes.mode is Allocation.CORES else "slot"
        ticks = [r * band + lanes.processors / 2 for r in range(lanes.layers)]
        ax.set_yticks(ticks, [f"{word} {r + 1}" for r in range(lanes.layers)])
        for r in range(1, lanes.layers):
            ax.axhline(r * band - 1, color="0.5", linewidth=0.6)
        if word == "row":
            return f"the time-slice matrix's {lanes.layers} rows of {lanes.processors} processors"
        return f"{lanes.layers} slots on each of {lanes.processors} processors"
    if lanes.cores > 1:
        nodes = lanes.processors // lanes.cores
        step = max(1, nodes // 5)
        ax.set_yticks([n * lanes.cores for n in range(0, nodes, step)],
                      [str(n) for n in range(0, nodes, step)])  # fmt: skip
        ax.set_ylabel("node")
        if nodes <= 64:  # node boundaries, so jobs sharing a node's cores show as such
            for n in range(1, nodes):
                ax.axhline(n * lanes.cores, color="white", linewidth=0.6, zorder=3)
        return f"{nodes} nodes of {lanes.cores} cores"
    ax.set_ylabel("processor")
    return f"{lanes.processors} processors"


def gantt_figure(
    panels: Sequence[tuple[pd.DataFrame, Lanes, str]], window: tuple[float, float]
) -> Figure:
    """Jobs as rectangles on their lanes over ``window``: one panel per policy, given
    as ``(jobs, lanes, title)`` (:func:`cosched.compare.gantt.lanes`)."""
    plt = _plt()
    n = len(panels)
    fig, axes = plt.subplots(
        n, 1, figsize=(WIDTH, 0.3 + HEIGHT * (1.3 if n == 1 else 1.0 if n == 2 else 0.75) * n),
        sharex=True,
        squeeze=False,
    )  # fmt: skip
    for ax, (jobs, lanes, title) in zip(axes[:, 0], panels, strict=True):
        _gantt_panel(ax, jobs, lanes, window, title)
    axes[-1, 0].set_xlabel("hours from the window's start")
    fig.tight_layout()
    return fig


def robustness_figure(curve: Sequence[tuple[float, float, float]], base: str, level: float,
                      label: str) -> Figure:  # fmt: skip
    """Mean turnaround (h, with its 95% CI) against the interference strength, and the
    baseline's level as a dashed line."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(WIDTH, HEIGHT))
    ax.errorbar(
        [c[0] for c in curve], [c[1] / 3600 for c in curve], yerr=[c[2] / 3600 for c in curve],
        color=PALETTE[0], marker="o", capsize=3, label=label,
    )  # fmt: skip
    ax.axhline(level / 3600, color=PALETTE[3], linestyle="--", label=base)
    ax.set_xlabel("interference strength (x the preset's victim weights)")
    ax.set_ylabel("mean turnaround (h)")
    ax.grid(alpha=0.3)
    _legend_right(fig, ax)
    return fig
