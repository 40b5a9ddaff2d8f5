"""Hand-built LOMARC workloads for the golden tests."""

from __future__ import annotations

import pandas as pd

from cosched.workload.job import Workload

#: Profiles by name: (class, cpu, net, disk, cpu_slowdown).
CPU_POOR = (0, 0.8, 0.1, 0.1, 2.0)
CPU_GOOD = (0, 0.8, 0.1, 0.1, 1.4)
DISK = (2, 0.3, 0.15, 0.55, 2.0)
NET = (1, 0.3, 0.55, 0.15, 2.0)


def workload(
    rows: list[tuple[float, int, float, tuple[int, float, float, float, float], float]],
    over: list[float] | None = None,
) -> Workload:
    """Jobs from ``(submit, size, run, profile, memory)`` rows.

    Estimates are exact unless ``over`` gives per-job factors (requested = run x factor).
    """
    recs = []
    for k, (submit, size, run, prof, mem) in enumerate(rows):
        cls, cpu, net, disk, cpu_sl = prof
        recs.append(
            {
                "job_id": k + 1,
                "submit_time": submit,
                "run_time": run,
                "procs": size,
                "requested_time": run * (over[k] if over else 1.0),
                "lomarc_class": cls,
                "lomarc_cpu": cpu,
                "lomarc_net": net,
                "lomarc_disk": disk,
                "lomarc_mem": mem,
                "lomarc_cpu_good": cpu_sl < 2.0,
                "lomarc_cpu_slowdown": cpu_sl,
            }
        )
    return Workload.from_table(pd.DataFrame(recs), name="hand-built")
