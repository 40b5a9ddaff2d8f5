"""Coupled machines over TCP: serve processes on 127.0.0.1, the same schedules, faults.

Every test that starts processes does it through :class:`Cluster` (a context manager
that stops and, if need be, kills them, also when the test fails); every request has
a timeout of a few seconds, so no test can wait forever.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import zmq
from hypothesis import HealthCheck, given, settings

from cosched.coupled import CoupledDeadlockError, Outage, run_coupled, verify_sync
from cosched.coupled.coordinator import Coordinator, CoupledResult
from cosched.coupled.spec import DomainSpec
from cosched.coupled.transport import Cluster, run_tcp
from cosched.coupled.wire import VERSION, encode, run_id, secure
from cosched.engine.invariants import verify_schedule
from cosched.platform import Platform
from cosched.workload.job import Workload
from tests.coupled.test_coupled import coupled_case

TIMEOUT = 3.0


def specs_of(case: dict) -> list[DomainSpec]:
    """The domains of a ``coupled_case`` (the in-process tests' strategy) as specs."""
    out = []
    for name, w, procs, scheme, order in zip(
        "AB", (case["wa"], case["wb"]), case["procs"], case["schemes"], case["orders"], strict=True
    ):
        if order == "fcfs":
            policy, params = "fcfs", {}
        elif order == "window":
            policy, params = "easy", {"window": 1}
        else:
            policy, params = "easy", {"order": order}
        out.append(
            DomainSpec(
                name,
                w,
                Platform.of_procs(procs),
                scheme=scheme,
                policy=policy,
                params=params,
                release_period=case["release"],
                max_hold_share=case["share"],
                max_yields=case["max_yields"],
                check=True,
            )
        )
    return out


def assert_same(a: CoupledResult, b: CoupledResult) -> None:
    """Bit-identical job tables, engine counters and parameters on every machine."""
    assert list(a.results) == list(b.results)
    assert dict(a.capacities) == dict(b.capacities)
    for name in a.results:
        ra, rb = a.results[name], b.results[name]
        pd.testing.assert_frame_equal(ra.jobs, rb.jobs, check_exact=True)
        assert dict(ra.stats) == dict(rb.stats)
        assert ra.policy == rb.policy and dict(ra.params) == dict(rb.params)


def serving(names: str, links: list[tuple[str, str]] | None = None) -> Iterator[Cluster]:
    """A serve process per name, reused by the random-workload examples of a module
    (each run gives the servers its own domains)."""
    seed = Workload.from_jobs([(0.0, 1, 1.0)])
    specs = [DomainSpec(n, seed, Platform.of_procs(2)) for n in names]
    with Cluster(specs, links=links, timeout=TIMEOUT) as cluster:
        yield cluster


def tcp_as_in_process(
    specs: list[DomainSpec], cluster: Cluster, pairs: list[tuple[str, str]] | None = None
) -> CoupledResult | None:
    """The run over TCP, checked bit for bit against the run in process; ``None`` when
    both stop on the same deadlock."""
    try:
        local = run_coupled([s.build() for s in specs], pairs=pairs)
    except CoupledDeadlockError as exc:
        with pytest.raises(CoupledDeadlockError) as info:
            run_tcp(specs, cluster=cluster)
        assert str(info.value) == str(exc)
        return None
    remote = run_tcp(specs, cluster=cluster)
    assert_same(local, remote)
    return remote


#: The settings of the random examples run against a module's serve processes (a
#: module-scoped fixture, reused by every example).
OVER_TCP = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def pair_cluster() -> Iterator[Cluster]:
    """Two serve processes (A, B)."""
    yield from serving("AB")


@settings(OVER_TCP, max_examples=12)
@given(coupled_case())
def test_tcp_gives_the_in_process_schedules_bit_for_bit(pair_cluster: Cluster, case: dict) -> None:
    remote = tcp_as_in_process(specs_of(case), pair_cluster)
    if remote is None:
        return
    assert remote.faults == ()
    assert remote.stats["driver_messages"] > 0


def outage_case() -> list[DomainSpec]:
    """A's paired jobs wait, holding, for B's long-running mates (test_coupled's case)."""
    rows_a = [(float(t), 2, 100.0) for t in range(0, 50, 5)]
    rows_b = [(0.0, 4, 2000.0)] + [(float(t), 4, 100.0) for t in range(5, 50, 5)]

    def with_mates(rows: list[tuple[float, int, float]], mates: list[int]) -> Workload:
        t = Workload.from_jobs(rows).table.copy()
        t["coupled_mate"] = mates
        return Workload.from_table(t)

    wa = with_mates(rows_a, [-1, *range(2, 11)])
    wb = with_mates(rows_b, [-1, *range(2, 11)])
    return [
        DomainSpec("A", wa, Platform.of_procs(4), scheme="hold", params={}, check=True),
        DomainSpec("B", wb, Platform.of_procs(4), scheme="yield", params={}, check=True),
    ]


def test_planned_outage_over_tcp_equals_in_process() -> None:
    specs = outage_case()
    outages = [Outage("B", 500.0)]
    local = run_coupled([s.build() for s in specs], outages=outages)
    remote = run_tcp(specs, outages=outages, timeout=TIMEOUT)
    assert_same(local, remote)


def test_kill_9_one_domain_the_other_finishes_alone_and_the_record_names_it() -> None:
    specs = outage_case()
    killed: list[float] = []

    def kill_b(cluster: Cluster, coord: Coordinator, t: float) -> None:
        if t >= 20.0 and not killed:
            cluster.kill("B")  # SIGKILL: no goodbye, its sockets just vanish
            killed.append(t)

    started = time.monotonic()
    res = run_tcp(specs, timeout=2.0, on_instant=kill_b)
    assert time.monotonic() - started < 60
    assert killed
    assert list(res.results) == ["A"]  # B's simulated state died with its process
    a = res.results["A"].jobs
    verify_schedule(a, capacity=4, exact_rates=True)
    # Every job of A started and ended; the paired ones that had not started with their
    # mate before the crash started alone.
    assert a["start_time"].notna().all() and a["end_time"].notna().all()
    paired = a[a["coupled_mate"] >= 0]
    assert paired["started_alone"].all()
    events = [(f["event"], f["domain"]) for f in res.faults]
    assert ("down", "B") in events and ("lost", "B") in events
    down = next(f for f in res.faults if f["event"] == "down")
    assert down["time"] >= killed[0]


@pytest.mark.parametrize("auto", [False, True], ids=["restart", "auto-restart"])
def test_killed_domain_restarted_rejoins_and_coscheduling_resumes(auto: bool) -> None:
    # Ten pairs of 1-unit jobs, one pair every 100 s, on two 2-unit machines holding.
    rows = [(float(t), 1, 50.0) for t in range(0, 1000, 100)]
    t = Workload.from_jobs(rows).table.copy()
    t["coupled_mate"] = list(range(1, 11))
    w = Workload.from_table(t)
    specs = [
        DomainSpec(n, w, Platform.of_procs(2), scheme="hold", params={}, check=True) for n in "AB"
    ]
    log: list[tuple[str, float]] = []

    def crash_and_restart(cluster: Cluster, coord: Coordinator, now: float) -> None:
        if now >= 250.0 and not log:
            cluster.kill("B")
            log.append(("kill", now))
        elif not auto and log and log[-1][0] == "kill" and "B" in coord.lost and now >= 450:
            cluster.restart("B")  # by hand; with auto the cluster restarts it at once
            log.append(("restart", now))

    res = run_tcp(specs, timeout=2.0, on_instant=crash_and_restart, restarts=1 if auto else 0)
    assert [e for e, _ in log] == (["kill"] if auto else ["kill", "restart"])
    events = [(f["event"], f["domain"]) for f in res.faults]
    assert events[:2] == [("down", "B"), ("rejoin", "B")]
    assert ("lost", "B") not in events
    verify_sync(res)  # the pairs that started alone are exempt
    a, b = res.results["A"].jobs, res.results["B"].jobs
    rejoined = next(f["time"] for f in res.faults if f["event"] == "rejoin")
    for jobs in (a, b):
        assert jobs["end_time"].notna().all()
        # After the rejoin every pair starts together again (not alone).
        after = jobs[jobs["submit_time"] > rejoined]
        assert len(after) and not after["started_alone"].any()
    # Pairs submitted while B was down started alone on A (by hand, B stays down from
    # the crash to t >= 450; restarted automatically it is back at the next instant).
    down = next(f["time"] for f in res.faults if f["event"] == "down")
    assert down <= rejoined
    during = a[(a["submit_time"] > down) & (a["submit_time"] < rejoined)]
    assert during["started_alone"].all()
    if not auto:
        assert len(during) >= 1 and rejoined >= 450.0


def test_hung_peer_is_detected_within_its_timeout() -> None:
    specs = outage_case()
    paused: list[float] = []
    seen: list[float] = []

    def hang_b(cluster: Cluster, coord: Coordinator, t: float) -> None:
        if t >= 20.0 and not paused:
            cluster.pause("B")  # SIGSTOP: connected, but never answers
            paused.append(time.monotonic())
        elif paused and "B" in coord.lost and not seen:
            seen.append(time.monotonic())

    res = run_tcp(specs, timeout=2.0, on_instant=hang_b)
    assert paused and seen
    # The driver's next request to B (sent before A's pass, which may wait for B too)
    # times out one timeout later: detected within one timeout (1.5 s slack for a
    # loaded machine; measured 1.00 s with a timeout of 1 s).
    assert seen[0] - paused[0] < 2.0 + 1.5
    assert ("down", "B") in [(f["event"], f["domain"]) for f in res.faults]
    assert res.results["A"].jobs["end_time"].notna().all()


@pytest.fixture()
def lone_server(tmp_path: Path) -> Iterator[tuple[str, bytes, Path, subprocess.Popen[bytes]]]:
    """One serve process allowing only 127.0.0.1; yields (address, secret, log, proc)."""
    secret = bytes(range(32))
    log = tmp_path / "serve.log"
    yield from _serve(secret, log, ["127.0.0.1"])


def _serve(
    secret: bytes, log: Path, allow: list[str]
) -> Generator[tuple[str, bytes, Path, subprocess.Popen[bytes]], None, None]:
    cmd = [sys.executable, "-m", "cosched", "coupled", "serve", "--name", "A"]
    cmd += ["--secret-file", "-", "--log", str(log), "--idle-timeout", "60"]
    for a in allow:
        cmd += ["--allow", a]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(secret.hex().encode() + b"\n")
        proc.stdin.close()
        line = proc.stdout.readline().decode()
        assert "listening on" in line, line
        yield line.split()[-1], secret, log, proc
    finally:
        proc.kill()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def _to_a(key: bytes, sender: str, body: dict, blob: bytes = b"") -> list[bytes]:
    """A message signed with ``key`` for domain A of the lone server's run."""
    return encode(key, sender, body, blob, to="A", run=run_id(bytes(range(32))))


def _ask(address: str, frames: list[bytes], secret: bytes = bytes(range(32))) -> dict:
    """Send raw frames over a connection keyed by ``secret``; the decoded JSON body of
    the reply (3 s at most)."""
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    secure(s, secret, server=False)
    try:
        s.connect(address)
        s.send_multipart(frames)
        assert s.poll(3000), "no reply within 3 s"
        reply = s.recv_multipart()
        assert reply[0] == VERSION
        return json.loads(reply[2])
    finally:
        s.close(0)
        ctx.term()


def test_garbage_and_forged_messages_are_refused_logged_and_survived(
    lone_server: tuple[str, bytes, Path, subprocess.Popen[bytes]],
) -> None:
    address, secret, log, proc = lone_server
    hello = {"id": 1, "op": "hello", "args": {}}
    cases = {
        "garbage": [b"\x00\xffnot a message"],
        "version": [b"cosched-coupled/0", *_to_a(secret, "driver", hello)[1:]],
        "signature": _to_a(b"x" * 32, "driver", hello),
        "json": _to_a(secret, "driver", {"id": "one"}),
        "operation": _to_a(secret, "driver", {"id": 2, "op": "format-disk", "args": {}}),
        "peer": _to_a(secret, "Z", {"id": 3, "op": "try_start", "args": {"mate_id": 1}}),
        "setup-first": _to_a(secret, "driver", {"id": 4, "op": "state", "args": {}}),
        "bad-args": _to_a(secret, "driver", {"id": 5, "op": "setup", "args": {"settings": 7}}),
        "bad-table": _to_a(
            secret, "driver", {"id": 6, "op": "setup", "args": {"settings": {"name": "A"}}}, b"x"
        ),
    }
    for why, frames in cases.items():
        body = _ask(address, frames)
        assert body["ok"] is False, why
    # Still alive and answering an authentic request.
    body = _ask(address, _to_a(secret, "driver", hello))
    assert body["ok"] and body["result"]["name"] == "A"
    assert proc.poll() is None
    text = log.read_text()
    assert "malformed message" in text and "unsupported protocol version" in text
    assert "authentication failed" in text and "unknown operation" in text
    assert "not a linked peer" in text and "not set up" in text


def test_message_from_an_address_not_allowed_is_refused_and_logged(tmp_path: Path) -> None:
    secret = bytes(range(32))
    log = tmp_path / "serve.log"
    gen = _serve(secret, log, ["10.1.2.3"])  # only that address: 127.0.0.1 is unknown
    address, _, _, proc = next(gen)
    try:
        body = _ask(address, _to_a(secret, "driver", {"id": 1, "op": "hello", "args": {}}))
        assert body["ok"] is False and "127.0.0.1 not allowed" in body["error"]
        assert "refused a message from 127.0.0.1" in log.read_text()
        assert proc.poll() is None
    finally:
        gen.close()


TRACES = Path(__file__).resolve().parents[2] / ".." / "shared" / "traces"


def test_reproduce_quick_cell_tcp_equals_local() -> None:
    import json

    from cosched.coupled.experiment import run_cell
    from cosched.coupled.workloads import ANALYSIS_TRACE, COMPUTE_TRACE
    from cosched.experiments.model import CellEnv

    if not ((TRACES / COMPUTE_TRACE).exists() and (TRACES / ANALYSIS_TRACE).exists()):
        pytest.skip(f"shared traces {COMPUTE_TRACE} and {ANALYSIS_TRACE} not found under {TRACES}")
    # One cell of the quick grid (proportion 0.33, HY, seed 1), half a day: 251 holds on
    # compute, 58 yields and 6 try-starts on analysis. The whole quick grid is compared
    # in docs/coupled-network.md (a 20-minute run, too slow for a test).
    params = {"study": "proportion", "load": 0.5, "proportion": 0.33, "scheme": "HY"}
    params["span"] = 43200.0
    traces = {name: str(TRACES / name) for name in (COMPUTE_TRACE, ANALYSIS_TRACE)}
    local = run_cell(params, 1, CellEnv(traces=traces))
    tcp = run_cell(params, 1, CellEnv(traces=traces, transport="tcp"))
    assert local["outcome"] == "ok" and local["compute.holds"] > 0
    assert json.dumps(local, sort_keys=True) == json.dumps(tcp, sort_keys=True)


def test_numbers_round_trip_exactly() -> None:
    from cosched.coupled.wire import decode, frame_table, read_table

    xs = [0.1, 1e-300, float("inf"), 2.0**53 + 1, 1 / 3]
    msg = decode(b"k" * 32, encode(b"k" * 32, "A", {"id": 1, "xs": xs}, to="B", run="r"))
    assert msg.body["xs"] == xs
    df = pd.DataFrame({"a": np.array(xs), "b": np.arange(5), "c": [True, False] * 2 + [True]})
    pd.testing.assert_frame_equal(read_table(frame_table(df)), df, check_exact=True)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coupled.toml"


def test_cli_coupled_run_tcp_equals_local(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cosched.cli.main import main

    out = {}
    for transport in ("local", "tcp"):
        path = tmp_path / f"{transport}.json"
        code = main(["coupled", "run", str(EXAMPLE), "--transport", transport, "--json", str(path)])
        assert code == 0
        out[transport] = json.loads(path.read_text())
    assert out["local"]["machines"] == out["tcp"]["machines"]
    assert out["tcp"]["faults"] == [] and out["tcp"]["stats"]["driver_messages"] > 0
    printed = capsys.readouterr().out
    assert printed.count("compute: jobs 120") == 2


def test_cli_bad_input_is_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cosched.cli.main import main

    bad = tmp_path / "bad.toml"
    bad.write_text('[[domain]]\nname = "A"\nworkload = "bundled:example"\nprocs = 64\n')
    assert main(["coupled", "run", str(bad)]) == 2
    assert "at least two [[domain]]" in capsys.readouterr().err
    bad.write_text(EXAMPLE.read_text().replace('scheme = "hold"', 'scheme = "wait"'))
    assert main(["coupled", "run", str(bad)]) == 2
    assert "scheme" in capsys.readouterr().err
    assert main(["coupled", "run", str(EXAMPLE), "--timeout", "0"]) == 2
    assert (
        main(["reproduce", "lomarc", "--quick", "--out", str(tmp_path), "--transport", "tcp"]) == 2
    )
    assert "coupled only" in capsys.readouterr().err
