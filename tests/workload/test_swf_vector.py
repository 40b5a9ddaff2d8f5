"""The parser in numpy's compiled code against Python's ``float``, token by token.

Python's ``float`` is the reference: for every text the parser accepts, each value
must be the double ``float`` gives for the same token, bit for bit (sign of zero
included), and each row's line its line in the text; a text written another way must
be refused (None), never read differently.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosched.workload import _swf_vector
from cosched.workload._swf_vector import parse_text

DIGITS = st.text("0123456789", min_size=1, max_size=15)


@st.composite
def number(draw: st.DrawFn) -> str:
    """A number the parser must read: [-]digits[.digits], at most 15 characters."""
    whole = draw(DIGITS)
    kind = draw(st.sampled_from(["int", "point", "trailing", "leading"]))
    if kind == "point":
        text = f"{whole}.{draw(DIGITS)}"
    elif kind == "trailing":
        text = f"{whole}."
    elif kind == "leading":
        text = f".{whole}"  # with a sign: refused (see below)
    else:
        text = whole
    if draw(st.booleans()):
        text = "-" + text
    return text


def _expected(text: str) -> tuple[np.ndarray, np.ndarray]:
    rows, lines = [], []
    for k, line in enumerate(text.split("\n")):
        tokens = line.split()
        if tokens:
            rows.append([float(t) for t in tokens])
            lines.append(k)
    return np.array(rows, dtype=np.float64).reshape(-1, 18), np.array(lines, dtype=np.int64)


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(st.lists(number(), min_size=18, max_size=18), max_size=12),
    seps=st.lists(st.sampled_from([" ", "  ", "\t", " \t "]), min_size=1, max_size=4),
    blank=st.lists(st.booleans(), max_size=12),
    piece=st.sampled_from([40, 200, 1 << 18]),
)
def test_every_accepted_value_is_the_double_float_gives(
    rows: list[list[str]], seps: list[str], blank: list[bool], piece: int
) -> None:
    lines: list[str] = []
    for k, row in enumerate(rows):
        if k < len(blank) and blank[k]:
            lines.append(seps[0])  # a blank line between jobs
        lines.append(" " + seps[k % len(seps)].join(row) + seps[-1])
    text = "\n".join(lines) + ("\n" if rows and len(rows) % 2 else "")
    within = [t for row in rows for t in row]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_swf_vector, "PIECE_BYTES", piece)
        got = parse_text(text.encode())
    if any(len(t) > 15 or t.startswith("-.") for t in within):
        assert got is None  # outside what it reads exactly: refused
        return
    assert got is not None
    values, where = _expected(text)
    assert got[0].shape == values.shape
    assert np.array_equal(got[0].view(np.int64), values.view(np.int64))  # bits, -0.0 too
    assert np.array_equal(got[1], where)
    assert got[2].tolist() == [k for k, t in enumerate(within) if "." in t]


ROW = " ".join(["1"] * 17)


@pytest.mark.parametrize(
    "token",
    ["+5", "1e3", "-.5", "1.2.3", "-", ".", "nan", "inf", "0x10", "1_0", "--1", "1-2",
     "1234567890123456", "\xa0", ";"],
)  # fmt: skip
def test_a_number_written_another_way_is_refused(token: str) -> None:
    assert parse_text(f"{ROW} 7\n{ROW} {token}\n".encode()) is None


@pytest.mark.parametrize(
    "text",
    [f"{ROW}\n", f"{ROW} 1 1\n", f"{ROW} 1\n{ROW}\n", f"{ROW} 1 {ROW} 1\n", f"{ROW}\n1\n",
     f"{ROW} 1 ; a comment\n"],
)  # fmt: skip
def test_a_line_of_another_field_count_is_refused(text: str) -> None:
    assert parse_text(text.encode()) is None


def test_hand_read_values() -> None:
    text = f"{ROW} -0\n\n \t{ROW} 007\n{ROW} 12.50\n{ROW} .5\n{ROW} 5.\n{ROW} 999999999999999"
    values, lines, pointed = parse_text(text.encode())  # type: ignore[misc]
    last = values[:, 17]
    assert last.tolist() == [0.0, 7.0, 12.5, 0.5, 5.0, 999999999999999.0]
    assert np.signbit(last[0]) and not np.signbit(last[1])
    assert lines.tolist() == [0, 2, 3, 4, 5, 6]
    assert pointed.tolist() == [2 * 18 + 17, 3 * 18 + 17, 4 * 18 + 17]
    assert (values[:, :17] == 1).all()


def test_nothing_but_blanks_is_no_rows() -> None:
    for text in (b"", b"\n", b"  \n\t\n"):
        values, lines, pointed = parse_text(text)  # type: ignore[misc]
        assert values.shape == (0, 18) and lines.size == 0 and pointed.size == 0
