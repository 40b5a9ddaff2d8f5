""":func:`cosched.engine._batch_kernels.batch_loop` compiled by numba.

Imported only by the fast path for workloads large enough to repay loading numba
(:data:`cosched.engine.fastpath.COMPILE_FROM`). ``cache=True``: the machine code is
compiled once per machine and kept in ``__pycache__`` beside ``_batch_kernels.py``.
With ``NUMBA_DISABLE_JIT=1`` the same function runs as plain Python.
"""

from __future__ import annotations

from collections.abc import Callable

from numba import njit

from cosched.engine._batch_kernels import batch_loop as _plain

__all__ = ["batch_loop"]

batch_loop: Callable[..., None] = njit(cache=True, nogil=True)(_plain)
