"""MkDocs hook: the command-line reference, written from ``cosched``'s own parsers.

At every build, :func:`on_files` walks the parser that ``cosched.cli.main.build_parser``
returns (every command, and the actions of ``trace``, ``generate`` and ``coupled``) and
adds ``reference/cli.md`` to the site as a generated page, so the reference shows what
``cosched COMMAND --help`` prints and never drifts from it. Run as a script, it prints
the same Markdown (``python docs/hooks/cli_reference.py``).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from typing import Any

PAGE = "reference/cli.md"
#: The width argparse wraps usage lines at (it reads $COLUMNS otherwise, which would make
#: the page depend on the terminal that built it).
WIDTH = 88

INTRO = """\
# Command line

Every command and option of `cosched`, generated from the command's own argument
parsers when the site is built (`docs/hooks/cli_reference.py`), so it says exactly what
`cosched COMMAND --help` prints.

Exit codes: 0 success; 2 bad input or configuration (one line on stderr naming the
file, line and field, or the flag); 130 interrupted; 141 output pipe closed.
"""


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=WIDTH)


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """Every (sub)command under ``parser``, depth first in ``--help`` order: its words
    after ``cosched``, its parser and the one-line help its parent lists it with."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {c.dest: c.help or "" for c in action._get_subactions()}
        for name, sub in action.choices.items():
            words = (*path, name)
            yield words, sub, helps.get(name, "")
            yield from commands(sub, words)


def _cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell: one line, no column breaks, and
    Markdown's marks taken literally outside code spans (``[,alpha=A]``, ``n1/0*4``)."""
    parts = " ".join(text.split()).split("`")
    for i in range(0, len(parts), 2):  # the even parts lie outside code spans
        parts[i] = re.sub(r"([\\[\]*_])", r"\\\1", parts[i]).replace("<", "&lt;")
    return "`".join(parts).replace("|", "\\|")


def _names(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    metavar = ""
    if action.nargs != 0:
        fmt = _Formatter("cosched")
        metavar = " " + fmt._format_args(action, fmt._get_default_metavar_for_optional(action))
    return ", ".join(f"`{o}{metavar}`" for o in action.option_strings)


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    text = parser._get_formatter()._expand_help(action) if action.help else ""
    # Choices are listed unless the argument's name already shows them ({a,b}).
    listed = action.metavar is not None or not action.option_strings
    if action.choices is not None and listed and not isinstance(action, argparse._SubParsersAction):
        choices = ", ".join(f"`{c}`" for c in action.choices)
        text = f"{text} (one of {choices})" if text else f"one of {choices}"
    default = action.default
    shown = (
        action.option_strings
        and action.nargs != 0
        and default not in (None, argparse.SUPPRESS, False, [])
        and "default" not in text
    )
    if shown:
        text += f" (default: `{default}`)"
    return _cell(text)


def _groups(parser: argparse.ArgumentParser) -> Iterator[tuple[str, list[argparse.Action]]]:
    for group in parser._action_groups:
        actions = [
            a
            for a in group._group_actions
            if a.help != argparse.SUPPRESS
            and not isinstance(a, argparse._SubParsersAction | argparse._HelpAction)
        ]
        if actions:
            yield group.title or "arguments", actions


def command_markdown(words: tuple[str, ...], parser: argparse.ArgumentParser, summary: str) -> str:
    """One command's section: summary, usage, description, argument tables, epilog."""
    depth = "#" * min(len(words) + 1, 4)
    lines = [f"{depth} `cosched {' '.join(words)}`", ""]
    if summary:
        lines += [_cell(summary)[0].upper() + _cell(summary)[1:] + ".", ""]
    parser.formatter_class = _Formatter
    # Without the "usage: " prefix, continuation lines keep their alignment under the
    # command's name.
    usage = parser.format_usage().removeprefix("usage: ").rstrip().replace("\n       ", "\n")
    lines += ["```text", usage, "```", ""]
    if parser.description:
        lines += [_cell(parser.description), ""]
    for title, actions in _groups(parser):
        lines += [f"**{title[0].upper()}{title[1:]}**", "", "| argument | meaning |", "|---|---|"]
        lines += [f"| {_names(a)} | {_help(parser, a)} |" for a in actions]
        lines.append("")
    if parser.epilog:
        lines += ["```text", parser.epilog.strip("\n"), "```", ""]
    return "\n".join(lines)


def cli_markdown() -> str:
    """The whole page."""
    from cosched.cli.main import build_parser

    parser = build_parser()
    parts = [INTRO]
    parts += [command_markdown(w, p, s) for w, p, s in commands(parser)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(parts)).rstrip() + "\n"


def on_files(files: Any, config: Any) -> Any:
    """MkDocs event: add the generated page to the site's files."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=cli_markdown()))
    return files


if __name__ == "__main__":
    sys.stdout.write(cli_markdown())
