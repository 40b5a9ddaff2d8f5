"""Gang scheduling, declared for the shared commands (:mod:`cosched.families`)."""

from __future__ import annotations

from cosched.families import Family

__all__ = ["FAMILY"]

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
)
