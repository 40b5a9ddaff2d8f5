"""A streamed run (jobs loaded a chunk at a time, finished ones handed out) gives the
in-memory run's outcome table row for row, and keeps only the jobs in the system."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.engine import Simulation
from cosched.engine.decisions import Hold
from cosched.errors import ConfigError, PolicyDecisionError, WorkloadFormatError
from cosched.platform import Platform
from cosched.policies.base import Policy, make_policy
from cosched.workload.loader import load_workload
from cosched.workload.models import generate_lublin
from cosched.workload.stream import stream_workload
from cosched.workload.swf_write import write_swf

JOBS = 6000


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    w = generate_lublin(JOBS, nodes=64, rng=np.random.default_rng(7), load=0.85)
    # Requests above the run times, as real users give, so backfilling has holes.
    t = w.table.assign(requested_time=np.ceil(w.table["run_time"].to_numpy() * 1.7))
    path = tmp_path_factory.mktemp("feed") / "lublin.swf"
    write_swf(w.replace_table(t), path)
    return path


def _streamed(path: Path, platform: Platform, policy: str, **kw: object) -> tuple:  # type: ignore[type-arg]
    parts: list[pd.DataFrame] = []
    stream = stream_workload(path, block_bytes=16 * 1024)
    sim = Simulation(stream, platform, make_policy(policy), sink=parts.append, **kw)  # type: ignore[arg-type]
    result = sim.run()
    return pd.concat(parts, ignore_index=True), result, sim, stream


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("estimates", ["requested", "exact"])
def test_streamed_outcomes_equal_the_in_memory_run(
    trace: Path, policy: str, estimates: str
) -> None:
    platform = Platform(nodes=64)
    w = load_workload(trace)
    whole = Simulation(w, platform, make_policy(policy), estimates=estimates).run()  # type: ignore[arg-type]
    jobs, result, sim, stream = _streamed(trace, platform, policy, estimates=estimates)
    pd.testing.assert_frame_equal(jobs, whole.jobs)
    assert result.stats == whole.stats and result.jobs.empty
    assert stream.notes == w.notes
    # Only the jobs in the system were held: far fewer than the trace's.
    assert sim._feed is not None and sim._feed.peak_in_system < JOBS / 3
    assert not sim._jobs and not sim._start  # every finished job was forgotten


def test_a_job_submitted_before_an_earlier_chunk_is_refused_by_line(tmp_path: Path) -> None:
    # Ids grow; submit times grow except the last job's, which goes back to 5.
    submits = [*range(100, 100 + 10 * 399, 10), 5]
    lines = [
        f"{k + 1} {t} -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1" for k, t in enumerate(submits)
    ]
    path = tmp_path / "unsorted.swf"
    path.write_text("; MaxProcs: 16\n" + "\n".join(lines) + "\n")
    stream = stream_workload(path, block_bytes=2048)
    with pytest.raises(WorkloadFormatError, match="sorted by submit time") as err:
        Simulation(stream, Platform(nodes=16), make_policy("fcfs"), sink=print).run()
    assert err.value.line == 401 and err.value.field == "submit_time"
    # Within one block the stream sorts, as a loaded workload does.
    jobs: list[pd.DataFrame] = []
    stream = stream_workload(path)
    Simulation(stream, Platform(nodes=16), make_policy("fcfs"), sink=jobs.append).run()
    assert pd.concat(jobs)["job_id"].iloc[0] == 400


def test_a_shared_platform_and_holds_are_refused(trace: Path) -> None:
    with pytest.raises(ConfigError, match="streamed run needs a platform that counts"):
        Simulation(
            stream_workload(trace), Platform(nodes=64, mpl=2), make_policy("fcfs"), sink=print
        )

    class Holder(Policy, register=False):
        name = "holder"

        def schedule(self, view):  # type: ignore[no-untyped-def]
            return [Hold(job) for job in list(view.queue)[:1]]

    sim = Simulation(stream_workload(trace), Platform(nodes=64), Holder(), sink=print)
    with pytest.raises(PolicyDecisionError, match="not supported in a streamed run"):
        sim.run()


def test_a_stream_needs_a_sink(trace: Path) -> None:
    with pytest.raises(ConfigError, match="needs a sink"):
        Simulation(stream_workload(trace), Platform(nodes=64), make_policy("fcfs"))
