"""Regenerate, or check, the command outputs and report excerpts the docs quote.

A page marks each quoted output with an HTML comment on the line before it:

- ``<!-- output fast -->`` (or ``slow``) before a ``console`` block whose first line is
  ``$ cosched ...``: the block is the command and what it prints (stdout and stderr).
- ``<!-- quote FILE SECTION -->`` before a block quote: the first paragraph of the
  section ``## SECTION`` of ``FILE`` (written by a command above it), wrapped as a quote.
- ``<!-- quote-table FILE SECTION -->`` before a table: the first table of that section.
- ``<!-- screenshot FILE.html -->`` before an image line ``![...](PNG)``: with
  ``--screenshots``, the top of ``FILE.html`` in headless Chromium is written to ``PNG``
  (CI need not have Chromium: the check compares the text the picture shows, quoted
  beside it, not pixels).

The commands of a page run in order, in one scratch folder that sees the checkout's
``tests/`` and ``examples/`` and, as ``../shared``, the ``shared`` folder beside the
checkout. ``fast`` commands take a second or two; ``slow`` ones more (a comparison);
a command naming ``../shared`` needs that folder. Lines that differ between two runs of
the same command (the one-time compile note) are left out of both sides.

    python scripts/doc_outputs.py                # rewrite every marked page
    python scripts/doc_outputs.py --check        # fail when a page differs from the code
    python scripts/doc_outputs.py --level fast   # only pages' fast commands (and quotes
                                                 # of their files)
    python scripts/doc_outputs.py --screenshots README.md  # and redraw its picture

A quote whose command was not run (a lower ``--level``, or no ``../shared``) is left as
it is and reported as skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ``../shared`` beside the checkout (or beside the folder of worktrees holding it).
SHARED = next(
    (p / "shared" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared").is_dir()),
    ROOT.parent / "shared",
)

#: The pages with marked outputs.
PAGES = ("README.md", "docs/tutorials/own-log.md", "docs/operator-logs.md")

#: Costs of a command, cheapest first; ``--level L`` runs every command up to ``L``.
LEVELS = ("fast", "slow")

#: Lines whose presence depends on the machine's state, not on the inputs (numba's
#: compile cache, progress lines of a long run): left out when comparing.
VOLATILE = re.compile(
    r"^(note\s+the first \S+ run compiles|progress\s|\S+  \d+/\d+ \S+ \(.*\), \d+ min \d+ s in$)"
)

WIDTH = 88

_MARK = re.compile(r"^<!-- (output|quote|quote-table|screenshot) (.*?) ?-->$")

#: The browser window of a screenshot (pixels): the verdict and the summary tables.
WINDOW = (1100, 2300)

_IMAGE = re.compile(r"^!\[.*\]\((?P<png>[^)]+)\)$")


@dataclass
class Block:
    """One marked block: its kind, arguments, and the line span it occupies."""

    kind: str
    args: list[str]
    start: int  # first line of the block (after the marker)
    end: int  # one past its last line
    text: list[str] = field(default_factory=list)


def blocks(lines: Sequence[str], page: str) -> list[Block]:
    """The marked blocks of a page's ``lines``."""
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = _MARK.match(lines[i].strip())
        if not m:
            i += 1
            continue
        kind, args = m.group(1), m.group(2).split()
        start = i + 1
        if kind == "output":
            if start >= len(lines) or lines[start].strip() != "```console":
                raise SystemExit(f"{page}:{start + 1}: an output marker needs a console block")
            end = start + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            end += 1
        elif kind == "screenshot":
            end = start + 1
            if start >= len(lines) or not _IMAGE.match(lines[start].strip()):
                raise SystemExit(f"{page}:{start + 1}: a screenshot marker needs an image line")
        else:
            prefix = ">" if kind == "quote" else "|"
            end = start
            while end < len(lines) and lines[end].startswith(prefix):
                end += 1
            if end == start:
                raise SystemExit(f"{page}:{start + 1}: a {kind} marker needs a {prefix} block")
        found.append(Block(kind, args, start, end, list(lines[start:end])))
        i = end
    return found


def _command(block: Block) -> str:
    first = block.text[1] if len(block.text) > 1 else ""
    if not first.startswith("$ cosched "):
        raise SystemExit(f"output block must start with '$ cosched ...': {first!r}")
    return first[2:]


def _scratch() -> Path:
    work = Path(tempfile.mkdtemp(prefix="cosched-docs-"))
    repo = work / "repo"
    repo.mkdir()
    for name in ("tests", "examples"):
        (repo / name).symlink_to(ROOT / name)
    if SHARED.is_dir():
        (work / "shared").symlink_to(SHARED)
    return repo


def run_command(command: str, cwd: Path) -> list[str]:
    """What ``command`` prints (stdout and stderr, as a terminal interleaves them),
    without the volatile lines; run in this process, in ``cwd``."""
    from cosched.cli.main import main as cosched

    argv = shlex.split(command)
    if argv[0] != "cosched":
        raise SystemExit(f"not a cosched command: {command}")
    printed = io.StringIO()
    here = Path.cwd()
    try:
        os.chdir(cwd)
        # An error is printed (and ends in SystemExit): the page shows it as printed.
        with (
            contextlib.redirect_stdout(printed),
            contextlib.redirect_stderr(printed),
            contextlib.suppress(SystemExit),
        ):
            cosched(argv[1:])
    finally:
        os.chdir(here)
    return [line.rstrip() for line in printed.getvalue().splitlines() if not VOLATILE.match(line)]


def section(text: str, title: str) -> list[str]:
    """The lines of section ``## title`` of a Markdown text."""
    lines = text.splitlines()
    try:
        i = next(k for k, line in enumerate(lines) if line.strip() == f"## {title}")
    except StopIteration:
        return []
    out: list[str] = []
    for line in lines[i + 1 :]:
        if line.startswith("## "):
            break
        out.append(line)
    return out


def first_paragraph(lines: Sequence[str]) -> str:
    para: list[str] = []
    for line in lines:
        if line.strip():
            para.append(line.strip())
        elif para:
            break
    return " ".join(para)


def first_table(lines: Sequence[str]) -> list[str]:
    table: list[str] = []
    for line in lines:
        if line.startswith("|"):
            table.append(line.rstrip())
        elif table:
            break
    return table


def as_quote(paragraph: str) -> list[str]:
    return textwrap.wrap(
        paragraph,
        WIDTH,
        initial_indent="> ",
        subsequent_indent="> ",
        break_long_words=False,
        break_on_hyphens=False,
    )


@dataclass
class Outcome:
    page: str
    changed: list[str] = field(default_factory=list)  # diffs of blocks that differ
    skipped: list[str] = field(default_factory=list)  # why blocks were not checked
    text: str = ""  # the page with every run block regenerated


def screenshot(html: Path, png: Path) -> bool:
    """Write the top of ``html`` as seen by headless Chromium to ``png``; False without
    a Chromium."""
    browser = next((b for b in ("chromium", "chromium-browser") if shutil.which(b)), None)
    if browser is None:
        return False
    argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    argv += [f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={png}", html.as_uri()]
    subprocess.run(argv, capture_output=True, check=True)
    return True


def process(page: str, level: str = "slow", *, shots: bool = False) -> Outcome:
    """Run the marked commands of ``page`` up to ``level`` and regenerate its blocks
    (and, with ``shots``, its screenshots)."""
    path = ROOT / page
    lines = path.read_text(encoding="utf-8").splitlines()
    outcome = Outcome(page)
    repo = _scratch()
    stale: set[str] = set()  # files a skipped command would have written
    new = list(lines)
    try:
        order = blocks(lines, page)
        replaced: dict[int, list[str]] = {}
        for b in order:
            where = f"{page}:{b.start + 1}"
            if b.kind == "output":
                command = _command(b)
                cost = b.args[0] if b.args else "fast"
                if cost not in LEVELS:
                    raise SystemExit(f"{where}: cost {cost!r} is none of {LEVELS}")
                if LEVELS.index(cost) > LEVELS.index(level):
                    outcome.skipped.append(f"{where}: {cost} command, --level {level}")
                    stale.update(_written(command))
                    continue
                if "../shared" in command and not SHARED.is_dir():
                    outcome.skipped.append(f"{where}: needs {SHARED} (absent)")
                    stale.update(_written(command))
                    continue
                printed = run_command(command, repo)
                fresh = ["```console", f"$ {command}", *printed, "```"]
                old = [x for x in b.text if not VOLATILE.match(x)]
                stale.difference_update(_written(command))
            elif b.kind == "screenshot":
                html = repo / b.args[0]
                png = ROOT / _IMAGE.match(b.text[0].strip()).group("png")  # type: ignore[union-attr]
                if not shots:
                    continue
                if not html.exists() or b.args[0] in stale:
                    outcome.skipped.append(f"{where}: {b.args[0]} not written")
                elif not screenshot(html, png):
                    outcome.skipped.append(f"{where}: no chromium to draw {png.name}")
                continue
            else:
                file, title = b.args[0], " ".join(b.args[1:])
                report = repo / file
                if not report.exists() or file in stale:
                    outcome.skipped.append(f"{where}: {file} not written (its command skipped)")
                    continue
                body = section(report.read_text(encoding="utf-8"), title)
                quoted = as_quote(first_paragraph(body)) if b.kind == "quote" else None
                fresh = quoted if quoted is not None else first_table(body)
                old = b.text
                if not fresh:
                    outcome.changed.append(f"{where}: no section '## {title}' in {file}")
                    continue
            replaced[b.start] = fresh
            if fresh != old:
                diff = difflib.unified_diff(old, fresh, "page", "code now", lineterm="", n=1)
                outcome.changed.append(f"{where}:\n" + "\n".join(diff))
        new = []
        i = 0
        spans = {b.start: b.end for b in order}
        while i < len(lines):
            if i in replaced:
                new.extend(replaced[i])
                i = spans[i]
            else:
                new.append(lines[i])
                i += 1
    finally:
        shutil.rmtree(repo.parent, ignore_errors=True)
    outcome.text = "\n".join(new) + "\n"
    return outcome


def _written(command: str) -> set[str]:
    """The output paths a command names (``-o``, ``--out``), as page quotes name them."""
    argv = shlex.split(command)
    out = set()
    for flag in ("-o", "--out"):
        if flag in argv and argv.index(flag) + 1 < len(argv):
            name = argv[argv.index(flag) + 1]
            out.update({name, f"{name}/report.md", f"{name}/report.html"})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail on a difference")
    parser.add_argument("--level", choices=LEVELS, default="slow")
    parser.add_argument(
        "--screenshots", action="store_true", help="redraw the marked screenshots (Chromium)"
    )
    parser.add_argument("pages", nargs="*", default=list(PAGES))
    args = parser.parse_args(argv)
    failed = False
    for page in args.pages:
        outcome = process(page, args.level, shots=args.screenshots and not args.check)
        for s in outcome.skipped:
            print(f"skipped   {s}")
        if args.check:
            for c in outcome.changed:
                print(f"differs   {c}")
            failed = failed or bool(outcome.changed)
        else:
            (ROOT / page).write_text(outcome.text, encoding="utf-8")
            print(f"wrote     {page} ({len(outcome.changed)} blocks changed)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
