"""The Ousterhout matrix of job-level gang scheduling.

Rows are time slots (at most the multiprogramming level), columns are the machine's
allocation units (cores in ``cores`` allocation, whole nodes in ``nodes`` allocation).
A running job sits in one row on a set of columns; all rows in use are served round
robin, one quantum each. With *alternate scheduling* a job also runs in the slot of
any other row in use in which all of its columns are idle.

The matrix keeps, per job, a bit mask of the rows whose cells under the job's columns
are free (its own row included): the rows in which it could run. A start or an end in
row ``r`` on columns ``C`` changes the mask bit ``r`` only of jobs that share a column
with ``C``, so updates touch those jobs alone.
"""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = ["Matrix", "Packing", "cyclic_runs"]

Packing = Literal["first-fit", "buddy"]

IntArray = npt.NDArray[np.int64]


@functools.cache
def cyclic_runs(mask: int, used: int) -> int:
    """Maximal runs of consecutive set bits of ``mask`` among the rows of ``used``,
    taken cyclically (row order is the slot order of one round)."""
    rows = [r for r in range(used.bit_length()) if used >> r & 1]
    bits = [mask >> r & 1 for r in rows]
    if all(bits):
        return 1 if bits else 0
    return sum(1 for i, b in enumerate(bits) if b and not bits[i - 1])


class Matrix:
    """Rows x columns of job indices (-1: idle), with per-column memory in use.

    Args:
        rows: the multiprogramming level (time slots).
        columns: allocation units of the machine.
        packing: ``first-fit`` (the first row with enough free columns, lowest free
            columns) or ``buddy`` (aligned blocks of a power of two columns, the first
            row and lowest block that fit).
        memory_limit: memory per column (None: unlimited).
    """

    __slots__ = (
        "cols",
        "free",
        "mask",
        "mem",
        "mem_used",
        "memory_limit",
        "occ",
        "packing",
        "row",
        "used",
    )

    def __init__(
        self, rows: int, columns: int, packing: Packing, memory_limit: float | None
    ) -> None:
        self.occ: npt.NDArray[np.int64] = np.full((rows, columns), -1, dtype=np.int64)
        self.free = [columns] * rows
        self.packing = packing
        self.memory_limit = memory_limit
        self.mem_used = np.zeros(columns, dtype=float)
        self.row: dict[int, int] = {}
        self.cols: dict[int, IntArray] = {}
        self.mem: dict[int, float] = {}
        self.mask: dict[int, int] = {}
        #: bit mask of the rows holding at least one job.
        self.used = 0

    @property
    def rows(self) -> int:
        """Number of rows (the multiprogramming level)."""
        return len(self.free)

    @property
    def columns(self) -> int:
        """Number of columns."""
        return int(self.occ.shape[1])

    # -- placement ----------------------------------------------------------------------

    def _ok(self, row: int, mem: float) -> npt.NDArray[np.bool_]:
        ok = self.occ[row] < 0
        if self.memory_limit is not None and mem > 0:
            ok &= self.mem_used + mem <= self.memory_limit
        return ok

    def fit(self, size: int, mem: float = 0.0) -> tuple[int, IntArray] | None:
        """Where a job of ``size`` columns and ``mem`` memory per column would go now:
        ``(row, columns)``, or None if no row has room."""
        if self.packing == "buddy":
            return self._fit_buddy(size, mem)
        limited = self.memory_limit is not None and mem > 0
        for r, free in enumerate(self.free):
            if free < size:
                continue
            if not limited:  # the row's free cells are its first ``size`` idle columns
                return r, (self.occ[r] < 0).nonzero()[0][:size]
            where = np.flatnonzero(self._ok(r, mem))
            if len(where) >= size:
                return r, where[:size]
        return None

    def block(self, size: int) -> int:
        """The buddy block width for ``size`` columns (a power of two)."""
        return 1 << (size - 1).bit_length()

    def _fit_buddy(self, size: int, mem: float) -> tuple[int, IntArray] | None:
        width = self.block(size)
        n = self.columns
        for r, free in enumerate(self.free):
            if free < size:
                continue
            ok = self._ok(r, mem)
            for a in range(0, n, width):
                b = min(a + width, n)
                if b - a >= size and ok[a:b].all():
                    return r, np.arange(a, b, dtype=np.int64)
        return None

    def _others(self, cols: IntArray) -> list[int]:
        """The jobs in any row on ``cols``, sorted."""
        found = set(self.occ.take(cols, axis=1).ravel().tolist())  # take: no index parsing
        found.discard(-1)
        return sorted(found)

    def add(self, idx: int, row: int, cols: IntArray, run: int, mem: float) -> list[int]:
        """Put job ``idx`` in ``row`` on ``cols`` (it computes on the first ``run``);
        returns the other jobs whose mask changed."""
        touched = self._others(cols)
        self.occ[row].put(cols, idx)
        self.free[row] -= len(cols)
        self.used |= 1 << row
        if mem:  # adding zero changes no cell
            self.mem_used[cols[:run]] += mem
        self.row[idx] = row
        self.cols[idx] = cols
        self.mem[idx] = mem
        # A row is free under the job's columns unless one of the jobs found there sits
        # in it; its own row counts as free.
        rows, busy = self.row, 0
        for j in touched:
            busy |= 1 << rows[j]
        self.mask[idx] = ((1 << len(self.free)) - 1) & ~busy | 1 << row
        clear = ~(1 << row)
        mask = self.mask
        for j in touched:
            mask[j] &= clear
        return touched

    def remove(self, idx: int, run: int) -> list[int]:
        """Take job ``idx`` out; returns the other jobs whose mask changed."""
        occ = self.occ
        row = self.row.pop(idx)
        cols = self.cols.pop(idx)
        mem = self.mem.pop(idx)
        del self.mask[idx]
        occ[row].put(cols, -1)
        self.free[row] += len(cols)
        if self.free[row] == occ.shape[1]:
            self.used &= ~(1 << row)
        if mem:
            self.mem_used[cols[:run]] -= mem
        touched = self._others(cols)
        bit = 1 << row
        mask, jcols, line = self.mask, self.cols, occ[row]
        for j in touched:
            if line.take(jcols[j]).max() < 0:  # the row is idle under all of j's columns
                mask[j] |= bit
        return touched

    def verify(self) -> str | None:
        """Recount from the job records; a description of the first mismatch."""
        occ = np.full_like(self.occ, -1)
        for idx, row in self.row.items():
            cols = self.cols[idx]
            if (occ[row, cols] >= 0).any():
                return f"job {idx} overlaps another job in row {row}"
            occ[row, cols] = idx
        if not np.array_equal(occ, self.occ):
            return "matrix cells out of step with the job records"
        for r, f in enumerate(self.free):
            if f != int((self.occ[r] < 0).sum()):
                return f"row {r}: free count {f} wrong"
            if bool(self.used >> r & 1) != (f < self.columns):
                return f"row {r}: in-use bit wrong"
        return None
