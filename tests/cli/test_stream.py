"""``cosched run --stream`` writes what the in-memory run writes, and refuses what it
cannot stream by name."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from cosched.cli.main import main

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "cosched" / "data" / "example.swf"


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_streamed_run_prints_and_writes_what_the_in_memory_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: str
) -> None:
    out = {}
    for mode in ("memory", "stream"):
        jobs, summary = tmp_path / f"{mode}.csv", tmp_path / f"{mode}.json"
        args = ["run", str(EXAMPLE), "--policy", policy, "--by-class"]
        args += ["--jobs-out", str(jobs), "--summary-out", str(summary)]
        assert main([*args, "--stream"] if mode == "stream" else args) == 0
        out[mode] = (capsys.readouterr().out, jobs.read_bytes(), json.loads(summary.read_text()))
    assert out["stream"][0] == out["memory"][0]
    assert out["stream"][1] == out["memory"][1]
    got, want = out["stream"][2], out["memory"][2]
    for key, value in want["metrics"].items():
        if "bounded_slowdown" in key:  # fractional: a histogram within 1e-4
            assert got["metrics"][key] == pytest.approx(value, rel=1e-4), key
        else:
            assert got["metrics"][key] == value, key
    assert {k: v for k, v in got.items() if k != "metrics"} == {
        k: v for k, v in want.items() if k != "metrics"
    }


def test_streamed_parquet_holds_the_same_table(tmp_path: Path) -> None:
    for mode in ("memory", "stream"):
        args = ["run", str(EXAMPLE), "--jobs-out", str(tmp_path / f"{mode}.parquet")]
        assert main([*args, "--stream"] if mode == "stream" else args) == 0
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "stream.parquet"), pd.read_parquet(tmp_path / "memory.parquet")
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--limit", "10"], "cannot be combined with --limit"),
        (["--jobs-format", "batsim"], "csv or parquet, not batsim"),
        (["--policy", "nodeshare-easy"], "needs per-job profiles"),
    ],
)
def test_what_cannot_be_streamed_is_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    args = ["run", str(EXAMPLE), "--stream", "--jobs-out", str(tmp_path / "j.csv"), *extra]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_a_generated_workload_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "lublin:jobs=10,nodes=8", "--stream"]) == 2
    assert "--stream reads SWF files" in capsys.readouterr().err
