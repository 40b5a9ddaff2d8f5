"""The kernels compiled ahead of time give numba's and plain Python's results exactly,
and cosched falls back to numba's kernels when they cannot be built.

Differential tests on random SWF text: the SWF parser as compiled ahead of time
(:mod:`cosched.compile`), as compiled just in time by numba, and run as Python, must
agree bit for bit; so must the node-busy sum, compiled and as Python (the engine's event
loop: ``tests/engine/test_loop_aot.py``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cosched.compile as cc
from cosched.engine import Simulation, fastpath
from cosched.platform import Platform
from cosched.policies import make_policy
from cosched.workload.job import Workload

HAVE_CC = shutil.which(os.environ.get("CC", "cc")) is not None


def _built(group: str) -> Any:
    """The module compiled ahead of time, built in the user's cache if it is not yet
    (once per machine and source: parallel workers wait for one build)."""
    if not HAVE_CC:
        pytest.skip("no C compiler: the ahead-of-time kernels cannot be built here")
    module = cc.load(build=True, group=group)
    if module is None:
        failed = cc.kernel_dir(group) / "failed.txt"
        detail = failed.read_text() if failed.exists() else "cache not writable"
        pytest.fail(f"the ahead-of-time kernels did not build:\n{detail}")
    return module


@pytest.fixture(scope="module")
def kernels() -> Any:
    """The SWF parser compiled ahead of time."""
    from cosched.workload import _swf_kernel

    return _built(_swf_kernel.GROUP.name)


@pytest.fixture(scope="module")
def busy() -> Any:
    """The node-busy sum compiled ahead of time."""
    from cosched.metrics import _busy_kernel

    return _built(_busy_kernel.GROUP.name)


@pytest.fixture
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget the module this process loaded, so that :func:`cc.load` looks again."""
    monkeypatch.setattr(cc, "_loaded", {})
    monkeypatch.setattr(cc, "_tried_build", set())


# -- the SWF parser ------------------------------------------------------------------

TOKENS = st.one_of(
    st.integers(-3, 10**6).map(str),
    st.integers(10**14, 10**16).map(str),  # at and past the 15 digits the parser reads
    st.decimals(0, 10**6, places=3, allow_nan=False).map(str),
    st.sampled_from(["-1", "0", "1.", ".5", "-.5", "+3", "1e3", "2.5.1", "x", "0007", "-0"]),
)


@st.composite
def swf_text(draw: st.DrawFn) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        fields = draw(st.lists(TOKENS, min_size=17, max_size=19))
        seps = draw(
            st.lists(st.sampled_from([" ", "  ", "\t"]), min_size=len(fields), max_size=len(fields))
        )
        line = "".join(s + f for s, f in zip(seps, fields, strict=True))
        line += draw(st.sampled_from(["", " ", " ; a comment", "\t"]))
        lines.append(draw(st.sampled_from([line, line, line, "", "; comment"])))
    return ("\n".join(lines) + draw(st.sampled_from(["", "\n"]))).encode()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=swf_text(), signed=st.lists(st.booleans(), min_size=18, max_size=18))
def test_the_parser_is_the_same_ahead_of_time_just_in_time_and_in_python(
    kernels: Any, text: bytes, signed: list[bool]
) -> None:
    from cosched.workload import _swf_kernel
    from cosched.workload.swf import _FRACTIONAL

    data = np.frombuffer(text, dtype=np.uint8)
    flags = np.array(signed)
    jit = cc.jitted(_swf_kernel.__name__).parse_block
    got = [
        kernels.parse_block(data, flags, _FRACTIONAL),
        jit(data, flags, _FRACTIONAL),
        jit.py_func(data, flags, _FRACTIONAL),
    ]
    (a, wa, ok), rest = got[0], got[1:]
    for b, wb, okb in rest:
        assert ok == okb
        if ok:
            assert a.tobytes() == np.ascontiguousarray(b).tobytes() and a.shape == b.shape
            assert np.array_equal(wa, wb)


def test_a_read_trace_is_the_same_with_either_compiled_parser(
    kernels: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cosched.workload import _swf_kernel, swf

    # avg_cpu_time (the sixth field) may be fractional
    lines = [
        f"{k} {k * 3} {k % 7} {k * 2} 4 {k * 1.25} -1 4 100 -1 1 1 1 -1 1 -1 -1 -1"
        for k in range(1, 5001)
    ]
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 64\n" + "\n".join(lines) + "\n")
    assert path.stat().st_size >= swf.AOT_PARSE_BYTES  # one block, long enough
    calls = []
    real = kernels.parse_block

    def spy(*args: Any) -> Any:
        calls.append(out := real(*args))
        return out

    with monkeypatch.context() as mp:
        mp.setattr(kernels, "parse_block", spy)
        aot = swf.read_swf(path).columns
    assert [ok for _, _, ok in calls] == [True]  # the compiled parser read it
    assert _swf_kernel.GROUP.name in cc.catalogue()["loaded"]
    assert aot["avg_cpu_time"][3] == 5.0 and aot["avg_cpu_time"][4] == 6.25
    monkeypatch.setattr(cc, "ENABLED", False)
    numpy_parser = swf.read_swf(path).columns
    monkeypatch.setattr(swf, "KERNEL_AFTER", 0)
    jit = swf.read_swf(path).columns
    for name in aot:
        assert np.array_equal(aot[name], numpy_parser[name], equal_nan=True), name
        assert np.array_equal(aot[name], jit[name], equal_nan=True), name


# -- the node-busy sum ---------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_node_busy_sum_is_the_same_ahead_of_time_and_in_python(
    busy: Any, data: st.DataObject
) -> None:
    """Entries in start order or not, times finite or not: the compiled one-pass sum is
    the Python function's, bit for bit (refusals included)."""
    from cosched.metrics._busy_kernel import node_busy

    n = data.draw(st.integers(1, 40))
    times = st.sampled_from([0.0, 0.1, 0.30000000000000004, 2.5, 7.0, 1e9, float("nan")])
    start = np.array(data.draw(st.lists(times, min_size=n, max_size=n)))
    if data.draw(st.booleans()):
        start = np.sort(start)
    end = start + np.array(
        data.draw(st.lists(st.sampled_from([0.0, 0.1, 3.3, -1.0]), min_size=n, max_size=n))
    )
    m = data.draw(st.integers(0, 3 * n))
    job_of = np.sort(
        np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    )
    nodes = np.array(data.draw(st.lists(st.integers(0, 5), min_size=m, max_size=m)), dtype=np.int64)
    got = busy.node_busy(start, end, job_of, nodes, 6)
    assert got.hex() == node_busy(start, end, job_of, nodes, 6).hex()


# -- building and falling back -------------------------------------------------------


def _easy(n: int) -> Simulation:
    rng = np.random.default_rng(3)
    rows = [
        (float(t), int(p), float(r), float(r + o))
        for t, p, r, o in zip(
            np.cumsum(rng.integers(0, 30, n)),
            rng.integers(1, 17, n),
            rng.integers(1, 500, n),
            rng.integers(0, 300, n),
            strict=True,
        )
    ]
    return Simulation(Workload.from_jobs(rows), Platform(nodes=16), make_policy("easy"))


def test_an_unwritable_cache_falls_back_to_numba_with_the_same_schedule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_state: None
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("COSCHED_AOT_DIR", str(blocker / "kernels"))  # cannot be a folder
    assert cc.load(build=True, group="swf") is None  # no exception
    monkeypatch.setattr(fastpath, "COMPILE_FROM", 0)
    fallback = _easy(2000).run().job_columns
    monkeypatch.setattr(fastpath, "COMPILE_FROM", 10**9)
    plain = _easy(2000).run().job_columns
    for name in plain:
        assert np.array_equal(fallback[name], plain[name], equal_nan=True), name


def test_a_build_without_a_compiler_is_recorded_and_not_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_state: None
) -> None:
    monkeypatch.setenv("COSCHED_AOT_DIR", str(tmp_path))
    monkeypatch.setenv("CC", "/bin/false")  # numba.pycc finds no working compiler
    assert cc.load(build=True, group="swf") is None
    failed = cc.kernel_dir("swf") / "failed.txt"
    assert "numba's just-in-time kernels instead" in failed.read_text()
    assert not list(cc.kernel_dir("swf").glob(".build-*"))  # the temporary folder is gone
    monkeypatch.setattr(cc, "_tried_build", set())  # as a new process would start

    def no_child(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a failed build was tried again")

    monkeypatch.setattr("subprocess.run", no_child)
    assert cc.load(build=True, group="swf") is None
    monkeypatch.setenv("COSCHED_AOT", "0")
    assert not cc.available()


def test_a_build_for_other_source_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_state: None
) -> None:
    # The child compiles the source it imports; if that is not the source the parent
    # hashed (edited in between), the build fails instead of filing it under the key.
    monkeypatch.setenv("COSCHED_AOT_DIR", str(tmp_path))
    monkeypatch.setattr(cc, "_key", lambda group: "0" * 20)
    assert cc.load(build=True, group="swf") is None
    assert "source changed" in (tmp_path / ("0" * 20) / "failed.txt").read_text()


def test_no_home_folder_means_no_cache_and_no_stray_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_state: None
) -> None:
    # Without $HOME, "~/.cache" would stay a relative path: nothing may be made in the
    # working folder, and the run falls back to numba's kernels.
    monkeypatch.delenv("COSCHED_AOT_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # ignored: not absolute
    monkeypatch.setattr(os.path, "expanduser", lambda p: p)  # as with no home folder
    monkeypatch.chdir(tmp_path)
    assert cc.load(build=True, group="swf") is None
    assert list(tmp_path.iterdir()) == []


def test_the_module_file_ending_is_the_one_pycc_writes() -> None:
    # pycc names the module with sysconfig's EXT_SUFFIX; the loader reads the same ending
    # from the import system, without importing sysconfig (a part of every run's fixed cost).
    import sysconfig

    assert sysconfig.get_config_var("EXT_SUFFIX") == cc._EXT_SUFFIX
    assert cc.module_path(Path("k"), "swf").name == "_cosched_swf" + cc._EXT_SUFFIX
