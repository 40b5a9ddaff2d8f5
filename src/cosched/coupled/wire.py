"""The coupled protocol's messages on the wire (ZeroMQ multipart, signed, versioned).

A message is five ZeroMQ frames (after the ROUTER's routing id on the serving side)::

    [VERSION, sender, body, blob, mac]

* ``VERSION``: the protocol version, ``b"cosched-coupled/4"``; any other is refused;
* ``sender``: the sending domain's name (``driver`` for the coordinator), UTF-8;
* ``body``: JSON, a request ``{"id": n, "seq": s, "to": name, "run": id, "op": name,
  "args": {...}}`` or a reply ``{"id": n, "seq": s, "to": name, "run": id, "ok": true,
  "result": ...}`` / ``{..., "ok": false, "error": text}``; ``to`` is the recipient's
  name and ``run`` the run's id, both checked by the recipient (:func:`check_recipient`),
  so a message captured on its way to one domain is refused by every other; floats
  travel as Python's ``repr`` (exact), ``Infinity`` and ``NaN`` included;
* ``blob``: bytes that do not fit JSON (a workload or result table as Parquet), often
  empty;
* ``mac``: HMAC-SHA256 over the other four frames (each prefixed by its length) with
  the run's shared secret.

``seq`` is the sending process's sequence number: above every number it sent before,
and at least the wall clock in nanoseconds when it was sent (so a restarted sender
continues above its predecessor). A receiver accepts from each sender only numbers
above the last one it accepted (:class:`Sequences`): a recorded message sent again is
refused, since the number is inside the signed part.

Framing, delivery and reconnection are ZeroMQ's. Every connection is also a CurveZMQ
one (:func:`secure`): the serving socket's key pair is derived from the shared secret,
and its public key is never sent, so a peer without the secret fails ZeroMQ's
handshake and not one frame it sends is read, whatever their number or size (ZeroMQ
has no limit on the frames of one message and holds them all until the last arrives).
This module builds and checks the frames and sets the sockets' keys.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

import pandas as pd
import zmq
from zmq.utils import z85

from cosched.coupled.errors import CoupledError

__all__ = [
    "MAX_MESSAGE",
    "VERSION",
    "Channel",
    "Json",
    "JsonObject",
    "Message",
    "RemoteError",
    "Sequences",
    "Unreachable",
    "WireError",
    "check_recipient",
    "decode",
    "encode",
    "frame_table",
    "read_table",
    "run_id",
    "secure",
]

log = logging.getLogger("cosched.coupled.wire")

#: The protocol version every frame set starts with.
VERSION = b"cosched-coupled/4"
#: Longest body accepted (bytes): a protocol message is a few hundred bytes; a larger
#: one is malformed.
MAX_BODY = 1 << 16
#: Longest sender name accepted (bytes).
MAX_SENDER = 256
#: Largest message (all frames together, bytes) sent or accepted. The largest real one
#: is a workload as Parquet in ``setup``: about 12 bytes per job (5.5 MB for the
#: 243,306 jobs of SDSC-BLUE), so this leaves room for about five million jobs. It is
#: also the serving socket's ZeroMQ ``MAXMSGSIZE``: a frame announcing more is refused
#: on its length, before its bytes are read, and its connection closed.
MAX_MESSAGE = 64 << 20
#: How long before a receiver started a sequence number may have been stamped (ns):
#: older ones are replays of an earlier run (allowance for clocks out of step when
#: the domains run on several hosts).
CLOCK_SLACK_NS = 60 * 10**9


class WireError(CoupledError):
    """A frame set that is not a valid, authentic, fresh message of this protocol version.

    Attributes:
        reason: one word for the refusal counts: ``malformed``, ``version``,
            ``oversized``, ``signature``, ``replay`` or ``recipient``.
    """

    def __init__(self, message: str, reason: str = "malformed") -> None:
        super().__init__(message)
        self.reason = reason


#: A JSON value as decoded from a message: its shape is the operation's (the table in
#: :mod:`cosched.coupled.server`), checked where it is read (:func:`number`,
#: :func:`integer`, ``isinstance``).
Json: TypeAlias = Any
#: A decoded JSON object: a message's body, an operation's arguments.
JsonObject = dict[str, Json]


@dataclass(frozen=True)
class Message:
    """A decoded, authenticated message (``seq``: the sender's sequence number; ``to``
    and ``run``: the recipient and run it was signed for)."""

    sender: str
    body: JsonObject
    blob: bytes = b""
    seq: int = 0
    to: str = ""
    run: str = ""


class _Stamps:
    """This process's sequence numbers: increasing, and never below the wall clock."""

    def __init__(self) -> None:
        self.last = 0

    def __call__(self) -> int:
        self.last = max(self.last + 1, time.time_ns())
        return self.last


_stamp = _Stamps()


class Sequences:
    """The last sequence number accepted from each sender; refuses replays.

    A number must be above the last one accepted from the same sender, and above this
    receiver's start minus :data:`CLOCK_SLACK_NS` (a message recorded in an earlier
    run with the same secret is refused by a receiver that never saw its sender).
    Senders are authenticated names, so the table holds only the run's own domains.
    """

    def __init__(self) -> None:
        self.floor = time.time_ns() - CLOCK_SLACK_NS
        self.last: dict[str, int] = {}

    def check(self, msg: Message) -> None:
        """Accept ``msg``'s sequence number (remembered) or refuse it.

        Raises:
            WireError: (reason ``replay``) not above the last one from that sender.
        """
        last = self.last.get(msg.sender)
        if last is None and msg.seq <= self.floor:
            age = (self.floor + CLOCK_SLACK_NS - msg.seq) / 1e9
            raise WireError(
                f"replayed message from {msg.sender!r}: stamped {age:.0f} s before this "
                "process started (or the sender's clock is behind)",
                "replay",
            )
        if last is not None and msg.seq <= last:
            raise WireError(
                f"replayed or reordered message from {msg.sender!r}: sequence number "
                f"{msg.seq} is not above the last accepted, {last}",
                "replay",
            )
        self.last[msg.sender] = msg.seq


def _derive(secret: bytes, what: bytes) -> bytes:
    return hmac.new(secret, b"cosched-coupled/4 " + what, hashlib.sha256).digest()


def run_id(secret: bytes) -> str:
    """The run id processes sharing ``secret`` use when none is given (``--run``)."""
    return _derive(secret, b"run").hex()[:16]


def _curve_pair(secret: bytes, role: bytes) -> tuple[bytes, bytes]:
    """A CurveZMQ key pair (public, secret; Z85) derived from the shared secret."""
    private = z85.encode(_derive(secret, b"curve " + role))
    return zmq.curve_public(private), private


def secure(sock: zmq.Socket, secret: bytes, *, server: bool) -> None:
    """Make ``sock`` a CurveZMQ server or client keyed by the shared secret.

    The server's public key is derived from the secret and never sent, and a client
    must know it to complete ZeroMQ's handshake: without the secret, a connection ends
    in the handshake, before any message frame is read.
    """
    public, private = _curve_pair(secret, b"server")
    if server:
        sock.curve_server = True
        sock.curve_secretkey = private
        return
    sock.curve_serverkey = public
    sock.curve_publickey, sock.curve_secretkey = _curve_pair(secret, b"client")


def _mac(secret: bytes, frames: list[bytes]) -> bytes:
    h = hmac.new(secret, digestmod=hashlib.sha256)
    for f in frames:
        h.update(len(f).to_bytes(8, "big"))
        h.update(f)
    return h.digest()


def encode(
    secret: bytes,
    sender: str,
    body: JsonObject,
    blob: bytes = b"",
    *,
    to: str,
    run: str,
) -> list[bytes]:
    """The signed frames of one message for recipient ``to`` in run ``run`` (``body``
    gets this process's next ``seq``)."""
    text = json.dumps({**body, "seq": _stamp(), "to": to, "run": run}, allow_nan=True).encode()
    frames = [VERSION, sender.encode(), text, blob]
    return [*frames, _mac(secret, frames)]


def decode(secret: bytes, frames: list[bytes]) -> Message:
    """Check and decode a frame set (cheap checks first, the signature, then JSON).

    Raises:
        WireError: wrong frame count or version, a part too long, a bad signature, or
            a body that is not a JSON object with an integer ``id``, a positive
            integer ``seq`` and strings ``to`` and ``run``.
    """
    if len(frames) != 5:
        raise WireError(f"malformed message: {len(frames)} frames, expected 5")
    version, sender, body, blob, mac = frames
    if version != VERSION:
        shown = version[:40].decode("utf-8", "replace")
        raise WireError(
            f"unsupported protocol version {shown!r} (this is {VERSION.decode()})", "version"
        )
    if len(body) > MAX_BODY or len(sender) > MAX_SENDER:
        raise WireError(
            f"oversized message: body of {len(body)} bytes (at most {MAX_BODY}), sender "
            f"of {len(sender)} (at most {MAX_SENDER})",
            "oversized",
        )
    if not hmac.compare_digest(mac, _mac(secret, frames[:4])):
        raise WireError("authentication failed (bad signature: wrong shared secret?)", "signature")
    try:
        name = sender.decode()
        obj = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"malformed message body: {exc}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("id"), int):
        raise WireError("malformed message: the body must be an object with an integer id")
    seq = obj.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq <= 0:
        raise WireError(f"malformed message: sequence number {seq!r}, expected an integer > 0")
    to, run = obj.get("to"), obj.get("run")
    if not isinstance(to, str) or not isinstance(run, str):
        raise WireError(
            f"malformed message: recipient {to!r} and run {run!r}, expected two strings"
        )
    return Message(name, obj, blob, seq, to, run)


def check_recipient(msg: Message, name: str, run: str) -> None:
    """Refuse ``msg`` unless it was signed for recipient ``name`` in run ``run``.

    Raises:
        WireError: (reason ``recipient``) signed for another recipient or run: a
            message captured on its way to one domain and replayed to another.
    """
    if msg.to != name or msg.run != run:
        raise WireError(
            f"message from {msg.sender!r} signed for {msg.to!r} in run {msg.run!r}, "
            f"not for {name!r} in run {run!r}",
            "recipient",
        )


def frame_table(df: pd.DataFrame) -> bytes:
    """A table as Parquet bytes (dtypes and index kept, floats bit for bit)."""
    buf = io.BytesIO()
    df.to_parquet(buf, engine="pyarrow")
    return buf.getvalue()


def read_table(blob: bytes) -> pd.DataFrame:
    """The table of :func:`frame_table`.

    Raises:
        WireError: the bytes are not a Parquet table.
    """
    try:
        return pd.read_parquet(io.BytesIO(blob), engine="pyarrow")
    except Exception as exc:  # pyarrow raises several types for bad bytes
        raise WireError(f"malformed table: {exc}") from None


def number(x: object, what: str) -> float:
    """A JSON number argument as a float.

    Raises:
        WireError: not a number (booleans excluded) or NaN.
    """
    if isinstance(x, bool) or not isinstance(x, int | float) or math.isnan(x):
        raise WireError(f"{what} must be a number, got {x!r}")
    return float(x)


def integer(x: object, what: str) -> int:
    """A JSON integer argument.

    Raises:
        WireError: not an integer (booleans excluded).
    """
    if isinstance(x, bool) or not isinstance(x, int):
        raise WireError(f"{what} must be an integer, got {x!r}")
    return x


class RemoteError(CoupledError):
    """The other end answered a request with an error (its text)."""


class Unreachable(CoupledError):
    """The other end did not take or answer a request within the timeout."""


class Channel:
    """Requests to one address over a ZeroMQ DEALER socket, each with a timeout.

    While a request waits for its reply, ``serve`` (if given) is called with the
    remaining wait whenever the serving socket ``inbox`` has a message, so a domain
    keeps answering the calls its peers make in the meantime (a try-start asks back
    about the asking domain's jobs). Replies to earlier requests that timed out are
    dropped by id. After a timeout the socket is replaced, so that a request queued for
    a dead peer is never delivered to its restarted successor.

    Args:
        ctx: the ZeroMQ context.
        address: ``tcp://host:port`` of the other end.
        secret: the shared secret.
        sender: this end's name, sent with every message.
        timeout: seconds to wait for a reply (and for the connection to take it).
        recipient: the other end's name (each request is signed for it).
        run: the run's id (each request is signed for it; replies must carry it).
        inbox: the socket this process serves on, if any.
        serve: called with ``inbox``'s next message while waiting.
    """

    def __init__(
        self,
        ctx: zmq.Context,
        address: str,
        secret: bytes,
        sender: str,
        timeout: float,
        *,
        recipient: str,
        run: str,
        inbox: zmq.Socket | None = None,
        serve: Callable[[], None] | None = None,
    ) -> None:
        self.ctx = ctx
        self.recipient = recipient
        self.run = run
        self.address = address
        self.secret = secret
        self.sender = sender
        self.timeout = timeout
        self.inbox = inbox
        self.serve = serve
        self.sent = 0
        self._next_id = 0
        self._replies = Sequences()
        self._sock = self._open()

    def _open(self) -> zmq.Socket:
        s = self.ctx.socket(zmq.DEALER)
        s.linger = 0
        s.immediate = 1  # never queue a request for a peer that is not connected
        secure(s, self.secret, server=False)
        s.connect(self.address)
        self._poller = zmq.Poller()
        self._poller.register(s, zmq.POLLIN)
        if self.inbox is not None:
            self._poller.register(self.inbox, zmq.POLLIN)
        return s

    def reset(self) -> None:
        """Drop the connection and whatever is queued on it; reconnect."""
        self._sock.close(linger=0)
        self._sock = self._open()

    def close(self) -> None:
        """Close the socket."""
        self._sock.close(linger=0)

    def call(
        self,
        op: str,
        args: JsonObject | None = None,
        blob: bytes = b"",
        *,
        timeout: float = 0.0,
    ) -> tuple[Json, bytes]:
        """Send one request and wait for its reply; ``(result, blob)``.

        Raises:
            Unreachable: not connected, or no reply within the timeout.
            WireError: the reply is not authentic.
            RemoteError: the other end answered with an error.
        """
        return self.wait(self.send(op, args, blob, timeout=timeout))

    def send(
        self,
        op: str,
        args: JsonObject | None = None,
        blob: bytes = b"",
        *,
        timeout: float = 0.0,
    ) -> tuple[int, str, float]:
        """Send one request without waiting; the ticket :meth:`wait` takes.

        Raises:
            Unreachable: not connected within the timeout.
            WireError: the message would be larger than :data:`MAX_MESSAGE`.
        """
        limit = timeout or self.timeout
        self._next_id += 1
        rid = self._next_id
        body = {"id": rid, "op": op, "args": args or {}}
        frames = encode(self.secret, self.sender, body, blob, to=self.recipient, run=self.run)
        size = sum(len(f) for f in frames)
        if size > MAX_MESSAGE:
            raise WireError(
                f"{op} to {self.address} would be a message of {size} bytes, over the "
                f"protocol's limit of {MAX_MESSAGE} (a workload of more than about five "
                "million jobs)",
                "oversized",
            )
        if not self._sock.poll(int(limit * 1000), zmq.POLLOUT):
            self.reset()
            raise Unreachable(f"{self.address} is not connected ({op}, waited {limit:g} s)")
        self._sock.send_multipart(frames)
        self.sent += 1
        return rid, op, time.monotonic() + limit

    def wait(self, ticket: tuple[int, str, float]) -> tuple[Json, bytes]:
        """The reply to the request of ``ticket`` (see :meth:`call`)."""
        rid, op, deadline = ticket
        while True:
            left = deadline - time.monotonic()
            # A reply already here counts even if the deadline passed meanwhile (the
            # caller may have been busy with other domains since it sent the request).
            ready = dict(self._poller.poll(max(0, int(left * 1000))))
            if left <= 0 and self._sock not in ready:
                self.reset()
                raise Unreachable(f"{self.address} did not answer {op} in time")
            if self.serve is not None and self.inbox is not None and self.inbox in ready:
                self.serve()
            if self._sock in ready:
                msg = decode(self.secret, self._sock.recv_multipart())
                if msg.body.get("id") != rid:
                    continue  # the late reply of a request that timed out
                try:
                    check_recipient(msg, self.sender, self.run)
                    self._replies.check(msg)
                except WireError as exc:
                    log.warning("%s: dropped a reply: %s", self.address, exc)
                    continue
                if not msg.body.get("ok"):
                    raise RemoteError(f"{self.address}: {msg.body.get('error')}")
                return msg.body.get("result"), msg.blob
