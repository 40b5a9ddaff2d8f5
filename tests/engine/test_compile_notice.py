"""A kernel that numba compiles on its first call says so on one line, with the time,
and is compiled by one process at a time."""

from __future__ import annotations

import io
import time

import pytest

from cosched.compile import announced


class _Kernel:
    """Stands in for a numba dispatcher: ``overloads`` fills when it has compiled."""

    def __init__(self, compiled: bool) -> None:
        self.overloads: dict[str, object] = {"sig": object()} if compiled else {}


def test_a_compiling_first_call_is_named_with_its_time() -> None:
    kernel, out = _Kernel(compiled=False), io.StringIO()
    with announced("the test kernel", kernel, after=0.01, stream=out):
        deadline = time.monotonic() + 30
        while "compiling" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
        kernel.overloads["sig"] = object()  # the compile ends
    text = out.getvalue()
    assert text.startswith("compiling the test kernel for this machine (once): ")
    assert text.endswith(" s\n") and text.count("\n") == 1


def test_a_compiled_or_quickly_loaded_kernel_says_nothing() -> None:
    out = io.StringIO()
    with announced("the test kernel", _Kernel(compiled=True), after=0.0, stream=out):
        time.sleep(0.05)
    kernel = _Kernel(compiled=False)
    with announced("the test kernel", kernel, after=30.0, stream=out):
        kernel.overloads["sig"] = object()  # loaded from the cache at once
    with announced("a plain function", len, after=0.0, stream=out):  # no overloads
        time.sleep(0.05)
    assert out.getvalue() == ""


def test_a_kernel_with_a_cache_index_gets_longer_before_it_is_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from types import SimpleNamespace

    from cosched.compile import _index_path

    index = tmp_path / "kernel.nbi"
    kernel = SimpleNamespace(
        _cache=SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(index)))
    )
    assert _index_path(kernel) == str(index)
    assert _index_path(_Kernel(compiled=False)) is None  # not numba's layout


def test_a_first_call_holds_a_lock_that_another_process_waits_for(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two processes (pytest's workers) calling the same kernel first: the second waits
    on a lock beside numba's cache index, then loads what the first compiled."""
    import fcntl
    from types import SimpleNamespace

    from cosched.compile import _first_compile

    index = tmp_path / "kernel.nbi"
    kernel = SimpleNamespace(
        overloads={},
        _cache=SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(index))),
    )

    def locked_elsewhere() -> bool:
        with open(str(index) + ".lock", "a+b") as other:  # another open file: as a process
            try:
                fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(other.fileno(), fcntl.LOCK_UN)
            return False

    with _first_compile(kernel):
        assert locked_elsewhere()
        with _first_compile(kernel):  # a first call inside another: no second lock
            assert locked_elsewhere()
    assert not locked_elsewhere()


@pytest.mark.slow
def test_two_processes_compile_a_kernel_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two processes starting the same new kernel together (pytest's two workers): one
    compiles it, the other waits on the lock and loads it from numba's cache."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "kmod.py").write_text(
        "import numpy as np\n"
        "from cosched.compile import jit\n\n"
        "@jit\n"
        "def heavy(a):\n"
        "    s = 0.0\n"
        "    for i in range(a.shape[0]):\n"
        "        for j in range(a.shape[1]):\n"
        "            s += np.sin(a[i, j]) * np.cos(a[j % a.shape[0], i]) ** 2\n"
        "    return s\n"
    )
    script = (
        "import sys, numpy as np\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import kmod\n"
        "from cosched.compile import announced\n"
        "with announced('the test kernel', kmod.heavy, after=600.0):\n"
        "    kmod.heavy(np.ones((3, 3)))\n"
        "stats = kmod.heavy.stats\n"
        "print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": src}
    procs = [
        subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    counts = sorted(tuple(int(x) for x in p.communicate(timeout=300)[0].split()) for p in procs)
    assert counts == [(0, 1), (1, 0)]  # one compiled (a miss), the other loaded (a hit)
