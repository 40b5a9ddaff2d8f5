"""Print one of the two commands the README opens with, so CI runs exactly them.

The README opens with two ``sh`` code blocks: the first sets up cosched and runs the
main job on the bundled example, the second runs the fast test suite on that same
install. ``python scripts/readme_commands.py N`` prints block N (1 or 2) as one shell
line; ``.ci/run`` runs them before anything else, so a README command that fails fails CI.
"""

from __future__ import annotations

import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def commands(text: str) -> list[str]:
    """The ``sh`` code blocks of ``text`` that come before its first ``##`` heading."""
    blocks: list[str] = []
    lines: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            break
        if lines is None and line.strip() == "```sh":
            lines = []
        elif lines is not None and line.strip() == "```":
            blocks.append(" ".join(s.strip().rstrip("\\").strip() for s in lines if s.strip()))
            lines = None
        elif lines is not None:
            lines.append(line)
    return blocks


def main(argv: list[str]) -> int:
    blocks = commands(README.read_text(encoding="utf-8"))
    if len(argv) != 1 or argv[0] not in {"1", "2"}:
        print("usage: readme_commands.py 1|2", file=sys.stderr)
        return 2
    if len(blocks) < 2:
        print(f"{README}: expected two sh blocks before the first heading", file=sys.stderr)
        return 1
    print(blocks[int(argv[0]) - 1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
