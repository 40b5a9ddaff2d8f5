"""The README's status column is generated from the stored claims (docs/claims/*.csv)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_status_column_matches_the_stored_claims() -> None:
    script = ROOT / "scripts" / "readme_status.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
