"""The narrow protocol between coupled scheduling domains (Algorithm 1's remote calls).

Algorithm 1 of the coupled-systems paper calls four functions on the *remote* machine:
``getMateJobId``, ``getMateStatus``, ``tryStartMate`` and ``startJob``. Every call a
domain makes to another goes through :class:`Peer`, a protocol of exactly those four
operations on plain values (job ids, a status string, a bool), so that a later transport
(a socket, an RPC) can stand in for :class:`LocalLink`, the in-process link used by the
simulator. Nothing else crosses between domains: no job records, no views.

Fault tolerance lives at this boundary: a link whose remote end is down answers
``mate_id`` with None (line 2 of Algorithm 1 "returns nothing"), and a mate the remote
does not know, or that has already started or failed, is ``UNKNOWN`` or ``RUNNING``;
in every such case the local job starts alone and never waits.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cosched.coupled.domain import Domain

__all__ = ["LocalLink", "MateStatus", "Peer"]


class MateStatus(enum.StrEnum):
    """What a remote domain says about a mate job."""

    #: the mate holds its nodes and starts as soon as asked.
    HOLDING = "holding"
    #: the mate is submitted and waiting in the remote queue.
    QUEUING = "queuing"
    #: the mate is not submitted yet.
    UNSUBMITTED = "unsubmitted"
    #: the mate has started (or finished): there is nothing left to synchronise with.
    RUNNING = "running"
    #: the remote does not know the job, or the job failed.
    UNKNOWN = "unknown"


class Peer(Protocol):
    """The remote domain as one domain sees it: the four calls of Algorithm 1."""

    def mate_id(self, job_id: int, mate_id: int) -> int | None:
        """The remote mate's id of local job ``job_id`` (None: remote down or no mate).

        ``mate_id`` is what the local side believes; the remote confirms it.
        """
        ...

    def mate_status(self, mate_id: int) -> MateStatus:
        """The remote mate's status."""
        ...

    def try_start_mate(self, mate_id: int) -> bool:
        """Run one extra scheduling pass remotely; True only if the mate started."""
        ...

    def start_mate(self, mate_id: int) -> None:
        """Start the remote mate now (it holds its nodes)."""
        ...

    def try_hold_mate(self, mate_id: int) -> bool:
        """Run one extra pass remotely in which the mate, if ready, holds its units; True
        only if it holds now (for jobs with mates on several machines)."""
        ...


class LocalLink:
    """An in-process :class:`Peer`: direct calls into another :class:`Domain`.

    The link is cut while either end is down (an outage cuts both directions).

    Args:
        remote: the domain at the other end.
        origin: the domain that uses this link (the remote checks that the mate's
            recorded partner is on this domain).
    """

    def __init__(self, remote: Domain, origin: Domain) -> None:
        self.remote = remote
        self.origin = origin

    @property
    def cut(self) -> bool:
        """Whether either end is down."""
        return self.remote.down or self.origin.down

    def mate_id(self, job_id: int, mate_id: int) -> int | None:
        """See :meth:`Peer.mate_id`."""
        if self.cut:
            return None
        return self.remote.confirm_mate(mate_id, self.origin.name, job_id)

    def mate_status(self, mate_id: int) -> MateStatus:
        """See :meth:`Peer.mate_status`."""
        if self.cut:
            return MateStatus.UNKNOWN
        return self.remote.status(mate_id)

    def try_start_mate(self, mate_id: int) -> bool:
        """See :meth:`Peer.try_start_mate`."""
        if self.cut:
            return False
        return self.remote.try_start(mate_id)

    def start_mate(self, mate_id: int) -> None:
        """See :meth:`Peer.start_mate`."""
        if not self.cut:
            self.remote.start_holding(mate_id)

    def try_hold_mate(self, mate_id: int) -> bool:
        """See :meth:`Peer.try_hold_mate`."""
        if self.cut:
            return False
        return self.remote.try_hold(mate_id)
