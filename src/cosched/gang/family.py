"""Gang scheduling, declared for the shared commands (:mod:`cosched.families`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cosched.families import Family, Mechanism

if TYPE_CHECKING:
    from cosched.compare.study import Arm
    from cosched.policies.base import Policy

__all__ = ["EFFICIENCIES", "FAMILY"]

#: Efficiencies of a time-sliced job (quantum / (quantum + switch cost)) in gang's
#: robustness sweep: how much may each context switch cost before time slicing stops
#: paying? The main arm gives the point at its own switch cost (0 s by default: 1).
EFFICIENCIES = (0.9, 0.75, 0.5)


def _backfilling(policy: object, within: str) -> str:
    """Gang backfills into its rows when its ``backfill`` is on."""
    return f"EASY backfilling into rows{within}" if getattr(policy, "backfill", False) else ""


def _sweeps(arms: Sequence[Arm]) -> list[Arm]:
    """Gang with the switch cost that gives each of :data:`EFFICIENCIES`:
    ``compare``'s switch-cost sweep."""
    gang = next((a for a in arms if a.policy == "gang" and a.role == "main"), None)
    if gang is None:
        return []
    from cosched.compare.study import Arm
    from cosched.gang.policies import Gang

    quantum = Gang(**gang.params).quantum
    out = []
    for eff in EFFICIENCIES:
        params = {**gang.params, "switch_cost": quantum * (1 / eff - 1)}
        out.append(Arm(f"{gang.label}@eff{eff:g}", "gang", params, False, "efficiency", eff))
    return out


def _assumptions(policy: Policy) -> list[str]:
    """The gang parameters (or Slurm settings) in force."""
    return policy.assumptions()


FAMILY = Family(
    name="gang",
    # time slicing with two rows
    compare=("gang",),
    compare_rank=30,
    controls=(("time slicing", "mechanism", {"mpl": 1}, {}),),
    # The sweep's cell function on the whole KTH-SP2 log (28,467 jobs, its 100
    # single-core nodes), time.process_time of the second cell in one process (kernels
    # loaded), on a 2-core VM: 22,400-25,400 jobs a second (two cells each of gang and
    # gang-slurm, 2026-11-28), rounded down.
    jobs_per_second=22_000.0,
    mechanism=Mechanism(
        words="time slicing",
        headline="Time-slice",
        measures=("sliced",),
        caveat=(
            "Gang is uncalibrated on a trace: its efficiency (`gang_efficiency`) defaults "
            "to 1, so a time-sliced job computes its whole slot and pays only the switch "
            "cost set (0 s by default); cache and memory contention between the jobs "
            "sharing a processor is not in this number (docs/gang.md)."
        ),
        rank=20,
    ),
    backfilling=_backfilling,
    assumptions=_assumptions,
    sweeps=_sweeps,
)
