"""Coupled machines: the parameters its reproductions fit to a paper's output (its
``Family.calibrations``, gathered in
:data:`cosched.experiments.calibration.CALIBRATIONS`)."""

from __future__ import annotations

from cosched.experiments.calibration import Calibration

__all__ = ["CALIBRATIONS"]


#: The stand-in's fit, which the studies on Atlas do not use.
_STAND_IN = ("compute_load, compute_sigma (the Intrepid stand-in)",)

CALIBRATIONS: tuple[Calibration, ...] = (
    *(
        Calibration(
            parameter="compute_load, compute_sigma (the Intrepid stand-in)",
            family=family,
            value="0.8, 1.7 (offered load; log-normal shape of the run times)",
            fitted_to=("fig3-base-wait", "fig4-base-slowdown"),
            method="grid of sigma 1.5 / 1.7 / 1.8 by load 0.76 / 0.8, three drawn months each, "
            "base run (WFP-EASY, no coscheduling); the pair closest to both the paper's 61 min "
            "and 6.1 was kept (python docs/studies/coupled_intrepid_fit.py; docs/coupled.md)",
            held_out=(
                "fig3-extra-wait-*",
                "fig4-extra-slowdown-*",
                "fig3-hold-*",
                "fig5-*",
                "fig6-*",
                "fig7-*",
                "fig8-*",
                "fig9-*",
                "fig10-*",
            ),
            # The variants run from docs/claims/<family>.toml are judged by coupled's claims.
            claims_of=None if family == "coupled" else "coupled",
            not_kept=() if family == "coupled" else ("pair_share",),
        )
        for family in ("coupled", "coupled-2min", "coupled-special")
    ),
    Calibration(
        parameter="compute_load",
        family="coupled-atlas",
        value="0.885 (Atlas's drawn months packed to this offered load)",
        fitted_to=("fig3-base-wait",),
        method="base runs of the 20 drawn months of the seeds (root 20120521) at packed "
        "loads 0.8 / 0.85 / 0.87 / 0.88 / 0.885 / 0.89 / 0.895 / 0.9 / 0.94 give a base mean "
        "wait of 1.9 / 12.8 / 33.4 / 36.6 / 52.6 / 78.6 / 80.0 / 86.8 / 205 min; the closest "
        "to the paper's 61 was kept (cosched sweep docs/studies/coupled-atlas-drawn-load.toml; "
        "python docs/studies/coupled_atlas_drawn_load.py; docs/coupled.md)",
        held_out=("fig4-base-slowdown", "fig3-extra-wait-*", "fig4-*", "fig5-*", "fig6-*"),
        claims_of="coupled",
        not_kept=_STAND_IN,
    ),
    Calibration(
        parameter="compute_load",
        family="coupled-atlas-2min",
        value="0.94 (Atlas's month packed to this offered load)",
        fitted_to=("fig3-base-wait",),
        method="loads 0.85 / 0.90 / 0.92 / 0.94 give a base mean wait of 6.0 / 24.3 / "
        "42.7 / 64.2 min on month 5 of Atlas's log; the closest to the paper's 61 was "
        "kept (docs/coupled.md); coupled-atlas-2min packs its drawn months to it",
        held_out=("fig4-base-slowdown", "fig3-extra-wait-*", "fig4-*", "fig5-*", "fig6-*"),
        claims_of="coupled",
        not_kept=(*_STAND_IN, "pair_share"),
    ),
    *(
        Calibration(
            parameter="pair_share",
            family=family,
            value="0.075 (of the analysis jobs, kept from the 2-minute rule's pairs)",
            fitted_to=("pairing-share-analysis-*",),
            method="the middle of the paper's 'between 5% and 10%' (section V-D); the "
            "2-minute rule alone pairs 24-26% (Atlas) or 35% (the stand-in) of the packed KTH "
            "jobs (python docs/studies/coupled_pair_share.py; docs/coupled.md)",
            held_out=(
                "pairing-share-compute-*",
                "fig3-extra-wait-*",
                "fig3-hold-*",
                "fig5-*",
                "fig6-*",
                "fig7-*",
                "fig9-*",
                "fig10-*",
            ),
            claims_of=None if family == "coupled" else "coupled",
        )
        for family in ("coupled", "coupled-atlas")
    ),
)
