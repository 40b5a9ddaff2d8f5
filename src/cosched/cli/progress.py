"""A progress bar on stderr: in place on a terminal; elsewhere (a log file, ``nohup``,
a batch job) one plain line every :data:`LINE_EVERY` seconds of a long task."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["LINE_EVERY", "ProgressBar"]

#: Seconds between the plain progress lines written where stderr is not a terminal (a
#: task shorter than this writes none).
LINE_EVERY = 60.0


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
        """Report progress; cheap when called often."""
        now = time.monotonic()
        if self._first is None:
            self._first, self._began = done, now  # work done before (resumed) is not timed
            self._last = now if not self.enabled else 0.0
        every = 0.2 if self.enabled else LINE_EVERY
        if now - self._last < every and (done < total or not self.enabled):
            return
        self._last = now
        pct = 100.0 * done / total if total else 100.0
        eta = ""
        if done > self._first and done < total:
            left = (now - self._began) / (done - self._first) * (total - done)
            eta = f", ETA {int(left // 60)}:{int(left % 60):02d}"
        text = f"{self.label}  {done}/{total} {self.unit} ({pct:5.1f}%{eta})"
        if self.enabled:
            self.stream.write(f"\r{text}  ")
            self._shown = True
        else:
            elapsed = now - self._began
            self.stream.write(f"{text}, {int(elapsed // 60)} min {int(elapsed % 60):02d} s in\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
