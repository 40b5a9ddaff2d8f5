"""``learned``: an agent run as a policy, from Python and from the command line."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.engine import simulate
from cosched.errors import ConfigError
from cosched.gym import agents
from cosched.gym.policy import LearnedPolicy
from cosched.policies import make_policy
from cosched.workload.sources import open_workload
from tests.fresh import python_out
from tests.gym.conftest import FCFS_STARTS, JOB3_FIRST_STARTS

AGENT_FILE = """
import numpy as np

def shortest(obs):
    est = np.where(obs["action_mask"] == 1, obs["jobs"][:, 1], np.inf)
    return int(np.argmin(est))

def out_of_mask(obs):
    return 5

def not_a_slot(obs):
    return "first"
"""


def _agent_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_agents.py"
    path.write_text(AGENT_FILE)
    return path


def _run(swf: Path, out: Path, *params: str) -> int:
    argv = ["run", str(swf), "--policy", "learned", "--jobs-out", str(out)]
    for p in params:
        argv += ["-P", p]
    return main(argv)


def test_an_agent_file_runs_from_the_command_line(small_swf: Path, tmp_path: Path) -> None:
    agent = f"agent={_agent_file(tmp_path)}:shortest"
    out = tmp_path / "jobs.csv"
    assert _run(small_swf, out, agent) == 0
    assert pd.read_csv(out)["start_time"].tolist() == FCFS_STARTS
    assert _run(small_swf, out, agent, "commit=event") == 0
    assert pd.read_csv(out)["start_time"].tolist() == JOB3_FIRST_STARTS
    assert _run(small_swf, out, "agent=cosched.gym.agents:fcfs", "backfill=easy") == 0
    assert pd.read_csv(out)["start_time"].tolist() == JOB3_FIRST_STARTS


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("no_such_module_xyz:act", "agent module 'no_such_module_xyz' cannot be imported"),
        ("{file}:missing", "'missing' is not a callable"),
        ("{dir}/nope.py:act", "agent file .* does not exist"),
        ("act", "must look like package.module:function"),
        ("{file}:out_of_mask", r"chose 5, outside the action mask \(allowed: 0\)"),
        ("{file}:not_a_slot", "returned 'first', not a slot"),
    ],
)
def test_bad_agents_are_one_line_errors(
    small_swf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], agent: str, message: str
) -> None:
    ref = agent.format(file=_agent_file(tmp_path), dir=tmp_path)
    assert _run(small_swf, tmp_path / "jobs.csv", f"agent={ref}") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("cosched: error: policy 'learned'")
    assert re.search(message, err), err


@pytest.mark.parametrize("commit", ["head", "event"])
@pytest.mark.parametrize("backfill", ["none", "easy", "rlscheduler"])
def test_the_policy_schedules_as_the_environment(commit: str, backfill: str) -> None:
    pytest.importorskip("gymnasium", reason="the environments need gymnasium (cosched[gym])")
    from cosched.gym.batch import BatchEnv

    for name, agent in agents.AGENTS.items():
        env = BatchEnv("bundled:example", jobs=None, commit=commit, backfill=backfill, slots=16)
        obs, _ = env.reset()
        done = False
        while not done:
            obs, _, done, _, _ = env.step(agent(obs))
        policy = LearnedPolicy(
            agent=f"cosched.gym.agents:{agent.__name__}", commit=commit, backfill=backfill, slots=16
        )  # type: ignore[call-arg]
        direct = simulate(env.workload, env.platform, policy)
        assert env.result is not None
        assert np.array_equal(
            direct.job_columns["start_time"], env.result.job_columns["start_time"]
        ), name


def test_the_heuristic_agents_are_the_classic_policies() -> None:
    w = open_workload("bundled:example")
    from cosched.testing import machine_for

    w, platform = machine_for(LearnedPolicy, w, nodes=64)

    def starts(policy: object) -> np.ndarray:
        return simulate(w, platform, policy).job_columns["start_time"]  # type: ignore[arg-type]

    learned = LearnedPolicy  # the full queue visible: K at least the workload's length
    assert np.array_equal(starts(learned(slots=300)), starts(make_policy("fcfs")))
    easy = learned(slots=300, backfill="easy")  # type: ignore[call-arg]
    assert np.array_equal(starts(easy), starts(make_policy("easy")))
    # Re-chosen at each event, shortest first is FCFS in shortest-estimate order.
    sjf = learned(agent="cosched.gym.agents:sjf", slots=300, commit="event")  # type: ignore[call-arg]
    assert np.array_equal(starts(sjf), starts(make_policy("fcfs", order="sjf")))


def test_a_callable_agent_and_pickling() -> None:
    policy = LearnedPolicy(agent=agents.sjf)  # type: ignore[arg-type]
    assert policy.params()["agent"] == "cosched.gym.agents:sjf"
    copy = pickle.loads(pickle.dumps(LearnedPolicy(agent="cosched.gym.agents:wfp3")))
    assert copy.agent == "cosched.gym.agents:wfp3"


def test_bad_parameters_are_named() -> None:
    with pytest.raises(ConfigError, match="parameter 'slots' must be an integer >= 1"):
        make_policy("learned", slots=0)
    with pytest.raises(ConfigError, match="time_scale must be a number > 0"):
        make_policy("learned", time_scale=-1.0)
    with pytest.raises(ConfigError, match="parameter 'commit' must be one of head, event"):
        make_policy("learned", commit="never")


def test_neither_cosched_nor_a_plain_run_nor_the_policy_loads_gymnasium() -> None:
    code = (
        "import sys\n"
        "import cosched\n"
        "from cosched.cli.main import main\n"
        "assert main(['run', '--policy', 'easy', '--limit', '20']) == 0\n"
        "assert main(['run', '--policy', 'learned', '--limit', '20']) == 0\n"
        "print('gymnasium' in sys.modules)\n"
    )
    out = python_out(code)
    assert out.strip().splitlines()[-1] == "False"


def test_the_policy_runs_without_gymnasium_installed() -> None:
    code = (
        "import sys\n"
        "sys.modules['gymnasium'] = None  # as if not installed: importing it fails\n"
        "from cosched.cli.main import main\n"
        "assert main(['run', '--policy', 'learned', '-P', 'agent=cosched.gym.agents:f1',"
        " '--limit', '20']) == 0\n"
    )
    python_out(code)


def test_a_streamed_run_schedules_as_one_in_memory(tmp_path: Path) -> None:
    from cosched.workload.sources import bundled_path

    starts = []
    for mode in ("never", "always"):
        out = tmp_path / f"{mode}.csv"
        params = ["-P", "backfill=easy", "-P", "agent=cosched.gym.agents:wfp3"]
        argv = ["run", str(bundled_path()), "--policy", "learned", *params]
        argv += ["--stream", mode, "--jobs-out", str(out)]
        assert main(argv) == 0
        starts.append(pd.read_csv(out)["start_time"].tolist())
    assert starts[0] == starts[1]
