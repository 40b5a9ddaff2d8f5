"""A progress bar on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """Prints ``label  done/total (pct)`` in place, at most a few times a second."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self._last = 0.0
        self._shown = False

    def update(self, done: int, total: int) -> None:
        """Report progress; cheap when disabled or called often."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.2 and done < total:
            return
        self._last = now
        pct = 100.0 * done / total if total else 100.0
        self.stream.write(f"\r{self.label}  {done}/{total} jobs ({pct:5.1f}%)")
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        """End the bar's line."""
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
