"""FCS's local context switch is a calibration fitted on sections 3.1-3.2 only."""

from __future__ import annotations

from cosched.experiments.calibration import calibrations
from cosched.timesharing.fcs_claims import claims


def test_the_context_switch_is_fitted_on_3_1_3_2_and_held_out_on_3_3_3_4_and_section_4() -> None:
    (fit,) = [c for c in calibrations("fcs") if c.parameter.startswith("context_switch")]
    ids = [c.id for c in claims()]
    fitted = {i for i in ids if fit.fits(i)}
    held = {i for i in ids if fit.holds_out(i)}
    # The fit set: the schemes with a local scheduler (SB, FCS) in 3.1 and 3.2 (their
    # per-job end times, which the fit minimised over, and the turnaround and mean
    # response made of them), and the comparisons made of them there; GS pays the gang
    # switch and FCFS runs each job alone.
    per_job = {
        f"s3-{s}-{k}-{c}"
        for s in ("balanced", "imbalanced")
        for k in ("SB", "FCS")
        for c in ("job1", "job2", "mean_response")
    }
    assert fitted == {
        "s3-balanced-SB", "s3-balanced-FCS", "s3-imbalanced-SB", "s3-imbalanced-FCS",
        "s3-balanced-FCS-vs-GS", "s3-imbalanced-FCS-vs-GS", *per_job,
    }  # fmt: skip
    # Held out: every SB and FCS claim of 3.3, 3.4 and section 4, nothing of 3.1-3.2.
    for i in ids:
        scenario = i.split("-")[1]
        if i.startswith("s4-") or scenario in ("complementing", "mixed"):
            assert (i in held) == any(f"-{k}" in i for k in ("SB", "FCS")), i
        else:
            assert i not in held, i
