"""What the fit's report says the log lacks: the lines of ``validate --fit``'s ``lacks`` section.

:func:`lacks` reads a :class:`~cosched.experiments.fit.FitResult` when the held-out match
is not close and names what the log does not record that the baseline would need (queues,
partitions, users, the limits that held jobs, the scheduler's cycle), and how the chosen
configuration fares against plain EASY on the held-out part (read for the report only:
no choice reads a held-out start).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from cosched.experiments.fit_space import PLAIN_EASY, FitInput

if TYPE_CHECKING:
    from cosched.experiments.fit import FitResult

__all__ = ["lacks"]


def lacks(result: FitResult, level: str) -> list[str]:
    """What the log does not record that the baseline would need, when the held-out match
    is not close (empty when it is)."""
    if level == "close":
        return []
    inp, c = result.input, result.row(result.chosen)
    out = []
    if not inp.queues:
        out.append("the log records no queues (SWF field 15): queue priorities cannot be fitted")
    if not inp.sizes:
        out.append("the log records no partitions (SWF field 16): the machine is one pool")
    if inp.limits is None:
        out.append(
            "the log records no users (SWF field 12): user limits and fair-share are not fitted"
        )
    sim, log = float(c["held.mean_wait_sim"]), float(c["held.mean_wait_log"])
    if log > 2 * sim:
        held = "per-queue limits" if inp.limits is not None else "per-user or per-queue limits"
        what = "" if inp.recorded else ", reservations, downtime, drained nodes"
        out.append(
            f"held-out jobs waited {log / max(sim, 1.0):.1f}x longer on the machine than under "
            f"the fitted baseline: what held them ({held}, per-group limits{what}) has no "
            "field in an SWF log"
            + ("; the outages recorded in the --unavailability file are replayed" * inp.recorded)
        )
    elif sim > 2 * log:
        out.append(_too_slow(result, sim, log))
    if float(c["held.within"]) >= 0.8:
        out += _cycle(inp)
    if inp.queues:
        out.append(
            "the log records each job's queue (SWF field 15) but not the queues' priorities, "
            "limits or reserved nodes (SWF has no field for them; a header may name them in "
            "comments, which the fit does not read): the fit ranks queues by their fit-part "
            "waits only"
        )
    out += _versus_plain(result)
    out.append(
        "read a what-if against this baseline as a comparison of policies on a model machine, "
        "not as this site's hours"
    )
    return out


def _too_slow(result: FitResult, sim: float, log: float) -> str:
    """The ``lacks`` line when the fitted baseline waits more than twice as long as the
    machine did: the outages it replays, when the same configuration without them does
    not, else a machine larger than the log states."""
    head = f"the fitted baseline waits {sim / max(log, 1.0):.1f}x longer than the machine did: "
    c = result.chosen
    if c.outages:
        rows = result.table["config"] == replace(c, outages=False).label()
        if rows.any() and np.isfinite(result.table.loc[rows, "held.mean_wait_sim"].iloc[0]):
            other = float(result.table.loc[rows, "held.mean_wait_sim"].iloc[0])
            if other <= 2 * log and result.input.recorded:
                return head + (
                    "the recorded outages it replays remove more capacity than the machine "
                    f"lost (without them {other / max(log, 1.0):.1f}x): check the records' "
                    "units, nodes and time zone against the log's"
                )
            if other <= 2 * log:
                return head + (
                    "the outages it replays remove more capacity than the machine lost "
                    f"(without them {other / max(log, 1.0):.1f}x): the log records no node's "
                    "downtime, so the rule reads it from idle stretches and submission gaps"
                )
    return head + "the machine held more than the size the log states (check MaxProcs, --procs)"


def _cycle(inp: FitInput) -> list[str]:
    """A ``lacks`` line when nearly every held-out job waited a little on the machine (the
    scheduler's cycle), which a baseline that starts a job the moment it fits does not
    (asked when the match starts most jobs within the tolerance: the schedules agree
    but for seconds)."""
    t = inp.workload.columns
    k = inp.fit_jobs
    wait = (np.asarray(t["recorded_start"]) - np.asarray(t["submit_time"]))[k:]
    if not len(wait):
        return []
    waited, median = float(np.mean(wait > 0)), float(np.median(wait))
    if waited < 0.9 or median > 60.0:
        return []
    return [
        f"{100 * waited:.0f}% of held-out jobs waited on the machine (median {median:g} s), "
        "as a scheduler that starts jobs on a cycle does, where the baselines start a job "
        "the moment it fits: the log does not record the cycle, and the waits' KS "
        "statistic reads the seconds as a whole distribution apart"
    ]


def _versus_plain(result: FitResult) -> list[str]:
    """``lacks`` lines on the fitted configuration's held-out KS against plain EASY's,
    and on whether any configuration run on the whole log did better there (read for the
    report only: the choice never reads a held-out start)."""
    c, pe = result.row(result.chosen), result.row(PLAIN_EASY)
    ks, pks = float(c["held.ks"]), float(pe["held.ks"])
    whole = result.table.loc[result.whole()]
    i = int(np.argmin(whole["held.ks"].to_numpy()))
    best, label = float(whole["held.ks"].iloc[i]), str(whole["config"].iloc[i])
    out = []
    if ks > pks:
        out.append(
            f"the fitted configuration's held-out KS ({ks:.3f}) is above plain EASY's "
            f"({pks:.3f}): it scored better than plain EASY on both segments of the fit part, "
            "and matches the held-out part less well; the log records no change of the site's "
            "rules over time, so the fit cannot tell a change from chance"
        )
    if best >= min(ks, pks):
        out.append(
            f"no configuration run on the whole log matches the held-out waits better "
            f"(lowest held-out KS {best:.3f}): what orders this site's queue is not in the "
            "space, and an SWF log has no field for accounts, QOS or job priorities"
        )
    elif result.chosen == PLAIN_EASY or ks >= pks:
        out.append(
            f"{label} matches the held-out waits better (KS {best:.3f}), but the fit part "
            "does not single it out (read from the held-out part for this line only)"
        )
    return out
