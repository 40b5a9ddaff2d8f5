"""A domain in a ``cosched coupled serve`` process, as the coordinator drives it.

:class:`RemoteMember` is the :class:`~cosched.coupled.protocol.Member` of a domain in
another process (:mod:`cosched.coupled.transport` starts the processes): every call is
a request to that process, several are sent before their answers are read, and the
batched forms (``step`` with ``sync``, ``ahead``, ``window``, owed ``idle`` instants)
keep the requests few.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TypeVar

import numpy as np

from cosched.coupled.coordinator import Member, MemberDownError, MemberState
from cosched.coupled.errors import CoupledError
from cosched.coupled.protocol import last_arrival
from cosched.coupled.spec import DomainSpec
from cosched.coupled.wire import (
    Channel,
    Json,
    JsonObject,
    RemoteError,
    Unreachable,
    frame_table,
    read_table,
)
from cosched.engine.simulation import SimulationResult

T = TypeVar("T")

__all__ = ["RemoteMember"]


class RemoteMember:
    """A domain in a serve process, as the coordinator drives it (see :class:`Member`).

    Requests that return the domain's state (``state``, ``step``, ``window``,
    ``idle``) are sent without waiting: the coordinator sends one to every domain, then
    reads the answers (:meth:`state`), so the domains work at the same time and a
    round of requests costs one round trip.
    """

    def __init__(self, spec: DomainSpec, channel: Channel, timeout: float, pass_timeout: float):
        self.spec = spec
        self.name = spec.name
        self.channel = channel
        self.timeout = timeout
        self.pass_timeout = pass_timeout
        self._state = MemberState(math.inf, 0, 0, 0, 0, 0, len(spec.workload))
        self._pending: tuple[tuple[int, str, float], Callable[[Json, bytes], None]] | None = None
        #: the states of the peers the last step's pass called, as they answered last.
        self._seen: dict[str, MemberState] = {}
        #: per peer, the idle instants it owes and its state after the last ``ahead``.
        self._ahead_peers: JsonObject = {}
        #: every member of the run by name (the cluster's), for the states in
        #: :meth:`pass_at`'s answer.
        self.peers: Mapping[str, RemoteMember] = {}
        self._times: list[float] = []
        #: idle instants not sent yet (count, time of the last): they change nothing
        #: the coordinator reads, so they travel with the next step or window.
        self._owed: tuple[int, float] | None = None
        self.meta: JsonObject = {}

    def call(
        self, op: str, args: JsonObject | None = None, blob: bytes = b"", *, timeout: float = 0.0
    ) -> tuple[Json, bytes]:
        """One request; the domain counts as down if it does not answer in time.

        Raises:
            MemberDownError: no answer in time.
            CoupledError: the domain answered with an error.
        """
        self._drain()
        owed = self._take_owed()
        if owed is not None:
            self._guard(lambda: self.channel.call("idle", {"n": owed[0], "t": owed[1]}))
        return self._guard(lambda: self.channel.call(op, args, blob, timeout=timeout))

    def _take_owed(self) -> tuple[int, float] | None:
        owed, self._owed = self._owed, None
        return owed

    def _post(
        self,
        op: str,
        args: JsonObject | None,
        on_reply: Callable[[Json, bytes], None],
        timeout: float = 0.0,
    ) -> None:
        """Send a request whose answer :meth:`_drain` reads (and gives ``on_reply``)
        before the next request to this domain."""
        self._drain()
        ticket = self._guard(lambda: self.channel.send(op, args, timeout=timeout))
        self._pending = (ticket, on_reply)

    def _drain(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            ticket, on_reply = pending
            on_reply(*self._guard(lambda: self.channel.wait(ticket)))

    def _guard(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except Unreachable as exc:
            self._pending = None
            raise MemberDownError(self.name, str(exc)) from None
        except RemoteError as exc:
            self._pending = None
            raise CoupledError(f"domain {self.name!r}: {exc}") from None

    def _read_state(self, result: Json, blob: bytes = b"") -> None:
        self._state = _member_state(result)

    def _read_step(self, result: Json, blob: bytes) -> None:
        self._read_state(result)
        self._seen = {str(k): _member_state(v) for k, v in result[8].items()}

    def _read_ahead(self, result: Json, blob: bytes) -> None:
        self._read_window(result, blob)
        self._ahead_peers = dict(result[8])

    def _read_window(self, result: Json, blob: bytes) -> None:
        self._read_state(result)
        self._times = [float(x) for x in np.frombuffer(blob, dtype="<f8")]

    def setup(self, peers: Mapping[str, str]) -> None:
        """Send the settings, the workload and the peers' addresses."""
        self.call(
            "setup",
            {"settings": self.spec.settings(), "peers": dict(peers)},
            frame_table(self.spec.workload.table),
        )

    def state(self) -> MemberState:
        """The state after the last request (waits for its answer)."""
        self._drain()
        return self._state

    def refresh(self) -> None:
        """Ask the domain for its state (the answer is read by :meth:`state`)."""
        self._post("state", None, self._read_state)

    def advance(self, t: float) -> None:
        """See :meth:`Member.advance` (the answer is read before the next request)."""
        self.step(t, False)

    def run_pass(self) -> None:
        """See :meth:`Member.run_pass` (may wait for peers: a longer timeout)."""
        self.step(None, True)
        self._drain()

    def step(self, t: float | None, run_pass: bool) -> None:
        """See :meth:`Member.step` (a pass may wait for peers: a longer timeout)."""
        timeout = self.pass_timeout if run_pass else 0.0
        args = {"idle": self._take_owed(), "t": t, "pass": run_pass}
        self._post("step", args, self._read_step, timeout)

    def pass_at(self, t: float, advance: bool, behind: Mapping[str, Member]) -> list[str]:
        """See :meth:`Member.pass_at`: one ``step`` whose ``sync`` gives each peer behind
        the instant its owed idle instants and ``t``, which that peer applies on the
        first call of the pass to it; the answer carries the state of every peer the
        pass called, as it answered last (nothing else changes a peer meanwhile)."""
        sync: dict[str, JsonObject] = {}
        for name, peer in behind.items():
            if isinstance(peer, RemoteMember):
                peer._drain()
                sync[name] = {"idle": peer._owed, "t": t}
            else:  # a domain of the driver's process cannot be reached by a peer call
                peer.advance(t)
        args = {"idle": self._take_owed(), "t": t if advance else None, "pass": True}
        self._post("step", {**args, "sync": sync}, self._read_step, self.pass_timeout)
        self._drain()
        synced = []
        for name, state in self._seen.items():
            seen = self.peers.get(name)
            if seen is None:
                continue
            seen._state = state
            if name in sync:
                seen._owed = None
                synced.append(name)
        return synced + [n for n in behind if n not in sync]

    def run_ahead(self, until: float, behind: Mapping[str, Member]) -> list[float]:
        """See :meth:`Member.run_ahead`: one ``ahead`` request; the answer gives each
        peer's owed idle instants and state (many instants: a much longer timeout)."""
        if not all(isinstance(p, RemoteMember) for p in behind.values()):
            # A domain of the driver's process cannot follow a peer's call: one instant.
            t = self.state().next_time
            synced = self.pass_at(t, True, behind)
            for name, peer in behind.items():
                if name not in synced:
                    peer.idle(1, t)
            return [t]
        sync: JsonObject = {}
        for name, peer in behind.items():
            assert isinstance(peer, RemoteMember)
            peer._drain()
            sync[name] = peer._owed
        args = {"idle": self._take_owed(), "until": until, "sync": sync}
        self._post("ahead", args, self._read_ahead, self.pass_timeout * 10)
        self._drain()
        for name, (owed, state) in self._ahead_peers.items():
            peer = behind[name]
            assert isinstance(peer, RemoteMember)
            peer._owed = None if owed is None else (int(owed[0]), float(owed[1]))
            if state is not None:
                peer._state = _member_state(state)
        return self._times

    def window(self, until: float) -> None:
        """See :meth:`Member.window` (many instants: a much longer timeout)."""
        args = {"idle": self._take_owed(), "until": until}
        self._post("window", args, self._read_window, self.pass_timeout * 10)

    def window_times(self) -> list[float]:
        """See :meth:`Member.window_times`."""
        self._drain()
        return self._times

    def idle(self, n: int, t: float) -> None:
        """See :meth:`Member.idle`: sent with the next request (the state is the same)."""
        self._owed = (n + (self._owed[0] if self._owed else 0), t)

    def notify(self, name: str, down: bool) -> None:
        """See :meth:`Member.notify`."""
        self.call("notify", {"name": name, "down": down})

    def catch_up(self, t: float) -> None:
        """Replay the domain alone up to ``t`` (after a restart)."""
        self.call("catch_up", {"t": t}, timeout=self.pass_timeout * 10)

    def finish(self) -> SimulationResult:
        """See :meth:`Member.finish`."""
        meta, blob = self.call("finish", timeout=self.pass_timeout)
        self.meta = meta
        placements = {
            int(k): tuple((int(a), int(b)) for a, b in v) for k, v in meta["placements"].items()
        }
        return SimulationResult(
            jobs=read_table(blob),
            platform=self.spec.platform,
            policy=meta["policy"],
            params=meta["params"],
            workload=meta["workload"],
            stats=meta["stats"],
            placements=placements,
            diagnostics=meta["diagnostics"],
        )

    def waits(self) -> list[tuple[str, str | None, int | None]]:
        """See :meth:`Member.waits`."""
        result, _ = self.call("waits")
        return [(str(a), b, c) for a, b, c in result]

    def blocked(self, job_id: int) -> str:
        """See :meth:`Member.blocked`."""
        result, _ = self.call("blocked", {"job_id": job_id})
        return str(result)

    @property
    def capacity(self) -> int:
        """See :meth:`Member.capacity`."""
        return int(self.spec.platform.capacity)

    @property
    def release_period(self) -> float | None:
        """See :meth:`Member.release_period`."""
        return self.spec.release_period

    @property
    def last_arrival(self) -> float:
        """See :meth:`Member.last_arrival`."""
        return last_arrival(self.spec.workload)


def _member_state(result: Json) -> MemberState:
    """A state as a serve process sends it (``domain_state``'s fields in order)."""
    a, b, c, d, e, f = (int(x) for x in result[1:7])
    return MemberState(float(result[0]), a, b, c, d, e, f, float(result[7]))
