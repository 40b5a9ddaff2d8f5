"""The node-sharing kernels compiled ahead of time: the same schedules as numba's, their
signatures those of the Python source, every misread argument refused when checked,
and no numba loaded by a run that has them."""

from __future__ import annotations

import inspect
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cosched.compile as cc
from cosched.engine.simulation import Simulation
from cosched.nodeshare import _book_kernels, _window_kernels
from cosched.nodeshare import policies as ns
from tests.nodeshare.test_invariants import cases
from tests.nodeshare.test_reproduce import loaded_on_the_bench_path

HAVE_CC = shutil.which(os.environ.get("CC", "cc")) is not None
NODESHARE = list(cc._kernels_in("nodeshare"))


@pytest.fixture(scope="module")
def compiled() -> Any:
    """The module compiled ahead of time (built in the user's cache if it is not yet)."""
    if not HAVE_CC:
        pytest.skip("no C compiler: the ahead-of-time kernels cannot be built here")
    module = cc.load(build=True, group="nodeshare")
    if module is None:
        failed = cc.kernel_dir("nodeshare") / "failed.txt"
        detail = failed.read_text() if failed.exists() else "cache not writable"
        pytest.fail(f"the ahead-of-time kernels did not build:\n{detail}")
    return module


class _Loop(ns.CoschedulingBackfill):
    """nodeshare-easy through its Python methods: the scan, reservation and window
    kernels (:func:`~cosched.nodeshare._window_kernels.scan`, ``node_shadow``,
    ``queued_after``) instead of the one-kernel pass."""

    name = ""


def _outcome(w: Any, platform: Any, cls: type, params: dict[str, Any]) -> tuple[Any, ...]:
    policy = cls(**params)
    r = Simulation(w, platform, policy, check=True).run()
    times = tuple(r.jobs[c].to_numpy().tobytes() for c in ("start_time", "end_time"))
    return times, r.placements, r.stats, policy.chosen, policy.blocked


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), window=st.integers(1, 40))
def test_the_family_schedules_the_same_ahead_of_time_and_just_in_time(
    compiled: Any, case, window
) -> None:
    w, platform, params = case
    runs = [
        (ns.Coscheduling, params),
        (ns.CoschedulingBackfill, {**params, "window": window}),
        (_Loop, {**params, "window": window}),
    ]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ns, "_SCAN_FROM", 1)  # the loop scans every window with the kernel
        for cls, p in runs:
            assert isinstance(cc.kernels(_book_kernels.__name__).move, cc.Checked)
            ahead = _outcome(w, platform, cls, p)
            mp.setattr(cc, "ENABLED", False)  # numba's kernels
            assert not isinstance(cc.kernels(_book_kernels.__name__).move, cc.Checked)
            just = _outcome(w, platform, cls, p)
            mp.setattr(cc, "ENABLED", True)
            assert ahead == just, cls


def test_each_family_builds_its_own_module(compiled: Any) -> None:
    # A batch run builds only its loop and the parser (5 s of CPU), not the
    # node-sharing kernels (12 s more): each group is its own module, keyed apart.
    assert {cc._group(m) for m, _, _ in NODESHARE} == {"nodeshare"}
    assert {m for m, _, _ in NODESHARE} == {_book_kernels.__name__, _window_kernels.__name__}
    from cosched.workload import _swf_kernel

    swf = _swf_kernel.GROUP.name
    assert not set(cc._kernels_in(swf)) & set(NODESHARE)
    assert cc.kernel_dir(swf) != cc.kernel_dir("nodeshare")
    assert not hasattr(compiled, "batch_loop") and hasattr(compiled, "easy_pass")


def test_the_calls_are_checked_in_the_suite(compiled: Any) -> None:
    # conftest.py turns the checks on: every call of every test goes through Checked.
    assert cc.checking()
    assert isinstance(cc.kernels(_window_kernels.__name__).easy_pass, cc.Checked)


@pytest.mark.parametrize(("module", "name", "signature"), NODESHARE)
def test_each_signature_has_its_kernels_arguments(module: str, name: str, signature: str):
    func = getattr(sys.modules[module], name)
    func = getattr(func, "py_func", func)  # numba's dispatcher, once jitted()
    assert func in cc._MARKED
    source = inspect.signature(func)
    assert len(cc._arguments(signature)) == len(source.parameters)


def test_the_signature_reader_reads_what_numba_reads() -> None:
    kinds = cc._arguments("Tuple((i8, f8))(f8[::1], Tuple((i8[:, ::1], b1[:])), u1)")
    assert kinds == (
        cc._Array(np.dtype(np.float64), 1, True),
        (cc._Array(np.dtype(np.int64), 2, True), cc._Array(np.dtype(np.bool_), 1, False)),
        "u1",
    )
    with pytest.raises(ValueError, match="bad"):
        cc._arguments("i8(i4[::1])")


def test_checked_refuses_what_the_compiled_code_would_misread(compiled: Any) -> None:
    sig = _book_kernels.SIGNATURES
    jobs_on = cc.Checked("jobs_on", compiled.jobs_on, sig["jobs_on"])
    # Two nodes of 3: node 0 holds jobs 4 and 7, node 2 holds job 5.
    node_jobs = np.array([[4, -1, 5], [7, -1, -1]], dtype=np.int64)
    count = np.array([2, 0, 1], dtype=np.int64)
    nodes = np.array([0, 2], dtype=np.int64)
    assert jobs_on(nodes, node_jobs, count).tolist() == [4, 7, 5]
    ro = nodes.copy()
    ro.flags.writeable = False
    bad = {
        "float64": (nodes.astype(np.float64), node_jobs, count),  # same item size
        "2-d": (nodes.reshape(1, 2), node_jobs, count),
        "contiguous": (np.array([0, 9, 2, 9])[::2], node_jobs, count),
        "writeable": (ro, node_jobs, count),
        "1-d contiguous int64": (nodes, node_jobs, count.astype(np.int32)),
    }
    for words, args in bad.items():
        with pytest.raises(TypeError, match=f"jobs_on's argument.*{words}"):
            jobs_on(*args)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        jobs_on(nodes, node_jobs)
    # A tuple argument is checked item by item, a scalar by kind.
    kind = cc._arguments("i8(Tuple((i8[::1], f8[::1])), i8)")
    with pytest.raises(TypeError, match=r"x\[1\] must be .*float64"):
        cc._check(kind[0], (nodes, nodes), "x")
    with pytest.raises(TypeError, match="tuple of 2"):
        cc._check(kind[0], (nodes,), "x")
    with pytest.raises(TypeError, match="must be i8"):
        cc._check(kind[1], 2.5, "x")


def test_jitted_compiles_each_kernel_once_for_every_module_that_names_it() -> None:
    pytest.importorskip("numba")
    window = cc.jitted(_window_kernels.__name__)
    book = sys.modules[_book_kernels.__name__]
    assert window.move is book.move and hasattr(book.move, "py_func")
    assert book.usable is not None and hasattr(book.usable, "py_func")  # a callee too
    assert cc.jitted(_window_kernels.__name__) is window  # once


def test_a_run_with_the_compiled_kernels_loads_no_numba(compiled: Any, tmp_path: Path) -> None:
    """Importing the family and running nodeshare-easy and nodeshare loads no numba
    when the kernels are compiled ahead of time (0.4-0.6 s of every run)."""
    env = {**os.environ, "COSCHED_CHECK_KERNELS": "0"}
    loaded = loaded_on_the_bench_path(tmp_path, ("nodeshare-easy", "nodeshare"), env)
    assert loaded == {"pandas": False, "numba": False}
