"""A table of numpy columns, and the attribute that shows it to users as a DataFrame.

``cosched run`` reads a trace, applies the loader rules, simulates and writes the
per-job table without pandas: importing pandas alone costs about 0.3 s of CPU, more
than the whole simulation of a small trace. The run path keeps its tables as
:class:`Columns` (an ordered mapping of equal-length numpy arrays); the public
attributes that have always been DataFrames (:attr:`Workload.table`,
:attr:`SimulationResult.jobs`, :attr:`SwfTrace.table`) are :class:`FrameField`
descriptors that build the DataFrame on first use and keep it, so library users see
no change.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, overload

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Columns", "FrameField", "columns_of"]


class Columns(Mapping[str, np.ndarray]):
    """Named numpy columns of one length, in order.

    Only what the run path needs: read a column, set one (same length), keep rows
    by a boolean mask or a slice, and turn into a DataFrame.
    """

    __slots__ = ("_cols", "_n")

    def __init__(self, cols: Mapping[str, ArrayLike] | None = None) -> None:
        self._cols: dict[str, np.ndarray] = {}
        self._n: int = len(cols) if isinstance(cols, Columns) else 0
        # Not ``cols or {}``: a table with no rows is falsy (``len`` counts rows).
        for name, values in cols.items() if cols is not None else ():
            self[name] = values

    def __getitem__(self, name: str) -> np.ndarray:
        return self._cols[name]

    def __setitem__(self, name: str, values: ArrayLike) -> None:
        arr = np.asarray(values)
        if arr.ndim == 0:
            arr = np.full(self._n, arr)
        if self._cols and len(arr) != self._n:
            raise ValueError(f"column {name!r} has {len(arr)} values, the table {self._n}")
        self._n = len(arr)
        self._cols[name] = arr

    def __iter__(self) -> Iterator[str]:
        return iter(self._cols)

    def __len__(self) -> int:
        """Rows (not columns, unlike a plain mapping: as a DataFrame's ``len``)."""
        return self._n

    @property
    def columns(self) -> list[str]:
        """The column names, in order."""
        return list(self._cols)

    def select(self, names: list[str] | tuple[str, ...]) -> Columns:
        """These columns only, in this order (arrays shared)."""
        return Columns({n: self._cols[n] for n in names})

    def rows(self, which: np.ndarray | slice) -> Columns:
        """The rows a boolean mask, an index array or a slice selects (copies)."""
        out = Columns()
        for name, values in self._cols.items():
            out[name] = values[which]
        if not self._cols:
            out._n = len(np.arange(self._n)[which])
        return out

    def keep_rows(self, which: np.ndarray) -> None:
        """Keep only the rows a boolean mask selects, in place: a column at a time, so
        that each old column can be freed before the next is copied."""
        n = int(np.count_nonzero(which))
        for name in list(self._cols):
            self._cols[name] = self._cols[name][which]
        self._n = n

    def pop(self, name: str) -> np.ndarray:
        """Remove a column and return it (the row count stays)."""
        return self._cols.pop(name)

    def copy(self) -> Columns:
        """A table whose arrays are copies."""
        return Columns({n: v.copy() for n, v in self._cols.items()})

    def to_frame(self) -> pd.DataFrame:
        """The same table as a pandas DataFrame (a default integer index)."""
        import pandas as pd

        return pd.DataFrame(self._cols, columns=list(self._cols), index=pd.RangeIndex(self._n))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> Columns:
        """A DataFrame's columns as numpy arrays (no copy where pandas allows)."""
        out = cls()
        for name in frame.columns:
            out[str(name)] = frame[name].to_numpy()
        out._n = len(frame)
        return out


def columns_of(table: pd.DataFrame | Columns) -> Columns:
    """``table`` as :class:`Columns`: itself, or a DataFrame's columns."""
    if isinstance(table, Columns):
        return table
    return Columns.from_frame(table)


class FrameField:
    """A dataclass field that holds a :class:`Columns` or a DataFrame and reads as a
    DataFrame, built from the columns on first read and kept.

    ``owner.<name>_columns`` is not defined here: owners read the raw value with
    :meth:`columns`.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.slot = f"_{name}_value"
        self.frame = f"_{name}_frame"

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> FrameField: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> pd.DataFrame: ...
    def __get__(self, obj: object, owner: type | None = None) -> pd.DataFrame | FrameField:
        if obj is None:
            # No class-level default: the dataclass field stays required.
            raise AttributeError(self.name)
        d = obj.__dict__
        frame = d.get(self.frame)
        if frame is None:
            value = d[self.slot]
            frame = value.to_frame() if isinstance(value, Columns) else value
            d[self.frame] = frame
        return frame

    def __set__(self, obj: object, value: pd.DataFrame | Columns) -> None:
        obj.__dict__[self.slot] = value
        obj.__dict__.pop(self.frame, None)
        obj.__dict__.pop(f"_{self.name}_columns", None)

    def columns(self, obj: object) -> Columns:
        """The field's value as :class:`Columns` (converted once from a DataFrame)."""
        d = obj.__dict__
        key = f"_{self.name}_columns"
        cols = d.get(key)
        if cols is None:
            cols = columns_of(d[self.slot])
            d[key] = cols
        return cols
