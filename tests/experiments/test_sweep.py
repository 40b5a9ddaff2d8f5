"""Tests of declarative sweeps: grid expansion, keys, the store, resume and errors."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.errors import ConfigError
from cosched.experiments import SweepError, cells, load_spec, run_sweep, spec_from_dict
from cosched.experiments import sweep as sweep_mod
from cosched.experiments.store import Store

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_TOML = REPO / "examples" / "sweep-example.toml"


def small_spec(**changes: Any) -> dict[str, Any]:
    """A quick sweep: 40 Lublin jobs on 16 nodes, fcfs and easy(window) x 2 seeds."""
    spec: dict[str, Any] = {
        "name": "small",
        "workloads": [{"kind": "lublin", "name": "lub", "jobs": 40, "nodes": 16, "load": 0.8}],
        "policies": [
            {"name": "fcfs"},
            {"name": "easy", "params": {"window": ["none", 2]}},
        ],
        "seeds": [1, 2],
    }
    spec.update(changes)
    return spec


def count_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the key of every cell that is executed (in-process runs only)."""
    ran: list[str] = []
    real = sweep_mod._execute

    def counting(cell: sweep_mod.Cell) -> Any:
        ran.append(cell.key)
        return real(cell)

    monkeypatch.setattr(sweep_mod, "_execute", counting)
    return ran


def test_grid_expands_in_order() -> None:
    spec = spec_from_dict(
        small_spec(
            policies=[
                {"name": "fcfs"},
                {"name": "easy", "params": {"window": ["none", 2, 8], "order": ["submit", "sjf"]}},
            ]
        )
    )
    grid = cells(spec)
    assert len(grid) == (1 + 3 * 2) * 2
    assert [c.index for c in grid] == list(range(len(grid)))
    assert [c.label for c in grid[:4]] == [
        "lub/fcfs()/seed=1",
        "lub/fcfs()/seed=2",
        "lub/easy(order=submit,window=None)/seed=1",
        "lub/easy(order=submit,window=None)/seed=2",
    ]
    assert grid[-1].label == "lub/easy(order=sjf,window=8)/seed=2"
    assert len({c.key for c in grid}) == len(grid)
    assert len({c.cell_seed for c in grid}) == len(grid)
    # Every policy sees the same generated jobs for a given seed.
    assert len({c.workload_seed for c in grid if c.seed == 1}) == 1


def test_keys_are_stable_and_independent_of_position() -> None:
    base = {c.label: (c.key, c.cell_seed) for c in cells(spec_from_dict(small_spec()))}
    again = {c.label: (c.key, c.cell_seed) for c in cells(spec_from_dict(small_spec()))}
    assert base == again
    bigger = small_spec(
        seeds=[0, 1, 2], policies=[{"name": "conservative"}, *small_spec()["policies"]]
    )
    grown = {c.label: (c.key, c.cell_seed) for c in cells(spec_from_dict(bigger))}
    assert len(grown) == 3 * 4
    assert all(grown[label] == value for label, value in base.items())


def test_store_layout_and_results(tmp_path: Path) -> None:
    spec = spec_from_dict(small_spec())
    seen: list[tuple[int, int]] = []
    table = run_sweep(spec, tmp_path, progress=lambda done, total: seen.append((done, total)))
    grid = cells(spec)
    assert seen == [(i, 6) for i in range(7)]
    assert list(table["key"]) == sorted(c.key for c in grid)
    assert (table["status"] == "ok").all() and (table["jobs"] == 40).all()
    windows = dict(zip(table["key"], table["param_window"], strict=True))
    for c in grid:
        want = dict(c.params).get("window")
        assert pd.isna(windows[c.key]) if want is None else windows[c.key] == want
    (record,) = pd.read_parquet(tmp_path / "cells" / f"{grid[0].key}.parquet").to_dict("records")
    assert record["policy"] == "fcfs" and record["jobs"] == 40 and record["seed"] == 1
    assert record["stats.passes"] > 0
    jobs = pd.read_parquet(tmp_path / "jobs" / f"{grid[0].key}.parquet")
    assert len(jobs) == 40 and "start_time" in jobs
    stored = pd.read_parquet(tmp_path / "results.parquet")
    assert stored["key"].tolist() == table["key"].tolist()
    assert (tmp_path / "report.md").is_file() and (tmp_path / "report.html").is_file()
    assert not list(tmp_path.rglob("*.tmp"))


def test_rerun_skips_finished_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran = count_runs(monkeypatch)
    run_sweep(spec_from_dict(small_spec()), tmp_path)
    assert len(ran) == 6
    first = (tmp_path / "results.parquet").read_bytes()
    run_sweep(spec_from_dict(small_spec()), tmp_path)
    assert len(ran) == 6  # nothing ran again
    assert (tmp_path / "results.parquet").read_bytes() == first
    run_sweep(spec_from_dict(small_spec(seeds=[1, 2, 3])), tmp_path)
    assert len(ran) == 9  # only the new seed's cells


def test_failed_cell_is_recorded_and_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = sweep_mod.simulate

    def flaky(*args: Any, **kwargs: Any) -> Any:
        if getattr(args[2], "window", None) == 2:
            raise RuntimeError("boom in this cell")
        return real(*args, **kwargs)

    monkeypatch.setattr(sweep_mod, "simulate", flaky)
    spec = spec_from_dict(small_spec())
    with pytest.raises(SweepError, match="2 of 6 sweep cells failed") as info:
        run_sweep(spec, tmp_path)
    bad = [c for c in cells(spec) if dict(c.params).get("window") == 2]
    assert [key for key, _, _ in info.value.failed] == sorted(c.key for c in bad)
    assert "boom in this cell" in info.value.failed[0][2]
    assert len(list((tmp_path / "cells").glob("*.parquet"))) == 4  # the others are kept
    failed = pd.read_parquet(tmp_path / "failed" / f"{bad[0].key}.parquet").iloc[0]
    assert failed["error"] == "RuntimeError: boom in this cell" and failed["status"] == "failed"
    assert "Traceback" in Store(tmp_path).info(bad[0].key)["traceback"]
    table = run_sweep(spec, tmp_path, raise_on_failure=False)
    assert list(table["status"]).count("failed") == 2
    monkeypatch.setattr(sweep_mod, "simulate", real)
    ran = count_runs(monkeypatch)
    table = run_sweep(spec, tmp_path)
    assert sorted(ran) == sorted(c.key for c in bad)
    assert (table["status"] == "ok").all() and not list((tmp_path / "failed").iterdir())


def test_interrupted_sweep_keeps_finished_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = sweep_mod.simulate
    calls = {"n": 0}

    def interrupt_third(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(sweep_mod, "simulate", interrupt_third)
    spec = spec_from_dict(small_spec())
    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, tmp_path)
    grid = cells(spec)
    assert sorted(p.stem for p in (tmp_path / "cells").glob("*.parquet")) == sorted(
        c.key for c in grid[:2]
    )
    assert len(list((tmp_path / "jobs").glob("*.parquet"))) == 2
    assert not list(tmp_path.rglob("*.tmp"))
    monkeypatch.setattr(sweep_mod, "simulate", real)
    ran = count_runs(monkeypatch)
    run_sweep(spec, tmp_path)
    assert ran == [c.key for c in grid[2:]]


def test_results_identical_across_workers_and_runs(tmp_path: Path) -> None:
    spec = spec_from_dict(small_spec())
    run_sweep(spec, tmp_path / "one", workers=1)
    run_sweep(spec, tmp_path / "two", workers=2)
    one = (tmp_path / "one" / "results.parquet").read_bytes()
    assert (tmp_path / "two" / "results.parquet").read_bytes() == one
    shutil.rmtree(tmp_path / "one" / "cells")
    run_sweep(spec, tmp_path / "one", workers=1)  # a fresh run into the same folder
    assert (tmp_path / "one" / "results.parquet").read_bytes() == one


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


GOOD = """
seeds = [1]
[[workloads]]
path = "bundled:example"
limit = 50
[[policies]]
name = "fcfs"
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour = 'red'\n" + GOOD, "unknown key 'colour' in the top level"),
        (GOOD.replace("limit = 50", "limt = 50"), r"unknown key 'limt' in workloads\[0\]"),
        (GOOD + "[platform]\nnodes = 64\nsockets = 2\n", r"unknown key 'sockets' in \[platform\]"),
        (GOOD.replace('"fcfs"', '"fcfss"'), "unknown policy 'fcfss'; did you mean fcfs"),
        (GOOD + "params = { window = 3 }\n", "has no parameter 'window'"),
        (GOOD + "params = { order = ['submit', 'random'] }\n", "'order' must be one of"),
        (GOOD.replace("bundled:example", "traces/nope.swf"), "trace 'traces/nope.swf' not found"),
        (GOOD.replace("bundled:example", "bundled:nope"), "no bundled trace 'nope'"),
        (GOOD.replace("seeds = [1]", "seeds = [1, 1]"), "'seeds' repeats a value"),
        (GOOD.replace("limit = 50", "too_wide = 'shrink'"), "too_wide must be one of"),
        ("estimates = 'guess'\n" + GOOD, "'estimates' must be 'requested' or 'exact'"),
        ("seeds = [\n", "not valid TOML"),
    ],
)
def test_bad_specs_name_the_key_and_file(tmp_path: Path, text: str, message: str) -> None:
    path = write_toml(tmp_path, text)
    with pytest.raises(ConfigError, match=message) as info:
        load_spec(path)
    assert str(path) in str(info.value)


def test_duplicate_cells_and_workload_names_are_rejected() -> None:
    twice = small_spec(policies=[{"name": "fcfs"}, {"name": "fcfs"}])
    with pytest.raises(ConfigError, match="twice"):
        spec_from_dict(twice)
    lub = small_spec()["workloads"][0]
    with pytest.raises(ConfigError, match="two workloads are named 'lub'"):
        spec_from_dict(small_spec(workloads=[lub, lub]))
    with pytest.raises(ConfigError, match="at most one of 'alpha' and 'load'"):
        spec_from_dict(small_spec(workloads=[{**lub, "alpha": 10.0}]))


def test_relative_trace_path_and_platform_from_header(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    shutil.copy(REPO / "src" / "cosched" / "data" / "example.swf", tmp_path / "traces" / "t.swf")
    path = write_toml(tmp_path, GOOD.replace("bundled:example", "traces/t.swf"))
    spec = load_spec(path)
    assert spec.workloads[0].name == "t" and spec.platform is None
    table = run_sweep(spec, tmp_path / "out")
    assert list(table["platform"]) == ["64 nodes x 1 core (cores)"]
    assert list(table["jobs"]) == [50]


def test_example_spec_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = load_spec(EXAMPLE_TOML)
    assert len(cells(spec)) == (1 + 3 + 1) * 2
    assert main(["sweep", str(EXAMPLE_TOML), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "conservative" in out and "mean_wait" in out
    assert len(pd.read_parquet(tmp_path / "results.parquet")) == 10


def test_failing_cells_in_workers_are_recorded(tmp_path: Path) -> None:
    # A 16-processor machine is too small for the example trace: every cell fails in
    # its worker (WorkloadError from the loader), and the report says why.
    text = GOOD.replace("limit = 50", "") + "[platform]\nnodes = 16\n"
    spec = load_spec(write_toml(tmp_path, text.replace("seeds = [1]", "seeds = [1, 2]")))
    with pytest.raises(SweepError) as info:
        run_sweep(spec, tmp_path / "out", workers=2)
    assert len(info.value.failed) == 2
    assert all("WorkloadError" in error for _, _, error in info.value.failed)
    assert len(list((tmp_path / "out" / "failed").glob("*.parquet"))) == 2
    assert not list((tmp_path / "out" / "cells").glob("*.parquet"))


def test_a_trace_draws_the_same_streams_wherever_it_lies(tmp_path: Path) -> None:
    # compare names its trace by the absolute path: the same log in two folders must
    # draw the same profiles (seeds), while the store keys still tell the files apart.
    seeds = {}
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        trace = tmp_path / folder / "t.swf"
        shutil.copy(REPO / "src" / "cosched" / "data" / "example.swf", trace)
        spec = small_spec(workloads=[{"kind": "swf", "name": "t", "path": str(trace)}])
        seeds[folder] = [(c.cell_seed, c.workload_seed, c.key) for c in cells(spec_from_dict(spec))]
    assert [s[:2] for s in seeds["a"]] == [s[:2] for s in seeds["b"]]
    assert {s[2] for s in seeds["a"]}.isdisjoint(s[2] for s in seeds["b"])
    # A relative path, as a spec writes it, keeps the seed of the whole identity.
    spec = small_spec(workloads=[{"kind": "swf", "name": "t", "path": "a/t.swf"}])
    for c in cells(spec_from_dict(spec, root=tmp_path)):
        assert c.cell_seed == sweep_mod._derive_seed(c.identity())


def test_a_platforms_unavailability_is_read_and_a_bad_interval_named() -> None:
    spec = spec_from_dict(small_spec(platform={"unavailable": [[10, 20.5, 4]]}))
    assert spec.platform is not None and spec.platform.unavailable == ((10.0, 20.5, 4),)
    for bad in ([[10, 20]], [[10, 20, 1.5]], 5):
        with pytest.raises(ConfigError, match=r"\[platform\]\.unavailable"):
            spec_from_dict(small_spec(platform={"unavailable": bad}))


def test_a_platforms_partitions_are_read_and_a_bad_one_named() -> None:
    spec = spec_from_dict(small_spec(platform={"partitions": [[1, 32], [-1, 16]]}))
    assert spec.platform is not None and spec.platform.partitions == ((1.0, 32), (-1.0, 16))
    for bad in ([[1, 0]], [[1, 2.5]], [[1]], [], 5, [[1, 2], [1, 4]]):
        with pytest.raises(ConfigError, match=r"\[platform\]\.partitions"):
            spec_from_dict(small_spec(platform={"partitions": bad}))
    with pytest.raises(ConfigError, match="'unavailable' and 'partitions' cannot be given"):
        spec_from_dict(small_spec(platform={"partitions": [[1, 2]], "unavailable": [[0, 1, 1]]}))
