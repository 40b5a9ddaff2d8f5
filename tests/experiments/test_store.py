"""A damaged store: truncated and deleted cell and job files are seen, never used.

A rerun recomputes each cell whose files fail the store's check (a warning names the
file) and gives results identical, byte for byte, to an uninterrupted run; a reader of a
damaged file gets one error naming it and the fix, never a pyarrow traceback.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from cosched.experiments import cells, run_sweep, spec_from_dict
from cosched.experiments import sweep as sweep_mod
from cosched.experiments.report import build_report
from cosched.experiments.store import Store, StoreError, read_results
from tests.experiments.test_sweep import count_runs

SPEC: dict[str, Any] = {
    "name": "damage",
    "workloads": [{"kind": "lublin", "name": "lub", "jobs": 40, "nodes": 16, "load": 0.8}],
    "policies": [{"name": "fcfs"}, {"name": "easy"}],
    "seeds": [1, 2, 3],
}


def _truncate(path: Path) -> None:
    """Cut ``path`` in half, as a full disk or a copy cut short would."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store of an uninterrupted run."""
    root = tmp_path_factory.mktemp("reference")
    run_sweep(spec_from_dict(SPEC), root, report=False)
    return root


def test_damaged_and_deleted_files_are_recomputed_with_a_warning(
    reference: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = tmp_path / "store"
    shutil.copytree(reference, store)
    keys = sorted(c.key for c in cells(spec_from_dict(SPEC)))
    assert len(keys) == 6
    _truncate(store / "cells" / f"{keys[0]}.parquet")
    _truncate(store / "jobs" / f"{keys[1]}.parquet")
    (store / "cells" / f"{keys[2]}.parquet").unlink()
    (store / "jobs" / f"{keys[3]}.parquet").unlink()
    (store / "results.parquet").unlink()
    ran = count_runs(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="cosched.experiments"):
        run_sweep(spec_from_dict(SPEC), store, report=False)
    assert sorted(ran) == keys[:4]  # the two untouched cells were not run again
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == 3  # a deleted cell file is just a cell not yet run
    assert any(f"cells/{keys[0]}.parquet: cannot be read" in w for w in warned)
    assert any(f"jobs/{keys[1]}.parquet: damaged" in w for w in warned)
    assert any(f"jobs/{keys[3]}.parquet: missing" in w for w in warned)
    assert all(w.endswith("recomputing that cell") for w in warned)
    last = json.loads((store / "runs.jsonl").read_text().splitlines()[-1])
    assert len(last["recomputed"]) == 3 and last["to_run"] == 4
    assert (store / "results.parquet").read_bytes() == (reference / "results.parquet").read_bytes()
    for key in keys:
        got = (store / "jobs" / f"{key}.parquet").read_bytes()
        assert got == (reference / "jobs" / f"{key}.parquet").read_bytes()
    assert Store(store).damage(keys[0]) is None
    ran.clear()
    run_sweep(spec_from_dict(SPEC), store, report=False)
    assert ran == []


def test_a_damaged_cell_whose_rerun_fails_is_reported_failed(
    reference: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(reference, tmp_path, dirs_exist_ok=True)
    key = sorted(c.key for c in cells(spec_from_dict(SPEC)))[0]
    _truncate(tmp_path / "cells" / f"{key}.parquet")

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no simulation today")

    monkeypatch.setattr(sweep_mod, "simulate", fail)
    table = run_sweep(spec_from_dict(SPEC), tmp_path, report=False, raise_on_failure=False)
    # The damaged file was removed, so the results show the failure, not the old row.
    assert table.set_index("key").loc[key, "status"] == "failed"
    assert (table["status"] == "ok").sum() == 5
    assert not (tmp_path / "cells" / f"{key}.parquet").exists()
    monkeypatch.undo()
    run_sweep(spec_from_dict(SPEC), tmp_path, report=False)
    assert (tmp_path / "results.parquet").read_bytes() == (
        reference / "results.parquet"
    ).read_bytes()


def test_a_truncated_table_is_a_clean_error_for_its_reader(reference: Path, tmp_path: Path) -> None:
    shutil.copytree(reference, tmp_path, dirs_exist_ok=True)
    store = Store(tmp_path)
    key = sorted(c.key for c in cells(spec_from_dict(SPEC)))[0]
    expected = pd.read_parquet(reference / "jobs" / f"{key}.parquet")
    pd.testing.assert_frame_equal(store.table("jobs", key), expected)
    _truncate(tmp_path / "jobs" / f"{key}.parquet")
    with pytest.raises(StoreError, match="remove it and rerun") as info:
        store.table("jobs", key)
    assert info.value.path == tmp_path / "jobs" / f"{key}.parquet"
    assert "damaged" in str(info.value) and "\n" not in str(info.value)
    (tmp_path / "jobs" / f"{key}.parquet").unlink()
    with pytest.raises(StoreError, match=f"jobs/{key}.parquet: missing"):
        store.table("jobs", key)
    _truncate(tmp_path / "cells" / f"{key}.parquet")
    with pytest.raises(StoreError, match=f"cells/{key}.parquet: cannot be read"):
        store.info(key)


def test_a_damaged_results_file_is_a_clean_error(reference: Path, tmp_path: Path) -> None:
    shutil.copytree(reference, tmp_path, dirs_exist_ok=True)
    _truncate(tmp_path / "results.parquet")
    with pytest.raises(StoreError, match=r"results\.parquet: cannot be read .*rebuild it"):
        read_results(tmp_path)
    with pytest.raises(StoreError):
        build_report(tmp_path)


def test_cli_reports_the_damaged_file_without_a_traceback(reference: Path, tmp_path: Path) -> None:
    shutil.copytree(reference, tmp_path, dirs_exist_ok=True)
    key = sorted(c.key for c in cells(spec_from_dict(SPEC)))[0]
    _truncate(tmp_path / "results.parquet")
    report = subprocess.run(
        [sys.executable, "-m", "cosched", "report", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert report.returncode == 2 and "Traceback" not in report.stderr
    assert report.stderr.startswith(f"cosched: error: {tmp_path / 'results.parquet'}: ")
    assert len(report.stderr.strip().splitlines()) == 1
    _truncate(tmp_path / "jobs" / f"{key}.parquet")
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'name = "damage"\nseeds = [1, 2, 3]\n[[workloads]]\nkind = "lublin"\nname = "lub"\n'
        "jobs = 40\nnodes = 16\nload = 0.8\n"
        '[[policies]]\nname = "fcfs"\n[[policies]]\nname = "easy"\n'
    )
    sweep = subprocess.run(
        [sys.executable, "-m", "cosched", "sweep", str(spec), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert sweep.returncode == 0 and "Traceback" not in sweep.stderr
    assert f"{tmp_path / 'jobs' / key}.parquet: damaged" in sweep.stderr
    # The rows are those of the uninterrupted run (the provenance names another command).
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "results.parquet"),
        pd.read_parquet(reference / "results.parquet"),
    )
    assert (tmp_path / "jobs" / f"{key}.parquet").read_bytes() == (
        reference / "jobs" / f"{key}.parquet"
    ).read_bytes()


def _keys() -> list[str]:
    return sorted(c.key for c in cells(spec_from_dict(SPEC)))


def test_identical_runs_write_identical_cell_files_and_keep_timings_apart(
    reference: Path, tmp_path: Path
) -> None:
    run_sweep(spec_from_dict(SPEC), tmp_path, report=False)
    for key in _keys():
        for folder in ("cells", "jobs"):
            got = (tmp_path / folder / f"{key}.parquet").read_bytes()
            assert got == (reference / folder / f"{key}.parquet").read_bytes(), (folder, key)
        # The wall time is beside the store, not in the cell file.
        info = Store(tmp_path).info(key)
        assert info["elapsed_seconds"] > 0 and "stored_tables" in info
    timed = [json.loads(x)["key"] for x in (tmp_path / "timings.jsonl").read_text().splitlines()]
    assert sorted(timed) == _keys()


@pytest.mark.parametrize("how", ["swapped", "copied", "linked"])
def test_a_cell_file_holding_another_cells_row_is_recomputed(
    reference: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    how: str,
) -> None:
    store = tmp_path / "store"
    shutil.copytree(reference, store)
    a, b = (store / "cells" / f"{k}.parquet" for k in _keys()[:2])
    if how == "swapped":
        data = a.read_bytes()
        a.write_bytes(b.read_bytes())
        b.write_bytes(data)
    elif how == "copied":
        shutil.copy(a, b)
    else:
        b.unlink()
        b.symlink_to(a)
    ran = count_runs(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="cosched.experiments"):
        table = run_sweep(spec_from_dict(SPEC), store, report=False)
    wrong = _keys()[:2] if how == "swapped" else _keys()[1:2]
    assert sorted(ran) == wrong
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert f"cells/{_keys()[1]}.parquet: holds the row of cell {_keys()[0]}" in warned
    assert table["key"].is_unique and sorted(table["key"]) == _keys()
    assert (store / "results.parquet").read_bytes() == (reference / "results.parquet").read_bytes()


SPEC_TOML = (
    'name = "damage"\nseeds = [1, 2, 3]\n[[workloads]]\nkind = "lublin"\nname = "lub"\n'
    'jobs = 40\nnodes = 16\nload = 0.8\n[[policies]]\nname = "fcfs"\n[[policies]]\nname = "easy"\n'
)


@pytest.mark.parametrize(
    "damage", ["cells is a file", "failed is a file", "cell is a folder", "jobs is a file"]
)
def test_a_damaged_store_layout_is_one_line_error(
    reference: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    from cosched.cli.main import main

    store = tmp_path / "store"
    shutil.copytree(reference, store)
    if damage == "cells is a file":
        shutil.rmtree(store / "cells")
        (store / "cells").write_text("not a folder")
        bad = store / "cells"
    elif damage == "failed is a file":
        (store / "failed").write_text("not a folder")
        bad = store / "failed"
    elif damage == "cell is a folder":
        bad = store / "cells" / f"{_keys()[0]}.parquet"
        bad.unlink()
        bad.mkdir()
    else:  # seen when a recomputed cell's table is written
        (store / "cells" / f"{_keys()[0]}.parquet").unlink()
        shutil.rmtree(store / "jobs")
        (store / "jobs").write_text("not a folder")
        bad = store / "jobs"
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC_TOML)
    assert main(["sweep", str(spec), "--out", str(store)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cosched: error: {bad}: is a ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    # Nothing was removed to recompute: the other cells' files are all there.
    if damage != "cells is a file":
        assert all((store / "cells" / f"{k}.parquet").is_file() for k in _keys()[1:])


@pytest.mark.parametrize("where", ["a file", "a read-only folder", "under /proc"])
def test_validate_fit_out_that_cannot_be_written_is_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    import os

    from cosched.cli.main import main
    from tests.experiments.test_fit import _log

    path = _log(tmp_path, n=50, seed=5)
    out = tmp_path / "out"
    if where == "under /proc":  # a folder nobody, root included, can make
        if not Path("/proc/self").is_dir():
            pytest.skip("needs Linux /proc")
        out = Path("/proc/self/cosched-fit")
    elif where == "a file":
        out.write_text("x")
    else:
        out.mkdir()
        out.chmod(0o500)
        if os.access(out, os.W_OK):  # root writes anyway
            pytest.skip("permission bits do not bind this user")
    try:
        assert main(["validate", str(path), "--fit", "--out", str(out)]) == 2
    finally:
        if out.is_dir() and where != "under /proc":
            out.chmod(0o700)
    err = capsys.readouterr().err
    assert err.startswith(f"cosched: error: --out {out}") and err.count("\n") == 1, err
