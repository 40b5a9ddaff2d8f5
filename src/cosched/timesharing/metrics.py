"""Metrics of a time-sharing run (section 3.4 of the paper) and the time breakdown.

* response = end - submit, wait = start - submit (time in the arrival queue),
  execution = end - start (the core definitions of :mod:`cosched.metrics.summary`);
* throughput = jobs finished per hour of makespan;
* compute_share = useful work share: CPU seconds spent computing (not spinning, idle or
  in overheads) between the first and the last submission, over ``nodes`` times that
  span (the steady-state window: the drain after the last arrival is left out, and a
  saturated scheme shows its ceiling; the paper's "utilization", named apart so that
  ``utilization`` keeps its one meaning of docs/metrics.md); ``work_share`` = the
  other reading of useful work: the jobs' dedicated work (``run_time * procs``: their
  computation, I/O and communication as they would run alone) done in the same window,
  over ``nodes`` times the span; a process's work done is its compute seconds over its
  job's compute share of a dedicated iteration (``TSResult.window_work``), so a job
  that computes 35% of its dedicated time and has computed 3.5 s has done 10 s of
  work. ``work_utilization`` is the dedicated work of the finished jobs over
  ``nodes * makespan``;
* breakdown: the share of all CPU seconds spent computing, spinning, context
  switching, in interrupts, in queue moves, in PB's endpoint checks, in I/O that holds
  the CPU (``TSParams.io_holds_cpu``; 0 by default), and idle; plus the I/O seconds of
  the processes relative to CPU seconds (by default I/O does not use the CPU).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cosched.metrics.summary import summarize

if TYPE_CHECKING:
    from cosched.timesharing.engine import TSResult

__all__ = ["BREAKDOWN", "ts_summary"]

#: CPU time categories of the breakdown, in report order.
BREAKDOWN = (
    "compute", "spin", "context_switch", "interrupt", "queue", "endpoint_check", "io_cpu",
)  # fmt: skip


def ts_summary(result: TSResult, *, nodes: int, mpl: int = 1) -> dict[str, float]:
    """Response, wait, execution, throughput, utilization and the CPU breakdown.

    Args:
        result: a run's result.
        nodes: the machine's node count.
        mpl: the multiprogramming level: ``utilization`` is then the share of the
            ``nodes x mpl`` time-sharing slots held by jobs (docs/metrics.md).

    Returns:
        A flat dict of floats (``mean_response``, ``mean_wait``, ``mean_execution``,
        ``throughput``, ``compute_share``, ``work_share``, ``frac_<category>``, ``frac_idle``,
        ``io_per_cpu``, plus the core ``summarize`` metrics).
    """
    jobs = result.jobs
    out: dict[str, float] = {"jobs": float(len(jobs)), "unfinished": float(result.unfinished)}
    if len(jobs):
        core = summarize(
            jobs[["job_id", "submit_time", "start_time", "end_time", "procs", "size", "run_time"]],
            capacity=nodes * mpl,
        )
        out.update(core)
        makespan = core["makespan"]
        work = float((jobs["run_time"] * jobs["procs"]).sum())
        out["mean_response"] = core["mean_turnaround"]
        out["mean_execution"] = float((jobs["end_time"] - jobs["start_time"]).mean())
        out["work_utilization"] = work / (nodes * makespan) if makespan > 0 else float("nan")
    w0, w1 = result.window
    span = w1 - w0
    out["compute_share"] = result.window_compute / (nodes * span) if span > 0 else float("nan")
    out["work_share"] = result.window_work / (nodes * span) if span > 0 else float("nan")
    cpu = float(nodes) * result.end_time
    used = 0.0
    for c in BREAKDOWN:
        v = float(result.nodes[c].sum())
        used += v
        out[f"frac_{c}"] = v / cpu if cpu > 0 else float("nan")
    out["frac_idle"] = (cpu - used) / cpu if cpu > 0 else float("nan")
    out["io_per_cpu"] = float(result.nodes["io_wait"].sum()) / cpu if cpu > 0 else float("nan")
    out["events"] = float(result.events)
    out["sim_time"] = result.end_time
    return out
