"""The dynamic-coscheduling paper's claims, judged by :mod:`cosched.experiments.claims`.

Declared apart from :mod:`cosched.timesharing.report` (which draws the figures and
tables) so that the claims can be kept while the model and its report change. Sources:
Figure 3's saturation utilizations (section 4.1, :data:`PAPER_SATURATION`), Table 4's
changes of response time against MPL 2 (:data:`PAPER_TABLE4`), Figure 5's skew text and
Table 5's normalized response times (:data:`PAPER_TABLE5`). The spec runs one seed (one
workload per configuration, as the paper), so there are no intervals unless seeds are
added.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from cosched.experiments.claims import Claim, Measure, combine, per_seed, select
from cosched.timesharing.params import SCHEMES
from cosched.timesharing.report import (
    OVERHEADS_DCS,
    OVERHEADS_GS,
    PAPER_TABLE4,
    PAPER_TABLE5,
    TABLE4_COLS,
    TABLE5_SCHEMES,
)

__all__ = ["claims"]

_GRAIN = (
    "Lublin jobs with times / 400 at the paper's 4 KiB messages: the time scale sets how "
    "many messages, context switches and interrupts a job incurs (docs/timesharing.md)"
)
#: Figure 3: saturation utilization (%) per scheme, as a range.
_SATURATION: dict[str, tuple[float, float, str]] = {
    "Local": (0.0, 50.0, "< 50%"),
    "SY": (0.0, 50.0, "< 50%"),
    "DCS": (0.0, 50.0, "< 50%"),
    "DCS-SY": (0.0, 50.0, "< 50%"),
    "GS": (57.0, 57.0, "~57%"),
    "PB": (77.0, 77.0, "~77%"),
    "PB-SB": (77.0, 77.0, "~77%"),
    "SB": (77.0, 77.0, "~77%"),
}


def _at(workload: str, scheme: str, **kw: object) -> dict[str, object]:
    where: dict[str, object] = {"workload": workload, "scheme": scheme, "skew": 0.2}
    where |= {"mpl": 5, "variant": "", "load": 1.0}
    where.update(kw)
    return where


def _max_util(results: pd.DataFrame, scheme: str) -> dict[int, float]:
    """Per seed: the highest utilization (%) of ``scheme`` over WL7's loads."""
    rows = select(results, {"workload": "WL7", "scheme": scheme, "mpl": 5, "skew": 0.2})
    rows = rows[rows["variant"] == ""] if "variant" in rows.columns else rows
    if rows.empty or "utilization" not in rows.columns:
        return {}
    return {int(s): 100.0 * float(g["utilization"].max()) for s, g in rows.groupby("seed")}


def _saturation(scheme: str) -> Measure:
    def measure(results: pd.DataFrame) -> np.ndarray:
        part = _max_util(results, scheme)
        return combine([part], lambda v: v[0]) if part else np.empty(0)

    return measure


def _gs_over_pb(results: pd.DataFrame) -> np.ndarray:
    gs, pb = _max_util(results, "GS"), _max_util(results, "PB")
    if not gs or not pb:
        return np.empty(0)
    return combine([gs, pb], lambda v: v[0] / v[1])


def _ratio(num: Mapping[str, object], den: Mapping[str, object], minus: float = 0.0) -> Measure:
    def measure(results: pd.DataFrame) -> np.ndarray:
        a, b = per_seed(results, num, "mean_response"), per_seed(results, den, "mean_response")
        if not a or not b:
            return np.empty(0)
        return combine([a, b], lambda v: v[0] / v[1] - minus)

    return measure


def _skew_gap(first: str, others: tuple[str, ...]) -> Measure:
    """Per seed: ``first``'s response ratio skew 150% / 20% minus the largest of
    ``others``' (positive: ``first`` is the most exposed)."""

    def measure(results: pd.DataFrame) -> np.ndarray:
        def ratio(s: str) -> dict[int, float]:
            hi = per_seed(results, _at("WL4", s, skew=1.5), "mean_response")
            lo = per_seed(results, _at("WL4", s), "mean_response")
            return {k: hi[k] / lo[k] for k in hi if k in lo}

        parts = [ratio(first), *(ratio(s) for s in others)]
        if any(not p for p in parts):
            return np.empty(0)
        return combine(parts, lambda v: v[0] - max(v[1:]))

    return measure


def claims() -> list[Claim]:
    """Figure 3, Table 4, Figure 5 and Table 5 of the paper."""
    out = []
    for scheme, (low, high, text) in _SATURATION.items():
        out.append(
            Claim(
                id=f"fig3-saturation-{scheme}",
                description=f"{scheme}'s highest utilization, WL7 load sweep",
                paper=text,
                low=low,
                high=high,
                measure=_saturation(scheme),
                reason=_GRAIN + "; utilization counts compute time only",
                unit="%",
                tol_abs=5.0,
                partly="factor",
                factor=1.5,
            )
        )
    out.append(
        Claim(
            id="fig3-GS-over-PB",
            description="GS's saturation utilization over PB's, WL7",
            paper="57 / 77 = 0.74",
            low=57 / 77,
            high=57 / 77,
            measure=_gs_over_pb,
            reason=_GRAIN,
            tol_abs=0.05,
            partly="factor",
            factor=1.5,
        )
    )
    for scheme in SCHEMES:
        for (wl, mpl), paper in zip(TABLE4_COLS, PAPER_TABLE4[scheme], strict=True):
            if paper is None:
                continue
            out.append(
                Claim(
                    id=f"table4-{scheme}-{wl}-MPL{mpl}",
                    description=f"{scheme}'s response at MPL {mpl} relative to MPL 2, {wl}",
                    paper=f"{paper:+.2f}",
                    low=paper,
                    high=paper,
                    measure=_ratio(_at(wl, scheme, mpl=mpl), _at(wl, scheme, mpl=2), 1.0),
                    reason=_GRAIN,
                    tol_abs=0.1,
                )
            )
    out += [
        Claim(
            id="fig5-GS-most-exposed",
            description="GS's response ratio skew 150% / 20% minus the largest other's, WL4",
            paper="GS most affected by skew (> 0)",
            low=0.0,
            high=np.inf,
            measure=_skew_gap("GS", tuple(s for s in SCHEMES if s != "GS")),
            reason=_GRAIN,
        ),
        Claim(
            id="fig5-blocking-hides-skew",
            description="PB's skew ratio minus SB's, WL4",
            paper="blocking tolerates skew better than spinning (> 0)",
            low=0.0,
            high=np.inf,
            measure=_skew_gap("PB", ("SB",)),
            reason=_GRAIN,
        ),
    ]
    for scheme in TABLE5_SCHEMES:
        variants = OVERHEADS_GS if scheme == "GS" else OVERHEADS_DCS
        for k, (label, _) in enumerate(variants):
            paper = PAPER_TABLE5[scheme][k]
            if k == 0 or paper is None:
                continue
            out.append(
                Claim(
                    id=f"table5-{scheme}-{label.replace(' ', '')}",
                    description=f"{scheme}'s WL5 response with {label}, over default costs",
                    paper=f"{paper:.3f}",
                    low=paper,
                    high=paper,
                    measure=_ratio(_at("WL5", scheme, variant=label), _at("WL5", scheme)),
                    reason=_GRAIN,
                    tol_abs=0.05,
                    partly="factor",
                    factor=1.25,
                )
            )
    return out
