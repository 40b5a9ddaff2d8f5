"""A compiled parser for blocks of SWF job lines written the usual way.

It accepts only what it can parse exactly: lines of 18 numbers separated by blanks or
tabs, with ``;`` comments and blank lines; a number is an optional ``-`` and at most
15 digits (exact in float64), or, in a field that may be fractional, at most 15
digits with one decimal point between digits and no sign. A decimal ``m / 10^k``
(``m`` < 2^53, ``k`` <= 15: both exact) is one correctly rounded division, the
double nearest to the decimal, which is what Python's ``float`` and pandas' parser
give too. Anything else (an exponent, a ``+``, a decimal point in an integer field,
another count of fields, any other byte) makes it give up on the block, which then
goes through the other parsers and, for the error message, the line-by-line parser
(:mod:`cosched.workload.swf`). The values it gives are the ones those parsers give
for the same text, so which parser read a block never shows.

The module is plain Python (it imports no numba): :func:`parse_block` is marked with
:func:`cosched.compile.kernel`, and the ``swf`` group declared here compiles it ahead of
time; :func:`parse` runs that form when it is built, else numba's
(:func:`cosched.compile.jitted`).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from cosched.compile import Group, jitted, kernel, load, register

__all__ = ["GROUP", "SIGNATURES", "parse", "parse_block", "self_check"]

_FIELDS = 18
_MAX_DIGITS = 15
#: 10^0 ... 10^15, each exact in float64.
_POW10 = np.array([10.0**k for k in range(_MAX_DIGITS + 1)])


@kernel
def parse_block(
    data: np.ndarray, signed: np.ndarray, fractional: np.ndarray
) -> tuple[np.ndarray, np.ndarray, bool]:  # pragma: no cover
    """``(values, line offsets, ok)``: the (18, n) values and each row's line index.

    Besides the syntax, it gives up on a value the reader refuses (a job id <= 0, a
    negative value other than -1 in a field not marked ``signed``), so that the
    line-by-line pass names it; the values it returns need no further check.

    Args:
        data: the block's bytes (uint8), whole lines ending in ``\\n``.
        signed: per field, whether any integer is allowed (bool, 18).
        fractional: per field, whether a decimal point is allowed (bool, 18).
    """
    n_lines = 0
    for b in data:
        if b == 10:
            n_lines += 1
    if data.size and data[data.size - 1] != 10:
        n_lines += 1
    out = np.empty((_FIELDS, n_lines), dtype=np.float64)
    where = np.empty(n_lines, dtype=np.int64)
    rows = 0
    line = 0
    i = 0
    n = data.size
    while i < n:
        field = 0
        comment = False
        while i < n and data[i] != 10:
            c = data[i]
            if comment:
                i += 1
                continue
            if c == 32 or c == 9:
                i += 1
                continue
            if c == 59:  # ';'
                comment = True
                i += 1
                continue
            negative = False
            if c == 45:  # '-'
                negative = True
                i += 1
            value = np.int64(0)
            digits = 0
            while i < n and 48 <= data[i] <= 57:
                value = value * 10 + (np.int64(data[i]) - 48)
                digits += 1
                i += 1
            scale = 0
            if i < n and data[i] == 46 and digits and field < _FIELDS and fractional[field]:
                if negative:  # '.'
                    return out[:, :0], where[:0], False
                i += 1
                while i < n and 48 <= data[i] <= 57:
                    value = value * 10 + (np.int64(data[i]) - 48)
                    digits += 1
                    scale += 1
                    i += 1
                if scale == 0:
                    return out[:, :0], where[:0], False
            if digits == 0 or digits > _MAX_DIGITS or field == _FIELDS:
                return out[:, :0], where[:0], False
            if i < n and not (data[i] == 32 or data[i] == 9 or data[i] == 10 or data[i] == 59):
                return out[:, :0], where[:0], False
            if negative and value != 1 and not signed[field]:
                return out[:, :0], where[:0], False
            if field == 0 and (negative or value == 0):
                return out[:, :0], where[:0], False
            v = float(value)
            if scale:
                v = v / _POW10[scale]
            out[field, rows] = -v if negative else v
            field += 1
        if field == _FIELDS:
            where[rows] = line
            rows += 1
        elif field != 0:
            return out[:, :0], where[:0], False
        line += 1
        i += 1
    return out[:, :rows], where[:rows], True


# -- compiled ahead of time (cosched.compile) --------------------------------------------

SIGNATURES = {"parse_block": "Tuple((f8[:, :], i8[:], b1))(u1[::1], b1[::1], b1[::1])"}

#: The SWF parser, built as one module on first use by a long trace.
GROUP = Group("swf", "_cosched_swf", (__name__,), f"{__name__}:self_check")
register(GROUP)


def parse(
    data: np.ndarray, signed: np.ndarray, fractional: np.ndarray, *, build: bool
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """:func:`parse_block` compiled: ahead of time when it is built (or, with ``build``,
    can be), else numba's when ``build``; None with neither. ``data`` may be read-only
    (the kernel only reads it)."""
    data = np.ascontiguousarray(data, dtype=np.uint8)
    signed = np.ascontiguousarray(signed, dtype=np.bool_)
    fractional = np.ascontiguousarray(fractional, dtype=np.bool_)
    if data.ndim != 1 or signed.shape != (18,) or fractional.shape != (18,):
        raise TypeError("parse_block needs 1-d bytes and 18 flags of each kind")
    built = load(build=build, group=GROUP.name)  # unchecked: the arrays are checked here
    if built is not None:
        values, where, ok = built.parse_block(data, signed, fractional)
    elif build:
        values, where, ok = jitted(__name__).parse_block(data, signed, fractional)
    else:
        return None
    return values, where, bool(ok)


def self_check(module: ModuleType) -> None:
    """The compiled SWF parser gives its source's results on a small case."""
    text = (
        b"1 0 10 5 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        b"2 1.5 0 5 4 -1 -1 4 10.25 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    data = np.frombuffer(text, dtype=np.uint8).copy()
    flags = np.ones(18, dtype=np.bool_)
    a, where, ok = module.parse_block(data, flags, flags)
    source = getattr(parse_block, "py_func", parse_block)
    b, where2, ok2 = source(data, flags, flags)
    if not (ok and ok2 and np.array_equal(a, b) and np.array_equal(where, where2)):
        raise RuntimeError("the compiled SWF parser differs from its source")
