"""The loader's rules as names (imports nothing heavy: the command line's choices)."""

from __future__ import annotations

import enum

__all__ = ["NonpositiveRun", "Overrun", "ProcsField", "TooWide"]


class ProcsField(enum.StrEnum):
    """Which SWF field gives a job's processor count."""

    ALLOCATED = "allocated"
    REQUESTED = "requested"
    MAX = "max"


class Overrun(enum.StrEnum):
    """What to do with a job whose run time exceeds its requested time."""

    EXTEND = "extend"
    KEEP = "keep"
    KILL = "kill"


class NonpositiveRun(enum.StrEnum):
    """What to do with a job whose run time is missing or <= 0."""

    DROP = "drop"
    ONE = "one"


class TooWide(enum.StrEnum):
    """What to do with a job wider than the machine."""

    ERROR = "error"
    DROP = "drop"
    CLIP = "clip"
