"""LOMARC's pass names its hooks and steps without importing them (docs/design/engine.md,
"A pass's functions may be named, not imported"): a run on the loop built ahead of time
never loads their modules, nor the general loop's searches."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fresh import python_out

#: The modules only compiling the loop, running it as plain Python or the general loop
#: needs.
DEFERRED = (
    "cosched.lomarc._kernel",
    "cosched.lomarc._steps",
    "cosched.lomarc._shadow",
    "cosched.lomarc.search",
)


def _loaded(out: str) -> list[str]:
    """The modules a child printed as ``loaded: a,b`` on its last line."""
    last = out.strip().splitlines()[-1]
    assert last.startswith("loaded:"), out
    return [m for m in last.removeprefix("loaded:").split(",") if m]


def test_the_pass_and_its_loop_key_import_none_of_its_functions_modules() -> None:
    code = (
        "import sys\n"
        "from cosched.engine import aot\n"
        "from cosched.lomarc.fast import LOMARC_PASS\n"
        "assert len(aot._key(LOMARC_PASS)) > 0\n"
        "aot.is_built(LOMARC_PASS)\n"
        f"print('loaded:' + ','.join(m for m in {DEFERRED!r} if m in sys.modules))\n"
    )
    assert _loaded(python_out(code)) == []


def test_the_deferred_modules_are_the_ones_a_plain_run_imports() -> None:
    # The check above can fail: resolving the pass's functions (a plain run) loads them.
    code = (
        "import sys\n"
        "from cosched.engine.compiled import _hooks\n"
        "from cosched.lomarc.fast import LOMARC_PASS\n"
        "_hooks(LOMARC_PASS)\n"
        f"print('loaded:' + ','.join(m for m in {DEFERRED!r} if m in sys.modules))\n"
    )
    assert set(_loaded(python_out(code))) >= set(DEFERRED[:3])


def test_a_run_on_the_built_loop_imports_none_of_them(tmp_path: Path) -> None:
    from cosched.engine import aot
    from cosched.lomarc.fast import LOMARC_PASS
    from cosched.workload.sources import bundled_path

    if not aot.is_built(LOMARC_PASS):  # a first run would build it (a minute or more)
        pytest.skip("LOMARC's loop is not built on this machine")
    out, trace = str(tmp_path / "jobs.csv"), str(bundled_path())  # 316 jobs: the built loop
    code = (
        "import sys\n"
        "from cosched.cli.main import main\n"
        f"assert main(['run', {trace!r}, '--policy', 'lomarc', '--jobs-out', {out!r}]) == 0\n"
        "assert 'cosched.lomarc.fast' in sys.modules\n"
        f"print('loaded:' + ','.join(m for m in {DEFERRED!r} if m in sys.modules))\n"
    )
    assert _loaded(python_out(code)) == []
