"""Coupled machines: why some claims of its reproductions are not reproduced (its
``Family.causes``, gathered in :data:`cosched.experiments.fidelity.CAUSES`)."""

from __future__ import annotations

from cosched.experiments.fidelity import Cause

__all__ = ["CAUSES"]

_COUPLED_TRACES = (
    "the Intrepid and Eureka traces are not public: a month drawn to the paper's "
    "description of Intrepid (its size mix, run times, estimates and arrivals assumed; "
    "load and run-time shape fitted to the base wait and slowdown) and KTH SP2 stand in"
)


#: Each gap's cause, per reproduction: the first entry whose patterns hold a claim.
CAUSES: tuple[Cause, ...] = (
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
          "this study was not investigated further. The paper's construction "
          "(analysis_jobs = 9219) pairs 3,042 compute jobs at 33% but cannot be run "
          "whole: on one drawn month (seed 12345, run_cell) HH at 10% paired ended in a "
          "hold-hold deadlock despite the 20-minute release (the paper saw none), HH at "
          "20% had not finished after 420 s (52 s of CPU), while every cell with a yield "
          "took 10-25 s",
          "the proportion grid with analysis_jobs = 9219 at 20 seeds (HH at 10-33% needs "
          "the deadlock understood first: release runs on each hold's own 20-minute "
          "clock, and a machine-wide release of every hold at once, the other reading "
          "of l. 481-482, is the one to try); the paper's paired counts; a per-pair "
          "breakdown of the sync times"),
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
          "10 months) above or astride them (lost shares 9.1% [5.8, 12.5] / 11.2% "
          "[6.9, 15.5]; sync with hold at 0.5 58.3 min and hold less yield on the "
          "compute machine at 0.5 +9.8 min, both agreeing; HH deadlocked in 2 of 10 "
          "months at 0.5 and 8 of 10 at 0.75, so the load-0.75 claims rest on 2 months)",
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
          "2-minute pair, docs/claims/coupled-2min.csv: -12.0 / -1.1 min at 0.25 / 0.5; "
          "pair_share 0.2, docs/studies/coupled-pair-share-0.2.toml: -16.8 / -58.6 min at "
          "0.5 / 0.75): with more jobs holding, hold syncs later than yield",
          "the sync times of the same pairs under YH and HH compared pair by pair within "
          "each month (per-job tables), which removes the month-to-month spread"),
    Cause("coupled", ("*",), "paper under-specified",
          _COUPLED_TRACES + "; the stand-in's heavy-tailed run times make one month's "
          "waits differ from another's by tens of minutes, so an extra wait is the "
          "difference of two schedules that diverge, and a range's low end can fall "
          "below zero; with 7.5% of the analysis jobs paired, few compute jobs hold",
          "Intrepid's month (its run times and per-machine paired counts), or its "
          "run-time distribution to draw the stand-in from"),
)  # fmt: skip
