"""Coupled machines: paired jobs across independent schedulers.

Implements the coscheduling mechanism of the coupled-systems paper (Algorithm 1 with
the hold and yield schemes and the section IV-E enhancements): each machine is a
:class:`Domain` (a simulation, a local policy, a scheme); a :class:`Coordinator` runs
several on one clock; domains talk only through the :class:`Peer` protocol. See
``docs/coupled.md``.
"""

from cosched.coupled.coordinator import Coordinator, CoupledResult, Outage, run_coupled
from cosched.coupled.domain import (
    DEFAULT_RELEASE_PERIOD,
    CoschedulingPolicy,
    Domain,
    Outcome,
    Scheme,
)
from cosched.coupled.errors import CoupledDeadlockError, CoupledError
from cosched.coupled.metrics import (
    CORE_METRICS,
    coupled_metrics,
    machine_metrics,
    verify_group_sync,
    verify_sync,
)
from cosched.coupled.protocol import LocalLink, MateStatus, Peer

__all__ = [
    "CORE_METRICS",
    "DEFAULT_RELEASE_PERIOD",
    "Coordinator",
    "CoschedulingPolicy",
    "CoupledDeadlockError",
    "CoupledError",
    "CoupledResult",
    "Domain",
    "LocalLink",
    "MateStatus",
    "Outage",
    "Outcome",
    "Peer",
    "Scheme",
    "coupled_metrics",
    "machine_metrics",
    "run_coupled",
    "verify_group_sync",
    "verify_sync",
]
