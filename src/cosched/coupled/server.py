"""``cosched coupled serve``: one machine's domain as its own process.

The process binds a ZeroMQ ROUTER socket on a loopback TCP port, prints one line
``cosched coupled serve: NAME listening on tcp://127.0.0.1:PORT`` and serves two kinds
of requests (see :mod:`cosched.coupled.wire` for the frames):

* from the driver (``cosched coupled run``): ``hello``, ``setup`` (the domain's settings
  and workload, its peers' addresses), ``state``, ``advance``, ``pass``, ``step``
  (advance and pass in one), ``window``, ``idle`` (see
  :class:`~cosched.coupled.coordinator.Coordinator`'s ``batch``), ``notify``,
  ``catch_up``, ``finish``, ``waits``, ``blocked``, ``stop``;
* from peer domains, the four calls of Algorithm 1 (:class:`~cosched.coupled.protocol.Peer`):
  ``mate_id``, ``mate_status``, ``try_start``, ``start_mate``.

While this domain waits for a peer's answer it keeps serving (the peer's try-start
pass may ask about this domain's jobs). A peer that does not answer within the call
timeout is treated as down for the rest of the instant: the call answers as a cut
link does (Algorithm 1 then starts the job alone).

Nothing that arrives on the port stops the process. The socket is a CurveZMQ server
keyed by the shared secret (:func:`~cosched.coupled.wire.secure`): a connection that
does not hold the secret ends in ZeroMQ's handshake, before any frame of a message is
read (counted as ``handshake`` from the socket's monitor). A message that is
malformed, of another version, too large, not authentic, a replay, signed for another
recipient or run, from an address not in the allow list, or not expected now is
refused: answered with an error, counted by reason (:attr:`DomainServer.refusals`,
sent back in the ``hello``, ``finish`` and ``stop`` replies) and logged with the
peer's address. ZeroMQ itself drops, before the application sees a byte of it, a
connection whose bytes are not ZeroMQ or whose frame announces more than
:data:`~cosched.coupled.wire.MAX_MESSAGE`; a connection beyond
:data:`MAX_CONNECTIONS` is closed as soon as the socket's monitor reports it.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import time
from collections import Counter
from collections.abc import Callable
from typing import TypedDict

import numpy as np
import zmq
from zmq.utils.monitor import recv_monitor_message

from cosched.coupled.domain import Domain
from cosched.coupled.errors import CoupledError
from cosched.coupled.link import RemoteLink
from cosched.coupled.protocol import (
    MateStatus,
    domain_idle,
    domain_state,
    domain_waits,
    domain_window,
)
from cosched.coupled.spec import DomainSpec
from cosched.coupled.wire import (
    MAX_MESSAGE,
    VERSION,
    Channel,
    Json,
    JsonObject,
    Sequences,
    WireError,
    check_recipient,
    decode,
    encode,
    frame_table,
    integer,
    number,
    read_table,
    run_id,
    secure,
)
from cosched.errors import ConfigError, CoschedError
from cosched.workload.job import Workload

__all__ = ["DRIVER", "MAX_CONNECTIONS", "DomainServer", "RemoteLink"]

log = logging.getLogger("cosched.coupled.serve")


class PeerFault(TypedDict):
    """A call to a peer that failed (sent to the driver with the results)."""

    #: the simulated instant (NaN before setup).
    time: float
    #: the operation, the peer and the error.
    why: str


#: An operation: (sender, arguments, binary part) -> (result, binary part).
Handler = Callable[[str, JsonObject, bytes], tuple[object, bytes]]
#: The sender name of the coordinating process.
DRIVER = "driver"
PEER_OPS = {"mate_id", "mate_status", "try_start", "start_mate", "try_hold"}
#: Connections open at once; one more is closed at once. A run needs one from the
#: driver and one from each linked peer (briefly two while a timed-out link reconnects).
MAX_CONNECTIONS = 128
#: Complete messages ZeroMQ queues per connection before it stops reading from it.
RECEIVE_QUEUE = 16
#: Milliseconds a connection may take to complete ZeroMQ's handshake.
HANDSHAKE_MS = 10_000
#: Milliseconds the last replies may take to leave when the process stops.
STOP_LINGER_MS = 1000
#: Seconds between the reply to ``stop`` and closing the socket.
STOP_PAUSE_S = 0.2
#: Refusals of one reason logged one by one; after that every LOG_EVERY-th (the counts
#: stay exact): a flood must not fill the disk.
LOG_EACH = 100
LOG_EVERY = 1000
#: The monitor events the server acts on.
EVENTS = (
    zmq.EVENT_ACCEPTED
    | zmq.EVENT_DISCONNECTED
    | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
    | zmq.EVENT_HANDSHAKE_FAILED_AUTH
    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
)
#: The monitor events of a connection that failed ZeroMQ's (CurveZMQ) handshake.
HANDSHAKE_FAILED = (
    zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
    | zmq.EVENT_HANDSHAKE_FAILED_AUTH
    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
)


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
        run: the run's id every message must be signed for (default: derived from
            the secret, :func:`~cosched.coupled.wire.run_id`).
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
        run: str | None = None,
    ) -> None:
        self.name = name
        self.secret = secret
        self.run = run if run is not None else run_id(secret)
        self.allow = set(allow)
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.linger = 0
        self.sock.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE)
        self.sock.rcvhwm = RECEIVE_QUEUE
        self.sock.setsockopt(zmq.HANDSHAKE_IVL, HANDSHAKE_MS)
        secure(self.sock, secret, server=True)
        self.monitor = self.sock.get_monitor_socket(EVENTS)
        try:
            if port:
                self.sock.bind(f"tcp://{host}:{port}")
            else:
                port = self.sock.bind_to_random_port(f"tcp://{host}")
        except zmq.ZMQError as exc:
            self._close_sockets()
            raise ConfigError(f"cannot listen on {host}:{port}: {exc}") from None
        self.address = f"tcp://{host}:{port}"
        self.port = port
        self.domain: Domain | None = None
        self.links: dict[str, RemoteLink] = {}
        self.down: set[str] = set()
        self.faults: list[PeerFault] = []
        #: Messages and connections refused since the process started, by reason.
        self.refusals: Counter[str] = Counter()
        #: Open connections (file descriptor: peer address), from the monitor.
        self.connections: dict[int, str] = {}
        self.sequences = Sequences()
        self.running = True
        self._ops: dict[str, Handler] = {
            "hello": self._hello,
            "setup": self._setup,
            "state": self._state,
            "advance": self._advance,
            "pass": self._pass,
            "step": self._step,
            "window": self._window,
            "ahead": self._ahead,
            "idle": self._idle,
            "notify": self._notify,
            "catch_up": self._catch_up,
            "finish": self._finish,
            "waits": self._waits,
            "blocked": self._blocked,
            "stop": self._stop,
            "mate_id": self._peer(self._mate_id),
            "mate_status": self._peer(self._mate_status),
            "try_start": self._peer(self._try_start),
            "start_mate": self._peer(self._start_mate),
            "try_hold": self._peer(self._try_hold),
        }

    @property
    def domain_down(self) -> bool:
        """Whether the driver declared this domain down (planned outage)."""
        return self.domain is not None and self.domain.down

    # -- the loop -------------------------------------------------------------------------

    def serve_forever(self) -> None:
        """Answer requests until ``stop`` (or the idle timeout)."""
        last = time.monotonic()
        poller = zmq.Poller()
        poller.register(self.sock, zmq.POLLIN)
        poller.register(self.monitor, zmq.POLLIN)
        try:
            while self.running:
                ready = dict(poller.poll(200))
                if self.monitor in ready:
                    self.watch()
                if self.sock in ready:
                    self.serve_one()
                    last = time.monotonic()
                elif self.idle_timeout is not None and time.monotonic() - last > self.idle_timeout:
                    log.warning("%s: no request for %g s, exiting", self.name, self.idle_timeout)
                    return
        finally:
            if not self.running:
                # Closed at once after ``stop``, the socket lost the reply in 3 of 9
                # runs here, its linger notwithstanding; after a pause, in none of 6.
                time.sleep(STOP_PAUSE_S)
            self.close()

    def close(self) -> None:
        """Close the sockets."""
        for link in self.links.values():
            link.channel.close()
        self._close_sockets()

    def _close_sockets(self) -> None:
        # Linger: replies still queued get a moment to leave.
        self.sock.close(linger=STOP_LINGER_MS)
        self.monitor.close(linger=0)
        self.ctx.term()

    def report(self) -> dict[str, object]:
        """The refusal counts (by reason) and the connections open now."""
        return {"refused": dict(sorted(self.refusals.items())), "open": len(self.connections)}

    def refuse(self, reason: str, who: str, text: str, what: str = "message") -> None:
        """Count a refusal and log it (each of the first :data:`LOG_EACH` of a reason,
        then every :data:`LOG_EVERY`-th)."""
        self.refusals[reason] += 1
        n = self.refusals[reason]
        if n <= LOG_EACH or n % LOG_EVERY == 0:
            more = f" ({n} {reason} refusals so far)" if n > LOG_EACH else ""
            log.warning("%s: refused a %s from %s: %s%s", self.name, what, who, text, more)

    # -- connections ------------------------------------------------------------------------

    def watch(self) -> None:
        """Handle the connection events the monitor has (without waiting)."""
        while self.monitor.poll(0):
            event = recv_monitor_message(self.monitor, zmq.NOBLOCK)
            fd = int(event["value"])
            if event["event"] & HANDSHAKE_FAILED:
                # The value is ZeroMQ's error code, not the descriptor: no address.
                why = f"ZeroMQ handshake failed (error {fd:#x}): not this run's key"
                self.refuse("handshake", "?", why, "connection")
            elif event["event"] == zmq.EVENT_DISCONNECTED:
                self.connections.pop(fd, None)
            elif event["event"] == zmq.EVENT_ACCEPTED:
                self._accepted(fd)

    def _accepted(self, fd: int) -> None:
        """Note a new connection, or close it if :data:`MAX_CONNECTIONS` are open."""
        try:
            with socket.socket(fileno=os.dup(fd)) as conn:
                if conn.getsockname()[1] != self.port:
                    return  # the descriptor was closed and reused since the event
                host, port = conn.getpeername()[:2]
                who = f"{host}:{port}"
                if len(self.connections) < MAX_CONNECTIONS:
                    self.connections[fd] = who
                    return
                # A shutdown through a duplicate of ZeroMQ's descriptor ends the
                # connection; ZeroMQ sees the peer hang up and closes its descriptor.
                conn.shutdown(socket.SHUT_RDWR)
                why = f"{len(self.connections)} connections open, the limit"
                self.refuse("connections", who, why, "connection")
        except OSError:
            return  # closed already (by ZeroMQ: not ZeroMQ bytes, or a frame too large)

    # -- messages ---------------------------------------------------------------------------

    def serve_one(self) -> None:
        """Answer the next message on the socket (which must have one)."""
        self.watch()
        frames = self.sock.recv_multipart(copy=False)
        try:
            self._serve(frames)
        except Exception:  # the message boundary: nothing a message holds stops the process
            self.refusals["internal"] += 1
            log.exception("%s: a message could not be handled", self.name)

    def _serve(self, frames: list[zmq.Frame]) -> None:
        routing = frames[0].bytes
        addr = _peer_address(frames[-1]) if len(frames) > 1 else None
        if addr is None:
            # ZeroMQ gives no address for a ZMTP 1.0 or 2.0 peer (whose five bytes
            # ``\x01\x00\x02\x00A`` make a message): it cannot pass the allow list.
            # Kept as a check: with CurveZMQ such a peer is closed in the handshake.
            self._refuse_reply(routing, "address", "?", "no peer address (not ZMTP 3)")
            return
        if addr not in self.allow:
            self._refuse_reply(routing, "address", addr, f"address {addr} not allowed")
            return
        size = sum(len(f) for f in frames[1:])
        if size > MAX_MESSAGE:
            why = f"oversized message: {size} bytes in {len(frames) - 1} frames"
            self._refuse_reply(routing, "oversized", addr, why)
            return
        try:
            msg = decode(self.secret, [f.bytes for f in frames[1:]])
            check_recipient(msg, self.name, self.run)
            self.sequences.check(msg)
        except WireError as exc:
            self._refuse_reply(routing, exc.reason, addr, str(exc))
            return
        to = msg.sender
        rid = msg.body["id"]
        op = msg.body.get("op")
        handler = self._ops.get(op) if isinstance(op, str) else None
        args = msg.body.get("args")
        who = f"{msg.sender!r} at {addr}"
        if handler is None or not isinstance(args, dict):
            self._refuse_reply(routing, "operation", who, f"unknown operation {op!r}", rid, to)
            return
        if op in PEER_OPS and msg.sender not in self.links:
            why = f"{op}: {msg.sender!r} is not a linked peer"
            self._refuse_reply(routing, "operation", who, why, rid, to)
            return
        if op not in PEER_OPS and op != "hello" and msg.sender != DRIVER:
            why = f"{op} is the driver's: {msg.sender!r} may not ask it"
            self._refuse_reply(routing, "operation", who, why, rid, to)
            return
        try:
            result, blob = handler(msg.sender, args, msg.blob)
        except (CoschedError, KeyError, TypeError, ValueError, AttributeError) as exc:
            log.warning("%s: %s failed: %s", self.name, op, exc)
            self._reply(routing, {"id": rid, "ok": False, "error": f"{op}: {exc}"}, to=to)
            return
        except Exception as exc:  # the message boundary: answer, log, keep serving
            log.exception("%s: %s failed unexpectedly", self.name, op)
            error = f"{op}: internal error {exc!r}"
            self._reply(routing, {"id": rid, "ok": False, "error": error}, to=to)
            return
        self._reply(routing, {"id": rid, "ok": True, "result": result}, blob, to)

    def _refuse_reply(
        self, routing: bytes, reason: str, who: str, why: str, rid: int = -1, to: str = ""
    ) -> None:
        self.refuse(reason, who, why)
        self._reply(routing, {"id": rid, "ok": False, "error": why}, to=to)

    def _reply(self, routing: bytes, body: JsonObject, blob: bytes = b"", to: str = "") -> None:
        """Answer a message, signed for its sender ``to`` (``""`` for a message refused
        before its sender was authenticated)."""
        frames = encode(self.secret, self.name, body, blob, to=to, run=self.run)
        self.sock.send_multipart([routing, *frames])

    def _need(self) -> Domain:
        if self.domain is None:
            raise CoupledError("not set up yet (the driver sends setup first)")
        return self.domain

    # -- the driver's operations ---------------------------------------------------------

    def _hello(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        return {
            "name": self.name,
            "version": VERSION.decode(),
            "ready": self.domain is not None,
            **self.report(),
        }, b""

    def _setup(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
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
                recipient=str(peer),
                run=self.run,
                inbox=self.sock,
                serve=self.serve_one,
            )
            link = RemoteLink(self, str(peer), ch)
            self.links[str(peer)] = link
            domain.connect(str(peer), link)
        self.domain = domain
        return True, b""

    def _state(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        return list(domain_state(self._need())), b""

    def _advance(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        d = self._need()
        for link in self.links.values():
            link.suspect = False
        d.gated = True
        d.sim.advance(number(args["t"], "t"))
        return None, b""

    def _pass(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        self._need().extra_pass()
        return None, b""

    def _step(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        """The instants owed (``idle``: ``[n, t]`` or null, see ``_idle``), ``advance``
        to ``t`` (null: stay), then a ``pass`` if asked, in one round trip; the state
        after, and the state of each peer the pass called as that peer answered last.
        ``sync`` (peer name: ``{"idle": [n, t] or null, "t": t}``) is sent with the
        pass's first call to that peer, which then catches up to the instant before it
        answers (see ``_peer``)."""
        self._owed(args)
        sync = args.get("sync") or {}
        for name, link in self.links.items():
            link.begin(sync.get(name))
        try:
            if args["t"] is not None:
                self._advance(sender, args, blob)
            if args["pass"] is True:
                self._pass(sender, args, blob)
        finally:
            for link in self.links.values():
                link.sync = None  # a peer not called stays behind: the driver knows
        seen = {name: link.seen for name, link in self.links.items() if link.seen is not None}
        return [*domain_state(self._need()), seen], b""

    def _ahead(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        """This domain's instants before ``until`` and before the next event of every
        peer in ``sync`` (peer name: its owed idle instants, ``[n, t]`` or null), each
        run as a ``step`` with a ``sync`` would run it; the limit follows the peers'
        next events as their answers give them (nothing else moves a peer meanwhile).
        The state after; per peer the idle instants it still owes (``[n, t]`` or null)
        and its state as it answered last (null: not called); the times in the blob
        (as ``window``'s)."""
        d = self._need()
        self._owed(args)
        owed: JsonObject = dict(args["sync"])
        for name in owed:
            if name not in self.links:
                raise CoupledError(f"ahead: {name!r} is not a linked peer")
        seen: dict[str, list[Json]] = {}
        limit = number(args["until"], "until")
        times: list[float] = []
        for link in self.links.values():
            link.begin(None)
        try:
            while (t := d.sim.next_time()) < limit:
                for name, link in self.links.items():
                    link.sync = {"idle": owed[name], "t": t} if name in owed else None
                    link.seen = None
                self._advance(sender, {"t": t}, b"")
                self._pass(sender, args, blob)
                times.append(t)
                for name in owed:
                    link = self.links[name]
                    if link.seen is not None:
                        seen[name] = link.seen
                        limit = min(limit, float(link.seen[0]))
                    if link.sync is None:  # called: the peer is at t
                        owed[name] = None
                    else:
                        owed[name] = [1 + (owed[name][0] if owed[name] else 0), t]
        finally:
            for link in self.links.values():
                link.sync = None
        peers = {name: [owed[name], seen.get(name)] for name in owed}
        return [*domain_state(d), peers], np.asarray(times, dtype="<f8").tobytes()

    def _window(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        """This domain's own instants before ``until`` alone (see ``domain_window``): the
        state after, and their times as little-endian float64 in the blob (exact)."""
        d = self._need()
        self._owed(args)
        times = domain_window(d, number(args["until"], "until"))
        return list(domain_state(d)), np.asarray(times, dtype="<f8").tobytes()

    def _idle(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        """``n`` other domains' instants, the last at ``t`` (see ``domain_idle``)."""
        d = self._need()
        domain_idle(d, integer(args["n"], "n"), number(args["t"], "t"))
        return list(domain_state(d)), b""

    def _owed(self, args: JsonObject) -> None:
        owed = args.get("idle")
        if owed is not None:
            self._idle(DRIVER, {"n": owed[0], "t": owed[1]}, b"")

    def _notify(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
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

    def _catch_up(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
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

    def _finish(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
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
            **self.report(),
        }
        return meta, frame_table(res.jobs)

    def _waits(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        return [list(w) for w in domain_waits(self._need())], b""

    def _blocked(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        return self._need().blocked(integer(args["job_id"], "job_id")), b""

    def _stop(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        self.running = False
        return self.report(), b""

    # -- the peers' operations (Algorithm 1's remote calls) ------------------------------

    def _peer(self, op: Handler) -> Handler:
        """``op`` after the caller's ``sync`` (if any: this domain is behind the
        instant of the caller's pass, see ``_step``), answered as ``[result, state]``:
        the state travels back to the driver with the caller's step."""

        def handle(sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
            sync = args.get("sync")
            if sync is not None:
                if not isinstance(sync, dict):
                    raise WireError(f"sync must be an object, got {sync!r}")
                self._owed(sync)
                self._advance(sender, sync, b"")
            result, out = op(sender, args, blob)
            return [result, list(domain_state(self._need()))], out

        return handle

    def _mate_id(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        # The sender is authenticated (signed with the shared secret): the call's origin.
        d = self._need()
        k = d.confirm_mate(
            integer(args["mate_id"], "mate_id"), sender, integer(args["job_id"], "job_id")
        )
        # With the mate's status: Algorithm 1 asks for it next (a round trip spared).
        if k is None:
            return [None, None, None, True], b""
        status = d.status(k)
        done = None
        passes = d.counters["try_start"]  # counts the try-starts that ran a pass
        if args.get("then") is True:
            # And the call that follows for a job with one mate (RemoteLink.mate_id).
            if status is MateStatus.HOLDING:
                d.start_holding(k)
            elif status in (MateStatus.QUEUING, MateStatus.UNSUBMITTED):
                done = d.try_start(k)
        # Whether nothing changed here: no mate started, no try-start pass ran.
        pure = status is not MateStatus.HOLDING and d.counters["try_start"] == passes
        return [k, status.value, done, pure], b""

    def _mate_status(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        return self._need().status(integer(args["mate_id"], "mate_id")).value, b""

    def _try_start(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        return self._need().try_start(integer(args["mate_id"], "mate_id")), b""

    def _try_hold(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        return self._need().try_hold(integer(args["mate_id"], "mate_id")), b""

    def _start_mate(self, sender: str, args: JsonObject, blob: bytes) -> tuple[object, bytes]:
        self._need().start_holding(integer(args["mate_id"], "mate_id"))
        return None, b""


def _peer_address(frame: zmq.Frame) -> str | None:
    """The sender's IP address ZeroMQ attaches to a received frame (None: not given)."""
    try:
        return str(frame.get("Peer-Address"))
    except zmq.ZMQError:
        return None
