"""What a policy may ask the engine to do.

A policy returns a sequence of these from ``schedule``; the engine checks each one and
raises :class:`~cosched.errors.PolicyDecisionError` naming the policy, the time and the
job when one cannot be carried out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cosched.engine.ledger import Placement
from cosched.workload.job import Job

__all__ = ["Decision", "Hold", "Release", "Start", "WakeUp", "on_nodes"]


def on_nodes(nodes: Iterable[int], slots: int = 1) -> Placement:
    """The placement taking ``slots`` slots on each of ``nodes``."""
    return tuple((node, slots) for node in nodes)


@dataclass(frozen=True, slots=True)
class Start:
    """Start a queued (or holding) job now.

    Attributes:
        job: the queued job.
        placement: ``((node, slots), ...)`` for placement-aware families on a shared
            platform; None lets the engine take any free units (first fit on a
            shared platform). A holding job starts on the units it holds.
    """

    job: Job
    placement: Placement | None = None


@dataclass(frozen=True, slots=True)
class Hold:
    """Take units for a queued job without starting it; it stays queued.

    The units count as busy and no other job may use them until the job starts on
    them or a :class:`Release` gives them back.
    """

    job: Job
    placement: Placement | None = None


@dataclass(frozen=True, slots=True)
class Release:
    """Give back the units a holding job holds; the job stays queued."""

    job: Job


@dataclass(frozen=True, slots=True)
class WakeUp:
    """Run a scheduling pass at ``time`` even if no job arrives or ends then."""

    time: float


Decision = Start | Hold | Release | WakeUp
