"""A progress bar on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """Prints ``label  done/total unit (pct, ETA)`` in place, a few times a second."""

    def __init__(self, label: str, stream: TextIO | None = None, *, unit: str = "jobs") -> None:
        self.label = label
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self._last = 0.0
        self._shown = False
        self._began = time.monotonic()
        self._first: int | None = None

    def update(self, done: int, total: int) -> None:
        """Report progress; cheap when disabled or called often."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.2 and done < total:
            return
        self._last = now
        pct = 100.0 * done / total if total else 100.0
        if self._first is None:
            self._first, self._began = done, now  # work done before (resumed) is not timed
        eta = ""
        if done > self._first and done < total:
            left = (now - self._began) / (done - self._first) * (total - done)
            eta = f", ETA {int(left // 60)}:{int(left % 60):02d}"
        self.stream.write(f"\r{self.label}  {done}/{total} {self.unit} ({pct:5.1f}%{eta})  ")
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        """End the bar's line."""
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
