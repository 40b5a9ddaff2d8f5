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
from cosched.coupled.wire import MAX_BODY, MAX_MESSAGE, VERSION, encode
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


def ask(address: str, frames: list[bytes], *, answer: bool = True) -> dict[str, Any] | None:
    """Send raw frames from a new connection; the reply's JSON body (3 s at most)."""
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
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
        address, secret = cluster.addresses["A"], cluster.secret
        port, pid = cluster.port("A"), cluster.procs["A"].pid
        rng = np.random.default_rng(39)
        before = rss_kb(pid)

        # Bytes that are not ZeroMQ 3: the five bytes of a ZeroMQ 1.0 message (which
        # carries no peer address) and random bytes (ZeroMQ closes that connection).
        raw(port, b"\x01\x00\x02\x00A")
        # The server reads that connection and the driver's in whichever order they
        # come: ask until the refusal is counted (a few seconds at most).
        deadline = time.monotonic() + 5.0
        while True:
            now, _ = cluster.members["A"].call("hello")
            if now["refused"] or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert now["refused"] == {"address": 1}
        for _ in range(5):
            raw(port, rng.integers(0, 256, int(rng.integers(1, 4096)), dtype=np.uint8).tobytes())

        # Malformed: frame count, version, JSON, no sequence number (the last two signed).
        refusals = {
            "malformed": [
                [b"\x00\xffnot a message"],
                [*encode(secret, "driver", HELLO), b"sixth"],
                sign(secret, [VERSION, b"driver", b"{not json", b""]),
                signed(secret, "driver", HELLO),
            ],
            "version": [[b"cosched-coupled/1", *encode(secret, "driver", HELLO)[1:]]],
            "signature": [encode(b"w" * 32, "driver", HELLO), encode(b"", "driver", HELLO)],
            "oversized": [encode(secret, "driver", {**HELLO, "pad": "x" * MAX_BODY})],
        }
        for reason, cases in refusals.items():
            for frames in cases:
                reply = ask(address, frames)
                assert reply is not None and reply["ok"] is False, (reason, reply)

        # A frame over the limit is refused on its announced length, before its bytes
        # are read: the server's memory does not grow by it.
        ask(address, [b"x" * (MAX_MESSAGE + 1)], answer=False)

        # Replays: the same signed request twice; a `stop` recorded before a later
        # request; a request stamped a day before the server started.
        hello = encode(secret, "driver", HELLO)
        first = ask(address, hello)
        assert first is not None and first["ok"] and first["result"]["name"] == "A"
        recorded_stop = encode(secret, "driver", {"id": 9, "op": "stop", "args": {}})
        later = ask(address, encode(secret, "driver", HELLO))
        assert later is not None and later["ok"]
        old = time.time_ns() - 86400 * 10**9
        replays = [hello, recorded_stop, signed(secret, "B", {**HELLO, "seq": old})]
        for frames in replays:
            reply = ask(address, frames)
            assert reply is not None and reply["ok"] is False and "replay" in reply["error"]

        # A flood of connections held open: those beyond the limit are closed, and the
        # connections open before it (the driver's) keep working.
        flood = [
            socket.create_connection(("127.0.0.1", port), timeout=2)
            for _ in range(MAX_CONNECTIONS + 40)
        ]
        try:
            during, _ = cluster.members["A"].call("hello")
        finally:
            for c in flood:
                c.close()
        assert during["name"] == "A"
        after = ask(address, encode(secret, "driver", HELLO))
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
    # Random bytes ZeroMQ reads as 1.0 messages have no peer address either.
    assert counts["address"] >= 1
    # The flood: at least those beyond the limit (the driver's and B's connections and
    # any not yet closed count toward it too).
    assert counts["connections"] >= 40
    assert res.stats["refused_messages"] == sum(counts.values())  # B refused nothing
    for text in (
        "refused a message from ?: no peer address",
        "refused a message from 127.0.0.1: malformed message: 1 frames",
        "refused a message from 127.0.0.1: unsupported protocol version",
        "refused a message from 127.0.0.1: authentication failed",
        "refused a message from 127.0.0.1: oversized message",
        "refused a message from 127.0.0.1: malformed message body",
        "refused a message from 127.0.0.1: replayed or reordered message from 'driver'",
        "refused a connection from 127.0.0.1:",
    ):
        assert text in log, text
    # Stamped a day before the client's clock, some seconds after the server started.
    stale = r"from 127\.0\.0\.1: replayed message from 'B': stamped 86(3\d\d|400) s before"
    assert re.search(stale, log)
    assert "Traceback" not in log


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
    seqs = [decode(key, encode(key, "A", {"id": i})).seq for i in range(3)]
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
        decode(b"k" * 32, encode(b"wrong key" * 4, "A", body))
    assert err.value.reason == "oversized"  # not "signature": the MAC was never checked
    ctx = zmq.Context()
    ch = Channel(ctx, "tcp://127.0.0.1:9", b"k" * 32, "driver", 0.1)
    try:
        with pytest.raises(WireError, match="over the protocol's limit"):
            ch.send("setup", {}, b"\0" * MAX_MESSAGE)
        assert ch.sent == 0
    finally:
        ch.close()
        ctx.term()
