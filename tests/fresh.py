"""A fresh interpreter, for the tests of what an import or a command loads."""

from __future__ import annotations

import subprocess
import sys


def python_out(code: str) -> str:
    """The standard output of ``python -c code`` in a fresh process (which must exit 0)."""
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return done.stdout
