"""``--transport tcp``: each domain in its own ``cosched coupled serve`` process.

:class:`Cluster` starts one serve process per domain on the loopback address (the
shared secret goes to each on its standard input, never on the command line), sends
each its settings, workload and peers, and stops them at the end (killing what does
not stop in time). :func:`run_tcp` drives them with the same :class:`Coordinator` as
the in-process run: the coordinator is the conservative synchroniser. At every instant
it asks each domain for its next event time, advances all of them to the global
minimum with coscheduling gated, then lets the domains with an event run their passes
one at a time, in the given order; during a pass a domain calls its peers directly
(Algorithm 1's four calls), and nobody else moves. So no domain ever runs past a time
at which a peer could still send it a message, and a run over TCP makes the same
decisions, in the same order, as the in-process run. Since every call is a round trip
here, the coordinator batches them (``Coordinator(batch=True)``, with two machines
and no per-instant hook): a domain not at the instant when a pass calls it is brought
there by that call (its ``sync``), so an instant costs one request per domain with an
event, a run of instants at which one domain alone has events one request in all, and
a window of instants at which no domain can call a peer one request per domain. A
peer answering ``mate_id`` for a job with one mate also makes the call Algorithm 1
makes next (start a holding mate, or try to start a waiting one), and every peer
answer carries the peer's state for the driver. ``run_tcp(keep=True)``
leaves the processes running for the next run (an experiment's cells).

Faults: every request has a timeout. A domain that does not answer the driver in time
(dead, hung, cut off) is down from that instant: the others are told, its paired jobs'
mates start alone and holders waiting for it start (the paper's rules), and the
result's ``faults`` names the outage. A domain restarted with :meth:`Cluster.restart`
rejoins at the next instant: it replays its own trace with its links cut up to the
current time (its state before the crash is not persisted; the replay is marked
``started_alone`` for its paired jobs) and coordination resumes.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import math
import os
import secrets
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import zmq

from cosched.coupled.coordinator import (
    Coordinator,
    CoupledResult,
    Fault,
    MemberDownError,
    Outage,
)
from cosched.coupled.errors import CoupledDeadlockError, CoupledError
from cosched.coupled.remote import RemoteMember
from cosched.coupled.server import DRIVER
from cosched.coupled.spec import DomainSpec, default_links
from cosched.coupled.wire import Channel
from cosched.errors import ConfigError

__all__ = [
    "DEFAULT_TIMEOUT",
    "Cluster",
    "RemoteMember",
    "close_kept",
    "kept_cluster",
    "run_tcp",
]

log = logging.getLogger("cosched.coupled.transport")

#: Seconds a request may take before its domain counts as down.
DEFAULT_TIMEOUT = 10.0
#: Seconds a serve process may take to start and print its address.
START_TIMEOUT = 60.0
#: The serve processes' log lines start with this (their stderr goes to a log file).
READY = "cosched coupled serve:"


class Cluster:
    """The serve processes of one coupled run, on the loopback address.

    Use as a context manager: the processes are stopped (and killed if they do not
    stop within a few seconds) on exit, also when the run fails.

    Args:
        specs: the domains.
        links: linked domain pairs (default: the first domain with each other one).
        timeout: seconds per request (driver to domain, and domain to domain).
        log_dir: where each process writes ``NAME.log`` (default: a temporary folder).
        allow: the addresses the processes accept messages from.
        restarts: how many times in all a domain process that died is started again
            (it rejoins at the next instant); 0: a dead domain stays down.
    """

    def __init__(
        self,
        specs: Sequence[DomainSpec],
        *,
        links: Sequence[tuple[str, str]] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        log_dir: Path | None = None,
        allow: Sequence[str] = ("127.0.0.1",),
        restarts: int = 0,
    ) -> None:
        names = [s.name for s in specs]
        if len(set(names)) != len(names) or len(names) < 2:
            raise ConfigError(f"a coupled run needs two or more uniquely named domains: {names}")
        if not (math.isfinite(timeout) and timeout > 0):
            raise ConfigError(f"timeout must be > 0 seconds, got {timeout!r}")
        self.specs = {s.name: s for s in specs}
        self.links = tuple(links) if links is not None else default_links(names)
        for a, b in self.links:
            if a not in self.specs or b not in self.specs or a == b:
                raise ConfigError(f"link ({a!r}, {b!r}) must join two different domains")
        self.timeout = timeout
        self.pass_timeout = timeout * (len(names) + 1)
        self.secret = secrets.token_bytes(32)
        #: the run's id: every message is signed for it (each process gets ``--run``).
        self.run = secrets.token_hex(8)
        self.allow = tuple(allow)
        self._tmp: Any = None
        if log_dir is None:
            import tempfile

            self._tmp = tempfile.TemporaryDirectory(prefix="cosched-coupled-")
            log_dir = Path(self._tmp.name)
        self.log_dir = Path(log_dir)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.ctx = zmq.Context()
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.addresses: dict[str, str] = {}
        self.members: dict[str, RemoteMember] = {}
        self.restarted: set[str] = set()
        if restarts < 0:
            raise ConfigError(f"restarts must be >= 0, got {restarts}")
        self.restarts = restarts

    # -- processes ------------------------------------------------------------------------

    def __enter__(self) -> Cluster:
        try:
            for name in self.specs:
                self._launch(name, 0)
            for name in self.specs:
                self._ready(name)
            for name in self.specs:
                self.members[name] = self._member(name)
            for name in self.specs:
                self.members[name].setup(self.peers(name))
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def load(self, specs: Sequence[DomainSpec]) -> None:
        """Give the running processes new domains (same names): reuse between runs."""
        if sorted(s.name for s in specs) != sorted(self.specs):
            raise ConfigError(f"the cluster serves {sorted(self.specs)}, not these domains")
        self.specs = {s.name: s for s in specs}
        for name in self.specs:
            self.members[name].spec = self.specs[name]
            self.members[name].setup(self.peers(name))

    def peers(self, name: str) -> dict[str, str]:
        """The addresses of ``name``'s linked domains."""
        out = {}
        for a, b in self.links:
            if a == name:
                out[b] = self.addresses[b]
            elif b == name:
                out[a] = self.addresses[a]
        return out

    def _spawn(self, name: str, port: int) -> None:
        self._launch(name, port)
        self._ready(name)

    def _launch(self, name: str, port: int) -> None:
        cmd = [
            sys.executable,
            "-m",
            "cosched",
            "coupled",
            "serve",
            "--name",
            name,
            "--port",
            str(port),
            "--secret-file",
            "-",
            "--run",
            self.run,
            "--timeout",
            repr(self.timeout),
            "--log",
            str(self.log_dir / f"{name}.log"),
        ]
        for a in self.allow:
            cmd += ["--allow", a]
        proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.procs[name] = proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(self.secret.hex().encode() + b"\n")
        proc.stdin.close()

    def _ready(self, name: str) -> None:
        proc = self.procs[name]
        line = _read_line(proc, START_TIMEOUT)
        if not line.startswith(READY) or " listening on " not in line:
            proc.kill()
            proc.wait(5)
            raise CoupledError(
                f"domain {name!r} did not start (said {line!r}; see "
                f"{self.log_dir / (name + '.log')})"
            )
        self.addresses[name] = line.rsplit(" ", 1)[1]

    def _member(self, name: str) -> RemoteMember:
        ch = Channel(
            self.ctx,
            self.addresses[name],
            self.secret,
            DRIVER,
            self.timeout,
            recipient=name,
            run=self.run,
        )
        member = RemoteMember(self.specs[name], ch, self.timeout, self.pass_timeout)
        member.peers = self.members
        member.call("hello")
        return member

    def port(self, name: str) -> int:
        """The TCP port domain ``name`` serves on."""
        return int(self.addresses[name].rsplit(":", 1)[1])

    def kill(self, name: str) -> None:
        """``kill -9`` domain ``name``'s process (fault tests)."""
        proc = self.procs[name]
        proc.kill()
        proc.wait(10)

    def pause(self, name: str) -> None:
        """Stop domain ``name``'s process (SIGSTOP): a peer that hangs."""
        self.procs[name].send_signal(signal.SIGSTOP)

    def restart(self, name: str) -> None:
        """Start domain ``name`` again on its port; it rejoins at the next instant."""
        old = self.procs[name]
        if old.poll() is None:
            old.kill()
            old.wait(10)
        self._spawn(name, self.port(name))
        self.restarted.add(name)

    def rejoin(self, coord: Coordinator, t: float) -> None:
        """Bring the restarted domains back into the run (a coordinator's hook); with
        ``restarts`` left, first start again the lost domains whose process died."""
        for name in sorted(coord.lost):
            if (
                self.restarts > 0
                and name not in self.restarted
                and self.procs[name].poll() is not None
            ):
                self.restarts -= 1
                log.warning("domain %s died; starting it again", name)
                self.restart(name)
        for name in sorted(self.restarted & set(coord.lost)):
            self.restarted.discard(name)
            old = self.members[name]
            old.channel.close()
            try:
                member = self._member(name)
                member.setup(self.peers(name))
                member.catch_up(t)
                member.refresh()
            except MemberDownError as exc:
                log.warning("restarted domain %s did not rejoin: %s", name, exc)
                continue
            self.members[name] = member
            coord.rejoin(name, member)

    def messages(self) -> int:
        """Requests the driver sent so far."""
        return sum(m.channel.sent for m in self.members.values())

    def close(self) -> None:
        """Stop every process: ask, wait a little, then kill; close the sockets."""
        for name, proc in self.procs.items():
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    proc.send_signal(signal.SIGCONT)
                m = self.members.get(name)
                if m is not None:
                    with contextlib.suppress(CoupledError):
                        m.channel.call("stop", timeout=1.0)
        deadline = time.monotonic() + 5.0
        for proc in self.procs.values():
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
            if proc.stdout is not None:
                proc.stdout.close()
        for m in self.members.values():
            m.channel.close()
        self.ctx.term()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def logs(self) -> dict[str, str]:
        """Each process's log so far."""
        out = {}
        for name in self.specs:
            p = self.log_dir / f"{name}.log"
            out[name] = p.read_text() if p.exists() else ""
        return out


def _read_line(proc: subprocess.Popen[bytes], timeout: float) -> str:
    """The first line ``proc`` prints, waiting at most ``timeout`` seconds."""
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buf = b""
    deadline = time.monotonic() + timeout
    try:
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                return buf.decode(errors="replace") + " (timed out)"
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            buf += chunk
    finally:
        sel.close()
    return buf.split(b"\n", 1)[0].decode(errors="replace")


def run_tcp(
    specs: Sequence[DomainSpec],
    *,
    links: Sequence[tuple[str, str]] | None = None,
    outages: Sequence[Outage] = (),
    timeout: float = DEFAULT_TIMEOUT,
    on_instant: Callable[[Cluster, Coordinator, float], None] | None = None,
    log_dir: Path | None = None,
    cluster: Cluster | None = None,
    restarts: int = 0,
    keep: bool = False,
) -> CoupledResult:
    """Run the domains as serve processes on the loopback address.

    Args:
        specs: the domains, in the order their passes run at an instant.
        links: linked pairs (default: the first domain with each other one).
        outages: planned periods during which a domain is unreachable.
        timeout: seconds per request.
        on_instant: called after each instant with the cluster, the coordinator and the
            time (fault tests kill and restart domains from here).
        log_dir: where the processes' logs go (default: a temporary folder).
        cluster: running processes to reuse (their links and timeout stay); default:
            start new ones and stop them at the end.
        restarts: how many times a domain process that died is started again.
        keep: leave the processes running for the next call with the same domain
            names, links and timeout (see :func:`kept_cluster`): an experiment's cells
            then pay the processes' start once, not per cell.
    """
    if cluster is not None:
        cluster.load(specs)
        return _drive(cluster, specs, outages, on_instant)
    if keep:
        return _drive_kept(specs, links, outages, timeout, on_instant)
    with Cluster(specs, links=links, timeout=timeout, log_dir=log_dir, restarts=restarts) as own:
        return _drive(own, specs, outages, on_instant)


#: Clusters kept running between runs (see :func:`kept_cluster`), by domain names,
#: links and timeout.
_KEPT: dict[tuple[Any, ...], Cluster] = {}


def kept_cluster(
    specs: Sequence[DomainSpec],
    links: Sequence[tuple[str, str]] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[Cluster, bool]:
    """A running cluster for these domains, kept for later runs; and whether it was
    started just now (already set up with ``specs``).

    A kept cluster whose processes are not all alive is stopped and replaced. Every
    kept cluster is stopped when this process exits (:func:`close_kept`), and each of
    its serve processes exits by itself after ``--idle-timeout`` without a request.
    """
    names = tuple(s.name for s in specs)
    key = (names, tuple(links) if links is not None else default_links(list(names)), timeout)
    kept = _KEPT.pop(key, None)
    if kept is not None:
        if all(p.poll() is None for p in kept.procs.values()):
            _KEPT[key] = kept
            return kept, False
        kept.close()
    if not _KEPT:
        atexit.unregister(close_kept)  # registered once, whatever came before
        atexit.register(close_kept)
    fresh = Cluster(specs, links=links, timeout=timeout).__enter__()
    _KEPT[key] = fresh
    return fresh, True


def close_kept() -> None:
    """Stop every kept cluster."""
    while _KEPT:
        _, cluster = _KEPT.popitem()
        cluster.close()


def _drive_kept(
    specs: Sequence[DomainSpec],
    links: Sequence[tuple[str, str]] | None,
    outages: Sequence[Outage],
    timeout: float,
    on_instant: Callable[[Cluster, Coordinator, float], None] | None,
) -> CoupledResult:
    """:func:`_drive` on a kept cluster; one that lost a domain or failed (a deadlock
    aside: a result of the schedule, not of the processes) is stopped."""
    cluster, fresh = kept_cluster(specs, links, timeout)
    ok = False
    try:
        if not fresh:
            cluster.load(specs)
        res = _drive(cluster, specs, outages, on_instant)
        ok = not res.faults
        return res
    except CoupledDeadlockError:
        ok = True
        raise
    finally:
        if not ok:
            for key, kept in list(_KEPT.items()):
                if kept is cluster:
                    del _KEPT[key]
            cluster.close()


def _drive(
    cluster: Cluster,
    specs: Sequence[DomainSpec],
    outages: Sequence[Outage],
    on_instant: Callable[[Cluster, Coordinator, float], None] | None,
) -> CoupledResult:
    def hook(coord: Coordinator, t: float) -> None:
        if on_instant is not None:
            on_instant(cluster, coord, t)
        cluster.rejoin(coord, t)

    sent = cluster.messages()
    members = [cluster.members[s.name] for s in specs]
    # Per-instant hooks (fault tests) see every instant: no windows then. Batching is
    # for two machines, the paper's case: with three or more, a third machine's calls
    # can reach a peer between two of a pass's calls, which the batched steps do not
    # order as one process would (tests/coupled/test_nway.py).
    batch = on_instant is None and len(members) == 2
    coord = Coordinator(members, outages=outages, on_instant=hook, batch=batch)
    for a, b in cluster.links:
        coord.linked(a, b)
    res = coord.run()
    faults = list(res.faults)
    peer_calls = refused = 0
    for m in cluster.members.values():
        for f in m.meta.get("faults", []):
            faults.append(
                Fault(event="timeout", domain=m.name, time=float(f["time"]), why=str(f["why"]))
            )
        peer_calls += int(m.meta.get("peer_calls", 0))
        refused += sum(int(n) for n in m.meta.get("refused", {}).values())
        m.meta = {}
    stats = {
        **res.stats,
        "driver_messages": cluster.messages() - sent,
        "peer_messages": peer_calls,
        "refused_messages": refused,
    }
    return CoupledResult(res.results, res.capacities, res.links, stats, tuple(faults))
