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
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, cast

from cosched.errors import ConfigError
from cosched.experiments.declarations import Kind, check, read

if TYPE_CHECKING:
    import pandas as pd

    from cosched.experiments.claims import Claim

__all__ = [
    "Calibration",
    "all_calibrations",
    "calibration_of",
    "calibrations",
    "declared_calibrations",
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


#: The keys of a ``[[calibration]]`` entry: the record's fields, then ``also`` (the same
#: fit declared for further reproductions: tables of ``family`` and the fields that
#: differ, ``claims_of`` by default the entry's, or its ``family``) and ``keeps`` (for a
#: study: the reproduction whose fits in the same file hold in the study too).
_FIELDS: dict[str, Kind] = {
    "parameter": "text",
    "family": "name",
    "value": "text",
    "fitted_to": "names",
    "method": "text",
    "held_out": "names",
    "claims_of": "name",
    "not_kept": "names",
    "also": "tables",
    "keeps": "name",
}
_REQUIRED = frozenset({"parameter", "family", "value", "fitted_to", "method", "held_out"})
_ALSO: dict[str, Kind] = {"family": "name", "claims_of": "name", "not_kept": "names"}


def _calibration(values: Mapping[str, object]) -> Calibration:
    names = cast(Mapping[str, tuple[str, ...]], values)
    text = cast(Mapping[str, str], values)
    return Calibration(
        parameter=text["parameter"],
        family=text["family"],
        value=text["value"],
        fitted_to=names["fitted_to"],
        method=text["method"],
        held_out=names["held_out"],
        claims_of=text.get("claims_of"),
        not_kept=names.get("not_kept", ()),
    )


def declared_calibrations(
    package: str, filename: str = "calibrations.toml"
) -> tuple[Calibration, ...]:
    """The calibrations ``package`` declares in its data file ``filename``, in the file's
    order, each followed by its copies: those its ``also`` declares, then, for a study
    that ``keeps`` a reproduction, each of that reproduction's fits in the file, as the
    study's (``claims_of`` the reproduction).

    Raises:
        ConfigError: the file's error (:func:`cosched.experiments.declarations.read`), an
            ``also`` table that fails the same checks, or ``keeps`` naming a
            reproduction with no fit in the file.
    """
    entries = read(package, filename, "calibration", _FIELDS, _REQUIRED)
    own = [_calibration(e.values) for e in entries]
    out: list[Calibration] = []
    for entry, fit in zip(entries, own, strict=True):
        out.append(fit)
        also = cast(tuple[Mapping[str, object], ...], entry.values.get("also", ()))
        for i, raw in enumerate(also, start=1):
            where = f"{entry.where}: also {i}"
            changed = check(raw, _ALSO, frozenset({"family"}), where)
            out.append(
                replace(
                    fit,
                    family=cast(str, changed["family"]),
                    claims_of=cast(str, changed.get("claims_of", fit.claims_of or fit.family)),
                    not_kept=cast(tuple[str, ...], changed.get("not_kept", fit.not_kept)),
                )
            )
        keeps = cast(str | None, entry.values.get("keeps"))
        if keeps is not None:
            kept = [
                replace(c, family=fit.family, claims_of=keeps) for c in own if c.family == keeps
            ]
            if not kept:
                raise ConfigError(f"{entry.where}: keeps: no fit of {keeps!r} in the file")
            out.extend(kept)
    return tuple(out)


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
