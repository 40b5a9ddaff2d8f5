"""The event loop a pass is bound into (:func:`cosched.engine.compiled.loop_of`): an
ordinary closure over the pass's functions, whose compiled form numba's cache finds
again in a new process; a pass's parameters, a named tuple of declared types."""

from __future__ import annotations

import subprocess
import sys
from typing import NamedTuple

import numpy as np
import pytest

from cosched.engine.compiled import loop_of, param_kinds, params_of
from cosched.gang._kernel import GangParams
from cosched.gang.fast import GANG_PASS
from cosched.nodeshare._pass import NsParams
from cosched.nodeshare.fast import NODESHARE_PASS
from cosched.policies.easy import EASY_PASS, EasyParams, easy_pass

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


class _Odd(NamedTuple):
    window: int
    name: str


def test_parameters_are_cast_to_their_declared_types() -> None:
    got = params_of(EASY_PASS, EasyParams(window=np.int64(3)))  # type: ignore[arg-type]
    assert got.window == 3 and type(got.window) is int
    assert got.gone_t.dtype == np.float64 and got.gone_v.dtype == np.int64
    tables = params_of(
        NODESHARE_PASS,
        NsParams(4, 2, 2, 0, True, True, [0], [1], [1], [1], [1], [0]),  # type: ignore[arg-type]
    )
    assert [t.dtype for t in tables[6:]] == [np.int64] * 3 + [np.float64] * 3
    assert param_kinds(NODESHARE_PASS.params)[6:] == ("i8[::1]",) * 3 + ("f8[::1]",) * 3
    flags = params_of(GANG_PASS, GangParams(*[np.int64(1)] * 9, 1, 1, 0))  # type: ignore[arg-type]
    assert [type(v) for v in flags] == [int, int, bool, bool, bool, int, bool, int, bool,
                                        float, float, float]  # fmt: skip


def test_parameters_of_another_type_are_refused() -> None:
    with pytest.raises(TypeError, match="easy pass's arguments gave GangParams, not EasyParams"):
        params_of(EASY_PASS, GangParams(1, 1, False, False, False, -1, False, 1, False, 1, 1, 0))
    with pytest.raises(TypeError, match=r"_Odd\.name: a pass's parameter is an int"):
        param_kinds(_Odd)
