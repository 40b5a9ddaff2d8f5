"""The package layers: lower floors never import upper ones (no cycles between packages)."""

from __future__ import annotations

import pytest

from tests.fresh import python_out

FAMILIES = ("cosched.lomarc", "cosched.nodeshare", "cosched.coupled", "cosched.timesharing")


def _loaded_after(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = python_out(code)
    return {m for m in out.split() if m.startswith("cosched")}


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        ("cosched.engine", ("cosched.policies", "cosched.experiments", *FAMILIES)),
        ("cosched.policies", ("cosched.experiments", "cosched.cli", *FAMILIES)),
        ("cosched.metrics", ("cosched.engine", "cosched.policies", *FAMILIES)),
    ],
)
def test_a_layer_does_not_import_the_ones_above(module: str, forbidden: tuple[str, ...]) -> None:
    loaded = _loaded_after(module)
    bad = sorted(m for m in loaded if any(m == f or m.startswith(f + ".") for f in forbidden))
    assert not bad, f"importing {module} loads {bad}"


def test_the_command_line_help_loads_no_heavy_library() -> None:
    # `cosched --help` must stay instant: numpy, pandas, numba, matplotlib, scipy, pyarrow
    # and the engine load only when a command runs.
    code = (
        "import sys\n"
        "from cosched.cli.main import build_parser\n"
        "build_parser()\n"
        "heavy = ('numpy', 'pandas', 'numba', 'matplotlib', 'scipy', 'pyarrow', "
        "'cosched.engine')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or "
        "m.startswith('cosched.engine')))\n"
    )
    out = python_out(code)
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [
        # A small trace: neither pandas nor numba (pyarrow writes the CSV).
        (["run", "--policy", "easy"], ()),
        (["run", "--policy", "fcfs", "--jobs-out", "{out}"], ("pyarrow",)),
        # Its loop is always compiled; numba loads scipy itself when it is installed.
        (["run", "--policy", "conservative"], ("numba", "scipy")),
    ],
)
def test_a_run_loads_pandas_and_numba_only_when_it_needs_them(
    tmp_path: object, argv: list[str], allowed: tuple[str, ...]
) -> None:
    out = str(tmp_path) + "/jobs.csv"
    code = (
        "import sys\n"
        "from cosched.cli.main import main\n"
        f"assert main({[a.format(out=out) for a in argv]!r}) == 0\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pandas', 'numba', 'matplotlib', 'scipy', 'pyarrow'}))\n"
    )
    done = python_out(code)
    assert done.strip().splitlines()[-1] == str(sorted(allowed))


def test_a_run_of_an_swf_trace_loads_only_what_it_uses(tmp_path: object) -> None:
    # The other commands' modules, the accounting-log importers, numpy.ma (through
    # np.median), tempfile and importlib.resources cost about 25 ms of a 0.27 s run on
    # SDSC-SP2.
    from cosched.workload.sources import bundled_path

    out, trace = str(tmp_path) + "/jobs.csv", str(bundled_path())  # a file: its format sniffed
    code = (
        "import sys\n"
        "from cosched.cli.main import main\n"
        f"assert main(['run', {trace!r}, '--policy', 'easy', '--jobs-out', {out!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m in ('numpy.ma', 'tempfile', "
        "'importlib.resources') or m.startswith(('cosched.cli.', "
        "'cosched.workload.importers.', 'cosched.experiments'))))\n"
    )
    done = python_out(code)
    loaded = done.strip().splitlines()[-1]
    expected = ["cosched.cli._checks", "cosched.cli._parser", "cosched.cli.commands",
                "cosched.cli.main",
                "cosched.cli.progress",
                "cosched.cli.run", "cosched.cli.traceinfo",
                "cosched.workload.importers.detect"]  # fmt: skip
    assert loaded == str(expected)
