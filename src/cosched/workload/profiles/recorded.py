"""The recorded schedule as a per-job column, for the ``recorded`` reference policy.

An archive trace records each job's start (SWF field 3, the wait); an imported Slurm or
PBS log records it as the start time, which the importer turns into that same wait.
:func:`annotate_recorded` adds ``recorded_start`` = submit time + wait, in the
workload's seconds, and decides what a job without one becomes:

* the workload records starts for some jobs: the others are dropped, and counted in a
  note (the issue's rule: a job with no recorded start cannot be replayed);
* the workload records no start at all (a generated workload, the bundled synthetic
  example): every job's recorded start is its submission, said in a note. The replay
  then asks each job to start on arrival, and the policy starts it as soon as it fits.

Columns added: ``recorded_start`` (float64, seconds).
"""

from __future__ import annotations

import numpy as np

from cosched.workload.job import Workload
from cosched.workload.profiles._common import check_rng

__all__ = ["annotate_recorded"]


def annotate_recorded(w: Workload, *, rng: np.random.Generator) -> Workload:
    """``w`` with ``recorded_start``; jobs without a recorded start dropped (see module).

    Args:
        w: the workload.
        rng: unused (the column is read, not drawn); checked for the common signature.
    """
    check_rng(rng)
    t = w.table.copy()
    submit = t["submit_time"].to_numpy(dtype=np.float64)
    wait = (
        t["wait_time"].to_numpy(dtype=np.float64) if "wait_time" in t else np.full(len(t), np.nan)
    )
    known = ~np.isnan(wait) & (wait >= 0)
    if len(t) and not known.any():
        t["recorded_start"] = submit
        return w.replace_table(
            t,
            "the workload records no start times (no SWF wait): each job's recorded start "
            "is its submission",
        )
    t["recorded_start"] = submit + np.where(known, wait, 0.0)
    dropped = int((~known).sum())
    if not dropped:
        return w.replace_table(t)
    return w.replace_table(
        t.loc[known].reset_index(drop=True),
        f"dropped {dropped} jobs with no recorded start (SWF wait -1) for the recorded policy",
    )
