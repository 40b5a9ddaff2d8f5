"""The event loop with each built-in pass bound, compiled ahead of time, gives numba's
and plain Python's results exactly; a build is announced on one line; small workloads
neither build nor load it.

Differential tests on random columns: the loop as compiled ahead of time
(:mod:`cosched.engine.aot`), as compiled just in time by numba, and run as Python
(:func:`cosched.engine.compiled.bound_loop`), must agree bit for bit.
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
from cosched.engine import aot, fastpath
from cosched.engine.compiled import CompiledPass, bound_loop, params_of
from cosched.policies.conservative import CONSERVATIVE_PASS
from cosched.policies.easy import EASY_PASS, EasyParams
from cosched.policies.fcfs import FCFS_PASS

HAVE_CC = shutil.which(os.environ.get("CC", "cc")) is not None
PASSES = {"fcfs": FCFS_PASS, "easy": EASY_PASS, "conservative": CONSERVATIVE_PASS}


@pytest.fixture(scope="module")
def loops() -> dict[str, Any]:
    """Each pass's loop compiled ahead of time, built in the user's cache if it is not
    yet (once per machine and source)."""
    if not HAVE_CC:
        pytest.skip("no C compiler: the ahead-of-time loops cannot be built here")
    built = {}
    for name, spec in PASSES.items():
        loop = aot.load_loop(spec, build=True)
        if loop is None:
            pytest.fail(f"the {name} loop did not build (see {cc.cache_root()})")
        built[name] = loop
    return built


@st.composite
def columns(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Submit, run, estimate and size columns: bursts, gaps, over- and under-estimates
    (jobs that outlive their estimate), integer and fractional times."""
    capacity = draw(st.integers(1, 32))
    n = draw(st.integers(1, 60))
    gaps = draw(st.lists(st.sampled_from([0.0, 0.0, 1.0, 0.5, 7.0, 300.0]), min_size=n, max_size=n))
    run = draw(
        st.lists(st.sampled_from([1.0, 2.0, 3.5, 10.0, 60.0, 400.0]), min_size=n, max_size=n)
    )
    slack = draw(
        st.lists(st.sampled_from([0.0, 0.0, 1.0, 50.0, -1.0, -30.0]), min_size=n, max_size=n)
    )
    size = draw(st.lists(st.integers(1, capacity), min_size=n, max_size=n))
    submit = np.cumsum(np.array(gaps))
    r = np.array(run)
    est = np.maximum(r + np.array(slack), 1.0)
    return submit, r, est, np.array(size, dtype=np.int64), capacity


def _run(loop: Any, spec: CompiledPass, case: Any, params: Any) -> list[np.ndarray]:
    submit, run, est, size, capacity = case
    n = len(submit)
    start, end = np.full(n, np.nan), np.full(n, np.nan)
    order = np.zeros(n, dtype=np.int64)
    stats = np.zeros(4 + spec.reports, dtype=np.int64)
    table, placed, fstats = np.zeros((n, 0)), np.zeros(0, dtype=np.int64), np.zeros(0)
    loop(
        submit.copy(), run.copy(), est.copy(), size.copy(), table, capacity, params, start,
        end, order, placed, stats, fstats,
    )  # fmt: skip
    return [start, end, order[: stats[2]], stats]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=columns(),
    name=st.sampled_from(sorted(PASSES)),
    window=st.sampled_from([-1, 0, 1, 3]),
)
def test_the_loop_is_the_same_ahead_of_time_just_in_time_and_in_python(
    loops: dict[str, Any], case: Any, name: str, window: int
) -> None:
    spec = PASSES[name]
    if name == "conservative":  # its pass runs only where no job outlives its estimate
        submit, run, est, size, capacity = case
        case = submit, run, np.maximum(est, run), size, capacity
    params = spec.params()  # conservative's: the submit order
    if name in ("easy", "fcfs"):  # FCFS is EASY's pass with a window of 0
        params = EasyParams(window=window if name == "easy" else 0)
    got = [
        _run(loops[name], spec, case, params),
        _run(bound_loop(spec, compiled=True), spec, case, params),
        _run(bound_loop(spec, compiled=False), spec, case, params),
    ]
    for other in got[1:]:
        for a, b in zip(got[0], other, strict=True):
            assert np.array_equal(a, b, equal_nan=True)
    start, end, order, _ = got[0]
    assert not np.isnan(start).any()  # every job ran (each fits the machine)
    assert np.array_equal(end, start + case[1])
    assert sorted(order.tolist()) == list(range(len(start)))  # each started once
    assert (np.diff(start[order]) >= 0).all()  # in start order


def test_a_hand_computed_easy_schedule_ahead_of_time(loops: dict[str, Any]) -> None:
    # 4 units. Job 0 takes 3 for 100 s (estimate 100); job 1 needs 4 and waits for it:
    # shadow 100, no extra units. Job 2 (1 unit, estimate 50) ends by the shadow and is
    # backfilled at 2; job 3 (1 unit, estimate 200) would delay job 1 and waits.
    case = (
        np.array([0.0, 1.0, 2.0, 3.0]),
        np.array([100.0, 10.0, 50.0, 5.0]),
        np.array([100.0, 10.0, 50.0, 200.0]),
        np.array([3, 4, 1, 1], dtype=np.int64),
        4,
    )
    start, end, _, stats = _run(loops["easy"], EASY_PASS, case, EasyParams(window=-1))
    assert start.tolist() == [0.0, 100.0, 2.0, 110.0]
    assert end.tolist() == [100.0, 110.0, 52.0, 115.0]
    assert stats[1] == 4  # four starts, no other decision


def test_the_compiled_loop_refuses_arrays_it_would_misread(loops: dict[str, Any]) -> None:
    n = 3
    args: list[Any] = [np.zeros(n), np.ones(n), np.ones(n), np.ones(n, dtype=np.int64)]
    args += [np.zeros((n, 0)), 4, params_of(FCFS_PASS, EasyParams(window=0))]
    args += [np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, dtype=np.int64)]
    args += [np.zeros(0, dtype=np.int64), np.zeros(4, dtype=np.int64), np.zeros(0)]
    loops["fcfs"](*args)
    bad = list(args)
    bad[3] = np.ones(n, dtype=np.int32)  # a size column of another integer type
    with pytest.raises(TypeError, match="int64"):
        loops["fcfs"](*bad)
    bad = list(args)
    bad[0] = np.zeros(2 * n)[::2]  # not contiguous
    with pytest.raises(TypeError, match="contiguous"):
        loops["fcfs"](*bad)


def test_a_build_is_announced_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # A builder that fails at once: the notice names the step and its time either way.
    monkeypatch.setattr(cc, "_tried_build", set())
    module = cc.load_built(
        tmp_path / "k", "_probe", build=True, entry="os:getcwd", args=(), label="a probe"
    )
    assert module is None
    err = capfd.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("compiling a probe for this machine (once): failed after ")
    assert (tmp_path / "k" / "failed.txt").exists()


def test_small_workloads_neither_build_nor_load_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COSCHED_AOT_DIR", str(tmp_path))
    monkeypatch.delenv("COSCHED_FASTPATH_COMPILE_FROM", raising=False)
    monkeypatch.setattr(fastpath, "COMPILE_FROM", None)
    monkeypatch.setattr(cc, "_loaded", {})
    monkeypatch.setattr(cc, "_tried_build", set())
    plain = bound_loop(EASY_PASS, compiled=False)
    assert fastpath._loop(EASY_PASS, fastpath.AOT_FROM - 1) is plain
    loop = fastpath._loop(EASY_PASS, fastpath.AOT_BUILD_FROM - 1)  # not built: numba's
    assert not isinstance(loop, cc.Checked)
    assert list(tmp_path.iterdir()) == []


def test_what_a_first_run_compiles_is_read_from_the_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An empty cache: the loop of each pass, and the groups of kernels compiled ahead of
    # time that its functions call (node sharing's), are to be built; nothing is built
    # by asking.
    from cosched.nodeshare.fast import NODESHARE_PASS

    monkeypatch.setenv("COSCHED_AOT_DIR", str(tmp_path))
    assert aot.unbuilt(EASY_PASS) == ["the easy event loop"]
    assert aot.unbuilt(NODESHARE_PASS) == ["the nodeshare event loop", "the nodeshare kernels"]
    assert list(tmp_path.iterdir()) == []


def test_the_built_loops_count_references_with_plain_increments() -> None:
    """The counts a built loop makes (``aot._plain_refcounts``): numba's increment and
    decrement, each its one function, without ``atomicrmw``, returning the new count
    as numba's atomic ones do (its decrement frees the array at 0). Run here on one
    word: 1, up to 2, down to 1, down to 0."""
    import ctypes

    import llvmlite.binding as llvm
    from llvmlite import ir
    from numba.core.runtime import nrtdynmod

    module = ir.Module()
    with aot._plain_refcounts():
        nrtdynmod._define_atomic_inc_dec(module, "add", "monotonic")
        nrtdynmod._define_atomic_inc_dec(module, "sub", "monotonic")
    text = str(module)
    assert "atomicrmw" not in text
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    parsed = llvm.parse_assembly(text)
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(parsed, machine)
    engine.finalize_object()
    step = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.POINTER(ctypes.c_int64))
    add = step(engine.get_function_address("nrt_atomic_add"))
    sub = step(engine.get_function_address("nrt_atomic_sub"))
    word = ctypes.c_int64(1)
    assert (add(ctypes.byref(word)), word.value) == (2, 2)
    assert (sub(ctypes.byref(word)), word.value) == (1, 1)
    assert (sub(ctypes.byref(word)), word.value) == (0, 0)
    # Outside the build, numba's own (atomic) definition is back.
    atomic = nrtdynmod._define_atomic_inc_dec(ir.Module(), "add", "monotonic")
    assert "atomicrmw" in str(atomic.module)
