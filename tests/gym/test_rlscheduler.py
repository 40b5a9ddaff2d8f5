"""RLScheduler's published baselines on Lublin-1, under its semantics
(benchmarks/rlscheduler_baselines.py says where the figures come from)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the environments need gymnasium (cosched[gym])")

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT.parent / "shared" / "traces" / "lublin_256.swf.gz"


def _script() -> ModuleType:
    path = ROOT / "benchmarks" / "rlscheduler_baselines.py"
    spec = importlib.util.spec_from_file_location("rlscheduler_baselines", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # for the script's dataclasses
    spec.loader.exec_module(module)
    return module


def test_the_legacy_gym_seeding_is_a_hash_of_the_seed() -> None:
    # gym < 0.22: RandomState seeded with the 32-bit words of the first 8 bytes of
    # SHA-512("1"), least significant first.
    import hashlib

    digest = hashlib.sha512(b"1").digest()[:8]
    words = [int.from_bytes(digest[:4], "little"), int.from_bytes(digest[4:], "little")]
    want = np.random.RandomState(words).randint(0, 2**31, size=5)
    got = _script().legacy_gym_random(1).randint(0, 2**31, size=5)
    assert got.tolist() == want.tolist()


#: The cells reproduced to the published two decimals (docs/gym.md explains the others).
EXACT = [("none", column) for column in ("FCFS", "WFP3", "UNI", "SJF", "F1")] + [
    ("rlscheduler", "SJF")
]


@pytest.mark.slow
@pytest.mark.traces
@pytest.mark.skipif(not TRACE.is_file(), reason="needs lublin_256.swf.gz in ../shared/traces")
@pytest.mark.parametrize(("backfill", "column"), EXACT)
def test_the_published_lublin_1_figure_is_reproduced(backfill: str, column: str) -> None:
    from cosched.gym.batch import BatchEnv
    from cosched.workload.loader import LoadRules

    script = _script()
    row = script.ROWS["Lublin-1"]
    rules = LoadRules(procs_field="max", overrun="keep")
    env = BatchEnv(str(TRACE), jobs=1024, slots=1024, procs=256, rules=rules, backfill=backfill)
    first = script.starts(len(env.workload))
    values = script.mean_bsld(env, script.COLUMNS[column], first)
    published = dict(zip(script.COLUMNS, row.published[backfill], strict=True))[column]
    # The README's table gives two decimals.
    assert float(np.mean(values)) == pytest.approx(published, abs=0.005)


def _reference() -> ModuleType:
    path = ROOT / "benchmarks" / "rlscheduler_reference.py"
    spec = importlib.util.spec_from_file_location("rlscheduler_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("backfill", ["none", "rlscheduler"])
def test_the_plain_reference_on_instants_gives_cosched_s_schedules(
    tmp_path: Path, seed: int, backfill: str
) -> None:
    # benchmarks/rlscheduler_reference.py, switched to cosched's clock and scan order
    # (docs/gym.md), schedules random small workloads as Batch-v0 does, job for job:
    # the rule and the scores are the same in both.
    from cosched.gym import agents
    from cosched.gym.batch import BatchEnv
    from cosched.workload.loader import LoadRules

    ref = _reference()
    rng = np.random.default_rng(seed)
    n = 40
    submit = np.cumsum(rng.integers(0, 30, n))
    run = rng.integers(1, 200, n)
    req = np.maximum(1, run + rng.integers(-20, 120, n))  # some jobs overrun
    procs = rng.integers(1, 9, n)
    lines = [
        f"{i + 1} {submit[i]} -1 {run[i]} {procs[i]} -1 -1 {procs[i]} {req[i]} "
        "-1 1 1 -1 -1 -1 -1 -1 -1"
        for i in range(n)
    ]
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 8\n; MaxNodes: 8\n" + "\n".join(lines) + "\n")
    jobs = [(i, float(submit[i]), float(run[i]), int(procs[i]), float(req[i])) for i in range(n)]
    rules = LoadRules(procs_field="max", overrun="keep")
    env = BatchEnv(str(path), jobs=None, slots=n, procs=8, rules=rules, backfill=backfill)
    for agent in ("fcfs", "sjf", "f1", "wfp3-rlscheduler", "unicep-rlscheduler"):
        sim = ref.Sim(jobs, 8, instants=True, by_index=True)
        sim.run(agent, backfill != "none")
        obs, _ = env.reset()
        done = False
        while not done:
            obs, _, done, _, _ = env.step(agents.AGENTS[agent](obs))
        assert env.result is not None
        starts = env.result.job_columns["start_time"].tolist()
        assert starts == [sim.started[i] for i in range(n)], agent
        if backfill != "none":  # and the backfilling had something to do
            plain = ref.Sim(jobs, 8, instants=True, by_index=True)
            plain.run(agent, False)
            assert plain.started != sim.started, agent
