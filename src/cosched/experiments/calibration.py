"""The calibration record: every parameter fitted to a paper's output, registered once.

A parameter whose value (or reading) was chosen because it brings cosched's output close
to a paper's results is a calibration, not a prediction: the claims it was fitted to
cannot also count as agreement. Each :class:`Calibration` names the parameter, the
reproduction (``family``: the experiment's name, as in ``docs/claims/<family>.csv``), its
value, the claims it was fitted to (ids or :func:`fnmatch.fnmatchcase` patterns), the
method, and the claims held out of the fit, which test it. :func:`cosched.experiments.
claims.evaluate` gives every claim in a fit set the verdict *calibrated* (its number is
shown, never counted); ``scripts/readme_status.py`` writes each fit's held-out verdicts to
docs/fidelity.md.

An input the paper states (Table 2's constants, a machine's node count) is not a
calibration; neither is a reading decided by the paper's text alone. A reading chosen
because it reproduces a number the paper computes (a worked example) is a calibration
on that number, and a claim built on a fitted quantity (a difference with a fitted
term) is in the fit set too. A number the simulation was given (a job length set from
the paper's own column) is neither: its claim is declared ``input``
(:class:`cosched.experiments.claims.Claim`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from cosched.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd

    from cosched.experiments.claims import Claim

__all__ = [
    "Calibration",
    "all_calibrations",
    "calibration_of",
    "calibrations",
    "grid_fit",
    "kept_fit",
]


@dataclass(frozen=True)
class Calibration:
    """One parameter fitted to a paper's output.

    Attributes:
        parameter: the parameter or reading, as the spec or the code names it.
        family: the reproduction (the experiment's name).
        value: the fitted value.
        fitted_to: the claims the fit looked at (ids or patterns): verdict *calibrated*.
        method: how the value was chosen, and where the evidence is.
        held_out: the claims not looked at by the fit (ids or patterns), which test it.
        claims_of: the reproduction whose claims the patterns name, when ``family`` is a
            study judged by another reproduction's claims (None: ``family`` itself).
        not_kept: for a study, the reproduction's fits (their ``parameter``) it does not
            use: in the study their fit sets are judged like any other claim; every
            other fit of the reproduction holds in its studies (:func:`kept_fit`).
    """

    parameter: str
    family: str
    value: str
    fitted_to: tuple[str, ...]
    method: str
    held_out: tuple[str, ...]
    claims_of: str | None = None
    not_kept: tuple[str, ...] = ()

    def fits(self, claim: str) -> bool:
        """Whether ``claim`` is in the fit set."""
        return any(fnmatchcase(claim, p) for p in self.fitted_to)

    def holds_out(self, claim: str) -> bool:
        """Whether ``claim`` is held out of the fit (and not in the fit set)."""
        return not self.fits(claim) and any(fnmatchcase(claim, p) for p in self.held_out)


def all_calibrations() -> tuple[Calibration, ...]:
    """Every registered calibration: what each family declares
    (:attr:`Family.calibrations <cosched.families.Family.calibrations>`), loaded once and
    kept as :data:`CALIBRATIONS`."""
    from cosched.families import gathered

    return gathered(globals(), "CALIBRATIONS", "calibrations", Calibration)


def __getattr__(name: str) -> tuple[Calibration, ...]:
    # CALIBRATIONS is read on first use: the families' declarations load their packages.
    if name == "CALIBRATIONS":
        return all_calibrations()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def kept_fit(study: str, reproduction: str, claim: str) -> bool:
    """Whether a fit of ``reproduction`` that ``study`` keeps (every one but those its
    calibrations name in :attr:`Calibration.not_kept`) has ``claim`` in its set."""
    dropped = {p for c in calibrations(study) for p in c.not_kept}
    return any(c.fits(claim) for c in calibrations(reproduction) if c.parameter not in dropped)


def calibrations(family: str) -> tuple[Calibration, ...]:
    """The calibrations registered for ``family``."""
    return tuple(c for c in all_calibrations() if c.family == family)


def calibration_of(family: str, claim: str) -> Calibration | None:
    """The first calibration of ``family`` whose fit set holds ``claim`` (else None)."""
    return next((c for c in calibrations(family) if c.fits(claim)), None)


def grid_fit(
    points: Mapping[str, pd.DataFrame], declared: Sequence[Claim], fitted_to: Sequence[str]
) -> tuple[str, dict[str, float]]:
    """The grid point whose runs bring the fit set closest to the paper.

    The loss of a point is the mean over the fit set's claims of ``|ln(cosched /
    paper)|`` (the paper's value the middle of its range; cosched's the claim's mean over
    seeds). Only the claims whose id matches a pattern of ``fitted_to`` are judged, so
    no held-out claim's paper value can move the fit (tested). Ties go to the first point.

    Args:
        points: the results of each grid point, by its label.
        declared: the reproduction's claims.
        fitted_to: the fit set (ids or :func:`fnmatch.fnmatchcase` patterns).

    Returns:
        The best point's label and every point's loss (nan where a fit claim has no
        positive value on both sides).
    """
    from cosched.experiments.claims import evaluate

    fit = [c for c in declared if any(fnmatchcase(c.id, p) for p in fitted_to)]
    losses: dict[str, float] = {}
    for label, results in points.items():
        table = evaluate(fit, results)
        paper = (table["paper_low"] + table["paper_high"]) / 2
        logs = [
            abs(math.log(c / p)) if c > 0 and p > 0 and math.isfinite(p) else math.nan
            for c, p in zip(table["cosched"], paper, strict=True)
        ]
        losses[label] = math.fsum(logs) / len(logs) if logs else math.nan
    finite = {k: v for k, v in losses.items() if not math.isnan(v)}
    if not finite:
        raise ConfigError("grid_fit: no grid point gives a value for the fit set's claims")
    return min(finite, key=lambda k: finite[k]), losses
