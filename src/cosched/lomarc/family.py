"""LOMARC, declared for the shared commands (:mod:`cosched.families`)."""

from __future__ import annotations

from cosched.families import Family

__all__ = ["FAMILY"]

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
)
