"""The command line: the newcomer's commands, determinism and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from cosched.cli.main import main


def test_run_bundled_example_prints_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run"]) == 0
    out = capsys.readouterr().out
    assert "example (300 jobs)" in out
    assert "mean wait" in out


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_same_command_twice_writes_identical_files(tmp_path: Path, policy: str) -> None:
    outputs = []
    for k in range(2):
        jobs, summary = tmp_path / f"jobs{k}.csv", tmp_path / f"summary{k}.json"
        args = ["run", "--policy", policy, "--jobs-out", str(jobs), "--summary-out", str(summary)]
        assert main(args) == 0
        outputs.append((jobs.read_bytes(), summary.read_bytes()))
    assert outputs[0] == outputs[1]


def test_jobs_out_has_required_columns(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.csv"
    assert main(["run", "--policy", "fcfs", "--jobs-out", str(jobs)]) == 0
    table = pd.read_csv(jobs)
    for col in [
        "job_id",
        "submit_time",
        "start_time",
        "end_time",
        "procs",
        "run_time",
        "requested_time",
    ]:
        assert col in table.columns
    assert table["job_id"].iloc[0] == 1
    assert len(table) == 300


def test_summary_json_uses_metric_names(tmp_path: Path) -> None:
    summary = tmp_path / "s.json"
    assert main(["run", "--summary-out", str(summary)]) == 0
    metrics = json.loads(summary.read_text())["metrics"]
    for name in [
        "mean_wait",
        "median_wait",
        "mean_turnaround",
        "mean_bounded_slowdown",
        "utilization",
        "makespan",
        "throughput",
        "offered_load",
        "p90_wait",
    ]:
        assert name in metrics


def test_unknown_policy_lists_close_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--policy", "eazy"]) == 2
    assert "did you mean easy" in capsys.readouterr().err


def test_bad_parameter_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "-P", "windw=3"]) == 2
    assert "'windw'" in capsys.readouterr().err
    assert main(["run", "-P", "window=x"]) == 2
    assert "'window'" in capsys.readouterr().err


def test_malformed_trace_names_file_line_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "bad.swf"
    good = "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n"
    trace.write_text("; MaxProcs: 4\n" + good + good.replace("1 0 -1 10", "2 5 -1 ten"))
    assert main(["run", str(trace)]) == 2
    err = capsys.readouterr().err
    assert "bad.swf:3" in err and "run_time" in err


def test_too_wide_job_is_an_error_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "wide.swf"
    trace.write_text("; MaxProcs: 4\n1 0 -1 10 8 -1 -1 8 10 -1 1 1 1 -1 1 1 -1 -1\n")
    assert main(["run", str(trace)]) == 2
    assert "too-wide" in capsys.readouterr().err
    assert main(["run", str(trace), "--too-wide", "clip"]) == 0


def test_machine_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--nodes", "16", "--cores", "4", "--allocation", "nodes"]) == 0
    assert "16 nodes x 4 cores (nodes)" in capsys.readouterr().out
    assert main(["run", "--procs", "8", "--nodes", "2"]) == 2


def test_load_scaling_reaches_target(tmp_path: Path) -> None:
    summary = tmp_path / "s.json"
    assert main(["run", "--load", "0.9", "--summary-out", str(summary)]) == 0
    assert json.loads(summary.read_text())["metrics"]["offered_load"] == pytest.approx(0.9, 1e-3)


def test_policies_lists_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["policies"]) == 0
    out = capsys.readouterr().out
    assert "easy:" in out and "window" in out and "conservative:" in out


def test_trace_info_on_bundled_example(capsys: pytest.CaptureFixture[str]) -> None:
    from cosched.workload.sources import bundled_path

    assert main(["trace", "info", str(bundled_path())]) == 0
    out = capsys.readouterr().out
    assert "max_procs       64" in out and "offered load" in out


def test_annotate_an_unknown_profile_lists_every_family_s_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The profiles come from the families' declarations (Family.profiles), plus recorded.
    from cosched.workload.sources import bundled_path

    out = str(tmp_path / "out.swf")
    assert main(["annotate", "lomark", str(bundled_path()), "--seed", "1", "-o", out]) != 0
    err = capsys.readouterr().err
    assert "did you mean lomarc" in err
    assert all(p in err for p in ("coupled", "dyncosched", "lomarc", "nodeshare", "recorded"))


def test_every_flag_has_help_and_every_command_ends_with_two_examples() -> None:
    import argparse

    from cosched.cli.main import build_parser

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    walk(child, f"{name} {sub}")
            elif action.dest != "help":
                assert action.help, f"{name}: {action.dest} has no help text"
        if name != "cosched":
            lines = (parser.epilog or "").splitlines()
            assert lines and lines[0] == "examples:", f"{name}: no examples"
            assert len([x for x in lines[1:] if x.strip()]) >= 2, f"{name}: fewer than two"

    walk(build_parser(), "cosched")


def test_a_closed_output_pipe_ends_quietly() -> None:
    # `cosched policies | head -1` where head has already left: every write fails.
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "cosched", "policies"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141
    assert b"Traceback" not in done.stderr


def test_a_run_process_ends_at_once_with_every_output_complete(tmp_path: Path) -> None:
    # `python -m cosched run` ends with os._exit after flushing: the printed summary,
    # the per-job table and the summary file must all be whole, and the exit code kept.
    import subprocess
    import sys

    jobs, summary = tmp_path / "jobs.csv", tmp_path / "summary.json"
    cmd = [sys.executable, "-m", "cosched", "run", "--jobs-out", str(jobs)]
    done = subprocess.run(
        [*cmd, "--summary-out", str(summary)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().splitlines()[-1].lstrip().startswith("throughput")
    assert len(pd.read_csv(jobs)) == 300  # the bundled example's jobs
    assert json.loads(summary.read_text())["metrics"]["jobs"] == 300
    bad = subprocess.run(
        [*cmd[:-2], "--policy", "no-such-policy"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and "no-such-policy" in bad.stderr


def test_the_command_table_and_the_modules_name_the_same_commands() -> None:
    import importlib

    from cosched.cli.commands import COMMANDS, Command

    def leaves(cmd: Command, words: str = "") -> list[tuple[str, str | None]]:
        words = f"{words} {cmd.name}".strip()
        if not cmd.verbs:
            return [(words, cmd.module)]
        return [leaf for verb in cmd.verbs for leaf in leaves(verb, words)]

    table = [leaf for cmd in COMMANDS for leaf in leaves(cmd)]
    declared = [
        (words, module)
        for module in sorted({m for _, m in table if m})
        for words in importlib.import_module(f"cosched.cli.{module}").PARSERS
    ]
    assert sorted(table) == sorted(declared)
    assert len(table) == 15  # 8 commands without verbs; trace 4 verbs, coupled 2, generate 1


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "x.swf", "--policy", "fcfs", "--jobs-out", "j.csv", "-P", "window=3"],
        ["run", "x.swf", "--tz", "Europe/Berlin", "--nodes", "4", "--stream"],
        ["run"],
        ["policies", "--json"],
        ["trace", "info", "x.swf"],
        ["validate", "x.swf", "--policy", "easy"],
        ["generate", "lublin", "--nodes", "8", "--jobs", "5", "--seed", "1", "-o", "x.swf"],
        ["coupled", "run", "spec.toml"],
        ["report", "d"],
    ],
)
def test_a_command_line_parses_the_same_with_its_module_alone(argv: list[str]) -> None:
    from cosched.cli.main import build_parser

    assert vars(build_parser(argv).parse_args(argv)) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", [["run", "--help"], ["trace", "info", "--help"], ["run", "-Z"]])
def test_help_and_errors_of_a_command_are_the_same_with_its_module_alone(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    from cosched.cli.main import build_parser

    texts = []
    for parser in (build_parser(argv), build_parser()):
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
        texts.append(capsys.readouterr())
    assert texts[0] == texts[1]
    assert texts[0].out or texts[0].err


def test_log_flags_at_their_defaults_are_the_importers_defaults() -> None:
    # `cosched run` passes None for the accounting-log options when every such flag is
    # at its default (the run then does not load the importers); that must mean what
    # the flags would have given, and every flag of the group must be looked at.
    from cosched.cli.main import build_parser
    from cosched.cli.run import LOG_DEFAULTS, log_options
    from cosched.cli.traceinfo import import_opts
    from cosched.workload.importers import ImportOptions

    parser = build_parser(["run"])
    run = parser._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    group = next(g for g in run._action_groups if g.title.startswith("accounting logs"))
    assert {a.dest: a.default for a in group._group_actions} == LOG_DEFAULTS
    args = parser.parse_args(["run", "x.swf"])
    assert log_options(args) is None
    assert import_opts(args, None, None) == ImportOptions()
    berlin = parser.parse_args(["run", "x.swf", "--tz", "Europe/Berlin"])
    assert log_options(berlin) == ImportOptions(tz="Europe/Berlin")


@pytest.mark.parametrize("preset", [None, "4"])
def test_the_command_asks_openblas_for_one_thread_unless_told(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], preset: str | None
) -> None:
    # numpy's OpenBLAS spins a thread per core when it loads: the command sets the
    # variable before any numpy import, and keeps a number the user chose.
    import os

    from cosched.cli.main import BLAS_THREADS, entry

    assert BLAS_THREADS == {"OPENBLAS_NUM_THREADS": "1"}
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "restored after the test")
    if preset is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", preset)
    monkeypatch.setattr("sys.argv", ["cosched", "policies"])
    with pytest.raises(SystemExit) as done:
        entry()
    assert done.value.code == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == (preset or "1")
    capsys.readouterr()


def test_the_command_module_loads_no_numpy() -> None:
    # BLAS_THREADS works only if nothing before entry() has loaded numpy.
    import subprocess
    import sys

    code = "import sys, cosched.cli.main; print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_an_interrupted_command_ends_at_once_whatever_waits_at_exit() -> None:
    # A process pool's manager thread can be left waiting for a result that a stopped
    # worker half wrote; the interrupted command must still end, with its exit code.
    import subprocess
    import sys

    code = """
import threading
import cosched.cli.main as m
threading.Thread(target=threading.Event().wait).start()  # joined at exit: never ends
m._main = lambda argv: (m.INTERRUPTED, "sweep")
m.entry()
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.returncode == 130, done.stderr
