"""Dynamic-coscheduling job types: computation / I/O / communication shares per job.

Source: the dynamic coscheduling cluster-simulation paper, section 3.2, Table 2. Six
job types with fixed shares of computation, I/O and communication (percent):

====  =====  ===  =====
type  comp   I/O  comm
====  =====  ===  =====
J1    35     15   50
J2    35     50   15
J3    35     35   30
J4    90     5    5
J5    35     5    60
J6    65     5    30
====  =====  ===  =====

Workloads WL1-WL6 use only J1-J6 respectively; WL7 is an equal mix of J1-J6 and WL8
an equal mix of J2, J4 and J5. The paper restricts jobs to at most 32 nodes; that is a
size filter on the workload, not part of this annotator.

The skewness ``s`` (work imbalance between tasks, Table 3: 20% or 150%) is a run
parameter, stored per job as ``dcs_skew`` so a simulator sees it with the job. Our
choice: default 0.2, the value of the paper's load figure (the default in Table 3 is
marked by an underline lost in our text copy).

Columns added (prefixed ``dcs_``):

=================  =======  =================================================
name               dtype    meaning
=================  =======  =================================================
``dcs_job_type``   int8     1..6 for J1..J6
``dcs_comp``       float64  computation share of the run time
``dcs_io``         float64  I/O share
``dcs_comm``       float64  communication share
``dcs_skew``       float64  task skewness s (fraction; 0.2 = 20%)
=================  =======  =================================================
"""

from __future__ import annotations

import numpy as np

from cosched.errors import ConfigError
from cosched.workload.job import Workload
from cosched.workload.profiles._common import check_rng

__all__ = ["JOB_TYPES", "WORKLOADS", "annotate_dyncosched"]

#: Job type -> (computation, I/O, communication) shares (Table 2).
JOB_TYPES: dict[int, tuple[float, float, float]] = {
    1: (0.35, 0.15, 0.50),
    2: (0.35, 0.50, 0.15),
    3: (0.35, 0.35, 0.30),
    4: (0.90, 0.05, 0.05),
    5: (0.35, 0.05, 0.60),
    6: (0.65, 0.05, 0.30),
}
#: Workload name -> job types drawn with equal probability (Table 2).
WORKLOADS: dict[str, tuple[int, ...]] = {
    **{f"WL{t}": (t,) for t in JOB_TYPES},
    "WL7": (1, 2, 3, 4, 5, 6),
    "WL8": (2, 4, 5),
}


def annotate_dyncosched(
    w: Workload,
    *,
    rng: np.random.Generator,
    workload: str = "WL7",
    skew: float = 0.2,
) -> Workload:
    """Add the dynamic-coscheduling job type and shares (see the module docstring).

    Args:
        w: the workload to annotate (left unchanged).
        rng: the source of every draw.
        workload: "WL1" .. "WL8" (default WL7, the paper's mixed workload).
        skew: task skewness s as a fraction (>= 0).

    Returns:
        A copy of ``w`` with the ``dcs_*`` columns.

    Raises:
        ConfigError: an unknown workload or a negative skew.
    """
    check_rng(rng)
    if workload not in WORKLOADS:
        raise ConfigError(f"workload must be one of {sorted(WORKLOADS)} (got {workload!r})")
    if not (np.isfinite(skew) and skew >= 0):
        raise ConfigError(f"skew must be a finite number >= 0 (got {skew!r})")
    n = len(w)
    types = np.array(WORKLOADS[workload], dtype=np.int8)
    job_type = types[rng.integers(0, types.size, n)]
    shares = np.array([JOB_TYPES[t] for t in sorted(JOB_TYPES)])[job_type - 1]
    cols = {
        "dcs_job_type": job_type,
        "dcs_comp": shares[:, 0],
        "dcs_io": shares[:, 1],
        "dcs_comm": shares[:, 2],
        "dcs_skew": np.full(n, float(skew)),
    }
    return w.with_columns(cols, f"dyncosched profile: workload {workload}, skew {skew:g}")
