"""``cosched coupled serve``: one machine's domain as its own process.

The process binds a ZeroMQ ROUTER socket on a loopback TCP port, prints one line
``cosched coupled serve: NAME listening on tcp://127.0.0.1:PORT`` and serves two kinds
of requests (see :mod:`cosched.coupled.wire` for the frames):

* from the driver (``cosched coupled run``): ``hello``, ``setup`` (the domain's settings
  and workload, its peers' addresses), ``state``, ``advance``, ``pass``, ``notify``,
  ``catch_up``, ``finish``, ``waits``, ``blocked``, ``stop``;
* from peer domains, the four calls of Algorithm 1 (:class:`~cosched.coupled.protocol.Peer`):
  ``mate_id``, ``mate_status``, ``try_start``, ``start_mate``.

While this domain waits for a peer's answer it keeps serving (the peer's try-start
pass may ask about this domain's jobs). A peer that does not answer within the call
timeout is treated as down for the rest of the instant: the call answers as a cut
link does (Algorithm 1 then starts the job alone). A message that is not authentic,
of another version, malformed, from an address not in the allow list, or not expected
now is answered with an error and logged; it never stops the process.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any

import zmq

from cosched.coupled.coordinator import domain_state, domain_waits
from cosched.coupled.domain import Domain
from cosched.coupled.errors import CoupledError
from cosched.coupled.protocol import MateStatus
from cosched.coupled.spec import DomainSpec
from cosched.coupled.wire import (
    VERSION,
    Channel,
    Unreachable,
    WireError,
    decode,
    encode,
    frame_table,
    integer,
    number,
    read_table,
)
from cosched.errors import ConfigError, CoschedError
from cosched.workload.job import Workload

__all__ = ["DRIVER", "DomainServer", "RemoteLink"]

log = logging.getLogger("cosched.coupled.serve")

#: The sender name of the coordinating process.
DRIVER = "driver"
PEER_OPS = {"mate_id", "mate_status", "try_start", "start_mate", "try_hold"}


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

    @property
    def cut(self) -> bool:
        """Whether calls are not even tried."""
        s = self.server
        return self.suspect or s.domain_down or self.name in s.down

    def _call(self, op: str, **args: Any) -> Any:
        try:
            result, _ = self.channel.call(op, args)
        except Unreachable as exc:
            log.warning("peer %s unreachable: %s", self.name, exc)
            self.suspect = True
            now = self.server.domain.view.now if self.server.domain is not None else math.nan
            self.server.faults.append({"time": now, "why": f"{op} to {self.name}: {exc}"})
            raise
        return result

    def mate_id(self, job_id: int, mate_id: int) -> int | None:
        """See :meth:`Peer.mate_id`."""
        if self.cut:
            return None
        try:
            k = self._call("mate_id", job_id=job_id, mate_id=mate_id)
        except Unreachable:
            return None
        return None if k is None else int(k)

    def mate_status(self, mate_id: int) -> MateStatus:
        """See :meth:`Peer.mate_status`."""
        if self.cut:
            return MateStatus.UNKNOWN
        try:
            return MateStatus(self._call("mate_status", mate_id=mate_id))
        except Unreachable:
            return MateStatus.UNKNOWN

    def try_start_mate(self, mate_id: int) -> bool:
        """See :meth:`Peer.try_start_mate`."""
        if self.cut:
            return False
        try:
            return bool(self._call("try_start", mate_id=mate_id))
        except Unreachable:
            return False

    def start_mate(self, mate_id: int) -> None:
        """See :meth:`Peer.start_mate`."""
        if self.cut:
            return
        try:
            self._call("start_mate", mate_id=mate_id)
        except Unreachable:
            return

    def try_hold_mate(self, mate_id: int) -> bool:
        """See :meth:`Peer.try_hold_mate`."""
        if self.cut:
            return False
        try:
            return bool(self._call("try_hold", mate_id=mate_id))
        except Unreachable:
            return False


class DomainServer:
    """Serves one domain on a loopback port.

    Args:
        name: the domain's name (must match the settings the driver sends).
        secret: the shared secret every message is signed with.
        allow: the peer IP addresses accepted; any other is refused.
        host: the address to bind.
        port: the port (0: any free one).
        timeout: seconds a call to a peer may take.
        idle_timeout: exit after this many seconds without any request (a driver that
            died must not leave the process behind); None: never.
    """

    def __init__(
        self,
        name: str,
        secret: bytes,
        *,
        allow: set[str],
        host: str = "127.0.0.1",
        port: int = 0,
        timeout: float = 10.0,
        idle_timeout: float | None = 600.0,
    ) -> None:
        self.name = name
        self.secret = secret
        self.allow = set(allow)
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.linger = 0
        try:
            if port:
                self.sock.bind(f"tcp://{host}:{port}")
            else:
                port = self.sock.bind_to_random_port(f"tcp://{host}")
        except zmq.ZMQError as exc:
            self.sock.close(0)
            self.ctx.term()
            raise ConfigError(f"cannot listen on {host}:{port}: {exc}") from None
        self.address = f"tcp://{host}:{port}"
        self.domain: Domain | None = None
        self.links: dict[str, RemoteLink] = {}
        self.down: set[str] = set()
        self.faults: list[dict[str, Any]] = []
        self.refused = 0
        self.running = True
        self._ops: dict[str, Callable[[str, dict[str, Any], bytes], tuple[Any, bytes]]] = {
            "hello": self._hello,
            "setup": self._setup,
            "state": self._state,
            "advance": self._advance,
            "pass": self._pass,
            "notify": self._notify,
            "catch_up": self._catch_up,
            "finish": self._finish,
            "waits": self._waits,
            "blocked": self._blocked,
            "stop": self._stop,
            "mate_id": self._mate_id,
            "mate_status": self._mate_status,
            "try_start": self._try_start,
            "start_mate": self._start_mate,
            "try_hold": self._try_hold,
        }

    @property
    def domain_down(self) -> bool:
        """Whether the driver declared this domain down (planned outage)."""
        return self.domain is not None and self.domain.down

    # -- the loop -------------------------------------------------------------------------

    def serve_forever(self) -> None:
        """Answer requests until ``stop`` (or the idle timeout)."""
        last = time.monotonic()
        try:
            while self.running:
                if self.sock.poll(200, zmq.POLLIN):
                    self.serve_one()
                    last = time.monotonic()
                elif self.idle_timeout is not None and time.monotonic() - last > self.idle_timeout:
                    log.warning("%s: no request for %g s, exiting", self.name, self.idle_timeout)
                    return
        finally:
            self.close()

    def close(self) -> None:
        """Close the sockets."""
        for link in self.links.values():
            link.channel.close()
        self.sock.close(linger=0)
        self.ctx.term()

    def serve_one(self) -> None:
        """Answer the next message on the socket (which must have one)."""
        frames = self.sock.recv_multipart(copy=False)
        routing = frames[0].bytes
        addr = frames[-1].get("Peer-Address") if len(frames) > 1 else "?"
        raw = [f.bytes for f in frames[1:]]
        if addr not in self.allow:
            self.refused += 1
            log.warning("%s: refused a message from %s (not an allowed address)", self.name, addr)
            self._reply(routing, {"id": -1, "ok": False, "error": f"address {addr} not allowed"})
            return
        try:
            msg = decode(self.secret, raw)
        except WireError as exc:
            self.refused += 1
            log.warning("%s: refused a message from %s: %s", self.name, addr, exc)
            self._reply(routing, {"id": -1, "ok": False, "error": str(exc)})
            return
        rid = msg.body["id"]
        op = msg.body.get("op")
        handler = self._ops.get(op) if isinstance(op, str) else None
        args = msg.body.get("args")
        if handler is None or not isinstance(args, dict):
            self.refused += 1
            log.warning("%s: unknown operation from %s: %r", self.name, msg.sender, msg.body)
            self._reply(routing, {"id": rid, "ok": False, "error": f"unknown operation {op!r}"})
            return
        if op in PEER_OPS and msg.sender not in self.links:
            self.refused += 1
            log.warning("%s: %s from %r, which is not a linked peer", self.name, op, msg.sender)
            self._reply(routing, {"id": rid, "ok": False, "error": f"{msg.sender!r} is no peer"})
            return
        if op not in PEER_OPS and op != "hello" and msg.sender != DRIVER:
            self.refused += 1
            log.warning("%s: %s from %r, only the driver may ask it", self.name, op, msg.sender)
            self._reply(routing, {"id": rid, "ok": False, "error": f"{op} is the driver's"})
            return
        try:
            result, blob = handler(msg.sender, args, msg.blob)
        except (CoschedError, KeyError, TypeError, ValueError, AttributeError) as exc:
            log.warning("%s: %s failed: %s", self.name, op, exc)
            self._reply(routing, {"id": rid, "ok": False, "error": f"{op}: {exc}"})
            return
        except Exception as exc:  # the message boundary: answer, log, keep serving
            log.exception("%s: %s failed unexpectedly", self.name, op)
            self._reply(routing, {"id": rid, "ok": False, "error": f"{op}: internal error {exc!r}"})
            return
        self._reply(routing, {"id": rid, "ok": True, "result": result}, blob)

    def _reply(self, routing: bytes, body: dict[str, Any], blob: bytes = b"") -> None:
        self.sock.send_multipart([routing, *encode(self.secret, self.name, body, blob)])

    def _need(self) -> Domain:
        if self.domain is None:
            raise CoupledError("not set up yet (the driver sends setup first)")
        return self.domain

    # -- the driver's operations ---------------------------------------------------------

    def _hello(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        return {
            "name": self.name,
            "version": VERSION.decode(),
            "ready": self.domain is not None,
        }, b""

    def _setup(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        settings = args["settings"]
        if settings.get("name") != self.name:
            raise CoupledError(f"settings for {settings.get('name')!r} sent to {self.name!r}")
        table = read_table(blob)
        workload = Workload(table, **DomainSpec.workload_facts(settings))
        spec = DomainSpec.from_settings(settings, workload)
        for link in self.links.values():
            link.channel.close()
        self.links = {}
        self.down = set()
        self.faults = []
        domain = spec.build()
        peers: dict[str, str] = args["peers"]
        for peer, address in peers.items():
            ch = Channel(
                self.ctx,
                str(address),
                self.secret,
                self.name,
                self.timeout,
                inbox=self.sock,
                serve=self.serve_one,
            )
            link = RemoteLink(self, str(peer), ch)
            self.links[str(peer)] = link
            domain.connect(str(peer), link)
        self.domain = domain
        return True, b""

    def _state(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        return list(domain_state(self._need())), b""

    def _advance(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        d = self._need()
        for link in self.links.values():
            link.suspect = False
        d.gated = True
        d.sim.advance(number(args["t"], "t"))
        return None, b""

    def _pass(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        self._need().extra_pass()
        return None, b""

    def _notify(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        d = self._need()
        name, down = str(args["name"]), bool(args["down"])
        if name == self.name:
            d.down = down
        elif down:
            self.down.add(name)
        else:
            self.down.discard(name)
            if name in self.links:
                self.links[name].suspect = False
        d.recheck = True
        return None, b""

    def _catch_up(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        """Replay this domain alone (its links cut) to ``t``: a restarted domain's state."""
        d = self._need()
        t = number(args["t"], "t")
        d.down = True
        steps = 0
        while (nt := d.sim.next_time()) <= t:
            d.gated = True
            d.sim.advance(nt)
            d.extra_pass()
            steps += 1
        if math.isfinite(t) and len(d.view.queue) and steps == 0:
            d.extra_pass()
        return steps, b""

    def _finish(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        res = self._need().finish()
        meta = {
            "policy": res.policy,
            "params": dict(res.params),
            "workload": res.workload,
            "stats": {k: int(v) for k, v in res.stats.items()},
            "placements": {str(k): [list(x) for x in v] for k, v in res.placements.items()},
            "diagnostics": {k: float(v) for k, v in res.diagnostics.items()},
            "faults": list(self.faults),
            "peer_calls": sum(link.channel.sent for link in self.links.values()),
        }
        return meta, frame_table(res.jobs)

    def _waits(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        return [list(w) for w in domain_waits(self._need())], b""

    def _blocked(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        return self._need().blocked(integer(args["job_id"], "job_id")), b""

    def _stop(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        self.running = False
        return None, b""

    # -- the peers' operations (Algorithm 1's remote calls) ------------------------------

    def _mate_id(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        # The sender is authenticated (signed with the shared secret): the call's origin.
        k = self._need().confirm_mate(
            integer(args["mate_id"], "mate_id"), sender, integer(args["job_id"], "job_id")
        )
        return k, b""

    def _mate_status(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        return self._need().status(integer(args["mate_id"], "mate_id")).value, b""

    def _try_start(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        return self._need().try_start(integer(args["mate_id"], "mate_id")), b""

    def _try_hold(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        return self._need().try_hold(integer(args["mate_id"], "mate_id")), b""

    def _start_mate(self, sender: str, args: dict[str, Any], blob: bytes) -> tuple[Any, bytes]:
        self._need().start_holding(integer(args["mate_id"], "mate_id"))
        return None, b""
