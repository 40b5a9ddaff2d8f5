"""The comparison's figures: pure functions, tables in, matplotlib ``Figure`` out.

Style: the Okabe-Ito colour-blind-safe palette (one colour per policy, the same in
every figure), units in every axis label, legends outside the plotting area, sized for
a column (6.5 x 3.2 in) and readable at that width.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cosched.compare.analysis import over_time

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PALETTE", "cdf_figure", "class_figure", "gantt_figure", "time_figure"]

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


def _plt() -> Any:
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


def _legend_right(fig: Figure, ax: Any) -> None:
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
            ax.step(x, y, where="post", label=p, **st[p])
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
    """Grouped bars of ``metric`` per job class (x) and policy (bars)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(WIDTH, HEIGHT))
    st = style(order)
    classes = means[["duration_class", "width_class"]].drop_duplicates()
    names = [f"{d}\n{w}" for d, w in classes.itertuples(index=False)]
    x = np.arange(len(names))
    width = 0.8 / max(len(order), 1)
    for i, p in enumerate(order):
        part = means[means["policy"] == p]
        ys = [
            float(part[(part["duration_class"] == d) & (part["width_class"] == w)][metric].iloc[0])
            for d, w in classes.itertuples(index=False)
        ]
        ax.bar(x + (i - (len(order) - 1) / 2) * width, ys, width, label=p, color=st[p]["color"])
    ax.set_xticks(x, names)
    ax.set_ylabel(label)
    ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    _legend_right(fig, ax)
    return fig


def time_figure(
    tables: Mapping[str, pd.DataFrame], order: Sequence[str], capacity: Mapping[str, float]
) -> Figure:
    """Utilization and queue length over time (days since the first submission)."""
    plt = _plt()
    fig, axes = plt.subplots(2, 1, figsize=(WIDTH, HEIGHT * 1.4), sharex=True)
    st = style(order)
    t0 = min(float(tables[p]["submit_time"].min()) for p in order)
    for p in order:
        t, util, queued = over_time(tables[p], capacity[p])
        days = (t - t0) / 86400.0
        axes[0].plot(days, util, label=p, linewidth=1, **st[p])
        axes[1].plot(days, queued, label=p, linewidth=1, **st[p])
    axes[0].set_ylabel("utilization")
    axes[0].set_ylim(0, 1.05)
    axes[1].set_ylabel("queued jobs")
    axes[1].set_xlabel("time since the first submission (days)")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.tight_layout()
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


def gantt_figure(
    jobs: pd.DataFrame, resources: Sequence[Sequence[int]], window: tuple[float, float], title: str
) -> Figure:
    """Jobs as rectangles on their resources (y) over time (x, hours) in ``window``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(WIDTH, HEIGHT * 1.3))
    lo, hi = window
    start = jobs["start_time"].to_numpy(dtype=float)
    end = jobs["end_time"].to_numpy(dtype=float)
    for j in np.flatnonzero((end > lo) & (start < hi)):
        color = PALETTE[int(j) % (len(PALETTE) - 2)]
        ids = sorted(resources[int(j)])
        runs: list[tuple[int, int]] = []
        for r in ids:
            if runs and runs[-1][1] == r - 1:
                runs[-1] = (runs[-1][0], r)
            else:
                runs.append((r, r))
        for a, b in runs:
            ax.broken_barh(
                [((start[j] - lo) / 3600.0, (end[j] - start[j]) / 3600.0)],
                (a, b - a + 1),
                facecolors=color,
                edgecolors="white",
                linewidth=0.3,
            )
    ax.set_xlim(0, (hi - lo) / 3600.0)
    ax.set_xlabel("hours from the window's start")
    ax.set_ylabel("resource (processor or slot)")
    ax.set_title(title)
    fig.tight_layout()
    return fig
