"""LOMARC, declared for the shared commands (:mod:`cosched.families`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cosched.families import Family, Mechanism

if TYPE_CHECKING:
    from cosched.compare.study import Arm
    from cosched.policies.base import Policy

__all__ = ["FAMILY"]


#: What LOMARC's pairs rest on, for the verdict (no log records the mix).
_MIX = "No log records a job's dominant resource, so the pairs rest on a drawn job-type mix"


def _sweeps(arms: Sequence[Arm]) -> list[Arm]:
    """LOMARC under the paper's other job-type mixes (no log records the mix)."""
    mixed = next((a for a in arms if a.policy.startswith("lomarc") and a.role == "main"), None)
    if mixed is None:
        return []
    import inspect

    from cosched.compare.study import Arm
    from cosched.workload.profiles.lomarc import MIXTURES, annotate_lomarc

    default = inspect.signature(annotate_lomarc).parameters["mixture"].default
    return [
        Arm(f"{mixed.label}@{mix}", mixed.policy, dict(mixed.params), True, "mix", None,
            {"mixture": mix})
        for mix in MIXTURES
        if mix != default  # the main arm runs the default
    ]  # fmt: skip


def _assumptions(policy: Policy) -> list[str]:
    """The processors (SMT or not) and the drawn job profiles."""
    return [
        "hyperthreaded (SMT) processors (--smt)"
        if getattr(policy, "cpu", "") == "hyperthreaded"
        else "standard processors without SMT (the default; --smt assumes hyperthreads)",
        "each job's dominant resource (CPU, network, disk) and its memory are drawn "
        "from the paper's distributions, not read from the log's memory requests",
    ]


FAMILY = Family(
    name="lomarc",
    # pairing with L-U1
    compare=("lomarc",),
    compare_rank=20,
    # processors without SMT: --smt lets LOMARC pair jobs on hyperthreads
    conservative=("cpu", "standard", "smt"),
    controls=(
        ("SMT", "assumption", {"cpu": "standard"}, {}),
        ("pairing", "mechanism", {"search": "none", "running": False}, {}),
    ),
    # The sweep's cell function on the whole KTH-SP2 log (28,467 jobs, its 100
    # single-core nodes), time.process_time of the second cell in one process (kernels
    # loaded), on a 2-core VM: 32,000-50,000 jobs a second, rounded down.
    jobs_per_second=30_000.0,
    papers={"lomarc": "lomarc-hyperthreaded-coscheduling"},
    profiles={"lomarc": "cosched.workload.profiles.lomarc:annotate_lomarc"},
    mechanism=Mechanism(
        words="pairing jobs on a processor (LOMARC)",
        headline="Pair jobs",
        measures=("shared",),
        shared="ran paired with another job on a processor",
        unrecorded="whether its jobs were paired was not recorded (an older store)",
        caveat=_MIX + ".",
        caveat_mixes=_MIX + " (the section on mixes tries the others).",
        rank=30,
    ),
    backfilling=lambda policy, within: "EASY backfilling",
    order="LOMARC's priority order with aging",
    assumptions=_assumptions,
    sweeps=_sweeps,
    causes="cosched.lomarc.causes:CAUSES",
    calibrations="cosched.lomarc.calibrations:CALIBRATIONS",
)
