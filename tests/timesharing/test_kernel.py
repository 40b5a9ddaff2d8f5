"""The one source of the model: compiled and interpreted runs agree; heap and checks."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from cosched.errors import InvariantError
from cosched.timesharing import TSParams, jobs_table, simulate
from cosched.timesharing import kernel as K
from cosched.timesharing.engine import TimeSharingSim
from tests.strategies import TS_NODES
from tests.timesharing import recorded
from tests.timesharing.hand import interpreted

NODES = TS_NODES


def assert_identical(a, b) -> None:
    pd.testing.assert_frame_equal(a.jobs, b.jobs, check_dtype=False, check_exact=True)
    pd.testing.assert_frame_equal(a.nodes, b.nodes, check_dtype=False, check_exact=True)
    pd.testing.assert_frame_equal(a.procs, b.procs, check_dtype=False, check_exact=True)
    assert a.end_time == b.end_time
    assert a.events == b.events
    assert a.messages_sent == b.messages_sent
    assert a.messages_received == b.messages_received
    assert a.unfinished == b.unfinished
    assert a.window == b.window
    assert a.window_compute == b.window_compute


def test_skew_draws_are_uniform_and_reproducible() -> None:
    draws = [K.skew_unit(12345, 0, k) for k in range(20_000)]
    assert min(draws) >= 0.0 and max(draws) < 1.0
    assert abs(float(np.mean(draws)) - 0.5) < 0.01
    assert K.skew_unit(12345, 3, 7) == K.skew_unit(12345, 3, 7)
    assert K.skew_unit(12345, 3, 7) != K.skew_unit(12345, 4, 7)


def test_the_same_source_interpreted_gives_the_same_bits() -> None:
    # NUMBA_DISABLE_JIT=1 runs the kernel's functions as plain Python (the way to step
    # through the model in a debugger): one recorded case per scheme, in a fresh
    # process, must give the recorded fingerprints.
    names = [c["name"] for c in recorded.cases() if c["name"].endswith(("list1", "list7"))]
    names += [c["name"] for c in recorded.cases() if c["kind"] == "list" and c["k"] % 5 == 4]
    code = (
        "import json, sys\n"
        "from tests.timesharing import recorded as R\n"
        "want = set(json.loads(sys.argv[1]))\n"
        "out = {c['name']: R.run_case(c) for c in R.cases() if c['name'] in want}\n"
        "print(json.dumps(out))\n"
    )
    got = json.loads(interpreted(code, names, timeout=600))
    rec = json.loads(recorded.PATH.read_text())
    assert sorted(got) == sorted(names) and len(names) >= 10
    for name in names:
        assert got[name] == rec[name], name


def test_heap_growth_resumes_exactly() -> None:
    # A tiny initial heap and message FIFO force several grow-and-resume cycles mid-run.
    w = jobs_table([(0.0, 0.1, 4, 1), (0.0, 0.1, 4, 5), (0.01, 0.05, 2, 3)], skew=0.2)
    kw = dict(scheme="PB", nodes=NODES, mpl=3, params=TSParams(msg_size=4096.0))
    ref = simulate(w, rng=np.random.default_rng(1), **kw)
    sim = TimeSharingSim(w, rng=np.random.default_rng(1), **kw)
    cap = sim.margin + 2
    st = sim.state
    sim.state = st._replace(
        HT=st.HT[:cap].copy(), HI=st.HI[:cap].copy(), MT=st.MT[:2].copy(), MI=st.MI[:2].copy()
    )
    grown = []
    orig = sim._grow

    def spy() -> None:
        grown.append(1)
        orig()

    sim._grow = spy  # type: ignore[method-assign]
    assert_identical(ref, sim.run())
    assert grown


def test_message_fifo_compaction_resumes_exactly() -> None:
    # A FIFO of 8 slots with a margin of 2: the live messages are moved to the front
    # when the tail reaches the end (6 times in this run, counted once with
    # NUMBA_DISABLE_JIT=1), and the FIFO grows when 2 slots are not free.
    w = jobs_table([(0.0, 0.05, 8, 1), (0.0, 0.05, 8, 5), (0.01, 0.03, 6, 3)], skew=0.2)
    kw = dict(scheme="PB", nodes=8, mpl=3, params=TSParams(msg_size=4096.0))
    ref = simulate(w, rng=np.random.default_rng(4), **kw)
    sim = TimeSharingSim(w, rng=np.random.default_rng(4), **kw)
    sim.margin = 2
    sim.state = sim.state._replace(MT=sim.state.MT[:8].copy(), MI=sim.state.MI[:8].copy())
    assert_identical(ref, sim.run())


def test_heap_overflow_is_an_error_not_a_corruption() -> None:
    w = jobs_table([(0.0, 0.1, 4, 1), (0.0, 0.1, 4, 5)], skew=0.2)
    sim = TimeSharingSim(w, scheme="PB", nodes=NODES, mpl=3, rng=np.random.default_rng(1))
    st = sim.state
    sim.state = st._replace(
        HT=st.HT[:3].copy(), HI=st.HI[:3].copy(), MT=st.MT[:3].copy(), MI=st.MI[:3].copy()
    )
    sim.margin = 0  # a wrong margin: the kernel must stop, not write past the heap
    with pytest.raises(InvariantError, match="overflow"):
        sim.run()


def test_check_mode_catches_two_running_processes() -> None:
    w = jobs_table([(0.0, 0.1, 1, 1), (0.0, 0.1, 1, 2)])
    sim = TimeSharingSim(w, scheme="SB", nodes=1, mpl=2, rng=np.random.default_rng(0), check=True)
    sim.run(horizon=0.01)  # both processes on node 0, one running
    procs = [int(sim.state.I[0, K.N_PL + k]) for k in range(2)]
    idle = next(p for p in procs if p != int(sim.state.I[0, K.N_CUR]))
    sim.state.I[idle, K.P_STATE] = K.RUNNING  # corrupt: a second running process
    with pytest.raises(InvariantError, match="node 0"):
        sim.run(horizon=0.02)


def test_per_process_counters_add_up_to_the_node_accounts() -> None:
    w = jobs_table([(0.0, 0.1, 4, 1), (0.0, 0.1, 3, 5), (0.01, 0.05, 2, 2)], skew=0.5)
    r = simulate(w, scheme="PB-SB", nodes=NODES, mpl=3, rng=np.random.default_rng(3))
    p = r.procs
    assert len(p) == 4 + 3 + 2 and sorted(p["job_id"].unique()) == [1, 2, 3]
    by_node = p.groupby("node")[["compute", "spin", "io"]].sum()
    nodes = r.nodes.set_index("node")
    for c, nc in (("compute", "compute"), ("spin", "spin"), ("io", "io_wait")):
        assert np.allclose(by_node[c], nodes.loc[by_node.index, nc], rtol=1e-9, atol=1e-12)
    assert int(p["sent"].sum()) == r.messages_sent == int(p["received"].sum())
    assert (p["switches"] >= 1).all()  # every process was switched in at least once
