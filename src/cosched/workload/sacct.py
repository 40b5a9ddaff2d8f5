"""What cosched asks of ``sacct`` (no heavy imports: the command line's help shows it)."""

from __future__ import annotations

__all__ = ["SACCT_COLUMNS", "SACCT_COMMAND"]

#: The columns cosched reads, in the order of the recommended command.
SACCT_COLUMNS: tuple[str, ...] = (
    "JobIDRaw",
    "JobID",
    "User",
    "Group",
    "Account",
    "Partition",
    "QOS",
    "Submit",
    "Eligible",
    "Start",
    "End",
    "Elapsed",
    "Timelimit",
    "State",
    "NNodes",
    "NCPUS",
    "ReqCPUS",
    "ReqMem",
    "AllocTRES",
)

#: The command whose output :func:`import_slurm` reads (epoch times recommended).
SACCT_COMMAND = (
    "SLURM_TIME_FORMAT=%s sacct --allusers --allocations --parsable2 "
    "--starttime 2024-01-01 --endtime 2024-02-01 --format=" + ",".join(SACCT_COLUMNS)
)
