"""Node sharing, declared for the shared commands (:mod:`cosched.families`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cosched.families import Family, Mechanism

if TYPE_CHECKING:
    from cosched.compare.study import Arm
    from cosched.policies.base import Policy

__all__ = ["FAMILY", "STRENGTHS", "VICTIMS"]

#: Multipliers of the node-sharing victim weights (how much co-located jobs slow each
#: other) in the robustness sweep; 1 is the preset in force, 0 no interference at all.
STRENGTHS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)
#: The victim weights the sweep scales.
VICTIMS = ("victim_low", "victim_moderate", "victim_high")


def _backfilling(policy: object, within: str) -> str:
    """Node sharing with EASY (a ``window``) backfills; plain node sharing does not."""
    return f"EASY backfilling{within}" if hasattr(policy, "window") else ""


def _sweeps(arms: Sequence[Arm]) -> list[Arm]:
    """Node sharing (with EASY if it runs) with its victim weights scaled by each of
    :data:`STRENGTHS`: ``compare``'s interference sweep."""
    sweep = next(
        (a for p in ("nodeshare-easy", "nodeshare") for a in arms
         if a.policy == p and a.role == "main"),
        None,
    )  # fmt: skip
    if sweep is None:
        return []
    from cosched.compare.study import Arm
    from cosched.policies.base import policy_class

    preset = {k: getattr(policy_class(sweep.policy)(**sweep.params), k) for k in VICTIMS}
    out = []
    for s in STRENGTHS:
        params = {**sweep.params, **{k: v * s for k, v in preset.items()}}
        if s == 1.0:
            params = dict(sweep.params)
        out.append(Arm(f"{sweep.label}@{s:g}", sweep.policy, params, True, "robustness", s))
    return out


def _assumptions(policy: Policy) -> list[str]:
    """Rigid or malleable jobs, the interference values in force, and the drawn profiles."""
    return [
        "malleable jobs: a job may run shrunk on fewer processors than it asked for (--malleable)"
        if getattr(policy, "degraded", False)
        else "rigid jobs: never run on fewer processors than asked for (the default; "
        "--malleable lets node sharing shrink them)",
        *policy.assumptions(),
        "each job's memory-bandwidth sensitivity and communication are drawn at "
        "random (no log records them)",
    ]


FAMILY = Family(
    name="nodeshare",
    # node sharing alone and with EASY
    compare=("nodeshare", "nodeshare-easy"),
    compare_rank=10,
    # rigid jobs: --malleable lets node sharing shrink them onto fewer processors
    conservative=("degraded", False, "malleable"),
    controls=(
        ("shrinking", "assumption", {"degraded": False}, {}),
        ("speedup", "assumption", {"speedup_half": 1.0, "speedup_quarter": 1.0}, {}),
        ("sharing", "mechanism", {}, {"max_jobs_per_node": 1}),
    ),
    # The sweep's cell function (annotation, simulation, summary) on the whole KTH-SP2
    # log (28,467 jobs, its 100 single-core nodes), time.process_time of the second cell
    # in one process (kernels loaded), on a 2-core VM: 24,700-31,200 jobs a second (two
    # cells each of nodeshare and nodeshare-easy, 2026-11-28), rounded down.
    jobs_per_second=24_000.0,
    single_core=(
        "its nodes have one core each, so no two jobs can share a node; node sharing would "
        "act only by shrinking jobs onto fewer processors, which needs malleable "
        "applications. Name it in --policies to see that anyway, or give the machine's "
        "real shape with --machine nodes=N,cores=C."
    ),
    papers={"nodeshare": "hpc-coscheduling-malleable-configurations"},
    profiles={"nodeshare": "cosched.workload.profiles.nodeshare:annotate_nodeshare"},
    mechanism=Mechanism(
        words="sharing nodes",
        headline="Share nodes",
        measures=("shared", "spread", "shrunk"),
        shared="shared a node with another job",
        unrecorded="whether its jobs shared nodes was not recorded (an older store)",
        rank=10,
    ),
    backfilling=_backfilling,
    assumptions=_assumptions,
    sweeps=_sweeps,
    causes="cosched.nodeshare.causes:CAUSES",
    calibrations="cosched.nodeshare.calibrations:CALIBRATIONS",
)
