"""Node sharing: the parameters its reproductions fit to a paper's output (its
``Family.calibrations``, gathered in
:data:`cosched.experiments.calibration.CALIBRATIONS`)."""

from __future__ import annotations

from cosched.experiments.calibration import Calibration

__all__ = ["CALIBRATIONS"]

# Node sharing's Figure 3 shares the fig3 interference preset was fitted to (the
# shares sped up, slowed down, unchanged, slowed > 1.2x, >= 2x and >= 3x).
_FIG3_PRESET = (
    "fig3-sped-up",
    "fig3-slowed-down",
    "fig3-unchanged",
    "fig3-slowed-1.2x",
    "fig3-slowed-2x",
    "fig3-slowed-3x",
)


CALIBRATIONS: tuple[Calibration, ...] = (
    Calibration(
        parameter="interference strength k (node sharing's victim weights = k x fig3's)",
        # A study of its own (docs/studies/nodeshare_fit.py), judged by node sharing's
        # claims: the reproduction keeps the fig3 preset, so its table is not touched.
        family="nodeshare-fitted",
        value="0.05 (victim weights 0.00025 / 0.00075 / 0.0015; the grid's lower end)",
        # Figure 3's tail: the shares the victim weights bound (paper line 244). Figure
        # 5's execution-time statements are directions with no number to fit.
        fitted_to=("fig3-slowed-1.2x", "fig3-slowed-2x", "fig3-slowed-3x"),
        method="grid_fit over k 0.05-10 (10: the prior preset's weights), coscheduling "
        "on RICC Trace1's first 10,000 jobs at profile seeds 1-3; the loss falls towards "
        "k = 0, so the tail is not the interference's "
        "(python docs/studies/nodeshare_fit.py; docs/nodeshare.md, 'The interference "
        "strength fitted, Figure 5 held out')",
        held_out=(
            "fig3-sped-up",
            "fig3-slowed-down",
            "fig3-unchanged",
            "fig3-slowed-4x",
            "fig3-slowed-5x",
            "fig5-*",
        ),
        claims_of="nodeshare",
    ),
    Calibration(
        parameter="load / single_share (the Cab stand-in, cosched.workload.models.cab)",
        # A study of its own (docs/studies/nodeshare_fit.py cab), judged by node sharing's
        # claims on the Cab stand-in instead of RICC. Its runs keep the fig3 interference
        # preset, so the preset's fit set (Figure 3's six shares) is in this fit set too.
        family="nodeshare-cab",
        value="0.9 / 0.75 (offered load of 1,158 nodes; share of single-node jobs)",
        fitted_to=("table2-*", *_FIG3_PRESET),
        method="grid_fit over the offered load 0.7 / 0.9 / 1.1 x the single-node share "
        "0.25 / 0.5 / 0.75 (inside the ranges the text allows: docs/nodeshare.md, 'The "
        "Cab stand-in'), coscheduling and no-degraded runs of the stand-in's Trace1, "
        "50,000 jobs, profile seeds 1-3, interference preset fig3 (itself fitted to "
        "Figure 3's six shares on RICC); losses 1.12-1.14 at load 0.9 against 1.50-1.97 "
        "at 0.7 and 1.1, so the load is fitted and the share barely "
        "(python docs/studies/nodeshare_fit.py cab; docs/claims/nodeshare-sensitivity.toml)",
        held_out=("fig1-*", "table1-*", "fig3-slowed-4x", "fig3-slowed-5x", "fig4-*", "fig5-*"),
        claims_of="nodeshare",
    ),
    Calibration(
        parameter="interference preset (nodeshare.interference.DEFAULT_PRESET)",
        family="nodeshare",
        value='"fig3": memory speedup 1.075 / 1.10, victim weights 0.005 / 0.015 / 0.03',
        # The fit's loss read the shares sped up, unchanged, slowed > 1.2x, >= 2x and
        # >= 3x (slowed down is the rest); the 4x and 5x counts are held out.
        fitted_to=_FIG3_PRESET,
        method="search over the untabulated speedups and victim weights minimising the "
        "distance to Figure 3's shares of jobs sped up and slowed, fitted on profile "
        "seed 1 and validated on seeds 2 and 3 (docs/studies/fit_nodeshare_fig3.py; "
        "docs/nodeshare.md)",
        held_out=(
            "fig1-*",
            "table1-*",
            "table2-*",
            "fig3-slowed-4x",
            "fig3-slowed-5x",
            "fig4-*",
            "fig5-*",
        ),
    ),
)
