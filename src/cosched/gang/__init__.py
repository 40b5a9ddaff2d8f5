"""Job-level gang scheduling: an Ousterhout matrix on the job-level engine.

Importing the package registers ``gang`` and ``gang-slurm``
(:mod:`cosched.gang.policies`); the matrix is in :mod:`.matrix`, the per-job
time-slicing columns in :mod:`.metrics`.
"""

from cosched.gang.metrics import gang_columns
from cosched.gang.policies import Gang, GangSlurm, with_trace_memory

__all__ = ["Gang", "GangSlurm", "gang_columns", "with_trace_memory"]
