"""A parser for SWF job lines in numpy's own compiled code, cheap to load.

It accepts only text it can read exactly and gives the values Python's ``float`` gives
for the same tokens: lines of 18 numbers separated by the bytes ``bytes.split()``
splits on, blank lines allowed; a number is an optional leading ``-`` followed by a
digit, then digits with at most one decimal point, at most 15 characters in all (so at
most 15 digits, exact in float64, and with a decimal point at most 14). Anything else
(a ``;`` comment, ``+``, an exponent, ``-.5``, a longer number, another byte, a line of
another field count) makes it refuse the text, which then goes to the other parsers
and, for an error, to the line-by-line pass that names file, line, field and value
(:mod:`cosched.workload.swf`).

How: the bytes are classified through one lookup table; tokens are the runs of
non-blank bytes (their starts and ends from one comparison of neighbours); each row of
18 tokens must lie on one line and rows on distinct lines (checked against the
positions of the newlines). The value of a token of at most 8 characters is read as
one little-endian 64-bit word of its digit values (other bytes zero, the bytes before
the token masked off) and combined in three multiply-and-add steps (pairs, fours,
eights); a longer one adds a second word times 10^8. A decimal ``m / 10^k`` (``m`` <
2^53, ``k`` <= 14, both exact) is one correctly rounded division: the double nearest
to the decimal, as ``float`` gives. The text is read in pieces of about
:data:`PIECE_BYTES` cut at line ends, so that the temporary arrays stay in the cache and
below the allocator's mmap threshold.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["PIECE_BYTES", "parse_text"]

_N = 18
#: Longest number read (characters, sign and point included): 15 digits are exact.
MAX_CHARS = 15
#: Text parsed at a time (whole lines): measured fastest near 128-1,024 KiB.
PIECE_BYTES = 1 << 18

_BLANK, _MINUS, _DOT, _OTHER = 16, 17, 18, 19
#: Byte -> its digit value (0-9), or the class of a non-digit.
_CODE = np.full(256, _OTHER, dtype=np.uint8)
_CODE[48:58] = np.arange(10)
_CODE[[9, 10, 11, 12, 13, 32]] = _BLANK  # what bytes.split() splits on
_CODE[45] = _MINUS
_CODE[46] = _DOT
#: Mask keeping the last k bytes of a little-endian word (the token's end), k = 0..8.
_KEEP = np.array(
    [0] + [(2**64 - 1) ^ ((1 << (8 * (8 - k))) - 1) for k in range(1, 8)] + [2**64 - 1],
    dtype=np.uint64,
)
_POW10 = 10 ** np.arange(MAX_CHARS + 2, dtype=np.int64)
_LANES = (
    (np.uint64(8), np.uint64(0x00FF00FF00FF00FF), np.uint64(10)),
    (np.uint64(16), np.uint64(0x0000FFFF0000FFFF), np.uint64(100)),
    (np.uint64(32), np.uint64(0x00000000FFFFFFFF), np.uint64(10_000)),
)
#: Leading zero bytes before the digits, so that a word may start before the text.
_PAD = 16


def _eight(x: np.ndarray) -> np.ndarray:
    """Each word of 8 digit values (first digit in the low byte) as its number, in place."""
    t = np.empty_like(x)
    for shift, mask, scale in _LANES:
        np.bitwise_and(x, mask, out=t)  # the more significant half of each lane
        x >>= shift
        x &= mask
        t *= scale
        x += t
    return x


def _piece(body: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
    """The (n, 18) values, the 0-based line of each row, the flat indices of the values
    written with a decimal point and the number of newlines; or None (refused)."""
    b = np.frombuffer(body, dtype=np.uint8)
    padded = np.zeros(b.size + _PAD, dtype=np.uint8)
    code = padded[_PAD:]
    code[:] = _CODE[b]
    if (code == _OTHER).any():
        return None
    tok = code != _BLANK
    edge = np.flatnonzero(tok[1:] != tok[:-1]) + 1
    if tok[0]:
        edge = np.concatenate(([0], edge))
    if tok[-1]:
        edge = np.concatenate((edge, [b.size]))
    starts, ends = edge[0::2], edge[1::2]
    if starts.size % _N:
        return None
    # Each row's 18 tokens on one line, the rows on lines that only grow.
    newlines = np.flatnonzero(b == 10)
    line = np.searchsorted(newlines, starts[::_N])
    if (line != np.searchsorted(newlines, ends[_N - 1 :: _N])).any() or (np.diff(line) <= 0).any():
        return None
    minus = np.flatnonzero(code == _MINUS)
    if minus.size and (
        minus[-1] + 1 >= b.size
        or (code[minus + 1] >= 10).any()  # a digit after it
        or (code[minus[minus > 0] - 1] != _BLANK).any()  # first in its token
    ):
        return None
    size = ends - starts
    negative = b[starts] == 45
    digits = size - negative
    dots = np.flatnonzero(code == _DOT)
    owner = np.searchsorted(starts, dots, side="right") - 1
    if dots.size:
        if (np.diff(owner) == 0).any():
            return None  # two points in one number
        digits[owner] -= 1
    if digits.min(initial=1) < 1 or size.max(initial=0) > MAX_CHARS:
        return None
    code[code >= 10] = 0  # digit values only
    words = sliding_window_view(padded, 8).view("<u8")[:, 0]
    low = words[ends + (_PAD - 8)]
    low &= _KEEP[np.minimum(size, 8)]
    m = _eight(low)
    long = np.flatnonzero(size > 8)
    if long.size:
        high = words[ends[long] + (_PAD - 16)]
        high &= _KEEP[size[long] - 8]
        m[long] += _eight(high) * np.uint64(10**8)
    whole = m.view(np.int64)
    values = whole.astype(np.float64)
    if dots.size:
        after = ends[owner] - 1 - dots  # digits after the point
        read = whole[owner]  # the point read as a 0 digit
        exact = (read // _POW10[after + 1]) * _POW10[after] + read % _POW10[after]
        values[owner] = exact / _POW10[after].astype(np.float64)
    np.negative(values, out=values, where=negative)
    return values.reshape(-1, _N), line, owner, newlines.size


def parse_text(body: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The job lines of ``body`` (text after the header, ``\\n`` line ends).

    Returns:
        ``(values, lines, pointed)``: the (n, 18) float64 values in file order, the
        0-based line (within ``body``) of each row, and the flat indices (into
        ``values.ravel()``) of the values written with a decimal point (the only ones
        that can be fractional); None when the text is not written the way this parser
        reads (the caller then tries the others).
    """
    parts: list[np.ndarray] = []
    lines: list[np.ndarray] = []
    pointed: list[np.ndarray] = []
    pos = line = rows = 0
    end = len(body)
    while pos < end:
        cut = body.rfind(b"\n", pos, pos + PIECE_BYTES) + 1 if pos + PIECE_BYTES < end else end
        if cut <= pos:  # a line longer than a piece: the rest at once
            cut = end
        got = _piece(body[pos:cut])
        if got is None:
            return None
        values, where, dots, newlines = got
        parts.append(values)
        lines.append(where + line)
        pointed.append(dots + rows * _N)
        line += newlines
        rows += len(values)
        pos = cut
    if not parts:
        nothing = np.empty(0, dtype=np.int64)
        return np.empty((0, _N)), nothing, nothing
    if len(parts) == 1:
        return parts[0], lines[0], pointed[0]
    return np.concatenate(parts), np.concatenate(lines), np.concatenate(pointed)
