"""A serve process's link to one peer domain: Algorithm 1's calls over the network.

:class:`RemoteLink` is the :class:`~cosched.coupled.protocol.Peer` a domain served by
``cosched coupled serve`` (:mod:`cosched.coupled.server`) uses: each call is a request
to the peer's serve process, which keeps serving incoming calls while it waits. The
link also carries what spares requests between machines (see ``sync``, ``then`` and
``memo``): all of it changes which requests travel, never what either domain decides.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from cosched.coupled.errors import CoupledError
from cosched.coupled.protocol import MateStatus
from cosched.coupled.wire import Channel, Json, JsonObject, Unreachable

if TYPE_CHECKING:
    from cosched.coupled.server import DomainServer

__all__ = ["RemoteLink"]

log = logging.getLogger("cosched.coupled.serve")


class RemoteLink:
    """A :class:`~cosched.coupled.protocol.Peer` over the network.

    The link is cut while this domain or the peer is down (the driver's notices), and
    for the rest of the instant after the peer failed to answer a call in time.
    """

    def __init__(self, server: DomainServer, name: str, channel: Channel) -> None:
        self.server = server
        self.name = name
        self.channel = channel
        self.suspect = False
        #: the mate status that came with the last ``mate_id`` answer, for the
        #: ``mate_status`` call that follows it (any other call drops it).
        self._status: tuple[int, MateStatus] | None = None
        #: the call Algorithm 1 makes next, already made by the peer with the last
        #: ``mate_id`` (operation, mate, answer); see ``mate_id``.
        self._then: tuple[str, int, bool | None] | None = None
        #: ``mate_id`` answers (with ``then``) that changed nothing at the peer, by
        #: (job, mate), valid while nothing else reaches the peer (see ``begin``).
        self.memo: dict[tuple[int, int], list[Json]] = {}
        #: what brings the peer to the current instant (its owed idle instants and the
        #: instant), sent with the first call of this step's pass (see ``_step``).
        self.sync: JsonObject | None = None
        #: the peer's state as it answered the last call of this step's pass.
        self.seen: list[Json] | None = None

    @property
    def cut(self) -> bool:
        """Whether calls are not even tried."""
        s = self.server
        return self.suspect or s.domain_down or self.name in s.down

    def begin(self, sync: JsonObject | None) -> None:
        """A request of the driver starts: what the first call carries (``sync``); the
        peer may have changed since the last request, so no answer is reused."""
        self._status = None
        self.sync = sync
        self.seen = None
        self.memo = {}

    def _in_order(self, op: str) -> None:
        """Raise if the peer already made another call for this domain (see ``mate_id``)."""
        if self._then is not None:
            raise CoupledError(
                f"{self.server.name}: {op} to {self.name} where Algorithm 1 makes "
                f"{self._then[0]} for job {self._then[1]} (already made by the peer)"
            )

    def _call(self, op: str, **args: Json) -> Json:
        self._status = None
        self.memo = {}
        self._in_order(op)
        if self.sync is not None:
            args["sync"], self.sync = self.sync, None
        try:
            (result, state), _ = self.channel.call(op, args)
        except Unreachable as exc:
            log.warning("peer %s unreachable: %s", self.name, exc)
            self.suspect = True
            now = self.server.domain.view.now if self.server.domain is not None else math.nan
            self.server.faults.append({"time": now, "why": f"{op} to {self.name}: {exc}"})
            raise
        self.seen = state
        return result

    def mate_id(self, job_id: int, mate_id: int) -> int | None:
        """See :meth:`Peer.mate_id`."""
        if self.cut:
            return None
        # With one peer, every job with a mate runs Algorithm 1's one-mate branch: after
        # mate_id and mate_status it starts a holding mate or tries to start a waiting
        # one, with nothing in between; the peer makes that call at once ("then") and
        # the answer waits here for it (see ``_answered``).
        self._in_order("mate_id")
        then = len(self.server.links) == 1
        answer = self.memo.get((job_id, mate_id)) if then else None
        if answer is None:
            try:
                answer = self._call("mate_id", job_id=job_id, mate_id=mate_id, then=then)
            except Unreachable:
                return None
            if then and answer[3] is True:
                # It changed nothing at the peer, and while this request runs only this
                # domain's calls reach the peer (its own next event is later): asked
                # again, it would answer the same and still change nothing.
                self.memo[(job_id, mate_id)] = answer
        k, status, done = answer[:3]
        if k is None:
            return None
        st = MateStatus(status)
        self._status = (int(k), st)
        if then and st is MateStatus.HOLDING:
            self._then = ("start_mate", int(k), None)
        elif then and st in (MateStatus.QUEUING, MateStatus.UNSUBMITTED):
            self._then = ("try_start", int(k), bool(done))
        return int(k)

    def _answered(self, op: str, mate_id: int) -> tuple[str, int, bool | None] | None:
        """The answer the peer gave ahead to this call, if it did (see ``mate_id``)."""
        then, self._then = self._then, None
        if then is not None and then[:2] != (op, mate_id):
            raise CoupledError(
                f"{self.server.name}: {op} for job {mate_id} to {self.name} where "
                f"Algorithm 1 makes {then[0]} for job {then[1]} (already made by the peer)"
            )
        return then

    def mate_status(self, mate_id: int) -> MateStatus:
        """See :meth:`Peer.mate_status`."""
        if self.cut:
            return MateStatus.UNKNOWN
        hint, self._status = self._status, None
        if hint is not None and hint[0] == mate_id:
            # Algorithm 1 asks right after mate_id; nothing reached the peer since.
            return hint[1]
        try:
            return MateStatus(self._call("mate_status", mate_id=mate_id))
        except Unreachable:
            return MateStatus.UNKNOWN

    def try_start_mate(self, mate_id: int) -> bool:
        """See :meth:`Peer.try_start_mate`."""
        then = self._answered("try_start", mate_id)
        if then is not None:
            return bool(then[2])
        return self._try("try_start", mate_id)

    def start_mate(self, mate_id: int) -> None:
        """See :meth:`Peer.start_mate`."""
        if self._answered("start_mate", mate_id) is not None or self.cut:
            return
        try:
            self._call("start_mate", mate_id=mate_id)
        except Unreachable:
            return

    def try_hold_mate(self, mate_id: int) -> bool:
        """See :meth:`Peer.try_hold_mate`."""
        return self._try("try_hold", mate_id)

    def _try(self, op: str, mate_id: int) -> bool:
        """The peer's yes or no to ``op`` on ``mate_id``; no when the link is cut or the
        peer cannot be reached."""
        if self.cut:
            return False
        try:
            return bool(self._call(op, mate_id=mate_id))
        except Unreachable:
            return False
