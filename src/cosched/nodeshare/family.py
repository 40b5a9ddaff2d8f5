"""Node sharing, declared for the shared commands (:mod:`cosched.families`)."""

from __future__ import annotations

from cosched.families import Family, Mechanism

__all__ = ["FAMILY"]


def _backfilling(policy: object, within: str) -> str:
    """Node sharing with EASY (a ``window``) backfills; plain node sharing does not."""
    return f"EASY backfilling{within}" if hasattr(policy, "window") else ""


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
)
