"""What a policy may ask the engine to do.

A policy returns a sequence of these from ``schedule``; the engine checks each one and
raises :class:`~cosched.errors.PolicyDecisionError` naming the policy, the time and the
job when one cannot be carried out.
"""

from __future__ import annotations

from dataclasses import dataclass

from cosched.workload.job import Job

__all__ = ["Decision", "Start", "WakeUp"]


@dataclass(frozen=True, slots=True)
class Start:
    """Start a queued job now.

    Attributes:
        job: the queued job.
        nodes: for placement-aware policies, the node ids the job runs on; None lets the
            engine take any free units (the batch baselines).
    """

    job: Job
    nodes: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class WakeUp:
    """Run a scheduling pass at ``time`` even if no job arrives or ends then."""

    time: float


Decision = Start | WakeUp
