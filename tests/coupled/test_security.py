"""The serve port under attack: bytes from anyone never stop it, and a run through the
attacked servers gives the results of an untouched run.

All traffic goes to 127.0.0.1; every loop is bounded and every wait has a timeout.
Processes are started through :class:`Cluster` (stopped, or killed, on exit).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import re
import socket
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zmq

from cosched.coupled import run_coupled
from cosched.coupled.coordinator import Coordinator
from cosched.coupled.server import MAX_CONNECTIONS
from cosched.coupled.spec import DomainSpec
from cosched.coupled.transport import Cluster, run_tcp
from cosched.coupled.wire import MAX_BODY, MAX_MESSAGE, VERSION, encode, secure
from cosched.platform import Platform
from cosched.workload.job import Workload
from tests.coupled.test_transport import assert_same

TIMEOUT = 3.0
HELLO = {"id": 1, "op": "hello", "args": {}}


def paired_specs() -> list[DomainSpec]:
    """Ten pairs of 1-unit jobs, one pair every 100 s, on two 2-unit machines (A holds,
    B yields): every pair goes through Algorithm 1's remote calls."""
    rows = [(float(t), 1, 50.0 + t / 10) for t in range(0, 1000, 100)]
    t = Workload.from_jobs(rows).table.copy()
    t["coupled_mate"] = list(range(1, 11))
    w = Workload.from_table(t)
    return [
        DomainSpec("A", w, Platform.of_procs(2), scheme="hold", params={}, check=True),
        DomainSpec("B", w, Platform.of_procs(2), scheme="yield", params={}, check=True),
    ]


def sign(secret: bytes, frames: list[bytes]) -> list[bytes]:
    """Four frames and their signature as docs/coupled-network.md describes it
    (HMAC-SHA256 over the frames, each after its length in 8 bytes big-endian)."""
    mac = hmac.new(secret, digestmod=hashlib.sha256)
    for f in frames:
        mac.update(len(f).to_bytes(8, "big") + f)
    return [*frames, mac.digest()]


def signed(secret: bytes, sender: str, body: dict[str, Any]) -> list[bytes]:
    """A message signed with the body as given (no sequence number added): what one who
    holds the key, or replays, can send."""
    return sign(secret, [VERSION, sender.encode(), json.dumps(body).encode(), b""])


def ask(
    address: str, frames: list[bytes], *, answer: bool = True, key: bytes | None = None
) -> dict[str, Any] | None:
    """Send raw frames from a new connection keyed by ``key`` (None: no CurveZMQ keys);
    the reply's JSON body (3 s at most)."""
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    if key is not None:
        secure(s, key, server=False)
    try:
        s.connect(address)
        s.send_multipart(frames)
        if not answer:
            return None
        assert s.poll(3000), "no reply within 3 s"
        reply = s.recv_multipart()
        assert reply[0] == VERSION
        body: dict[str, Any] = json.loads(reply[2])
        return body
    finally:
        s.close(0)
        ctx.term()


def raw(port: int, data: bytes) -> None:
    """Send bytes on a plain TCP connection, read what comes back (0.2 s), close."""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as c:
        c.sendall(data)
        c.settimeout(0.2)
        with contextlib.suppress(TimeoutError, ConnectionError):
            c.recv(4096)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_attacks_are_refused_counted_logged_and_the_run_is_untouched(tmp_path: Path) -> None:
    specs = paired_specs()
    untouched = run_coupled([s.build() for s in specs])
    with Cluster(specs, timeout=TIMEOUT, log_dir=tmp_path) as cluster:
        address, secret, run = cluster.addresses["A"], cluster.secret, cluster.run
        port, pid = cluster.port("A"), cluster.procs["A"].pid
        rng = np.random.default_rng(39)
        before = rss_kb(pid)

        def to_a(key: bytes, sender: str, body: dict[str, Any]) -> list[bytes]:
            return encode(key, sender, body, to="A", run=run)

        # Connections without the run's key end in ZeroMQ's handshake: the five bytes
        # of a ZeroMQ 1.0 message, random bytes, a ZeroMQ peer without CurveZMQ keys
        # and one with another secret's keys. Nothing is answered.
        raw(port, b"\x01\x00\x02\x00A")
        for _ in range(5):
            raw(port, rng.integers(0, 256, int(rng.integers(1, 4096)), dtype=np.uint8).tobytes())
        assert ask(address, to_a(secret, "driver", HELLO), answer=False) is None
        assert ask(address, to_a(secret, "driver", HELLO), answer=False, key=b"w" * 32) is None
        # The server reads those connections and the driver's in whichever order they
        # come: ask until a handshake refusal is counted (a few seconds at most).
        deadline = time.monotonic() + 5.0
        while True:
            now, _ = cluster.members["A"].call("hello")
            if now["refused"].get("handshake") or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert set(now["refused"]) == {"handshake"}

        # Over a connection keyed by the run's secret (what only a holder of the
        # secret can open), every message-level check still holds. Malformed: frame
        # count, version, JSON, no sequence number (the last two signed).
        refusals = {
            "malformed": [
                [b"\x00\xffnot a message"],
                [*to_a(secret, "driver", HELLO), b"sixth"],
                sign(secret, [VERSION, b"driver", b"{not json", b""]),
                signed(secret, "driver", HELLO),
            ],
            "version": [[b"cosched-coupled/3", *to_a(secret, "driver", HELLO)[1:]]],
            "signature": [to_a(b"w" * 32, "driver", HELLO), to_a(b"", "driver", HELLO)],
            "oversized": [to_a(secret, "driver", {**HELLO, "pad": "x" * MAX_BODY})],
            "recipient": [
                encode(secret, "driver", HELLO, to="B", run=run),
                encode(secret, "driver", HELLO, to="A", run="another run"),
            ],
        }
        for reason, cases in refusals.items():
            for frames in cases:
                reply = ask(address, frames, key=secret)
                assert reply is not None and reply["ok"] is False, (reason, reply)

        # A frame over the limit is refused on its announced length, before its bytes
        # are read: the server's memory does not grow by it.
        ask(address, [b"x" * (MAX_MESSAGE + 1)], answer=False, key=secret)

        # Replays: the same signed request twice; a `stop` recorded before a later
        # request; a request stamped a day before the server started.
        hello = to_a(secret, "driver", HELLO)
        first = ask(address, hello, key=secret)
        assert first is not None and first["ok"] and first["result"]["name"] == "A"
        recorded_stop = to_a(secret, "driver", {"id": 9, "op": "stop", "args": {}})
        later = ask(address, to_a(secret, "driver", HELLO), key=secret)
        assert later is not None and later["ok"]
        old = time.time_ns() - 86400 * 10**9
        stale = {**HELLO, "seq": old, "to": "A", "run": run}
        replays = [hello, recorded_stop, signed(secret, "B", stale)]
        for frames in replays:
            reply = ask(address, frames, key=secret)
            assert reply is not None and reply["ok"] is False and "replay" in reply["error"]

        # A flood of connections held open: those beyond the limit are closed, and the
        # connections open before it (the driver's) keep working.
        flood = [
            socket.create_connection(("127.0.0.1", port), timeout=2)
            for _ in range(MAX_CONNECTIONS + 40)
        ]
        try:
            # The monitor reports the accepted connections as they come: ask until those
            # beyond the limit are counted (a few seconds at most) before the flood is
            # closed (a connection closed first is no longer there to count).
            deadline = time.monotonic() + 5.0
            while True:
                during, _ = cluster.members["A"].call("hello")
                counted = during["refused"].get("connections", 0)
                if counted >= 40 or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
        finally:
            for c in flood:
                c.close()
        assert during["name"] == "A"
        after = ask(address, to_a(secret, "driver", HELLO), key=secret)
        assert after is not None and after["ok"]
        assert cluster.procs["A"].poll() is None and cluster.procs["B"].poll() is None
        assert rss_kb(pid) - before < MAX_MESSAGE // 1024 // 4

        # A normal run through the same servers: the untouched run's results, bit for bit.
        res = run_tcp(specs, cluster=cluster)
        assert_same(untouched, res)
        assert res.faults == ()
        report, _ = cluster.members["A"].call("stop")
        log = cluster.logs()["A"]

    counts = report["refused"]
    want = {reason: len(cases) for reason, cases in refusals.items()}
    want["replay"] = len(replays)
    assert {k: counts.get(k, 0) for k in want} == want
    # At least the two ZeroMQ peers without the key (random bytes may fail the
    # handshake too, or be closed by ZeroMQ without an event).
    assert counts["handshake"] >= 2
    assert "address" not in counts  # nothing without the key reaches the messages
    # The flood: at least those beyond the limit (the driver's and B's connections and
    # any not yet closed count toward it too).
    assert counts["connections"] >= 40
    assert res.stats["refused_messages"] == sum(counts.values())  # B refused nothing
    for text in (
        "refused a connection from ?: ZeroMQ handshake failed",
        "refused a message from 127.0.0.1: malformed message: 1 frames",
        "refused a message from 127.0.0.1: unsupported protocol version",
        "refused a message from 127.0.0.1: authentication failed",
        "refused a message from 127.0.0.1: oversized message",
        "refused a message from 127.0.0.1: malformed message body",
        "refused a message from 127.0.0.1: message from 'driver' signed for 'B'",
        "refused a message from 127.0.0.1: replayed or reordered message from 'driver'",
        "refused a connection from 127.0.0.1:",
    ):
        assert text in log, text
    # Stamped a day before the client's clock, some seconds after the server started.
    stale_line = r"from 127\.0\.0\.1: replayed message from 'B': stamped 86(3\d\d|400) s before"
    assert re.search(stale_line, log)
    assert "Traceback" not in log


def zmtp_many_frames(frames: int, mechanism: bytes = b"NULL") -> bytes:
    """The bytes a ZeroMQ 3.0 DEALER without keys sends for one message of ``frames``
    empty frames: greeting (64 bytes), READY command, then two bytes per frame
    (flags, length 0), every flag but the last with MORE."""
    greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00"
    greeting += mechanism.ljust(20, b"\x00") + b"\x00" + b"\x00" * 31
    prop = b"\x0bSocket-Type" + (6).to_bytes(4, "big") + b"DEALER"
    ready = b"\x05READY" + prop
    return (
        greeting + b"\x04" + bytes([len(ready)]) + ready + b"\x01\x00" * (frames - 1) + b"\x00\x00"
    )


def test_a_million_frame_message_neither_stalls_nor_grows_the_server(tmp_path: Path) -> None:
    """One message of 1,000,000 empty frames (2 MB on the wire), sent as a ZeroMQ peer
    without the key sends it and by pyzmq itself: the driver's requests during it are
    each answered within 1 s and the server's memory grows by less than the documented
    16 MiB (docs/coupled-network.md, Security)."""
    import threading

    frames = 1_000_000
    with Cluster(paired_specs(), timeout=TIMEOUT, log_dir=tmp_path) as cluster:
        address, port, pid = cluster.addresses["A"], cluster.port("A"), cluster.procs["A"].pid
        member = cluster.members["A"]
        member.call("hello")
        before = rss_kb(pid)
        wire = zmtp_many_frames(frames)

        def flood() -> None:
            with contextlib.suppress(OSError):
                raw(port, wire)
            ctx = zmq.Context()
            s = ctx.socket(zmq.DEALER)
            s.linger = 0
            secure(s, b"w" * 32, server=False)  # another secret's keys
            s.connect(address)
            s.send_multipart([b""] * frames)
            time.sleep(0.5)  # its reconnections fail the handshake meanwhile
            s.close(0)
            ctx.term()

        sender = threading.Thread(target=flood)
        sender.start()
        slowest = 0.0
        try:
            while sender.is_alive():
                t0 = time.monotonic()
                member.call("hello")
                slowest = max(slowest, time.monotonic() - t0)
                time.sleep(0.02)
        finally:
            sender.join(30)
        t0 = time.monotonic()
        report, _ = member.call("hello")
        slowest = max(slowest, time.monotonic() - t0)
        grown = rss_kb(pid) - before
    assert slowest < 1.0, slowest
    assert grown < 16 * 1024, grown
    assert report["refused"].get("handshake", 0) >= 2


def test_a_message_signed_for_one_domain_is_refused_by_the_other(tmp_path: Path) -> None:
    """A driver's message captured on its way to A and replayed to B (same run, same
    secret) is refused by B as ``recipient``; A takes it; a message of another run is
    refused by both."""
    with Cluster(paired_specs(), timeout=TIMEOUT, log_dir=tmp_path) as cluster:
        secret, run = cluster.secret, cluster.run
        for_a = encode(secret, "driver", {"id": 7, "op": "stop", "args": {}}, to="A", run=run)
        replayed = ask(cluster.addresses["B"], for_a, key=secret)
        assert replayed is not None and replayed["ok"] is False
        assert replayed["error"].startswith("message from 'driver' signed for 'A' in run")
        other_run = encode(secret, "driver", HELLO, to="B", run=run[::-1])
        reply = ask(cluster.addresses["B"], other_run, key=secret)
        assert reply is not None and reply["ok"] is False and "not for 'B'" in reply["error"]
        # B is untouched and still serving; A takes what was signed for it.
        state, _ = cluster.members["B"].call("hello")
        assert state["refused"] == {"recipient": 2}
        taken = ask(cluster.addresses["A"], for_a, key=secret)
        assert taken is not None and taken["ok"] is True
        assert cluster.procs["B"].poll() is None


SMALL = """
[pair]
window = 3600
seed = 1

[[domain]]
name = "compute"
workload = "lublin:jobs=20,nodes=16"
seed = 1
procs = 16
scheme = "hold"

[[domain]]
name = "analysis"
workload = "lublin:jobs=20,nodes=8"
seed = 2
procs = 8
scheme = "yield"
"""


@pytest.mark.parametrize("allow", [False, True], ids=["default", "allow-lost"])
def test_cli_run_with_a_lost_machine_exits_1_unless_allow_lost(
    allow: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cosched.cli.main import main
    from cosched.coupled import transport

    instants: list[float] = []

    def kill_analysis(cluster: Cluster, coord: Coordinator, t: float) -> None:
        instants.append(t)
        if len(instants) == 3:
            cluster.kill("analysis")  # SIGKILL: gone for good (no --restarts)

    patched = functools.partial(transport.run_tcp, on_instant=kill_analysis)
    monkeypatch.setattr(transport, "run_tcp", patched)
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL)
    argv = ["coupled", "run", str(spec), "--transport", "tcp", "--timeout", "2"]
    code = main([*argv, "--allow-lost"] if allow else argv)
    out = capsys.readouterr()
    assert len(instants) > 3
    assert code == (0 if allow else 1)
    assert f"machine 'analysis' was lost at t={instants[3]:g}" in out.err
    assert ("--allow-lost" in out.err) is not allow
    assert "'event': 'lost'" in out.out and "compute: jobs 20" in out.out
    assert "analysis: jobs" not in out.out


def test_sequence_numbers_refuse_replays_reorders_and_old_stamps() -> None:
    from cosched.coupled.wire import CLOCK_SLACK_NS, Message, Sequences, WireError, decode

    key = b"k" * 32
    seqs = [decode(key, encode(key, "A", {"id": i}, to="B", run="r")).seq for i in range(3)]
    assert seqs == sorted(set(seqs)) and seqs[0] >= time.time_ns() - 10**9
    guard = Sequences()
    guard.check(Message("A", {}, b"", seqs[1]))
    guard.check(Message("B", {}, b"", seqs[0]))  # each sender has its own numbers
    for seq in (seqs[1], seqs[0]):  # the same again; an earlier one
        with pytest.raises(WireError, match="replayed or reordered") as err:
            guard.check(Message("A", {}, b"", seq))
        assert err.value.reason == "replay"
    guard.check(Message("A", {}, b"", seqs[2]))
    with pytest.raises(WireError, match="stamped 61 s before"):
        Sequences().check(Message("C", {}, b"", time.time_ns() - CLOCK_SLACK_NS - 10**9))


def test_oversized_parts_are_refused_before_the_signature_is_computed() -> None:
    from cosched.coupled.wire import Channel, WireError, decode

    body = {"id": 1, "pad": "x" * MAX_BODY}
    with pytest.raises(WireError, match="oversized") as err:
        decode(b"k" * 32, encode(b"wrong key" * 4, "A", body, to="B", run="r"))
    assert err.value.reason == "oversized"  # not "signature": the MAC was never checked
    ctx = zmq.Context()
    ch = Channel(ctx, "tcp://127.0.0.1:9", b"k" * 32, "driver", 0.1, recipient="A", run="r")
    try:
        with pytest.raises(WireError, match="over the protocol's limit"):
            ch.send("setup", {}, b"\0" * MAX_MESSAGE)
        assert ch.sent == 0
    finally:
        ch.close()
        ctx.term()
