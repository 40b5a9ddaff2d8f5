"""docs/fidelity.md and the README's status column come from the stored claims
(docs/claims/*.csv), and every gap there has a classified cause."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from cosched.experiments.fidelity import (
    KINDS,
    cause_of,
    fidelity_markdown,
    render_blocks,
    verdict_changes,
)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "readme_status.py"
FAMILIES = ("lomarc", "nodeshare", "dyncosched", "fcs", "coupled")


def _check(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--check", *flags],
        capture_output=True,
        text=True,
        check=False,
    )


def test_fidelity_md_matches_the_stored_claims() -> None:
    done = _check("--skip-readme")
    assert done.returncode == 0, done.stdout + done.stderr


def test_readme_status_column_matches_the_stored_claims() -> None:
    done = _check()
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("family", FAMILIES)
def test_every_gap_in_the_stored_claims_has_a_classified_cause(family: str) -> None:
    frame = pd.read_csv(ROOT / "docs" / "claims" / f"{family}.csv")
    gaps = frame[frame["verdict"].isin(["disagrees", "direction"])]
    for claim in gaps["claim"]:
        cause = cause_of(family, str(claim))
        assert cause is not None, f"{family}: {claim} has no cause"
        assert cause.kind in KINDS and cause.cause and cause.evidence


def test_fidelity_counts_by_hand() -> None:
    rows = [
        ("a", "agrees"), ("b", "direction"), ("c", "disagrees"), ("d", "calibrated"),
        ("e", "not simulated"), ("f", "inconclusive"), ("g", "input"), ("h", "untestable"),
    ]  # fmt: skip
    frame = pd.DataFrame(
        [
            {"command": "cosched reproduce coupled", "claim": c, "paper": "1", "cosched": 1.0,
             "unit": "", "seeds": 3, "verdict": v, "reason": "r", "quote": "", "judged": ""}
            for c, v in rows
        ]
    )  # fmt: skip
    text = fidelity_markdown({"coupled": frame})
    # 8 declared less 1 calibrated, 1 input, 1 untestable and 1 not simulated: 1 of 4
    assert "| coupled | 8 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 0 | 25% |" in text
    assert "Claims: 1 of 4 agree (25%); 1 direction, 1 inconclusive" in text
    assert "1 calibrated, 1 input, 1 untestable, 1 not simulated" in text
    # the uncounted are listed: the untestable with its null, the inputs with their reason
    assert "**Untestable** (the null outcome would agree too" in text
    assert "h (paper 1, null n/a, cosched 1)" in text
    assert "**Input** (1 claims, shown and not counted: r): g." in text
    # the gaps (direction and disagrees) are listed under their cause, the rest are not
    gaps = text[text.index("**Paper under-specified.**") :]
    assert "| b | 1 | 1 | direction |\n| c | 1 | 1 | disagrees |" in gaps
    assert "| a |" not in text and "| d |" not in text


def test_count_blocks_and_verdict_changes_by_hand() -> None:
    frame = _table(
        "c",
        [("fig3-a", 1.0, "agrees"), ("fig3-b", 2.0, "untestable"), ("t-c", 3.0, "disagrees")],
        20,
    )
    page = "Figure 3 (<!-- claims fcs fig3-* -->typed 9 of 9<!-- /claims -->); all: " + (
        "<!-- claims fcs -->\nold\n<!-- /claims -->."
    )
    out = render_blocks(page, {"fcs": frame})
    assert out == (
        "Figure 3 (<!-- claims fcs fig3-* -->2 claims: 1 of 1 agree (100%); 1 untestable"
        "<!-- /claims -->); all: <!-- claims fcs -->3 claims: 1 of 2 agree (50%); "
        "1 disagrees, 1 untestable<!-- /claims -->."
    )
    assert render_blocks(out, {"fcs": frame}) == out
    with pytest.raises(ValueError, match="matches no claim"):
        render_blocks("<!-- claims fcs x-* -->1<!-- /claims -->", {"fcs": frame})
    with pytest.raises(ValueError, match="no docs/claims copy"):
        render_blocks("<!-- claims lomarc -->1<!-- /claims -->", {"fcs": frame})
    before = _table("c", [("fig3-a", 1.0, "agrees"), ("fig3-b", 2.0, "agrees")], 20)
    moved = verdict_changes({"fcs": before}, {"fcs": frame}, "abc123")
    assert moved.to_dict("records") == [
        {"paper": "fcs", "claim": "fig3-b", "before": "agrees", "after": "untestable",
         "cosched": 2.0, "before_rev": "abc123"},
        {"paper": "fcs", "claim": "t-c", "before": "undeclared", "after": "disagrees",
         "cosched": 3.0, "before_rev": "abc123"},
    ]  # fmt: skip
    text = fidelity_markdown({"fcs": frame}, changes=moved)
    assert "| fig3-b | agrees | untestable | 2 |" in text
    assert "**fcs** (2 claims; agrees to untestable: 1; undeclared to disagrees: 1)" in text


def _table(command: str, rows: list[tuple[str, float, str]], seeds: int) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"command": command, "claim": c, "paper": "1", "cosched": x, "unit": "",
             "seeds": seeds, "verdict": v, "reason": "r", "quote": "", "judged": ""}
            for c, x, v in rows
        ]
    )  # fmt: skip


def test_fidelity_lists_the_claims_a_quick_grid_judges_differently() -> None:
    full = _table("cosched sweep big.toml", [("a", 1.0, "agrees"), ("b", 2.0, "agrees")], 20)
    quick = _table(
        "cosched reproduce coupled --quick", [("a", 1.0, "agrees"), ("b", -2.0, "disagrees")], 1
    )
    text = fidelity_markdown({"coupled": full}, {"coupled": quick})
    assert "gives 1 of 2 claims the verdict above; these differ:" in text
    assert "| b | -2: disagrees | 1 | 2: agrees | 20 |" in text
    assert "| a | 1: agrees" not in text
    # the same verdicts: said, no table; a table that is the quick run: no section
    same = fidelity_markdown({"coupled": full}, {"coupled": full.assign(command="q")})
    assert "a quick run answers as the full grid does" in same
    assert "quick grid" not in fidelity_markdown({"coupled": quick}, {"coupled": quick})


def _copy(rows: list[tuple[str, str]], command: str = "cosched sweep x.toml") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"command": command, "claim": c, "paper": "1", "cosched": 1.0, "unit": "",
             "seeds": 20, "verdict": v, "reason": "", "quote": "", "judged": ""}
            for c, v in rows
        ]
    )  # fmt: skip


def _with_study(
    monkeypatch: pytest.MonkeyPatch,
    fit: tuple[str, str, str],
    default: pd.DataFrame,
    study: pd.DataFrame,
) -> str:
    """docs/fidelity.md for the coupled paper's claim copy ``default`` beside its one
    calibrated study's copy ``study``: the study ``fit`` (family, parameter, value),
    fitted to the claims ``fit-*`` and held out on ``held-*``, the only calibration
    registered."""
    from cosched.experiments import calibration
    from cosched.experiments.calibration import Calibration

    family, parameter, value = fit
    registered = Calibration(
        parameter=parameter, family=family, value=value, fitted_to=("fit-*",),
        method="grid", held_out=("held-*",), claims_of="coupled",
    )  # fmt: skip
    monkeypatch.setattr(calibration, "CALIBRATIONS", (registered,))
    return fidelity_markdown({"coupled": default}, studies={family: study})


def test_a_study_is_shown_held_out_beside_the_default_with_its_fit_set_excluded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default = _copy([("fit-a", "disagrees"), ("held-a", "agrees"), ("held-b", "disagrees"),
                     ("held-c", "disagrees")])  # fmt: skip
    study = _copy([("fit-a", "agrees"), ("held-a", "agrees"), ("held-b", "agrees"),
                   ("held-c", "direction")], "python fit.py")  # fmt: skip
    text = _with_study(monkeypatch, ("coupled-fitted", "load", "0.9"), default, study)
    section = text[text.index("### Held out under the calibrated inputs") :]
    # the fit set (fit-a) counts on neither side: 1 of 3 held out agree, then 2 of 3
    assert "| 1 of 3 agree (33%); 2 disagrees | 2 of 3 agree (67%); 1 direction |" in section
    assert "| held-b | 1 | 1: disagrees | 1: agrees |" in section
    assert "| fit-a |" not in section and "| held-a |" not in section
    # the held-out claim still not agreeing is listed with its cause
    assert "held-c (direction)" in section
    assert "`python fit.py`" in section


def test_a_mechanism_is_shown_with_and_without_on_the_claims_its_runs_cover(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cosched.experiments import fidelity
    from cosched.families import Reading

    nic = Reading("coupled-nic", "coupled", "nic=1", "the paper's line 7")
    monkeypatch.setattr(fidelity, "readings", lambda paper: (nic,) if paper == "coupled" else ())
    default = _copy([("a", "agrees"), ("b", "disagrees"), ("c", "calibrated"),
                     ("d", "disagrees")])  # fmt: skip
    switched = _copy([("a", "disagrees"), ("b", "agrees"), ("c", "agrees"),
                      ("d", "not run")], "python nic.py")  # fmt: skip
    text = fidelity_markdown({"coupled": default}, switched={"coupled-nic": switched})
    section = text[text.index("### Mechanisms and readings switched on") :]
    # c is calibrated in the default and d was not run with it: 1 of 2 each side
    assert (
        "| coupled-nic | nic=1 | the paper's line 7 | 1 of 2 agree (50%); 1 disagrees "
        "(1 claim not run with it left out of both) | 1 of 2 agree (50%); 1 disagrees |"
    ) in section
    assert "the 2 claims whose verdict it moves" in section
    assert "| a | 1 | 1: agrees | 1: disagrees |" in section
    assert "| b | 1 | 1: disagrees | 1: agrees |" in section
    assert "| c |" not in section and "`python nic.py`" in section
    # a mechanism without a copy is not shown
    assert "### Mechanisms and readings switched on" not in fidelity_markdown({"coupled": default})


def test_sensitivity_classes_by_hand() -> None:
    from cosched.experiments.fidelity import sensitivity_classes

    rows = [
        # claim, point, inside, verdict
        ("robust", "p1", True, "agrees"), ("robust", "p2", True, "agrees"),
        ("explained", "p1", True, "agrees"), ("explained", "p2", True, "disagrees"),
        ("model", "p1", True, "direction"), ("model", "p2", True, "disagrees"),
        ("outside", "p1", True, "disagrees"), ("outside", "p2", True, "disagrees"),
        ("outside", "p3", False, "agrees"),
        ("fitted", "p1", True, "calibrated"), ("fitted", "p2", True, "calibrated"),
    ]  # fmt: skip
    table = pd.DataFrame(
        [{"unknowns": "load", "point": p, "inside": i, "claim": c, "cosched": 1.0,
          "seeds": 3, "verdict": v} for c, p, i, v in rows]
    )  # fmt: skip
    classes = sensitivity_classes(table)
    assert classes["robust"] == ["robust"]
    assert classes["explained"] == ["explained"]
    assert classes["model's"] == ["model", "outside"]
    assert classes["outside only"] == ["outside"]
    text = fidelity_markdown({"coupled": _copy([("robust", "agrees")])},
                             sensitivity={"coupled": table})  # fmt: skip
    assert "| explained | 1 | explained |" in text
    assert "2 points inside, 1 outside" in text


def test_every_held_out_gap_of_a_stored_study_has_a_classified_cause() -> None:
    from cosched.experiments.fidelity import studies_of

    studies = [(p, c) for p in FAMILIES for c in studies_of(p)]
    stored = [
        (p, c) for p, c in studies if (ROOT / "docs" / "claims" / f"{c.family}.csv").is_file()
    ]
    if not stored:
        pytest.skip("no calibrated study keeps a claim copy in docs/claims/")
    for paper, fit in stored:
        frame = pd.read_csv(ROOT / "docs" / "claims" / f"{fit.family}.csv")
        gaps = frame[frame["verdict"].isin(["disagrees", "direction"])]
        for claim in gaps["claim"]:
            if fit.fits(str(claim)):
                continue
            cause = cause_of(fit.family, str(claim)) or cause_of(paper, str(claim))
            assert cause is not None, f"{fit.family}: held-out {claim} has no cause"


def test_a_study_that_ran_part_of_the_claims_is_compared_on_that_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default = _copy([("fit-a", "disagrees"), ("held-a", "agrees"), ("held-b", "disagrees"),
                     ("other", "agrees")])  # fmt: skip
    study = _copy([("fit-a", "agrees"), ("held-a", "agrees"), ("held-b", "agrees")])
    text = _with_study(monkeypatch, ("coupled-noise", "noise", "1 ms"), default, study)
    # 'other' is not in the study: out of both columns, and said so
    row = "| 1 of 2 agree (50%); 1 disagrees (1 claim the study did not run left out of both)"
    assert row + " | 2 of 2 agree (100%) |" in text
