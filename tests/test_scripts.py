"""The documented commands in scripts/ (scripts/README.md): each does what its docs say.

``scripts/readme_status.py`` has its own tests (``tests/test_readme_status.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

from cosched.experiments.model import load_experiment
from cosched.experiments.reproductions import spec_text

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPTS / script), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_make_example_trace_writes_the_bundled_trace_byte_for_byte(tmp_path: Path) -> None:
    # The bundled trace's header says this script wrote it; its output depends only on
    # the script's SEED, so running it again must give the same bytes.
    out = tmp_path / "example.swf"
    done = _run("make_example_trace.py", str(out))
    assert done.returncode == 0, done.stderr
    bundled = ROOT / "src" / "cosched" / "data" / "example.swf"
    assert out.read_bytes() == bundled.read_bytes()


def test_partial_spec_lists_exactly_the_finished_cells(tmp_path: Path) -> None:
    full = tmp_path / "full.toml"
    full.write_text(spec_text("lomarc"))
    tasks = load_experiment(str(full)).tasks()
    # Finished: every third cell, except all seeds of the first configuration.
    first = {k: v for k, v in tasks[0].columns.items() if k != "seed"}
    finished = {
        t.key
        for i, t in enumerate(tasks)
        if i % 3 == 0 and {k: v for k, v in t.columns.items() if k != "seed"} != first
    }
    cells = tmp_path / "store" / "cells"
    cells.mkdir(parents=True)
    for key in finished:
        (cells / f"{key}.parquet").write_bytes(b"")
    done = _run("partial_spec.py", str(full), str(tmp_path / "store"), "--name", "partial")
    assert done.returncode == 0, done.stderr
    partial = tmp_path / "partial.toml"
    partial.write_text(done.stdout)
    exp = load_experiment(str(partial))
    assert exp.name == "partial"
    # The same cell keys as the full spec's finished cells, no more, no fewer.
    assert {t.key for t in exp.tasks()} == finished
    header = [line for line in done.stdout.splitlines() if line.startswith("#")]
    assert header[0].endswith(f"({len(finished)} of {len(tasks)} cells).")
    # The configuration with no finished cell is named in the header with all its seeds.
    seeds = sorted(int(t.columns["seed"]) for t in tasks if t.columns.items() >= first.items())
    assert any(line.endswith(f"seeds {seeds}") for line in header[2:])


def test_readme_commands_gives_the_readme_s_two_opening_commands() -> None:
    # CI runs what this prints; a hand case pins the reading of the blocks.
    module = _load("readme_commands")
    text = "# t\n\n```sh\npython3 -m venv .venv && \\\n  x --out a\n```\n\n```sh\nrun tests\n```\n"
    text += "\n## Later\n\n```sh\nnot this\n```\n"
    assert module.commands(text) == ["python3 -m venv .venv && x --out a", "run tests"]
    setup, tests = (_run("readme_commands.py", n).stdout.strip() for n in ("1", "2"))
    assert setup.startswith("python3 -m venv .venv") and "cosched compare" in setup
    assert "pytest" in tests and '-m "not slow"' in tests
    assert _run("readme_commands.py", "3").returncode == 2


def _load(name: str) -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fit_table_renders_every_stored_log_between_the_markers(tmp_path: Path) -> None:
    import json

    rec = {"jobs": [10, 9], "configurations": 48, "whole": 10, "chosen": "easy outages=on",
           "held_ks": 0.25, "held_within": 0.5, "plain_ks": 0.5, "plain_within": 0.25,
           "wall": 12.34, "load": [1.0, 2.0], "intervals": 3}  # fmt: skip
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "LOG-A.new.json").write_text(json.dumps(rec))
    # LOG-B records what the other selection rules chose among the same runs.
    rules = {"fit": {"chosen": "easy", "held_ks": 0.375, "held_within": 0.75},
             "val": {"chosen": "easy", "held_ks": 0.05, "held_within": 1.0}}  # fmt: skip
    (tmp_path / "b" / "LOG-B.new.json").write_text(
        json.dumps(rec | {"held_ks": 0.125, "cpu": 4.56, "rules": rules})
    )
    page = tmp_path / "page.md"
    page.write_text("before\n<!-- fit-table: begin -->\nold\n<!-- fit-table: end -->\nafter\n")
    stores = ["--store", str(tmp_path / "a"), "--store", str(tmp_path / "b")]
    done = _run("fit_table.py", *stores, "--write", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert "old" not in text and text.startswith("before\n") and text.endswith("after\n")
    # A log without the rules' record shows its fit alone.
    assert ("| LOG-A | 10 + 9 | 0.500 / 25.0 % | not run | not run | not run | 0.250 / 50.0 % | "
            "`easy outages=on` | 12.3 s (1.0, 2.0) | not measured | 10 / 48 |") in text  # fmt: skip
    assert ("| LOG-B | 10 + 9 | 0.500 / 25.0 % | 0.375 / 75.0 % | 0.050 / 100.0 % | not run "
            "| 0.125 / 50.0 %") in text  # fmt: skip
    assert "| 12.3 s (1.0, 2.0) | 4.6 s | 10 / 48 |" in text  # the fit's CPU time
    # A page without the markers is refused in one line.
    page.write_text("no markers\n")
    done = _run("fit_table.py", *stores, "--write", str(page))
    assert done.returncode != 0 and "markers" in done.stderr


_FIGURES_SAMPLE = '''
from typing import Any
import typing

Row = dict[str, Any]
NOT_A_TYPE = 3


def f(x: Any, *rest: "list[Any]", **kw: int) -> typing.Any:
    """Four Any in the signature; one in the body's annotation."""
    y: Any = x
    z = Any
    return y, z, rest, kw


class C:
    field: "dict[str, Any]"

    def g(self) -> int:
        return 1
'''


def test_code_figures_counts_any_in_annotations_and_function_lengths(tmp_path: Path) -> None:
    # By hand: the alias Row 1; f's x, *rest, return 3; y 1; C.field 1 (``z = Any`` in a
    # function is a value, not an annotation). f's body is 3 lines without its docstring.
    (tmp_path / "m.py").write_text(_FIGURES_SAMPLE)
    out = _run("code_figures.py", str(tmp_path), "--long", "2", "--top", "1")
    assert out.returncode == 0, out.stderr
    assert "Any in annotations: 6" in out.stdout
    assert "functions over 2 lines: 1" in out.stdout
    assert "    3  m.py:9 f" in out.stdout
    assert "    6  m.py" in out.stdout
