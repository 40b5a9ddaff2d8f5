"""The compile notice's old address: :func:`cosched.compile.announced`, for the
time-sharing engine, which imports it from here."""

from __future__ import annotations

from cosched.compile import AFTER, CACHED_AFTER, announced

__all__ = ["AFTER", "CACHED_AFTER", "announced"]
