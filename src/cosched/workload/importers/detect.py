"""Which format a log is in, from its first lines, and the message when it is the wrong one."""

from __future__ import annotations

import gzip
import re
import zlib

__all__ = ["detect_file", "sniff_text", "wrong_format"]

_PBS = re.compile(r"^[0-9]{2}/[0-9]{2}/[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2};[A-Za-z];[^;]*;")
_SWF_LINE = re.compile(r"^\s*-?\d+(?:\.\d+)?(?:\s+-?\d+(?:\.\d+)?){17}\s*$")
_SACCT_NAMES = ("JobID", "JobIDRaw")

_COMMAND = {
    "slurm": "`cosched trace import slurm`",
    "pbs": "`cosched trace import pbs`",
    "swf": "it directly, or `cosched trace info`",
}
_WHAT = {
    "slurm": "a Slurm sacct --parsable2 dump",
    "pbs": "a PBS accounting file",
    "swf": "an SWF trace",
}


def sniff_text(text: str) -> str | None:
    """``slurm``, ``pbs``, ``swf`` or None, from the first non-blank lines of ``text``."""
    lines = [ln for ln in text.split("\n")[:50] if ln.strip()]
    if not lines:
        return None
    first = lines[0].strip()
    if "|" in first and any(n in first.split("|") for n in _SACCT_NAMES):
        return "slurm"
    if _PBS.match(first):
        return "pbs"
    if first.startswith(";") or _SWF_LINE.match(first):
        return "swf"
    return None


def wrong_format(kind: str | None, expected: str) -> str:
    """The message for a file of format ``kind`` given where ``expected`` was asked."""
    if kind is None:
        return f"not {_WHAT[expected]}: the first line is neither an sacct header nor a record"
    return f"this looks like {_WHAT[kind]}, not {_WHAT[expected]}: use {_COMMAND[kind]}"


def detect_file(path: str, size: int = 1 << 16) -> str | None:
    """The format of the file at ``path`` from its first ``size`` bytes (gzip allowed)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(size)
    except OSError:
        return None
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, size)
        except (zlib.error, gzip.BadGzipFile):
            return None
    text = head.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")
    return sniff_text(text.replace("\r\n", "\n"))
