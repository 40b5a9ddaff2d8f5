"""Policies from outside cosched: a user's file and an installed package's entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from cosched.cli.main import main
from cosched.errors import ConfigError
from cosched.policies import policy_class

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "plugin"

USER_POLICY = '''
from dataclasses import dataclass
from cosched.engine import Start
from cosched.policies import Policy

@dataclass(kw_only=True)
class NarrowFirst(Policy):
    """Narrowest queued jobs first."""
    name = "narrow-first"
    limit: int = 4

    def schedule(self, view):
        free, out = view.free, []
        for job in sorted(view.queue, key=lambda j: (view.size(j), j.index))[: self.limit]:
            if view.size(job) <= free:
                free -= view.size(job)
                out.append(Start(job))
        return out
'''


def test_a_policy_in_a_user_file_runs_from_the_cli_with_parameters(tmp_path: Path) -> None:
    file = tmp_path / "mine.py"
    file.write_text(USER_POLICY)
    out = tmp_path / "jobs.csv"
    ref = f"{file}:NarrowFirst"
    assert main(["run", "--policy", ref, "-P", "limit=2", "--jobs-out", str(out)]) == 0
    assert len(pd.read_csv(out)) == 300


def test_a_policy_in_a_user_file_runs_in_a_two_worker_sweep(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(USER_POLICY)
    spec = tmp_path / "sweep.toml"
    spec.write_text(
        '[[workloads]]\npath = "bundled:example"\nlimit = 50\n'
        '[[policies]]\nname = "mine.py:NarrowFirst"\nparams = { limit = [1, 3] }\n'
    )
    assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--workers", "2"]) == 0
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert list(table["status"]) == ["ok", "ok"] and (table["jobs"] == 50).all()


def test_bad_references_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        policy_class(f"{tmp_path / 'nope.py'}:X")
    (tmp_path / "bad.py").write_text("x = 1\n")
    with pytest.raises(ConfigError, match="not a Policy class"):
        policy_class(f"{tmp_path / 'bad.py'}:x")
    with pytest.raises(ConfigError, match="cannot be imported"):
        policy_class("no_such_module_xyz:Policy")


def install(package: Path, tmp_path: Path) -> dict[str, str]:
    """``package`` installed into a folder of ``tmp_path`` (as a user's ``pip install``
    would, without its dependencies); the environment that puts it on the path."""
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "--target", str(target), str(package)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return {**os.environ, "PYTHONPATH": str(target)}


def run_by_name(policy: str, env: dict[str, str], tmp_path: Path) -> tuple[dict[str, str], int]:
    """``cosched policies --json``'s families by policy name, and the jobs ``cosched run
    --policy POLICY`` schedules on the bundled example, under ``env``."""
    listed = subprocess.run(
        [sys.executable, "-m", "cosched", "policies", "--json"],
        check=True, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    out = tmp_path / "jobs.csv"
    subprocess.run(
        [sys.executable, "-m", "cosched", "run", "--policy", policy, "--jobs-out", str(out)],
        check=True, capture_output=True, env=env, timeout=120,
    )  # fmt: skip
    return {p["name"]: p["family"] for p in json.loads(listed.stdout)}, len(pd.read_csv(out))


def test_an_installed_package_is_found_through_its_entry_point(tmp_path: Path) -> None:
    families, jobs = run_by_name("shortest-first", install(PLUGIN, tmp_path), tmp_path)
    assert "shortest-first" in families
    assert jobs == 300


def test_the_core_policy_table_is_what_the_entry_points_declare() -> None:
    # policy_class imports these modules by name instead of reading every package's
    # entry points; the table must name the modules pyproject.toml declares.
    import importlib.metadata

    from cosched.policies.base import CORE_MODULES

    declared = {
        ep.name: ep.value.split(":")[0]
        for ep in importlib.metadata.entry_points(group="cosched.policies")
        if ep.value.startswith("cosched.")
    }
    assert {name: declared.get(name) for name in CORE_MODULES} == CORE_MODULES
    for name in CORE_MODULES:
        assert policy_class(name).name == name


def test_cosched_own_entry_points_are_read_as_importlib_metadata_reads_them() -> None:
    import importlib.metadata

    from cosched import plugins

    for group in ("cosched.policies", "cosched.profiles", "cosched.families"):
        declared = {
            ep.name: ep.value
            for ep in importlib.metadata.entry_points(group=group)
            if ep.dist is not None and ep.dist.name == "cosched"
        }
        assert plugins.own(group) == declared


def test_a_built_in_familys_policy_is_found_without_importlib_metadata() -> None:
    # importlib.metadata and its scan cost a `cosched run` about 13 ms
    code = (
        "import sys\n"
        "from cosched.policies.base import policy_class\n"
        "assert policy_class('lomarc-pss').name == 'lomarc-pss'\n"
        "assert policy_class('nodeshare-easy').family == 'nodeshare'\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "False"
