"""The event loop a pass is bound into (:func:`cosched.engine.compiled.loop_of`): an
ordinary closure over the pass's functions, whose compiled form numba's cache finds
again in a new process."""

from __future__ import annotations

import subprocess
import sys

from cosched.engine.compiled import loop_of
from cosched.policies.easy import EASY_PASS, easy_pass

# What numba's cache keys a closure by, beside its bytecode (numba.core.caching:
# _CacheImpl's index key): the pickle of the values it closes over.
_CLOSED_OVER = """
import hashlib
from numba.core.serialize import dumps
from cosched.engine.compiled import loop_of
from cosched.policies.easy import EASY_PASS
bound = loop_of(EASY_PASS, compiled=True)
cells = tuple(c.cell_contents for c in bound.__closure__)
print(hashlib.sha256(dumps(cells)).hexdigest())
"""


def test_plain_loop_closes_over_the_pass_functions() -> None:
    bound = loop_of(EASY_PASS, compiled=False)
    closed = {c.cell_contents for c in bound.__closure__ or ()}
    assert easy_pass in closed


def test_compiled_loop_is_keyed_the_same_in_every_process() -> None:
    keys = {
        subprocess.run(
            [sys.executable, "-c", _CLOSED_OVER], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(keys) == 1 and len(next(iter(keys)).strip()) == 64
