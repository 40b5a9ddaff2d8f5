"""Shared by the tests that hold a compiled pass to the general loop."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from cosched.engine import Simulation, fastpath
from cosched.platform import Platform
from cosched.policies.base import make_policy
from cosched.workload.job import Workload

KTH = Path(__file__).resolve().parents[2] / "shared" / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz"
NEEDS_KTH = pytest.mark.skipif(not KTH.is_file(), reason=f"needs the KTH-SP2 trace at {KTH}")


def both(w: Workload, platform: Platform, name: str, **params: Any) -> tuple[Any, Any]:
    """The general and the compiled run of one configuration, with their policies."""
    out = []
    for fast_path in (False, True):
        policy = make_policy(name, **params)
        sim = Simulation(w, platform, policy, fast=fast_path)
        assert fastpath.eligible(sim) is not None  # the engine runs the compiled pass
        out.append((sim.run(), policy))
    return out[0], out[1]


def use_built_loop(compiled: Any, what: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Build the engine's loop with ``compiled`` bound ahead of time (skipped without a C
    compiler; failed if it does not build) and make every run load it, whatever its size."""
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler: the ahead-of-time loop cannot be built here")
    from cosched.engine import aot

    if aot.load_loop(compiled, build=True) is None:
        pytest.fail(f"the {what} event loop did not build")
    monkeypatch.setenv("COSCHED_FASTPATH_COMPILE_FROM", "0")  # the built loop, any size
