"""How many requests a two-machine run over TCP takes, on a case counted by hand, and the
peer's ahead answer to Algorithm 1's next call.

The case: machine A (one unit, yields) has a paired job P at t=0 and eight short jobs
at t=10, 20, ..., 90 (one second each); machine B (one unit) has a job X at t=0 that
runs until t=1000, P's mate Q at t=0, and a job at t=2000. At t=0 A passes
first: it asks B about Q (one call), whose try-start pass starts X, not Q. From then
Q cannot start before X ends, so at every instant of A its pass reaches P first and
gets the same answer (Q is queuing and wider than B's free units: no pass, nothing
changed at B), P yields and the short job starts or has ended. A's instants 10, 11,
20, 21, ..., 90, 91 come before B's next event (1000) and before the last arrival
(2000): one request in all, and one call to B in it (the answer changed nothing and
nothing else reaches B: asked again, B would answer the same). At 1000 X ends, Q asks
A (one call, a try-start pass that starts P), P and Q start together and end at 1005.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from cosched.coupled import CoupledError, run_coupled, verify_sync
from cosched.coupled.coordinator import Coordinator
from cosched.coupled.protocol import LocalMember, MateStatus
from cosched.coupled.server import RemoteLink
from cosched.coupled.spec import DomainSpec
from cosched.coupled.transport import RemoteMember, run_tcp
from cosched.platform import Platform
from cosched.workload.job import Workload
from tests.coupled.test_transport import assert_same

SHORT = [10.0 * k for k in range(1, 10)]
A_ALONE = [x for t in SHORT for x in (t, t + 1)]  # each short job's arrival and end


def specs() -> list[DomainSpec]:
    a_rows = [(0.0, 1, 5.0)] + [(t, 1, 1.0) for t in SHORT]
    ta = Workload.from_jobs(a_rows).table.copy()
    ta["coupled_mate"] = [2] + [-1] * len(SHORT)  # P's mate: B's job 2
    tb = Workload.from_jobs([(0.0, 1, 1000.0), (0.0, 1, 5.0), (2000.0, 1, 1.0)]).table.copy()
    tb["coupled_mate"] = [-1, 1, -1]  # Q (job 2): A's job 1
    one = Platform.of_procs(1)
    common: dict[str, Any] = {"policy": "fcfs", "params": {}, "check": True}
    return [
        DomainSpec("A", Workload.from_table(ta), one, scheme="yield", **common),
        DomainSpec("B", Workload.from_table(tb), one, scheme="hold", **common),
    ]


def record(monkeypatch: pytest.MonkeyPatch, cls: type) -> list[tuple[str, list[float]]]:
    """Every ``run_ahead`` call on members of ``cls``: (domain, the instants it ran)."""
    calls: list[tuple[str, list[float]]] = []
    plain = cls.run_ahead

    def run_ahead(self: Any, until: float, behind: Any) -> list[float]:
        times: list[float] = plain(self, until, behind)
        calls.append((self.name, times))
        return times

    monkeypatch.setattr(cls, "run_ahead", run_ahead)
    return calls


def test_one_machines_run_of_instants_is_one_request_over_tcp(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = run_coupled([s.build() for s in specs()])
    calls = record(monkeypatch, RemoteMember)
    res = run_tcp(specs())
    assert_same(plain, res)
    verify_sync(res)
    jobs = res.results["A"].jobs
    assert jobs["start_time"].iloc[0] == 1000.0  # P started with Q when X ended
    assert (jobs["start_time"].iloc[1:].to_numpy() == SHORT).all()
    assert calls[0] == ("A", A_ALONE)  # eighteen instants, one request
    assert calls[1] == ("B", [1000.0])  # the call to A starts P: A has an event at 1005
    # A at 0, A once for its eighteen instants, B at 1000.
    assert res.stats["peer_messages"] == 3
    assert res.stats["instants"] == plain.stats["instants"]


def test_in_process_run_ahead_runs_the_same_instants(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record(monkeypatch, LocalMember)
    domains = [s.build() for s in specs()]
    coord = Coordinator(domains, batch=True)
    coord.pair("A", "B")
    assert_same(run_coupled([s.build() for s in specs()]), coord.run())
    assert calls[:2] == [("A", A_ALONE), ("B", [1000.0])]


class Script:
    """A channel that answers from a list and records the requests."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def call(self, op: str, args: dict[str, Any]) -> tuple[Any, bytes]:
        self.sent.append((op, dict(args)))
        return [self.answers.pop(0), [0.0] * 8], b""


def link(channel: Script, peers: int = 1) -> RemoteLink:
    server = SimpleNamespace(
        name="A", links=dict.fromkeys(range(peers)), domain=None, domain_down=False, down=set()
    )
    return RemoteLink(server, "B", channel)  # type: ignore[arg-type]


@pytest.mark.parametrize("status", ["queuing", "unsubmitted"])
def test_peer_tries_the_waiting_mate_with_mate_id(status: str) -> None:
    ch = Script([7, status, True, False])
    peer = link(ch)
    assert peer.mate_id(3, 7) == 7 and peer.mate_status(7) is MateStatus(status)
    assert peer.try_start_mate(7) is True  # the peer's answer, no request
    assert [op for op, _ in ch.sent] == ["mate_id"] and ch.sent[0][1]["then"] is True


def test_peer_starts_the_holding_mate_with_mate_id() -> None:
    ch = Script([7, "holding", None, False])
    peer = link(ch)
    assert peer.mate_id(3, 7) == 7 and peer.mate_status(7) is MateStatus.HOLDING
    peer.start_mate(7)
    assert [op for op, _ in ch.sent] == ["mate_id"]


def test_a_call_out_of_algorithm_1s_order_is_an_error() -> None:
    peer = link(Script([7, "queuing", False, True]))
    peer.mate_id(3, 7)
    peer.mate_status(7)
    with pytest.raises(CoupledError, match=r"start_mate for job 7 .* makes try_start for job 7"):
        peer.start_mate(7)  # the peer already tried to start job 7: not what it did


def test_with_several_peers_each_call_is_its_own_request() -> None:
    ch = Script([7, "queuing", None, True], False)
    peer = link(ch, peers=2)  # a job may have mates on two machines: another branch
    peer.mate_id(3, 7)
    assert peer.mate_status(7) is MateStatus.QUEUING
    assert peer.try_start_mate(7) is False
    assert [op for op, _ in ch.sent] == ["mate_id", "try_start"]
    assert ch.sent[0][1]["then"] is False


def test_an_answer_that_changed_nothing_is_reused_within_a_request() -> None:
    ch = Script(
        [7, "queuing", False, True], [8, "queuing", False, False], [7, "queuing", False, True]
    )
    peer = link(ch)
    for _ in range(3):  # Algorithm 1 for job 3 three times: one request
        assert peer.mate_id(3, 7) == 7 and peer.mate_status(7) is MateStatus.QUEUING
        assert peer.try_start_mate(7) is False
    assert len(ch.sent) == 1
    peer.mate_id(4, 8)  # a try-start pass ran at the peer: nothing is reused after it
    peer.try_start_mate(8)
    peer.mate_id(3, 7)
    peer.try_start_mate(7)
    assert [args["job_id"] for _, args in ch.sent] == [3, 4, 3]
    peer.begin(None)  # the next request of the driver: the peer may have moved
    ch.answers.append([7, "queuing", False, True])
    peer.mate_id(3, 7)
    peer.try_start_mate(7)
    assert len(ch.sent) == 4
